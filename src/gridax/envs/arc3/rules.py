"""What a game rule calls: arcengine's ``complete_action``, ``next_level``, ``win``,
``lose``, ``try_move``, ``get_sprite_at``, ``display_to_grid`` and ``Sprite.merge``, for
one env's :class:`Arc3State`."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Int32

from gridax.envs.arc3 import camera as cam
from gridax.envs.arc3 import collision, sprites
from gridax.envs.arc3.types import ACTION1, ACTION2, ACTION3, ACTION4, GAME_OVER, WIN, Arc3State

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


# (dx, dy) of each action id: ACTION1-4 are up, down, left and right (arcengine's
# convention), every other action moves nothing.
_ARROWS = tuple(
    {ACTION1: (0, -1), ACTION2: (0, 1), ACTION3: (-1, 0), ACTION4: (1, 0)}.get(a, (0, 0))
    for a in range(8)
)


def arrow_step(action) -> Int32[Array, "2"]:
    """``(dx, dy)`` of an arrow action (ACTION1-4: up, down, left, right), else zeros."""
    return jnp.asarray(_ARROWS, jnp.int32)[action.id]


def covered(state: Arc3State, under: int, over: int) -> jax.Array:
    """Every existing sprite of kind ``under`` has one of kind ``over`` on its cell."""
    table = state.table
    overs = table.exists & (table.kind == over)
    unders = table.exists & (table.kind == under)
    same_cell = (table.x[:, None] == table.x[None, :]) & (table.y[:, None] == table.y[None, :])
    return jnp.all(jnp.any(same_cell & overs[None, :], axis=1) | ~unders)


def slot_of(state: Arc3State, kind: int):
    """The first existing slot of ``kind`` (arcengine's first sprite by name), or 0."""
    return jnp.argmax(state.table.exists & (state.table.kind == kind)).astype(jnp.int32)


def try_move(
    state: Arc3State, slot, dx, dy, game, size: int | None = None
) -> tuple[Arc3State, jnp.ndarray]:
    """Moves sprite ``slot`` unless it would collide: ``(state, hit)`` (``hit``: the
    slots it would collide with). ``size`` (static) bounds the moving sprite's drawn
    width and height when the game knows it smaller than ``game.reach`` (a 1x1 player):
    the collision test reads ``size`` squared cells of every sprite instead of
    ``reach`` squared. A sprite drawn larger than ``size`` would miss collisions."""
    reach = game.reach if size is None else size
    table, hit = collision.try_move(state.table, slot, dx, dy, reach, game.max_downscale)
    return eqx.tree_at(lambda s: s.table, state, table), hit


def sprite_at(state: Arc3State, x, y, game, tag: int | None = None):
    """The slot of the sprite at world cell ``(x, y)``, or -1 (arcengine's
    ``get_sprite_at``: highest layer first, collidable sprites only)."""
    return collision.sprite_at(state.table, x, y, tag, max_downscale=game.max_downscale)


def clicked_cell(state: Arc3State, action):
    """``(x, y, on_view)``: the world cell under a click (arcengine's
    ``display_to_grid``; ``on_view`` false where it answers None)."""
    return cam.screen_to_world(state.camera, action.x, action.y)


def merge(state: Arc3State, a, b, game) -> Arc3State:
    """Sprite ``b`` merged into sprite ``a`` (:func:`gridax.envs.arc3.sprites.merge`)."""
    table = sprites.merge(state.table, a, b, game.max_downscale)
    return eqx.tree_at(lambda s: s.table, state, table)


def set_pixel(state: Arc3State, slot, row, col, colour, when: Flag = True) -> Arc3State:
    """Pixel ``(row, col)`` of sprite ``slot`` set to ``colour`` (where ``when``)."""
    pixels = state.table.pixels
    new = jnp.where(when, jnp.int8(colour), pixels[slot, row, col])
    return eqx.tree_at(lambda s: s.table.pixels, state, pixels.at[slot, row, col].set(new))


def set_memory(state: Arc3State, index: int, value) -> Arc3State:
    """Game memory value ``index`` set to ``value``."""
    return eqx.tree_at(lambda s: s.memory, state, state.memory.at[index].set(value))
