"""Plans wa30's winning runs (``games/wa30.py``'s SOLUTIONS) on gridax's own game.

A greedy player, re-planned after every action from the state the game is in (the
helpers and thieves move on their own): send away the nearest thief (walk next to it,
face it, ACTION5), else fetch the nearest box that is neither home nor held (walk next to
it, face it, take it), carry it to a goal zone along the shortest way the pair can move,
and let go; with nothing to do, wait (ACTION5 facing nothing) while the helpers carry
theirs. Ways are breadth-first over the game's own free cells; a run that does not
complete the level within its moves is an error. The game is exact, so the runs hold on
the official file (the recorded trace's last episode checks them).

    python tests/tools/plan_wa30.py
"""

from __future__ import annotations

from collections import deque

import jax
import numpy as np

from gridax.envs.arc3 import env, rules
from gridax.envs.arc3.engine.types import WIN, Action
from gridax.envs.arc3.games import wa30

GAME = wa30.GAME
STEP = jax.jit(lambda state, action: env.step(state, action, GAME))
ARROWS = {(0, -1): 1, (0, 1): 2, (-1, 0): 3, (1, 0): 4}  # (dx, dy) -> ACTION1-4
GRAB = 5


def grids(state):
    """What a plan reads from one env's state, as NumPy; the player's own cell counts as
    free (the player plans where it will walk)."""
    kinds = (wa30.PLAYER, wa30.BOX, wa30.THIEF, wa30.HELPER)
    tagged = {t: np.asarray(rules.tagged(state, t)) for t in kinds}
    column, row = (np.asarray(v) for v in wa30._cells(state))
    me = int(np.flatnonzero(tagged[wa30.PLAYER])[0])
    blocked = np.asarray(wa30._blocked(state)).copy()
    blocked[row[me], column[me]] = False
    no_go = np.asarray(wa30._grid_of(state, rules.tagged(state, wa30.NO_GO)))
    return {
        "free": ~blocked & ~no_go,
        "blocked": blocked,
        "no_go": no_go,
        "goal": np.asarray(wa30._zone_grid(state, wa30.GOAL)),
        "held": np.asarray(wa30._held(state)),
        "holds": np.asarray(state.memory["holds"]),
        "turns": np.asarray(state.table.quarter_turns),
        "cells": list(zip(column.tolist(), row.tolist(), strict=True)),
        **{name: np.flatnonzero(tagged[t]) for name, t in (
            ("player", wa30.PLAYER), ("boxes", wa30.BOX), ("thieves", wa30.THIEF),
            ("helpers", wa30.HELPER))},
    }  # fmt: skip


def on_grid(cell) -> bool:
    return 0 <= cell[0] < wa30.GRID and 0 <= cell[1] < wa30.GRID


def first_step_towards(start, passable, is_goal):
    """Breadth-first: the first step ``(dx, dy)`` of a shortest way, or None."""
    parent = {start: start}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if is_goal(cell) and cell != start:
            while parent[cell] != start:
                cell = parent[cell]
            return cell[0] - start[0], cell[1] - start[1]
        for dx, dy in ARROWS:
            nxt = (cell[0] + dx, cell[1] + dy)
            if nxt not in parent and on_grid(nxt) and passable(nxt):
                parent[nxt] = cell
                queue.append(nxt)
    return None


def approach(g, me, target):
    """The action that brings the player next to ``target``'s cell, facing it."""
    here, there = g["cells"][me], g["cells"][target]
    offset = (there[0] - here[0], there[1] - here[1])
    if offset in ARROWS:  # next to it: face it (the step is blocked) or act
        facing = tuple(wa30.FACING[g["turns"][me]])
        return GRAB if facing == offset else ARROWS[offset]
    beside = {(there[0] + dx, there[1] + dy) for dx, dy in ARROWS}
    step = first_step_towards(here, lambda c: g["free"][c[1], c[0]], beside.__contains__)
    return GRAB if step is None else ARROWS[step]


def helpers_reach(g) -> set:
    """The cells the helpers can walk to (breadth-first over free cells)."""
    reach, queue = set(), deque(g["cells"][h] for h in g["helpers"])
    while queue:
        cell = queue.popleft()
        for dx, dy in ARROWS:
            nxt = (cell[0] + dx, cell[1] + dy)
            if nxt not in reach and on_grid(nxt) and g["free"][nxt[1], nxt[0]]:
                reach.add(nxt)
                queue.append(nxt)
    return reach


def pair_ways(g, carrier, box):
    """``(passable, home)`` of a pair (``carrier``'s cell holding ``box``'s): the cells
    the carrier may step to with it, and where the box then lands in a goal zone."""
    dx, dy = box[0] - carrier[0], box[1] - carrier[1]

    def passable(c):
        carrier_ok = (g["free"][c[1], c[0]] or c == box) and not g["no_go"][c[1], c[0]]
        landing = (c[0] + dx, c[1] + dy)
        box_ok = landing == carrier or (
            on_grid(landing) and not g["blocked"][landing[1], landing[0]]
        )
        return carrier_ok and box_ok

    def home(c):
        landing = (c[0] + dx, c[1] + dy)
        return on_grid(landing) and g["goal"][landing[1], landing[0]]

    return passable, home


