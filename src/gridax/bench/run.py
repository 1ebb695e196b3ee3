"""``gridax bench``: what the command runs and prints (the command line only parses)."""

from __future__ import annotations

import dataclasses
import datetime
import os
import platform
from functools import partial
from pathlib import Path

from gridax.bench.autoreset import AUTORESET_MODES

# The forage worlds with speed targets (docs/forage.md, benchmarks/RESULTS.md).
FORAGE_IDS = ("ForagaxDiwali-v5", "ForagaxBig-v5")
__all__ = [
    "arc3_game_names",
    "AUTORESET_MODES",
    "FORAGE_IDS",
    "Options",
    "bench",
    "compare",
    "simulate_devices",
    "use_platform",
]


@dataclasses.dataclass(frozen=True)
class Options:
    """What ``gridax bench`` was asked for (the command line's flags)."""

    quick: bool = False
    num_envs: tuple[int, ...] = (1, 16, 64, 256, 1024, 4096)
    formats: tuple[str, ...] = ("point", "bbox", "mask")
    forage: tuple[str, ...] = FORAGE_IDS
    autoreset: tuple[str, ...] = ()
    devices: int = 0
    rollouts: tuple[str, ...] = ("scan", "loop")
    steps: int = 100
    repeats: int = 5
    compare: bool = False
    arc3: tuple[str, ...] = ()  # ARC-AGI-3 games to measure (only them) beside arcengine
    per_call: tuple[int, ...] = (1, 16)  # batch sizes of the per-call timings
    out: str = "out/bench"
    compile_cache: str = "off"  # the persistent compilation cache's folder, or "off"


def arc3_game_names() -> tuple[str, ...]:
    """Every ARC-AGI-3 game, gridax's own and the ported ones: what a bare ``--arc3``
    measures (read from the games package, so that a new port is measured too)."""
    from gridax.bench import arc3 as arc3_bench

    return arc3_bench.all_games()


def simulate_devices(count: int) -> None:
    """Asks XLA for ``count`` CPU devices; only works before JAX starts its backend."""
    flag = f"--xla_force_host_platform_device_count={count}"
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}".strip()


def use_platform(name: str) -> bool:
    """Makes JAX run on backend ``name``; False (with the reason printed) when this
    machine has none. Works only before JAX starts its backends."""
    import jax

    jax.config.update("jax_platforms", name)
    try:
        devices = jax.devices()
    except RuntimeError as error:
        print(f"gridax bench --platform {name}: JAX sees no such device here ({error})")
        return False
    print(f"platform {name}: {len(devices)} device(s), {devices[0].device_kind}")
    return True


def _metadata(options: Options) -> dict:
    import jax

    from gridax.bench.arc import action_mix

    return {
        "date": datetime.date.today().isoformat(),
        "jax": jax.__version__,
        "device": jax.devices()[0].platform,
        "device_kind": jax.devices()[0].device_kind,
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "steps_per_rollout": options.steps,
        # With a warm cache, the compile columns are cache loads (docs/performance.md).
        "compile_cache": options.compile_cache,
        "action_mix": action_mix(options.steps),
        "tasks": "ARC-AGI-1 training (400 tasks, 30x30 canvas)",
    }


def _progress(description: str):
    from rich.progress import track

    return lambda plan: track(plan, description=description, transient=True)


def bench(options: Options) -> int:
    """Measures, prints the table and writes bench.json/.csv/.png to ``options.out``."""
    from gridax.bench import report
    from gridax.bench.sweep import sweep
    from gridax.envs import arc

    metadata = _metadata(options)
    print(f"gridax bench: jax {metadata['jax']} on {metadata['device']} ({os.cpu_count()} cores)")
    if not options.arc3:
        print(f"actions: {metadata['action_mix']}")
    print(f"compilation cache: {options.compile_cache} (a rerun's compile times are loads)")
    if options.compare:
        return compare(options, metadata)
    if options.arc3:
        return arc3_games(options, metadata)
    sizes, rollouts = (
        ((1, 1024), ("scan",)) if options.quick else (options.num_envs, options.rollouts)
    )
    rows = sweep(
        formats=options.formats,
        batch_sizes=sizes,
        num_steps=options.steps,
        repeats=options.repeats,
        rollouts=rollouts,
        progress=_progress("measuring"),
        forage_ids=options.forage,
        autoreset=options.autoreset,
        devices=sorted({1, options.devices}) if options.devices else (),
    )
    print(report.format_table(rows))
    calls = per_call(options, arc.load_tasks("arc-agi-1", split="training"))
    if calls:
        print(report.format_calls(calls))
    out = Path(options.out)
    written = report.write_rows(rows, out, metadata, calls=calls)
    try:
        written.append(report.plot(rows, out / "bench.png"))
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def per_call(options: Options, tasks, arcle_loader=None) -> list:
    """Single calls from Python at the ``options.per_call`` batch sizes (ARC per format,
    then forage per id), with ARCLE stepping as many envs when ``arcle_loader`` is given."""
    from gridax.bench import compare as anchors
    from gridax.bench import percall

    calls = []
    for n in options.per_call:
        for fmt in options.formats:
            reset, step = percall.measure_arc(tasks, fmt, n)
            if arcle_loader is not None:
                step.arcle_us = anchors.arcle_call_seconds(arcle_loader, fmt, n) * 1e6
            calls += [reset, step]
        for env_id in options.forage:
            calls += percall.measure_forage(env_id, n)
    return calls


