"""The Foragax paper's continual-RL protocol, at a scale this 2-core CPU finishes.

1. **Sweep.** Each agent's step size over a small grid, a few seeds, a short run, on each
   world; the step size with the highest mean EWM reward (the time-mean of the
   bias-corrected EWM curve, averaged over seeds, as the paper selects) wins.
2. **Evaluate.** The winner on fresh seeds for a longer run, beside a copy frozen at
   ``--freeze-at`` (same seeds, so identical until then: the plasticity probe) and the
   uniform random policy.

Agents (``agents.py``): DQN with the paper's published Two Biome hyperparameters, PPO on
one stream, recurrent PPO (a GRU), random. Worlds: ForagaxTwoBiome-v1 (stationary) and
ForagaxNeverEndingRelearning-v1 (rewards flip every 250,000 steps). Every run is one
jitted function, vmapped over seeds (and frozen copies).

    python examples/continual/protocol.py            # the measured scale (docs/forage.md)
    python examples/continual/protocol.py --quick    # a smoke run, about a minute

Writes ``OUT/results.json`` (every curve, the sweep and the compute used),
``OUT/curves.csv`` (one row per world, agent, variant, seed and logged step) and
``OUT/<world>.png`` (EWM reward and EWM biome regret against steps, mean and a 95 %
confidence band over seeds).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from agents import DQN, PPO, Random, features, recurrent_ppo

import gridax
from gridax import compile_cache
from gridax.envs import forage

WORLDS = ("ForagaxTwoBiome-v1", "ForagaxNeverEndingRelearning-v1")
SWEEP = {"dqn": (1e-3, 3e-3, 1e-2), "ppo": (1e-4, 3e-4, 1e-3), "recurrent ppo": (1e-4, 3e-4, 1e-3)}
AGENTS = {"dqn": DQN, "ppo": PPO, "recurrent ppo": recurrent_ppo}
NEVER = np.iinfo(np.int32).max  # freeze_at of an agent that always learns


def make_run(env, agent, steps: int, log_every: int, rate: float):
    """``run(key, freeze_at) -> per log point: EWM reward (corrected and online), EWM
    biome regret, and the mean reward and biome regret since the last point``."""
    tracker = forage.ContinualMetrics(env, rate)
    if log_every % agent.block or steps % log_every:
        raise ValueError(
            f"--log-every ({log_every}) must be a multiple of {agent.name}'s block "
            f"({agent.block}) and divide the steps ({steps})"
        )

    def run(key, freeze_at):
        env_key, agent_key, key = jax.random.split(key, 3)
        tracked, obs = tracker.reset(env_key)

        def env_step(carry, key):
            state, tracked, obs_features, t = carry
            action, state = agent.act(state, obs_features, key)
            tracked, obs, reward, _, info = tracker.step(tracked, action)
            next_features = features(obs)
            state = agent.remember(state, (obs_features, action, reward, next_features))
            return (state, tracked, next_features, t + 1), (reward, info["biome_regret"])

        def block(carry, key):
            step_key, update_key = jax.random.split(key)
            carry, (reward, regret) = jax.lax.scan(
                env_step, carry, jax.random.split(step_key, agent.block)
            )
            state, tracked, obs_features, t = carry
            state = agent.update(state, update_key, t <= freeze_at)
            return (state, tracked, obs_features, t), (reward.mean(), regret.mean())

        def log_point(carry, key):
            blocks = jax.random.split(key, log_every // agent.block)
            carry, (reward, regret) = jax.lax.scan(block, carry, blocks)
            metrics = carry[1].metrics
            return carry, {
                "ewm_reward": metrics.ewm_reward / metrics.ewm_weight,
                "ewm_reward_online": metrics.ewm_reward,
                "ewm_biome_regret": metrics.ewm_regret / metrics.ewm_weight,
                "reward": reward.mean(),
                "biome_regret": regret.mean(),
            }

        carry = (agent.init(agent_key), tracked, features(obs), jnp.int32(0))
        return jax.lax.scan(log_point, carry, jax.random.split(key, steps // log_every))[1]

    return run


def run_seeds(env, agent, seeds, freeze_at, steps, log_every, rate):
    """Curves ``[runs, log points]`` for every (seed, freeze_at) pair, one jitted call;
    with the seconds it took and its compile time."""
    keys = jax.vmap(jax.random.key)(jnp.asarray(seeds))
    freeze = jnp.asarray(freeze_at, jnp.int32)
    started = time.perf_counter()
    compiled = jax.jit(jax.vmap(make_run(env, agent, steps, log_every, rate))).lower(keys, freeze)
    compiled = compiled.compile()
    compiled_at = time.perf_counter()
    curves = jax.tree.map(np.asarray, compiled(keys, freeze))
    return curves, time.perf_counter() - compiled_at, compiled_at - started


def world(env_id: str):
    env = gridax.make(env_id)
    _, obs = env.reset(jax.random.key(0))
    return env, int(features(obs).shape[0])


def sweep(env_id: str, args, log) -> dict:
    """Each agent's step size with the highest mean EWM reward on the sweep seeds."""
    env, num_features = world(env_id)
    seeds = list(range(10**6, 10**6 + args.sweep_seeds))  # never used for evaluation
    chosen = {}
    for name, rates in SWEEP.items():
        scores = {}
        for learning_rate in rates:
            agent = AGENTS[name](num_features, learning_rate=learning_rate)
            curves, seconds, _ = run_seeds(
                env, agent, seeds, [NEVER] * len(seeds), args.sweep_steps, args.log_every, args.rate
            )
            scores[learning_rate] = float(curves["ewm_reward"].mean())
            log(f"  sweep {env_id} {name} step size {learning_rate:g}: mean EWM reward "
                f"{scores[learning_rate]:.4f} ({seconds:.0f} s)")  # fmt: skip
        best = max(scores, key=lambda r: scores[r])
        chosen[name] = {"learning_rate": best, "scores": scores}
    return chosen


