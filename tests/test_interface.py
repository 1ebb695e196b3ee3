"""gridax.Env, the contract every env implements, and the imports users already write."""

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax import spaces
from gridax.envs import arc, forage


def test_an_env_must_implement_the_whole_interface():
    class Half(gridax.Env):
        env_id: str = eqx.field(static=True)
        config: None = None
        kind: ClassVar[str] = "half"

        def reset(self, key, params=None):
            return None, None

    with pytest.raises(TypeError, match="abstract"):
        Half("Half-v0")


@pytest.mark.parametrize("env_id", ["ArcAgi1-v0", "ArcGen-Copy-v0", "ForagaxTwoBiome-v1"])
def test_registered_envs_are_gridax_envs_without_arrays(env_id):
    env = gridax.make(env_id)
    assert isinstance(env, gridax.Env) and env.kind in ("arc", "forage")
    assert not any(hasattr(leaf, "shape") for leaf in eqx.tree_flatten_one_level(env)[0])
    hash(env)  # static: jax.jit(env.step) works


def test_imports_written_before_the_move_still_work():
    from gridax.actions import ACTION_TYPES, PointAction
    from gridax.grid import GRID_SHAPE, live_mask

    assert PointAction is arc.PointAction and ACTION_TYPES["point"] is PointAction
    assert GRID_SHAPE == arc.GRID_SHAPE == (30, 30)
    assert np.asarray(live_mask(jnp.array([2, 3]))).sum() == 6
    assert forage.ForageState is gridax.envs.forage.types.ForageState


def test_a_dict_of_discretes_flattens_first_field_most_significant():
    space = gridax.make("ArcAgi1-v0").action_space
    assert space.flat_size == 35 * 30 * 30
    action = space.unflatten(jnp.array([0, 31, 34 * 900 + 29 * 30 + 28]))
    assert action.operation.tolist() == [0, 0, 34] and action.row.tolist() == [0, 1, 29]
    assert action.col.tolist() == [0, 1, 28]
    assert spaces.Dict({"a": spaces.Box(0, 1, (2,))}).flat_size is None
