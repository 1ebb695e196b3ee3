"""Diagnostics on demand: reward map, region means, regret and rank."""

import jax
import numpy as np

from gridax.envs import forage


def test_diagnostics_on_demand():
    config = forage.make_config("ForagaxBig-v5")
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), 3), config)
    report = forage.diagnostics(states, config)
    assert report["reward_map"].shape == (3, 28, 28) and report["region_means"].shape == (3, 5)
    assert np.asarray(report["region"]).tolist() == [4, 4, 4]  # the centre is in the void
    assert (np.asarray(report["regret"]) >= 0).all() and (np.asarray(report["rank"]) >= 1).all()
    means = np.asarray(report["region_means"])
    np.testing.assert_allclose(report["regret"], means.max(1) - means[:, 4], rtol=1e-6)
