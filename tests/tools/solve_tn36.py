"""Finds tn36's winning runs (``games/tn36.py``'s SOLUTIONS).

The right machine of each level is modelled here in plain Python from the port's first
state (its block, walls, beams and their emitters, checkpoints and target, as boxes). A
run of its program is a path through the columns: a search over every number a column
can spell, costing the bits to toggle from what the tablet shows (one click each),
keeps the cheapest way to each state of the block (place, turn, scale, colour, life,
beams) after each column. Runs are chained (a run that ends on a checkpoint starts the
next from there) by a search over the runs' end states, each run costing its toggles and
the button's click. The clicks are then played on gridax's game, which must complete
the level with them; the game is exact, so the runs hold on the official file (the
recorded trace's last episode checks them).

    python tests/tools/solve_tn36.py [LEVEL ...]
"""

from __future__ import annotations

import heapq
import sys

import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import tn36
from gridax.envs.arc3.games import tn36_levels as lv
from gridax.envs.arc3.rules import CLICK

RIGHT = tn36.RIGHT
# The memory variables with an entry per machine (their first axis).
PER_MACHINE = {name for name, var in tn36.GAME.variables.items() if var.shape[:1] == (2,)}
MAX_RUNS = 4


def _box(table, slot):
    height, width = table["height"][slot], table["width"][slot]
    if table["quarter_turns"][slot] % 2:
        height, width = width, height
    scale = table["scale"][slot]
    return table["x"][slot], table["y"][slot], width * scale, height * scale


