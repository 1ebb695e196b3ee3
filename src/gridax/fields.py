"""Helpers for the fields of state PyTrees."""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike


def as_dtype(dtype) -> Callable[[ArrayLike], Array]:
    """A converter for ``eqx.field(converter=...)``: the field becomes an array of
    ``dtype`` on construction, so a state's leaf dtypes never drift (a Python int or a
    wider array passed in is cast)."""

    def convert(value: ArrayLike) -> Array:
        return jnp.asarray(value, dtype=dtype)

    return convert
