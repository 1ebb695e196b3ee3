"""sp80's levels: ARC Prize's level data (``rules.official.load("sp80")``) with one more
sprite, the water a pour adds (a grid over the level and a cell around it, transparent
but where water is), the starting memory (steps, the screen's turn) and each level's
winning run (``games/sp80.py`` describes the game).
"""

from __future__ import annotations

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

DATA = rules.official.load("sp80")
TAGS = DATA.tags
BAR, SPOUT, WATER, CUP, DEFLECTOR, FLOOR = (
    TAGS.index(tag)
    for tag in ("ksmzdcblcz", "syaipsfndp", "nkrtlkykwe", "xsrqllccpx", "hfjpeygkxy", "uzunfxpwmd")
)
POURED = "poured"  # the kind of the sprite that draws the water a pour adds
GRID = max(max(level.grid_size or (0, 0)) for level in DATA.levels)
SPAN = GRID + 2  # the cells a stream can reach: the grid and a frame's cells around it
# The pixel grids the state holds, (height, width): the tallest and widest sprite and
# the water's sprite, SPAN on a side (the floors are 1x32: a square grid held half again
# the bytes).
_TALLEST, _WIDEST = np.max([np.shape(s.pixels) for level in DATA.levels for s in level.sprites], 0)
PIXELS = (max(int(_TALLEST), SPAN), max(int(_WIDEST), SPAN))
NUM_SLOTS = max(len(level.sprites) for level in DATA.levels) + 1
# The largest bar or deflector, on a side: what a move's collision test reads of each sprite.
PIECE_SIZE = max(
    max(np.shape(s.pixels))
    for level in DATA.levels
    for s in level.sprites
    if {TAGS[BAR], TAGS[DEFLECTOR]} & set(s.tags)
)
_SPOUTS = [s for level in DATA.levels for s in level.sprites if TAGS[SPOUT] in s.tags]
assert all(len(s.pixels) == 1 and s.rotation == 0 for s in _SPOUTS), "spouts are one row"
SPOUT_WIDTH = max(len(s.pixels[0]) for s in _SPOUTS)


def _level(number: int) -> Level:
    declared = DATA.levels[number]
    poured = rules.Sprite(
        pixels=((rules.TRANSPARENT,) * SPAN,) * SPAN,
        kind=POURED,
        x=-1,
        y=-1,
        collidable=False,
    )
    data = dict(declared.data)
    memory = {
        "steps": data.get("steps") or 50,
        "steps_left": data.get("steps") or 50,
        "turns": (data.get("rotation") or 0) // 90 % 4,
        "poured": len(declared.sprites),
    }
    return Level(declared.sprites + (poured,), declared.grid_size, memory, declared.name)


LEVELS = tuple(_level(n) for n in range(len(DATA.levels)))


# The winning run of each level (tests/tools/solve_sp80.py: placements found by a beam
# search over simulated pours, then clicks and walks), checked on the official file (the
# recorded trace's last episode).
SOLUTIONS = (
    (2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 5),
    ((6, 37, 25), 4, 4, (6, 17, 17), 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 5),
    (
        (6, 57, 29), 1, 1, 3, 3, (6, 29, 33), 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, (6, 37, 41), 3, 3,
        3, 3, 3, 3, (6, 21, 21), 2, 2, 2, 2, 2, 2, 2, 3, 3, 5
    ),
    (
        (6, 9, 30), 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, (6, 39, 18), 2, 2, 2, 2, 3, 3, 3,
        3, 3, 3, 3, 3, 5
    ),
    (
        (6, 27, 33), 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 4, 4, 4, (6, 36, 45), 1, 1, 3, 3, 3, 3, 3,
        (6, 54, 33), 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 5
    ),
    (
        (6, 30, 45), 1, 1, 1, 3, 3, 3, (6, 30, 18), 2, 2, 2, 2, 2, 4, 4, 4, (6, 45, 15), 2, 2,
        2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 5
    ),
)  # fmt: skip


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "adbrqflmwi jgfvrvnkaz mdhkebfsmg odioorqnkn poured qwsmjdrvqj trurgcakbj untfxhpddv "
    "uzunfxpwmd vkwijvqdla xsrqllccpx zgsbadjnjn"
)