def _meet(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _centre(box) -> tuple[int, int]:
    return int(box[0] + box[2] // 2), int(box[1] + box[3] // 2)


class Machine:
    """The right machine of a level, from the port's first state."""

    def __init__(self, number: int):
        state, _ = env.reset(tn36.GAME, number)
        names = ("x", "y", "width", "height", "scale", "quarter_turns", "visible", "pixels")
        table = {k: np.asarray(getattr(state.table, k)) for k in names}
        memory = {
            k: np.asarray(v)[RIGHT] if k in PER_MACHINE else np.asarray(v)
            for k, v in state.memory.items()
        }
        self.table = table
        boxes = lambda slots: [_box(table, s) for s in slots if s >= 0]  # noqa: E731
        self.walls = boxes(memory["walls"])
        beams = [s for s in memory["beams"] if s >= 0]
        self.beams = boxes(beams)
        self.emitters = boxes(memory["emitters"])
        self.beams_on = tuple(bool(table["visible"][s]) for s in beams)
        points = [s for s in memory["checkpoints"] if s >= 0]
        self.points = [(_box(table, s), int(table["scale"][s])) for s in points]
        target = int(memory["target"])
        tx, ty, _, _ = _box(table, target)
        inset = int(table["scale"][target])
        turn, colour = int(table["quarter_turns"][target]), int(memory["target_colour"])
        self.goal = (int(tx) + inset, int(ty) + inset, turn, inset, colour)
        block = int(memory["block"])
        self.size = (int(table["width"][block]), int(table["height"][block]))
        x, y, turn, scale, colour = (int(v) for v in memory["start"])
        self.start = (x, y, turn // 90, scale, colour)
        self.columns = [int(c) for c in memory["columns"] if c >= 0]
        self.bits = [
            [int(b) for b in memory["bits"][c] if b >= 0] for c in range(len(self.columns))
        ]
        self.lit = [tuple(table["pixels"][b, 1, 2] == tn36.LIT for b in row) for row in self.bits]
        self.button = _centre(_box(table, int(memory["button"])))

    def block_box(self, x, y, turn, scale):
        width, height = self.size if turn % 2 == 0 else self.size[::-1]
        return x, y, width * scale, height * scale

    def deadly(self, box, beams_on, shown_only=False):
        for beam, emitter, on in zip(self.beams, self.emitters, beams_on, strict=True):
            if on and _meet(box, beam) or (not on and not shown_only and _meet(box, emitter)):
                return True
        return False

    def execute(self, block, beams_on, number):
        """Instruction ``number`` on ``block`` (x, y, turn, scale, colour, alive)."""
        x, y, turn, scale, colour, alive = block
        (dx, dy), growth = tn36.MOVES[number], tn36.GROWTH[number]
        if alive and (dx or dy or growth):
            grown = max(scale + growth, 1)
            nx, ny = x + dx, y + dy
            if any(_meet(self.block_box(nx, ny, turn, grown), w) for w in self.walls):
                nx, ny, grown = x, y, max(grown - growth, 1)
            x, y, scale = nx, ny, grown
            if self.deadly(self.block_box(x, y, turn, scale), beams_on):
                alive = False
        turn = (turn + tn36.TURNS[number] // 90) % 4
        if tn36.PAINTS[number] >= 0:
            colour = int(tn36.PAINTS[number])
        return (x, y, turn, scale, colour, alive)

    def run(self, start, beams_on, program):
        """``(won, next start, beams)`` after a run of ``program``."""
        block = (*start, True)
        for step, number in enumerate(program):
            block = self.execute(block, beams_on, number)
            if step < len(program) - 1 and step % 3 == 2:
                beams_on = tuple(not on for on in beams_on)
                if self.deadly(self.block_box(*block[:4]), beams_on, shown_only=True):
                    block = (*block[:5], False)
        return self.end(block, start, beams_on)

    def end(self, block, start, beams_on):
        x, y, turn, scale, colour, _ = block
        box = self.block_box(x, y, turn, scale)
        for point, point_scale in self.points:
            if _meet(box, point) and point_scale == scale:
                start = (x, y, turn, scale, colour)
                break
        if (x, y, turn, scale, colour) == self.goal:
            return True, start, beams_on
        return False, start, tuple(not on for on in beams_on)

    def runs(self, start, beams_on, lit):
        """Every end of one run from ``start``: ``{(won, start, beams): (toggles,
        program)}``, the fewest bit toggles from the tablet's ``lit`` bits."""
        values = range(1 << len(self.bits[0]))
        layer = {((*start, True), beams_on): (0, ())}
        for step in range(len(self.columns)):
            following = {}
            for (block, beams), (cost, program) in layer.items():
                for number in values:
                    bits = tuple(bool(number >> i & 1) for i in range(len(self.bits[step])))
                    toggles = sum(a != b for a, b in zip(bits, lit[step], strict=True))
                    moved, now = self.execute(block, beams, number), beams
                    if step < len(self.columns) - 1 and step % 3 == 2:
                        now = tuple(not on for on in now)
                        if self.deadly(self.block_box(*moved[:4]), now, shown_only=True):
                            moved = (*moved[:5], False)
                    key = (moved, now)
                    if key not in following or following[key][0] > cost + toggles:
                        following[key] = (cost + toggles, (*program, number))
            layer = following
        ends = {}
        for (block, beams), (cost, program) in layer.items():
            key = self.end(block, start, beams)
            if key not in ends or ends[key][0] > cost:
                ends[key] = (cost, program)
        return ends

    def solve(self):
        """The fewest clicks to a win: a list of programs, run in turn."""
        queue = [(0, 0, (self.start, self.beams_on, tuple(self.lit)), ())]
        seen, pushed = set(), 0
        while queue:
            cost, _, node, programs = heapq.heappop(queue)
            if node == "won":
                return programs
            if node in seen or len(programs) >= MAX_RUNS:
                continue
            seen.add(node)
            start, beams, lit = node
            for (won, after, now), (toggles, program) in self.runs(start, beams, lit).items():
                shown = tuple(
                    tuple(bool(n >> i & 1) for i in range(len(row)))
                    for n, row in zip(program, self.bits, strict=True)
                )
                pushed += 1
                following = "won" if won else (after, now, shown)
                heapq.heappush(queue, (cost + toggles + 1, pushed, following, (*programs, program)))
        raise RuntimeError("no win within the runs searched")

    def clicks(self, programs):
        """The screen points clicked: each program's bits toggled, then the button."""
        lit, points = [list(row) for row in self.lit], []
        for program in programs:
            for column, number in enumerate(program):
                for i, bit in enumerate(self.bits[column]):
                    if bool(number >> i & 1) != lit[column][i]:
                        points.append(_centre(_box(self.table, bit)))
                        lit[column][i] = not lit[column][i]
            points.append(self.button)
        return points


def check(number: int, points) -> None:
    state, _ = env.reset(tn36.GAME, number)
    for x, y in points:
        state, _, info = env.step(state, Action(CLICK, x, y), tn36.GAME)
    assert int(info["levels_completed"]) == 1, f"level {number + 1} not completed"


def main() -> None:
    levels = [int(a) - 1 for a in sys.argv[1:]] or range(len(lv.LEVELS))
    for number in levels:
        machine = Machine(number)
        programs = machine.solve()
        points = machine.clicks(programs)
        check(number, points)
        baseline = tn36.GAME.baseline_actions[number]
        print(f"level {number + 1}: {len(points)} clicks (baseline {baseline}): {programs}")
        print(f"    {tuple(points)},")


if __name__ == "__main__":
    main()
