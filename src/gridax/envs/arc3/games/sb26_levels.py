"""sb26's levels (ARC Prize's public game, version 7fbdac44; ``games/sb26.py`` is its
rule): the official sprites of each level with the sprites its ``on_set_level`` adds,
laid out in the order the original draws them, and the lists the rule goes through
(frames, targets, items, spots, the sprites it moves) as memory.

What the port lays out differently, frame for frame the same (``games/sb26.py`` says
why): the program's frame-shaped cursor (one 12 x up-to-48 sprite the original resizes)
as its four 3x3 corners; the selection's highlight on layer 2, not 1 (it is the last
sprite of layer 1, so nothing changes); the camera's picture that the original copies
into a sprite while a program runs as a *ghost* of the target cursor (what of that
picture the live sprites do not cover); the banner of levels with fewer than 12 targets
(a rectangle the original resizes) drawn by the UI."""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level, Sprite, Var

DATA = rules.official.load("sb26")
ITEM, SPOT, FRAME, CLICKABLE = "lngftsryyw", "susublrply", "pkpgflvjel", "sys_click"  # tags
PLAIN, CALL, TARGET, BACKGROUND = "lngftsryyw", "vgszefyyyp", "quhhhthrri", "uzxwqmkrmk"
HIGHLIGHT, CURSOR, CORNER, MARKER = "wrqpmmfhup", "jkxncpvknr", "lnzhvcagos", "upbhqnvnyx"
WIDE_BANNER, BANNER, BAR = "jwaufhyryn", "oflgslmuku", "zpwrpmkvsv"
BOTTOM = 53  # items below this row are the palette (clickable); the energy bar's row
ENERGY = 64
BACKDROP = 4  # the camera's background: a sprite faded to it is gone to the eye
SLOT_STEP, SLOT_INSET = 6, 2  # a frame's slots: every 6 cells from 2 inside its corner
CORNER_SIDE, CURSOR_HEIGHT = 3, 12  # the program cursor: 12 rows, corners of 3

# The actors: sprites the rule moves and recolours, kept in memory and laid out each
# frame, in this order in memory (their slots follow the level's own sprites).
MROK0, MROK1, MJEQ, AYAI, OHVA, GHOST = range(6)
NUM_ACTORS = 6


def _catalogue(key: str, **changes) -> Sprite:
    return dataclasses.replace(DATA.catalogue[key], **changes)


def _recoloured(pixels, colour: int) -> tuple:
    """``color_remap(None, colour)``: every drawn pixel of ``pixels`` made ``colour``."""
    grid = np.asarray(pixels)
    return tuple(map(tuple, np.where(grid >= 0, colour, grid).tolist()))


def _corners(colour: int) -> tuple[tuple, ...]:
    """The program cursor's four corners (top left, top right, bottom left, bottom
    right), each a 3x3 grid of ``colour``: the original's 12-row outline with its sides
    cleared from row 3 to 8 and its top and bottom from column 3 to 3 before the end."""
    corner = np.full((CORNER_SIDE, CORNER_SIDE), rules.TRANSPARENT)
    corner[0, :] = corner[:, 0] = colour
    turns = (corner, corner[:, ::-1], corner[::-1, :], corner[::-1, ::-1])
    return tuple(tuple(map(tuple, c.tolist())) for c in turns)


CORNER_PIXELS = np.asarray(_corners(0))  # [4, 3, 3]: where colour 0 is, a corner's pixels


def corner_places(x, y, width):
    """``(xs, ys)``: the four corners' top-left cells of a cursor at ``(x, y)``, ``width``
    wide and 12 rows high (NumPy or JAX values)."""
    right, low = x + width - CORNER_SIDE, y + CURSOR_HEIGHT - CORNER_SIDE
    return (x, right, x, right), (y, y, low, low)


def _frame_slots(frame: Sprite) -> int:
    """How many slots a frame has: the last digit of its name, as the original reads."""
    return int(frame.kind[-1])


def _sorted_slots(sprites, keep) -> list[int]:
    """The slots of the sprites ``keep`` takes, by (y, x) as the original sorts them."""
    slots = [i for i, s in enumerate(sprites) if keep(s)]
    return sorted(slots, key=lambda i: (sprites[i].y, sprites[i].x))


