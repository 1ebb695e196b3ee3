"""wa30's levels: ARC Prize's level data (``rules.official.load("wa30")``) with its
screen-wide walls cut into pieces of at most 16x16 pixels (only the first blocks, as the
original keeps one cell of each), and the memory the rule starts from: the moves, which
slots block, the helpers' and thieves' slots in list order (``games/wa30.py`` describes
the game).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

DATA = rules.official.load("wa30")
PIXELS = 16  # the largest sprite piece (the zones are at most 16x16)


def _pieces(sprite: rules.Sprite) -> list:
    """A sprite as pieces of at most ``PIXELS`` squared pixels, in reading order."""
    pixels = np.asarray(sprite.pixels)
    height, width = pixels.shape
    return [
        dataclasses.replace(
            sprite,
            pixels=tuple(map(tuple, pixels[y : y + PIXELS, x : x + PIXELS].tolist())),
            x=sprite.x + x,
            y=sprite.y + y,
        )
        for y in range(0, height, PIXELS)
        for x in range(0, width, PIXELS)
    ]


def _level(number: int) -> Level:
    declared = DATA.levels[number]
    sprites, blocks = [], []
    for sprite in declared.sprites:
        pieces = _pieces(sprite)
        sprites += pieces
        blocks += [sprite.collidable] + [False] * (len(pieces) - 1)

    def slots_of(tag: str, count: int) -> list:
        found = [i for i, s in enumerate(sprites) if tag in s.tags]
        return found + [-1] * (count - len(found))

    memory = {
        "moves": declared.data["StepCounter"],
        "moves_left": declared.data["StepCounter"],
        "blocks": blocks + [False] * (NUM_SLOTS - len(blocks)),
        "helpers": slots_of("kdweefinfi", MAX_HELPERS),
        "thieves": slots_of("ysysltqlke", MAX_THIEVES),
    }
    return Level(tuple(sprites), declared.grid_size, memory, declared.name)


def _count(tag: str) -> int:
    return max(sum(tag in s.tags for s in level.sprites) for level in DATA.levels)


NUM_SLOTS = max(sum(len(_pieces(s)) for s in level.sprites) for level in DATA.levels)
MAX_HELPERS, MAX_THIEVES = _count("kdweefinfi"), _count("ysysltqlke")
LEVELS = tuple(_level(n) for n in range(len(DATA.levels)))

# The world's pixels a side (16 cells of 4), and the zones' tags: goals, dens.
WORLD = 64
ZONE_TAGS = ("fsjjayjoeg", "zqxwgacnue")


def zone_map(level: Level, tag: str) -> np.ndarray:
    """``[WORLD, WORLD]`` (y, x): the world's pixels inside the box of a sprite with
    ``tag``: zones are static kinds, which the recorded traces hold unchanged."""
    inside = np.zeros((WORLD, WORLD), bool)
    for sprite in (s for s in level.sprites if tag in s.tags):
        height, width = np.shape(sprite.pixels)
        if sprite.rotation or sprite.scale != 1 or min(sprite.x, sprite.y) < 0:
            raise ValueError(f"wa30 level {level.name}: a zone turned, scaled or off the world")
        if max(sprite.x + width, sprite.y + height) > WORLD:
            raise ValueError(f"wa30 level {level.name}: a zone off the world")
        inside[sprite.y : sprite.y + height, sprite.x : sprite.x + width] = True
    return inside


# [level, goals or dens, y, x]
ZONES = np.stack([np.stack([zone_map(level, tag) for tag in ZONE_TAGS]) for level in LEVELS])
