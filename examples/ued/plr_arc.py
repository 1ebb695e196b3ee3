"""Prioritised level replay against domain randomisation on ARC's generated tasks.

    python examples/ued/plr_arc.py                          # 2M steps each, seed 0
    python examples/ued/plr_arc.py --steps 200000 --eval-seeds 20   # a smoke run

Both train the same PPO (examples/ppo.py's actor-critic, bbox actions with five heads)
for the same number of env steps on ``ArcGen-Mixture-v0``, whose tasks come from 14
generated families, with the demonstrations in the observation (``context=True``):

- **DR** (domain randomisation): every rollout plays new levels from the generator;
- **PLR** (robust PLR, "PLR-perp"): jaxued's own ``LevelSampler`` keeps a buffer of levels
  scored by their positive value loss (the mean of the positive GAE advantages: where
  the agent's value is too low, it has something to learn). Each rollout either replays
  buffer levels, chosen by score rank and staleness, and learns from them, or plays new
  levels from the generator only to score them into the buffer.

A level is an ``ArcLevel`` (the task), played through ``env.reset_to_level``; within a
rollout an env whose episode ends starts its level again. After training, each policy
plays 200 held-out tasks of every family (seeds no run trained on) and the success rate
per family is printed, saved as JSON and plotted beside a random policy's.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
import time
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

import gridax
import gridax.wrappers.jaxued  # noqa: F401  (puts back jax.tree_map, which jaxued 0.0.1 calls)
from gridax.actions import BboxAction
from gridax.batching import select_envs
from gridax.envs.arc.tasks.generators import FAMILIES

sys.path.insert(0, str(Path(__file__).parents[1]))
import ppo  # noqa: E402
from jaxued.level_sampler import LevelSampler  # noqa: E402
from ppo import ActorCritic, gae, log_prob_and_entropy, make_learn, sample_choice  # noqa: E402

EPISODE = 10  # steps
OPTIONS = {
    "context": True,
    "selection_format": "bbox",
    "max_episode_steps": EPISODE,
    "max_size": 10,
}
HELD_OUT = 1_000_000_007  # the held-out tasks' keys fold this in


@dataclasses.dataclass(frozen=True)
class Settings(ppo.Settings):
    num_steps: int = 2 * EPISODE  # per env per rollout: each level played twice or more
    total_steps: int = 2_000_000
    learning_rate: float = 5e-4
    minibatches: int = 4
    # PLR (jaxued's LevelSampler)
    buffer: int = 4000
    replay_prob: float = 0.8
    staleness_coef: float = 0.3
    temperature: float = 0.3
    minimum_fill: float = 0.5


def features(obs) -> jax.Array:
    """What the policy sees: the working and input grids, the first demonstration pair,
    the working grid's shape and the step (one-hot), all of a batch."""

    def grid(g):
        return g.reshape(g.shape[0], -1).astype(jnp.float32) / 9.0

    one_hot = functools.partial(jax.nn.one_hot, dtype=jnp.float32)
    return jnp.concatenate(
        [
            grid(obs.working_grid),
            grid(obs.input_grid),
            grid(obs.context.inputs[:, 0]),
            grid(obs.context.outputs[:, 0]),
            one_hot(obs.working_shape[:, 0] - 1, 30),
            one_hot(obs.working_shape[:, 1] - 1, 30),
            one_hot(obs.step_count, EPISODE + 1),
        ],
        axis=-1,
    )


def to_action(choice) -> BboxAction:
    return BboxAction(*(choice[:, i] for i in range(5)))


ACTION_SIZES = (35, 30, 30, 30, 30)


