"""PPO on ARC Prize's real ARC-AGI-3 games, from the 64x64 frame, with a start-level
curriculum, beside a random policy playing as many actions.

    python examples/arc3/ppo_arc3.py                         # every ported game, 30 min each
    python examples/arc3/ppo_arc3.py --games vc33 --minutes 2   # a smoke run
    python examples/arc3/ppo_arc3.py --games cn04 --novelty 0.01  # with the count bonus
    python examples/arc3/ppo_arc3.py --report                # the saved results' table

The whole training loop runs in ``jax.jit`` (examples/ppo.py's PPO: clipped objective,
GAE, minibatch epochs), in chunks of updates until the time budget is spent.

- **Policy**: a small CNN over the frame. Each pixel's colour becomes 4 fixed random
  channels, each 4x4 block of pixels is embedded by one matmul (a 4x4, stride-4
  convolution), then a 3x3 stride-2 convolution and a dense layer feed three heads: the
  action id, masked to the game's available actions (``env.action_mask``; RESET is left
  to the episode boundary, as for the random policy), and the click's x and y (64
  each), which count only when the id is CLICK.
- **Curriculum**: an episode starts on a level drawn uniformly from those the agent has
  reached so far (level 0 at first; ``env.reset_to_level``), so that what it learns on
  one level opens the next.
- **Exploration** (``--novelty BETA``, off by default): a count-based bonus
  (#Exploration, Tang et al. 2017), ``BETA / sqrt(visits)`` of the frame reached, the
  visits counted over the whole run in a hashed table (``frame_buckets``).
- **Episodes** end at ``--episode-steps`` actions (or when the game is won or lost); the
  reward is the levels completed.

After training, the policy (sampling) and the random policy (uniform over the game's
actions, clicks anywhere) each play ``--eval-episodes`` episodes from level 0 of as many
actions; per game it reports the share of episodes that cleared level 1, the levels
cleared, the actions spent on level 1 beside the human baseline, and ARC Prize's score,
saved with the curves in ``--out`` (JSON and PNG); the trained weights go to
``--weights`` (``eqx.tree_deserialise_leaves(path, eqx.filter(FramePolicy(key),
eqx.is_array))`` reads them back).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

import gridax
from gridax.batching import select_envs
from gridax.envs.arc3 import CLICK, RESET, Action
from gridax.envs.arc3 import games as arc3_games
from gridax.envs.arc3.engine.camera import SCREEN
from gridax.envs.arc3.tools import evaluation

sys.path.insert(0, str(Path(__file__).parents[1]))
import ppo  # noqa: E402
from ppo import gae, make_learn, sample_choice  # noqa: E402

GAMES = tuple(sorted(module.GAME.name for module in arc3_games.PORTED))  # the real games
BLOCK = 4  # screen pixels per side of an embedded block
MASKED = -1e9  # the logit of an action not offered (finite: entropies stay numbers)


@dataclasses.dataclass(frozen=True)
class Settings(ppo.Settings):
    num_steps: int = 64  # per env per rollout
    updates_per_chunk: int = 8  # updates in one jitted call, between time checks
    episode_steps: int = 128
    learning_rate: float = 2.5e-4
    epochs: int = 2  # sparse rewards: more env steps in the time rather than more passes
    minibatches: int = 4
    novelty: float = 0.0  # the count bonus: novelty / sqrt(visits of the frame reached)
    count_bits: int = 20  # the frame counts' table has 2 ** count_bits buckets


# Policy ---------------------------------------------------------------------------------


class FramePolicy(eqx.Module):
    """``(frame, id_mask) -> ([id, x, y] log-probabilities, value)`` of one frame."""

    palette: jax.Array  # [colour, channel]: fixed (its gradient, a scatter, is slow on CPU)
    patch: eqx.nn.Linear  # a 4x4 block of pixels' channels -> the block's features
    conv: eqx.nn.Linear  # a 3x3, stride-2 convolution over the blocks, as a matmul
    trunk: eqx.nn.Linear
    heads: eqx.nn.Linear
    critic: eqx.nn.Linear

    def __init__(self, key, colour_channels: int = 4, channels: int = 16, width: int = 256):
        keys = jax.random.split(key, 6)
        self.palette = jax.random.normal(keys[0], (16, colour_channels))
        self.patch = eqx.nn.Linear(BLOCK * BLOCK * colour_channels, channels, key=keys[1])
        self.conv = eqx.nn.Linear(3 * 3 * channels, 32, key=keys[2])
        blocks = SCREEN // BLOCK // 2
        self.trunk = eqx.nn.Linear(32 * blocks * blocks, width, key=keys[3])
        self.heads = eqx.nn.Linear(width, 8 + 2 * SCREEN, key=keys[4])
        self.critic = eqx.nn.Linear(width, "scalar", key=keys[5])

    def __call__(self, features):
        frame, id_mask = features
        n = SCREEN // BLOCK
        colours = jax.lax.stop_gradient(self.palette)[frame.astype(jnp.int32)]  # [64, 64, D]
        blocks = colours.reshape(n, BLOCK, n, BLOCK, -1).transpose(0, 2, 1, 3, 4)
        hidden = blocks.reshape(n, n, -1) @ self.patch.weight.T + self.patch.bias[None, None]
        patches = stride_2_patches(jax.nn.relu(hidden))
        hidden = jax.nn.relu(patches @ self.conv.weight.T + self.conv.bias[None, None])
        hidden = jax.nn.relu(self.trunk(hidden.reshape(-1)))
        ids, xs, ys = jnp.split(self.heads(hidden), [8, 8 + SCREEN])
        ids = jnp.where(id_mask, ids, MASKED)
        heads = [jax.nn.log_softmax(h) for h in (ids, xs, ys)]
        return heads, self.critic(hidden)


def stride_2_patches(x):
    """``[h, w, c] -> [h/2, w/2, 9c]``: each 3x3 neighbourhood (zero-padded) at stride 2.

    A convolution's kernel gradient inside ``lax.scan`` is ~25x slower than at the top
    level of a jit on XLA CPU (benchmarks/RESULTS.md); as slices and a matmul it is not."""
    h, w, _ = x.shape
    padded = jnp.pad(x, ((1, 1), (1, 1), (0, 0)))
    shifts = [padded[dy : dy + h : 2, dx : dx + w : 2] for dy in range(3) for dx in range(3)]
    return jnp.concatenate(shifts, axis=-1)


def click_log_prob_and_entropy(heads, choice):
    """One sample's log-probability and entropy: x and y count only for a CLICK."""
    ids, xs, ys = heads
    click = choice[0] == CLICK
    log_prob = ids[choice[0]] + jnp.where(click, xs[choice[1]] + ys[choice[2]], 0.0)

    def entropy(h):
        return -jnp.sum(jnp.exp(h) * h)

    return log_prob, entropy(ids) + jnp.exp(ids[CLICK]) * (entropy(xs) + entropy(ys))


