"""Finds ka59's winning runs (``games/ka59.py``'s SOLUTIONS).

A search over gridax's own game, a batch of states at a time: from each state, the four
moves and a click on each other block (where it lies now: the choices depend on the
state, which ``tools.search`` does not offer). States are told apart by where the
blocks, stones and bombs lie, which block is selected and the bombs' counts (the steps
left and the shoves' history are left out: a path is the actions that reached its
state, so it stays a real run whatever was merged). Each depth keeps the ``width``
states nearest done: the sum, over the frames, of the cells between the frame's inside
and the nearest block (or stone) of its size. The run found is played again on the
game from the end of the level before, and must complete its level; the game is exact,
so the runs hold on the official file (the recorded trace's last episode checks them).

    python tests/tools/solve_ka59.py [LEVEL ...]
"""

from __future__ import annotations

import sys

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine.types import GAME_OVER, Action
from gridax.envs.arc3.games import ka59
from gridax.envs.arc3.rules import CLICK

GAME = ka59.GAME
BLOCK_TAG, STONE_TAG = GAME.tags.index(ka59.BLOCK), GAME.tags.index(ka59.STONE)
MAX_DEPTH = 400
WIDTH = 4096
BATCH = 4096


def _take(tree, index):
    return jax.tree.map(lambda leaf: np.asarray(leaf)[index], tree)


def _choices(states, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``(parents, triples)``: every state's moves and clicks on its other blocks (at
    their centres on the screen: the inverse of the camera's ``display_to_grid``)."""
    table, memory = states.table, states.memory
    camera = _take(states.camera, 0)  # one level: one camera
    scale, x0, y0 = (int(v) for v in cam.scale_and_offset(camera))
    blocks = np.asarray(table.tags[:, :, BLOCK_TAG]) & np.asarray(table.exists)
    blocks &= np.arange(blocks.shape[1])[None, :] != np.asarray(memory["selected"])[:, None]
    x = np.asarray(table.x) + np.asarray(table.width) // 2 - int(camera.x)
    y = np.asarray(table.y) + np.asarray(table.height) // 2 - int(camera.y)
    state, slot = np.nonzero(blocks)
    clicks = np.stack([np.full(len(state), CLICK), x0 + x[state, slot] * scale,
                       y0 + y[state, slot] * scale], axis=1)  # fmt: skip
    moves = np.array([(m, 0, 0) for m in (1, 2, 3, 4)])
    parents = np.concatenate([np.repeat(np.arange(count), 4), state])
    triples = np.concatenate([np.tile(moves, (count, 1)), clicks]).astype(np.int32)
    return parents, triples


def _keys(states, count: int) -> list[bytes]:
    m = states.memory
    shovable = np.maximum(np.asarray(m["shovable"]), 0)
    rows = np.arange(count)[:, None]
    x, y = np.asarray(states.table.x)[rows, shovable], np.asarray(states.table.y)[rows, shovable]
    bombs = np.maximum(np.asarray(m["bombs"]), 0)
    ticks = np.asarray(states.table.pixels)[rows, bombs, :, 0]
    parts = [x, y, np.asarray(m["selected"])[:, None], ticks.reshape(count, -1)]
    flat = np.concatenate([p.astype(np.int32).reshape(count, -1) for p in parts], axis=1)
    return [row.tobytes() for row in flat]


def _distance(states, count: int) -> np.ndarray:
    """Per state, the sum over the frames of the cells from the frame's inside to the
    nearest block (stone) of its size."""
    t, m = states.table, states.memory
    x, y = np.asarray(t.x), np.asarray(t.y)
    h, w = np.asarray(t.height), np.asarray(t.width)
    rows = np.arange(count)[:, None]
    frames = np.maximum(np.asarray(m["frames"]), 0)  # [B, F]
    holds_block = np.asarray(m["frames_hold_blocks"])[:, :, None]
    kind = np.where(holds_block, t.tags[:, None, :, BLOCK_TAG], t.tags[:, None, :, STONE_TAG])
    kind = np.asarray(kind) & np.asarray(t.exists)[:, None, :]
    fits = kind & (h[:, None, :] == h[rows, frames][:, :, None] - 2)
    fits &= w[:, None, :] == w[rows, frames][:, :, None] - 2
    gaps = np.abs(x[:, None, :] - x[rows, frames][:, :, None] - 1)
    gaps += np.abs(y[:, None, :] - y[rows, frames][:, :, None] - 1)
    nearest = np.where(fits, gaps, 1000).min(axis=2)
    return np.where(np.asarray(m["frames"]) >= 0, nearest, 0).sum(axis=1)


def solve_level(state) -> list[tuple[int, int, int]]:
    score = int(state.score)
    frontier = _take(state, None)
    seen = set(_keys(frontier, 1))
    trail: list[tuple[np.ndarray, np.ndarray]] = []
    step = jax.jit(lambda s, a: env.batch_step(s, a, GAME, "last"))
    for _ in range(MAX_DEPTH):
        parents, triples = _choices(frontier, len(np.asarray(frontier.status)))
        kept, kept_at = [], []
        for start in range(0, len(parents), BATCH):
            parent, triple = parents[start : start + BATCH], triples[start : start + BATCH]
            size = 1 << max(len(parent) - 1, 0).bit_length()
            states = _take(frontier, np.resize(parent, size))
            chosen = np.resize(triple, (size, 3))
            new, _, info = step(states, Action(*(np.asarray(c) for c in chosen.T)))
            new = _take(new, slice(len(parent)))
            done = np.flatnonzero(np.asarray(info["levels_completed"])[: len(parent)] > score)
            if done.size:
                trail.append((parent[done[:1]], triple[done[:1]]))
                return _path(trail)
            alive = np.asarray(new.status) != GAME_OVER
            fresh = []
            for j, key in enumerate(_keys(new, len(parent))):
                if alive[j] and key not in seen:
                    seen.add(key)
                    fresh.append(j)
            kept.append(_take(new, np.asarray(fresh, int)))
            kept_at.append(start + np.asarray(fresh, int))
        at = np.concatenate(kept_at)
        if not len(at):
            break
        new = jax.tree.map(lambda *leaves: np.concatenate(leaves), *kept)
        parent, triple = parents[at], triples[at]
        if len(at) > WIDTH:
            best = np.argsort(_distance(new, len(at)), kind="stable")[:WIDTH]
            new, parent, triple = _take(new, best), parent[best], triple[best]
        trail.append((parent, triple))
        frontier = new
    raise ValueError(f"ka59 level {int(state.level) + 1}: no run found within {MAX_DEPTH}")


def _path(trail) -> list[tuple[int, int, int]]:
    path, last = [], 0
    for parent, triple in reversed(trail):
        path.append(tuple(int(v) for v in triple[last]))
        last = int(parent[last])
    return path[::-1]


def main(levels: list[int]) -> None:
    state, _ = env.reset(GAME)
    for number in range(max(levels) + 1):
        if number in levels:
            run = solve_level(state)
            print(f"level {number + 1}: {len(run)} actions: {run}", flush=True)
        else:
            run = [tuple(a) if isinstance(a, tuple) else (a, 0, 0) for a in GAME.solutions[number]]
        for triple in run:
            state, _, _ = env.step(state, Action(*triple), GAME)
        assert int(state.score) == number + 1, f"level {number + 1}: the run does not complete it"


if __name__ == "__main__":
    main([int(a) - 1 for a in sys.argv[1:]] or list(range(len(GAME.levels))))