def make_train(method: str, s: Settings):
    """``train(key) -> (weights, metrics per update)`` for ``"plr"`` or ``"dr"``."""
    env = gridax.make("ArcGen-Mixture-v0", **OPTIONS)
    params = env.default_params
    sampler = LevelSampler(
        s.buffer,
        replay_prob=s.replay_prob,
        staleness_coeff=s.staleness_coef,
        minimum_fill_ratio=s.minimum_fill,
        prioritization="rank",
        prioritization_params={"temperature": s.temperature},
    )
    optimiser = ppo.make_optimiser(s)
    sample_levels = jax.vmap(lambda k: env.sample_level(k, params))
    reset_to_levels = jax.vmap(lambda k, v: env.reset_to_level(k, v, params))
    width = num_features(env)
    static = eqx.partition(ActorCritic(width, ACTION_SIZES, jax.random.key(0)), eqx.is_array)[1]
    learn = make_learn(static, optimiser, s)

    def train(key):
        net_key, key = jax.random.split(key)
        weights = eqx.filter(ActorCritic(width, ACTION_SIZES, net_key), eqx.is_array)
        opt_state = optimiser.init(weights)
        buffer = sampler.initialize(
            jax.tree.map(lambda x: x[0], sample_levels(jax.random.split(key, 1)))
        )

        def rollout(weights, levels, key):
            """``num_steps`` steps on ``levels``, each env restarting its level when its
            episode ends; the trajectory, the last value and the positive value loss."""
            reset_key, key = jax.random.split(key)
            states, obs = reset_to_levels(jax.random.split(reset_key, s.num_envs), levels)

            def step(carry, key):
                states, feats = carry
                heads, value = jax.vmap(eqx.combine(weights, static))(feats)
                act_key, replay_key = jax.random.split(key)
                choice = sample_choice(act_key, heads)
                log_prob, _ = jax.vmap(log_prob_and_entropy)(heads, choice)
                states, obs, reward, done, info = env.batch_step(states, to_action(choice))
                again, again_obs = reset_to_levels(jax.random.split(replay_key, s.num_envs), levels)
                states = select_envs(done, again, states)
                obs = select_envs(done, again_obs, obs)
                record = (feats, choice, log_prob, value, reward, done, info["success"] & done)
                return (states, features(obs)), record

            (_, last_feats), trajectory = jax.lax.scan(
                step, (states, features(obs)), jax.random.split(key, s.num_steps)
            )
            feats, choice, log_prob, value, reward, done, success = trajectory
            _, last_value = jax.vmap(eqx.combine(weights, static))(last_feats)
            advantage, target = gae(value, reward, done, last_value, s.gamma, s.gae_lambda)
            score = jnp.mean(jnp.maximum(advantage, 0.0), axis=0)  # positive value loss
            batch = (feats, choice, log_prob, advantage, target)
            stats = {
                "reward_per_step": reward.mean(),
                "episodes": done.sum(),
                "successes": success.sum(),
            }
            return batch, score, stats

        def new_levels(weights, opt_state, buffer, key, learns: bool):
            level_key, play_key, learn_key = jax.random.split(key, 3)
            levels = sample_levels(jax.random.split(level_key, s.num_envs))
            batch, score, stats = rollout(weights, levels, play_key)
            if learns:
                weights, opt_state = learn(weights, opt_state, batch, learn_key)
            buffer, _ = sampler.insert_batch(buffer, levels, score)
            return weights, opt_state, buffer, {**stats, "replayed": jnp.bool_(False)}

        def replay_levels(weights, opt_state, buffer, key):
            pick_key, play_key, learn_key = jax.random.split(key, 3)
            buffer, (indices, levels) = sampler.sample_replay_levels(buffer, pick_key, s.num_envs)
            batch, score, stats = rollout(weights, levels, play_key)
            weights, opt_state = learn(weights, opt_state, batch, learn_key)
            buffer = sampler.update_batch(buffer, indices, score)
            return weights, opt_state, buffer, {**stats, "replayed": jnp.bool_(True)}

        def update(carry, key):
            weights, opt_state, buffer = carry
            decide_key, key = jax.random.split(key)
            if method == "dr":
                out = new_levels(weights, opt_state, buffer, key, learns=True)
            else:
                out = jax.lax.cond(
                    sampler.sample_replay_decision(buffer, decide_key),
                    lambda: replay_levels(weights, opt_state, buffer, key),
                    lambda: new_levels(weights, opt_state, buffer, key, learns=False),
                )
            weights, opt_state, buffer, stats = out
            return (weights, opt_state, buffer), stats

        (weights, _, _), metrics = jax.lax.scan(
            update, (weights, opt_state, buffer), jax.random.split(key, s.num_updates)
        )
        return weights, metrics

    return train, static


def num_features(env) -> int:
    """The length of :func:`features` of one of ``env``'s observations."""
    _, obs = jax.eval_shape(env.reset, jax.random.key(0))
    return features(jax.tree.map(lambda x: jnp.zeros((1, *x.shape), x.dtype), obs)).shape[-1]


