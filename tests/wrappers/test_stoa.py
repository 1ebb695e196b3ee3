"""StoaEnv under Stoa's own wrappers (what Stoix stacks), with its spaces checked
against what the env returns; Stoa ships no env checker."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("stoa")
from stoa import AutoResetWrapper, RecordEpisodeMetrics  # noqa: E402
from stoa.core_wrappers.vmap import VmapWrapper  # noqa: E402
from stoa.env_types import StepType  # noqa: E402

import gridax  # noqa: E402
from gridax.wrappers.stoa import StoaEnv  # noqa: E402

from .adapters import check_bad_input_is_named  # noqa: E402


@pytest.mark.parametrize(
    ("env_id", "overrides"),
    [("ArcAgi1-v0", {}), ("ArcAgi1-v0", {"selection_format": "bbox"}), ("ForagaxBig-v5", {})],
)
def test_spaces_contain_what_the_env_returns(env_id, overrides):
    env = StoaEnv(env_id, **overrides)
    state, timestep = env.reset(jax.random.key(0))
    assert env.observation_space().contains(timestep.observation)
    for t in range(3):
        action = env.action_space().sample(jax.random.key(t))
        assert env.action_space().contains(action)
        state, timestep = jax.jit(env.step)(state, action)
        assert env.observation_space().contains(timestep.observation)
        assert env.reward_space().contains(timestep.reward)
        assert env.discount_space().contains(timestep.discount)


def test_step_types_and_discounts():
    env = StoaEnv("ArcAgi1-v0", max_episode_steps=1)
    state, timestep = env.reset(jax.random.key(1))
    assert timestep.first()
    noop = {"operation": 0, "row": 0, "col": 0}
    _, timestep = env.step(state, noop)
    assert timestep.truncated() and timestep.discount == 1  # the time limit: bootstrap
    submit = gridax.envs.arc.PointAction(operation=34, row=0, col=0)
    _, timestep = env.step(state, submit)
    assert timestep.terminated() and timestep.discount == 0


def test_stoix_style_stack_under_jit_vmap_scan():
    env = RecordEpisodeMetrics(AutoResetWrapper(StoaEnv("ForagaxTwoBiome-v1", episode_length=4)))
    env = VmapWrapper(env, num_envs=8)

    @jax.jit
    def rollout(key):
        state, timestep = env.reset(key)

        def one(state, key):
            state, timestep = env.step(state, jax.random.randint(key, (8,), 0, 4))
            return state, (timestep.step_type, timestep.extras["episode_metrics"])

        _, (types, metrics) = jax.lax.scan(one, state, jax.random.split(key, 9))
        return types, metrics

    with jax.numpy_dtype_promotion("standard"):  # Stoa's metrics mix bool and int
        types, metrics = rollout(jax.random.key(2))
    ended = jnp.all(types == StepType.TRUNCATED, axis=1)
    np.testing.assert_array_equal(ended, [t in (3, 7) for t in range(9)])
    np.testing.assert_array_equal(metrics["episode_length"][3], 4)


def test_bad_input_is_named():
    env, state = check_bad_input_is_named(StoaEnv)
    # Inside a trace nothing can raise: an operation out of range is a flagged no-op, as
    # in the ARC env itself.
    bad = {"operation": 40, "row": 0, "col": 0}
    next_state, timestep = jax.jit(env.step)(state, bad)
    assert timestep.extras["invalid_action"]
    np.testing.assert_array_equal(next_state.working_grid, state.working_grid)
