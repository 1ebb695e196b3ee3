"""JumanjiEnv against Jumanji's own checks, under its auto-reset wrappers, and against
gridax's own step."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax

pytest.importorskip("jumanji")
from jumanji.testing.env_not_smoke import (  # noqa: E402
    check_env_does_not_smoke,
    check_env_specs_does_not_smoke,
)
from jumanji.types import StepType  # noqa: E402
from jumanji.wrappers import VmapAutoResetWrapper  # noqa: E402

from gridax.wrappers.jumanji import JumanjiEnv  # noqa: E402

from .adapters import check_bad_input_is_named  # noqa: E402

CASES = [
    ("ArcAgi1-v0", {"max_episode_steps": 6}),
    ("ArcAgi1-v0", {"max_episode_steps": 6, "selection_format": "mask"}),
    ("ForagaxTwoBiome-v1", {"episode_length": 6}),
    ("ForagaxBig-v5", {"episode_length": 6}),  # a dict observation
]


@pytest.mark.parametrize(("env_id", "overrides"), CASES)
def test_passes_jumanjis_own_checks(env_id, overrides):
    env = JumanjiEnv(env_id, **overrides)
    check_env_specs_does_not_smoke(env)
    # Jumanji's random action sampler covers flat specs only; ARC's is structured.
    flat = env_id.startswith("Foragax")
    select = None if flat else lambda key, _obs: env.sample_action(key)
    # Jumanji also asserts the state finite; a forage state marks empty cells with a food
    # value of -inf by design, so for forage the timesteps are checked here instead.
    check_env_does_not_smoke(env, select, assert_finite_check=not flat)
    state, timestep = env.reset(jax.random.key(0))
    for t in range(3):
        env.observation_spec.validate(timestep.observation)
        chex.assert_tree_all_finite(timestep)
        state, timestep = env.step(state, env.sample_action(jax.random.key(t)))


def test_timesteps_follow_gridax_step_and_its_episode_end():
    env = JumanjiEnv("ArcAgi1-v0", max_episode_steps=2)
    native = env.env
    key = jax.random.key(1)
    state, timestep = env.reset(key)
    native_state, native_obs = native.reset(key, native.default_params)
    assert timestep.first() and timestep.discount == 1
    np.testing.assert_array_equal(timestep.observation.working_grid, native_obs.working_grid)
    for t in range(2):
        action = native.action_space.sample(jax.random.key(10 + t))
        state, timestep = jax.jit(env.step)(state, action)
        native_state, _, reward, done, _ = native.step(native_state, action)
        assert timestep.reward == reward
        jax.tree.map(np.testing.assert_array_equal, state, native_state)
    assert timestep.last() and bool(done)
    assert timestep.discount == 1  # cut by the time limit, not terminated: bootstrap


def test_submit_ends_with_discount_zero():
    env = JumanjiEnv("ArcAgi1-v0")
    state, _ = env.reset(jax.random.key(2))
    submit = gridax.envs.arc.PointAction(operation=34, row=0, col=0)
    state, timestep = env.step(state, submit)
    assert timestep.step_type == StepType.LAST and timestep.discount == 0


def test_rollout_under_jit_vmap_scan_with_jumanjis_auto_reset():
    env = VmapAutoResetWrapper(JumanjiEnv("ForagaxTwoBiome-v1", episode_length=5))
    keys = jax.random.split(jax.random.key(3), 8)

    @jax.jit
    def rollout(keys):
        state, timestep = env.reset(keys)

        def one(carry, key):
            state, _ = carry
            actions = jax.random.randint(key, (8,), 0, 4)
            state, timestep = env.step(state, actions)
            return (state, timestep), (timestep.step_type, timestep.reward)

        _, (types, rewards) = jax.lax.scan(one, (state, timestep), jax.random.split(keys[0], 12))
        return types, rewards

    types, rewards = rollout(keys)
    assert types.shape == rewards.shape == (12, 8)
    # Episodes of 5 steps: the 5th and 10th steps end them, auto-reset starts new ones.
    np.testing.assert_array_equal(
        jnp.all(types == StepType.LAST, axis=1), [t in (4, 9) for t in range(12)]
    )


def test_bad_input_is_named():
    check_bad_input_is_named(JumanjiEnv)
    with pytest.raises(TypeError, match="registered env id or a gridax.Env"):
        JumanjiEnv(42)
