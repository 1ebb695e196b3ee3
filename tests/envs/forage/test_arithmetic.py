"""Shared arithmetic: normal draws from uniforms."""

import jax
import numpy as np

from gridax.envs.forage import arithmetic


def test_box_muller_draws_are_standard_normal():
    u = jax.random.uniform(jax.random.key(0), (2, 200_000))
    z = np.asarray(arithmetic.gaussian(u[0], u[1]))
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    assert abs(np.mean(np.abs(z) < 1.96) - 0.95) < 0.005
