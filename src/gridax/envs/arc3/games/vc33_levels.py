"""vc33's levels (``vc33.py`` has the game): ARC Prize's sprites, then a reserved
bracket per valve, and the static sizes they set."""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

OFFICIAL = rules.official.load("vc33")
TAGS = OFFICIAL.tags


def bracket_for(valve: rules.Sprite) -> rules.Sprite:
    """The bracket drawn beside an open valve: ``KEA`` for a valve 3 pixels wide (before
    rotation), else ``HPB``; turned as the valve, 2 cells before it."""
    width = len(valve.pixels[0])
    template = OFFICIAL.catalogue["KEA" if width == 3 else "HPB"]
    sideways = valve.rotation % 180 == 90
    x, y = (valve.x, valve.y - 2) if sideways else (valve.x - 2, valve.y)
    return dataclasses.replace(template, x=x, y=y, rotation=valve.rotation)


def colour_fits(sprites) -> np.ndarray:
    """``[N, N]``: float ``f``'s colour (its bottom-right pixel) is among mark ``t``'s."""
    fits = np.zeros((NUM_SLOTS, NUM_SLOTS), bool)
    for f, float_ in enumerate(sprites):
        for t, mark in enumerate(sprites):
            if "HQB" in float_.tags and "fZK" in mark.tags:
                fits[f, t] = float_.pixels[-1][-1] in np.asarray(mark.pixels)
    return fits


def level_of(number: int) -> Level:
    level = OFFICIAL.levels[number]
    valves = [s for s in level.sprites if "zHk" in s.tags]
    sprites = (*level.sprites, *map(bracket_for, valves))
    brackets = np.full(NUM_SLOTS, -1, np.int32)
    for rank, slot in enumerate(i for i, s in enumerate(sprites) if "zHk" in s.tags):
        brackets[slot] = len(level.sprites) + rank
    budget = level.data["RoA"]
    memory = {
        "moves_left": budget,
        "moves": budget,
        "flow": tuple(level.data["TiD"]),
        "bracket_of": tuple(brackets.tolist()),
        "fits": tuple(map(tuple, colour_fits(sprites).tolist())),
    }
    return Level(sprites, grid_size=level.grid_size, memory=memory, name=level.name)


COUNTS = [{t: sum(t in s.tags for s in lv.sprites) for t in TAGS} for lv in OFFICIAL.levels]
NUM_SLOTS = max(len(lv.sprites) + n["zHk"] for lv, n in zip(OFFICIAL.levels, COUNTS, strict=True))
QUEUE = 2 + max(n["HQB"] for n in COUNTS)  # the valve out, every float, the valve back
MARKS = [s for lv in OFFICIAL.levels for s in lv.sprites if "fZK" in s.tags]
MARK_SIZE = max(max(s.drawn_shape) for s in MARKS)  # bounds the collision test
MAX_MARKS = max(n["fZK"] for n in COUNTS)
