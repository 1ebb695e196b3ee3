"""reset and step of an ARC-AGI-3 game, compiled once per game.

``step`` runs arcengine's ``perform_action`` (:mod:`gridax.envs.arc3.loop`) and returns
the frames the action made, ``[max_frames, 64, 64]``, padded by repeating the last one,
and their number (0 when nothing happened). An action the game does not offer, or a
click off the screen, is a no-op flagged in ``info`` when traced, and a ``ValueError``
naming it when ``step`` is called with concrete values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import core as jax_core

from gridax.dispatch import per_config
from gridax.envs.arc3.checks import check_action
from gridax.envs.arc3.game import Game
from gridax.envs.arc3.levels import build_bank, initial_state
from gridax.envs.arc3.loop import perform_action
from gridax.envs.arc3.types import Action, Arc3State


class _Compiled(NamedTuple):
    reset: Callable
    step: Callable
    batch_reset: Callable
    batch_step: Callable


def _compile(game: Game) -> _Compiled:
    # The bank outlives the call that builds it, which may be inside a caller's jit: its
    # arrays (the tables' converters make them JAX arrays) must be that trace's constants.
    with jax.ensure_compile_time_eval():
        bank = build_bank(game)

    def reset_one(start_level):
        state = initial_state(game, bank, start_level)
        return state, state.screen

    def step_one(state, action):
        return perform_action(state, action, game, bank)

    def batch_reset(num_envs: int, start_levels):
        return jax.vmap(reset_one)(jnp.broadcast_to(start_levels, (num_envs,)))

    return _Compiled(
        reset=jax.jit(reset_one),
        step=jax.jit(step_one),
        batch_reset=jax.jit(batch_reset, static_argnums=0),
        batch_step=jax.jit(jax.vmap(step_one)),
    )


_compiled = per_config(_compile)


def check_start_level(start_level, game: Game) -> None:
    """A concrete start level outside the game's levels is a ``ValueError``."""
    if isinstance(start_level, jax_core.Tracer):
        return
    levels = np.asarray(start_level)
    if levels.size and (levels.min() < 0 or levels.max() >= len(game.levels)):
        raise ValueError(
            f"{game.name}: start level {start_level} is not one of its levels "
            f"0-{len(game.levels) - 1}"
        )


def reset(game: Game, start_level: int | jax.Array = 0) -> tuple[Arc3State, jax.Array]:
    """The game before its first action (arcengine's ``NOT_PLAYED``) and its frame, on
    level ``start_level`` (0-based; arcengine's ``set_level`` on a new game). Games are
    deterministic: there is no key."""
    check_start_level(start_level, game)
    return _compiled(game).reset(start_level)


def step(state: Arc3State, action: Action, game: Game):
    """``(state, frames, info)`` after one action (module docstring); a concrete bad
    action is a ``ValueError`` (:func:`~gridax.envs.arc3.checks.check_action`)."""
    check_action(action, game)
    return _compiled(game).step(state, action)


def batch_reset(num_envs: int, game: Game, start_levels=0):
    """``num_envs`` new games, on ``start_levels`` (one level for all, or one per env)."""
    check_start_level(start_levels, game)
    return _compiled(game).batch_reset(num_envs, start_levels)


def batch_step(states: Arc3State, actions: Action, game: Game):
    check_action(actions, game)
    return _compiled(game).batch_step(states, actions)
