"""Finds r11l's winning runs (``games/r11l.py``'s SOLUTIONS).

A level is modelled here in plain Python from the port's first state: the solid world
cells of the walls, hazards, pickups and targets, the legs' places and the selected leg.
A body sits at the floor mean of its legs' centres, so it is brought to a *waypoint* (a
place where it touches a pickup it needs or, last, its target) by leg moves: a beam
search whose every depth tries, for each leg, the points that would finish (put the
mean on the waypoint) and the points of a 2-cell lattice, keeping per leg the states
whose body is nearest the waypoint. Every landing is checked: the leg off the walls and
the click off every other leg (a click on a leg selects it), the body off the hazards
and off pickups it does not need. Groups are taken in turn, a painted body's pickups in
every order that gives its target's colours, and the painted bodies matched to targets
both ways; the first run within half the human baseline, else the shortest, wins. The
run is then played on gridax's game, which must complete the level with it; the game is
exact, so the runs hold on the official file (the recorded trace's last episode checks
them).

    python tests/tools/solve_r11l.py [LEVEL ...]
"""

from __future__ import annotations

import itertools
import sys

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.sprites import world_cells
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import r11l
from gridax.envs.arc3.games import r11l_levels as lv
from gridax.envs.arc3.rules import CLICK

PAD = 24  # world cells kept beyond each side of the screen
SIZE = 64 + 2 * PAD
MAX_MOVES, BEAM = 6, 20  # leg moves to reach one waypoint; states kept a leg a move


class Level:
    """A level's sprites as solid world cells, and its groups (the port's level memory)."""

    def __init__(self, number: int):
        state, _ = env.reset(r11l.GAME, number)
        table = state.table
        xs, ys = (np.asarray(a) for a in world_cells(table))
        solid = (np.asarray(table.pixels) != -1) & np.asarray(table.exists)[:, None, None]
        kinds = [r11l.GAME.kinds[k] for k in np.asarray(table.kind)]
        self.masks = {}
        for slot in range(len(kinds)):
            mask = np.zeros((SIZE, SIZE), bool)
            sx, sy = xs[slot][solid[slot]] + PAD, ys[slot][solid[slot]] + PAD
            inside = (sx >= 0) & (sx < SIZE) & (sy >= 0) & (sy < SIZE)
            mask[sy[inside], sx[inside]] = True
            self.masks[slot] = mask
        memory = {k: np.asarray(v) for k, v in state.memory.items()}
        self.pixels = np.asarray(table.pixels)[:, :5, :5]
        self.shape = {s: self.pixels[s] != -1 for s in range(len(kinds))}

        def union(prefix):
            chosen = [self.masks[s] for s, k in enumerate(kinds) if k.startswith(prefix)]
            return np.any([np.zeros((SIZE, SIZE), bool), *chosen], axis=0)

        self.walls, self.hazards = union(lv.WALL), union(lv.HAZARD)
        self.legs = [int(s) for s in memory["legs"] if s >= 0]
        self.leg_body = [int(b) for b in memory["leg_body"][: len(self.legs)]]
        self.start = tuple((int(table.x[s]), int(table.y[s])) for s in self.legs)
        self.targets = [
            (int(t), int(b), int(c))
            for t, b, c, ok in zip(
                memory["targets"],
                memory["target_body"],
                memory["target_colours"],
                memory["scored"],
                strict=True,
            )
            if ok
        ]
        self.pickups = [int(p) for p in memory["pickups"] if p >= 0]
        self.painted = [
            int(b) for b, p in zip(memory["bodies"], memory["painted"], strict=True) if p
        ]

    def touch_table(self, shape, mask) -> np.ndarray:
        """``[y + PAD, x + PAD]``: a sprite of ``shape`` with its top-left corner at
        ``(x, y)`` touches ``mask``."""
        table = np.zeros((SIZE, SIZE), bool)
        for r, c in zip(*np.nonzero(shape), strict=True):
            table[: SIZE - r, : SIZE - c] |= mask[r:, c:]
        return table

    def body_at(self, places, body):
        """The body's top-left corner for legs at ``places``."""
        centres = [
            (x + 2, y + 2) for (x, y), b in zip(places, self.leg_body, strict=True) if b == body
        ]
        count = len(centres)
        return (
            sum(c[0] for c in centres) // count - 2,
            sum(c[1] for c in centres) // count - 2,
        )

    def reach(self, places, selected, body, goal_slot, avoid):
        """``(cost, clicks, places, selected)`` of a short run that lands ``body``
        touching ``goal_slot`` (and nothing it must ``avoid``, nor a hazard), or None."""
        legs = [i for i, b in enumerate(self.leg_body) if b == body]
        k = len(legs)
        shape = self.shape[body]
        bad = self.touch_table(shape, np.any([self.hazards, *avoid], axis=0))
        goal = self.touch_table(shape, self.masks[goal_slot]) & ~bad
        goals = [(x - PAD, y - PAD) for y, x in zip(*np.nonzero(goal), strict=True)]
        free = {leg: ~self.touch_table(self.shape[self.legs[leg]], self.walls) for leg in legs}

        def lands(state, leg, point):
            px, py = point
            if not (0 <= px < 64 and 0 <= py < 64) or not free[leg][py - 2 + PAD, px - 2 + PAD]:
                return None
            for other, (x, y) in enumerate(state):
                if other != leg and x <= px < x + 5 and y <= py < y + 5:
                    return None  # the click would select that leg
            moved = list(state)
            moved[leg] = (px - 2, py - 2)
            bx, by = self.body_at(moved, body)
            inside = 0 <= bx + PAD < SIZE and 0 <= by + PAD < SIZE
            return moved if inside and not bad[by + PAD, bx + PAD] else None

        def finishing(state, leg):
            others = [state[i] for i in legs if i != leg]
            sx, sy = sum(x + 2 for x, _ in others), sum(y + 2 for _, y in others)
            for gx, gy in goals:
                for ex, ey in itertools.product(range(k), repeat=2):
                    yield (k * (gx + 2) + ex - sx, k * (gy + 2) + ey - sy)

        goal_set = set(goals)
        goal_points = np.array(goals, float)

        def distance(state):
            bx, by = self.body_at(state, body)
            return float(np.min(np.hypot(goal_points[:, 0] - bx, goal_points[:, 1] - by)))

        lattice = [(x, y) for x in range(0, 64, 2) for y in range(0, 64, 2)]
        frontier = [(tuple(places), selected, [])]
        for _ in range(MAX_MOVES):
            finished, seen, candidates = [], set(), []
            for state, sel, moves in frontier:
                for leg in legs:
                    clicks = len(moves) + (leg != sel) + 1
                    for point in set(finishing(state, leg)):
                        moved = lands(state, leg, point)
                        if moved is not None and self.body_at(moved, body) in goal_set:
                            finished.append((clicks, [*moves, (leg, point)], tuple(moved), leg))
                    for point in lattice:
                        moved = lands(state, leg, point)
                        if moved is not None and tuple(moved) not in seen:
                            seen.add(tuple(moved))
                            candidates.append(
                                (distance(moved), tuple(moved), leg, [*moves, (leg, point)])
                            )
            if finished:
                best = min(finished, key=lambda f: f[0])
                break
            candidates.sort(key=lambda c: c[0])  # the nearest kept for each leg moved last
            frontier = [
                (state, leg, moves)
                for moved_last in legs
                for _, state, leg, moves in [c for c in candidates if c[2] == moved_last][:BEAM]
            ]
        else:
            return None
        clicks, state, sel = [], list(places), selected
        for leg, point in best[1]:
            if sel != leg:
                clicks.append((CLICK, int(state[leg][0]) + 2, int(state[leg][1]) + 2))
                sel = leg
            clicks.append((CLICK, int(point[0]), int(point[1])))
            state[leg] = (point[0] - 2, point[1] - 2)
        return len(clicks), clicks, best[2], sel


