"""What Gymnasium's API costs: steps/s of GymnasiumVectorEnv against plain batch_step and
against Gymnasium's own SyncVectorEnv over the single-env adapter, at one batch size.

Every variant is stepped from a Python loop, one call per step, with its actions drawn
before the timed loop, so the columns differ only in what each API does per call:

- ``batch_step``: ``jax.jit(env.batch_step)`` on JAX arrays (no auto-reset, no
  conversion): the floor for stepping from Python;
- ``vector numpy`` / ``vector torch``: GymnasiumVectorEnv (NEXT_STEP auto-reset, action
  checks, NumPy or DLPack-to-torch out), actions as NumPy arrays;
- ``SyncVectorEnv``: Gymnasium's own loop over ``num_envs`` GymnasiumEnv, one jitted
  single-env step each.

The variants alternate within each repeat; the median of the repeats is kept.

    python benchmarks/gymnasium_cost.py --num-envs 1024
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial

import jax
from gymnasium.vector import SyncVectorEnv

import gridax
from gridax.wrappers.gymnasium import GymnasiumEnv, GymnasiumVectorEnv

ENV_IDS = ("ArcAgi1-v0", "ForagaxTwoBiome-v1")


def actions_for(vec: GymnasiumVectorEnv, steps: int) -> list:
    vec.action_space.seed(0)
    return [vec.action_space.sample() for _ in range(steps)]


def plain_batch_step(env_id: str, num_envs: int, actions: list):
    env = gridax.make(env_id)
    step = jax.jit(env.batch_step)
    space = env.action_space
    as_jax = [gridax.spaces.as_structured(space, a) for a in actions]
    states, _ = env.batch_reset(jax.random.split(jax.random.key(0), num_envs))
    states = jax.block_until_ready(step(states, as_jax[0])[0])  # compile

    def run():
        nonlocal states
        for action in as_jax:
            states, *_ = step(states, action)
        jax.block_until_ready(states)

    return run


def gymnasium_run(vec, actions: list):
    vec.reset(seed=0)
    vec.step(actions[0])  # compile

    def run():
        for action in actions:
            vec.step(action)

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--sync-steps", type=int, default=5, help="SyncVectorEnv is slow")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: F401

        with_torch = True
    except ImportError:
        with_torch = False
    print(f"{args.num_envs:,} envs, {args.steps} steps per run, median of {args.repeats}")
    columns = ["batch_step", "vector numpy"] + ["vector torch"] * with_torch + ["SyncVectorEnv"]
    print("| env | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for env_id in ENV_IDS:
        vec = GymnasiumVectorEnv(env_id, args.num_envs)
        actions = actions_for(vec, args.steps)
        runs = {
            "batch_step": (plain_batch_step(env_id, args.num_envs, actions), args.steps),
            "vector numpy": (gymnasium_run(vec, actions), args.steps),
        }
        if with_torch:
            torch_vec = GymnasiumVectorEnv(env_id, args.num_envs, array_type="torch")
            runs["vector torch"] = (gymnasium_run(torch_vec, actions), args.steps)
        sync = SyncVectorEnv([partial(GymnasiumEnv, env_id)] * args.num_envs)
        runs["SyncVectorEnv"] = (gymnasium_run(sync, actions[: args.sync_steps]), args.sync_steps)
        seconds = {name: [] for name in runs}
        for _ in range(args.repeats):
            for name, (run, _steps) in runs.items():
                started = time.perf_counter()
                run()
                seconds[name].append(time.perf_counter() - started)
        rates = {
            name: args.num_envs * steps / statistics.median(seconds[name])
            for name, (_, steps) in runs.items()
        }
        base = rates["batch_step"]
        cells = " | ".join(f"{rate:,.0f} ({rate / base:.2f})" for rate in rates.values())
        print(f"| {env_id} | {cells} |")
    print("steps/s (fraction of batch_step's, same run)")


if __name__ == "__main__":
    main()
