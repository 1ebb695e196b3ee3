"""Which sprite kinds of each game change their drawing during a level, seen over its
recorded trace (tests/fixtures/arc3/<game>_trace.json.gz): what a game's
``Game.static_kinds`` may declare is every kind this does not list.

Every recorded episode is replayed, and at every frame of every action (where the engine
draws one) every slot's drawn fields (:data:`gridax.envs.arc3.painting.DRAWN_FIELDS` and
the pixels) are held against the level's start; a kind is moving if one of its slots
ever differs.

    python tests/tools/moving_kinds.py ls20 ft09
"""

from __future__ import annotations

import gzip
import json
import sys

import jax
import numpy as np

from gridax.envs.arc3 import env, loop
from gridax.envs.arc3.games import GAMES
from gridax.envs.arc3.levels import bank_of
from gridax.envs.arc3.painting import DRAWN_FIELDS
from gridax.envs.arc3.types import Action
from tests.tools.record_traces import trace_path


def _changed_slots(table, start) -> np.ndarray:
    """``[N]``: slots whose drawing differs from the level's start (either existing)."""
    changed = np.zeros(table.x.shape, bool)
    for name in (*DRAWN_FIELDS, "pixels"):
        now, then = np.asarray(getattr(table, name)), np.asarray(getattr(start, name))
        differs = now != then
        changed |= differs.reshape(differs.shape[0], -1).any(axis=1)
    return changed & (np.asarray(table.exists) | np.asarray(start.exists))


def moving_kinds(name: str) -> list[str]:
    game = GAMES[name]
    recorded = json.loads(gzip.decompress(trace_path(name).read_bytes()))
    starts = recorded.get("start_levels") or [0] * len(recorded["episodes"])
    bank = bank_of(game)
    moving = set()

    def seen(table, level):
        start = jax.tree.map(lambda leaf: np.asarray(leaf)[int(level)], bank.table)
        kinds = np.asarray(table.kind)[_changed_slots(table, start)]
        moving.update(game.kinds[k] for k in kinds.tolist())

    def recording_draw(state, game, bank=None):
        jax.debug.callback(seen, state.table, state.level)
        return drawn(state, game, bank)

    drawn, loop.draw_frame = loop.draw_frame, recording_draw
    try:
        step = jax.jit(lambda s, a: loop.perform_action(s, a, game, bank, "all"))
        for start_level, episode in zip(starts, recorded["episodes"], strict=True):
            state, _ = env.reset(game, start_level)
            for record in episode:
                state, _, _ = step(state, Action(*record["action"]))
    finally:
        loop.draw_frame = drawn
    return sorted(moving)


if __name__ == "__main__":
    for name in sys.argv[1:] or sorted(GAMES):
        game = GAMES[name]
        moving = moving_kinds(name)
        still = [kind for kind in game.kinds if kind not in moving]
        print(json.dumps({"game": name, "moving": moving, "static": still}), flush=True)
