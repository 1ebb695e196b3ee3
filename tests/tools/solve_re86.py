"""Finds re86's winning runs (``games/re86_levels.py``'s SOLUTIONS).

Levels 1-4: a beam search over gridax's own game (``tools.search.shortest_solution``), ACTION1-5
from every state. States are told apart by the shapes' places and pixels (the steps
left are left out). Each depth keeps the ``WIDTH`` states nearest done: over the
target's cells not yet shown in their colour, the cells from each to the nearest pixel
of that colour of any shape, or the way from a shape's hub to a pot of that colour
and on from the pot to the cell. The run found is played again on the game
from the end of the level before, and must complete its level; the game is exact, so
the runs hold on the official file (the recorded trace's last episode checks them).

Levels 5-8 (pots to reach in the right order, walls that squash frames and slide
crosses' bars): a plan made by hand, which shape shows which of the target's cells
(``PLANS``; the cells' layout tells which shape fits them, and how it must be squashed
or its bars slid); for each step of it, the shape selected (ACTION5) and a breadth-first
search over its moves (``shortest_solution`` with ``done``) until it shows its cells
in their colours and the cells of the steps before still show theirs.

    python tests/tools/solve_re86.py [LEVEL ...]
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import re86
from gridax.envs.arc3.tools.search import shortest_solution

GAME = re86.GAME
MAX_DEPTH = 400
WIDTH = 2048
BATCH = 2048
RANK_CHUNK = 1024
UNSHOWN = 10  # what a cell not yet shown adds beside its distance
FAR = 1000


def _keys(states) -> list[bytes]:
    """The shapes' places and pixels."""
    count = len(states.status)
    shapes = np.maximum(np.asarray(states.memory["shapes"]), 0)
    rows = np.arange(count)[:, None]
    table = states.table
    parts = [np.asarray(table.x)[rows, shapes], np.asarray(table.y)[rows, shapes]]
    parts.append(np.asarray(table.pixels)[rows, shapes])
    flat = np.concatenate([p.astype(np.int8).reshape(count, -1) for p in parts], axis=1)
    return [row.tobytes() for row in flat]


@jax.jit
def _distances(x, y, grids, listed, goal, pot_x, pot_y, pot_colours):
    """One state's rank (see the module's docstring): ``x, y`` ``[S]``, ``grids``
    ``[S, H, W]``, ``goal`` ``[K, 3]``, the pots' centres and colours ``[P]``."""
    rows = jnp.arange(grids.shape[1])[:, None]
    cols = jnp.arange(grids.shape[2])[None, :]
    drawn = (grids != re86.TRANSPARENT) & listed[:, None, None]
    heights = jnp.sum(jnp.any(drawn, axis=2), axis=1)
    widths = jnp.sum(jnp.any(drawn, axis=1), axis=1)
    hub_x, hub_y = x + widths // 2, y + heights // 2

    def cell_cost(cell):
        gx, gy, colour = cell[0], cell[1], cell[2]
        away = jnp.abs(x[:, None, None] + cols - gx) + jnp.abs(y[:, None, None] + rows - gy)
        coloured = jnp.min(jnp.where(drawn & (grids == colour), away, FAR), axis=(1, 2))
        # Through a pot of the colour: the hub to the pot, then the pot to the cell.
        via_pot = jnp.abs(hub_x[:, None] - pot_x) + jnp.abs(hub_y[:, None] - pot_y)
        via_pot += jnp.abs(pot_x - gx) + jnp.abs(pot_y - gy)
        via_pot = jnp.min(jnp.where(pot_colours == colour, via_pot, FAR), axis=1)
        cost = jnp.min(jnp.minimum(coloured, via_pot))
        at_cell = drawn & (away == 0)
        covered = jnp.any(at_cell, axis=(1, 2))
        value = jnp.max(jnp.where(at_cell, grids, -1), axis=(1, 2))
        last = len(x) - 1 - jnp.argmax(covered[::-1])  # the shape drawn on top there
        done = jnp.any(covered) & (value[last] == colour)
        return jnp.where((colour < 0) | done, 0, cost + UNSHOWN)

    return jnp.sum(jax.vmap(cell_cost)(goal))


