"""One run over every configuration the command line asks for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from gridax.bench import arc as arc_bench
from gridax.bench import autoreset as autoreset_bench
from gridax.bench import forage as forage_bench
from gridax.bench import roofline
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
    """Measures every ARC (format, rollout style, batch size) and every forage id beside
    the ARC roofline at its batch size, then every auto-reset mode and sharded run (scan
    rollouts), in one run; the roofline rows come first."""
    tasks = arc.load_tasks("arc-agi-1", split="training")
    styles = {"scan": arc_bench.scan_benchmark, "loop": arc_bench.loop_benchmark}

    def planned(prepare, *args, sizes=batch_sizes, beside_roofline=True):
        """``prepare(*args, n, num_steps)`` at each size ``n``, with its roofline's key."""
        return [
            (partial(prepare, *args, n, num_steps), n if beside_roofline else None) for n in sizes
        ]

    plan = []
    for fmt in formats:
        config = arc.ArcConfig(selection_format=fmt, max_episode_steps=num_steps)
        plan += [entry for style in rollouts for entry in planned(styles[style], config, tasks)]
    for env_id in forage_ids:
        plan += planned(forage_bench.forage_benchmark, env_id)
    for mode in autoreset:
        plan += planned(autoreset_bench.autoreset_benchmark, mode, beside_roofline=False)
    for d in devices:
        sizes = [n for n in batch_sizes if n % d == 0]
        plan += planned(arc_bench.sharded_benchmark, tasks, d, sizes=sizes, beside_roofline=False)
    ceiling = partial(roofline.arc_roofline, tasks, num_steps=num_steps)
    return roofline.measure_beside_rooflines(progress(plan) if progress else plan, ceiling, repeats)
