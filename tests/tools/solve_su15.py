"""Finds su15's winning runs (``games/su15.py``'s SOLUTIONS) by a beam search over clicks.

The model is gridax's own game (frame-exact against the official file): from each state
of the beam every click of a grid is played in one batch, the results scored by how far
the level's goals are (the fruits of each asked size by their centres from the goals,
the merges and knocks still missing to make them, the steps spent), and the best distinct
states kept. A run is checked by playing it on the game, which must complete the level;
the recorded trace's last episode checks it on the official file.

    python tests/tools/solve_su15.py [LEVEL ...] [--beam B] [--depth D]
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import CLICK, GAME_OVER, Action
from gridax.envs.arc3.games import su15
from gridax.envs.arc3.games import su15_levels as lv

GAME = su15.GAME
GRID = [(x, y) for y in range(11, 63, 3) for x in range(1, 64, 3)]
LOST = 1e9


def _goal_distance(boxes, x, y):
    """Cells from centre ``(x, y)`` to the nearest goal box (0 inside)."""
    best = LOST
    for gx, gy, gw, gh in boxes:
        if gw == 0:
            continue
        dx = max(gx - x, 0, x - (gx + gw - 1))
        dy = max(gy - y, 0, y - (gy + gh - 1))
        best = min(best, dx + dy)
    return best


def _distances(boxes, xs, ys, kinds, want) -> list[int]:
    """The goal distances of the centres ``(xs, ys)`` of kind ``want``, nearest first."""
    return sorted(
        _goal_distance(boxes, x, y) for x, y, k in zip(xs, ys, kinds, strict=True) if k == want
    )


def _pairing(points):
    """How far the points are from pairing up: each one's distance to its nearest."""
    total = 0.0
    for i, (x, y) in enumerate(points):
        others = [abs(x - a) + abs(y - b) for j, (a, b) in enumerate(points) if j != i]
        total += min(others) if others else 30
    return total


