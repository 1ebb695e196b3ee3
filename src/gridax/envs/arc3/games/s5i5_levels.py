"""s5i5's levels: ARC Prize's level data (``rules.official.load("s5i5")``) with what the
original's ``on_set_level`` works out, computed once in plain Python: which arms every
resize button drives, which sprites each arm carries (and how many ways: the original
moves a sprite once for every way it is reached), and each arm's first parent
(``games/s5i5.py`` describes the game). The assumptions the port's geometry rests on are
checked here, with errors that name the level and sprite.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

DATA = rules.official.load("s5i5")
TAGS = DATA.tags
ARM, MOVER, GOAL, RESIZER, ROTATOR = (
    TAGS.index(tag)
    for tag in ("agujdcrunq", "zylvdxoiuq", "cpdhnkdobh", "gdgcpukdrl", "myzmclysbl")
)
BREADTH = 3  # an arm's breadth and the cells one resize adds or takes
UP, LEFT, DOWN, RIGHT = 0, 1, 2, 3  # an arm's way in quarters: where its base is
CAP = 3  # the colour of an arm's base
NUM_SLOTS = max(len(level.sprites) for level in DATA.levels)
# Collisions with walls (arms with holes, which never move) are read over this window of
# world cells, which holds every wall of every level (checked below).
WINDOW_FROM, WINDOW = -8, 80


def _pixels(sprite) -> np.ndarray:
    return np.asarray(sprite.pixels)


def _collide(a, b) -> bool:
    """arcengine's pixel-perfect ``collides_with`` of two untransformed sprites."""
    pa, pb = _pixels(a), _pixels(b)
    left, top = max(a.x, b.x), max(a.y, b.y)
    right = min(a.x + pa.shape[1], b.x + pb.shape[1])
    bottom = min(a.y + pa.shape[0], b.y + pb.shape[0])
    if right <= left or bottom <= top:
        return False
    cut_a = pa[top - a.y : bottom - a.y, left - a.x : right - a.x]
    cut_b = pb[top - b.y : bottom - b.y, left - b.x : right - b.x]
    return bool(np.any((cut_a != -1) & (cut_b != -1)))


def _is_arm_shape(pixels: np.ndarray) -> bool:
    """One colour, or one colour with a base (``CAP``) across one short end, ``BREADTH``
    wide: what the port redraws after a turn or a resize."""
    colour = pixels[1, 1]
    if pixels.min() < 0 or BREADTH not in pixels.shape:
        return False
    cap = pixels == CAP
    ends = (cap[-1].all(), cap[:, 0].all(), cap[0].all(), cap[:, -1].all())
    if not cap.any():
        return bool(np.all(pixels == colour))
    side = ends.index(True) if any(ends) else None
    if side is None or cap.sum() != BREADTH or pixels.shape[side % 2] % BREADTH:
        return False
    return bool(np.all((pixels == colour) | cap))


def way_of(pixels: np.ndarray) -> int:
    """An arm's way as the original reads it from its pixels: its base along the bottom
    row, else the left column, else the top row, else (or with no base) the right."""
    if pixels[-1, 1] == CAP:
        return UP
    if pixels[1, 0] == CAP:
        return LEFT
    return DOWN if pixels[0, 1] == CAP else RIGHT


def turns_of(way, upright):
    """The clockwise quarter turns from an arm held lengthwise (``BREADTH`` rows, its base
    at the far end) to the arm as drawn, upright or across (NumPy or JAX arrays)."""
    flipped = (upright & (way == DOWN)) | (~upright & (way == LEFT))
    return upright.astype(np.int32) + 2 * flipped.astype(np.int32)


def lengthwise(sprite):
    """A solid arm as the table holds it: lengthwise, turned to its way (``turns_of``);
    any other sprite as it is."""
    pixels = _pixels(sprite)
    if "agujdcrunq" not in sprite.tags or _is_wall(sprite):
        return sprite
    upright = np.bool_(pixels.shape[0] > pixels.shape[1])
    turns = int(turns_of(way_of(pixels), upright))
    held = np.rot90(pixels, turns)  # undoes ``turns`` clockwise quarters
    return dataclasses.replace(sprite, pixels=tuple(map(tuple, held.tolist())), rotation=90 * turns)


def _is_wall(sprite) -> bool:
    return "agujdcrunq" in sprite.tags and bool(np.any(_pixels(sprite) == -1))


def wall_area(level) -> np.ndarray:
    """``[WINDOW + 1, WINDOW + 1]``: the summed-area table of the world cells the level's
    walls cover, over the collision window (from ``WINDOW_FROM``): walls never move, so
    the cells of wall under an arm's box are four reads of it."""
    covered = np.zeros((WINDOW, WINDOW), np.int32)
    for sprite in filter(_is_wall, level.sprites):
        rows, cols = np.nonzero(_pixels(sprite) != rules.TRANSPARENT)
        np.add.at(covered, (rows + sprite.y - WINDOW_FROM, cols + sprite.x - WINDOW_FROM), 1)
    if np.any(covered >= 2):
        # The original would find the overlap at every click and put every one back.
        raise ValueError(f"s5i5 level {level.name}: two walls overlap")
    return np.pad(np.cumsum(np.cumsum(covered > 0, axis=0), axis=1), ((1, 0), (1, 0)))


def _placed(sprite, pixels: np.ndarray) -> tuple[int, int, int, int, int]:
    """``(x, y, height, width, way)``: a sprite's place, size and way."""
    return (sprite.x, sprite.y, *pixels.shape, way_of(pixels))


