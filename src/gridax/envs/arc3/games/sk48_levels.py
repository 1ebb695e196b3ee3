"""sk48's levels: ARC Prize's level data (``rules.official.load("sk48")``) laid out in
the port's slots, with what the original's ``on_set_level`` works out, computed once in
plain Python: each arm (a base and the segments chained from it), the pairs of arms
above and below the bar, the blocks, the board, the walls and the rails
(``games/sk48.py`` describes the game). The assumptions the port rests on are checked
here, with errors that name the level and sprite.

The slots: ``MAX_ARMS * MAX_SEGMENTS`` segments (arm ``a``'s ``i``-th at ``a *
MAX_SEGMENTS + i``), one retracted segment still shown for a frame (``GHOST``), the
level's other sprites in their order (the bar's line left out: the original removes it),
the markers of the arms below the bar and a shadow per block. Only sprites of one layer
that overlap are drawn in slot order; the markers, drawn over the blocks they sit on,
come after them as in the original.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

DATA = rules.official.load("sk48")
STEP = 6  # the lattice: a segment, a block and a move are 6 cells
BAR_ROW = 53  # the moves bar; arms above it are played, arms below show their targets
BUDGET = 196  # moves per level
MAX_ARMS, MAX_SEGMENTS, MAX_BLOCKS, MAX_MARKERS = 5, 8, 12, 8
MAX_WALLS, MAX_RAILS = 2, 12
SEGMENT, MARKER, SHADOW = "qtjqovumxf", "kevthtkmzm", "pkzxknabii"
BASE_TAG, BLOCK_TAG, BOARD_TAG, WALL_TAG, RAIL_TAG = (
    "epdquznwmq",
    "elmjchdqcn",
    "jtteddgeyl",
    "mkgqjopcjn",
    "irkeobngyh",
)
WAYS = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}  # a base's rotation: its arm's way
GHOST = MAX_ARMS * MAX_SEGMENTS
FIRST_LEVEL_SLOT = GHOST + 1
NUM_LEVEL_SLOTS = max(
    sum(s.kind not in (SEGMENT, "yukipuenar") for s in level.sprites) for level in DATA.levels
)
FIRST_MARKER = FIRST_LEVEL_SLOT + NUM_LEVEL_SLOTS
FIRST_SHADOW = FIRST_MARKER + MAX_MARKERS
NUM_SLOTS = FIRST_SHADOW + MAX_BLOCKS
FAR = -100  # where an absent block or arm is: on no lattice point of any level


def _pixels(sprite) -> np.ndarray:
    return np.asarray(sprite.pixels)


def _drawn_box(sprite) -> tuple[int, int, int, int]:
    """``(x, y, width, height)`` as drawn (scaled, turned)."""
    height, width = _pixels(sprite).shape
    if sprite.rotation in (90, 270):
        height, width = width, height
    return sprite.x, sprite.y, width * sprite.scale, height * sprite.scale


def _reach(base, way, board) -> int:
    """The most segments an arm can have: its base's cell and the board's cells in a row
    from it (the original's bounds: the board's pixels, 6 cells each)."""
    left, top, right, bottom = board
    count, x, y = 1, base.x + way[0] * STEP, base.y + way[1] * STEP
    while left <= x and x + STEP <= right and top <= y and y + STEP <= bottom:
        count, x, y = count + 1, x + way[0] * STEP, y + way[1] * STEP
    return count


def _arms(level, board, where: str) -> list[dict]:
    """The original's arms: each base with the segments chained from it along its way."""
    segments = [s for s in level.sprites if s.kind == SEGMENT]
    claimed: set[int] = set()
    arms = []
    for base in (s for s in level.sprites if BASE_TAG in s.tags):
        way = WAYS[base.rotation]
        horizontal = base.rotation in (0, 180)
        count, x, y = 0, base.x, base.y
        while True:
            found = [
                i
                for i, s in enumerate(segments)
                if (s.x, s.y) == (x, y) and (s.rotation in (0, 180)) == horizontal
            ]
            if not found:
                break
            if found[0] in claimed:  # the original would move one sprite for two arms
                raise ValueError(f"{where}: the segment at {(x, y)} is in two arms")
            claimed.add(found[0])
            count, x, y = count + 1, x + way[0] * STEP, y + way[1] * STEP
        top = base.y < BAR_ROW  # an arm below the bar never moves
        reach = _reach(base, way, board) if top else count
        if not 1 <= count <= MAX_SEGMENTS or reach > MAX_SEGMENTS:
            raise ValueError(
                f"{where}: the arm at {(base.x, base.y)} has {count} segments and may grow "
                f"to {reach}: the port holds 1-{MAX_SEGMENTS}"
            )
        if base.kind.startswith("wallBase"):  # the original does not make these clickable
            raise ValueError(f"{where}: a base named {base.kind} is not ported")
        arms.append({"base": base, "way": way, "count": count, "top": top})
    if len(claimed) != len(segments):
        raise ValueError(f"{where}: a segment belongs to no arm (the port draws arms whole)")
    return arms