def to_action(choice) -> Action:
    return Action(*choice.T)


# The frame hash's weights: fixed, odd, drawn once (a constant of the jitted step).
HASH_WEIGHTS = np.asarray(jax.random.bits(jax.random.key(1), (SCREEN * SCREEN,), jnp.uint32)) | 1


def frame_buckets(frames, bits: int):
    """``[B, 64, 64] -> [B]``: each frame's bucket in a table of ``2 ** bits`` counts, by
    a multiply-and-sum hash with ``HASH_WEIGHTS`` (uint32, wrapping): distinct frames
    share a bucket by chance only, about ``visited / 2 ** bits`` of the time."""
    pixels = frames.reshape(len(frames), -1).astype(jnp.uint32) + 1  # colour 0 counts
    return jnp.sum(pixels * HASH_WEIGHTS[None], axis=-1, dtype=jnp.uint32) >> (32 - bits)


# Training -------------------------------------------------------------------------------


def static_policy():
    """The policy's static half (its structure); the weights travel apart."""
    return eqx.partition(FramePolicy(jax.random.key(0)), eqx.is_array)[1]


def agent_ids(env) -> jax.Array:
    """The ids a policy may draw: the game's available actions (``env.action_mask``)
    without RESET."""
    return env.action_mask(env.reset(jax.random.key(0))[0])["id"].at[RESET].set(False)


