"""vc33's edges that random play rarely reaches, as the official file plays them (its
answers, recorded once by tests/envs/arc3/arcengine/official.py): the last click of the
budget starting a swap loses when the swap ends, and a win on the last click wins."""

from __future__ import annotations

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import GAME_OVER, NOT_FINISHED, Action
from gridax.envs.arc3.games import vc33

OFF = (6, 63, 63)  # a click on no sprite: it only spends the budget
STEP = jax.jit(lambda state, action: env.step(state, action, vc33.GAME))


def play(level, actions):
    state, _ = env.reset(vc33.GAME, level)
    infos = []
    for action in actions:
        state, _, info = STEP(state, Action(*action))
        infos.append((int(info["status"]), int(info["levels_completed"]), int(info["frame_count"])))
    return infos


def test_the_last_click_starting_a_swap_loses_when_the_swap_ends():
    run = vc33.SOLUTIONS[5]  # its fifth click opens a swap of 60 frames
    infos = play(5, [*run[:4], *[OFF] * 45, run[4], OFF])
    assert infos[-3] == (NOT_FINISHED, 0, 1)
    assert infos[-2] == (GAME_OVER, 0, 61) and infos[-1][2] == 0


def test_a_win_on_the_last_click_of_the_budget_wins():
    infos = play(0, [*[OFF] * 47, *vc33.SOLUTIONS[0]])
    assert infos[-2] == (NOT_FINISHED, 0, 1) and infos[-1] == (NOT_FINISHED, 1, 2)
    assert np.all([status == NOT_FINISHED for status, _, _ in infos])
