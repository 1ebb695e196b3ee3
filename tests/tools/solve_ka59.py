"""Finds ka59's winning runs (``games/ka59.py``'s SOLUTIONS).

A beam search over gridax's own game (``tools.search.shortest_solution``): from each
state, the four moves and a click on each other block where it lies now. States are
told apart by where the blocks, stones and bombs lie, which block is selected and the
bombs' counts (the steps left and the shoves' history are left out). Each depth keeps
the ``WIDTH`` states nearest done: the sum, over the target frames, of the cells
between a frame's inside and the nearest block (or stone) of its size. The run found is
played again on the game from the end of the level before, and must complete its level;
the game is exact, so the runs hold on the official file (the recorded trace's last
episode checks them).

    python tests/tools/solve_ka59.py [LEVEL ...]
"""

from __future__ import annotations

import sys

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import ka59
from gridax.envs.arc3.rules import CLICK
from gridax.envs.arc3.tools.search import shortest_solution

GAME = ka59.GAME
BLOCK_TAG, STONE_TAG = GAME.tags.index(ka59.BLOCK), GAME.tags.index(ka59.STONE)
MAX_DEPTH = 400
WIDTH = 4096
BATCH = 4096


def _choices(states) -> tuple[np.ndarray, np.ndarray]:
    """``(parents, triples)``: every state's moves and clicks on its other blocks (at
    their centres on the screen: the inverse of the camera's ``display_to_grid``)."""
    table, memory = states.table, states.memory
    count = len(states.status)
    camera = jax.tree.map(lambda leaf: leaf[0], states.camera)  # one level: one camera
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


def _keys(states) -> list[bytes]:
    """Where the blocks, stones and bombs lie, the selection and the bombs' counts."""
    m = states.memory
    count = len(states.status)
    shovable = np.maximum(np.asarray(m["shovable"]), 0)
    rows = np.arange(count)[:, None]
    x, y = np.asarray(states.table.x)[rows, shovable], np.asarray(states.table.y)[rows, shovable]
    bombs = np.maximum(np.asarray(m["bombs"]), 0)
    ticks = np.asarray(states.table.pixels)[rows, bombs, :, 0]
    parts = [x, y, np.asarray(m["selected"])[:, None], ticks.reshape(count, -1)]
    flat = np.concatenate([p.astype(np.int32).reshape(count, -1) for p in parts], axis=1)
    return [row.tobytes() for row in flat]


def _distance(states) -> np.ndarray:
    """Per state, the sum over the target frames of the cells from the inside of each to the
    nearest block (stone) of its size."""
    t, m = states.table, states.memory
    count = len(states.status)
    x, y = np.asarray(t.x), np.asarray(t.y)
    h, w = np.asarray(t.height), np.asarray(t.width)
    rows = np.arange(count)[:, None]
    targets = np.maximum(np.asarray(m["targets"]), 0)  # [B, F]
    holds_block = np.asarray(m["targets_hold_blocks"])[:, :, None]
    kind = np.where(holds_block, t.tags[:, None, :, BLOCK_TAG], t.tags[:, None, :, STONE_TAG])
    kind = np.asarray(kind) & np.asarray(t.exists)[:, None, :]
    fits = kind & (h[:, None, :] == h[rows, targets][:, :, None] - 2)
    fits &= w[:, None, :] == w[rows, targets][:, :, None] - 2
    gaps = np.abs(x[:, None, :] - x[rows, targets][:, :, None] - 1)
    gaps += np.abs(y[:, None, :] - y[rows, targets][:, :, None] - 1)
    nearest = np.where(fits, gaps, 1000).min(axis=2)
    return np.where(np.asarray(m["targets"]) >= 0, nearest, 0).sum(axis=1)


def solve_level(state) -> list[tuple[int, int, int]]:
    return shortest_solution(
        GAME, state, _choices, MAX_DEPTH, batch=BATCH, rank=_distance, width=WIDTH, keys=_keys
    )


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
