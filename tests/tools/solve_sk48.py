"""Finds sk48's winning runs (``games/sk48.py``'s SOLUTIONS).

A level's state is simulated here in plain Python by the game's rules, apart from the
port: the bases, the arms' lengths, the blocks and the selected arm. A move grows,
shrinks or slides the selected arm with the blocks its segments push (a slide that any
block stops, a growth out of the board, a shrink of one segment and a slide without a
rail change nothing and are left out); a click selects another arm. A beam search over
those (breadth-first, each depth keeping the 5,000 states closest to a win by
``Level.rank``) finds a short run of moves and clicks to a state whose markers are all
lit: every level in under a minute; breadth-first search alone doubles its states each
depth. The run is then played on gridax's game, which must complete the level with it; the game is
exact, so the runs hold on the official file (the recorded trace's last episode checks
them).

    python tests/tools/solve_sk48.py [LEVEL ...]
"""

from __future__ import annotations

import sys

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import WIN, Action
from gridax.envs.arc3.games import sk48
from gridax.envs.arc3.games.sk48_levels import STEP

ARROWS = {1: (0, -1), 2: (0, 1), 3: (-1, 0), 4: (1, 0)}
BEAM = 5000  # states kept a depth


class Level:
    """A level's constants, read from the port's level memory."""

    def __init__(self, number: int):
        memory = {k: np.asarray(v) for k, v in sk48.LEVELS[number].memory}
        arms = int(memory["arm_exists"].sum())
        self.arms = range(arms)
        self.way = [tuple(int(v) for v in memory["way"][a]) for a in self.arms]
        self.pair = [int(memory["pair"][a]) for a in self.arms]
        blocks = int((memory["block"][:, 0] != -100).sum())
        self.colour = [int(c) for c in memory["block_colour"][:blocks]]
        self.board = [int(v) for v in memory["board"]]
        self.walls = [tuple(int(v) for v in box) for box in memory["walls"]]
        self.rails = [tuple(int(v) for v in box) for box in memory["rails"]]
        self.markers = [
            (int(a), int(k))
            for a, k in zip(memory["marker_arm"], memory["marker_index"], strict=True)
            if a >= 0
        ]
        self.start = (
            tuple(tuple(int(v) for v in memory["base"][a]) for a in self.arms),
            tuple(int(memory["count"][a]) for a in self.arms),
            tuple(tuple(int(v) for v in memory["block"][b]) for b in range(blocks)),
            0,
        )

    def blocked(self, x, y) -> bool:
        left, top, right, bottom = self.board
        inside = lambda box: box[0] <= x < box[0] + box[2] and box[1] <= y < box[1] + box[3]  # noqa: E731
        return (
            x < left
            or x + STEP > right
            or y < top
            or y + STEP > bottom
            or any(map(inside, self.walls))
        )

    def segments(self, bases, counts):
        """``{(x, y, horizontal): (arm, index)}`` of every segment."""
        return {
            (
                bases[a][0] + i * STEP * self.way[a][0],
                bases[a][1] + i * STEP * self.way[a][1],
                self.way[a][1] == 0,
            ): (a, i)
            for a in self.arms
            for i in range(counts[a])
        }

    def move(self, state, arrow):
        """The state after an arrow, or None when nothing would move."""
        bases, counts, blocks, arm = state
        m = ARROWS[arrow]
        way, (bx, by), count = self.way[arm], bases[arm], counts[arm]
        step = (m[0] * STEP, m[1] * STEP)
        if m == way:
            kind, first = "grow", 0
            if self.blocked(
                bx + (count - 1) * STEP * way[0] + step[0],
                by + (count - 1) * STEP * way[1] + step[1],
            ):
                return None
        elif m == (-way[0], -way[1]):
            kind, first = "shrink", 1
            if count == 1:
                return None
        else:
            kind, first = "slide", 0
            px, py = bx + 2 + step[0] // 2, by + 2 + step[1] // 2
            if not any(r[0] <= px < r[0] + r[2] and r[1] <= py < r[1] + r[3] for r in self.rails):
                return None
        segments = self.segments(bases, counts)
        along = m[0] != 0
        at = {xy: b for b, xy in reversed(list(enumerate(blocks)))}  # the first at each place
        visited: set[int] = set()

        def push(b, pusher) -> bool:
            if b in visited:
                return True
            x, y = blocks[b]
            tx, ty = x + step[0], y + step[1]
            if self.blocked(tx, ty):
                return False
            for cx, cy in ((x, y), (tx, ty)):
                other = segments.get((cx, cy, not along))
                if other is not None and other != pusher:
                    return False
            ahead = at.get((tx, ty))
            if ahead is not None and not push(ahead, None):
                return False
            visited.add(b)
            return True

        against = way == (-m[0], -m[1])
        for index in range(first, count):
            x, y = bx + index * STEP * way[0], by + index * STEP * way[1]
            if (
                kind == "slide"
                and self.blocked(x + step[0], y + step[1])
                and not against
                and not self.blocked(x, y)
            ):
                return None
            for ox, oy in ((0, 0), step):
                b = at.get((x + ox, y + oy))
                if b is not None and not push(b, (arm, index)) and kind == "slide":
                    return None
        grown = {"grow": 1, "shrink": -1, "slide": 0}[kind]
        counts = tuple(c + grown * (a == arm) for a, c in enumerate(counts))
        if kind == "slide":
            bases = tuple(
                (x + step[0], y + step[1]) if a == arm else (x, y) for a, (x, y) in enumerate(bases)
            )
        blocks = tuple(
            (x + step[0], y + step[1]) if b in visited else (x, y)
            for b, (x, y) in enumerate(blocks)
        )
        return bases, counts, blocks, arm

    def won(self, state) -> bool:
        return all(self._lit(state))

    def rank(self, state) -> int:
        """Lower is closer to a win (the beam's order): markers lit count most, then
        blocks of the colours an arm needs, in order, in its line, then how far the
        other needed blocks are from it."""
        bases, counts, blocks, _ = state
        lit = sum(self._lit(state))
        in_order, away = 0, 0
        for a in self.arms:
            if self.pair[a] < 0:
                continue
            vertical = self.way[a][0] == 0
            line = bases[a][0] if vertical else bases[a][1]
            along = [b for b, (x, y) in enumerate(blocks) if (x if vertical else y) == line]
            along.sort(
                key=lambda b: abs(blocks[b][1] - bases[a][1]) + abs(blocks[b][0] - bases[a][0])
            )
            wanted = self._colours(state, self.pair[a])
            matched = 0
            for b, colour in zip(along, wanted, strict=False):
                if self.colour[b] != colour:
                    break
                matched += 1
            in_order += matched
            for colour in wanted[matched:]:
                away += min(
                    abs((x if vertical else y) - line) // STEP
                    for b, (x, y) in enumerate(blocks)
                    if self.colour[b] == colour
                )
        return -(100 * lit + 10 * in_order) + away

    def _colours(self, state, arm):
        bases, counts, blocks, _ = state
        at = {xy: b for b, xy in reversed(list(enumerate(blocks)))}
        cells = [
            (
                bases[arm][0] + i * STEP * self.way[arm][0],
                bases[arm][1] + i * STEP * self.way[arm][1],
            )
            for i in range(counts[arm])
        ]
        return [self.colour[at[c]] for c in cells if c in at]

    def _lit(self, state):
        on = {a: self._colours(state, a) for a in self.arms}
        return [k < len(on[a]) and on[a][k] == on[self.pair[a]][k] for a, k in self.markers]

    def actions(self, state):
        """``(action, next state)`` of every action that changes something."""
        for arrow in ARROWS:
            after = self.move(state, arrow)
            if after is not None:
                yield (arrow, 0, 0), after
        bases, counts, blocks, arm = state
        for a in self.arms:
            if self.pair[a] >= 0 and a != arm:
                x, y = bases[a]
                yield (6, x + 1, y + 1), (bases, counts, blocks, a)


