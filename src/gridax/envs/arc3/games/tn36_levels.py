"""tn36's levels: ARC Prize's level data (``rules.official.load("tn36")``) with what the
original's ``on_set_level`` works out from the sprites' tags, computed once in plain
Python (``games/tn36.py`` describes the game).

The two **machines** (tag ``annjcsdtyc``, left and right by ``x``) each own the sprites
whose top-left corner lies in their box: a **block** (``yssamcbruq``, the first), its
**target** (``ylbysintoa``, the first, if any), **walls** (``trvxlvpbdv``), **beams**
(``yikencmwll``, each with its **emitter**, the first ``mgmykqfuye`` whose box meets
it), **checkpoints** (``ccjcukzyce``), a **button** (``rlqfpkqktk``), a **grid**
(``udwswsnybp``) and a **tablet** (``zdzgatsoyb``; read-only with ``ilkhmcqzxr``):
**columns** (``clnkuqefvl``, by ``x``) in the tablet's box, **bits** (``baxznkbwix``,
by ``y``) in each column's. The **selectors** (``qgqvgxjtau``, by ``x``) load the
level's programs (data ``Positions``, ``Rotations``, ``Scales``, ``Programs``, ``Reset``)
into the left machine. The slots are the level's sprites in order, then a dead block
per machine (the catalogue's ``qwzbxapgyg``, out of the level when it starts).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level, Var

_padded = rules.official.padded
DATA = rules.official.load("tn36")
MACHINE, BLOCK, TARGET, WALL = "annjcsdtyc", "yssamcbruq", "ylbysintoa", "trvxlvpbdv"
BEAM, EMITTER, CHECKPOINT = "yikencmwll", "mgmykqfuye", "ccjcukzyce"
BUTTON, GRID, TABLET, READ_ONLY = "rlqfpkqktk", "udwswsnybp", "zdzgatsoyb", "ilkhmcqzxr"
COLUMN, BIT, SELECTOR = "clnkuqefvl", "baxznkbwix", "qgqvgxjtau"
BAR, MARKER = "egcefpppze", "tkgkshggjr"
DEAD = "qwzbxapgyg"
CELL = 4  # a machine's grid cell, in pixels: a program's unit of movement
MAX_WALLS, MAX_BEAMS, MAX_CHECKPOINTS = 5, 2, 4
MAX_COLUMNS, MAX_BITS, MAX_PROGRAMS = 6, 6, 5


def _box(sprite) -> tuple[int, int, int, int]:
    height, width = sprite.drawn_shape
    return sprite.x, sprite.y, width, height


def _contains(sprite, x: int, y: int) -> bool:
    """Cell ``(x, y)`` lies in ``sprite``'s box (the original's test of membership)."""
    left, top, width, height = _box(sprite)
    return left <= x < left + width and top <= y < top + height


def _meet(a, b) -> bool:
    """The boxes of ``a`` and ``b`` overlap (arcengine's bounding-box collision)."""
    ax, ay, aw, ah = _box(a)
    bx, by, bw, bh = _box(b)
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


class _Level:
    """The slots of one official level's sprites, by tag (list order)."""

    def __init__(self, sprites, where: str):
        self.sprites, self.where = sprites, where

    def tagged(self, tag: str, inside=None) -> list[int]:
        return [
            s
            for s, sprite in enumerate(self.sprites)
            if tag in sprite.tags and (inside is None or _contains(inside, sprite.x, sprite.y))
        ]

    def first(self, tag: str, inside, required: str = "") -> int:
        found = self.tagged(tag, inside)
        if not found and required:
            raise ValueError(f"{self.where}: a machine without a {required}")
        return found[0] if found else -1

    def by(self, slots: list[int], axis: str) -> list[int]:
        return sorted(slots, key=lambda s: getattr(self.sprites[s], axis))


def _machine(level: _Level, slot: int, dead: int, where: str) -> dict:
    """One machine's parts, as memory rows."""
    sprites, box = level.sprites, level.sprites[slot]
    beams, emitters = [], []
    all_emitters = level.tagged(EMITTER)
    for beam in level.tagged(BEAM, box):
        meeting = [e for e in all_emitters if _meet(sprites[e], sprites[beam])]
        if meeting:  # a beam without an emitter plays no part
            beams.append(beam)
            emitters.append(meeting[0])
    tablet = level.first(TABLET, box, "tablet")
    columns = level.by(level.tagged(COLUMN, sprites[tablet]), "x")
    bits = level.by(level.tagged(BIT), "y")
    column_bits = [
        [b for b in bits if _contains(sprites[c], sprites[b].x, sprites[b].y)] for c in columns
    ]
    for row in column_bits:
        for b in row:
            if np.asarray(sprites[b].pixels)[1, 2] < 0:
                raise ValueError(f"{where}: bit {sprites[b].kind} has no colour at (1, 2)")
    button = level.first(BUTTON, box)
    target = level.first(TARGET, box)
    block = level.first(BLOCK, box, "block")
    level.first(GRID, box, "grid")
    for part in [block, target, *level.tagged(WALL, box), *beams, *emitters]:
        if part >= 0 and not sprites[part].collidable:
            raise ValueError(f"{where}: {sprites[part].kind} is not collidable")
    start_colour = int(np.asarray(sprites[block].pixels)[1, 1])
    return {
        "machine": slot,
        "block": block,
        "dead": dead,
        "target": target,
        "target_colour": int(np.asarray(sprites[target].pixels)[1, 0]) if target >= 0 else 0,
        "walls": _padded(level.tagged(WALL, box), MAX_WALLS, where, "walls"),
        "beams": _padded(beams, MAX_BEAMS, where, "beams"),
        "emitters": _padded(emitters, MAX_BEAMS, where, "beams"),
        "checkpoints": _padded(
            level.tagged(CHECKPOINT, box), MAX_CHECKPOINTS, where, "checkpoints"
        ),
        "button": button,
        "button_colour": _centre_colour(sprites[button]) if button >= 0 else 0,
        "read_only": READ_ONLY in sprites[tablet].tags,
        "tablet": tablet,
        "columns": _padded(columns, MAX_COLUMNS, where, "columns"),
        "bits": _padded(
            [_padded(row, MAX_BITS, where, "bits") for row in column_bits],
            MAX_COLUMNS,
            where,
            "columns",
            [-1] * MAX_BITS,
        ),
        "start": [
            sprites[block].x,
            sprites[block].y,
            sprites[block].rotation % 360,
            sprites[block].scale,
            start_colour,
        ],
        "colour": start_colour,
    }


def _centre_colour(sprite) -> int:
    pixels = np.asarray(sprite.pixels)
    height, width = pixels.shape
    return int(pixels[width // 2, height // 2])  # the original indexes [width, height]


def _programs(level: _Level, data, grid: int, columns: int, where: str) -> dict:
    """The selectors' programs: where each puts the left machine's block (centred on its
    grid, moved by whole cells), its rotation, scale, tablet and whether a run puts the
    block back (``Reset``, true where the list is short)."""
    programs = [list(p)[:columns] for p in data.get("Programs") or []]
    count = len(programs)
    for name in ("Positions", "Rotations", "Scales"):
        if count and len(data.get(name, [])) < count:
            raise ValueError(f"{where}: {count} programs but {len(data.get(name, []))} {name}")
    for program in programs:
        if any(not 0 <= value < 1 << MAX_BITS for value in program):
            raise ValueError(f"{where}: program {program} has values beyond {MAX_BITS} bits")
    gx, gy, width, height = _box(level.sprites[grid])
    centre_x, centre_y = gx + width // CELL // 2 * CELL, gy + height // CELL // 2 * CELL
    at = [[centre_x + x * CELL, centre_y + y * CELL] for x, y in data.get("Positions", [])]
    resets = list(data.get("Reset", []))

    def padded(values, fill):
        return _padded(values[:count], MAX_PROGRAMS, where, "programs", fill)

    return {
        "programs": padded(
            [_padded(p, MAX_COLUMNS, where, "program steps") for p in programs],
            [-1] * MAX_COLUMNS,
        ),
        "program_at": padded(at, [0, 0]),
        "program_rotation": padded([r % 360 for r in data.get("Rotations", [])], 0),
        "program_scale": padded(list(data.get("Scales", [])), 1),
        "program_reset": padded([bool(r) for r in resets] + [True] * count, True),
    }


def level_of(official, number: int) -> Level:
    """Official level ``official`` (the game's ``number``-th) in the port's slots, with
    its machines, selectors and programs as memory."""
    where = f"tn36 level {number + 1}"
    sprites = list(official.sprites)
    level = _Level(sprites, where)
    machines = level.by(level.tagged(MACHINE), "x")
    if len(machines) != 2:
        raise ValueError(f"{where}: {len(machines)} machines; the game has two")
    dead = DATA.catalogue[DEAD]
    parts = [_machine(level, slot, len(sprites) + m, where) for m, slot in enumerate(machines)]
    left = parts[0]
    if not left["read_only"]:
        raise ValueError(f"{where}: the left machine's tablet is editable; the port's is read-only")
    if left["target"] >= 0:
        raise ValueError(f"{where}: the left machine has a target (its win would flash forever)")
    if parts[1]["read_only"]:
        raise ValueError(f"{where}: the right machine's tablet is read-only")
    num_columns = sum(c >= 0 for c in left["columns"])
    grid = level.first(GRID, sprites[machines[0]], "grid")
    programs = _programs(level, official.data, grid, num_columns, where)
    count = len(official.data.get("Programs") or [])
    selectors = level.by(level.tagged(SELECTOR), "x")
    if count < len(selectors):
        raise ValueError(f"{where}: {len(selectors)} selectors for {count} programs")
    memory: dict[str, Any] = {name: [p[name] for p in parts] for name in parts[0]} | programs
    memory["selectors"] = _padded(selectors, MAX_PROGRAMS, where, "selectors")
    memory["bar"] = level.tagged(BAR)[0]
    memory["marker"] = level.tagged(MARKER)[0]
    memory["first_program"] = count > 0
    extra = [dataclasses.replace(dead, visible=True) for _ in machines]
    return Level(
        (*sprites, *extra), grid_size=official.grid_size, memory=memory, name=official.name
    )


LEVELS = tuple(level_of(level, n) for n, level in enumerate(DATA.levels))
NUM_SLOTS = max(len(level.sprites) for level in LEVELS)
PIXEL_SIZE = max(max(s.drawn_shape) for level in LEVELS for s in level.sprites)
# The most columns a run steps through (the right machine's: the left's are fewer).
MAX_STEPS = max(
    int((np.asarray(dict(level.memory)["columns"]) >= 0).sum(axis=1).max()) for level in LEVELS
)


def per_machine(dtype: str, shape: tuple = (), value=-1) -> Var:
    """A memory variable with an entry per machine (left, right)."""
    return Var(dtype, (2, *shape), value)


# The memory variables of the level's parts, as level_of fills them.
PARTS = {
    **{name: per_machine("int32") for name in ("machine", "block", "dead", "target")},
    **{name: per_machine("int32") for name in ("button", "tablet")},
    "target_colour": per_machine("int32", (), 0),
    "button_colour": per_machine("int32", (), 0),
    "walls": per_machine("int32", (MAX_WALLS,)),
    "beams": per_machine("int32", (MAX_BEAMS,)),
    "emitters": per_machine("int32", (MAX_BEAMS,)),
    "checkpoints": per_machine("int32", (MAX_CHECKPOINTS,)),
    "read_only": per_machine("bool", (), False),
    "columns": per_machine("int32", (MAX_COLUMNS,)),
    "bits": per_machine("int32", (MAX_COLUMNS, MAX_BITS)),
    "selectors": Var("int32", (MAX_PROGRAMS,), -1),
    "programs": Var("int32", (MAX_PROGRAMS, MAX_COLUMNS), -1),
    "program_at": Var("int32", (MAX_PROGRAMS, 2)),
    "program_rotation": Var("int32", (MAX_PROGRAMS,)),
    "program_scale": Var("int32", (MAX_PROGRAMS,), 1),
    "program_reset": Var("bool", (MAX_PROGRAMS,), True),
    "first_program": Var("bool"),
    "bar": Var(),
    "marker": Var(),
}


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "ajoyntzwka baxznkbwix ccjcukzyce clnkuqefvl egshileqmu iggxhsyqne kbopcuwwcp lxzoctclpu "
    "qaiqvpifch qwzbxapgyg rnftwykgro uyvgvwtfhs veaxnfieni xgapnkybba yikencmwll ylbysintoa "
    "znhdjhhoai"
)
# What the rule recolours (tests/tools/moving_kinds.py): blocks, targets, bits, selectors
# and buttons, 9x9 at most; the other moving kinds (the 61-wide tablets) only move.
REPAINTED_KINDS = (
    "baxznkbwix", "egshileqmu", "iggxhsyqne", "kbopcuwwcp", "lxzoctclpu", "rnftwykgro",
    "uyvgvwtfhs", "xgapnkybba", "ylbysintoa", "znhdjhhoai",
)  # fmt: skip
