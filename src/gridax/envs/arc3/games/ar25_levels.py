"""ar25's levels (games/ar25.py): the official levels with the port's own sprites (the
blink marker, each piece's three reflections) and starting memory, and what the rule
reads of them as constants: the pieces as row bitmasks in their four placements, the
targets' cells, and how long the moving sprites' list must be."""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules

DATA = rules.official.load("ar25")
PIECE, MIRROR, FIXED = "gljpmsnsnx", "edyhkfhkcf", "pwbzvhvyzx"
UPRIGHT, LEVEL, TARGET = "zxikvwjsyl", "ezdsyuixsn", "vrfjzqaker"
UNPORTED_TAGS = ("xnpsicjqxc", "dmfgetmeus", "fmxjsieygg", "reflect_horizontal_only", "border")
IMAGE = "image"  # the port's own kind: a piece's reflection
KINDS = (*DATA.kinds, IMAGE)
BOARD = 21
PIECES = 2  # the most pieces a level has
REFLECTED, IMAGE_LAYER = 4, -1  # a reflection's colour; under the pieces (layer 0)
BLINK_KEY, BLINK_FRAMES, BLINK_LEVEL, BLINK_BELOW = "sllpppnezc", 8, 1, 50
OFF_BOARD_X = 500  # where the original parks the blink marker
MAX_MOVES = max(level.data["StepCounter"] for level in DATA.levels)  # the undo stack's depth


def _has(sprite, tag: str) -> bool:
    return tag in sprite.tags


def _image_sprites(piece) -> list:
    """The three reflections of ``piece`` (across the upright mirror, the level one,
    both): its pixels in the reflection's colour, mirrored."""
    pixels = np.asarray(piece.pixels)
    recoloured = tuple(map(tuple, np.where(pixels >= 0, REFLECTED, pixels).tolist()))
    image = rules.Sprite(recoloured, IMAGE, layer=IMAGE_LAYER, collidable=False)
    return [
        dataclasses.replace(image, mirror_lr=lr, mirror_ud=ud)
        for lr, ud in ((True, False), (False, True), (True, True))
    ]


def _level(number: int):
    """Level ``number``'s sprites (the original's, the blink marker, the pieces'
    reflections) and starting memory."""
    where = f"ar25, level {number}"
    level = DATA.levels[number]
    if level.grid_size != (BOARD, BOARD):
        raise ValueError(f"{where}: the board is {level.grid_size}; the port draws {BOARD}x{BOARD}")
    sprites = list(level.sprites)
    unported = sorted({t for s in sprites for t in s.tags if t in UNPORTED_TAGS})
    if unported:
        raise ValueError(f"{where}: sprites tagged {unported}, which the port does not play")
    pieces = [slot for slot, s in enumerate(sprites) if _has(s, PIECE)]
    mirrors = [slot for slot, s in enumerate(sprites) if _has(s, MIRROR)]
    if len(pieces) > PIECES or any(_has(sprites[slot], FIXED) for slot in pieces):
        raise ValueError(f"{where}: the port plays at most {PIECES} pieces, none fixed")
    upright = next((slot for slot in mirrors if _has(sprites[slot], UPRIGHT)), -1)
    level_mirror = next((slot for slot in mirrors if _has(sprites[slot], LEVEL)), -1)
    if len(mirrors) != (upright >= 0) + (level_mirror >= 0):
        raise ValueError(f"{where}: the port plays one mirror of each way at most")
    for slot in mirrors:  # the dots take a mirror for a line of cells
        if min(np.shape(sprites[slot].pixels)) != 1 or np.min(sprites[slot].pixels) < 0:
            raise ValueError(f"{where}: mirror {sprites[slot].kind!r} is not a solid line")
    # ACTION5's cycle: the mirrors that are not fixed, then the pieces.
    cycle = [slot for slot in mirrors if not _has(sprites[slot], FIXED)] + pieces
    blink = len(sprites)
    sprites.append(dataclasses.replace(DATA.catalogue[BLINK_KEY], x=OFF_BOARD_X))
    images = np.full((PIECES, 3), -1)
    reflects = (upright >= 0, level_mirror >= 0, upright >= 0 and level_mirror >= 0)
    for index, slot in enumerate(pieces):
        reflections = zip(_image_sprites(sprites[slot]), reflects, strict=True)
        for way, (image, shown) in enumerate(reflections):
            if shown:
                images[index, way] = len(sprites)
                sprites.append(image)
    memory = {
        "budget": level.data["StepCounter"],
        "steps": level.data["StepCounter"],
        "pieces": rules.official.padded(pieces, PIECES, where, "pieces"),
        "mirrors": (upright, level_mirror),
        "fixed": tuple(m >= 0 and _has(sprites[m], FIXED) for m in (upright, level_mirror)),
        "cycle": rules.official.padded(cycle, PIECES + 2, where, "pieces and mirrors"),
        "cycle_length": len(cycle),
        "selected": cycle[0],
        "images": images.tolist(),
        "blink_slot": blink,
    }
    return rules.Level(tuple(sprites), level.grid_size, memory, level.name)


