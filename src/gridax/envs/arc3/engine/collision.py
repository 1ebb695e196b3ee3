"""Collisions, moves that stop at them, and what a click lands on (arcengine's
``collides_with``, ``try_move`` and ``get_sprite_at``).

Two sprites collide when both exist and are collidable, neither is ``NOT_BLOCKED``, their
drawn boxes overlap and, if either blocks pixel by pixel, some cell holds a non-transparent
pixel of both. ``reach`` (static) bounds a sprite's drawn size for the pixel test.
``static``: where the level bank holds static sprites' pixels (:class:`StaticPixels`).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Int32

from gridax.envs.arc3.engine.sprites import (
    Blocking,
    SpriteTable,
    StaticPixels,
    all_pixels_at,
    drawn_size,
    pixel_at,
)


def collisions(
    table: SpriteTable,
    i,
    reach: int,
    max_downscale: int = 1,
    static: StaticPixels | None = None,
    among=None,
) -> Bool[Array, " N"]:
    """Which slots sprite ``i`` collides with where it stands: ``[N]``, or with
    ``among`` (slot indices ``[k]``, -1 for none) those slots' ``[k]``, which is
    cheaper by the slots left out (a rule that asks about its targets only)."""
    heights, widths = drawn_size(table)
    slots = jnp.arange(table.x.shape[-1])
    listed = True
    if among is not None:
        listed = jnp.asarray(among) >= 0
        slots = jnp.maximum(jnp.asarray(among, jnp.int32), 0)

    def of_others(column):  # a column's values for the slots tested
        return column if among is None else column[slots]

    others = jax.tree.map(of_others, table)
    height, width = of_others(heights), of_others(widths)
    boxes_overlap = (
        (table.x[i] < others.x + width)
        & (others.x < table.x[i] + widths[i])
        & (table.y[i] < others.y + height)
        & (others.y < table.y[i] + heights[i])
    )
    can = (
        others.exists
        & table.exists[i]
        & others.collidable
        & table.collidable[i]
        & (others.blocking != Blocking.NOT_BLOCKED)
        & (table.blocking[i] != Blocking.NOT_BLOCKED)
        & (slots != i)
        & listed
    )
    # Every cell of sprite i's drawn box, read in every other sprite.
    rows = jnp.arange(reach, dtype=jnp.int32)[:, None]
    cols = jnp.arange(reach, dtype=jnp.int32)[None, :]
    own = pixel_at(table, i, rows, cols, max_downscale, static) != -1
    shape = (slots.shape[0], reach, reach)
    pixels = all_pixels_at(
        others,
        jnp.broadcast_to(rows[None] + table.y[i] - others.y[:, None, None], shape),
        jnp.broadcast_to(cols[None] + table.x[i] - others.x[:, None, None], shape),
        max_downscale,
        static,
        slots,
    )
    pixels_meet = jnp.any(own[None] & (pixels != -1), axis=(1, 2))
    per_pixel = (others.blocking == Blocking.PIXEL_PERFECT) | (
        table.blocking[i] == Blocking.PIXEL_PERFECT
    )
    return can & boxes_overlap & jnp.where(per_pixel, pixels_meet, True)


def try_move(
    table: SpriteTable,
    i,
    dx,
    dy,
    reach: int,
    max_downscale: int = 1,
    static: StaticPixels | None = None,
) -> tuple[SpriteTable, Bool[Array, " N"]]:
    """Moves sprite ``i`` by ``(dx, dy)`` unless it would then collide with something:
    ``(table, hit)``, ``hit`` the slots it would collide with (none: it moved)."""
    moved = eqx.tree_at(lambda t: (t.x, t.y), table, (table.x.at[i].add(dx), table.y.at[i].add(dy)))
    hit = collisions(moved, i, reach, max_downscale, static)
    blocked = jnp.any(hit)
    x = jnp.where(blocked, table.x, moved.x)
    y = jnp.where(blocked, table.y, moved.y)
    return eqx.tree_at(lambda t: (t.x, t.y), table, (x, y)), hit


def sprite_at(
    table: SpriteTable,
    x,
    y,
    tag: int | None = None,
    ignore_collidable: bool = False,
    max_downscale: int = 1,
    static: StaticPixels | None = None,
) -> Int32[Array, ""]:
    """The slot of the sprite at world cell ``(x, y)``, or -1: the highest layer first
    (equal layers in sprite order), skipping non-collidable sprites unless
    ``ignore_collidable``, transparent pixels of pixel-perfect sprites, and (with a
    ``tag`` id) sprites without the tag."""
    slots = jnp.arange(table.x.shape[-1])
    height, width = drawn_size(table)
    local_rows, local_cols = y - table.y, x - table.x
    inside = (local_rows >= 0) & (local_cols >= 0) & (local_rows < height) & (local_cols < width)
    pixels = all_pixels_at(table, local_rows, local_cols, max_downscale, static)
    solid = (table.blocking != Blocking.PIXEL_PERFECT) | (pixels != -1)
    hit = table.exists & inside & solid
    if not ignore_collidable:
        hit = hit & table.collidable
    if tag is not None:
        hit = hit & table.tags[:, tag]
    # The highest layer wins, then the earliest in sprite order (then the last slot, as
    # a stable sort would rank equal keys). Two reductions, not a sort: XLA's CPU sort
    # of a batch of small rows cost more than the whole rest of a click.
    top = hit & (table.layer == jnp.max(jnp.where(hit, table.layer, jnp.iinfo(jnp.int32).min)))
    first = top & (table.order == jnp.min(jnp.where(top, table.order, jnp.iinfo(jnp.int32).max)))
    return jnp.max(jnp.where(first, slots, -1)).astype(jnp.int32)
