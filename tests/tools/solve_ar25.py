"""Finds ar25's winning runs (``games/ar25.py``'s SOLUTIONS).

A level is modelled here in plain Python from the port's level data: the pieces (their
opaque cells), the mirrors (which may move, along which axis) and the targets. Every
placement of the mirrors is tried; for each, every place of each piece is scored by the
targets it covers (its cells and their reflections, as bitmasks), and the cheapest
placement that covers them all is kept: the cost is the moves (one cell each) plus a
click to select each piece or mirror that moves after the first. The run selects and
moves each in turn, then is played on gridax's game, which must complete the level with
it (cut at the move that completes it, if one before the last does); the game is
exact, so the runs hold on the official file (the recorded trace's last episode checks
them).

    python tests/tools/solve_ar25.py [LEVEL ...]
"""

from __future__ import annotations

import itertools
import sys

import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import ar25
from gridax.envs.arc3.games import ar25_levels as lv
from gridax.envs.arc3.rules import CLICK

BOARD = lv.BOARD
UP, DOWN, LEFT, RIGHT = 1, 2, 3, 4


def _cells(sprite) -> np.ndarray:
    """``[K, 2]``: the (x, y) offsets of a sprite's opaque pixels."""
    rows, cols = np.nonzero(np.asarray(sprite.pixels) >= 0)
    return np.stack([cols, rows], axis=1)


def _target_bits(level: int) -> np.ndarray:
    """``[21, 21]``: each target cell's bit (0 elsewhere)."""
    bits = np.zeros((BOARD, BOARD), np.uint64)
    for bit, (y, x) in enumerate(np.argwhere(lv.TARGETS[level])):
        bits[y, x] = np.uint64(1) << np.uint64(bit)
    return bits


def _covered_bits(offsets, places, axis_x, axis_y, bits) -> np.ndarray:
    """``[P]``: the targets a piece covers at each of ``places`` (``[P, 2]``), with its
    reflections across ``x = axis_x`` and ``y = axis_y`` (None: no such mirror)."""
    x = places[:, None, 0] + offsets[None, :, 0]
    y = places[:, None, 1] + offsets[None, :, 1]
    images = [(x, y)]
    if axis_x is not None:
        images.append((2 * axis_x - x, y))
    if axis_y is not None:
        images.append((x, 2 * axis_y - y))
    if axis_x is not None and axis_y is not None:
        images.append((2 * axis_x - x, 2 * axis_y - y))
    covered = np.zeros(len(places), np.uint64)
    for ix, iy in images:
        inside = (ix >= 0) & (iy >= 0) & (ix < BOARD) & (iy < BOARD)
        hit = np.where(inside, bits[np.clip(iy, 0, BOARD - 1), np.clip(ix, 0, BOARD - 1)], 0)
        covered |= np.bitwise_or.reduce(hit.astype(np.uint64), axis=1)
    return covered


def _places(sprite) -> np.ndarray:
    height, width = np.shape(sprite.pixels)
    xs, ys = np.meshgrid(np.arange(BOARD - width + 1), np.arange(BOARD - height + 1))
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def plan(level: int):
    """The cheapest placement: ``{slot: (x, y)}`` for the pieces and mirrors that move."""
    data = lv.LEVELS[level]
    memory = dict(data.memory)
    sprites = data.sprites
    pieces = [slot for slot in memory["pieces"] if slot >= 0]
    upright, level_mirror = memory["mirrors"]
    fixed = memory["fixed"]
    bits = _target_bits(level)
    full = np.bitwise_or.reduce(bits.ravel())
    axes_x = [None] if upright < 0 else [sprites[upright].x] if fixed[0] else range(BOARD)
    axes_y = [None] if level_mirror < 0 else [sprites[level_mirror].y] if fixed[1] else range(BOARD)
    best = None
    for axis_x, axis_y in itertools.product(axes_x, axes_y):
        mirror_cost = (0 if axis_x is None else abs(axis_x - sprites[upright].x)) + (
            0 if axis_y is None else abs(axis_y - sprites[level_mirror].y)
        )
        covers, costs, places = [], [], []
        for slot in pieces:
            where = _places(sprites[slot])
            covers.append(_covered_bits(_cells(sprites[slot]), where, axis_x, axis_y, bits))
            costs.append(np.abs(where - [sprites[slot].x, sprites[slot].y]).sum(axis=1))
            places.append(where)
        union, cost = covers[0], costs[0]
        for more_covers, more_costs in zip(covers[1:], costs[1:], strict=True):
            union = union[:, None] | more_covers[None, :]
            cost = cost[:, None] + more_costs[None, :]
        cost = np.where(union == full, cost + mirror_cost, np.iinfo(np.int64).max)
        at = np.unravel_index(np.argmin(cost), cost.shape)
        if best is None or cost[at] < best[0]:
            chosen = {slot: tuple(places[i][at[i]]) for i, slot in enumerate(pieces)}
            if axis_x is not None:
                chosen[upright] = (axis_x, sprites[upright].y)
            if axis_y is not None:
                chosen[level_mirror] = (sprites[level_mirror].x, axis_y)
            best = (cost[at], chosen)
    return best[1]