MAX_FRAMES, MAX_SLOTS, MAX_TARGETS, MAX_ITEMS, MAX_CALLS = 4, 7, 12, 12, 3
MAX_SPOTS = 24
# How deep a program's stack of calls can go: a frame left past its first slot has
# filled a target of its own (at most one such a target), one entered from such a
# frame's call starts each run of first-slot calls, and within those runs the original
# refuses a frame called again from a first slot (at most one a frame): 2 T + F + 2.
DEPTH = 2 * MAX_TARGETS + MAX_FRAMES + 2
UNDO_DEPTH = ENERGY  # a swap costs one energy: no level takes more


# The game's memory, packed into one vector (rules.Packed: 50 variables carried leaf by
# leaf through the engine cost 5 s of compile), unpacked in the rule.
MEMORY = rules.Packed(
    {
        # The level's lists (games/sb26_levels.py), set as it starts.
        "frames": Var(shape=(MAX_FRAMES,), value=-1),
        "frame_slots": Var(shape=(MAX_FRAMES,)),
        "frame_colours": Var(shape=(MAX_FRAMES,), value=-1),
        "targets": Var(shape=(MAX_TARGETS,), value=-1),
        "target_colours": Var(shape=(MAX_TARGETS,), value=-1),
        "num_targets": Var(),
        "items": Var(shape=(MAX_ITEMS,), value=-1),
        "item_colours": Var(shape=(MAX_ITEMS,), value=-1),
        "calls": Var(shape=(MAX_CALLS,), value=-1),
        "spots": Var(shape=(MAX_SPOTS,), value=-1),
        "backgrounds": Var(shape=(MAX_TARGETS,), value=-1),
        "actors": Var(shape=(NUM_ACTORS + 3,), value=-1),
        "markers": Var(shape=(MAX_CALLS,), value=-1),
        "banner": Var(value=-1),
        # Play.
        "energy": Var(value=ENERGY),
        "selected": Var(value=-1),
        "history": Var(shape=(UNDO_DEPTH, 3), value=-1),
        "history_size": Var(),
        # A run.
        "phase": Var(value=0),
        "timer": Var(),
        "p": Var(),
        "depth": Var(),
        "stack_frame": Var(shape=(DEPTH,)),
        "stack_slot": Var(shape=(DEPTH,)),
        "returning": Var("bool"),
        "slot_of": Var(shape=(MAX_FRAMES, MAX_SLOTS), value=-1),
        "motion": Var(shape=(2, 7)),
        "frozen": Var("bool"),
        # The sprites it moves and recolours.
        "actor_x": Var(shape=(NUM_ACTORS,)),
        "actor_y": Var(shape=(NUM_ACTORS,)),
        "actor_colour": Var("int8", (NUM_ACTORS,)),
        "actor_fade": Var("int8", (NUM_ACTORS,), -1),
        "actor_visible": Var("bool", (NUM_ACTORS,)),
        "cursor_width": Var(),
        "bg_colour": Var("int8", value=5),
        "bg_fade": Var("int8", value=-1),
        "target_rows": Var("int8", (MAX_TARGETS, 4), -1),
        "marker_call": Var(shape=(DEPTH,)),
        "marker_colour": Var("int8", (DEPTH,)),
        "marker_fade": Var("int8", (DEPTH,), -1),
        "marker_count": Var(),
        "banner_on": Var("bool"),
        "banner_x": Var(),
        "banner_y": Var(),
        "banner_width": Var(value=1),
    }
)


