"""Plans a winning run of each level of cn04 from its rules and prints them as the game
module's ``SOLUTIONS``.

    python tests/tools/plan_cn04.py

A search over the game's states would need hundreds of moves deep; the rules give a
shorter way: find a placement of the pieces where every plug meets exactly one other
(backtracking from the first piece, nearest its start first), then take each piece
that is not there: select it with a click on one of its cells, park it where every turn
fits the board if it must turn, turn it, and move it to its place. Every action is
played on gridax's env, exact to the official file, and the run is cut where the level
is completed.
"""

from __future__ import annotations

import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import cn04

GAME = cn04.GAME
BOARD = 20
UP, DOWN, LEFT, RIGHT, TURN, CLICK = 1, 2, 3, 4, 5, 6


def turned(raw, quarter_turns: int) -> np.ndarray:
    return np.rot90(np.asarray(raw), -quarter_turns)  # clockwise, as arcengine draws


def plug_cells(raw, x: int, y: int, q: int) -> set[tuple[int, int]]:
    rows, cols = np.nonzero(turned(raw, q) == cn04.PLUG)
    return {(x + int(c), y + int(r)) for r, c in zip(rows, cols, strict=True)}


def fits(raw, x: int, y: int, q: int) -> bool:
    height, width = turned(raw, q).shape
    return x >= 0 and y >= 0 and x + width <= BOARD and y + height <= BOARD


def placement(pieces, start) -> dict[int, tuple[int, int, int]]:
    """``{piece: (x, y, quarter_turns)}`` with every plug meeting exactly one other."""

    def extend(placed):
        counts: dict[tuple[int, int], int] = {}
        for i, where in placed.items():
            for cell in plug_cells(pieces[i], *where):
                counts[cell] = counts.get(cell, 0) + 1
        lonely = sorted(cell for cell, n in counts.items() if n == 1)
        if any(n > 2 for n in counts.values()) or (len(placed) == len(pieces)) != (not lonely):
            return None
        if not lonely:
            return placed
        cell = lonely[0]  # some piece not placed yet must bring a plug here
        for j in set(range(len(pieces))) - set(placed):
            for q in range(4):
                rows, cols = np.nonzero(turned(pieces[j], q) == cn04.PLUG)
                for r, c in zip(rows, cols, strict=True):
                    x, y = cell[0] - int(c), cell[1] - int(r)
                    if fits(pieces[j], x, y, q) and (found := extend({**placed, j: (x, y, q)})):
                        return found
        return None

    x0, y0, q0 = start[0]
    firsts = [
        (x, y, q)
        for q in range(4)
        for x in range(BOARD)
        for y in range(BOARD)
        if fits(pieces[0], x, y, q)
    ]
    firsts.sort(key=lambda p: abs(p[0] - x0) + abs(p[1] - y0) + (p[2] != q0))
    for first in firsts:
        if found := extend({0: first}):
            return found
    raise SystemExit("no placement joins every plug")


def play(state, actions):
    """``(state, actions played, completed)``: until the level is completed."""
    played, score = [], int(state.score)
    for action in actions:
        state, _, info = env.step(state, Action(*action), GAME)
        played.append(action)
        if int(info["levels_completed"]) > score:
            return state, played, True
    return state, played, False


def screen(cell: int) -> int:
    return 2 + 3 * cell + 1  # the 20x20 board drawn 3 pixels a cell, from pixel 2


def click_selecting(state, slot: int) -> tuple[int, int, int]:
    """A click on one of ``slot``'s cells that selects it."""
    table = state.table
    height, width = int(table.height[slot]), int(table.width[slot])
    image = turned(np.asarray(table.pixels[slot])[:height, :width], int(table.quarter_turns[slot]))
    for r, c in zip(*np.nonzero(image >= 0), strict=True):
        click = (CLICK, screen(int(table.x[slot]) + int(c)), screen(int(table.y[slot]) + int(r)))
        selected, _, _ = env.step(state, Action(*click), GAME)
        if int(selected.memory["selected"]) == slot:
            return click
    raise SystemExit(f"no click selects piece {slot}")


def moves_to(slot: int, state, target) -> list[tuple[int, int, int]]:
    x, y, q = (int(v[slot]) for v in (state.table.x, state.table.y, state.table.quarter_turns))
    tx, ty, tq = target
    moves = []
    if q != tq:  # park where every turn fits the board, then turn
        parked_x, parked_y = min(x, BOARD - cn04.PIXELS), min(y, BOARD - cn04.PIXELS)
        moves += [(LEFT, 0, 0)] * (x - parked_x) + [(UP, 0, 0)] * (y - parked_y)
        moves += [(TURN, 0, 0)] * ((tq - q) % 4)
        x, y = parked_x, parked_y
    moves += [(RIGHT if tx > x else LEFT, 0, 0)] * abs(tx - x)
    moves += [(DOWN if ty > y else UP, 0, 0)] * abs(ty - y)
    return moves


def solve(level: int) -> list[tuple[int, int, int]]:
    state, _ = env.reset(GAME, level)
    sprites = cn04.DATA.levels[level].sprites
    pieces = [np.asarray(s.pixels) for s in sprites]
    target = placement(pieces, [(s.x, s.y, s.rotation // 90) for s in sprites])
    run = []
    for slot in range(len(pieces)):
        here = tuple(
            int(v[slot]) for v in (state.table.x, state.table.y, state.table.quarter_turns)
        )
        if here == target[slot]:
            continue
        actions = [] if int(state.memory["selected"]) == slot else [click_selecting(state, slot)]
        state, played, completed = play(state, actions)
        run += played
        state, played, completed = play(state, moves_to(slot, state, target[slot]))
        run += played
        if completed:
            return run
    raise SystemExit(f"level {level}: the plan {target} did not complete it")


def main() -> None:
    print("SOLUTIONS = (")
    for level in range(len(GAME.levels)):
        run = [a[0] if a[0] != CLICK else a for a in solve(level)]
        print(f"    {tuple(run)!r},")
    print(")")


if __name__ == "__main__":
    main()
