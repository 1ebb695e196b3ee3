"""re86's levels (ARC Prize's public game, version 4e57566e; ``games/re86.py`` is its
rule): the official sprites of each level, and what the rule goes through in the
orders the original does: the shapes, walls and paint pots, each pot's colour, and the
picture's cells to cover (the target's pixels that are neither transparent nor 4)."""

from __future__ import annotations

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

DATA = rules.official.load("re86")
SHAPE, SQUASHY, FILLED_HUB = "vfaeucgcyr", "nogegkgqgd", "ldkpywfara"  # tags
TARGET, WALL, POT = "vzuwsebntu", "miqpqafylc", "ozhohpbjxz"
STEP = 3  # cells a move takes; a squashed shape's sides and place keep to multiples of it
SELECTED = 0  # the selected shape's hub (its centre pixel)
SQUASH_BELOW = 7  # a squashy shape narrower (or lower) than this stops at a wall instead
IGNORED = 4  # the target's frames around its cells, which the picture need not match
LEVEL_SPRITES = [level.sprites for level in DATA.levels]


def _tagged_slots(sprites, tag: str) -> list[int]:
    return [i for i, s in enumerate(sprites) if tag in s.tags]


MAX_SHAPES = max(len(_tagged_slots(s, SHAPE)) for s in LEVEL_SPRITES)
MAX_WALLS = max(len(_tagged_slots(s, WALL)) for s in LEVEL_SPRITES)
MAX_POTS = max(len(_tagged_slots(s, POT)) for s in LEVEL_SPRITES)


def _goal(sprites, where: str) -> list[list[int]]:
    """The target's cells to cover, ``[x, y, colour]`` each, in world cells."""
    targets = [sprites[i] for i in _tagged_slots(sprites, TARGET)]
    if len(targets) != 1:
        raise ValueError(f"{where}: {len(targets)} targets; the port reads one")
    target = targets[0]
    if target.rotation % 360 or target.scale != 1 or target.mirror_ud or target.mirror_lr:
        raise ValueError(f"{where}: the target is drawn turned or scaled; the port reads it as is")
    pixels = np.asarray(target.pixels)
    # The original holds the target's grid against a 64x64 canvas of world cells from
    # (0, 0), wherever the target lies: the port reads a target that lies there.
    if (target.x, target.y) != (0, 0) or pixels.shape != (rules.SCREEN, rules.SCREEN):
        raise ValueError(f"{where}: the target is not a 64x64 grid at (0, 0)")
    rows, cols = np.nonzero((pixels != rules.TRANSPARENT) & (pixels != IGNORED))
    return [[int(c), int(r), int(pixels[r, c])] for r, c in zip(rows, cols, strict=True)]


MAX_CELLS = max(len(_goal(s, "re86")) for s in LEVEL_SPRITES)


def _level(number: int) -> Level:
    declared = DATA.levels[number]
    sprites = declared.sprites
    where = f"re86 level {number + 1}"
    shapes = _tagged_slots(sprites, SHAPE)
    pots = _tagged_slots(sprites, POT)
    for slot in pots:  # the rule paints what lies over a pot's box: its solid cells
        if rules.TRANSPARENT in {v for row in sprites[slot].pixels for v in row}:
            raise ValueError(f"{where}: pot {sprites[slot].kind!r} has transparent pixels")
    for slot in shapes:
        shape = sprites[slot]
        turned = shape.rotation % 360 or shape.scale != 1 or shape.mirror_ud or shape.mirror_lr
        if turned or shape.layer != 0:
            raise ValueError(f"{where}: shape {shape.kind!r} is turned, scaled or not on layer 0")
    colours = []
    for slot in shapes:
        drawn = {v for row in sprites[slot].pixels for v in row} - {SELECTED, rules.TRANSPARENT}
        if len(drawn) != 1:
            raise ValueError(f"{where}: shape {sprites[slot].kind!r} is not of one colour")
        colours.append(drawn.pop())
    padded = rules.official.padded
    memory = {
        "steps": declared.data["StepCounter"],
        "budget": declared.data["StepCounter"],
        "shapes": padded(shapes, MAX_SHAPES, where, "shapes"),
        "squashy": padded(
            [SQUASHY in sprites[s].tags for s in shapes], MAX_SHAPES, where, "shapes", False
        ),
        "filled_hub": padded(
            [FILLED_HUB in sprites[s].tags for s in shapes], MAX_SHAPES, where, "shapes", False
        ),
        "colours": padded(colours, MAX_SHAPES, where, "shapes"),
        "walls": padded(_tagged_slots(sprites, WALL), MAX_WALLS, where, "walls"),
        "pots": padded(pots, MAX_POTS, where, "paint pots"),
        # A pot's colour is its unturned grid's pixel (1, 1), as the original reads it.
        "pot_colours": padded([sprites[p].pixels[1][1] for p in pots], MAX_POTS, where, "pots"),
        "goal": padded(_goal(sprites, where), MAX_CELLS, where, "target cells", [-1, -1, -1]),
    }
    return Level(tuple(sprites), declared.grid_size, memory, declared.name)


