"""ka59's levels (ARC Prize's public game, version 9f096b4a; ``games/ka59.py`` is its
rule): the official sprites of each level, then the two sprites the original makes
during play, which a level holds out of play until the rule adds them (the shoving
line, ``collider``, and each bomb's three blasts); the slots the rule goes through, in
the orders the original goes through them; the winning runs."""

from __future__ import annotations

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

DATA = rules.official.load("ka59")
BLOCK, STONE, BOMB = "xlfuqjygey", "nnckfubbhi", "gobzaprasa"  # tags
WALL, GULCH, BLOCK_FRAME, STONE_FRAME = "divgcilurm", "vwjqkxkyxm", "rktpmjcpkt", "ucjzrlvfkb"
COLLIDER = "collider"  # the kind of the shoving line's sprite (the original's has no name)
KINDS = (*DATA.kinds, COLLIDER)
TAGS = DATA.tags
STEP = 3  # cells a move, a shove and a blast's push take
SELECTED, DESELECTED = 0, 4  # a block's centre
FRAMED, TOUCHING = 14, 0  # a block's border, and a side of the selected block that touches
TICKED, FRESH = 12, 13  # a bomb's rows
SLIDE_FRAMES = 5  # a shoved sprite slides this many frames at least
BLAST_FRAMES = 3
PIXELS = 8  # the shoving line's grid (a block of 6 and a cell around); blocks, bombs: 6
REACH = 9  # the largest shoved sprite (a stone)
LINE = 6  # the cells a side of a block has at most


def _tagged_slots(sprites, *tags) -> list[int]:
    return [i for i, s in enumerate(sprites) if set(tags) & set(s.tags)]


LEVEL_SPRITES = [level.sprites for level in DATA.levels]
MAX_PUSHABLE = max(len(_tagged_slots(s, BLOCK, STONE, BOMB)) for s in LEVEL_SPRITES)
MAX_BOMBS = max(len(_tagged_slots(s, BOMB)) for s in LEVEL_SPRITES)
MAX_TARGETS = max(len(_tagged_slots(s, BLOCK_FRAME, STONE_FRAME)) for s in LEVEL_SPRITES)
COLLIDER_SPRITE = rules.Sprite(
    pixels=((rules.TRANSPARENT,) * PIXELS,) * PIXELS, kind=COLLIDER, tags=("Collider",)
)


def _level(number: int) -> Level:
    declared = DATA.levels[number]
    sprites = list(declared.sprites)
    if any("Enemy" in s.tags for s in sprites):
        raise ValueError(f"ka59 level {number + 1}: an enemy, which the port does not move")
    bombs = _tagged_slots(sprites, BOMB)
    shovable = _tagged_slots(sprites, BLOCK, STONE, BOMB)
    # What a blast and the end of an explosion go through: stones, bombs, then blocks.
    by_kind = _tagged_slots(sprites, STONE) + bombs + _tagged_slots(sprites, BLOCK)
    collider = len(sprites)
    sprites.append(COLLIDER_SPRITE)
    blasts = []
    for bomb in bombs:
        size = len(sprites[bomb].pixels[0])
        blasts.append([len(sprites) + n for n in range(BLAST_FRAMES)])
        sprites += [DATA.catalogue[f"explode-{size}-{n + 1}"] for n in range(BLAST_FRAMES)]
    targets = _tagged_slots(sprites, BLOCK_FRAME, STONE_FRAME)  # frames to fill
    where = f"ka59 level {number + 1}"
    padded = rules.official.padded
    memory = {
        "steps": declared.data["StepCounter"],
        "budget": declared.data["StepCounter"],
        "first_block": _tagged_slots(sprites, BLOCK)[0],
        "shovable": padded(shovable, MAX_PUSHABLE, where, "shovable sprites"),
        "by_kind": padded(by_kind, MAX_PUSHABLE, where, "shovable sprites"),
        "bombs": padded(bombs, MAX_BOMBS, where, "bombs"),
        "blasts": padded(blasts, MAX_BOMBS, where, "bombs", [-1] * BLAST_FRAMES),
        "targets": padded(targets, MAX_TARGETS, where, "target frames"),
        "targets_hold_blocks": padded(
            [BLOCK_FRAME in sprites[t].tags for t in targets],
            MAX_TARGETS,
            where,
            "target frames",
            False,
        ),
        "collider": collider,
    }
    return Level(tuple(sprites), declared.grid_size, memory, declared.name)


GRID_CORNER, GRID = -48, 160  # the world cells the solid grids cover, from (-48, -48)


