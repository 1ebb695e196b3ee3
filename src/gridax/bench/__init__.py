"""Benchmarks: steps per second of every env beside its roofline kernel and the anchors.

``gridax bench`` (:mod:`gridax.bench.run`) runs them; ``benchmarks/`` holds the
pytest-benchmark suite, the soak and the profiling scripts that use these pieces.

==============  =================================================================
module          measures
==============  =================================================================
``timing``      a row: compile, then the median of timed runs, runs timed in turns
``rollout``     the one scan rollout every scan benchmark times
``roofline``    the rooflines (ARC, ARC-AGI-3 frames) and the fraction of them
``arc``         ARC rollouts per action format: scan, Python loop, sharded
``forage``      forage rollouts of random moves
``arc3``        ARC-AGI-3 games beside arcengine (ports: ARC Prize's files)
``autoreset``   ``AutoReset`` strategies against plain ``batch_step``
``compare``     JaxARC, ARCLE and Foragax on the same actions (extra ``compare``)
``percall``     one call from Python beside a plain ``jax.jit`` and the floor
``sweep``       every configuration of one run
``report``      the table, the ratios, JSON/CSV files and the plot
``run``         what ``gridax bench`` runs and prints
==============  =================================================================
"""

from gridax.bench.arc import (
    FORMATS,
    action_mix,
    draw_rollout_actions,
    loop_benchmark,
    make_rollout,
    measure_loop,
    measure_scan,
    scan_benchmark,
)
from gridax.bench.autoreset import autoreset_benchmark
from gridax.bench.forage import draw_moves, forage_benchmark, make_forage_rollout
from gridax.bench.report import format_ratios, format_table, plot, write_rows
from gridax.bench.rollout import make_scan_rollout
from gridax.bench.roofline import (
    arc_roofline,
    draw_roofline_cells,
    frames_roofline,
    make_arc_roofline_rollout,
    measure_beside_rooflines,
    roofline_fraction,
)
from gridax.bench.sweep import BATCH_SIZES, sweep
from gridax.bench.timing import (
    Benchmark,
    Row,
    measure,
    measure_in_turns,
    median_seconds,
    state_bytes,
    time_in_turns,
)

__all__ = [
    "BATCH_SIZES",
    "FORMATS",
    "Benchmark",
    "Row",
    "action_mix",
    "arc_roofline",
    "autoreset_benchmark",
    "draw_moves",
    "draw_roofline_cells",
    "draw_rollout_actions",
    "forage_benchmark",
    "format_ratios",
    "format_table",
    "frames_roofline",
    "loop_benchmark",
    "make_arc_roofline_rollout",
    "make_forage_rollout",
    "make_rollout",
    "make_scan_rollout",
    "measure",
    "measure_beside_rooflines",
    "measure_in_turns",
    "measure_loop",
    "measure_scan",
    "median_seconds",
    "plot",
    "roofline_fraction",
    "scan_benchmark",
    "state_bytes",
    "sweep",
    "time_in_turns",
    "write_rows",
]
