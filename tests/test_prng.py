"""The written-out Threefry-2x32 against published answers and jax.random's own."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.prng import split_uniform, threefry2x32

# Known-answer vectors of Threefry-2x32 (20 rounds) from the Random123 distribution.
KNOWN_ANSWERS = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize(("key", "counter", "expected"), KNOWN_ANSWERS)
def test_threefry_known_answers(key, counter, expected):
    words = threefry2x32(
        jnp.array(key, jnp.uint32),
        jnp.array([counter[0]], jnp.uint32),
        jnp.array([counter[1]], jnp.uint32),
    )
    assert [int(w[0]) for w in words] == list(expected)


def test_threefry_matches_jax_random_bits():
    # With jax_threefry_partitionable (the default since jax 0.5), the i-th 32-bit word
    # of jax.random.bits is the xor of the two words of the block of counter (0, i).
    key = jax.random.key_data(jax.random.key(1234))
    counters = jnp.arange(8, dtype=jnp.uint32)
    high, low = threefry2x32(key, jnp.zeros_like(counters), counters)
    with jax.threefry_partitionable(True):
        theirs = jax.random.bits(jax.random.wrap_key_data(key), (8,), jnp.uint32)
    np.testing.assert_array_equal(high ^ low, theirs)


def test_split_uniform_ranges_and_independence():
    key = jax.random.key_data(jax.random.key(0))
    keys, floats = split_uniform(key, 3, 10_001)
    assert keys.shape == (3, 2) and keys.dtype == jnp.uint32
    assert floats.shape == (10_001,) and floats.dtype == jnp.float32
    assert float(floats.min()) >= 0.0 and float(floats.max()) < 1.0
    assert abs(float(floats.mean()) - 0.5) < 0.01
    assert len({tuple(map(int, k)) for k in keys} | {tuple(map(int, key))}) == 4
    # Same key, same numbers; another key, other numbers.
    np.testing.assert_array_equal(split_uniform(key, 3, 10_001)[1], floats)
    assert not np.array_equal(split_uniform(keys[0], 3, 10_001)[1], floats)