def evaluate(env_id: str, chosen: dict, args, log) -> dict:
    env, num_features = world(env_id)
    seeds = list(range(args.seeds))
    half = len(seeds)
    runs = {}
    for name in AGENTS:
        agent = AGENTS[name](num_features, learning_rate=chosen[name]["learning_rate"])
        curves, seconds, compile_seconds = run_seeds(
            env, agent, seeds + seeds, [NEVER] * len(seeds) + [args.freeze_at] * len(seeds),
            args.steps, args.log_every, args.rate,
        )  # fmt: skip
        runs[name] = {key: values[:half] for key, values in curves.items()}
        frozen = {key: values[half:] for key, values in curves.items()}
        runs[f"{name} frozen at {args.freeze_at:,}"] = frozen
        log(f"  {env_id} {name}: {2 * half} runs x {args.steps:,} steps in {seconds:.0f} s "
            f"(compile {compile_seconds:.0f} s)")  # fmt: skip
    curves, seconds, _ = run_seeds(
        env,
        Random(num_features),
        seeds,
        [NEVER] * len(seeds),
        args.steps,
        args.log_every,
        args.rate,
    )
    runs["random"] = curves
    log(f"  {env_id} random: {len(seeds)} runs in {seconds:.0f} s")
    return runs


def band(values: np.ndarray):
    """Mean over seeds (axis 0) and a 95 % confidence band (t distribution)."""
    from scipy import stats

    mean = values.mean(0)
    n = values.shape[0]
    if n < 2:
        return mean, mean, mean
    half = stats.t.ppf(0.975, n - 1) * values.std(0, ddof=1) / np.sqrt(n)
    return mean, mean - half, mean + half


def plot(env_id: str, runs: dict, args, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = np.arange(1, args.steps // args.log_every + 1) * args.log_every
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for (name, curves), colour in zip(runs.items(), plt.get_cmap("tab10").colors, strict=False):
        style = "--" if "frozen" in name else "-"
        for axis, key in zip(axes, ("ewm_reward", "ewm_biome_regret"), strict=True):
            mean, low, high = band(curves[key])
            axis.plot(steps, mean, style, color=colour, label=name)
            axis.fill_between(steps, low, high, color=colour, alpha=0.2)
    axes[0].set(xlabel="steps", ylabel=f"EWM reward (rate {args.rate:g})", title=env_id)
    axes[1].set(xlabel="steps", ylabel="EWM biome regret", title=env_id)
    axes[0].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_csv(results: dict, args, path: Path) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        keys = ("ewm_reward", "ewm_reward_online", "ewm_biome_regret", "reward", "biome_regret")
        writer.writerow(["world", "agent", "seed", "step", *keys])
        for env_id, runs in results["evaluation"].items():
            for name, curves in runs.items():
                for seed in range(curves["ewm_reward"].shape[0]):
                    for point in range(curves["ewm_reward"].shape[1]):
                        row = [f"{curves[k][seed, point]:.6g}" for k in keys]
                        writer.writerow([env_id, name, seed, (point + 1) * args.log_every, *row])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", default=",".join(WORLDS))
    parser.add_argument("--sweep-seeds", type=int, default=3)
    parser.add_argument("--sweep-steps", type=int, default=102_400)
    parser.add_argument("--seeds", type=int, default=5, help="fresh seeds for the evaluation")
    parser.add_argument("--steps", type=int, default=768_000)
    parser.add_argument("--freeze-at", type=int, default=250_000, help="the frozen copies' step")
    parser.add_argument("--log-every", type=int, default=5_120)
    parser.add_argument("--rate", type=float, default=1e-3, help="the EWMs' rate")
    parser.add_argument("--quick", action="store_true", help="a smoke-sized run")
    parser.add_argument("--out", default="out/continual")
    args = parser.parse_args(argv)
    if args.quick:
        args.sweep_seeds, args.sweep_steps, args.seeds = 2, 2_560, 2
        args.steps, args.freeze_at, args.log_every = 5_120, 2_560, 512
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = {"settings": vars(args), "sweep": {}, "evaluation": {}}
    for env_id in args.worlds.split(","):
        print(f"{env_id}: sweep")
        results["sweep"][env_id] = sweep(env_id, args, print)
        print(f"{env_id}: evaluation")
        runs = evaluate(env_id, results["sweep"][env_id], args, print)
        results["evaluation"][env_id] = runs
        plot(env_id, runs, args, out / f"{env_id}.png")
        for name, curves in runs.items():
            print(f"  {name:<24} final EWM reward {curves['ewm_reward'][:, -1].mean():8.4f}  "
                  f"mean EWM reward {curves['ewm_reward'].mean():8.4f}  "
                  f"final EWM regret {curves['ewm_biome_regret'][:, -1].mean():8.3f}")  # fmt: skip
    results["seconds"] = time.perf_counter() - started
    print(f"protocol done in {results['seconds'] / 60:.1f} minutes on {jax.device_count()} "
          f"{jax.devices()[0].platform} device(s)")  # fmt: skip
    write_csv(results, args, out / "curves.csv")
    (out / "results.json").write_text(json.dumps(jax.tree.map(_plain, results), indent=1))
    return results


def _plain(x):
    return x.tolist() if isinstance(x, np.ndarray) else x


if __name__ == "__main__":
    compile_cache.enable()  # a rerun loads the compiled code (docs/performance.md)
    main()