def held_out_success(weights, static, seeds: int, families, random_policy=False) -> dict:
    """Per family, the success rate of the policy's episodes on ``seeds`` held-out tasks."""
    rates = {}
    for family in families:
        index = FAMILIES.index(family)
        env = gridax.make(f"ArcGen-{family.title().replace('_', '')}-v0", **OPTIONS)
        key = jax.random.fold_in(jax.random.key(HELD_OUT), index)
        rates[family] = float(_success_rate(env, weights, static, seeds, random_policy, key))
    return rates


@functools.partial(jax.jit, static_argnums=(0, 2, 3, 4))
def _success_rate(env, weights, static, seeds, random_policy, key):
    reset_key, key = jax.random.split(key)
    states, _ = env.batch_reset(jax.random.split(reset_key, seeds))

    def step(carry, key):
        states, solved = carry
        heads, _ = jax.vmap(eqx.combine(weights, static))(features(env.observe(states)))
        choice = sample_choice(key, heads, random_policy)
        states, _, _, _, info = env.batch_step(states, to_action(choice))
        return (states, solved | info["success"]), None

    keys = jax.random.split(key, EPISODE)
    (_, solved), _ = jax.lax.scan(step, (states, jnp.zeros(seeds, bool)), keys)
    return solved.mean()


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-seeds", type=int, default=200)
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument("--out", type=Path, default=Path("docs/ued/plr-vs-dr"))
    args = parser.parse_args(argv)
    settings = Settings(total_steps=args.steps)
    results = {}
    for method in ("dr", "plr"):
        train, static = make_train(method, settings)
        started = time.perf_counter()
        compiled = jax.jit(train).lower(jax.random.key(args.seed)).compile()
        compiled_at = time.perf_counter()
        weights, metrics = jax.block_until_ready(compiled(jax.random.key(args.seed)))
        seconds = time.perf_counter() - compiled_at
        metrics = jax.tree.map(np.asarray, metrics)
        tail = max(1, settings.num_updates // 10)
        ended = max(int(metrics["episodes"][-tail:].sum()), 1)
        results[method] = {
            "held_out": held_out_success(weights, static, args.eval_seeds, args.families),
            "train_success_last_10pc": float(metrics["successes"][-tail:].sum() / ended),
            "replayed_fraction": float(metrics["replayed"].mean()),
            "seconds": seconds,
            "compile_seconds": compiled_at - started,
            "steps": settings.num_updates * settings.num_envs * settings.num_steps,
        }
        print(method, json.dumps({k: v for k, v in results[method].items() if k != "held_out"}))
    results["random"] = {
        "held_out": held_out_success(weights, static, args.eval_seeds, args.families, True)
    }
    print(f"{'family':<20} {'random':>7} {'DR':>7} {'PLR':>7}")
    for family in args.families:
        row = [results[m]["held_out"][family] for m in ("random", "dr", "plr")]
        print(f"{family:<20} " + " ".join(f"{v:7.3f}" for v in row))
    means = {m: float(np.mean(list(results[m]["held_out"].values()))) for m in results}
    print(f"{'mean':<20} " + " ".join(f"{means[m]:7.3f}" for m in ("random", "dr", "plr")))
    save(results, args, settings)
    return results


def save(results: dict, args, settings: Settings) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "seed": args.seed,
        "eval_seeds": args.eval_seeds,
        "settings": dataclasses.asdict(settings),
        **results,
    }
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1))
    fig, ax = plt.subplots(figsize=(11, 3.8))
    x = np.arange(len(args.families))
    for offset, method in zip((-0.27, 0.0, 0.27), ("random", "dr", "plr"), strict=True):
        values = [results[method]["held_out"][f] for f in args.families]
        ax.bar(x + offset, values, 0.27, label=method.upper() if method != "random" else "random")
    ax.set_xticks(x, args.families, rotation=40, ha="right")
    ax.set_ylabel(f"held-out success ({args.eval_seeds} tasks)")
    ax.set_title(
        f"PPO on ArcGen-Mixture-v0, {results['dr']['steps']:,} steps each, seed {args.seed}"
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out.with_suffix(".png"), dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
