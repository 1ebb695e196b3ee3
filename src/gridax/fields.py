"""Helpers for the fields of state PyTrees."""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp


def pinned(dtype):
    """An ``eqx.Module`` field converted to ``dtype`` on construction, so a state's leaf
    dtypes never drift (a Python int or a wider array passed in is cast)."""
    return eqx.field(converter=lambda value: jnp.asarray(value, dtype=dtype))