def make_trainer(game: str, s: Settings):
    """``(init(key) -> carry, chunk(carry) -> (carry, metrics per update))``."""
    env = gridax.make(f"Arc3-{game}-v0", max_episode_steps=s.episode_steps)
    num_levels = len(env.game.levels)
    ids = agent_ids(env)
    optimiser = ppo.make_optimiser(s)
    static = static_policy()
    learn = make_learn(static, optimiser, s, click_log_prob_and_entropy)
    # The games are deterministic (the key only keeps the contract): each level's start
    # is made once and copied where an episode ends, instead of a reset every step.
    starts = jax.vmap(env.reset_to_level)(
        jax.random.split(jax.random.key(0), num_levels), jnp.arange(num_levels)
    )

    def start(key, frontier):
        """New episodes, each on a level drawn from 0..frontier."""
        levels = jax.random.randint(key, (s.num_envs,), 0, frontier + 1)
        states, frames = jax.tree.map(lambda x: x[levels], starts)
        return states, frames, levels

    def init(key):
        net_key, env_key, key = jax.random.split(key, 3)
        weights = eqx.filter(FramePolicy(net_key), eqx.is_array)
        states, frames, levels = start(env_key, jnp.int32(0))
        counts = jnp.zeros(2**s.count_bits, jnp.int32)
        return (weights, optimiser.init(weights), states, frames, levels, jnp.int32(0), counts, key)

    def update(carry, _):
        weights, opt_state, states, frames, levels, frontier, counts, key = carry
        key, rollout_key, learn_key = jax.random.split(key, 3)
        masks = jnp.broadcast_to(ids, (s.num_envs, len(ids)))

        def env_step(carry, key):
            states, frames, levels, frontier, counts = carry
            act_key, reset_key = jax.random.split(key)
            heads, value = jax.vmap(eqx.combine(weights, static))((frames, masks))
            choice = sample_choice(act_key, heads)
            log_prob, _ = jax.vmap(click_log_prob_and_entropy)(heads, choice)
            states, next_frames, reward, done, info = env.batch_step(states, to_action(choice))
            # Count-based exploration (#Exploration, Tang et al. 2017): a bonus that
            # fades with the visits of the frame reached, counted over the whole run.
            buckets = frame_buckets(next_frames, s.count_bits)
            counts = counts.at[buckets].add(1)
            if s.novelty:
                reward = reward + s.novelty * jax.lax.rsqrt(counts[buckets].astype(jnp.float32))
            reached = jnp.where(done, levels + info["levels_completed"], 0)
            frontier = jnp.maximum(frontier, jnp.minimum(reached.max(), num_levels - 1))
            again, again_frames, again_levels = start(reset_key, frontier)
            ended = {
                "episodes": done,
                "from_level_0": done & (levels == 0),
                "cleared_level_1": done & (levels == 0) & (info["levels_completed"] >= 1),
                "levels_completed": jnp.where(done, info["levels_completed"], 0),
            }
            carry = (
                select_envs(done, again, states),
                jnp.where(done[:, None, None], again_frames, next_frames),
                jnp.where(done, again_levels, levels),
                frontier,
                counts,
            )
            return carry, ((frames, masks), choice, log_prob, value, reward, done, ended)

        (states, frames, levels, frontier, counts), trajectory = jax.lax.scan(
            env_step,
            (states, frames, levels, frontier, counts),
            jax.random.split(rollout_key, s.num_steps),
        )
        features, choice, log_prob, value, reward, done, ended = trajectory
        _, last_value = jax.vmap(eqx.combine(weights, static))((frames, masks))
        advantage, target = gae(value, reward, done, last_value, s.gamma, s.gae_lambda)
        batch = (features, choice, log_prob, advantage, target)
        weights, opt_state = learn(weights, opt_state, batch, learn_key)
        metrics = {name: v.sum() for name, v in ended.items()} | {
            "frontier": frontier,
            "frames_seen": jnp.count_nonzero(counts),  # buckets filled: about the frames seen
        }
        return (weights, opt_state, states, frames, levels, frontier, counts, key), metrics

    @jax.jit
    def chunk(carry):
        return jax.lax.scan(update, carry, length=s.updates_per_chunk)

    return env, jax.jit(init), chunk


