"""The ``gridax`` command line."""

from __future__ import annotations

import argparse
import sys


def _bench(args: argparse.Namespace) -> int:
    import jax

    from gridax import bench
    from gridax.envs import arc

    tasks = arc.load_tasks("arc-agi-1", split="training")
    num_envs = [1024] if args.quick else args.num_envs
    print(
        f"ARC-AGI-1 training tasks, random {args.format} actions over operations 0-33 "
        f"(submit left out so every step is live), lax.scan rollout of {args.steps} steps, "
        f"jax {jax.__version__} on {jax.devices()[0].platform}"
    )
    print(f"{'envs':>6} {'steps/s':>12} {'compile s':>10} {'bytes/state':>12}")
    for n in num_envs:
        config = arc.ArcConfig(selection_format=args.format, max_episode_steps=args.steps)
        m = bench.measure(config, tasks, n, args.steps)
        print(
            f"{n:>6} {m.steps_per_second:>12,.0f} {m.compile_seconds:>10.2f} "
            f"{m.bytes_per_state:>12,}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gridax", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="steps per second of the ARC environment")
    bench.add_argument("--quick", action="store_true", help="one batch of 1,024 envs")
    bench.add_argument("--num-envs", type=int, nargs="+", default=[1, 16, 64, 256, 1024, 4096])
    bench.add_argument("--steps", type=int, default=100)
    bench.add_argument("--format", choices=["point", "bbox", "mask"], default="point")
    bench.set_defaults(run=_bench)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
