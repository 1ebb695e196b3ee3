"""Arithmetic every forage rule shares: cell coordinates, normal draws, ordered sums.

All functions act on one env (``vmap`` adds the batch).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32, Int32


def cell_grid(height: int, width: int) -> tuple[Int32[Array, "H W"], Int32[Array, "H W"]]:
    """Row (y) and column (x) index of every cell."""
    shape = (height, width)
    return jax.lax.broadcasted_iota(jnp.int32, shape, 0), jax.lax.broadcasted_iota(
        jnp.int32, shape, 1
    )


def gaussian(u1, u2):
    """Standard normal draws from two uniforms in [0, 1) (Box-Muller). Cheaper to compile
    than ``jax.random.normal``, and lets one uniform draw feed a whole step."""
    return jnp.sqrt(-2.0 * jnp.log1p(-u1)) * jnp.cos((2 * math.pi) * u2)


def ordered_sum(terms: Float32[Array, "..."], axis: int = -1) -> Float32[Array, "..."]:
    """The sum over ``axis``, added pairwise in a fixed order.

    ``jnp.sum`` (and a matmul) may add in an order that depends on the batch size XLA
    vectorises over, which changes the last bit. Elementwise additions of halves (zeros
    pad to a power of two) give the same bits batched or not, on any number of devices,
    and along any axis: summing a leading axis of a row-major grid halves contiguous
    blocks, without a transpose.
    """
    terms = jnp.moveaxis(terms, axis, 0)
    size = terms.shape[0]
    padded = 1 << max(size - 1, 0).bit_length()
    if padded != size:  # the first halving, with the padding's zeros added in place
        half = padded // 2
        unpaired = terms[size - half : half]
        paired = terms[: size - half] + terms[half:]
        terms = jnp.concatenate([paired, unpaired + jnp.zeros_like(unpaired)], axis=0)
    while terms.shape[0] > 1:
        half = terms.shape[0] // 2
        terms = terms[:half] + terms[half:]
    return terms[0]


def ordered_sum_of(terms: Sequence) -> Float32[Array, "..."]:
    """:func:`ordered_sum` of ``jnp.stack(terms, -1)``, bit for bit, without stacking:
    XLA fuses the additions of a few separate terms into one pass, where the stacked
    form keeps every halving in memory."""
    padded = 1 << max(len(terms) - 1, 0).bit_length()
    terms = list(terms) + [jnp.zeros_like(terms[0])] * (padded - len(terms))
    while len(terms) > 1:
        half = len(terms) // 2
        terms = [terms[k] + terms[k + half] for k in range(half)]
    return terms[0]