def score(m) -> float:
    """How far one state (its memory, numpy) is from its level's goals; lower is
    nearer."""
    f_n, e_n = int(m["f_n"]), int(m["e_n"])
    sizes = [int(s) for s in m["f_size"][:f_n]]
    fx = [int(x) + lv.FRUIT_SIZE[s] // 2 for x, s in zip(m["f_x"][:f_n], sizes, strict=True)]
    fy = [int(y) + lv.FRUIT_SIZE[s] // 2 for y, s in zip(m["f_y"][:f_n], sizes, strict=True)]
    kinds = [int(k) for k in m["e_kind"][:e_n]]
    ex = [int(x) + lv.ENEMY_WIDTH // 2 for x in m["e_x"][:e_n]]
    ey = [int(y) + lv.ENEMY_HEIGHT // 2 for y in m["e_y"][:e_n]]
    worth = sum(2**s for s in sizes)
    if worth < int(m["needed"]) or f_n == 0:
        return LOST
    boxes = m["goal_boxes"].tolist()
    cost = 0.0
    for want_size, count in enumerate(m["goal_fruits"].tolist()):
        if count < 0:
            continue
        dist = _distances(boxes, fx, fy, sizes, want_size)
        inside = sum(d == 0 for d in dist)
        if len(dist) >= count:
            cost += sum(dist[:count]) + 40 * max(inside - count, 0)
        else:
            cost += sum(dist) + 80 * (count - len(dist))
            smaller = [(x, y) for x, y, s in zip(fx, fy, sizes, strict=True) if s < want_size]
            cost += 0.5 * _pairing(smaller) + 10 * sum(
                want_size - s for s in sizes if s < want_size
            )
            for x, y, s in zip(fx, fy, sizes, strict=True):
                if s > want_size:  # to be knocked down: near an enemy
                    near = min(
                        (abs(x - a) + abs(y - b) for a, b in zip(ex, ey, strict=True)), default=60
                    )
                    cost += 30 * (s - want_size) + 0.5 * near
    for want_kind, count in enumerate(m["goal_enemies"].tolist()):
        if count < 0:
            continue
        dist = _distances(boxes, ex, ey, kinds, want_kind)
        if len(dist) >= count:
            cost += sum(dist[:count])
        else:
            cost += sum(dist) + 80 * (count - len(dist))
            lower = [(x, y) for x, y, k in zip(ex, ey, kinds, strict=True) if k < want_kind]
            cost += 0.5 * _pairing(lower)
    spent = int(m["steps_max"]) - int(m["steps"])
    return cost + 0.5 * spent


def _key(m) -> tuple:
    f_n, e_n = int(m["f_n"]), int(m["e_n"])
    return (
        tuple(m["f_size"][:f_n]),
        tuple(m["f_x"][:f_n]),
        tuple(m["f_y"][:f_n]),
        tuple(m["e_kind"][:e_n]),
        tuple(m["e_x"][:e_n]),
        tuple(m["e_y"][:e_n]),
        int(m["steps"]),
    )


def solve(level: int, beam: int, depth: int, opening=()) -> list[tuple[int, int, int]] | None:
    """The clicks that win level ``level`` after the clicks ``opening`` (planned by hand),
    or None."""
    state, _ = env.reset(GAME, level)
    for x, y in opening:
        state, _, _ = env.step(state, Action(CLICK, x, y), GAME)
    beam_states = jax.tree.map(lambda a: a[None], state)
    paths: list[list] = [[(CLICK, x, y) for x, y in opening]]
    clicks = np.array(GRID, np.int32)
    for step in range(depth):
        b = len(paths)
        states = jax.tree.map(lambda a: jnp.repeat(a, len(GRID), axis=0), beam_states)
        xs, ys = np.tile(clicks[:, 0], b), np.tile(clicks[:, 1], b)
        actions = Action(jnp.full(b * len(GRID), CLICK), jnp.asarray(xs), jnp.asarray(ys))
        states, _, _ = env.batch_step(states, actions, GAME)
        level_now = np.asarray(states.level)
        status = np.asarray(states.status)
        solved = np.flatnonzero((level_now != level) | (np.asarray(states.score) > 0))
        if solved.size:
            i = int(solved[0])
            return paths[i // len(GRID)] + [(CLICK, int(xs[i]), int(ys[i]))]
        memory = jax.tree.map(np.asarray, states.memory)
        scored = []
        for i in range(b * len(GRID)):
            if status[i] == GAME_OVER:
                continue
            m = {k: v[i] for k, v in memory.items()}
            scored.append((score(m), i, _key(m)))
        scored.sort()
        kept, seen = [], set()
        for value, i, key in scored:
            if value >= LOST or key in seen:
                continue
            seen.add(key)
            kept.append(i)
            if len(kept) == beam:
                break
        if not kept:
            return None
        print(f"  depth {step + 1}: best {scored[0][0]:.1f}, kept {len(kept)}", flush=True)
        index = jnp.asarray(kept)
        beam_states = jax.tree.map(lambda a, index=index: a[index], states)
        paths = [paths[i // len(GRID)] + [(CLICK, int(xs[i]), int(ys[i]))] for i in kept]
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("levels", nargs="*", type=int, default=list(range(len(GAME.levels))))
    parser.add_argument("--beam", type=int, default=8)
    parser.add_argument("--depth", type=int, default=40)
    parser.add_argument("--opening", default="", help="clicks to play first: x,y;x,y;...")
    args = parser.parse_args()
    opening = [tuple(map(int, p.split(","))) for p in args.opening.split(";") if p]
    for level in args.levels:
        start = time.time()
        run = solve(level, args.beam, args.depth, opening)
        took = time.time() - start
        print(f"level {level + 1}: {len(run) if run else None} clicks in {took:.0f} s: {run}")


if __name__ == "__main__":
    main()
