"""gridax.batching: the batched rules agree with the per-env semantics."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.batching import cond_rare, loop_to_largest


def _bump(operand):
    counts, grid = operand
    return counts + 1, grid * 2


def test_cond_rare_single_env_is_a_cond():
    operand = (jnp.int32(3), jnp.ones((2, 2), jnp.int8))
    out = cond_rare(jnp.bool_(True), _bump, operand)
    assert int(out[0]) == 4 and out[1].dtype == jnp.int8 and int(out[1].sum()) == 8
    out = cond_rare(jnp.bool_(False), _bump, operand)
    assert int(out[0]) == 3 and int(out[1].sum()) == 4


def test_cond_rare_batched_selects_per_env():
    pred = jnp.array([True, False, True])
    counts = jnp.array([0, 10, 20], jnp.int32)
    grid = jnp.ones((2, 2), jnp.int8)  # unbatched: broadcast to the batch
    out = jax.jit(jax.vmap(cond_rare, in_axes=(0, None, (0, None))), static_argnums=1)(
        pred, _bump, (counts, grid)
    )
    np.testing.assert_array_equal(out[0], [1, 10, 21])
    np.testing.assert_array_equal(out[1].sum(axis=(1, 2)), [8, 4, 8])


def test_cond_rare_batched_with_no_env_needing_it_changes_nothing():
    pred = jnp.zeros(4, bool)
    counts = jnp.arange(4, dtype=jnp.int32)
    out = jax.vmap(lambda p, c: cond_rare(p, lambda x: x + 100, c))(pred, counts)
    np.testing.assert_array_equal(out, counts)


def test_cond_rare_nested_vmap():
    pred = jnp.array([[True, False], [False, False]])
    counts = jnp.zeros((2, 2), jnp.int32)
    out = jax.vmap(jax.vmap(lambda p, c: cond_rare(p, lambda x: x + 1, c)))(pred, counts)
    np.testing.assert_array_equal(out, [[1, 0], [0, 0]])


def test_cond_rare_passes_per_env_arguments():
    pred = jnp.array([True, False, True])
    counts = jnp.zeros(3, jnp.int32)
    step = jnp.array([5, 6, 7], jnp.int32)
    out = jax.vmap(lambda p, c, s: cond_rare(p, lambda x, d: x + d, c, s))(pred, counts, step)
    np.testing.assert_array_equal(out, [5, 0, 7])


@pytest.mark.parametrize("chunks", [False, True])
def test_cond_rare_compacted_equals_every_env(chunks):
    """With ``compact_to`` the branch runs on a sub-batch of the envs that need it when
    they are few (here at most 2 of 16), on the whole batch otherwise (with ``chunks``:
    a sub-batch at a time): same outputs as the per-env cond, for none, one, a few, just
    too many and all envs needing it."""
    counts = jnp.arange(16, dtype=jnp.int32)
    grids = jnp.arange(16 * 4, dtype=jnp.int8).reshape(16, 2, 2)
    step = 3 * jnp.arange(16, dtype=jnp.int32)

    def bump(operand, d):
        count, grid = operand
        return count + d, grid * 2 + d.astype(jnp.int8)

    def compacted(p, c, g, s):
        return cond_rare(p, bump, (c, g), s, compact_to=1 / 8, chunks=chunks)

    def reference(p, c, g, s):
        return jax.lax.cond(p, bump, lambda o, _: o, (c, g), s)

    for needing in ([], [3], [15], [0, 9], [0, 9, 15], list(range(16))):
        pred = jnp.zeros(16, bool).at[jnp.array(needing, jnp.int32)].set(True)
        out = jax.jit(jax.vmap(compacted))(pred, counts, grids, step)
        expected = jax.vmap(reference)(pred, counts, grids, step)
        for got, want in zip(out, expected, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"envs needing it: {needing}")


def _fill_up_to(i, carry, limit, weights):
    """Adds weight ``i`` at place ``i`` while ``i < limit``: past an env's own count of
    passes (its ``limit``) a pass leaves the carry as it is, as loop_to_largest asks."""
    return carry.at[i].add(jnp.where(i < limit, weights[i], 0))


def test_loop_to_largest_batched_equals_each_env_looped_alone():
    limits = jnp.array([0, 2, 5, 3], jnp.int32)
    weights = jnp.arange(1, 7, dtype=jnp.int32)  # unbatched: the same table for every env
    init = jnp.zeros((4, 6), jnp.int32)

    def looped(limit, carry):
        return loop_to_largest(limit, _fill_up_to, carry, limit, weights)

    batched = jax.jit(jax.vmap(looped))(limits, init)
    alone = [looped(limit, carry) for limit, carry in zip(limits, init, strict=True)]
    np.testing.assert_array_equal(batched, np.stack(alone))
    np.testing.assert_array_equal(batched[2], [1, 2, 3, 4, 5, 0])
    np.testing.assert_array_equal(batched[0], np.zeros(6))


def test_loop_to_largest_with_an_unbatched_carry():
    init = jnp.zeros(3, jnp.int32)  # unbatched: broadcast to the batch
    out = jax.vmap(
        lambda n: loop_to_largest(n, lambda i, c, k: c.at[i].add(jnp.where(i < k, 1, 0)), init, n)
    )(jnp.array([1, 3], jnp.int32))
    np.testing.assert_array_equal(out, [[1, 0, 0], [1, 1, 1]])
