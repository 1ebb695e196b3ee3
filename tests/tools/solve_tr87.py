"""Finds tr87's winning runs (``games/tr87.py``'s SOLUTIONS).

Each level's selectable sets (answer symbols, or rule sides on the levels that alter
rules) are turned by some number of variants; the solver finds numbers that make the
check pass, reading the check as the game does (its rule lists, first match wins),
and choosing a set's turn only when the check first reads one of its symbols (seven
choices, fewest presses first). The run then walks the selection to each set that
turns and presses ACTION2 (or ACTION1 when fewer); it is played on gridax's game and
cut where the level completes. The game is exact, so the runs hold on the official
file (the recorded trace's last episode checks them).

    python tests/tools/solve_tr87.py
"""

from __future__ import annotations

import jax

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import tr87

VARIANTS = tr87.VARIANTS
PRESS_ORDER = (0, 1, 6, 2, 5, 3, 4)  # turns, by the presses they take


class Unread(Exception):
    """The check read a symbol of a set whose turn is not chosen yet."""

    def __init__(self, which: int):
        self.which = which


def _level_lists(number: int) -> dict:
    memory = dict(tr87.LEVELS[number].memory)

    def listed(values):
        return [v for v in values if v >= 0]

    return {
        "code": list(memory["code"]),
        "sets": [listed(s) for s in memory["sets"][: memory["num_sets"]]],
        "top": listed(memory["top"]),
        "answer": listed(memory["answer"]),
        "left": [listed(s) for s in memory["left"]],
        "right": [listed(s) for s in memory["right"]],
        "usable": list(memory["usable"]),
        "consumed": list(memory["consumed"]),
        "result": [listed(s) for s in memory["result"]],
        "tree": memory["tree"],
    }


def _checks(lists: dict, turns: dict) -> bool:
    """The level's check with the sets turned ``turns`` (set -> variants); raises
    ``Unread`` when it reads a set not in ``turns``."""
    set_of = {slot: n for n, s in enumerate(lists["sets"]) for slot in s}

    def code(slot):
        base = lists["code"][slot]
        if slot not in set_of:
            return base
        if set_of[slot] not in turns:
            raise Unread(set_of[slot])
        turn = turns[set_of[slot]]
        return base // VARIANTS * VARIANTS + (base + turn) % VARIANTS

    def same(a, b):
        return len(a) == len(b) and all(code(x) == code(y) for x, y in zip(a, b, strict=True))

    rules = range(len(lists["left"]))
    top, answer = lists["top"], lists["answer"]
    at = at_answer = 0
    while at < len(top):
        for r in rules:
            left = lists["left"][r]
            if not left or not same(top[at : at + len(left)], left):
                continue
            if lists["tree"]:
                result = []
                for symbol in lists["right"][r]:
                    first = next(
                        (
                            q
                            for q in rules
                            if lists["left"][q] and code(lists["left"][q][0]) == code(symbol)
                        ),
                        None,
                    )
                    if first is None:
                        break
                    result += lists["right"][first]
                else:
                    taken = len(left)
                    break
                continue
            if not lists["usable"][r]:
                continue
            result, taken = lists["result"][r], lists["consumed"][r]
            break
        else:
            return False
        if not same(answer[at_answer : at_answer + len(result)], result):
            return False
        at, at_answer = at + taken, at_answer + len(result)
    return True


def _search(lists: dict, turns: dict) -> dict | None:
    try:
        return turns if _checks(lists, turns) else None
    except Unread as unread:
        for turn in PRESS_ORDER:
            found = _search(lists, {**turns, unread.which: turn})
            if found is not None:
                return found
        return None


def _run(lists: dict, turns: dict) -> list[int]:
    count, at, run = len(lists["sets"]), 0, []
    for which in sorted(n for n, turn in turns.items() if turn):
        ahead = (which - at) % count
        run += [4] * ahead if ahead <= count - ahead else [3] * (count - ahead)
        turn = turns[which]
        run += [2] * turn if turn <= VARIANTS - turn else [1] * (VARIANTS - turn)
        at = which
    return run


def solve() -> list[list[int]]:
    step = jax.jit(lambda s, a: env.step(s, a, tr87.GAME))
    runs = []
    for number in range(len(tr87.LEVELS)):
        lists = _level_lists(number)
        turns = _search(lists, {})
        assert turns is not None, f"level {number + 1}: no solution"
        run = _run(lists, turns)
        state, _ = env.reset(tr87.GAME, number)
        score = int(state.score)
        for t, action in enumerate(run):
            state, _, info = step(state, Action(action, 0, 0))
            if int(info["levels_completed"]) > score:
                run = run[: t + 1]
                break
        else:
            raise AssertionError(f"level {number + 1}: the run {run} does not complete it")
        runs.append(run)
        print(f"level {number + 1}: {len(run)} actions", flush=True)
    return runs


if __name__ == "__main__":
    runs = solve()
    print("SOLUTIONS = (")
    for run in runs:
        print(f"    {tuple(run)},")
    print(")  # fmt: skip")