def _level(number: int) -> Level:
    declared = DATA.levels[number]
    where = f"sb26 level {number + 1}"
    # on_set_level: the energy bar's sprite goes; frame items (above the palette) lose
    # their click tag; every palette item gets a hidden spot under it.
    sprites = [s for s in declared.sprites if s.kind != BAR]
    sprites = [
        dataclasses.replace(s, tags=tuple(t for t in s.tags if t != CLICKABLE))
        if ITEM in s.tags and s.y <= BOTTOM
        else s
        for s in sprites
    ]
    items = [i for i, s in enumerate(sprites) if ITEM in s.tags]
    spot = DATA.catalogue[SPOT]
    for i in items:
        if sprites[i].y > BOTTOM:
            sprites.append(dataclasses.replace(spot, x=sprites[i].x, y=sprites[i].y, visible=False))
    spots = [i for i, s in enumerate(sprites) if SPOT in s.tags]
    frames = _sorted_slots(sprites, lambda s: FRAME in s.tags)
    targets = _sorted_slots(sprites, lambda s: s.kind == TARGET)
    calls = [i for i in items if sprites[i].kind == CALL]
    first = sprites[frames[0]]

    actors = len(sprites)
    highlight = _catalogue(
        HIGHLIGHT, pixels=_recoloured(DATA.catalogue[HIGHLIGHT].pixels, BACKDROP)
    )
    sprites += [
        dataclasses.replace(highlight, x=-10, y=-10, layer=2),  # the original's layer 1
        dataclasses.replace(highlight, x=-10, y=-10, layer=0),
    ]
    cursor_x, cursor_y, cursor_w = first.x - 1, first.y - 1, len(first.pixels[0]) + 2
    for pixels, x, y in zip(_corners(0), *corner_places(cursor_x, cursor_y, cursor_w), strict=True):
        sprites.append(_catalogue(CORNER, pixels=pixels, x=x, y=y, layer=10))
    sprites.append(dataclasses.replace(highlight, layer=10, visible=False))  # AYAI
    cursor = _catalogue(CURSOR)
    sprites.append(
        dataclasses.replace(cursor, pixels=_recoloured(cursor.pixels, 5), x=-100, y=-100, layer=10)
    )
    sprites.append(dataclasses.replace(cursor, layer=1, visible=False))  # GHOST
    wide = len(targets) >= MAX_TARGETS
    banner = len(sprites) if wide else -1
    if wide:
        sprites.append(_catalogue(WIDE_BANNER, visible=False))
    markers = list(range(len(sprites), len(sprites) + len(calls)))
    sprites += [_catalogue(MARKER, visible=False) for _ in calls]

    for i, s in enumerate(sprites):  # what the rule's clicks take (sb26._first_at)
        item, spot = i in items, i in spots
        if CLICKABLE in s.tags and not (item or spot):
            raise ValueError(f"{where}: {s.kind!r} takes clicks but is no item or spot")
        solid = rules.TRANSPARENT not in {v for row in s.pixels for v in row}
        plain = s.scale == 1 and s.rotation % 360 == 0 and s.collidable and solid
        if (item or spot) and not (plain and s.layer == (1 if item else 0)):
            raise ValueError(f"{where}: {s.kind!r} is not a plain item or spot")
    for frame in frames:
        for k in range(_frame_slots(sprites[frame])):
            x = sprites[frame].x + SLOT_INSET + k * SLOT_STEP
            y = sprites[frame].y + SLOT_INSET
            if not any((sprites[i].x, sprites[i].y) == (x, y) for i in items + spots):
                raise ValueError(f"{where}: frame slot at ({x}, {y}) holds no item or spot")
    frame_colours = [sprites[f].pixels[0][0] for f in frames]
    for i in calls:
        if sprites[i].pixels[1][1] not in frame_colours:
            raise ValueError(
                f"{where}: a call item of colour {sprites[i].pixels[1][1]} calls no frame"
            )
    padded = rules.official.padded
    memory = {
        "frames": padded(frames, MAX_FRAMES, where, "frames"),
        "frame_slots": padded(
            [_frame_slots(sprites[f]) for f in frames], MAX_FRAMES, where, "frames", 0
        ),
        "frame_colours": padded(frame_colours, MAX_FRAMES, where, "frames"),
        "targets": padded(targets, MAX_TARGETS, where, "targets"),
        "target_colours": padded(
            [sprites[t].pixels[0][0] for t in targets], MAX_TARGETS, where, "targets"
        ),
        "num_targets": len(targets),
        "items": padded(items, MAX_ITEMS, where, "items"),
        "item_colours": padded([sprites[i].pixels[1][1] for i in items], MAX_ITEMS, where, "items"),
        "calls": padded(calls, MAX_CALLS, where, "call items"),
        "spots": padded(spots, MAX_SPOTS, where, "spots"),
        "backgrounds": padded(
            [i for i, s in enumerate(sprites) if s.kind == BACKGROUND],
            MAX_TARGETS,
            where,
            "backgrounds",
        ),
        "actors": list(range(actors, actors + NUM_ACTORS + 3)),  # MJEQ's four corners
        "markers": padded(markers, MAX_CALLS, where, "markers"),
        "banner": banner,
        "actor_x": [-10, -10, cursor_x, 0, -100, 0],
        "actor_y": [-10, -10, cursor_y, 0, -100, 0],
        "actor_colour": [BACKDROP, BACKDROP, 0, BACKDROP, 5, 0],
        "actor_visible": [True, True, True, False, True, False],
        "cursor_width": cursor_w,
        "target_rows": [[rules.TRANSPARENT] * 4] * MAX_TARGETS,
    }
    packed = {"packed": MEMORY.values(memory)}
    return Level(tuple(sprites), declared.grid_size, packed, declared.name)


