"""Finds wa30's winning runs (``games/wa30.py``'s SOLUTIONS) by beam search over
gridax's own game (``arc3.search.shortest_solution`` with a ``rank``).

Each depth keeps the states closest to done by a simple measure: thieves left, boxes
not home, and how far the boxes not home are from a goal zone (breadth-first over the
level's walls), then how far the player is from the nearest work (a thief while there
is one, else a box not home). The helpers and thieves move by the game's own rules in
every state searched. The game is exact, so the runs hold on the official file (the
recorded trace's last episode checks them).

    python tests/tools/solve_wa30.py LEVEL [WIDTH]

At width 128 (the default) it finds levels 1, 7 and 8 (in 26, 45 and 119 actions, 2-5
minutes each on 2 cores); level 9 at width 256 after its opening (59 actions, 8
minutes); level 5 at width 512 (95 actions, 28 minutes, beside other work).
"""

from __future__ import annotations

import sys
from collections import deque

import numpy as np

from gridax.envs.arc3 import env, rules
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import wa30
from gridax.envs.arc3.tools import search

GAME = wa30.GAME
ACTIONS = [(a, 0, 0) for a in range(1, 6)]
FAR = 2 * wa30.GRID  # the distance of a cell no box can reach a goal zone from


def goal_distances(state) -> np.ndarray:
    """``[GRID, GRID]``: each cell's breadth-first distance to a goal zone's cell over the
    cells no wall stands on (the sprites that move do not count), ``FAR`` if none."""
    movers = rules.tagged(state, wa30.PLAYER) | rules.tagged(state, wa30.BOX)
    movers = movers | rules.tagged(state, wa30.HELPER) | rules.tagged(state, wa30.THIEF)
    walls = state.table.exists & state.memory["blocks"] & ~movers
    open_cells = ~np.asarray(wa30._grid_of(state, walls))
    goal = np.asarray(wa30._zone_grid(state, wa30.GOAL))
    distance = np.where(goal, 0, FAR)
    queue = deque(zip(*np.nonzero(goal), strict=True))
    while queue:
        row, column = queue.popleft()
        for dx, dy in wa30.NEIGHBOURS:
            r, c = row + dy, column + dx
            inside = 0 <= r < wa30.GRID and 0 <= c < wa30.GRID
            if inside and open_cells[r, c] and distance[r, c] > distance[row, column] + 1:
                distance[r, c] = distance[row, column] + 1
                queue.append((r, c))
    return distance


def make_rank(state):
    """A batch of states -> how far each is from done (lower is closer)."""
    distance, goal = goal_distances(state), np.asarray(wa30._zone_grid(state, wa30.GOAL))

    def rank(states) -> np.ndarray:
        table = states.table
        exists, tags = np.asarray(table.exists), np.asarray(table.tags)
        column = np.clip(np.asarray(table.x) // wa30.CELL, 0, wa30.GRID - 1)
        row = np.clip(np.asarray(table.y) // wa30.CELL, 0, wa30.GRID - 1)
        holds = np.asarray(states.memory["holds"])
        slots = np.arange(holds.shape[1])
        held = (holds[:, :, None] == slots[None, None, :]).any(axis=1)
        boxes, thieves = exists & tags[..., wa30.BOX], exists & tags[..., wa30.THIEF]
        away = boxes & ~(goal[row, column] & ~held)
        player = np.argmax(exists & tags[..., wa30.PLAYER], axis=1)
        here = np.arange(len(player))
        steps = np.abs(column - column[here, player][:, None])
        steps = steps + np.abs(row - row[here, player][:, None])
        empty_handed = holds[here, player] < 0
        nearest_box = np.where(away & ~held, steps, FAR).min(axis=1) * empty_handed
        nearest_thief = np.where(thieves, steps, FAR).min(axis=1)
        nearest = np.where(thieves.any(axis=1), nearest_thief, nearest_box)
        return (
            1000 * thieves.sum(axis=1)
            + 30 * away.sum(axis=1)
            + np.where(away, distance[row, column], 0).sum(axis=1)
            + nearest
        )

    return rank


# Level 9 (index 8): carry the three right-hand boxes first (two into the right goal
# zones, one over the no-go row to the helper above it), 25 actions planned by hand;
# the beam then finds the rest (the thief is still in its maze).
OPENINGS = {8: (4, 4, 4, 4, 1, 5, 4, 1, 5, 2, 2, 4, 1, 5, 1, 1, 5, 3, 3, 3, 1, 5, 1, 1, 5)}


def solve(level: int, width: int) -> list[int]:
    """A winning run of ``level`` (0-based) from its start."""
    state, _ = env.reset(GAME, level)
    opening = list(OPENINGS.get(level, ()))
    for action in opening:
        state, _, _ = env.step(state, Action(action, 0, 0), GAME)
    moves = dict(wa30.LEVELS[level].memory)["moves"] - len(opening)
    found = search.shortest_solution(
        GAME, state, ACTIONS, moves, ignored=("moves_left",), rank=make_rank(state), width=width
    )
    return opening + [a for a, _, _ in found]


if __name__ == "__main__":
    level, width = int(sys.argv[1]) - 1, int(sys.argv[2]) if len(sys.argv) > 2 else 128
    run = solve(level, width)
    print(f"level {level + 1}: {len(run)} actions\n{tuple(run)}")
