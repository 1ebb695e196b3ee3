"""batch_reset / batch_step from 1 to 4,096 envs, with PRNG keys split the right way.

    python examples/advanced/batch_processing_demo.py [--quick]

Every number printed is measured while the script runs.
"""

from __future__ import annotations

import argparse

import jax
import numpy as np

from gridax import bench
from gridax.envs import arc


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args(argv)
    sizes, num_steps = ((1, 8, 64), 10) if args.quick else ((1, 16, 64, 256, 1024, 4096), 100)
    tasks = arc.load_tasks("arc-agi-1")
    config = arc.ArcConfig(max_episode_steps=num_steps)

    print("1. Keys: split one key into one per env; never hand the same key to two envs")
    root = jax.random.key(0)
    keys = jax.random.split(root, 4)
    states, _ = arc.batch_reset(keys, config, tasks)
    print(f"   split keys   -> tasks {np.asarray(states.task_index).tolist()} (independent)")
    same = jax.numpy.stack([root] * 4)
    copies, _ = arc.batch_reset(same, config, tasks)
    print(
        f"   one key x 4  -> tasks {np.asarray(copies.task_index).tolist()} (four copies of "
        "one env: the same task, the same future)"
    )
    print("   in a loop, split the carried key each step: key, step_key = jax.random.split(key)")

    print(f"\n2. Throughput: lax.scan of {num_steps} steps of random point actions over a batch")
    print(f"   {'envs':>6} {'env-steps/s':>12} {'per env':>9} {'compile s':>10}")
    for n in sizes:
        row = bench.measure_scan(config, tasks, n, num_steps, repeats=3)
        print(
            f"   {n:>6,} {row.steps_per_second:>12,.0f} {row.steps_per_second / n:>9,.0f} "
            f"{row.compile_seconds:>10.2f}"
        )
    print(
        "   one compiled step serves the whole batch: throughput grows with the batch until"
        " the cores are busy"
    )


if __name__ == "__main__":
    main()