def train(game: str, s: Settings, minutes: float, seed: int):
    """Train until ``minutes`` have passed; the weights and a record of the run."""
    env, init, chunk = make_trainer(game, s)
    started = time.perf_counter()
    carry = init(jax.random.key(seed))
    chunk = chunk.lower(carry).compile()
    compile_seconds = time.perf_counter() - started
    history = []
    while not history or time.perf_counter() - started < minutes * 60:
        carry, metrics = jax.block_until_ready(chunk(carry))
        history.append(metrics)
    seconds = time.perf_counter() - started
    curve = {k: np.concatenate([np.asarray(m[k]) for m in history]).tolist() for k in metrics}
    steps = len(curve["episodes"]) * s.num_envs * s.num_steps
    record = {"steps": steps, "seconds": seconds, "compile_seconds": compile_seconds}
    return carry[0], record | {"curve": curve}


# Evaluation -----------------------------------------------------------------------------


def evaluate(game: str, weights, episodes: int, steps: int, seed: int) -> dict:
    """The policy (``weights``; ``None``: the random policy) from level 0, ``episodes``
    episodes of ``steps`` actions: level 1's clear rate, levels, actions and score."""
    env = gridax.make(f"Arc3-{game}-v0", max_episode_steps=steps)
    if weights is None:
        policy = evaluation.random_policy(env.game)  # the game's actions, clicks anywhere
    else:
        net = eqx.combine(weights, static_policy())
        ids = agent_ids(env)

        def policy(frame, key):
            heads, _ = net((frame, ids))
            return to_action(sample_choice(key, heads))

    _, info = evaluation.play(env, policy, episodes, steps, seed)
    info = jax.tree.map(np.asarray, info)
    cleared = info["levels_completed"] >= 1
    level_1_actions = info["level_actions"][:, 0][cleared]
    return {
        "episodes": episodes,
        "actions_per_episode": steps,
        "level_1_cleared": float(cleared.mean()),
        "levels_completed": float(info["levels_completed"].mean()),
        "level_1_actions": float(level_1_actions.mean()) if cleared.any() else None,
        "level_1_baseline": env.metadata["baseline_actions"][0],
        "score": float(info["score"].mean()),
    }


# Main -----------------------------------------------------------------------------------


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--minutes", type=float, default=30.0, help="training time per game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episode-steps", type=int, default=Settings.episode_steps)
    parser.add_argument("--eval-episodes", type=int, default=1024)
    parser.add_argument(
        "--novelty",
        type=float,
        default=0.0,
        help="count bonus scale (results saved as GAME+novelty)",
    )
    parser.add_argument("--out", type=Path, default=Path("docs/arc3/agent"))
    parser.add_argument(
        "--weights", type=Path, default=Path("out/arc3/agent"), help="the trained policies"
    )
    parser.add_argument(
        "--report", action="store_true", help="only redraw and tabulate the saved results"
    )
    args = parser.parse_args(argv)
    if args.report:
        print(report(args.out, args.games))
        return {}
    settings = Settings(episode_steps=args.episode_steps, novelty=args.novelty)
    args.out.mkdir(parents=True, exist_ok=True)
    args.weights.mkdir(parents=True, exist_ok=True)
    results = {}
    for game in args.games:
        name = f"{game}+novelty" if settings.novelty else game
        weights, record = train(game, settings, args.minutes, args.seed)
        eqx.tree_serialise_leaves(args.weights / f"{name}.eqx", weights)
        result = {
            "seed": args.seed,
            "settings": dataclasses.asdict(settings),
            "training": record,
            "ppo": evaluate(game, weights, args.eval_episodes, args.episode_steps, args.seed + 1),
            "random": evaluate(game, None, args.eval_episodes, args.episode_steps, args.seed + 1),
        }
        results[name] = result
        (args.out / f"{name}.json").write_text(json.dumps(result, indent=1))
        plot(name, result, args.out / f"{name}.png", level_count(game))
        print(name, summary(result), flush=True)
    return results


