"""Bytes per state by action format and history length, and checkpoints without task data.

    python examples/advanced/memory_efficiency_demo.py [--quick]

Every number printed is measured while the script runs.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import equinox as eqx
import jax

from gridax import serialization
from gridax.envs import arc


def state_bytes(config, tasks) -> int:
    state, _ = arc.reset(jax.random.key(0), config, tasks)
    return sum(leaf.nbytes for leaf in jax.tree.leaves(state))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args(argv)
    tasks = arc.load_tasks("arc-agi-1")

    print("1. Bytes per env state (100-step episodes, one history record per step)")
    for fmt in ("point", "bbox", "mask"):
        config = arc.ArcConfig(selection_format=fmt)
        state, _ = arc.reset(jax.random.key(0), config, tasks)
        history = state.history.nbytes()
        print(
            f"   {fmt:<6} {state_bytes(config, tasks):>7,} bytes, of which history "
            f"{history:>6,} ({history // config.history_size} per record)"
        )

    print("\n2. Episode length vs memory (mask actions keep a packed 30x30 mask per step)")
    for steps in (10, 100, 1000):
        full = arc.ArcConfig(selection_format="mask", max_episode_steps=steps)
        ring = arc.ArcConfig(selection_format="mask", max_episode_steps=steps, history_length=10)
        print(
            f"   {steps:>5} steps: {state_bytes(full, tasks):>8,} bytes with the whole "
            f"history, {state_bytes(ring, tasks):>6,} with history_length=10"
        )

    batch_sizes = (1, 64) if args.quick else (1, 1024)
    print("\n3. Checkpoint files: the whole state vs gridax.serialization (no task data)")
    print(f"   {'format':<6} {'envs':>5} {'whole state':>12} {'save_state':>11} {'smaller':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for fmt in ("point", "bbox", "mask"):
            for num_envs in batch_sizes:
                config = arc.ArcConfig(selection_format=fmt)
                states = stepped(config, tasks, num_envs)
                whole = Path(folder) / "whole.eqx"
                eqx.tree_serialise_leaves(whole, states)  # everything, task grids included
                env = arc.ArcEnv("ArcAgi1-v0", config, "arc-agi-1", "training")
                path = serialization.save_state(Path(folder) / fmt, states, env, tasks)
                with_tasks, without = whole.stat().st_size, path.stat().st_size
                print(
                    f"   {fmt:<6} {num_envs:>5,} {with_tasks:>12,} {without:>11,} "
                    f"{1 - without / with_tasks:>8.0%}"
                )
    print("   load_state re-attaches the grids from the bank by task and pair index")


def stepped(config, tasks, num_envs: int):
    """A batch one random step past reset."""
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(1), num_envs), config, tasks)
    actions = arc.random_actions(jax.random.key(2), states.working_shape, config.selection_format)
    return arc.batch_step(states, actions, config)[0]


if __name__ == "__main__":
    main()
