"""sp80's water: streams that flow a cell a frame (``games/sp80.py`` describes the game).

A pour's streams are a list in memory of (cell, direction), in the original's order,
each once; the poured water is a grid over the level (``SPAN`` x ``SPAN`` cells from
(-1, -1)). What a stream meets is taken once as the pour starts (:func:`owners_at`):
nothing moves while water flows. :func:`flow` is a frame of the pour on memory alone,
so that a pour whose frames nobody sees runs without drawing anything
(``sp80.finish``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.sp80_levels import BAR, CUP, DEFLECTOR, FLOOR, NUM_SLOTS, SPAN, WATER
from gridax.envs.arc3.rules import Game

STREAMS = 64  # streams at once (random play and the solutions reach fewer)
# Empty, water, and the sprites a stream reacts to, in the original's order of tests.
EMPTY, IS_WATER, IS_BAR, IS_CUP, IS_DEFLECTOR, IS_FLOOR, OTHER = range(7)


def owners_at(state, game: Game):
    """``[SPAN, SPAN]``: the slot arcengine's ``get_sprite_at`` finds at each cell from
    (-1, -1), or -1 (every piece is on layer 0 while water flows). Taken as a pour starts
    (memory ``owners``): nothing moves while it flows, and the poured water, which does
    grow, is read from the water grid first."""
    cells = jnp.arange(SPAN) - 1
    xs, ys = jnp.meshgrid(cells, cells)
    at = jax.vmap(lambda x, y: rules.sprite_at(state, x, y, game))
    return at(xs.ravel(), ys.ravel()).reshape(SPAN, SPAN)


def kinds_of(state, owners):
    """``[SPAN, SPAN]``: what a stream meets at each cell (the original tests water,
    bars, cups, deflectors, floors in that order; a sprite with several tags is the
    first)."""
    tags = state.table.tags[jnp.maximum(owners, 0)]
    kind = jnp.select(
        [tags[..., WATER], tags[..., BAR], tags[..., CUP], tags[..., DEFLECTOR], tags[..., FLOOR]],
        [IS_WATER, IS_BAR, IS_CUP, IS_DEFLECTOR, IS_FLOOR],
        OTHER,
    )
    return jnp.where(owners >= 0, kind, EMPTY)


def append(streams, count, new, valid):
    """``new`` (``[k, 4]``) added after the first ``count`` streams where ``valid``, in
    order (those past ``STREAMS`` are lost: the levels never reach it)."""
    place = jnp.where(valid, count + jnp.cumsum(valid) - 1, STREAMS)
    return streams.at[place].set(new, mode="drop"), count + jnp.sum(valid, dtype=jnp.int32)


def cell(x, y):
    """``(inside, row, column)``: cell ``(x, y)`` in the span's grids (from (-1, -1))."""
    inside = (x >= -1) & (x < SPAN - 1) & (y >= -1) & (y < SPAN - 1)
    return inside, jnp.clip(y + 1, 0, SPAN - 1), jnp.clip(x + 1, 0, SPAN - 1)


def kind_at(kinds, x, y):
    """What a stream meets at cell ``(x, y)`` (outside the span: something)."""
    inside, row, column = cell(x, y)
    return jnp.where(inside, kinds[row, column], OTHER)


def push(streams, count, stream, when):
    """``stream`` appended to the new list unless the same one is there already."""
    index = jnp.arange(STREAMS)
    there = jnp.any(jnp.all(streams == stream[None, :], axis=1) & (index < count))
    return append(streams, count, stream[None, :], jnp.atleast_1d(when & ~there))


# What a frame of the pour changes in memory (:func:`flow`).
FLOWING = ("water", "streams", "count", "filled", "touched", "failed")


def obstacles(state):
    """``(owners, kinds)`` of the cells a pour's streams meet (they change not while it
    flows: nothing moves, and the water is read from its grid first)."""
    owners = state.memory["owners"].astype(jnp.int32)
    return owners, kinds_of(state, owners)


def flow(cells_met, m):
    """A frame of the pour on memory alone: every stream a cell on (module docstring), in
    order; ``cells_met`` is :func:`obstacles`, ``m`` and the result hold :data:`FLOWING`."""
    owners, sprites_met = cells_met

    def one(k, carry):  # stream k flows
        water, streams, count, filled, touched, failed = carry
        x, y, dx, dy = m["streams"][k]

        def owner(x, y):  # a slot, -2 for poured water, -1 for nothing, -3 off the span
            inside, row, column = cell(x, y)
            found = jnp.where(water[row, column], -2, owners[row, column])
            return jnp.where(inside, found, -3)

        def kind(x, y):
            inside, row, column = cell(x, y)
            return jnp.where(inside & water[row, column], IS_WATER, kind_at(sprites_met, x, y))

        def add(water, streams, count, cx, cy, sx, sy, when):
            inside, row, column = cell(cx, cy)
            water = water.at[row, column].set(water[row, column] | (when & inside))
            streams, count = push(streams, count, jnp.stack([cx, cy, sx, sy]), when)
            return water, streams, count

        tx, ty = x + dx, y + dy
        met, target = kind(tx, ty), owner(tx, ty)
        across = dy != 0
        sides = ((jnp.where(across, x - 1, x), jnp.where(across, y, y - 1)),
                 (jnp.where(across, x + 1, x), jnp.where(across, y, y + 1)))  # fmt: skip
        first, second = owner(*sides[0]), owner(*sides[1])
        water, streams, count = add(water, streams, count, tx, ty, dx, dy, met == EMPTY)
        streams, count = push(streams, count, jnp.stack([tx, ty, dx, dy]), met == IS_WATER)
        fills = (met == IS_CUP) & (first == target) & (second == target)
        filled = filled | ((jnp.arange(NUM_SLOTS) == target) & fills)
        turn_a = (met == IS_DEFLECTOR) & (first == target) & (second == -1)
        turn_b = (met == IS_DEFLECTOR) & (second == target) & (first == -1)
        water, streams, count = add(water, streams, count, x + dy, y - dx, dy, -dx, turn_a)
        water, streams, count = add(water, streams, count, x - dy, y + dx, -dy, dx, turn_b)
        spreads = (met == IS_BAR) | ((met == IS_CUP) & ~fills) | ((met == IS_DEFLECTOR) & ~turn_b)
        for cx, cy in sides:
            empty = kind(cx, cy) == EMPTY
            water, streams, count = add(water, streams, count, cx, cy, dx, dy, spreads & empty)
        floor = met == IS_FLOOR
        touched = touched | ((jnp.arange(NUM_SLOTS) == target) & floor)
        return water, streams, count, filled, touched, failed | floor

    no_streams = jnp.zeros((STREAMS, 4), jnp.int32), jnp.int32(0)
    start = (m["water"], *no_streams, m["filled"], m["touched"], m["failed"])
    # Only the listed streams flow (a batch loops until its longest list is done).
    flowed = jax.lax.fori_loop(0, m["count"], one, start)
    return dict(zip(FLOWING, flowed, strict=True))
