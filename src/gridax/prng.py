"""PRNG keys as raw ``uint32[2]`` data, so env states serialise as plain arrays."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Key, UInt32


def key_data(key: Key[Array, ""] | UInt32[Array, "2"]) -> UInt32[Array, "2"]:
    """Raw uint32 key data from a typed key or a legacy ``PRNGKey``."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    if key.shape != (2,) or key.dtype != jnp.uint32:
        raise ValueError(
            f"key must be one PRNG key (jax.random.key(seed) or jax.random.PRNGKey(seed)), "
            f"got an array of shape {key.shape} and dtype {key.dtype}"
        )
    return key


def batch_key_data(keys) -> UInt32[Array, "batch 2"]:
    """Raw key data of a batch of keys (``jax.random.split(key, num_envs)``)."""
    if jnp.issubdtype(keys.dtype, jax.dtypes.prng_key):
        keys = jax.random.key_data(keys)
    if keys.ndim != 2 or keys.shape[-1] != 2 or keys.dtype != jnp.uint32:
        raise ValueError(
            "batch_reset takes a batch of keys (jax.random.split(key, num_envs)), "
            f"got key data of shape {keys.shape} and dtype {keys.dtype}"
        )
    return keys
