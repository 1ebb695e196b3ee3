"""Finds sb26's winning runs (``games/sb26_levels.py``'s SOLUTIONS), and programs that
end a run other ways (the scripted episodes of ``record_traces.SCRIPTED``).

A level is modelled here in plain Python from the port's level data: the frames (in
(y, x) order, their slots' cells), what each slot holds (a frame's own item, or an empty
spot), the palette's items and the targets' colours. The program is run as the original
runs it, slot by slot (``games/sb26.py``'s docstring): an item fills the next target if
its colour is the target's, a call runs the first frame of its colour. Where the run
reaches an empty spot, each palette item not yet placed is tried there (a depth-first
search: the run decides which items a spot can take, so only programs the run reaches
are built). The winning program is played as clicks (each palette item, then its spot),
then ACTION5, on gridax's game, which must complete the level with it; the game is
exact, so the runs hold on the official file (the recorded trace's last episode checks
them).

    python tests/tools/solve_sb26.py [LEVEL ...]
"""

from __future__ import annotations

import sys

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import sb26
from gridax.envs.arc3.games import sb26_levels as lv
from gridax.envs.arc3.rules import ACTION5, CLICK

WIN, BANNER, ERROR, LOOP = "win", "banner", "error", "loop"
LIMIT = 4000  # slots a run may take before the model calls it endless


def _level(number: int):
    """``(frames, holds, palette, targets)``: each frame's colour and slot cells, what each
    cell holds (``("plain" | "call", colour)``, absent for a spot), the palette's items
    (cell, kind, colour) and the targets' colours."""
    level = lv.LEVELS[number]
    memory = dict(level.memory)
    sprites = level.sprites
    frames = []
    for slot, count in zip(memory["frames"], memory["frame_slots"], strict=True):
        if slot >= 0:
            f = sprites[slot]
            cells = [
                (f.x + lv.SLOT_INSET + k * lv.SLOT_STEP, f.y + lv.SLOT_INSET) for k in range(count)
            ]
            frames.append((f.pixels[0][0], cells))
    holds, palette = {}, []
    for slot in memory["items"]:
        if slot < 0:
            continue
        item = sprites[slot]
        kind = "call" if item.kind == lv.CALL else "plain"
        if item.y > lv.BOTTOM:
            palette.append(((item.x, item.y), kind, item.pixels[1][1]))
        else:
            holds[(item.x, item.y)] = (kind, item.pixels[1][1])
    targets = [c for c in memory["target_colours"] if c >= 0]
    return frames, holds, palette, targets


def _runs(frames, holds, palette, targets, placed):
    """Every way the program can end with palette items placed as the run reaches empty
    spots: ``(outcome, placed)`` pairs, ``placed`` a dict of cell -> palette index."""
    frame_of = {colour: number for number, (colour, _) in reversed(list(enumerate(frames)))}

    def go(stack, target, filled, returning, placed, steps):
        while steps < LIMIT:
            steps += 1
            frame, slot = stack[-1]
            cell = frames[frame][1][slot]
            held = holds.get(cell) or (palette[placed[cell]][1:] if cell in placed else None)
            if held is None:  # an empty spot: each unplaced palette item, or the error
                used = set(placed.values())
                tried = set()
                for index, (_, kind, colour) in enumerate(palette):
                    if index not in used and (kind, colour) not in tried:
                        tried.add((kind, colour))
                        yield from go(
                            list(stack), target, filled, returning, {**placed, cell: index}, steps
                        )
                yield ERROR, placed
                return
            kind, colour = held
            if not filled and kind == "plain":
                if colour != targets[target]:
                    yield ERROR, placed
                    return
                filled = True
                continue
            if filled and target == len(targets) - 1:
                yield WIN, placed
                return
            if returning or kind == "plain":
                returning = False
                if slot + 1 < len(frames[frame][1]):
                    stack[-1] = (frame, slot + 1)
                    target, filled = target + 1, False
                elif len(stack) > 1:
                    stack.pop()
                    returning = True
                else:
                    yield BANNER, placed
                    return
                continue
            if kind == "call":
                below = stack[:-1]
                if slot == 0 and (frame, 0) in below and below[-1][1] == 0:
                    yield LOOP, placed
                    return
                stack.append((frame_of[colour], 0))
                continue
            yield ERROR, placed
            return

    yield from go([(0, 0)], 0, False, False, dict(placed), 0)


def program(number: int, outcome: str = WIN) -> dict:
    """The fewest palette placements (cell -> palette index) whose run ends ``outcome``."""
    frames, holds, palette, targets = _level(number)
    found = [placed for end, placed in _runs(frames, holds, palette, targets, {}) if end == outcome]
    if not found:
        raise ValueError(f"sb26 level {number + 1}: no program ends {outcome}")
    return min(found, key=len)


def clicks(number: int, placed: dict) -> list:
    """Each placement as two clicks (the palette item, then its spot), then ACTION5."""
    _, _, palette, _ = _level(number)
    actions = []
    for (x, y), index in placed.items():
        (px, py), _, _ = palette[index]
        actions += [(CLICK, px + 2, py + 2), (CLICK, x + 2, y + 2)]
    return [*actions, ACTION5]


def run(number: int) -> list:
    """The winning run of level ``number``, checked on gridax's game."""
    actions = clicks(number, program(number))
    state, _ = env.reset(sb26.GAME, number)
    before = int(state.score)
    for action in actions:
        action = action if isinstance(action, tuple) else (action, 0, 0)
        state, _, info = env.step(state, Action(*action), sb26.GAME)
    if int(info["levels_completed"]) != before + 1:
        raise AssertionError(f"sb26 level {number + 1}: the run does not complete it")
    return actions


if __name__ == "__main__":
    for number in map(int, sys.argv[1:]) if sys.argv[1:] else range(len(lv.LEVELS)):
        moves = run(number)
        print(f"level {number}: {len(moves)} actions: {tuple(moves)}")
