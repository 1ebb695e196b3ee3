"""PPO on gridax, PureJaxRL style: the whole training run is one jitted function.

``batch_reset`` once (through ``AutoReset``), then ``lax.scan`` over ``batch_step`` for
each rollout, GAE, and minibatch epochs, all inside ``jax.jit`` and ``jax.vmap``-ed over
seeds, so several seeds train at once. The policy is an equinox MLP actor-critic with one
categorical head per action component (forage: the move; ARC: operation and the two
corners of a bounding box).

    python examples/ppo.py                               # ForagaxTwoBiome-v1, 3 seeds
    python examples/ppo.py --env arc-copy                # the ARC copy-input curriculum
    python examples/ppo.py --env ArcGen-FlipHorizontal-v0  # any generated-task family
    python examples/ppo.py --total-steps 20000 --seeds 0 # a smoke run

It prints the learning curve (average reward per step; for ARC also the success rate of
finished episodes) beside a uniform random policy measured on the same env, and saves the
curve as PNG. Measured results: docs/training.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

import gridax
from gridax import compile_cache
from gridax.actions import BboxAction
from gridax.envs import arc
from gridax.wrappers import AutoReset, EpisodeMetrics

# Environments ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Problem:
    """An env, its params, and how the policy sees it and acts in it."""

    env: gridax.Env
    params: Any
    action_sizes: tuple[int, ...]  # one categorical head per action component
    features: Callable  # batched observation -> float32[batch, F]
    to_action: Callable  # int32[batch, len(action_sizes)] -> the env's batched action


def forage_problem(env_id: str) -> Problem:
    env = gridax.make(env_id)  # 5x5 aperture, Foragax's default colour observation
    return Problem(
        env,
        env.default_params,
        (env.num_actions,),
        lambda obs: obs.reshape(obs.shape[0], -1),
        lambda choice: choice[:, 0],
    )


NUM_TRAINING_TASKS = 4096


def arc_problem(env_id: str, max_episode_steps: int = 10) -> Problem:
    """A generated-task curriculum (any ``ArcGen-*`` id; ``arc-copy`` is ArcGen-Copy-v0
    from an empty grid, so copy-input then submit solves it). Bbox actions, five heads
    (operation, r1, c1, r2, c2). The policy sees the working and input grids, the grid
    shape, the step, and the task's first demonstration pair: a recolour rule is only
    visible there.

    Episodes draw from 4,096 tasks of the family generated up front
    (``Generator.bank``): generating a task costs ~0.1 ms, more than a step, and under
    this script's ``vmap`` over seeds ``AutoReset`` would generate a batch every step."""
    copy = env_id == "arc-copy"
    env = gridax.make(
        "ArcGen-Copy-v0" if copy else env_id,
        initial_grid="empty" if copy else "input",
        max_episode_steps=max_episode_steps,
        selection_format="bbox",
        max_size=10,
    )
    bank = env.default_params.bank(np.arange(NUM_TRAINING_TASKS)).arrays_only()
    height, width = arc.ArcConfig().grid_shape

    def grid_features(grid):
        return grid.reshape(grid.shape[0], -1).astype(jnp.float32) / 9.0

    def features(obs):
        demonstrations = bank.demonstrations(obs.task_index)
        one_hot = functools.partial(jax.nn.one_hot, dtype=jnp.float32)
        return jnp.concatenate(
            [
                grid_features(obs.working_grid),
                grid_features(obs.input_grid),
                grid_features(demonstrations.inputs[:, 0, 0]),
                grid_features(demonstrations.outputs[:, 0, 0]),
                one_hot(obs.working_shape[:, 0] - 1, height),
                one_hot(obs.working_shape[:, 1] - 1, width),
                one_hot(obs.step_count, max_episode_steps + 1),
            ],
            axis=-1,
        )

    def to_action(choice):
        return BboxAction(choice[:, 0], choice[:, 1], choice[:, 2], choice[:, 3], choice[:, 4])

    sizes = (arc.NUM_OPERATIONS, height, width, height, width)
    return Problem(env, bank, sizes, features, to_action)


# Policy ---------------------------------------------------------------------------------


