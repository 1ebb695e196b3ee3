"""ARC's canvas: padded grids and their helpers.

Every ARC grid lives on a fixed ``GRID_SIZE x GRID_SIZE`` canvas with its live
height and width stored beside it; cells outside the live rectangle are zero. The
whole-grid transforms (flips, a quarter turn) are here because both generated tasks and
augmentation use them.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int, Int8, Int32, UInt32

from gridax.geometry import box_mask, coordinates

GRID_SIZE = 30
GRID_SHAPE = (GRID_SIZE, GRID_SIZE)
NUM_COLOURS = 10


def canvas_coordinates(
    grid_shape: tuple[int, int] = GRID_SHAPE, batch_ndim: int = 0
) -> tuple[Int[Array, "*ones H 1"], Int[Array, "*ones 1 W"]]:
    """Row and column indices shaped to broadcast against ``(*batch, H, W)`` arrays."""
    return coordinates(grid_shape, batch_ndim)


def canvas_box(top, left, bottom, right) -> Bool[Array, "*batch 30 30"]:
    """The canvas cells of a rectangle, corners included."""
    return box_mask(top, left, bottom, right, GRID_SHAPE)


def live_mask(
    shape: Int[Array, "*batch 2"], grid_shape: tuple[int, int] = GRID_SHAPE
) -> Bool[Array, "*batch H W"]:
    """Cells inside the live ``(height, width)`` rectangle anchored at the top-left."""
    rows, cols = canvas_coordinates(grid_shape, shape.ndim - 1)
    height = shape[..., 0][..., None, None]
    width = shape[..., 1][..., None, None]
    return (rows < height) & (cols < width)


# NumPy, not jnp, so that importing gridax does not start a JAX backend.
_BIT_WEIGHTS = np.left_shift(np.uint32(1), np.arange(GRID_SIZE, dtype=np.uint32))


def pack_rows(mask: Bool[Array, "*batch H W"]) -> UInt32[Array, "*batch H"]:
    """Packs each row of a boolean mask into one uint32 word (bit c = column c)."""
    weights = _BIT_WEIGHTS[: mask.shape[-1]].reshape((1,) * (mask.ndim - 1) + (-1,))
    return jnp.sum(jnp.where(mask, weights, jnp.uint32(0)), axis=-1, dtype=jnp.uint32)


def unpack_rows(
    bits: UInt32[Array, "*batch H"], width: int = GRID_SIZE
) -> Bool[Array, "*batch H W"]:
    """Inverse of :func:`pack_rows`."""
    weights = _BIT_WEIGHTS[:width].reshape((1,) * bits.ndim + (width,))
    return (bits[..., None] & weights) != 0


def gather(grid, source_rows, source_cols, keep) -> Int8[Array, "30 30"]:
    """``grid[source_rows, source_cols]`` where ``keep`` (clipped to the canvas), else 0."""
    rows = jnp.clip(source_rows, 0, GRID_SIZE - 1)
    cols = jnp.clip(source_cols, 0, GRID_SIZE - 1)
    return jnp.where(keep, grid[rows, cols], jnp.int8(0))


def flip_horizontal(grid, shape) -> tuple[Int8[Array, "30 30"], Int32[Array, " 2"]]:
    """The live grid mirrored left-right."""
    rows, cols = canvas_coordinates()
    return gather(grid, rows, shape[1] - 1 - cols, live_mask(shape)), shape


def flip_vertical(grid, shape) -> tuple[Int8[Array, "30 30"], Int32[Array, " 2"]]:
    """The live grid mirrored top-bottom."""
    rows, cols = canvas_coordinates()
    return gather(grid, shape[0] - 1 - rows, cols, live_mask(shape)), shape


def rotate(grid, shape) -> tuple[Int8[Array, "30 30"], Int32[Array, " 2"]]:
    """The live grid turned clockwise: the cell at ``(i, j)`` goes to ``(j, h - 1 - i)``."""
    rows, cols = canvas_coordinates()
    rotated_shape = shape[::-1]
    return gather(grid, shape[0] - 1 - cols, rows, live_mask(rotated_shape)), rotated_shape
