"""su15's levels: ARC Prize's level data (``rules.official.load("su15")``) laid out in
the port's slots, with what the original's ``on_set_level`` reads from the sprites' tags
and the level's data (``goal``, ``steps``), computed once in plain Python; and the
original's float arithmetic as integer tables (``games/su15.py`` describes the game).

The slots: the level's other sprites in their order, then a pool of ``MAX_FRUITS``
fruit slots and one of ``MAX_ENEMIES`` enemy slots. The fruits (tag ``fruit``, sprites
``0``-``8``) and enemies (tags ``enemy``, ``enemy2``, ``enemy3``) are the memory's lists,
in the original's list order, and the pools show them in that order: list entry ``i``
in pool slot ``i``. Fruits and enemies stay below row 10 and share a layer with no other
sprite there, so drawing them after the level's other sprites changes no pixel.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level, Var

_padded = rules.official.padded
DATA = rules.official.load("su15")
FRUITS = tuple(str(n) for n in range(9))  # a fruit's sprite is named by its size
ENEMIES = ("enemy", "enemy2", "enemy3")  # tags and sprites of the three enemy kinds
# The level data names an enemy kind in a goal by these (enemy, enemy2, enemy3).
ENEMY_GOALS = ("vnjbdkorwc", "yckgseirmu", "vptxjilzzk")
GOAL, KEY, HINT = "goal", "key", "hint"
MAX_FRUITS, MAX_ENEMIES, MAX_GOALS = 9, 4, 4
SCREEN = rules.SCREEN
TOP = 10  # fruits and enemies stay at rows TOP..63; clicks above row TOP or on row 63 do nothing
PULL = 4  # cells a captured sprite moves toward the click a frame (at most, per axis)
REACH = 8  # the vacuum's radius: sprites whose box comes this close are captured

FRUIT_SIZE = np.array([len(DATA.catalogue[f].pixels) for f in FRUITS], np.int32)
FRUIT_LAYER = np.array([DATA.catalogue[f].layer for f in FRUITS], np.int32)
FRUIT_COLOUR = np.array([DATA.catalogue[f].pixels[0][0] for f in FRUITS], np.int32)
ENEMY_PIXELS = np.stack([np.asarray(DATA.catalogue[e].pixels, np.int8) for e in ENEMIES])
ENEMY_HEIGHT, ENEMY_WIDTH = ENEMY_PIXELS.shape[1:]


def _goals(data, where: str) -> tuple[list[int], list[int]]:
    """``(fruits, enemies)``: how many fruits of each size and enemies of each kind the
    goal sprites must hold (-1: any number), from the level's ``goal`` (one pair, or a
    list of pairs)."""
    goal = data["goal"]
    pairs = goal if isinstance(goal[0], list | tuple) else [goal]
    fruits, enemies = [-1] * len(FRUITS), [-1] * len(ENEMIES)
    for name, count in pairs:
        if str(name) in ENEMY_GOALS:
            enemies[ENEMY_GOALS.index(str(name))] = int(count)
        elif str(name) in FRUITS:
            fruits[int(name)] = int(count)
        else:
            raise ValueError(f"{where}: goal {name!r} is neither a fruit size nor {ENEMY_GOALS}")
    return fruits, enemies


def level_of(level, number: int) -> Level:
    """Official level ``level`` (the game's ``number``-th) in the port's slots."""
    where = f"su15 level {number + 1}"
    sprites = list(level.sprites)
    fruits = [s for s in sprites if "fruit" in s.tags]
    enemies = [s for s in sprites if s.kind in ENEMIES]
    others = [s for s in sprites if s not in fruits and s not in enemies]
    if any(s.kind not in FRUITS for s in fruits):
        raise ValueError(f"{where}: a fruit that is not one of the sprites {FRUITS}")
    # The original lists enemies by tag, kind by kind.
    enemies.sort(key=lambda s: ENEMIES.index(s.kind))
    fill_fruit, fill_enemy = DATA.catalogue[FRUITS[0]], DATA.catalogue[ENEMIES[0]]
    slots = (
        _padded(others, NUM_OTHERS, where, "other sprites", NOTHING)
        + _padded(fruits, MAX_FRUITS, where, "fruits", fill_fruit)
        + _padded(enemies, MAX_ENEMIES, where, "enemies", fill_enemy)
    )
    goals = [s for s in others if GOAL in s.tags]
    boxes = [(s.x, s.y, s.drawn_shape[1], s.drawn_shape[0]) for s in goals]
    painted = [_colour(s, where) if GOAL in s.tags or KEY in s.tags else -1 for s in others]
    hints = [slot for slot, s in enumerate(others) if HINT in s.tags]
    goal_fruits, goal_enemies = _goals(level.data, where)
    memory = {
        "f_n": len(fruits),
        "f_size": _padded([FRUITS.index(s.kind) for s in fruits], MAX_FRUITS, where, "fruits", 0),
        "f_layer": _padded([s.layer for s in fruits], MAX_FRUITS, where, "fruits", 0),
        "f_x": _padded([s.x for s in fruits], MAX_FRUITS, where, "fruits", 0),
        "f_y": _padded([s.y for s in fruits], MAX_FRUITS, where, "fruits", 0),
        "e_n": len(enemies),
        "e_kind": _padded(
            [ENEMIES.index(s.kind) for s in enemies], MAX_ENEMIES, where, "enemies", 0
        ),
        "e_x": _padded([s.x for s in enemies], MAX_ENEMIES, where, "enemies", 0),
        "e_y": _padded([s.y for s in enemies], MAX_ENEMIES, where, "enemies", 0),
        "goal_boxes": _padded(boxes, MAX_GOALS, where, "goals", (0, 0, 0, 0)),
        "goal_fruits": goal_fruits,
        "goal_enemies": goal_enemies,
        # The fruits' worth the goals ask for (a fruit of size n is worth 2**n).
        "needed": sum(2**n * c for n, c in enumerate(goal_fruits) if c > 0),
        "steps": int(level.data["steps"]),
        "steps_max": int(level.data["steps"]),
        "colours": _padded(painted, NUM_OTHERS, where, "sprites"),
        "hint": hints[0] if hints and number == 0 else -1,
    }
    return Level(tuple(slots), grid_size=level.grid_size, memory=memory, name=level.name)


def _colour(sprite, where: str) -> int:
    """The one colour of a key or goal sprite (the port paints it back from this)."""
    colours = {c for row in sprite.pixels for c in row if c >= 0}
    if len(colours) != 1:
        raise ValueError(f"{where}: key or goal {sprite.kind!r} has colours {sorted(colours)}")
    return colours.pop()


# What fills the slots of other sprites a level lacks: drawn nowhere, found by nothing.
NOTHING = dataclasses.replace(DATA.catalogue["gcpqtwbmkp"], visible=False, collidable=False)
NUM_OTHERS = max(
    sum(1 for s in level.sprites if "fruit" not in s.tags and s.kind not in ENEMIES)
    for level in DATA.levels
)
LEVELS = tuple(level_of(level, n) for n, level in enumerate(DATA.levels))
NUM_SLOTS = NUM_OTHERS + MAX_FRUITS + MAX_ENEMIES
PIXEL_SIZE = max(max(s.drawn_shape) for level in LEVELS for s in level.sprites)


# --- the original's floats, as tables -----------------------------------------------------
# A unit vector is float(a) / (a*a + b*b) ** 0.5 for integer a, b (centre differences, at
# most 64 apart); the original adds it, scaled, to a float position and rounds it to the
# nearest cell, halves to even. The tables hold, per (a, b), the cells a position moves:
# computed here in Python's own floats, for an even and an odd start (the only way the
# start can change the result is a tie broken to even).

SPAN = 64  # centre differences lie in -SPAN..SPAN


def _unit(a: int, b: int) -> float:
    squared = float(a) * float(a) + float(b) * float(b)
    return float(a) / squared**0.5 if squared > 0.0 else 0.0


def _moves(step_of, steps: int) -> np.ndarray:
    """``[2*SPAN+1, 2*SPAN+1, steps, 2]`` int8: ``round(x + k * step)`` - ``x`` after
    ``k + 1`` additions of ``step_of(unit)``, from ``x`` even (0) and odd (1)."""
    table = np.zeros((2 * SPAN + 1, 2 * SPAN + 1, steps, 2), np.int8)
    for a in range(-SPAN, SPAN + 1):
        for b in range(-SPAN, SPAN + 1):
            step = step_of(_unit(a, b))
            for start in (0, 1):
                position = float(start)
                for k in range(steps):
                    position += step
                    table[a + SPAN, b + SPAN, k, start] = round(position) - start
    return table


# A knocked fruit flies 10 cells over 4 frames: 2.5 a frame, added up in floats.
FLIGHT_FRAMES = 4
FLIGHT = _moves(lambda unit: unit * (10.0 / FLIGHT_FRAMES), FLIGHT_FRAMES)
# A captured enemy of the first kind moves 4 * 0.85 along its vector a frame, from its
# cell (the float is rounded each frame).
GLIDE = _moves(lambda unit: unit * float(PULL * 0.85), 1)[:, :, 0]


def _ring(radius: float) -> tuple[int, int]:
    """The squared distances (from the click) the vacuum's ring covers at ``radius``,
    as the original tests them (float32 squares against the ring's bounds)."""
    squares = np.arange(2 * 64 * 64, dtype=np.float32)
    outer, inner = radius + 0.5, max(0.0, radius - 0.5)
    on = (squares <= outer * outer) & (squares >= inner * inner)
    found = np.flatnonzero(on)
    if radius <= 0.0 or not found.size:
        return 1, 0  # none
    assert np.all(np.diff(found) == 1), "a ring is one band of squared distances"
    return int(found[0]), int(found[-1])


def _radii(frames: int) -> list[float]:
    """The ring's radius on each frame of the vacuum: REACH shrinking to 0 in
    ``frames - 1`` equal steps, floats as the original subtracts them."""
    radius, step, radii = float(REACH), float(REACH) / float(frames - 1), []
    for _ in range(frames + 1):
        radii.append(radius)
        radius = max(0.0, radius - step)
    return radii


VACUUM_FRAMES = 4
RING = np.array([_ring(r) for r in _radii(VACUUM_FRAMES)], np.int32)  # [frame, (lo, hi)]


# What each level's memory starts from (``level_of``), as the game declares it.
LEVEL_MEMORY = {
    "f_n": Var(),
    "f_size": Var("int32", (MAX_FRUITS,)),
    "f_layer": Var("int32", (MAX_FRUITS,)),
    "f_x": Var("int32", (MAX_FRUITS,)),
    "f_y": Var("int32", (MAX_FRUITS,)),
    "e_n": Var(),
    "e_kind": Var("int32", (MAX_ENEMIES,)),
    "e_x": Var("int32", (MAX_ENEMIES,)),
    "e_y": Var("int32", (MAX_ENEMIES,)),
    "goal_boxes": Var("int32", (MAX_GOALS, 4)),
    "goal_fruits": Var("int32", (len(FRUITS),), -1),
    "goal_enemies": Var("int32", (len(ENEMIES),), -1),
    "needed": Var(),
    "steps": Var(),
    "steps_max": Var(value=1),
    "colours": Var("int32", (NUM_OTHERS,), -1),
    "hint": Var(value=-1),
}
# Level 1 hides its hint once its first fruit has left where it starts.
HINT_FRUIT = next((s.x, s.y) for s in DATA.levels[0].sprites if "fruit" in s.tags)


def _ring_cells(band: tuple[int, int]) -> list[tuple[int, int]]:
    lo, hi = band
    return [
        (dx, dy)
        for dy in range(-REACH - 1, REACH + 2)
        for dx in range(-REACH - 1, REACH + 2)
        if lo <= dx * dx + dy * dy <= hi
    ]


# The ring's cells on each frame as offsets from the click (a list, padded with an offset
# that lands off every screen): the UI draws these few cells, not a test of every cell.
_CELLS = [_ring_cells(band) for band in RING]
RING_CELLS = np.full((len(_CELLS), max(map(len, _CELLS)), 2), 4 * SCREEN, np.int32)
for _frame, _cells in enumerate(_CELLS):
    RING_CELLS[_frame, : len(_cells)] = np.reshape(_cells, (-1, 2))
