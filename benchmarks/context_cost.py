"""What ArcConfig(context=True) costs: steps/s at 1,024 envs of a lax.scan rollout of
random point actions with and without the context, measured alternately in one process,
and the bytes of one observation.

    python benchmarks/context_cost.py [--num-envs 1024] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics

import jax

from gridax import bench
from gridax.envs import arc


def observation_bytes(config, tasks) -> int:
    _, obs = arc.reset(jax.random.key(0), config, tasks)
    return sum(leaf.nbytes for leaf in jax.tree.leaves(obs))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    tasks = arc.load_tasks("arc-agi-1", "training")
    configs = {
        "without context": arc.ArcConfig(),
        "with context": arc.ArcConfig(context=True),
    }
    speeds = {name: [] for name in configs}
    for _ in range(args.rounds):
        for name, config in configs.items():
            row = bench.measure(bench.scan_benchmark(config, tasks, args.num_envs, 100), 5)
            speeds[name].append(row.steps_per_second)
    for name, config in configs.items():
        runs = " / ".join(f"{s:,.0f}" for s in speeds[name])
        print(
            f"{name:<16} median {statistics.median(speeds[name]):>10,.0f} steps/s ({runs}); "
            f"{observation_bytes(config, tasks):,} bytes per observation"
        )


if __name__ == "__main__":
    main()