class ActorCritic(eqx.Module):
    actor: eqx.nn.MLP
    critic: eqx.nn.MLP
    action_sizes: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, num_features: int, action_sizes: tuple[int, ...], key):
        actor_key, critic_key = jax.random.split(key)
        self.actor = eqx.nn.MLP(num_features, sum(action_sizes), 64, 2, jnp.tanh, key=actor_key)
        self.critic = eqx.nn.MLP(num_features, "scalar", 64, 2, jnp.tanh, key=critic_key)
        self.action_sizes = action_sizes

    def __call__(self, features):
        """Per-head log-probabilities and the value of one observation's features."""
        splits = np.cumsum(self.action_sizes)[:-1].tolist()
        logits = jnp.split(self.actor(features), splits)
        return [jax.nn.log_softmax(head) for head in logits], self.critic(features)


def sample_choice(key, heads, random_policy=False) -> jax.Array:
    """One draw from each head of a batch (``[envs, heads]``); uniform for the random
    baseline (``random_policy``, which may be traced)."""
    keys = jax.random.split(key, len(heads))
    draws = [
        jax.random.categorical(k, jnp.where(random_policy, 0.0, h))
        for k, h in zip(keys, heads, strict=True)
    ]
    return jnp.stack(draws, axis=-1)


def log_prob_and_entropy(heads, choice):
    log_prob = sum(head[c] for head, c in zip(heads, choice, strict=True))
    entropy = -sum(jnp.sum(jnp.exp(head) * head) for head in heads)
    return log_prob, entropy