def colours_of(grid) -> int:
    return sum(1 << int(c) for c in set(grid.ravel().tolist()) if c > 0)


def plan(level: Level, enough: int = 0):
    """The shortest run found over the orders of groups and pickups, or the first of at
    most ``enough`` clicks."""
    best = None
    own = [(t, b) for t, b, _ in level.targets if b >= 0]
    blank = [(t, c) for t, b, c in level.targets if b < 0]
    for bodies in itertools.permutations(level.painted, len(blank)):
        tours = []  # per painted body: its target and the pickups that give its colours
        for body, (target, colours) in zip(bodies, blank, strict=True):
            options = []
            for n in range(1, bin(colours).count("1") + 1):  # a colour a pickup at most
                for chosen in itertools.permutations(level.pickups, n):
                    grid = level.pixels[body].copy()
                    for p in chosen:
                        wet = (level.pixels[p] != -1) & (level.pixels[p] != 0)
                        grid[wet] = level.pixels[p][wet]
                    if colours_of(grid) == colours:
                        options.append(chosen)
            tours.append([(body, chosen, target) for chosen in options])
        for choice in itertools.product(*tours):
            used = {p for _, chosen, _ in choice for p in chosen}
            if len(used) < sum(len(c) for _, c, _ in choice):
                continue
            legs = [(b, [], t) for t, b in own] + list(choice)
            for order in itertools.permutations(legs):
                run = play(level, order)
                if run is not None and (best is None or len(run) < len(best)):
                    best = run
                    if len(best) <= enough:
                        return best
    return best


def play(level: Level, order):
    places, selected, clicks = level.start, 0, []
    left = set(level.pickups)
    for body, chosen, target in order:
        for waypoint in [*chosen, target]:
            avoid = [level.masks[p] for p in left if p != waypoint]
            found = level.reach(places, selected, body, waypoint, avoid)
            if found is None:
                return None
            _, more, places, selected = found
            clicks += more
            left.discard(waypoint)
    return clicks


def check(number: int, clicks) -> bool:
    """The run completes the level on gridax's game."""
    state, _ = env.reset(r11l.GAME, number)
    step = jax.jit(lambda state, action: env.step(state, action, r11l.GAME))
    for move in clicks:
        state, _, info = step(state, Action(*move))
    return int(info["levels_completed"]) == 1 or int(info["level"]) == number + 1


if __name__ == "__main__":
    for number in map(int, sys.argv[1:] or range(len(r11l.GAME.levels))):
        level = Level(number)
        run = plan(level, enough=r11l.GAME.baseline_actions[number] // 2)
        ok = run is not None and check(number, run)
        print(number, len(run) if run else None, ok, run)