def _rank(states) -> np.ndarray:
    m, table = states.memory, states.table
    count = len(states.status)
    rows = np.arange(count)[:, None]
    shapes = np.maximum(np.asarray(m["shapes"]), 0)
    pots = np.maximum(np.asarray(m["pots"]), 0)
    pot_x = np.asarray(table.x)[rows, pots] + np.asarray(table.width)[rows, pots] // 2
    pot_y = np.asarray(table.y)[rows, pots] + np.asarray(table.height)[rows, pots] // 2
    colours = np.where(np.asarray(m["pots"]) >= 0, np.asarray(m["pot_colours"]), -1)
    args = (
        np.asarray(table.x)[rows, shapes],
        np.asarray(table.y)[rows, shapes],
        np.asarray(table.pixels)[rows, shapes],
        np.asarray(m["shapes"]) >= 0,
        np.asarray(m["goal"]),
        pot_x,
        pot_y,
        colours,
    )
    ranks = []
    for start in range(0, count, RANK_CHUNK):
        chunk = [a[start : start + RANK_CHUNK] for a in args]
        ranks.append(np.asarray(jax.vmap(_distances)(*chunk)))
    return np.concatenate(ranks)


# Per level from 5 (0-based), each step's shape (its index in the level's list of
# shapes) and the target's cells it is to show (indices into the level's goal).
PLANS = {
    4: [(1, (0, 1)), (2, (6, 7, 8, 9)), (0, (2, 3, 4, 5))],
    5: [(0, (4, 5, 6, 7)), (1, (0, 1, 2, 3))],
    6: [(0, (0, 1, 2, 5)), (1, (6, 7, 8)), (2, (3, 4))],
    7: [(0, (0, 1, 6, 7)), (1, (2, 3, 4, 5))],
}
MOVES = [(a, 0, 0) for a in (1, 2, 3, 4)]


def _shown(states, cells) -> np.ndarray:
    """Per state, whether the target's ``cells`` (goal indices) show their colours (the
    shapes painted in list order)."""
    m, table = states.memory, states.table
    count = len(states.status)
    rows = np.arange(count)[:, None]
    goal = np.asarray(m["goal"])[:, list(cells)]  # [B, k, 3]
    shapes = np.asarray(m["shapes"])
    picture = np.full(goal.shape[:2], -1)
    pixels = np.asarray(table.pixels)
    for i in range(shapes.shape[1]):
        slot = np.maximum(shapes[:, i], 0)[:, None]
        col = goal[:, :, 0] - np.asarray(table.x)[rows, slot]
        row = goal[:, :, 1] - np.asarray(table.y)[rows, slot]
        inside = (col >= 0) & (row >= 0) & (row < pixels.shape[2]) & (col < pixels.shape[3])
        pixel = pixels[
            rows, slot, np.clip(row, 0, pixels.shape[2] - 1), np.clip(col, 0, pixels.shape[3] - 1)
        ]
        drawn = inside & (pixel != re86.TRANSPARENT) & (shapes[:, i] >= 0)[:, None]
        picture = np.where(drawn, pixel, picture)
    return np.all(picture == goal[:, :, 2], axis=1)


def _selected(state) -> int:
    shapes = np.maximum(np.asarray(state.memory["shapes"]), 0)
    t = state.table
    hubs = [int(t.pixels[s, int(t.height[s]) // 2, int(t.width[s]) // 2]) for s in shapes]
    return hubs.index(re86.SELECTED)


def plan_level(state, plan) -> list[tuple[int, int, int]]:
    """The moves of each step of ``plan`` in turn (see the module's docstring)."""
    run, shown = [], ()
    for shape, cells in plan:
        while _selected(state) != shape:
            state, _, _ = env.step(state, Action(5), GAME)
            run.append((5, 0, 0))
        shown += cells

        def goal(states, cells=shown, score=int(state.score)):
            # the last step completes the level: its state is the next level's
            return _shown(states, cells) | (np.asarray(states.score) > score)

        moves = shortest_solution(GAME, state, MOVES, MAX_DEPTH, batch=BATCH, keys=_keys, done=goal)
        for triple in moves:
            state, _, _ = env.step(state, Action(*triple), GAME)
        run += moves
    return run


def solve_level(state) -> list[tuple[int, int, int]]:
    number = int(state.level)
    if number in PLANS:
        return plan_level(state, PLANS[number])
    actions = [(a, 0, 0) for a in GAME.available_actions]
    return shortest_solution(
        GAME, state, actions, MAX_DEPTH, batch=BATCH, rank=_rank, width=WIDTH, keys=_keys
    )


def main(levels: list[int]) -> None:
    state, _ = env.reset(GAME)
    for number in range(max(levels) + 1):
        if number in levels:
            run = solve_level(state)
            print(f"level {number + 1}: {len(run)} actions: {[a for a, _, _ in run]}", flush=True)
        else:
            run = [(a, 0, 0) for a in GAME.solutions[number]]
        for triple in run:
            state, _, _ = env.step(state, Action(*triple), GAME)
        assert int(state.score) == number + 1, f"level {number + 1}: the run does not complete it"


if __name__ == "__main__":
    main([int(a) - 1 for a in sys.argv[1:]] or list(range(len(GAME.levels))))