def compare(options: Options, metadata: dict) -> int:
    """gridax beside JaxARC, ARCLE and Foragax (extra ``compare``), with the ratios."""
    from gridax.bench import compare as anchors
    from gridax.bench import report

    missing = anchors.missing_anchors()
    for name in missing:
        print(f"{anchors.ANCHORS[name]} is not installed: {anchors.INSTALL_HINT}")
    if len(missing) == len(anchors.ANCHORS):
        return 1
    print(f"ARC task: ARC-AGI-1 training {anchors.TASK_ID} for every env")
    rows = anchors.compare(
        formats=options.formats,
        batch_sizes=(1, 1024) if options.quick else options.num_envs,
        num_steps=options.steps,
        repeats=options.repeats,
        progress=_progress("comparing"),
        forage_ids=options.forage,
    )
    print(report.format_table(rows))
    ratios = [
        report.format_ratios(rows, "arc", ("jaxarc", "arcle")),
        report.format_ratios(rows, "forage", ("foragax",)),
    ]
    print("\n\n".join(table for table in ratios if table))
    arcle = None if "arcle" in missing else anchors.make_arcle_loader()
    calls = per_call(options, anchors.task_bank(), arcle)
    if calls:
        print(report.format_calls(calls))
    metadata["tasks"] = f"ARC-AGI-1 training task {anchors.TASK_ID} only"
    written = report.write_rows(rows, Path(options.out), metadata, name="compare", calls=calls)
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def arc3_games(options: Options, metadata: dict) -> int:
    """Each ARC-AGI-3 game at every batch size beside the frames roofline, and arcengine
    playing it from Python (ARC Prize's file for a ported game), with the speed-ups and
    the target (gridax.bench.arc3)."""
    from gridax.bench import arc3 as arc3_bench
    from gridax.bench import report

    names = tuple(arc3_bench.game_named(name) for name in options.arc3)
    metadata["action_mix"] = "ARC-AGI-3: 5 % RESET, else the game's actions, clicks anywhere"
    metadata["tasks"] = f"ARC-AGI-3 games {', '.join(names)} (gridax.envs.arc3.games)"
    print(f"actions: {metadata['action_mix']}")
    python = arc3_bench.arcengine_python()
    references = _arcengine_references(names, python)
    metadata["arcengine"] = references
    progress = _progress("ARC-AGI-3")
    rows = _arc3_rows(names, options, progress)
    for name in progress(references):
        assert python is not None  # a reference needs it (missing_reference)
        rows.append(arc3_bench.measure_arcengine(name, options.steps, python, options.repeats))
    print(report.format_table(rows))
    summaries = arc3_bench.summarize(rows)
    print(arc3_bench.format_summary(summaries))
    if options.compile_cache != "off":
        print("(compile s may be cache loads: --compile-cache off judges cold compiles)")
    metadata["target"] = arc3_bench.TARGET
    metadata["meets_target"] = {
        s.game: s.verdict() for s in summaries if s.num_envs == arc3_bench.TARGET_ENVS
    }
    written = report.write_rows(rows, Path(options.out), metadata, name="arc3")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _arc3_rows(names: tuple[str, ...], options: Options, progress) -> list:
    """gridax's rows: each game at each size, timed in turns with the roofline that
    returns as many frames a step at that size (``Arc3Env``'s one)."""
    from gridax.bench import arc3 as arc3_bench
    from gridax.bench import roofline

    sizes = (1, 1024) if options.quick else options.num_envs
    plan = [
        (partial(arc3_bench.game_benchmark, name, n, options.steps), (1, n))
        for name in names
        for n in sizes
    ]
    ceiling = partial(roofline.frames_roofline, num_steps=options.steps)
    return roofline.measure_beside_rooflines(
        progress(plan), lambda key: ceiling(*key), options.repeats
    )


def _arcengine_references(names: tuple[str, ...], python: str | None) -> dict[str, str]:
    """What arcengine (``python``) plays for each game it can play here (printed); the
    reason for each it cannot (printed instead, as its row is skipped)."""
    from gridax.bench import arc3 as arc3_bench

    references = {}
    for name in names:
        missing = arc3_bench.missing_reference(name, python)
        if missing:
            print(f"arcengine: no row for {name}: {missing}")
        else:
            references[name] = arc3_bench.reference_of(name)
            print(f"arcengine plays {name}: {references[name]}")
    return references