# Training -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Settings:
    num_envs: int = 64
    num_steps: int = 128  # steps per env per rollout
    total_steps: int = 3_000_000
    learning_rate: float = 1e-3
    epochs: int = 4
    minibatches: int = 8
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5

    @property
    def num_updates(self) -> int:
        return max(1, self.total_steps // (self.num_envs * self.num_steps))


def make_train(problem: Problem, settings: Settings, strategy: str = "always"):
    """``train(key, random_policy) -> metrics per update``; jit and vmap it over keys."""
    wrapper = EpisodeMetrics(AutoReset(problem.env, strategy))
    s = settings
    optimiser = make_optimiser(s)

    def train(key, random_policy):
        net_key, env_key, key = jax.random.split(key, 3)
        state, obs = wrapper.reset(env_key, s.num_envs, problem.params)
        features = problem.features(obs)
        # Only the arrays of the model travel through lax.scan; the rest is static.
        weights, static = eqx.partition(
            ActorCritic(features.shape[-1], problem.action_sizes, net_key), eqx.is_array
        )
        opt_state = optimiser.init(weights)

        def env_step(carry, key):
            weights, state, features = carry
            heads, value = jax.vmap(eqx.combine(weights, static))(features)
            choice = sample_choice(key, heads, random_policy)
            log_prob, _ = jax.vmap(log_prob_and_entropy)(heads, choice)
            state, obs, reward, done, info = wrapper.step(
                state, problem.to_action(choice), problem.params
            )
            # Episode metrics as PureJaxRL logs them; ARC also reports whether it was solved.
            finished = info["returned_episode"]
            success = finished & info.get("returned_episode_solved", jnp.zeros_like(done))
            episode_return = jnp.where(finished, info["returned_episode_returns"], 0.0)
            transition = (features, choice, log_prob, value, reward, done, success, episode_return)
            return (weights, state, problem.features(obs)), transition

        learn = make_learn(static, optimiser, s)

        def update(carry, key):
            weights, opt_state, state, features = carry
            rollout_key, shuffle_key = jax.random.split(key)
            (weights, state, features), trajectory = jax.lax.scan(
                env_step, (weights, state, features), jax.random.split(rollout_key, s.num_steps)
            )
            feats, choice, log_prob, value, reward, done, success, episode_return = trajectory
            _, last_value = jax.vmap(eqx.combine(weights, static))(features)
            advantage, target = gae(value, reward, done, last_value, s.gamma, s.gae_lambda)
            if not random_policy:  # static: the random baseline does not learn
                batch = (feats, choice, log_prob, advantage, target)
                weights, opt_state = learn(weights, opt_state, batch, shuffle_key)
            metrics = {
                "reward_per_step": reward.mean(),
                "episodes": done.sum(),
                "successes": success.sum(),
                "episode_return_sum": episode_return.sum(),
            }
            return (weights, opt_state, state, features), metrics

        _, metrics = jax.lax.scan(
            update, (weights, opt_state, state, features), jax.random.split(key, s.num_updates)
        )
        return metrics

    return train


def make_optimiser(s: Settings):
    """Adam with the gradient's global norm clipped."""
    return optax.chain(
        optax.clip_by_global_norm(s.max_grad_norm), optax.adam(s.learning_rate, eps=1e-5)
    )


def make_learn(static, optimiser, s: Settings, log_probs=None):
    """``learn(weights, opt_state, batch, key) -> (weights, opt_state)``: PPO's clipped
    objective over ``s.epochs`` passes of ``s.minibatches`` shuffled minibatches of a
    rollout's ``(features, choice, log_prob, advantage, target)`` (``[steps, envs, ...]``;
    features may be a tuple). ``log_probs(heads, choice) -> (log_prob, entropy)`` of one
    sample defaults to independent heads (:func:`log_prob_and_entropy`)."""
    log_probs = log_probs or log_prob_and_entropy

    def loss_fn(weights, batch):
        features, choice, old_log_prob, advantage, target = batch
        heads, value = jax.vmap(eqx.combine(weights, static))(features)
        log_prob, entropy = jax.vmap(log_probs)(heads, choice)
        ratio = jnp.exp(log_prob - old_log_prob)
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        clipped = jnp.clip(ratio, 1 - s.clip, 1 + s.clip)
        policy_loss = -jnp.mean(jnp.minimum(ratio * advantage, clipped * advantage))
        value_loss = 0.5 * jnp.mean((value - target) ** 2)
        return policy_loss + s.value_coef * value_loss - s.entropy_coef * jnp.mean(entropy)

    def minibatch(carry, batch):
        weights, opt_state = carry
        grads = jax.grad(loss_fn)(weights, batch)
        updates, opt_state = optimiser.update(grads, opt_state)
        return (optax.apply_updates(weights, updates), opt_state), None

    def learn(weights, opt_state, batch, key):
        flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), batch)
        size = len(flat[1])  # the choices'

        def epoch(carry, key):
            order = jax.random.permutation(key, size)
            minibatches = jax.tree.map(
                lambda x: x[order].reshape((s.minibatches, -1) + x.shape[1:]), flat
            )
            return jax.lax.scan(minibatch, carry, minibatches)[0], None

        keys = jax.random.split(key, s.epochs)
        return jax.lax.scan(epoch, (weights, opt_state), keys)[0]

    return learn


def gae(value, reward, done, last_value, gamma: float, lam: float):
    """Generalised advantage estimates and value targets, scanning back in time."""

    def backwards(carry, step):
        advantage, next_value = carry
        value, reward, done = step
        live = 1.0 - done.astype(jnp.float32)
        delta = reward + gamma * next_value * live - value
        advantage = delta + gamma * lam * live * advantage
        return (advantage, value), advantage

    _, advantages = jax.lax.scan(
        backwards, (jnp.zeros_like(last_value), last_value), (value, reward, done), reverse=True
    )
    return advantages, advantages + value


# Command line ---------------------------------------------------------------------------


def run(problem: Problem, settings: Settings, seeds: list[int]) -> dict[str, np.ndarray]:
    """Trained and random-policy metrics per seed and update (arrays [seeds, updates])."""
    train = make_train(problem, settings)
    keys = jax.vmap(jax.random.key)(jnp.asarray(seeds))
    results = {}
    for name, random_policy in (("random", True), ("trained", False)):
        started = time.perf_counter()
        seeded = jax.vmap(functools.partial(train, random_policy=random_policy))
        compiled = jax.jit(seeded).lower(keys).compile()
        compiled_at = time.perf_counter()
        metrics = jax.tree.map(np.asarray, compiled(keys))
        seconds = time.perf_counter() - compiled_at
        steps = len(seeds) * settings.num_updates * settings.num_envs * settings.num_steps
        print(
            f"{name}: {steps:,} env-steps in {seconds:.1f} s ({steps / seconds:,.0f}/s, "
            f"compile {compiled_at - started:.1f} s)"
        )
        results[name] = metrics
    return results


