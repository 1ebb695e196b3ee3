"""Finds cd82's winning runs (``games/cd82.py``'s SOLUTIONS) from the rules.

A pour or a squirt paints a fixed region of the canvas in one colour, over what was
there, so a picture is made by a sequence of (region, colour) strokes of which the last
one on each cell shows. Peeling finds such a sequence backwards: any stroke whose
region, less the cells later strokes already explain, shows only its colour in the
target may be the last of those left; take it and go on until every checked cell (off
both diagonals) is explained or is colour 0, the blank canvas's. Taking a stroke never
stops another from being taken later, so the greedy peel finds a sequence whenever one
exists. Each stroke is then played: the swatch clicked if the colour changes, the
basket walked to the stroke's place, and ACTION5 (a pour) or a click on the nozzle,
until the level is complete (which may come before the last stroke).

    python tests/tools/solve_cd82.py
"""

from __future__ import annotations

from collections import deque

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import WIN, Action
from gridax.envs.arc3.games import cd82


def strokes(level: int) -> list[tuple[str, int]]:
    """``(region, place)`` of every stroke the level offers: pours from the 8 places,
    squirts from the 4 even ones on levels with a nozzle."""
    offered = [("pour", place) for place in range(8)]
    if dict(cd82.LEVELS[level].memory)["has_nozzle"]:
        offered += [("squirt", place) for place in (0, 2, 4, 6)]
    return offered


def mask(region: str, place: int) -> np.ndarray:
    masks = cd82.POUR_MASKS if region == "pour" else cd82.SQUIRT_MASKS
    return masks[place][: cd82.SIZE, : cd82.SIZE]


def peel(target: np.ndarray, colours: list[int], offered) -> list[tuple[str, int, int]]:
    """The strokes ``(region, place, colour)`` in playing order that paint ``target``."""
    unexplained = cd82.CHECKED[: cd82.SIZE, : cd82.SIZE].copy()
    backwards = []
    while (unexplained & (target != 0)).any():  # blank cells may stay blank
        for region, place in offered:
            cells = mask(region, place) & unexplained
            shown = np.unique(target[cells])
            if len(shown) == 1 and shown[0] in colours:
                backwards.append((region, place, int(shown[0])))
                unexplained &= ~mask(region, place)
                break
        else:
            raise ValueError("no stroke paints what is left of the target")
    return backwards[::-1]


def walk(start: int, goal: int) -> list[int]:
    """The fewest ACTION1-4 that take the basket from place ``start`` to ``goal``."""
    paths = {start: []}
    queue = deque([start])
    while queue:
        place = queue.popleft()
        for a, to in enumerate(cd82.NEXT_PLACE[place]):
            if to not in paths:
                paths[to] = paths[place] + [a + 1]
                queue.append(to)
    return paths[goal]


def nozzle_pixel(place: int) -> tuple[int, int]:
    """A screen pixel of the nozzle at ``place`` (the camera shows cells 1:1)."""
    x, y = cd82.BASKET_XY[place] + cd82.NOZZLE_OFFSET[place]
    turns = cd82.NOZZLE_TURN[place] // 90
    pixels = np.rot90(np.asarray(cd82.DATA.catalogue[cd82.NOZZLE].pixels), -turns)
    drawn = np.argwhere(pixels >= 0)
    row, col = drawn[len(drawn) // 2]
    return int(x + col), int(y + row)


def solve(level: int) -> list:
    sprites = cd82.LEVELS[level].sprites
    target = next(np.asarray(s.pixels) for s in sprites if s.kind.startswith(cd82.TARGET_PREFIX))
    centre = cd82.SWATCH_CENTRE
    swatches = {  # by colour; reversed, so that the first swatch of a colour is kept
        int(np.asarray(s.pixels)[centre, centre]): (s.x + centre, s.y + centre)
        for s in reversed(sprites)
        if s.kind == cd82.SWATCH
    }
    plan = peel(target, list(swatches), strokes(level))
    actions, place, colour = [], 0, cd82.FILL
    for region, at, paint in plan:
        if paint != colour:
            actions.append((6, *swatches[paint]))
            colour = paint
        actions += walk(place, at)
        place = at
        actions.append(5 if region == "pour" else (6, *nozzle_pixel(at)))
    return actions


STEP = jax.jit(lambda state, action: env.step(state, action, cd82.GAME))


def played(level: int, actions: list) -> list:
    """The run up to the action that completes the level on gridax's game (exact: it
    holds on the official file); the canvas may match the target before the plan ends."""
    state, _ = env.reset(cd82.GAME, level)
    for t, action in enumerate(actions):
        triple = action if isinstance(action, tuple) else (action, 0, 0)
        state, _, info = STEP(state, Action(*triple))
        if int(info["level"]) > level or int(info["status"]) == WIN:
            return actions[: t + 1]
    raise AssertionError(f"level {level + 1} is not completed by {actions}")


if __name__ == "__main__":
    solutions = []
    for level in range(len(cd82.LEVELS)):
        actions = played(level, solve(level))
        solutions.append(tuple(actions))
        print(f"level {level + 1}: {len(actions)} actions", flush=True)
    print("SOLUTIONS = (")
    for actions in solutions:
        print(f"    {actions},")
    print(")  # fmt: skip")