def summary(result: dict) -> str:
    t, ppo, rnd = result["training"], result["ppo"], result["random"]
    return (
        f"{t['steps']:,} steps in {t['seconds']:.0f} s (compile {t['compile_seconds']:.0f} s); "
        f"level 1 cleared: PPO {ppo['level_1_cleared']:.1%}, random {rnd['level_1_cleared']:.1%}; "
        f"levels: {ppo['levels_completed']:.2f} vs {rnd['levels_completed']:.2f}; "
        f"level 1 actions {ppo['level_1_actions']} vs {rnd['level_1_actions']} "
        f"(human baseline {ppo['level_1_baseline']}); "
        f"score {ppo['score']:.2f} vs {rnd['score']:.2f}"
    )


def level_count(name: str) -> int:
    """The levels of a run's game (``name``: the game, or ``GAME+novelty``)."""
    return len(gridax.make(f"Arc3-{name.split('+')[0]}-v0").game.levels)


def report(out: Path, games) -> str:
    """The saved results of ``games`` in ``out`` (with their ``+novelty`` runs) as
    docs/arc3.md's table; plots redrawn."""
    rows = [
        "| game | trained | level 1 cleared: PPO / random | levels: PPO / random "
        "| level-1 actions: PPO / random / human | score: PPO / random | highest level reached |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]

    def actions(value):
        return "-" if value is None else f"{value:.0f}"

    for name in [g + run for g in games for run in ("", "+novelty")]:
        path = out / f"{name}.json"
        if not path.exists():
            continue
        result = json.loads(path.read_text())
        levels = level_count(name)
        plot(name, result, out / f"{name}.png", levels)
        t, ppo, rnd = result["training"], result["ppo"], result["random"]
        rows.append(
            f"| {name} | {t['steps']:,} steps, {t['seconds'] / 60:.0f} min "
            f"| {ppo['level_1_cleared']:.1%} / {rnd['level_1_cleared']:.1%} "
            f"| {ppo['levels_completed']:.2f} / {rnd['levels_completed']:.2f} "
            f"| {actions(ppo['level_1_actions'])} / {actions(rnd['level_1_actions'])} "
            f"/ {ppo['level_1_baseline']} "
            f"| {ppo['score']:.2f} / {rnd['score']:.2f} "
            f"| {max(t['curve']['frontier']) + 1} of {levels} |"
        )
    return "\n".join(rows)


def plot(game: str, result: dict, path: Path, levels: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve, s = result["training"]["curve"], result["settings"]
    steps = (np.arange(len(curve["episodes"])) + 1) * s["num_envs"] * s["num_steps"]
    window = max(1, len(steps) // 50)  # trailing sums over updates: no edge effect

    def trailing(values):
        return np.convolve(values, np.ones(window), mode="valid")

    cleared, started = trailing(curve["cleared_level_1"]), trailing(curve["from_level_0"])
    smooth = cleared / np.maximum(started, 1)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps[window - 1 :], smooth, label="PPO (training, from level 0)")
    ax.axhline(result["random"]["level_1_cleared"], color="grey", ls="--", label="random")
    ax.set_xlabel("env steps")
    ax.set_ylabel("episodes clearing level 1")
    ax.set_title(f"{game}: {s['episode_steps']}-action episodes, seed {result['seed']}")
    ax.legend(loc="upper left")
    frontier = ax.twinx()  # the curriculum's: the highest level reached so far
    frontier.step(steps, np.asarray(curve["frontier"]) + 1, color="tab:green", where="post")
    frontier.set_ylabel("highest level reached", color="tab:green")
    frontier.set_ylim(0, levels + 0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