LEVELS = tuple(_level(number) for number in range(len(DATA.levels)))


def _row_bits(grid) -> list[int]:
    """Each row of a boolean grid as an integer, bit ``c`` for column ``c``."""
    return [int(sum(1 << c for c in np.flatnonzero(row))) for row in np.asarray(grid)]


def _masks(number: int) -> np.ndarray:
    """``[PIECES, 4, MASK_ROWS]``: level ``number``'s pieces as row bits, as placed
    themselves, across the upright mirror, the level one and both (all zero where the
    level has no such mirror or piece): what covers the board is these, shifted."""
    memory = dict(LEVELS[number].memory)
    upright, level_mirror = np.asarray(memory["mirrors"]) >= 0
    masks = np.zeros((PIECES, 4, MASK_ROWS), np.uint32)
    for index, slot in enumerate(s for s in np.asarray(memory["pieces"]) if s >= 0):
        opaque = np.asarray(LEVELS[number].sprites[slot].pixels) >= 0
        variants = (opaque, opaque[:, ::-1], opaque[::-1], opaque[::-1, ::-1])
        shown = (True, upright, level_mirror, upright and level_mirror)
        for way, grid in enumerate(variants):
            if shown[way]:
                masks[index, way, : len(grid)] = _row_bits(grid)
    return masks


MASK_ROWS = max(
    max(np.shape(s.pixels)) for level in DATA.levels for s in level.sprites if _has(s, PIECE)
)
MASKS = np.stack([_masks(number) for number in range(len(LEVELS))])
# Where each level's targets lie, as row bits ([L, 21]; targets never move).
TARGETS = np.zeros((len(LEVELS), BOARD, BOARD), bool)
for _number, _level_data in enumerate(DATA.levels):
    for _sprite in _level_data.sprites:
        if _sprite.kind == TARGET:
            TARGETS[_number, _sprite.y, _sprite.x] = True
TARGET_ROWS = np.asarray([_row_bits(grid) for grid in TARGETS], np.uint32)
ON_BOARD = (1 << BOARD) - 1


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
PIECE_KINDS = sorted({s.kind for level in DATA.levels for s in level.sprites if _has(s, PIECE)})
MOVING_KINDS = (*PIECE_KINDS, UPRIGHT, LEVEL, BLINK_KEY, IMAGE)


def _moving_runs(number: int) -> int:
    """The most list entries level ``number``'s moving sprites take
    (:func:`rules.box_runs`): no sprite changes its size, and the blink marker comes
    onto the board only on the hint's level."""
    return sum(
        rules.box_runs(min(np.shape(s.pixels)[0], BOARD), min(np.shape(s.pixels)[1], BOARD))
        for s in LEVELS[number].sprites
        if s.kind in MOVING_KINDS and (s.kind != BLINK_KEY or number == BLINK_LEVEL)
    )


# The moving sprites' list no longer than they can fill (the engine's default is a
# quarter more than the levels start with, and the list is most of a frame's work).
MOVING_RUNS = max(_moving_runs(number) for number in range(len(LEVELS)))