def _pairs(arms: list[dict], where: str) -> list[int]:
    """Each arm above the bar: the arm of the same colour (pixel ``[2, 2]`` of the base)
    it must match, else -1 (the original's pairs)."""
    colours = [int(_pixels(arm["base"])[2, 2]) for arm in arms]
    pairs = []
    for a, arm in enumerate(arms):
        same = [b for b in range(len(arms)) if b != a and colours[b] == colours[a]]
        pairs.append(same[0] if arm["top"] and same else -1)
    taken = [p for p in pairs if p >= 0]
    if len(set(taken)) != len(taken) or any(arms[p]["top"] for p in taken):
        raise ValueError(f"{where}: two arms share a pair, or a pair is above the bar")
    return pairs


def _check(level, arms: list[dict], pairs: list[int], where: str) -> None:
    blocks = [s for s in level.sprites if BLOCK_TAG in s.tags]
    if len(arms) > MAX_ARMS or len(blocks) > MAX_BLOCKS:
        raise ValueError(f"{where}: {len(arms)} arms, {len(blocks)} blocks: too many")
    if sum(s.kind == "yukipuenar" for s in level.sprites) != 1:  # the original removes one
        raise ValueError(f"{where}: the bar's line (yukipuenar) must be there once")
    if sum(arms[p]["count"] - 1 for p in pairs if p >= 0) > MAX_MARKERS:
        raise ValueError(f"{where}: more than {MAX_MARKERS} markers")
    for s in level.sprites:
        if (WALL_TAG in s.tags or RAIL_TAG in s.tags) and (
            np.any(_pixels(s) == rules.TRANSPARENT) or not s.collidable
        ):
            raise ValueError(
                f"{where}: wall or rail {s.kind} at {(s.x, s.y)} has holes or does not collide"
            )
    for p in pairs:
        if p < 0:
            continue
        arm = arms[p]
        on = [
            b
            for i in range(arm["count"])
            for b in blocks
            if (b.x, b.y)
            == (arm["base"].x + i * STEP * arm["way"][0], arm["base"].y + i * STEP * arm["way"][1])
        ]
        if len(on) < arm["count"] - 1:  # the original would index past its list
            raise ValueError(
                f"{where}: the arm below the bar at {(arm['base'].x, arm['base'].y)} lacks blocks"
            )


def _padded(values: list, length: int, fill) -> list:
    return list(values) + [fill] * (length - len(values))


def _boxes(level, tag: str, count: int) -> list:
    boxes = [_drawn_box(s) for s in level.sprites if tag in s.tags]
    if len(boxes) > count:
        raise ValueError(f"sk48 level {level.name}: more than {count} sprites tagged {tag}")
    return _padded(boxes, count, (FAR, FAR, 0, 0))