def delivery(g, carrier, box):
    """``(first step or None, hands over)``: the way the pair (``carrier``'s cell holding
    ``box``'s cell) goes to a goal zone, else to where a helper can take the box and
    carry it to one (over a wall only boxes cross); ``((0, 0), ...)`` when it is there
    already; None when there is no way."""
    passable, home = pair_ways(g, carrier, box)
    dx, dy = box[0] - carrier[0], box[1] - carrier[1]
    reach = helpers_reach(g)

    def helper_delivers(landing):
        for x, y in ARROWS:
            helper = (landing[0] + x, landing[1] + y)
            if helper in reach:
                ways = pair_ways(g, helper, landing)
                if ways[1](helper) or first_step_towards(helper, *ways) is not None:
                    return True
        return False

    def hand_over(c):
        return helper_delivers((c[0] + dx, c[1] + dy))

    for goal, hands_over in ((home, False), (hand_over, True)):
        if goal(carrier):
            return (0, 0), hands_over
        step = first_step_towards(carrier, passable, goal)
        if step is not None:
            return step, hands_over
    return None, False


def carry(g, me, box, handed: set):
    """The action that carries ``box`` a step on its delivery, or lets it go at the end
    (left for a helper: ``handed``)."""
    step, hands_over = delivery(g, g["cells"][me], g["cells"][box])
    if step is None or step == (0, 0):
        if hands_over:
            handed.add(box)
        return GRAB
    return ARROWS[step]


def fetch(g, me, box):
    """The action that brings the player to the side of ``box`` from which the pair can
    be delivered, facing it, and takes it; None when no side serves."""
    here, at = g["cells"][me], g["cells"][box]
    for offset in ARROWS:  # the box's place from the carrier
        side = (at[0] - offset[0], at[1] - offset[1])
        walkable = on_grid(side) and (g["free"][side[1], side[0]] or side == here)
        if not walkable or g["no_go"][side[1], side[0]]:
            continue
        if delivery(g, side, at)[0] is None:
            continue
        if side == here:
            facing = tuple(wa30.FACING[g["turns"][me]])
            return GRAB if facing == offset else ARROWS[offset]
        step = first_step_towards(here, lambda c: g["free"][c[1], c[0]], {side}.__contains__)
        if step is not None:
            return ARROWS[step]
    return None


def next_action(state, handed: set) -> int:
    g = grids(state)
    me = int(g["player"][0])
    if g["holds"][me] >= 0:
        return carry(g, me, int(g["holds"][me]), handed)
    here = g["cells"][me]

    def distance(slot):
        cell = g["cells"][slot]
        return abs(cell[0] - here[0]) + abs(cell[1] - here[1])

    if len(g["thieves"]):
        return approach(g, me, min(g["thieves"], key=distance))
    loose = [
        b
        for b in g["boxes"]
        if not g["held"][b]
        and not g["goal"][g["cells"][b][1], g["cells"][b][0]]
        and b not in handed
    ]
    for box in sorted(loose, key=distance):
        action = fetch(g, me, box)
        if action is not None:
            return action
    return wait(g, me)


def wait(g, me) -> int:
    """An action that changes nothing the helpers need: a turn towards a cell the player
    cannot enter and holding no box, else ACTION5 facing nothing, else a step aside."""
    here = g["cells"][me]
    boxes = {g["cells"][b] for b in g["boxes"]}
    ahead = {(here[0] + dx, here[1] + dy): a for (dx, dy), a in ARROWS.items()}
    for cell, action in ahead.items():
        if cell not in boxes and not (on_grid(cell) and g["free"][cell[1], cell[0]]):
            return action
    facing = tuple(wa30.FACING[g["turns"][me]])
    if (here[0] + facing[0], here[1] + facing[1]) not in boxes:
        return GRAB
    return next(a for cell, a in ahead.items() if on_grid(cell) and g["free"][cell[1], cell[0]])


def plan(level: int, state) -> tuple[list[int], object]:
    """A winning run of ``level`` from ``state`` (its start) and the state after it."""
    actions, handed = [], set()
    for _ in range(dict(wa30.LEVELS[level].memory)["moves"]):
        action = next_action(state, handed)
        state, _, info = STEP(state, Action(action, 0, 0))
        actions.append(action)
        if int(info["level"]) > level or int(info["status"]) == WIN:
            return actions, state
    raise AssertionError(f"level {level + 1}: not complete after {actions}")


if __name__ == "__main__":
    state, _ = env.reset(GAME)
    runs = []
    for level in range(len(GAME.levels)):
        actions, state = plan(level, state)
        runs.append(tuple(actions))
        print(f"level {level + 1}: {len(actions)} actions", flush=True)
    print("SOLUTIONS = (")
    for actions in runs:
        print(f"    {actions},")
    print(")  # fmt: skip")
