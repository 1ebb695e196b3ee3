"""The ARC-AGI-3 env's state and actions: arrays only, with pinned dtypes."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Int32

from gridax.envs.arc3.engine.camera import Camera
from gridax.envs.arc3.engine.sprites import SpriteTable
from gridax.fields import as_dtype

# arcengine's GameAction ids: RESET, ACTION1-5 (game-defined keys), ACTION6 (a click at
# screen x, y) and ACTION7 (undo).
RESET, ACTION1, ACTION2, ACTION3, ACTION4, ACTION5, CLICK, UNDO = range(8)
NUM_ACTIONS = 8
# arcengine's GameState.
NOT_PLAYED, NOT_FINISHED, WIN, GAME_OVER = range(4)
STATUS_NAMES = ("NOT_PLAYED", "NOT_FINISHED", "WIN", "GAME_OVER")


def select(pred, new, old):
    """``new`` if ``pred`` else ``old``, leaf by leaf, for one env's states (a leaf both
    share is passed through)."""
    return jax.tree.map(lambda a, b: a if a is b else jnp.where(pred, a, b), new, old)


class Action(eqx.Module):
    """An action: ``id`` (``RESET`` .. ``UNDO``) and, for ``CLICK``, the screen pixel
    ``(x, y)`` in 0-63 (ignored otherwise)."""

    id: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    x: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32), default=0)
    y: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32), default=0)


class Snapshot(eqx.Module):
    """What undo restores: the level's sprites, the camera and the game's memory."""

    table: SpriteTable
    camera: Camera
    memory: dict[str, Array]


class Arc3State(eqx.Module):
    """One game in play (or a batch: leading axes first).

    ``memory`` holds the game's own variables by name (``Game.memory``: moves left, keys
    held...), started again with each level but those it keeps. ``history`` is a stack
    of up to ``undo_depth`` snapshots, ``history_size`` deep, kept in a ring of
    ``undo_depth + 1`` from ``history_start`` (one slot always free; no slot for a game
    without undo).
    ``complete`` and ``pending_level`` are arcengine's action-completion and next-level
    flags; ``frame`` counts the frames of the action in progress (animations read it).
    The frame a state shows is drawn from it (``draw_frame``): it is not kept.
    """

    table: SpriteTable
    camera: Camera
    memory: dict[str, Array]
    level: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    score: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    status: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    action_count: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    complete: Bool[Array, "*b"] = eqx.field(converter=as_dtype(jnp.bool_))
    pending_level: Bool[Array, "*b"] = eqx.field(converter=as_dtype(jnp.bool_))
    frame: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    history: Snapshot
    history_size: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    history_start: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))


def frame_number(state: Arc3State) -> Int32[Array, ""]:
    """Which frame of the action the rule is making: 0 for the first."""
    return state.frame


def at_frame(state: Arc3State, frame) -> Arc3State:
    """``state`` as the rule sees it making frame ``frame`` of its action (a
    ``Game.finish`` jumps to an animation's last frame with it), or, after the action's
    last frame, ``frame`` the frames it took."""
    return eqx.tree_at(lambda s: s.frame, state, jnp.asarray(frame, jnp.int32))