LEVELS = tuple(_level(n) for n in range(len(DATA.levels)))
NUM_SLOTS = max(len(level.sprites) for level in LEVELS)
# Winning runs found by tests/tools/solve_sb26.py (the fewest placements whose run fills
# every target: each palette item clicked, then its spot; then ACTION5) and checked on
# the official file (the recorded trace's last episode).
SOLUTIONS = (
    (
        (6, 35, 58),
        (6, 22, 29),
        (6, 19, 58),
        (6, 28, 29),
        (6, 43, 58),
        (6, 34, 29),
        (6, 27, 58),
        (6, 40, 29),
        5,
    ),
    (
        (6, 31, 58),
        (6, 22, 22),
        (6, 17, 58),
        (6, 28, 22),
        (6, 10, 58),
        (6, 22, 36),
        (6, 45, 58),
        (6, 28, 36),
        (6, 24, 58),
        (6, 34, 36),
        (6, 52, 58),
        (6, 40, 36),
        (6, 38, 58),
        (6, 40, 22),
        5,
    ),
    (
        (6, 52, 58),
        (6, 19, 23),
        (6, 17, 58),
        (6, 19, 35),
        (6, 24, 58),
        (6, 25, 35),
        (6, 31, 58),
        (6, 31, 23),
        (6, 45, 58),
        (6, 37, 35),
        (6, 38, 58),
        (6, 43, 35),
        (6, 10, 58),
        (6, 43, 23),
        5,
    ),
    (
        (6, 10, 58),
        (6, 19, 22),
        (6, 31, 58),
        (6, 25, 22),
        (6, 52, 58),
        (6, 31, 22),
        (6, 45, 58),
        (6, 31, 36),
        (6, 17, 58),
        (6, 37, 36),
        (6, 24, 58),
        (6, 37, 22),
        (6, 38, 58),
        (6, 43, 22),
        5,
    ),
    (
        (6, 13, 58),
        (6, 19, 22),
        (6, 48, 58),
        (6, 25, 22),
        (6, 41, 58),
        (6, 25, 36),
        (6, 27, 58),
        (6, 31, 36),
        (6, 20, 58),
        (6, 37, 36),
        (6, 55, 58),
        (6, 31, 22),
        (6, 34, 58),
        (6, 37, 22),
        (6, 6, 58),
        (6, 43, 22),
        5,
    ),
    (
        (6, 52, 58),
        (6, 12, 22),
        (6, 24, 58),
        (6, 18, 36),
        (6, 3, 58),
        (6, 24, 36),
        (6, 59, 58),
        (6, 18, 22),
        (6, 38, 58),
        (6, 44, 36),
        (6, 17, 58),
        (6, 50, 36),
        (6, 45, 58),
        (6, 24, 22),
        (6, 31, 58),
        (6, 44, 22),
        (6, 10, 58),
        (6, 50, 22),
        5,
    ),
    (
        (6, 20, 58),
        (6, 25, 16),
        (6, 13, 58),
        (6, 31, 16),
        (6, 48, 58),
        (6, 37, 16),
        (6, 41, 58),
        (6, 25, 42),
        (6, 55, 58),
        (6, 37, 42),
        (6, 27, 58),
        (6, 25, 29),
        (6, 34, 58),
        (6, 31, 29),
        (6, 6, 58),
        (6, 37, 29),
        5,
    ),
    (
        (6, 27, 58),
        (6, 22, 26),
        (6, 13, 58),
        (6, 28, 26),
        (6, 20, 58),
        (6, 34, 26),
        (6, 55, 58),
        (6, 40, 26),
        (6, 34, 58),
        (6, 22, 40),
        (6, 41, 58),
        (6, 28, 40),
        (6, 6, 58),
        (6, 34, 40),
        (6, 48, 58),
        (6, 40, 40),
        5,
    ),
)