def _solid_cells(sprites, tag: str) -> np.ndarray:
    """``[GRID, GRID]``: the world cells where a sprite with ``tag`` (walls, gulches:
    they never move or change) has a pixel that collides (any but -1)."""
    grid = np.zeros((GRID, GRID), bool)
    for sprite in sprites:
        if tag not in sprite.tags:
            continue
        solid = np.asarray(sprite.pixels) != rules.TRANSPARENT
        height, width = solid.shape
        top, left = sprite.y - GRID_CORNER, sprite.x - GRID_CORNER
        drawn_as_is = sprite.rotation % 360 == 0 and sprite.scale == 1
        drawn_as_is = drawn_as_is and not (sprite.mirror_ud or sprite.mirror_lr)
        fits = top >= 0 and left >= 0 and top + height <= GRID and left + width <= GRID
        if not (drawn_as_is and fits and sprite.collidable):
            raise ValueError(f"ka59: {sprite.kind!r} does not fit the port's grid of {tag}")
        grid[top : top + height, left : left + width] |= solid
    return grid


SHAPE_BOXES = 2  # a shovable sprite's solid cells are a box, or a cross of two


def _shape_boxes(sprites) -> np.ndarray:
    """``[NUM_SLOTS, SHAPE_BOXES, 4]``: each shovable sprite's solid cells as boxes from
    its corner (``rules.solid_boxes``: they change colour, never shape), empty for the
    others, which the rule never tests so."""
    boxes = np.zeros((NUM_SLOTS, SHAPE_BOXES, 4), np.int32)
    for slot in _tagged_slots(sprites, BLOCK, STONE, BOMB):
        sprite = sprites[slot]
        if not (sprite.collidable and sprite.blocking == rules.Blocking.PIXEL_PERFECT):
            raise ValueError(f"ka59: {sprite.kind!r} does not collide pixel by pixel")
        boxes[slot] = rules.solid_boxes(sprite, SHAPE_BOXES)
    return boxes


WALL_CELLS = np.stack([_solid_cells(sprites, WALL) for sprites in LEVEL_SPRITES])
GULCH_CELLS = np.stack([_solid_cells(sprites, GULCH) for sprites in LEVEL_SPRITES])
LEVELS = tuple(_level(n) for n in range(len(DATA.levels)))
NUM_SLOTS = max(len(level.sprites) for level in LEVELS)
SHAPES = np.stack([_shape_boxes(level.sprites) for level in LEVELS])
# A bomb's shove by its turn (0, 90, 180, 270 degrees): down, left, up, right.
HEADINGS = np.array([(0, STEP), (-STEP, 0), (0, -STEP), (STEP, 0)], np.int32)


# Winning runs found by a beam search over the rules (tests/tools/solve_ka59.py) and
# checked on the official file (the recorded trace's last episode).
SOLUTIONS = (
    (4, 4, 4, 3, 2, 3, 3, 3, (6, 43, 31), 1, 4),
    ((6, 37, 55), 1, 4, 4, 4, 4, 1, 3, 2, 4, (6, 18, 48), 2, 3, 1, 1, 1, 3, 3, (6, 13, 21),
     1, 1, 1, 3, (6, 42, 34), 2, 2, 4, 4, 4, 4, 4),
    (2, 4, 4, 4, 4, 2, 3, 2, 2, 3, 3, 3, 3, 3, 3, 2, 2, 3, 3, 3, 3, 3, 3, 3, 2, 4, 1, 1, 4,
     4, 4, 4, 4),
    (4, 4, 4, 2, (6, 30, 48), 3, 3, 3, 2, 4, 2, 4, 4, 4, 4, 2, 4, 1, 1, 4, (6, 30, 30), 4,
     2, 2, 4, 1, 1, 1, 4, 1, 1, 1, 2, 2, 4, 4, 4, 4),
    (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 4, 4, 4, 2),
    (1, 3, 3, 1, 1, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 3, 3, 1, 3, 3, 3, 3, 3, 1, 4, 4, 4, 4,
     4, 2, 2, 2, 4, 1, 4, 4, 4, 4, 4, 4, 4, 1, 1, 4),
    (3, 3, 3, 3, 3, (6, 36, 52), 1, 1, 1, (6, 40, 45), 3, 2, 3, 3, 3, 3, 1, (6, 27, 28), 2,
     3, 3, 3, 3, 1, 1, 1, 3, 3, 3, 3, 3, 3, 1, 1, 4, 4, 4, 1, 1, 4, 2, 2, 2, 3, 3, 3, 3, 2,
     2, 2, 4, 4, 4, 4, 2, 4, 4, 2, 2, 4, 4, 4, 4, 1, 1),
)  # fmt: skip


def kinds_tagged(*tags) -> tuple[str, ...]:
    """The kinds of the levels' and the catalogue's sprites with any of ``tags``."""
    sprites = [s for level in LEVEL_SPRITES for s in level] + list(DATA.catalogue.values())
    return tuple(sorted({s.kind for s in sprites if set(tags) & set(s.tags)}))
