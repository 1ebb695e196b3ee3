"""The centred reward's sums, kept step by step, equal sums over the grid."""

import jax
import numpy as np
import pytest

from gridax.envs import forage
from gridax.envs.forage import centring
from tests.envs.forage.helpers import rollout


@pytest.mark.parametrize(
    "env_id", ["ForagaxBig-v5", "ForagaxTwoBiome-v1", "ForagaxSineTwoBiome-v1"]
)
def test_centred_reward_sums_kept_step_by_step_match_the_grid(env_id):
    config = forage.make_config(env_id, center_reward=True, hint=False, aperture=3)
    structure = config.structure()
    keys = jax.random.split(jax.random.key(11), 4)
    actions = jax.random.randint(jax.random.key(12), (300, 4), 0, 4)
    states, rewards = rollout(config, keys, actions)
    assert np.isfinite(np.asarray(rewards)).all()
    for i in range(4):
        state = jax.tree.map(lambda x, i=i: x[i], states)
        total, count, calendar_total, calendar_count = centring.food_sums(
            state, state.food.value, structure.horizon
        )
        assert int(state.food.count) == int(count) and int(state.food.count) > 0
        np.testing.assert_allclose(state.food.total, total, rtol=1e-5, atol=1e-3)
        np.testing.assert_array_equal(state.food.calendar_count, calendar_count)
        np.testing.assert_allclose(state.food.calendar_total, calendar_total, rtol=1e-5, atol=1e-3)
