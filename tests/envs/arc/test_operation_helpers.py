"""The bit-row and batching helpers behind flood fill and the transforms."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs.arc import operations as ops


def bits(text):
    """'0110' (column 0 first) -> uint32 word."""
    return jnp.uint32(sum(1 << i for i, ch in enumerate(text) if ch == "1"))


def test_fill_along_rows_follows_links_both_ways():
    # Links: bit c joins columns c and c+1. Columns 1-4 form one run, 6-7 another.
    links = bits("01110010")
    seeds = bits("00010000")  # a seed at column 3
    assert int(ops._fill_along_rows(seeds, links)) == int(bits("01111000"))
    two_seeds = bits("01000001")  # columns 1 and 7
    assert int(ops._fill_along_rows(two_seeds, links)) == int(bits("01111011"))
    lonely = bits("00000100")  # column 5 has no links
    assert int(ops._fill_along_rows(lonely, links)) == int(lonely)


def test_flood_fill_under_nested_vmap_matches_single_calls():
    rng = np.random.default_rng(0)
    grids = jnp.asarray(rng.integers(0, 2, (2, 3, 30, 30)), dtype=jnp.int8)
    seeds = jnp.zeros((2, 3, 30, 30), dtype=bool).at[:, :, 4, 4].set(True)
    live = jnp.ones((30, 30), dtype=bool)
    nested = jax.vmap(jax.vmap(ops.flood_fill_region, in_axes=(0, 0, None)), in_axes=(0, 0, None))
    batched = nested(grids, seeds, live)
    for i in range(2):
        for j in range(3):
            single = ops.flood_fill_region(grids[i, j], seeds[i, j], live)
            np.testing.assert_array_equal(batched[i, j], single)


def test_transform_cells_reads_through_the_maps_and_skips_when_inactive():
    source = jnp.arange(900, dtype=jnp.int32).reshape(30, 30) % 7
    source = source.astype(jnp.int8)
    identity = jnp.arange(30, dtype=jnp.int32)
    shifted = jnp.where(identity + 1 < 30, identity + 1, 30)  # read the row below
    moved = ops.transform_cells(source, jnp.bool_(True), jnp.bool_(False), shifted, identity)
    np.testing.assert_array_equal(moved[:29], source[1:])
    assert bool(jnp.all(moved[29] == -1))  # the padding row
    rotated = ops.transform_cells(source, jnp.bool_(True), jnp.bool_(True), identity, identity)
    np.testing.assert_array_equal(rotated, source.T)
    skipped = ops.transform_cells(source, jnp.bool_(False), jnp.bool_(False), identity, identity)
    assert bool(jnp.all(skipped == -1))
    # Batched: one env active is enough for the batch to gather.
    both = jax.vmap(ops.transform_cells)(
        jnp.stack([source, source]),
        jnp.array([False, True]),
        jnp.array([False, False]),
        jnp.stack([identity, identity]),
        jnp.stack([identity, identity]),
    )
    np.testing.assert_array_equal(both[1], source)


def test_transform_cells_at_a_large_batch_matches_single_calls():
    # From 1,024 envs the gathers skip their bounds checks: the maps must stay in bounds.
    batch = 1024
    keys = jax.random.split(jax.random.key(0), 3)
    sources = jax.random.randint(keys[0], (batch, 30, 30), -1, 10).astype(jnp.int8)
    row_maps = jax.random.randint(keys[1], (batch, 30), 0, 31)  # 30: the padding row
    col_maps = jax.random.randint(keys[2], (batch, 30), 0, 31)
    rotates = jnp.arange(batch) % 3 == 0
    active = jnp.ones(batch, bool)
    batched = jax.vmap(ops.transform_cells)(sources, active, rotates, row_maps, col_maps)
    for i in (0, 1, 511, 1023):
        single = ops.transform_cells(sources[i], active[i], rotates[i], row_maps[i], col_maps[i])
        np.testing.assert_array_equal(batched[i], single)


@pytest.mark.parametrize("flooding", [0.1, 0.4, 1.0])
def test_flood_fill_of_a_large_batch_sweeps_its_flooding_envs_only(flooding):
    # From 64 envs the sweeps run on the flooding envs, compacted (N/4, N/2 or N of them).
    batch = 512
    rng = np.random.default_rng(1)
    grids = jnp.asarray(rng.integers(0, 3, (batch, 30, 30)), dtype=jnp.int8)
    floods = rng.random(batch) < flooding
    rows, cols = rng.integers(0, 30, batch), rng.integers(0, 30, batch)
    seeds = np.zeros((batch, 30, 30), bool)
    seeds[np.arange(batch), rows, cols] = floods
    live = jnp.asarray(np.arange(30)[:, None] < rng.integers(5, 31, (batch, 1, 1)))
    live = live & jnp.ones((batch, 30, 30), bool)
    batched = jax.vmap(ops.flood_fill_region)(grids, jnp.asarray(seeds), live)
    assert int(jnp.sum(jnp.any(batched, axis=(1, 2)))) == int(np.sum(floods & np.asarray(
        live[np.arange(batch), rows, cols])))  # fmt: skip
    for i in np.flatnonzero(floods)[:6].tolist() + np.flatnonzero(~floods)[:2].tolist():
        single = ops.flood_fill_region(grids[i], jnp.asarray(seeds[i]), live[i])
        np.testing.assert_array_equal(batched[i], single)
