"""Regrowth: named delay kinds, delays drawn as documented, objects regrowing in place."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs import forage
from gridax.envs.forage import kinds, regrowth
from tests.envs.forage.helpers import rollout


def test_delays_are_encoded_by_named_kind():
    assert kinds.encode_delay(None)[0] == kinds.NEVER
    assert kinds.encode_delay(("uniform", 3, 9)) == (kinds.UNIFORM, 3.0, 9.0)
    assert kinds.encode_delay(("normal", 300, 30)) == (kinds.NORMAL, 300.0, 30.0)
    with pytest.raises(ValueError, match="regen must be None, \\('uniform', lo, hi\\)"):
        forage.ObjectType("x", regen=("poisson", 1, 2))


def draws(rule, n=20_000):
    u = jax.random.uniform(jax.random.key(0), (n, regrowth.DELAY_DRAWS))
    delay, permanent = jax.vmap(lambda x: regrowth.draw_delay(x, jnp.asarray(rule)))(u)
    return np.asarray(delay), np.asarray(permanent)


def test_delays_follow_their_kind():
    delay, permanent = draws(kinds.encode_delay(("uniform", 3, 6)))
    assert set(np.unique(delay)) == {3, 4, 5} and not permanent.any()
    delay, _ = draws(kinds.encode_delay(("uniform", 7, 7)))
    assert set(np.unique(delay)) == {7}
    delay, _ = draws(kinds.encode_delay(("normal", 10, 1)))
    assert abs(delay.mean() - 9.5) < 0.05 and delay.min() >= 0  # floor of N(10, 1)
    delay, _ = draws(kinds.encode_delay(("normal", 0, 5)))
    assert delay.min() == 0 and (delay == 0).mean() > 0.5  # cut at 0
    _, permanent = draws(kinds.encode_delay(None))
    assert permanent.all()


def test_static_worlds_keep_their_objects():
    config = forage.make_config("ForagaxTwoBiome-v1")
    keys = jax.random.split(jax.random.key(5), 8)
    states, _ = forage.batch_reset(keys, config)
    before = np.count_nonzero(np.asarray(states.cells.object), axis=(1, 2))
    actions = jax.random.randint(jax.random.key(6), (300, 8), 0, 4)
    states, rewards = rollout(config, keys, actions)
    after = np.count_nonzero(np.asarray(states.cells.object), axis=(1, 2))
    np.testing.assert_array_equal(before, after)  # regrowing objects stay in their cells
    assert set(np.unique(np.asarray(rewards))) <= {0.0, 30.0, 1.0, -1.0}
