"""r11l's levels: ARC Prize's level data (``rules.official.load("r11l")``) laid out in
the port's slots, with what the original's ``on_set_level`` works out from the sprites'
names, computed once in plain Python (``games/r11l.py`` describes the game).

A sprite's name is a prefix and a *group*: ``bdkaz-G`` is group G's body, ``bdkazLeg-G``
its legs, ``kzeze-G`` its target. A group may lack a body (its target is then matched by
a painted body) or a target.

The slots: the level's sprites in their order, then an overlay per target (shown when
its target is covered) and the hazard flash, both out of the level when it starts.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

_padded = rules.official.padded
DATA = rules.official.load("r11l")
BODY, LEG, TARGET, WALL, HAZARD, PICKUP = (
    "bdkaz-",
    "bdkazLeg-",
    "kzeze-",
    "bvzgd-",
    "qtwnv-",
    "xigcb-",
)
PAINTED = "bdkaz-yukft"  # bodies painted by the pickups they touch
DECOY = "anqcf"  # a group whose target does not count for the win
OVERLAY, FLASH = "mpjrv-kzeze", "mpjrv-bdkaz"
MAX_LEGS, MAX_BODIES, MAX_TARGETS, MAX_PICKUPS = 8, 3, 4, 10
MAX_WALLS, MAX_HAZARDS = 2, 2  # the levels have one of each at most


def _kinds_named(prefix: str) -> np.ndarray:
    """``[kinds]``: which sprite kinds have names starting with ``prefix``."""
    return np.array([kind.startswith(prefix) for kind in DATA.kinds])


IS_LEG, IS_WALL, IS_HAZARD = (_kinds_named(p) for p in (LEG, WALL, HAZARD))


def _colours(sprite) -> int:
    """The colours above 0 a sprite shows, as a bit mask (bit ``c`` for colour ``c``)."""
    return sum(1 << c for c in {int(c) for row in sprite.pixels for c in row if c > 0})


def _check_paint(sprites, painted: list[int], pickups: list[int], where: str) -> None:
    """A pickup paints only cells its body already has: the port finds every pickup a
    body touches before painting it, which holds only while painting leaves the body's
    shape (and so its contacts) as it was."""
    for b in painted:
        body = np.asarray(sprites[b].pixels)
        for p in pickups:
            colours = np.asarray(sprites[p].pixels)
            if colours.shape != body.shape:
                raise ValueError(f"{where}: pickup {sprites[p].kind} is not its body's shape")
            if ((colours > 0) & (body == rules.TRANSPARENT)).any():
                raise ValueError(f"{where}: pickup {sprites[p].kind} paints outside its body")


def level_of(level, number: int) -> Level:
    """Official level ``level`` (the game's ``number``-th) in the port's slots, with its
    groups as memory."""
    where = f"r11l level {number + 1}"
    sprites = list(level.sprites)
    first_slot = {}
    for slot, sprite in enumerate(sprites):
        first_slot.setdefault(sprite.kind, slot)  # arcengine's get_sprites_by_name(...)[0]
    legs = [s for s, sprite in enumerate(sprites) if sprite.kind.startswith(LEG)]
    # The order clicks look for a leg in: by distance from the origin at the start.
    distance = {s: sprites[s].x ** 2 + sprites[s].y ** 2 for s in legs}
    if len(set(distance.values())) < len(legs):
        raise ValueError(f"{where}: two legs equally far from the origin; their order is unknown")
    legs.sort(key=lambda slot: distance[slot])
    leg_body = [first_slot.get(BODY + sprites[s].kind.removeprefix(LEG), -1) for s in legs]
    if -1 in leg_body:
        raise ValueError(f"{where}: a leg without a body")
    bodies = sorted(set(leg_body))
    targets = [s for s, sprite in enumerate(sprites) if sprite.kind.startswith(TARGET)]
    overlays = [
        dataclasses.replace(DATA.catalogue[OVERLAY], x=sprites[t].x, y=sprites[t].y)
        for t in targets
    ]
    flash_slot = len(sprites) + len(overlays)
    pickups = [s for s, sprite in enumerate(sprites) if sprite.kind.startswith(PICKUP)]
    walls, hazards = (
        [s for s, sprite in enumerate(sprites) if is_kind[DATA.kinds.index(sprite.kind)]]
        for is_kind in (IS_WALL, IS_HAZARD)
    )
    _check_paint(
        sprites, [b for b in bodies if sprites[b].kind.startswith(PAINTED)], pickups, where
    )
    groups = [sprites[t].kind.removeprefix(TARGET) for t in targets]
    memory = {
        "legs": _padded(legs, MAX_LEGS, where, "legs"),
        "leg_body": _padded(leg_body, MAX_LEGS, where, "legs"),
        "bodies": _padded(bodies, MAX_BODIES, where, "bodies"),
        "painted": _padded(
            [sprites[b].kind.startswith(PAINTED) for b in bodies],
            MAX_BODIES,
            where,
            "bodies",
            False,
        ),
        "targets": _padded(targets, MAX_TARGETS, where, "targets"),
        "target_body": _padded(
            [first_slot.get(BODY + g, -1) for g in groups], MAX_TARGETS, where, "targets"
        ),
        "scored": _padded([DECOY not in g for g in groups], MAX_TARGETS, where, "targets", False),
        "target_colours": _padded(
            [_colours(sprites[t]) for t in targets], MAX_TARGETS, where, "targets"
        ),
        "overlays": _padded(list(range(len(sprites), flash_slot)), MAX_TARGETS, where, "targets"),
        "flash": flash_slot,
        "pickups": _padded(pickups, MAX_PICKUPS, where, "pickups"),
        # What a leg's step is tested against: collisions with these alone, not every slot.
        "walls": _padded(walls, MAX_WALLS, where, "walls"),
        "hazards": _padded(hazards, MAX_HAZARDS, where, "hazards"),
    }
    flash = DATA.catalogue[FLASH]
    return Level(
        (*sprites, *overlays, flash), grid_size=level.grid_size, memory=memory, name=level.name
    )


LEVELS = tuple(level_of(level, n) for n, level in enumerate(DATA.levels))
NUM_SLOTS = max(len(level.sprites) for level in LEVELS)
PIXEL_SIZE = max(max(s.drawn_shape) for level in LEVELS for s in level.sprites)