def solve(level: Level, beam: int | None = None, max_depth: int = 400):
    """The fewest actions to a win (breadth-first), or with ``beam`` a short run: each
    depth keeps the ``beam`` best-ranked states."""
    parent = {level.start: None}
    frontier = [level.start]
    for _ in range(max_depth):
        after = []
        for state in frontier:
            for action, nxt in level.actions(state):
                if nxt in parent:
                    continue
                parent[nxt] = (state, action)
                if action[0] != 6 and level.won(nxt):
                    return _path(parent, nxt)
                after.append(nxt)
        if beam is not None and len(after) > beam:
            after.sort(key=level.rank)
            after = after[:beam]
        frontier = after
        if not frontier:
            break
    raise ValueError("no run found")


def _path(parent, state):
    run = []
    while parent[state] is not None:
        state, action = parent[state]
        run.append(action)
    return run[::-1]


def check(number: int, run) -> None:
    """The run completes the level on gridax's game."""
    state, _ = env.reset(sk48.GAME, number)
    step = jax.jit(lambda s, a: env.step(s, a, sk48.GAME))
    for triple in run:
        state, _, _ = step(state, Action(*triple))
    assert int(state.level) == number + 1 or int(state.status) == WIN, f"level {number} not won"


if __name__ == "__main__":
    for number in [int(n) for n in sys.argv[1:]] or range(len(sk48.LEVELS)):
        run = solve(Level(number), beam=BEAM)
        check(number, run)
        print(number, len(run), [list(triple) for triple in run], flush=True)
