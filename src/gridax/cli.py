"""The ``gridax`` command line: it parses and dispatches; the work is in
:mod:`gridax.bench.run`, :mod:`gridax.demo` and :mod:`gridax.evaluate`."""

from __future__ import annotations

import argparse
import sys

from gridax import compile_cache
from gridax.bench.run import AUTORESET_MODES, FORAGE_IDS, Options


def _bench(args: argparse.Namespace) -> int:
    from gridax.bench import run

    if args.devices:  # simulated CPU devices must be asked for before JAX starts
        run.simulate_devices(args.devices)
    if args.platform and not run.use_platform(args.platform):
        return 1
    cache = compile_cache.enable(args.compile_cache)
    # A bare --autoreset measures every mode; without the flag, none.
    autoreset = AUTORESET_MODES if args.autoreset == [] else args.autoreset or ()
    options = Options(
        quick=args.quick,
        num_envs=tuple(args.num_envs),
        formats=tuple(args.formats),
        forage=tuple(args.forage),
        autoreset=tuple(autoreset),
        devices=args.devices,
        rollouts=tuple(args.rollouts),
        steps=args.steps,
        repeats=args.repeats,
        compare=args.compare,
        arc3=tuple(run.arc3_game_names() if args.arc3 == [] else args.arc3 or ()),
        per_call=tuple(args.per_call),
        out=args.out,
        compile_cache=str(cache) if cache else "off",
    )
    return run.bench(options)


def _demo(args: argparse.Namespace) -> int:
    from gridax import demo

    return demo.run(args.out, quick=args.quick)


def _render(args: argparse.Namespace) -> int:
    from gridax import demo

    options = {"show_target": True} if args.show_target else {}
    return demo.render_reset(args.env_id, args.seed, args.out, **options)


def _list(args: argparse.Namespace) -> int:
    from gridax import demo

    return demo.list_envs()


def _evaluate(args: argparse.Namespace) -> int:
    from gridax import evaluate

    if args.arc3 is not None:
        max_steps = args.max_steps or 500
        return evaluate.arc3_command(
            args.arc3, args.policy, args.episodes, max_steps, args.seed, args.out
        )
    return evaluate.evaluate_command(
        args.tasks,
        args.policy,
        args.out,
        args.format,
        args.max_steps or 12,
        args.attempts,
        args.seed,
    )


def _score(args: argparse.Namespace) -> int:
    from gridax import evaluate

    return evaluate.score_command(args.submission, args.tasks)


def main(argv: list[str] | None = None) -> int:
    from gridax import __version__

    parser = argparse.ArgumentParser(prog="gridax", description="gridax environments")
    parser.add_argument("--version", action="version", version=f"gridax {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    defaults = Options()
    bench = commands.add_parser("bench", help="steps per second of the environments")
    bench.add_argument("--quick", action="store_true", help="1 and 1,024 envs, scan rollout only")
    bench.add_argument("--num-envs", type=int, nargs="+", default=list(defaults.num_envs))
    bench.add_argument(
        "--formats", nargs="*", choices=["point", "bbox", "mask"], default=list(defaults.formats)
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
        choices=list(AUTORESET_MODES),
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
    bench.add_argument(
        "--rollouts", nargs="+", choices=["scan", "loop"], default=list(defaults.rollouts)
    )
    bench.add_argument("--steps", type=int, default=defaults.steps, help="steps per rollout")
    bench.add_argument(
        "--repeats", type=int, default=defaults.repeats, help="timed runs; the median is kept"
    )
    bench.add_argument(
        "--compare",
        action="store_true",
        help="run JaxARC, ARCLE and Foragax (extra 'compare') beside gridax and print the ratios",
    )
    bench.add_argument(
        "--arc3",
        nargs="*",
        metavar="GAME",
        help="only ARC-AGI-3 games (all with a bare --arc3), each beside arcengine playing it "
        "from Python ($GRIDAX_ARCENGINE_PYTHON or .venv-arcengine: make arc3-parity): ARC "
        "Prize's own file for a ported game (cn04, ft09, ...; $GRIDAX_ARC3_REFERENCE), and "
        "whether each meets the target at 1,024 envs",
    )
    bench.add_argument(
        "--platform",
        choices=["cpu", "gpu", "cuda", "rocm", "tpu"],
        help="the JAX backend to measure on (default: JAX's choice, a GPU when it sees one)",
    )
    bench.add_argument(
        "--per-call",
        type=int,
        nargs="*",
        default=list(defaults.per_call),
        metavar="N",
        help="batch sizes at which to time single calls from Python (reset, step and their "
        "batch forms) beside a plain jax.jit; none with a bare --per-call",
    )
    bench.add_argument("--out", default=defaults.out, help="folder for bench.json/.csv/.png")
    bench.add_argument(
        "--compile-cache",
        metavar="DIR",
        help="JAX's persistent compilation cache (default $GRIDAX_COMPILE_CACHE or "
        "~/.cache/gridax/jax); 'off' for cold compiles every run",
    )
    bench.set_defaults(run=_bench)
    demo = commands.add_parser("demo", help="a solved ARC episode and a forage rollout as pictures")
    demo.add_argument("--out", default="out/demo", help="folder for the pictures")
    demo.add_argument("--quick", action="store_true", help="a short forage rollout")
    demo.set_defaults(run=_demo)
    render = commands.add_parser("render", help="a picture of an env's reset state")
    render.add_argument("env_id", help="a registered id (gridax list)")
    render.add_argument("--seed", type=int, default=0)
    render.add_argument("--out", default="gridax.png", help="a .png or .svg file")
    render.add_argument("--show-target", action="store_true", help="ARC: the target beside it")
    render.set_defaults(run=_render)
    listing = commands.add_parser("list", help="registered ids with observation/action shapes")
    listing.set_defaults(run=_list)
    tasks_help = "arc-agi-1|arc-agi-2[:training|evaluation] or a folder of ARC JSON files"
    evaluate = commands.add_parser("evaluate", help="a policy on every test input, ARC Prize score")
    evaluate.add_argument("--tasks", default="arc-agi-1:evaluation", help=tasks_help)
    evaluate.add_argument(
        "--policy",
        default="random",
        help="'random', 'oracle' (ARC), 'solutions' (ARC-AGI-3: the reference runs) or "
        "'module:function'",
    )
    evaluate.add_argument("--format", choices=["point", "bbox", "mask"], default="mask")
    evaluate.add_argument(
        "--max-steps", type=int, help="steps per attempt (ARC: 12) or episode (ARC-AGI-3: 500)"
    )
    evaluate.add_argument(
        "--arc3",
        nargs="*",
        metavar="GAME",
        help="ARC-AGI-3 games instead of ARC tasks (every port of ARC Prize's games with a "
        "bare --arc3): per-game and overall ARC Prize scores",
    )
    evaluate.add_argument("--episodes", type=int, default=16, help="ARC-AGI-3: per game")
    evaluate.add_argument("--attempts", type=int, default=2, choices=[1, 2])
    evaluate.add_argument("--seed", type=int, default=0)
    evaluate.add_argument("--out", default="out/evaluate", help="folder for the report")
    evaluate.set_defaults(run=_evaluate)
    score = commands.add_parser("score", help="score an ARC Prize submission file")
    score.add_argument("submission", help="{task_id: [{attempt_1: grid, attempt_2: grid}, ...]}")
    score.add_argument("--tasks", default="arc-agi-1:evaluation", help=tasks_help)
    score.set_defaults(run=_score)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as error:  # bad input: say what, not a traceback
        print(f"gridax {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
