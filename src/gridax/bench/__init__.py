"""Benchmarks: steps per second of every env beside a roofline kernel and the anchors.

``gridax bench`` (:mod:`gridax.bench.run`) runs them; ``benchmarks/`` holds the
pytest-benchmark suite, the soak and the profiling scripts that use these pieces.

==============  =================================================================
module          measures
==============  =================================================================
``timing``      a row: compile, then the median of timed runs (``Row``, ``scan_row``)
``arc``         ARC rollouts per action format, the roofline, sharded rollouts
``forage``      forage rollouts of random moves
``autoreset``   ``AutoReset`` strategies against plain ``batch_step``
``compare``     JaxARC, ARCLE and Foragax on the same actions (extra ``compare``)
``sweep``       every configuration of one run
``report``      the table, JSON/CSV files and the plot
==============  =================================================================
"""

from gridax.bench.arc import (
    FORMATS,
    action_mix,
    draw_rollout_actions,
    draw_roofline_cells,
    make_rollout,
    make_roofline_rollout,
    measure_loop,
    measure_roofline,
    measure_scan,
)
from gridax.bench.autoreset import measure_autoreset
from gridax.bench.forage import draw_moves, make_forage_rollout, make_moves_rollout, measure_forage
from gridax.bench.report import format_table, plot, write_rows
from gridax.bench.sweep import BATCH_SIZES, sweep
from gridax.bench.timing import Row, median_seconds, scan_row, state_bytes

__all__ = [
    "BATCH_SIZES",
    "FORMATS",
    "Row",
    "action_mix",
    "draw_moves",
    "draw_roofline_cells",
    "draw_rollout_actions",
    "format_table",
    "make_forage_rollout",
    "make_moves_rollout",
    "make_roofline_rollout",
    "make_rollout",
    "measure_autoreset",
    "measure_forage",
    "measure_loop",
    "measure_roofline",
    "measure_scan",
    "median_seconds",
    "plot",
    "scan_row",
    "state_bytes",
    "sweep",
    "write_rows",
]
