"""Which sprite kinds of each game change their drawing during a level, seen over its
recorded trace (tests/fixtures/arc3/<game>_trace.json.gz): what a game's
``Game.static_kinds`` may declare is every kind this does not list as moving, and its
``Game.repainted_kinds`` must hold every kind it lists as repainted.

Every recorded episode is replayed, and at every frame of every action (where the engine
draws one) every slot's drawn fields (:data:`gridax.envs.arc3.engine.painting.DRAWN_FIELDS` and
the pixels) are held against the level's start; a kind is moving if one of its slots
ever differs, repainted if its pixels or their size ever differ.

    python tests/tools/moving_kinds.py ls20 ft09
"""

from __future__ import annotations

import gzip
import json
import sys

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine import loop
from gridax.envs.arc3.engine.levels import bank_of
from gridax.envs.arc3.engine.painting import DRAWN_FIELDS
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import GAMES
from tests.tools.record_traces import trace_path

MOVING_FIELDS = (*DRAWN_FIELDS, "pixels")
REPAINTED_FIELDS = ("pixels", "height", "width")


def _changed_slots(table, start, fields) -> np.ndarray:
    """``[N]``: slots whose ``fields`` differ from the level's start (either existing)."""
    changed = np.zeros(table.x.shape, bool)
    for name in fields:
        now, then = np.asarray(getattr(table, name)), np.asarray(getattr(start, name))
        differs = now != then
        changed |= differs.reshape(differs.shape[0], -1).any(axis=1)
    return changed & (np.asarray(table.exists) | np.asarray(start.exists))


def moving_kinds(name: str) -> list[str]:
    return changed_kinds(name, MOVING_FIELDS)


def repainted_kinds(name: str) -> list[str]:
    return changed_kinds(name, REPAINTED_FIELDS)


def changed_kinds(name: str, fields) -> list[str]:
    """The kinds of ``name`` whose slots' ``fields`` differ from their level's start at
    some frame of its recorded trace."""
    game = GAMES[name]
    recorded = json.loads(gzip.decompress(trace_path(name).read_bytes()))
    starts = recorded.get("start_levels") or [0] * len(recorded["episodes"])
    bank = bank_of(game)
    changed = set()

    def seen(table, level):
        start = jax.tree.map(lambda leaf: np.asarray(leaf)[int(level)], bank.table)
        kinds = np.asarray(table.kind)[_changed_slots(table, start, fields)]
        changed.update(game.kinds[k] for k in kinds.tolist())

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
    return sorted(changed)


if __name__ == "__main__":
    for name in sys.argv[1:] or sorted(GAMES):
        game = GAMES[name]
        moving = moving_kinds(name)
        still = [kind for kind in game.kinds if kind not in moving]
        repainted = repainted_kinds(name)
        found = {"game": name, "moving": moving, "static": still, "repainted": repainted}
        print(json.dumps(found), flush=True)
