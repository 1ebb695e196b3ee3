"""ka59's painting (``games/ka59.py``): a block's centre and frame, a bomb's count."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.ka59_levels import (
    BLOCK,
    BOMB,
    FRAMED,
    LINE,
    PIXELS,
    TAGS,
    TICKED,
    TOUCHING,
)
from gridax.envs.arc3.games.ka59_shoves import shape


def tag(name: str) -> int:
    return TAGS.index(name)


def grid_masks(state):
    """``(rows, cols, inside)``: each slot's grid indices and its own ``height x width``."""
    table = state.table
    rows = jnp.arange(PIXELS)[None, :, None]
    cols = jnp.arange(PIXELS)[None, None, :]
    inside = (rows < table.height[:, None, None]) & (cols < table.width[:, None, None])
    return rows, cols, inside


def edges(height, width):
    """``[4, P, P]``: the top, bottom, left and right edges of a grid of ``height x
    width`` pixels (the rest of the :data:`PIXELS` grid outside them all)."""
    rows = jnp.arange(PIXELS)[:, None]
    cols = jnp.arange(PIXELS)[None, :]
    inside = (rows < height) & (cols < width)
    sides = jnp.broadcast_arrays(rows == 0, rows == height - 1, cols == 0, cols == width - 1)
    return jnp.stack(sides) & inside[None]


def centre_cells(height, width):
    """A block's centre cells in its grid (the middle one, or two, of each side)."""
    rows = jnp.arange(PIXELS)[:, None]
    cols = jnp.arange(PIXELS)[None, :]
    down = jnp.where(height == 3, rows == 1, (rows >= 2) & (rows < 4))
    across = jnp.where(width == 3, cols == 1, (cols >= 2) & (cols < 4))
    return down & across


def mark(state, slot, colour, when=True):
    """Block ``slot``'s centre painted ``colour``."""
    table = state.table
    grid = table.pixels[slot]
    centre = centre_cells(table.height[slot], table.width[slot])
    return rules.repaint(state, slot, jnp.where(centre, jnp.int8(colour), grid), when)


def side_cells(state):
    """``(x, y, real)``, each ``[4, LINE]``: the cells along the top, bottom, left and
    right of the selected block, just outside it."""
    table = state.table
    a = state.memory["selected"]
    x, y, height, width = table.x[a], table.y[a], table.height[a], table.width[a]
    along = jnp.arange(LINE)
    xs = jnp.stack([x + along, x + along, jnp.full(LINE, x - 1), jnp.full(LINE, x + width)])
    ys = jnp.stack([jnp.full(LINE, y - 1), jnp.full(LINE, y + height), y + along, y + along])
    real = along[None, :] < jnp.stack([width, width, height, height])[:, None]
    return xs, ys, real


def frame_blocks(state):
    """Every block's border painted 14, and each side of the selected block that touches
    another block, stone or bomb painted 0 (its whole row or column)."""
    m = state.memory
    table = state.table
    border = jnp.any(jax.vmap(edges)(table.height, table.width), axis=1)  # [N, P, P]
    blocks = rules.tagged(state, tag(BLOCK))
    pixels = jnp.where(blocks[:, None, None] & border, jnp.int8(FRAMED), table.pixels)
    state = rules.repaint(state, blocks, pixels)
    xs, ys, real = side_cells(state)
    a = m["selected"]

    def touched_by(other):
        solid = rules.in_boxes(xs, ys, shape(state, other)) & real
        return (other >= 0) & (other != a) & jnp.any(solid, axis=1)  # [4]

    sides = jnp.any(jax.vmap(touched_by)(m["by_kind"]), axis=0)
    line = jnp.any(edges(table.height[a], table.width[a]) & sides[:, None, None], axis=0)
    grid = state.table.pixels[a]
    return rules.repaint(state, a, jnp.where(line, jnp.int8(TOUCHING), grid))


def tick_bombs(state):
    """Each bomb's first row not yet 12 painted 12: ``(state, exploded)``, ``[MAX_BOMBS]``
    the bombs whose last row that was."""
    table = state.table
    rows, cols, inside = grid_masks(state)
    left = table.pixels[:, :, 0]  # [N, P]
    unticked = (left != TICKED) & (jnp.arange(PIXELS)[None, :] < table.height[:, None])
    some = jnp.any(unticked, axis=1)
    first = jnp.argmax(unticked, axis=1)
    bombs = rules.tagged(state, tag(BOMB)) & some
    row = inside & (rows == first[:, None, None]) & bombs[:, None, None]
    state = rules.repaint(state, bombs, jnp.where(row, jnp.int8(TICKED), table.pixels))
    exploded = bombs & (first == table.height - 1)
    slots = state.memory["bombs"]
    return state, (slots >= 0) & exploded[jnp.maximum(slots, 0)]
