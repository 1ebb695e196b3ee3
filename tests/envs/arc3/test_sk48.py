"""sk48's edges: its own undo (ACTION7, not the engine's) puts the arms and blocks back
but keeps the selection and the moves spent, and does nothing at the level's start; a
move that changes nothing still spends one; the level data is refused where the port's
arms could not stand for the original's (the recorded traces hold the rest against the
official file)."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import sk48, sk48_levels

STEP = jax.jit(lambda state, action: env.step(state, action, sk48.GAME))
UP, DOWN, LEFT, RIGHT = (Action(a) for a in (1, 2, 3, 4))
UNDO = Action(7)


def arms_and_blocks(state):
    memory = state.memory
    return [np.asarray(memory[name]) for name in ("base", "count", "block")]


def play(state, actions):
    for action in actions:
        state, _, info = STEP(state, action)
    return state, info


def test_undo_puts_arms_and_blocks_back_but_keeps_the_selection_and_moves_spent():
    state, _ = env.reset(sk48.GAME, 3)  # five arms; the first, unpaired, is selected
    start = arms_and_blocks(state)
    state, _ = play(state, [UP, RIGHT])  # the selected arm slides up and grows
    moved = arms_and_blocks(state)
    state, _ = play(state, [Action(6, 36, 57)])  # the pair of arm 1: arm 1 selected
    state, _ = play(state, [DOWN])  # arm 1 grows down
    assert int(state.memory["selected"]) == 1
    state, _ = play(state, [UNDO])
    for now, then in zip(arms_and_blocks(state), moved, strict=True):
        np.testing.assert_array_equal(now, then)
    assert int(state.memory["selected"]) == 1  # the selection is not undone
    assert int(state.memory["moves_left"]) == sk48_levels.BUDGET - 3  # nor the moves
    state, _ = play(state, [UNDO, UNDO])
    for now, then in zip(arms_and_blocks(state), start, strict=True):
        np.testing.assert_array_equal(now, then)
    state, _ = play(state, [UNDO])  # the level's start: nothing left to undo
    for now, then in zip(arms_and_blocks(state), start, strict=True):
        np.testing.assert_array_equal(now, then)
    assert int(state.memory["history_size"]) == 1


def test_a_move_that_changes_nothing_spends_one_and_makes_one_frame():
    state, _ = env.reset(sk48.GAME, 0)
    state, info = play(state, [LEFT])  # an arm of two segments shrinks to one
    assert int(info["frame_count"]) == 2
    before = arms_and_blocks(state)
    state, info = play(state, [LEFT])  # one segment: it does not shrink
    assert int(info["frame_count"]) == 1
    for now, then in zip(arms_and_blocks(state), before, strict=True):
        np.testing.assert_array_equal(now, then)
    assert int(state.memory["moves_left"]) == sk48_levels.BUDGET - 2


def _with_sprites(level, sprites):
    return dataclasses.replace(level, sprites=tuple(sprites))


def test_a_segment_of_no_arm_is_refused_naming_the_level():
    level = sk48_levels.DATA.levels[0]
    segment = next(s for s in level.sprites if s.kind == sk48_levels.SEGMENT)
    stray = dataclasses.replace(segment, x=47, y=12)
    with pytest.raises(ValueError, match=r"sk48 level .*a segment belongs to no arm"):
        sk48_levels.level_of(_with_sprites(level, [*level.sprites, stray]))


def test_an_arm_paired_with_another_above_the_bar_is_refused():
    level = sk48_levels.DATA.levels[0]
    base = next(s for s in level.sprites if sk48_levels.BASE_TAG in s.tags and s.y < 53)
    segment = next(
        s for s in level.sprites if (s.kind, s.x, s.y) == (sk48_levels.SEGMENT, base.x, base.y)
    )
    other = [dataclasses.replace(base, y=base.y - 6), dataclasses.replace(segment, y=base.y - 6)]
    with pytest.raises(ValueError, match="a pair is above the bar"):
        sk48_levels.level_of(_with_sprites(level, [*level.sprites, *other]))


def test_a_game_offers_undo_only_as_the_engines_or_its_rules():
    assert 7 in sk48.GAME.available_actions and sk48.GAME.undo_in_rule
    fields = _fields(sk48.GAME)
    with pytest.raises(ValueError, match="undo one way only"):
        Game(**{**fields, "undo_depth": 4})
    with pytest.raises(ValueError, match="offered if and only if undo_depth > 0 or undo_in_rule"):
        Game(**{**fields, "undo_in_rule": False})  # ACTION7 offered to no one
    with pytest.raises(ValueError, match="offered if and only if"):
        Game(**{**fields, "available_actions": (1, 2, 3, 4, 6)})  # an undo never offered


def test_a_segment_in_two_arms_is_refused():
    level = sk48_levels.DATA.levels[0]
    base = next(s for s in level.sprites if sk48_levels.BASE_TAG in s.tags and s.y < 53)
    # a second base of another colour on the first's cell, facing the same way
    other = dataclasses.replace(base, kind="xtuqlbebvk")
    with pytest.raises(ValueError, match="is in two arms"):
        sk48_levels.level_of(_with_sprites(level, [*level.sprites, other]))


def _fields(game):
    return {f.name: getattr(game, f.name) for f in dataclasses.fields(game)}