def summarise(results, settings: Settings, arc_env: bool) -> None:
    trained, random = results["trained"], results["random"]
    updates = settings.num_updates
    marks = sorted({0, updates // 4, updates // 2, 3 * updates // 4, updates - 1})
    steps_per_update = settings.num_envs * settings.num_steps
    print("env-steps   reward/step (mean over seeds)" + ("   success rate" if arc_env else ""))
    for u in marks:
        line = f"{(u + 1) * steps_per_update:>9,}   {trained['reward_per_step'][:, u].mean():+.4f}"
        if arc_env:
            rate = trained["successes"][:, u].sum() / max(trained["episodes"][:, u].sum(), 1)
            line += f"                  {rate:.3f}"
        print(line)
    tail = max(1, updates // 10)  # the last 10 % of training

    def per_seed(m):
        return m["reward_per_step"][:, -tail:].mean(axis=1)

    def mean_return(m):
        episodes = np.maximum(m["episodes"][:, -tail:].sum(1), 1)
        return m["episode_return_sum"][:, -tail:].sum(1) / episodes

    print(f"last {tail} updates, reward per step by seed:")
    print("  random  " + "  ".join(f"{v:+.4f}" for v in per_seed(random)))
    print("  trained " + "  ".join(f"{v:+.4f}" for v in per_seed(trained)))
    if random["episodes"][:, -tail:].sum() and trained["episodes"][:, -tail:].sum():
        print("mean episode return (EpisodeMetrics), by seed:")
        print("  random  " + "  ".join(f"{v:+.3f}" for v in mean_return(random)))
        print("  trained " + "  ".join(f"{v:+.3f}" for v in mean_return(trained)))
    if arc_env:
        for name, m in (("random", random), ("trained", trained)):
            episodes = np.maximum(m["episodes"][:, -tail:].sum(1), 1)
            rates = m["successes"][:, -tail:].sum(1) / episodes
            print(f"  {name} success rate by seed: " + "  ".join(f"{r:.3f}" for r in rates))


def plot(results, settings: Settings, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = (np.arange(settings.num_updates) + 1) * settings.num_envs * settings.num_steps
    figure, axes = plt.subplots(figsize=(6, 4))
    for name, colour in (("trained", "tab:blue"), ("random", "tab:grey")):
        curves = results[name]["reward_per_step"]
        axes.plot(steps, curves.mean(0), color=colour, label=f"{name} (mean of {len(curves)})")
        axes.fill_between(steps, curves.min(0), curves.max(0), color=colour, alpha=0.2)
    axes.set(xlabel="env-steps", ylabel="reward per step", title=title)
    axes.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--env", default="ForagaxTwoBiome-v1", help="a forage id, an ArcGen-* id or arc-copy"
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--total-steps", type=int, default=None)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--out", default="out/ppo", help="folder for the learning-curve PNG")
    args = parser.parse_args(argv)
    arc_env = args.env == "arc-copy" or args.env.startswith("ArcGen-")
    problem = arc_problem(args.env) if arc_env else forage_problem(args.env)
    default_steps = 500_000 if arc_env else 3_000_000
    settings = Settings(
        num_envs=args.num_envs,
        num_steps=16 if arc_env else 128,
        total_steps=args.total_steps or default_steps,
    )
    print(
        f"PPO on {args.env}: {len(args.seeds)} seeds x {settings.num_updates} updates x "
        f"{settings.num_envs} envs x {settings.num_steps} steps"
    )
    results = run(problem, settings, args.seeds)
    summarise(results, settings, arc_env)
    try:
        path = Path(args.out) / f"ppo-{args.env}.png"
        plot(results, settings, f"PPO on {args.env}", path)
        print(f"wrote {path}")
    except ImportError:
        print("matplotlib is not installed: no plot")


if __name__ == "__main__":
    compile_cache.enable()  # a rerun loads the compiled code (docs/performance.md)
    main()
