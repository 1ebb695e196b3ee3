"""PRNG keys as raw ``uint32[2]`` data, so env states serialise as plain arrays."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32, Key, UInt32


def require_array(name: str, value) -> None:
    """The check of a key argument that runs in Python on every call; the rest of
    :func:`check_key` runs where the key is converted, at trace time."""
    if not hasattr(value, "dtype"):
        raise TypeError(
            f"{name} must be a JAX PRNG key array (jax.random.key(seed)), got "
            f"{type(value).__name__} {value!r:.40}"
        )


def _data_layout(key) -> tuple[tuple[int, ...], object]:
    """Shape and dtype of ``key``'s raw data, read from its type (no device work)."""
    if not jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return tuple(key.shape), key.dtype
    if jax.random.key_impl(key) != "threefry2x32":
        raise ValueError(
            f"keys must use JAX's default threefry2x32 implementation, got a "
            f"{jax.random.key_impl(key)} key ({key.dtype})"
        )
    return (*key.shape, 2), jnp.dtype(jnp.uint32)


def check_key(key) -> None:
    """Raises unless ``key`` is one PRNG key: a typed key or a ``uint32[2]``."""
    require_array("key", key)
    shape, dtype = _data_layout(key)
    if shape != (2,) or dtype != jnp.uint32:
        raise ValueError(
            f"key must be one PRNG key (jax.random.key(seed) or jax.random.PRNGKey(seed)), "
            f"got an array of shape {shape} and dtype {dtype}"
        )


def check_batch_keys(keys) -> None:
    """Raises unless ``keys`` is a batch of PRNG keys (``jax.random.split(key, n)``)."""
    require_array("keys", keys)
    shape, dtype = _data_layout(keys)
    if len(shape) != 2 or shape[-1] != 2 or dtype != jnp.uint32:
        raise ValueError(
            "batch_reset takes a batch of keys (jax.random.split(key, num_envs)), "
            f"got key data of shape {shape} and dtype {dtype}"
        )


def _raw(keys) -> UInt32[Array, "*B 2"]:
    if jnp.issubdtype(keys.dtype, jax.dtypes.prng_key):
        return jax.random.key_data(keys)
    return keys


def key_data(key: Key[Array, ""] | UInt32[Array, "2"]) -> UInt32[Array, "2"]:
    """Raw uint32 key data from a typed key or a legacy ``PRNGKey``."""
    check_key(key)
    return _raw(key)


# Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as
# 1, 2, 3", SC 2011), the generator behind jax.random's default keys.
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA


def _rotate_left(x, bits: int):
    return (x << jnp.uint32(bits)) | (x >> jnp.uint32(32 - bits))


def threefry2x32(key: UInt32[Array, "2"], x0: UInt32[Array, " n"], x1: UInt32[Array, " n"]):
    """The Threefry-2x32 block function of ``key`` on counter pairs ``(x0, x1)``, written
    out round by round.

    jax.random's own lowering on CPU runs the rounds as a five-iteration while loop,
    tens of small kernels per call; written out, XLA fuses a whole draw into one kernel.
    """
    schedule = (key[0], key[1], key[0] ^ key[1] ^ jnp.uint32(_PARITY))
    x0, x1 = x0 + schedule[0], x1 + schedule[1]
    for group in range(5):
        for bits in _ROTATIONS[group % 2]:
            x0 = x0 + x1
            x1 = _rotate_left(x1, bits) ^ x0
        x0 = x0 + schedule[(group + 1) % 3]
        x1 = x1 + schedule[(group + 2) % 3] + jnp.uint32(group + 1)
    return x0, x1


def split_uniform(
    key: UInt32[Array, "2"], num_keys: int, num_uniforms: int
) -> tuple[UInt32[Array, "k 2"], Float32[Array, " u"]]:
    """``num_keys`` new keys and ``num_uniforms`` floats uniform in [0, 1) from one key,
    in one fused kernel: the per-step randomness of an env. The outputs are threefry
    blocks of distinct counters, so they are independent of each other and of the
    blocks any other key gives."""
    blocks = num_keys + (num_uniforms + 1) // 2
    counters = jnp.arange(blocks, dtype=jnp.uint32)
    high, low = threefry2x32(key, jnp.zeros_like(counters), counters)
    keys = jnp.stack([high[:num_keys], low[:num_keys]], axis=-1)
    words = jnp.concatenate([high[num_keys:], low[num_keys:]])[:num_uniforms]
    # 23 random mantissa bits under the exponent of 1.0: a float in [1, 2), minus one.
    floats = jax.lax.bitcast_convert_type((words >> 9) | jnp.uint32(0x3F800000), jnp.float32)
    return keys, floats - 1.0


def split(key: UInt32[Array, "2"], num: int) -> UInt32[Array, "num 2"]:
    """``num`` new raw keys from ``key`` in one fused kernel (see :func:`split_uniform`)."""
    return split_uniform(key, num, 0)[0]
