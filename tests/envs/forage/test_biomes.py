"""Biomes: Foragax's spawn counts and layouts."""

import jax
import numpy as np
import pytest

from gridax.envs import forage

# Objects per id at reset, as Foragax places them (deterministic spawn) or close to it.
EXACT_COUNTS = {
    "ForagaxDiwali-v5": {1: 90},
    "ForagaxBig-v5": {1: 68},
    "ForagaxSquareWaveTwoBiome-v11": {1: 15, 2: 15, 3: 15, 4: 15, 5: 32},
    "ForagaxSineTwoBiome-v1": {1: 8, 2: 8, 3: 8, 4: 8},
    "ForagaxWeather-v5": {1: 15, 2: 15},
}
# Observation shapes of Foragax's make() defaults (5x5 aperture): color, then object.


@pytest.mark.parametrize("env_id", sorted(EXACT_COUNTS))
def test_deterministic_spawn_places_foragax_counts(env_id):
    config = forage.make_config(env_id)
    for seed in range(3):
        state, _ = forage.reset(jax.random.key(seed), config)
        counts = np.bincount(np.asarray(state.visible()).ravel(), minlength=8)
        assert {k: int(counts[k]) for k in EXACT_COUNTS[env_id]} == EXACT_COUNTS[env_id]


def test_big_v5_walls_fill_the_blocks_and_scatter():
    config = forage.make_config("ForagaxBig-v5")
    state, _ = forage.reset(jax.random.key(0), config)
    walls = np.asarray(state.visible()) == 2
    for x in (6, 20):
        for y in (6, 20):
            assert walls[y : y + 3, x : x + 3].sum() == 6
    assert 90 <= walls.sum() <= 103  # 79 scattered, some replaced by the 24 block walls
