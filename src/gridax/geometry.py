"""Cell coordinates and rectangles on a grid, for any env (ARC's canvas, forage worlds,
rendered pictures)."""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Bool, Int


def coordinates(
    shape: tuple[int, int], batch_ndim: int = 0
) -> tuple[Int[Array, "*ones H 1"], Int[Array, "*ones 1 W"]]:
    """Row and column indices shaped to broadcast against ``(*batch, H, W)`` arrays."""
    height, width = shape
    lead = (1,) * batch_ndim
    rows = jnp.arange(height, dtype=jnp.int32).reshape(lead + (height, 1))
    cols = jnp.arange(width, dtype=jnp.int32).reshape(lead + (1, width))
    return rows, cols


def box_mask(top, left, bottom, right, shape: tuple[int, int]) -> Bool[Array, "*batch H W"]:
    """The cells of the rectangle from ``(top, left)`` to ``(bottom, right)``, corners
    included, on a grid of ``shape``; the corners may carry batch axes."""
    corners = jnp.broadcast_arrays(top, left, bottom, right)
    rows, cols = coordinates(shape, corners[0].ndim)
    top, left, bottom, right = (c[..., None, None] for c in corners)
    return (rows >= top) & (rows <= bottom) & (cols >= left) & (cols <= right)
