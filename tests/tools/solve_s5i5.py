"""Finds s5i5's winning runs (``games/s5i5.py``'s SOLUTIONS): a search (``arc3.search``)
over the clicks that can change anything, one on each half of every resize button and
one on every turn button, from each level's start: breadth-first, or with ``--width W``
a beam search that keeps the ``W`` states whose movers are nearest their goals (the sum
over goals of the nearest mover's distance, in steps around the walls).

    python tests/tools/solve_s5i5.py [--width W] [LEVEL ...]

Breadth-first search solves levels 0 and 1, the beam (width 256) levels 2-5 and 7.
Level 6 defeats it: its mover rides at the end of a chain of four arms (colours 11, 14,
9, 12) inside a box of walls, and must come out under the box, go left under the wall
that splits the floor (its gap is rows 39-41), and up through the gap at columns 6-8,
moving away from its goal for most of the way. Its run was planned by hand:

- shorten the colour-10 arm by two so that the colour-8 arm can turn up out of row 15,
  turn it twice, and grow the colour-10 arm back (its mover stays on its goal);
- shorten arms 14 and 9 to one block; turn arm 11 twice to point down, and arm 9 once to
  point left (arm 12, which has no turn button, is always a quarter clockwise of arm 9);
- grow arm 11 to 27 cells (its end at row 38), arm 14 to 42 (left under both walls);
- turn arm 9 up (twice: the second click turns it two quarters), grow it to 24 cells,
  through the gap; arm 12 then points right along row 15: grow it to 21 cells.
"""

from __future__ import annotations

import argparse
from collections import deque

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import env, rules
from gridax.envs.arc3.games import s5i5
from gridax.envs.arc3.tools import search

MARGIN, SIZE, FAR = 8, 80, 10_000  # the distance fields' window: world cells -8 to 71


def clicks(level: int) -> list[tuple[int, int, int]]:
    """One click on each half of every resize button, one on every turn button."""
    state, _ = env.reset(s5i5.GAME, level)
    table, found = state.table, []
    for slot, sprite in enumerate(s5i5.GAME.levels[level].sprites):
        x, y = int(table.x[slot]), int(table.y[slot])
        h, w = int(table.height[slot]), int(table.width[slot])
        middle_x, middle_y = x + w // 2, y + h // 2
        if "gdgcpukdrl" in sprite.tags:
            dx, dy = (1, 0) if w > h else (0, 1)
            found += [(rules.CLICK, middle_x - s * dx, middle_y - s * dy) for s in (1, -1)]
        elif "myzmclysbl" in sprite.tags:
            found.append((rules.CLICK, middle_x, middle_y))
    return found


def free_distances(level: int) -> np.ndarray:
    """``[goal, y, x]``: per goal of the level, the fewest one-cell steps a 3x3 mover
    with its top-left corner at world cell ``(x, y)`` (shifted by ``MARGIN``) needs to
    reach the goal's cell without touching a wall (``FAR`` where it cannot)."""
    state, _ = env.reset(s5i5.GAME, level)
    table = state.table
    walls = np.zeros((SIZE, SIZE), bool)
    for sprite in s5i5.GAME.levels[level].sprites:
        pixels = np.asarray(sprite.pixels)
        if "agujdcrunq" in sprite.tags and np.any(pixels == -1):
            ys, xs = np.nonzero(pixels != -1)
            walls[ys + sprite.y + MARGIN, xs + sprite.x + MARGIN] = True
    blocked = np.ones((SIZE, SIZE), bool)  # a 3x3 box at each corner overlaps a wall
    for y in range(SIZE - 2):
        for x in range(SIZE - 2):
            blocked[y, x] = walls[y : y + 3, x : x + 3].any()
    fields = []
    for slot in np.flatnonzero(np.asarray(rules.tagged(state, s5i5.GOAL))):
        field = np.full((SIZE, SIZE), FAR, np.int32)
        start = (int(table.y[slot]) + MARGIN, int(table.x[slot]) + MARGIN)
        field[start], queue = 0, deque([start])
        while queue:
            y, x = queue.popleft()
            for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                inside = 0 <= ny < SIZE and 0 <= nx < SIZE
                if inside and not blocked[ny, nx] and field[ny, nx] == FAR:
                    field[ny, nx] = field[y, x] + 1
                    queue.append((ny, nx))
        fields.append(field)
    return np.stack(fields)


def ranking(level: int):
    """A batch of states -> the sum over goals of the nearest mover's distance around
    the walls (:func:`free_distances`)."""
    fields = jnp.asarray(free_distances(level))

    @jax.jit
    @jax.vmap
    def rank(state):
        table = state.table
        movers = rules.tagged(state, s5i5.MOVER)
        y = jnp.clip(table.y + MARGIN, 0, SIZE - 1)
        x = jnp.clip(table.x + MARGIN, 0, SIZE - 1)
        apart = fields[:, y, x]  # [goal, slot]
        return jnp.sum(jnp.min(jnp.where(movers[None, :], apart, FAR), axis=1))

    return rank


def solve(level: int, width: int | None) -> list[tuple[int, int, int]]:
    state, _ = env.reset(s5i5.GAME, level)
    ignored = ("moves_left", "saved")
    rank = ranking(level) if width else None
    return search.shortest_solution(
        s5i5.GAME, state, clicks(level), 250, ignored, batch=1024, rank=rank, width=width or 0
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("levels", type=int, nargs="*")
    parser.add_argument("--width", type=int, help="beam width (default: breadth-first)")
    args = parser.parse_args()
    for level in args.levels or range(len(s5i5.GAME.levels)):
        print(level, solve(level, args.width), flush=True)
