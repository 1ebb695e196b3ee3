"""What a game rule calls: arcengine's ``complete_action``, ``next_level``, ``win``,
``lose`` and ``try_move``, for one env's :class:`Arc3State`."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.envs.arc3 import collision
from gridax.envs.arc3.types import GAME_OVER, WIN, Arc3State

Flag = bool | jax.Array  # a condition, traced or not


def complete(state: Arc3State, done: Flag = True) -> Arc3State:
    """Marks the action complete (where ``done``): no more frames after this one."""
    return eqx.tree_at(lambda s: s.complete, state, state.complete | done)


def win(state: Arc3State, when: Flag = True) -> Arc3State:
    return eqx.tree_at(lambda s: s.status, state, jnp.where(when, WIN, state.status))


def lose(state: Arc3State, when: Flag = True) -> Arc3State:
    return eqx.tree_at(lambda s: s.status, state, jnp.where(when, GAME_OVER, state.status))


def next_level(state: Arc3State, num_levels: int, when: Flag = True) -> Arc3State:
    """arcengine's ``next_level`` (where ``when``): one more level completed; the next
    level starts on the next frame, or the game is won after the last."""
    last = state.level == num_levels - 1
    state = eqx.tree_at(
        lambda s: (s.score, s.pending_level),
        state,
        (state.score + jnp.where(when, 1, 0), state.pending_level | (when & ~last)),
    )
    return win(state, when & last)


def slot_of(state: Arc3State, kind: int):
    """The first existing slot of ``kind`` (arcengine's first sprite by name), or 0."""
    return jnp.argmax(state.table.exists & (state.table.kind == kind)).astype(jnp.int32)


def try_move(state: Arc3State, slot, dx, dy, game) -> tuple[Arc3State, jnp.ndarray]:
    """Moves sprite ``slot`` unless it would collide: ``(state, hit)`` (``hit``: the
    slots it would collide with)."""
    table, hit = collision.try_move(state.table, slot, dx, dy, game.reach, game.max_downscale)
    return eqx.tree_at(lambda s: s.table, state, table), hit
