"""reset and step of an ARC-AGI-3 game, compiled once per game.

``step`` runs arcengine's ``perform_action`` (:mod:`gridax.envs.arc3.engine.loop`) and returns
the frames the action made, ``[max_frames, 64, 64]``, padded by repeating the last one,
and their number (0 when nothing happened); with ``frames="last"`` (what an agent sees,
and far cheaper: no frame but the last is drawn) only the last, ``[1, 64, 64]``, with the
same state and info. An action the game does not offer, or a
click off the screen, is a no-op flagged in ``info`` when traced, and a ``ValueError``
naming it when ``step`` is called with concrete values.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import core as jax_core

from gridax.dispatch import per_config
from gridax.envs.arc3.engine.checks import check_action
from gridax.envs.arc3.engine.drawing import draw_frame
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.levels import bank_of, initial_state
from gridax.envs.arc3.engine.loop import FRAMES, check_frames, perform_action
from gridax.envs.arc3.engine.types import Action, Arc3State


class _Compiled(NamedTuple):
    reset: Callable
    step: dict[str, Callable]  # by frames: "all", "last"
    batch_reset: Callable
    batch_step: dict[str, Callable]
    frame: Callable


def reset_one(game: Game, start_level) -> tuple[Arc3State, jax.Array]:
    """One game on ``start_level`` with its first frame drawn (traceable)."""
    bank = bank_of(game)
    state = initial_state(game, bank, start_level)
    return state, draw_frame(state, game, bank)


def step_one(state: Arc3State, action: Action, game: Game, frames: str = "all"):
    """One env's action (traceable; ``frames`` static)."""
    return perform_action(state, action, game, bank_of(game), frames)


def _compile(game: Game) -> _Compiled:
    def batch_reset(num_envs: int, start_levels):
        reset = functools.partial(reset_one, game)
        return jax.vmap(reset)(jnp.broadcast_to(start_levels, (num_envs,)))

    steps = {frames: functools.partial(step_one, game=game, frames=frames) for frames in FRAMES}
    return _Compiled(
        reset=jax.jit(functools.partial(reset_one, game)),
        step={frames: jax.jit(one) for frames, one in steps.items()},
        batch_reset=jax.jit(batch_reset, static_argnums=0),
        batch_step={frames: jax.jit(jax.vmap(one)) for frames, one in steps.items()},
        frame=jax.jit(functools.partial(frame_of, game=game)),
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


def step(state: Arc3State, action: Action, game: Game, frames: str = "all"):
    """``(state, frames, info)`` after one action (module docstring); a concrete bad
    action is a ``ValueError`` (:func:`~gridax.envs.arc3.engine.checks.check_action`)."""
    check_action(action, game)
    check_frames(frames)
    return _compiled(game).step[frames](state, action)


def batch_reset(num_envs: int, game: Game, start_levels=0):
    """``num_envs`` new games, on ``start_levels`` (one level for all, or one per env)."""
    check_start_level(start_levels, game)
    return _compiled(game).batch_reset(num_envs, start_levels)


def batch_step(states: Arc3State, actions: Action, game: Game, frames: str = "all"):
    """:func:`step` of a batch."""
    check_action(actions, game)
    check_frames(frames)
    return _compiled(game).batch_step[frames](states, actions)


def frame_of(state: Arc3State, game: Game) -> jax.Array:
    """The frame ``state`` shows (``[*batch, 64, 64]``, any leading axes; traceable): the
    last one its last action made, drawn again (a frame is its state's, and a state does
    not keep it)."""
    batch = state.level.shape
    size = int(np.prod(batch))
    flat = jax.tree.map(lambda x: x.reshape((size, *x.shape[len(batch) :])), state)
    frames = jax.vmap(lambda one: draw_frame(one, game))(flat)
    return frames.reshape(*batch, *frames.shape[1:])


def frame(state: Arc3State, game: Game) -> jax.Array:
    """:func:`frame_of`, compiled once per game."""
    return _compiled(game).frame(state)