def level_of(level) -> Level:
    """An official level (``DATA.levels``) as the port's level."""
    where = f"sk48 level {level.name}"
    boards = [s for s in level.sprites if BOARD_TAG in s.tags]
    if not boards:
        raise ValueError(f"{where}: no board (no sprite tagged {BOARD_TAG})")
    board = boards[0]  # the original's: the first
    height, width = _pixels(board).shape  # the original's bounds: pixels x 6, not scale
    bounds = (board.x, board.y, board.x + width * STEP, board.y + height * STEP)
    arms = _arms(level, bounds, where)
    pairs = _pairs(arms, where)
    _check(level, arms, pairs, where)
    template = DATA.catalogue[SEGMENT]
    segments = []
    for a in range(MAX_ARMS):
        base = arms[a]["base"] if a < len(arms) else None
        rotation = base.rotation if base else 0
        for _ in range(MAX_SEGMENTS):
            segments.append(
                dataclasses.replace(
                    template,
                    rotation=rotation,
                    layer=1 if rotation in (0, 180) else 0,
                    visible=False,  # placed and shown by the rule's first drawing
                )
            )
    ghost = dataclasses.replace(template, visible=False)
    others = [s for s in level.sprites if s.kind not in (SEGMENT, "yukipuenar")]
    padding = [dataclasses.replace(ghost, kind=MARKER, tags=())] * (NUM_LEVEL_SLOTS - len(others))
    blocks = [s for s in level.sprites if BLOCK_TAG in s.tags]
    marker = dataclasses.replace(DATA.catalogue[MARKER], visible=False)
    markers, marker_arm, marker_index = [], [], []
    for a, p in enumerate(pairs):
        if p < 0:
            continue
        for i in range(1, arms[p]["count"]):
            x = arms[p]["base"].x + i * STEP * arms[p]["way"][0] + 1
            y = arms[p]["base"].y + i * STEP * arms[p]["way"][1] + 1
            markers.append(dataclasses.replace(marker, x=x, y=y))
            marker_arm.append(a)
            marker_index.append(i - 1)
    markers += [marker] * (MAX_MARKERS - len(markers))
    shadows = [
        dataclasses.replace(
            DATA.catalogue[SHADOW],
            pixels=tuple(
                tuple(int(b.pixels[1][1]) if v >= 0 else v for v in row)
                for row in DATA.catalogue[SHADOW].pixels
            ),
            visible=False,
        )
        for b in blocks
    ]
    shadows += [dataclasses.replace(DATA.catalogue[SHADOW], visible=False)] * (
        MAX_BLOCKS - len(shadows)
    )
    sprites = (*segments, ghost, *others, *padding, *markers, *shadows)
    slot = {id(s): FIRST_LEVEL_SLOT + i for i, s in enumerate(others)}
    memory = {
        "arm_exists": _padded([True] * len(arms), MAX_ARMS, False),
        "base": _padded([(arm["base"].x, arm["base"].y) for arm in arms], MAX_ARMS, (FAR, FAR)),
        "way": _padded([arm["way"] for arm in arms], MAX_ARMS, (1, 0)),
        "turns": _padded([arm["base"].rotation // 90 for arm in arms], MAX_ARMS, 0),
        "count": _padded([arm["count"] for arm in arms], MAX_ARMS, 0),
        "pair": _padded(pairs, MAX_ARMS, -1),
        "base_slot": _padded([slot[id(arm["base"])] for arm in arms], MAX_ARMS, NUM_SLOTS),
        "block": _padded([(b.x, b.y) for b in blocks], MAX_BLOCKS, (FAR, FAR)),
        "block_colour": _padded([int(b.pixels[1][1]) for b in blocks], MAX_BLOCKS, 0),
        "block_slot": _padded([slot[id(b)] for b in blocks], MAX_BLOCKS, NUM_SLOTS),
        "board": bounds,
        "walls": _boxes(level, WALL_TAG, MAX_WALLS),
        "rails": _boxes(level, RAIL_TAG, MAX_RAILS),
        "marker_arm": _padded(marker_arm, MAX_MARKERS, -1),
        "marker_index": _padded(marker_index, MAX_MARKERS, 0),
    }
    return Level(sprites, grid_size=level.grid_size, memory=memory, name=level.name)


LEVELS = tuple(map(level_of, DATA.levels))