def _carried(level) -> np.ndarray:
    """``[slot, slot]``: the sprites each arm carries directly (the original's dict of
    sets): goals' movers it touches at the start, and the level's ``Children`` pairs."""
    sprites = level.sprites
    carried = np.zeros((NUM_SLOTS, NUM_SLOTS), np.int64)
    arms = [i for i, s in enumerate(sprites) if "agujdcrunq" in s.tags]
    for arm in arms:
        for i, s in enumerate(sprites):
            if "zylvdxoiuq" in s.tags and _collide(s, sprites[arm]):
                carried[arm, i] = 1
    for parent, child in level.data.get("Children", ()):
        for p in (i for i, s in enumerate(sprites) if s.kind == parent):
            if p not in arms:
                raise ValueError(f"s5i5 level {level.name}: parent {parent!r} is not an arm")
            for c in (i for i, s in enumerate(sprites) if s.kind == child):
                carried[p, c] = 1
    return carried


def _ways(carried: np.ndarray) -> np.ndarray:
    """``[slot, slot]``: in how many ways each sprite is carried by each arm, through any
    chain of arms (the original's recursion visits a sprite once per way)."""
    ways, step = np.zeros_like(carried), carried
    for _ in range(NUM_SLOTS):
        ways, step = ways + step, step @ carried
    if step.any():
        raise ValueError("s5i5: an arm carries itself (a cycle of Children)")
    return ways


def _check(level, ways: np.ndarray) -> None:
    """What the port's redraws assume of the level."""
    sprites = level.sprites
    moving: list[bool] = np.any(ways, axis=0).tolist()
    for i, s in enumerate(sprites):
        pixels, where = _pixels(s), f"s5i5 level {level.name}, sprite {s.kind!r}"
        has_holes = bool(np.any(pixels == -1))
        if "agujdcrunq" in s.tags and has_holes:
            inside = s.x >= WINDOW_FROM and s.y >= WINDOW_FROM
            inside &= max(s.x + pixels.shape[1], s.y + pixels.shape[0]) <= WINDOW_FROM + WINDOW
            if moving[i] or not inside:
                raise ValueError(f"{where}: a wall must stay inside the collision window")
        elif moving[i] or "agujdcrunq" in s.tags:
            symmetric = pixels.shape[0] == pixels.shape[1] and np.all(np.rot90(pixels) == pixels)
            if not (symmetric or ("agujdcrunq" in s.tags and _is_arm_shape(pixels))):
                raise ValueError(f"{where}: a moving sprite must be an arm or turn-symmetric")


def level_of(number: int) -> Level:
    level = DATA.levels[number]
    sprites = level.sprites
    carried = _carried(level)
    ways = _ways(carried)
    _check(level, ways)
    arms = [i for i, s in enumerate(sprites) if "agujdcrunq" in s.tags]
    parent = [next((a for a in arms if carried[a, i]), -1) for i in range(NUM_SLOTS)]
    drives = np.zeros((NUM_SLOTS, NUM_SLOTS), bool)  # [button, arm]
    for b, button in enumerate(sprites):
        if "gdgcpukdrl" in button.tags:
            for a in arms:
                drives[b, a] = _pixels(sprites[a])[1, 1] in _pixels(button)
                if drives[b, a] and not np.any(_pixels(sprites[a]) == CAP):
                    # the original's resize would give it a base: the port does not
                    raise ValueError(f"s5i5 level {level.name}: a driven arm has no base")
        if "myzmclysbl" in button.tags:
            middle = _pixels(button).shape[0] // 2
            for a in arms:
                pixels = _pixels(sprites[a])
                turned = pixels[1, 1] == _pixels(button)[middle, middle]
                if turned and not (np.any(pixels == CAP) and np.all(pixels != -1)):
                    # the original reads such an arm's way anew each quarter it turns:
                    # the port's turns do not
                    raise ValueError(f"s5i5 level {level.name}: a turned arm has no base")
    padding = NUM_SLOTS - len(sprites)
    pixels = [_pixels(s) for s in sprites]
    placed = [_placed(s, p) for s, p in zip(sprites, pixels, strict=True)] + [(0,) * 5] * padding
    walls = [_is_wall(s) for s in sprites]
    if np.any(drives[:, : len(walls)] & np.array(walls)):
        raise ValueError(f"s5i5 level {level.name}: a wall is driven (walls never move)")
    memory = {
        "geometry": tuple(zip(*placed, strict=True)),
        "colour": tuple(int(p[1, 1]) for p in pixels) + (0,) * padding,
        "capped": tuple(bool(np.any(p == CAP)) for p in pixels) + (False,) * padding,
        "solid": tuple(not wall for wall in walls) + (False,) * padding,
        "moves": level.data["StepCounter"],
        "moves_left": level.data["StepCounter"],
        "ways": tuple(map(tuple, ways.tolist())),
        "parent": tuple(parent),
        "drives": tuple(map(tuple, drives.tolist())),
    }
    # The original's camera draws the sprites in the level's order, whatever their layers.
    flat = tuple(dataclasses.replace(lengthwise(s), layer=0) for s in sprites)
    return Level(flat, grid_size=level.grid_size, memory=memory, name=level.name)


LEVELS = tuple(level_of(n) for n in range(len(DATA.levels)))
# [level, row, column]: each level's walls summed (after level_of checked them in the window)
WALL_AREAS = np.stack([wall_area(level) for level in DATA.levels]).astype(np.int16)