LEVELS = tuple(_level(n) for n in range(len(DATA.levels)))


def _largest_squash(sprites) -> int:
    """The longest side a squashy shape can reach: each squash (against a wall) takes 3
    cells from one side and gives them to the other, down to a side under
    :data:`SQUASH_BELOW`."""
    if not any(WALL in s.tags for s in sprites):
        return 0
    sides = [sum(np.shape(s.pixels)) for s in sprites if SQUASHY in s.tags]
    return max((total - (SQUASH_BELOW - STEP) for total in sides), default=0)


def _pixel_size() -> tuple[int, int]:
    """The shapes' largest grid, as declared or as squashed."""
    shapes = [s for level in LEVEL_SPRITES for s in level if SHAPE in s.tags]
    squash = max(_largest_squash(level) for level in LEVEL_SPRITES)
    rows = max(max(len(s.pixels) for s in shapes), squash)
    cols = max(max(len(s.pixels[0]) for s in shapes), squash)
    return rows, cols


PIXELS = _pixel_size()
CORNER, GRID = -48, 160  # the world cells the maps cover, from (-48, -48)


def _map(sprites, tag: str) -> np.ndarray:
    """``[GRID, GRID]``: at each world cell, the list index (among the level's sprites
    with ``tag``: walls, pots, which never move or change) of the one with a pixel that
    collides there, -1 where none has. A shape meets one where its drawn pixels lie on
    that index (arcengine's pixel-perfect ``collides_with``)."""
    grid = np.full((GRID, GRID), -1, np.int8)
    for index, slot in enumerate(_tagged_slots(sprites, tag)):
        sprite = sprites[slot]
        solid = rules.drawn_grid(sprite) != rules.TRANSPARENT
        height, width = solid.shape
        top, left = sprite.y - CORNER, sprite.x - CORNER
        fits = top >= 0 and left >= 0 and top + height <= GRID and left + width <= GRID
        if not (fits and sprite.collidable and sprite.blocking == rules.Blocking.PIXEL_PERFECT):
            raise ValueError(f"re86: {sprite.kind!r} does not fit the port's map of {tag}")
        window = grid[top : top + height, left : left + width]
        if np.any(solid & (window >= 0)):
            raise ValueError(f"re86: {sprite.kind!r} overlaps another of {tag}")
        window[solid] = index
    return grid


# [L, 2, GRID, GRID]: each level's walls and pots by list index.
MAPS = np.stack([np.stack([_map(s, WALL), _map(s, POT)]) for s in LEVEL_SPRITES])


# Winning runs (ACTION ids) found by tests/tools/solve_re86.py (levels 1-4 by a beam search,
# 5-8 by a plan of which shape shows which cells) and checked on the official file (the
# recorded trace's last episode).
_RUNS = (  # each action's number
    "11111114444533111111",
    "2222511111333331353333333225222223323",
    "11111111111113511113511114414145513133333335441414",
    "2213333333111131512222244242422441111135132232333",
    "3341111111114445222222233333333333144445222222222244444441111",
    "1144242444444413444522222331322111111333333333",
    (
        "55111111444433333333311142111111414222511114441113111144424444442222222511111111"
        "11111422222144444444"
    ),
    (
        "33322211111111111111333333332244444444411114442442442233322222222233323332333333"
        "523333222111111111113333333144444444111144424424422333222222222333222233333333"
    ),
)
SOLUTIONS = tuple(tuple(int(a) for a in run) for run in _RUNS)


def kinds_tagged(*tags) -> tuple[str, ...]:
    """The kinds of the levels' sprites with any of ``tags``."""
    sprites = [s for level in LEVEL_SPRITES for s in level]
    return tuple(sorted({s.kind for s in sprites if set(tags) & set(s.tags)}))
