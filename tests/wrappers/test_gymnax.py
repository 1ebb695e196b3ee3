"""GymnaxEnv against gymnax's contract, with gymnax's own wrappers on top."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.actions import PointAction

pytest.importorskip("gymnax")
from gymnax.environments import environment  # noqa: E402
from gymnax.wrappers.purerl import FlattenObservationWrapper, LogWrapper  # noqa: E402

from gridax.wrappers import GymnaxEnv  # noqa: E402


@pytest.fixture(scope="module")
def arc_env():
    return GymnaxEnv(gridax.make("ArcAgi1-v0", max_episode_steps=3))


def test_six_values_auto_reset_and_final_observation(arc_env):
    params = arc_env.default_params
    assert isinstance(arc_env, environment.Environment)
    obs, state = arc_env.reset(jax.random.key(0), params)
    assert bool(arc_env.observation_space(params).contains(obs))
    for t in range(3):
        obs, state, reward, terminated, truncated, info = arc_env.step(
            jax.random.key(t), state, jnp.int32(0), params
        )
        assert bool(arc_env.observation_space(params).contains(obs))
        assert reward.dtype == jnp.float32 and not bool(terminated)
    # The third step truncates: the returned observation starts a new episode, and the
    # last one of the old episode is kept.
    assert bool(truncated) and int(obs.step_count) == 0 and int(state.step_count) == 0
    assert int(info["final_observation"].step_count) == 3


def test_submit_terminates(arc_env):
    params = arc_env.default_params
    _, state = arc_env.reset(jax.random.key(0), params)
    submit = 34 * 900  # operation 34 (submit) at cell (0, 0)
    _, _, _, terminated, truncated, _ = arc_env.step(jax.random.key(1), state, submit, params)
    assert bool(terminated) and not bool(truncated)


def test_legacy_five_values():
    env = GymnaxEnv(gridax.make("ForagaxTwoBiome-v1", episode_length=2), legacy_step=True)
    params = env.default_params
    obs, state = env.reset(jax.random.key(0), params)
    out = env.step(jax.random.key(1), state, 0, params)
    assert len(out) == 5 and not bool(out[3]) and float(out[4]["discount"]) == 1.0
    out = env.step(jax.random.key(2), out[1], 0, params)
    assert bool(out[3]) and int(out[1].time) == 0  # done, and reset inside step


def test_flat_actions_decode_to_point_actions(arc_env):
    assert arc_env.num_actions == 35 * 30 * 30
    action = arc_env.env.action_space.unflatten(jnp.array([0, 31, 34 * 900 + 29 * 30 + 28]))
    expected = PointAction(jnp.array([0, 0, 34]), jnp.array([0, 1, 29]), jnp.array([0, 1, 28]))
    assert eqx.tree_equal(action, expected)


def test_structured_actions_from_the_dict_space():
    env = GymnaxEnv(gridax.make("ArcAgi1-v0", selection_format="bbox"))
    params = env.default_params
    _, state = env.reset(jax.random.key(0), params)
    action = env.action_space(params).sample(jax.random.key(1))
    assert set(action) == {"operation", "r1", "c1", "r2", "c2"}
    env.step(jax.random.key(2), state, action, params)
    with pytest.raises(ValueError, match="flat_actions=True needs"):
        GymnaxEnv(gridax.make("ArcAgi1-v0", selection_format="mask"), flat_actions=True)
    with pytest.raises(AttributeError, match="no num_actions"):
        _ = env.num_actions


@jax.numpy_dtype_promotion("standard")  # LogWrapper computes 1 - done with a bool done
def test_purejaxrl_style_rollout_through_gymnax_wrappers():
    # PureJaxRL's pattern: gymnax wrappers, vmap over envs, lax.scan over steps.
    base = GymnaxEnv(gridax.make("ForagaxTwoBiome-v1", episode_length=4))
    env = LogWrapper(FlattenObservationWrapper(base))
    params = env.default_params
    num_envs, num_steps = 8, 10
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(
        jax.random.split(jax.random.key(0), num_envs), params
    )
    assert obs.shape == (num_envs, 5 * 5 * 2)

    def body(carry, key):
        state, _ = carry
        act_key, step_key = jax.random.split(key)
        actions = jax.random.randint(act_key, (num_envs,), 0, base.num_actions)
        obs, state, reward, terminated, truncated, info = jax.vmap(
            env.step, in_axes=(0, 0, 0, None)
        )(jax.random.split(step_key, num_envs), state, actions, params)
        return (state, obs), (reward, truncated, info["returned_episode"])

    (state, obs), (rewards, truncated, returned) = jax.lax.scan(
        jax.jit(body), (state, obs), jax.random.split(jax.random.key(1), num_steps)
    )
    assert obs.shape == (num_envs, 50) and rewards.shape == (num_steps, num_envs)
    # Episodes of 4 steps end at steps 4 and 8, and LogWrapper saw them end.
    np.testing.assert_array_equal(
        np.asarray(truncated).any(axis=1), [t % 4 == 3 for t in range(10)]
    )
    np.testing.assert_array_equal(returned, truncated)
    np.testing.assert_allclose(
        state.returned_episode_returns, np.asarray(rewards)[4:8].sum(axis=0), atol=1e-6
    )