def _steps(dx: int, dy: int) -> list:
    return [RIGHT if dx > 0 else LEFT] * abs(dx) + [DOWN if dy > 0 else UP] * abs(dy)


def _click_on(slot: int, places: dict, level: int):
    """A screen pixel that selects ``slot`` with every sprite at ``places``: one of its
    cells that no piece covers (a piece takes a click first), off the other mirror."""
    data = lv.LEVELS[level]
    memory = dict(data.memory)
    covered = set()
    for piece in (s for s in memory["pieces"] if s >= 0 and s != slot):
        x, y = places[piece]
        covered |= {(x + dx, y + dy) for dx, dy in _cells(data.sprites[piece])}
    for other in (m for m in memory["mirrors"] if m >= 0 and m != slot):
        x, y = places[other]
        covered |= {(x + dx, y + dy) for dx, dy in _cells(data.sprites[other])}
    x, y = places[slot]
    for dx, dy in _cells(data.sprites[slot]):
        cell = (int(x + dx), int(y + dy))
        if cell not in covered and 0 <= cell[0] < BOARD and 0 <= cell[1] < BOARD:
            return (CLICK, 3 * cell[0] + 1, 3 * cell[1] + 1)
    raise ValueError(f"ar25 level {level}: no free cell to click sprite {slot} on")


def run(level: int) -> list:
    """The winning run of ``level``: the selected sprite moved first, then each other one
    selected by a click and moved, cut where the level is completed."""
    goal = plan(level)
    data = lv.LEVELS[level]
    memory = dict(data.memory)
    places = {i: (s.x, s.y) for i, s in enumerate(data.sprites)}
    order = sorted(goal, key=lambda slot: slot != memory["selected"])
    actions = []
    for slot in order:
        dx, dy = goal[slot][0] - places[slot][0], goal[slot][1] - places[slot][1]
        if not dx and not dy:
            continue
        if slot != memory["selected"] or actions:
            actions.append(_click_on(slot, places, level))
        actions += _steps(dx, dy)
        places[slot] = goal[slot]
    return cut_at_win(level, actions)


def cut_at_win(level: int, actions: list) -> list:
    """``actions`` up to the one that completes ``level`` on gridax's game (an error if
    none does)."""
    state, _ = env.reset(ar25.GAME, level)
    before = int(state.score)
    for t, action in enumerate(actions):
        action = action if isinstance(action, tuple) else (action, 0, 0)
        state, _, info = env.step(state, Action(*action), ar25.GAME)
        if int(info["levels_completed"]) > before:
            return actions[: t + 1]
    raise AssertionError(f"ar25 level {level}: the run does not complete it")


if __name__ == "__main__":
    for number in map(int, sys.argv[1:]) if sys.argv[1:] else range(len(lv.LEVELS)):
        moves = run(number)
        print(f"level {number}: {len(moves)} actions: {tuple(moves)}")
