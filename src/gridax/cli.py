"""The ``gridax`` command line."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path


def _bench(args: argparse.Namespace) -> int:
    if args.devices:  # simulated CPU devices must be asked for before JAX starts
        flag = f"--xla_force_host_platform_device_count={args.devices}"
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}".strip()
    import jax
    from rich.progress import track

    from gridax import bench

    # A bare --autoreset measures every mode; without the flag, none.
    autoreset = bench.AUTORESET_MODES if args.autoreset == [] else args.autoreset or ()
    if args.quick:
        sizes, rollouts = [1, 1024], ["scan"]
    else:
        sizes, rollouts = args.num_envs, args.rollouts
    metadata = {
        "date": datetime.date.today().isoformat(),
        "jax": jax.__version__,
        "device": jax.devices()[0].platform,
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "steps_per_rollout": args.steps,
        "action_mix": bench.action_mix(args.steps),
        "tasks": "ARC-AGI-1 training (400 tasks, 30x30 canvas)",
    }
    print(f"gridax bench: jax {metadata['jax']} on {metadata['device']} ({os.cpu_count()} cores)")
    print(f"actions: {metadata['action_mix']}")
    if args.compare:
        return _compare(args, sizes, metadata)
    rows = bench.sweep(
        formats=args.formats,
        batch_sizes=sizes,
        num_steps=args.steps,
        repeats=args.repeats,
        rollouts=rollouts,
        progress=lambda plan: track(plan, description="measuring", transient=True),
        forage_ids=args.forage,
        autoreset=autoreset,
        devices=sorted({1, args.devices}) if args.devices else (),
    )
    print(bench.format_table(rows))
    out = Path(args.out)
    written = bench.write_rows(rows, out, metadata)
    try:
        written.append(bench.plot(rows, out / "bench.png"))
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _compare(args: argparse.Namespace, sizes: list[int], metadata: dict) -> int:
    from rich.progress import track

    from gridax import bench, compare

    missing = compare.missing_anchors()
    for name in missing:
        print(f"{compare.ANCHORS[name]} is not installed: {compare.INSTALL_HINT}")
    if len(missing) == len(compare.ANCHORS):
        return 1
    print(f"ARC task: ARC-AGI-1 training {compare.TASK_ID} for every env")
    rows = compare.compare(
        formats=args.formats,
        batch_sizes=sizes,
        num_steps=args.steps,
        repeats=args.repeats,
        progress=lambda plan: track(plan, description="comparing", transient=True),
        forage_ids=args.forage,
    )
    print(bench.format_table(rows))
    print(compare.format_ratios(rows))
    metadata["tasks"] = f"ARC-AGI-1 training task {compare.TASK_ID} only"
    written = bench.write_rows(rows, Path(args.out), metadata, name="compare")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from rich.progress import track

    from gridax import demo

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    arc_result = demo.solved_arc_episode(out, lambda xs: track(xs, "ARC episode", transient=True))
    print(
        f"ARC task {demo.DEMO_TASK}: solved={arc_result['success']} in {arc_result['steps']} "
        f"steps (resize, one fill per colour, submit), return {arc_result['return']:+.2f}"
    )
    steps = 20 if args.quick else 200
    forage_result = demo.forage_rollout(
        out, steps=steps, track=lambda xs: track(xs, "forage rollout", transient=True)
    )
    print(f"ForagaxTwoBiome-v1: {steps} random moves, return {forage_result['return']:+.1f}")
    for name in arc_result["files"] + forage_result["files"]:
        print(f"  {out / name}")
    print(f"pictures written to {out}")
    return 0


def _render(args: argparse.Namespace) -> int:
    import jax

    import gridax

    env = gridax.make(args.env_id)
    state, _ = env.reset(jax.random.key(args.seed))
    options = {"show_target": True} if args.env_id.startswith("Arc") else {}
    image = env.render(state, path=args.out, **options)
    print(f"{args.env_id} seed {args.seed}: {image.shape[1]}x{image.shape[0]} pixels -> {args.out}")
    return 0


def _shape(space) -> str:
    from gridax import spaces

    if isinstance(space, spaces.Discrete):
        return f"Discrete({space.n})"
    if isinstance(space, spaces.Box):
        return f"{space.dtype.name}{list(space.shape)}"
    fields = ", ".join(f"{name} {_shape(s)}" for name, s in space.spaces.items())
    return f"{space.cls.__name__ if space.cls else 'dict'}({fields})"


def _list(args: argparse.Namespace) -> int:
    import gridax

    for env_id in gridax.registered_ids():
        if env_id == "ArcFolder-v0":
            print(f"{env_id}\n  needs path= (a folder of ARC JSON files); spaces as ArcAgi1-v0")
            continue
        env = gridax.make(env_id)
        print(f"{env_id}\n  observation {_shape(env.observation_space)}")
        print(f"  action      {_shape(env.action_space)}")
    return 0


# The forage worlds with speed targets (docs/forage.md, benchmarks/RESULTS.md).
FORAGE_IDS = ("ForagaxDiwali-v5", "ForagaxBig-v5")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gridax", description="gridax environments")
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="steps per second of the ARC environment")
    bench.add_argument("--quick", action="store_true", help="1 and 1,024 envs, scan rollout only")
    bench.add_argument("--num-envs", type=int, nargs="+", default=[1, 16, 64, 256, 1024, 4096])
    bench.add_argument(
        "--formats", nargs="*", choices=["point", "bbox", "mask"], default=["point", "bbox", "mask"]
    )
    bench.add_argument(
        "--forage",
        nargs="*",
        default=list(FORAGE_IDS),
        metavar="ID",
        help="forage ids to measure (scan rollouts); none with a bare --forage",
    )
    bench.add_argument(
        "--autoreset",
        nargs="*",
        choices=["none", "always", "any_done", "pool"],
        metavar="MODE",
        help="auto-reset strategies to measure on ArcAgi1-v0 with submit in the random actions "
        "('none' = no resets, 'always', 'any_done', 'pool'); all with a bare --autoreset",
    )
    bench.add_argument(
        "--devices",
        type=int,
        default=0,
        metavar="N",
        help="also run ARC point rollouts sharded over 1 and N devices (simulated on CPU)",
    )
    bench.add_argument("--rollouts", nargs="+", choices=["scan", "loop"], default=["scan", "loop"])
    bench.add_argument("--steps", type=int, default=100, help="steps per rollout (= episode)")
    bench.add_argument("--repeats", type=int, default=5, help="timed runs; the median is kept")
    bench.add_argument(
        "--compare",
        action="store_true",
        help="run JaxARC, ARCLE and Foragax (extra 'compare') beside gridax and print the ratios",
    )
    bench.add_argument("--out", default="out/bench", help="folder for bench.json/.csv/.png")
    bench.set_defaults(run=_bench)
    demo = commands.add_parser("demo", help="a solved ARC episode and a forage rollout as pictures")
    demo.add_argument("--out", default="out/demo", help="folder for the pictures")
    demo.add_argument("--quick", action="store_true", help="a short forage rollout")
    demo.set_defaults(run=_demo)
    render = commands.add_parser("render", help="a picture of an env's reset state")
    render.add_argument("env_id", help="a registered id (gridax list)")
    render.add_argument("--seed", type=int, default=0)
    render.add_argument("--out", default="gridax.png", help="a .png or .svg file")
    render.set_defaults(run=_render)
    listing = commands.add_parser("list", help="registered ids with observation/action shapes")
    listing.set_defaults(run=_list)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
