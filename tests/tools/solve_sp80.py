"""Finds sp80's winning runs (``games/sp80.py``'s SOLUTIONS).

A pour is simulated here in plain Python by the game's rules (streams fall, spread on
bars and on cups they do not fill, turn at deflectors, fail on floors) with the pieces
placed anywhere they may stand. A beam search over placements (each round, every piece
tried at every place where it meets the water of the current best placements, the
best kept by cups filled and floors untouched) finds one whose pour wins. The run
then clicks each piece to move (the selection at the start needs no click), walks it
there by the shortest way of arrows, and pours; the screen's turn on levels that turn
it is undone for clicks and arrows. The run is played on gridax's game, which must
complete the level with it; the game is exact, so the runs hold on the official file
(the recorded trace's last episode checks them).

    python tests/tools/solve_sp80.py
"""

from __future__ import annotations

import itertools
from collections import deque

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import sp80, sp80_levels

TAGS = sp80_levels.TAGS
BEAM = 150
ROUNDS = 6


def _cells(sprite, x=None, y=None) -> set:
    """The cells sprite ``sprite`` draws (at ``(x, y)`` if given)."""
    pixels = np.rot90(np.asarray(sprite.pixels), k=-(sprite.rotation // 90))
    x0, y0 = sprite.x if x is None else x, sprite.y if y is None else y
    rows, cols = np.nonzero(pixels >= 0)
    return {(x0 + c, y0 + r) for r, c in zip(rows.tolist(), cols.tolist(), strict=True)}


class Level:
    def __init__(self, number: int):
        self.sprites = [s for s in sp80.LEVELS[number].sprites if s.kind != sp80_levels.POURED]
        self.grid = sp80.LEVELS[number].grid_size[0]
        self.pieces = [
            i
            for i, s in enumerate(self.sprites)
            if TAGS[sp80_levels.BAR] in s.tags or TAGS[sp80_levels.DEFLECTOR] in s.tags
        ]
        fixed = [i for i in range(len(self.sprites)) if i not in self.pieces]
        self.blocked = set().union(*(_cells(self.sprites[i]) for i in fixed))
        self.cups = [i for i, s in enumerate(self.sprites) if TAGS[sp80_levels.CUP] in s.tags]
        self.places = {i: self._places(i) for i in self.pieces}

    def _places(self, piece: int) -> set:
        """Where piece ``piece`` may stand: below the top rows, clear of the cups by a
        cell, on no fixed sprite's pixel."""
        sprite = self.sprites[piece]
        height, width = sprite.drawn_shape
        places = set()
        for x in range(-1, self.grid + 1):
            for y in range(sp80.TOP_ROWS, self.grid + 1):
                near_cup = any(
                    x < c.x + c.drawn_shape[1] + 1
                    and x + width > c.x - 1
                    and y < c.y + c.drawn_shape[0] + 1
                    and y + height > c.y - 1
                    for c in (self.sprites[i] for i in self.cups)
                )
                if not near_cup and not (_cells(sprite, x, y) & self.blocked):
                    places.add((x, y))
        return places

    def pour(self, placed: dict) -> tuple[int, int, set]:
        """``(cups filled, floor cells touched, cells the water flowed through)``."""
        owner = {}
        for i, sprite in enumerate(self.sprites):
            x, y = placed.get(i, (sprite.x, sprite.y))
            for cell in _cells(sprite, x, y):
                owner.setdefault(cell, i)

        def tagged(i, tag):
            return i is not None and TAGS[tag] in self.sprites[i].tags

        water, streams = set(), []
        for i, sprite in enumerate(self.sprites):
            if tagged(i, sp80_levels.WATER):
                streams.append((sprite.x, sprite.y, 0, 1))
        for i, sprite in enumerate(self.sprites):
            if tagged(i, sp80_levels.SPOUT):
                x, y = placed.get(i, (sprite.x, sprite.y))
                for c, colour in enumerate(sprite.pixels[0]):
                    if colour == sp80.SPOUT_COLOUR and (x + c, y + 1) not in owner:
                        water.add((x + c, y + 1))
                        streams.append((x + c, y + 1, 0, 1))
        filled, floor, flowed = set(), set(), set(water)

        def at(x, y):
            return "water" if (x, y) in water else owner.get((x, y))

        for _ in range(4 * self.grid * self.grid):
            if not streams:
                break
            new = []

            def add(x, y, dx, dy, new=new):
                water.add((x, y))
                flowed.add((x, y))
                if (x, y, dx, dy) not in new:
                    new.append((x, y, dx, dy))

            for x, y, dx, dy in streams:
                tx, ty = x + dx, y + dy
                met = at(tx, ty)
                sides = [(x - 1, y), (x + 1, y)] if dy else [(x, y - 1), (x, y + 1)]
                first, second = at(*sides[0]), at(*sides[1])
                if met is None:
                    add(tx, ty, dx, dy)
                elif met == "water" or tagged(met, sp80_levels.WATER):
                    if (tx, ty, dx, dy) not in new:
                        new.append((tx, ty, dx, dy))
                elif tagged(met, sp80_levels.BAR) or tagged(met, sp80_levels.CUP):
                    if tagged(met, sp80_levels.CUP) and first == met and second == met:
                        filled.add(met)
                        continue
                    for cx, cy in sides:
                        if at(cx, cy) is None:
                            add(cx, cy, dx, dy)
                elif tagged(met, sp80_levels.DEFLECTOR):
                    if first == met and second is None:
                        add(x + dy, y - dx, dy, -dx)
                    if second == met and first is None:
                        add(x - dy, y + dx, -dy, dx)
                    else:
                        for cx, cy in sides:
                            if at(cx, cy) is None:
                                add(cx, cy, dx, dy)
                elif tagged(met, sp80_levels.FLOOR):
                    floor.add((tx, ty))
            streams = new
        return len(filled), len(floor), flowed

    def score(self, placed: dict) -> tuple:
        filled, floor, flowed = self.pour(placed)
        won = filled == len(self.cups) and not floor
        return (won, 4 * filled - floor, -len(placed)), flowed

    def solve(self) -> dict:
        """Where to put which pieces (a beam search over placements)."""
        (won, *_), flowed = self.score({})
        beam = [({}, flowed)]
        if won:
            return {}
        for _ in range(ROUNDS):
            scored = []
            for placed, flowed in beam:
                for piece in self.pieces:
                    sprite = self.sprites[piece]
                    for x, y in self.places[piece]:
                        if not (_cells(sprite, x, y) & flowed) and piece not in placed:
                            continue
                        moved = {**placed, piece: (x, y)}
                        key, new_flowed = self.score(moved)
                        if key[0]:
                            return moved
                        scored.append((key, moved, new_flowed))
            scored.sort(key=lambda s: s[0], reverse=True)
            beam, seen = [], set()
            for _, moved, new_flowed in scored:
                signature = tuple(sorted(moved.items()))
                if signature not in seen:
                    seen.add(signature)
                    beam.append((moved, new_flowed))
                if len(beam) == BEAM:
                    break
        raise AssertionError("no placement found")


def _walk(level: Level, piece: int, goal) -> list[tuple[int, int]]:
    """The arrows' steps (dx, dy) that take ``piece`` to ``goal`` through its places."""
    sprite = level.sprites[piece]
    start = (sprite.x, sprite.y)
    came = {start: None}
    queue = deque([start])
    while queue:
        at = queue.popleft()
        if at == goal:
            break
        for step in ((0, -1), (0, 1), (-1, 0), (1, 0)):
            nxt = (at[0] + step[0], at[1] + step[1])
            if nxt in level.places[piece] and nxt not in came:
                came[nxt] = (at, step)
                queue.append(nxt)
    steps = []
    while came[goal] is not None:
        goal, step = came[goal]
        steps.append(step)
    return steps[::-1]


def _screen(level: Level, x: int, y: int, turns: int) -> tuple[int, int]:
    """The screen pixel a click on cell ``(x, y)`` must hit on a turned screen."""
    scale = 64 // level.grid
    offset = (64 - level.grid * scale) // 2
    px, py = offset + x * scale + scale // 2, offset + y * scale + scale // 2
    return [(px, py), (py, 63 - px), (63 - px, 63 - py), (63 - py, px)][turns]


def _click_cell(level: Level, at: dict, piece: int):
    """A cell of ``piece``'s box where a click finds it first (the game tries bars before
    deflectors, each in list order, by their boxes), or None."""

    def box(i):
        height, width = level.sprites[i].drawn_shape
        x, y = at[i]
        return {(x + c, y + r) for r in range(height) for c in range(width)}

    def order(i):
        return (TAGS[sp80_levels.BAR] not in level.sprites[i].tags, i)

    before = [i for i in level.pieces if order(i) < order(piece)]
    free = sorted(box(piece) - set().union(*(box(i) for i in before)))
    return free[0] if free else None


def run(number: int) -> list:
    """The run: each piece to move clicked (in an order where every click finds it) and
    walked to its place, then the pour."""
    level = Level(number)
    placed = level.solve()
    turns = dict(sp80.LEVELS[number].memory)["turns"]
    arrow = {step: a for a, step in enumerate(((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0)))}
    shown = {int(sp80.ARROWS[turns][a]): a for a in range(1, 5)}  # the unturned -> shown
    state, _ = env.reset(sp80.GAME, number)
    for order in itertools.permutations(placed):
        at = {i: (level.sprites[i].x, level.sprites[i].y) for i in level.pieces}
        selected, actions = int(state.memory["selected"]), []
        for piece in order:
            if piece != selected:
                cell = _click_cell(level, at, piece)
                if cell is None:
                    break
                actions.append((6, *_screen(level, *cell, turns)))
            actions += [shown[arrow[step]] for step in _walk(level, piece, placed[piece])]
            selected, at[piece] = piece, placed[piece]
        else:
            return actions + [5]
    raise AssertionError(f"level {number + 1}: no order of clicks finds every piece")


def main() -> None:
    step = jax.jit(lambda s, a: env.step(s, a, sp80.GAME))
    for number in range(len(sp80.LEVELS)):
        actions = run(number)
        state, _ = env.reset(sp80.GAME, number)
        score = int(state.score)
        for action in actions:
            triple = action if isinstance(action, tuple) else (action, 0, 0)
            state, _, info = step(state, Action(*triple))
        assert int(info["levels_completed"]) > score, f"level {number + 1}: {actions} fails"
        print(f"level {number + 1}: {len(actions)} actions: {actions}", flush=True)


if __name__ == "__main__":
    main()
