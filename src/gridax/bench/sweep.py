"""One run over every configuration the command line asks for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gridax.bench import arc as arc_bench
from gridax.bench import autoreset as autoreset_bench
from gridax.bench import forage as forage_bench
from gridax.bench.arc import FORMATS
from gridax.bench.timing import Row
from gridax.envs import arc

BATCH_SIZES = (1, 16, 64, 256, 1024, 4096)


def sweep(
    formats: Sequence[str] = FORMATS,
    batch_sizes: Sequence[int] = BATCH_SIZES,
    num_steps: int = 100,
    repeats: int = 3,
    rollouts: Sequence[str] = ("scan", "loop"),
    progress: Callable | None = None,
    forage_ids: Sequence[str] = (),
    autoreset: Sequence[str] = (),
    devices: Sequence[int] = (),
) -> list[Row]:
    """Measures the roofline, every ARC (format, batch size, rollout style), every
    forage id and every auto-reset mode (scan rollouts) in one run."""
    tasks = arc.load_tasks("arc-agi-1", split="training")
    plan: list[tuple[str, Any, int]] = [("roofline", None, n) for n in batch_sizes]
    plan += [(style, fmt, n) for fmt in formats for style in rollouts for n in batch_sizes]
    plan += [("forage", env_id, n) for env_id in forage_ids for n in batch_sizes]
    plan += [("autoreset", mode, n) for mode in autoreset for n in batch_sizes]
    plan += [("sharded", d, n) for d in devices for n in batch_sizes if n % d == 0]
    rows, roofline = [], {}
    for style, fmt, n in progress(plan) if progress else plan:
        if style == "roofline":
            row = arc_bench.measure_roofline(tasks, n, num_steps, repeats)
            roofline[n] = row.steps_per_second
        elif style == "forage":
            row = forage_bench.measure_forage(fmt, n, num_steps, repeats)
            row.roofline_fraction = row.steps_per_second / roofline[n]
        elif style == "autoreset":
            row = autoreset_bench.measure_autoreset(fmt, n, num_steps, repeats)
        elif style == "sharded":
            row = arc_bench.measure_devices(tasks, fmt, n, num_steps, repeats)
        else:
            config = arc.ArcConfig(selection_format=fmt, max_episode_steps=num_steps)
            measure = arc_bench.measure_scan if style == "scan" else arc_bench.measure_loop
            row = measure(config, tasks, n, num_steps, repeats)
            row.roofline_fraction = row.steps_per_second / roofline[n]
        rows.append(row)
    return rows
