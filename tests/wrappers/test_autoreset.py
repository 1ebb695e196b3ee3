"""AutoReset: the three strategies agree where they should and keep the final observation."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.wrappers import STRATEGIES, AutoReset

NUM_ENVS, NUM_STEPS = 6, 14


@pytest.fixture(scope="module")
def arc_env():
    return gridax.make("ArcAgi1-v0", max_episode_steps=4)


def rollout(wrapper, key=0):
    env = wrapper.env
    params = env.default_params

    @jax.jit
    def run(key, params):
        state, obs = wrapper.reset(key, NUM_ENVS, params)

        def body(state, k):
            actions = jax.vmap(env.action_space.sample)(jax.random.split(k, NUM_ENVS))
            state, obs, reward, done, info = wrapper.step(state, actions, params)
            return state, (obs, reward, done, info["final_observation"])

        keys = jax.random.split(jax.random.key(99), NUM_STEPS)
        return (obs, *jax.lax.scan(body, state, keys))

    return run(jax.random.key(key), params)


def test_always_and_any_done_give_the_same_run(arc_env):
    always = rollout(AutoReset(arc_env, "always"))
    any_done = rollout(AutoReset(arc_env, "any_done"))
    assert eqx.tree_equal(always, any_done)
    _, _, (obs, _, done, final) = always
    assert bool(done.any()) and bool((~done).any())  # submits and truncations both occur


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_done_envs_start_fresh_episodes_and_keep_the_final_observation(arc_env, strategy):
    first, state, (obs, _, done, final) = rollout(AutoReset(arc_env, strategy, pool_size=4))
    done = np.asarray(done)
    # A new episode's first observation, where done; the stepped one elsewhere.
    np.testing.assert_array_equal(np.asarray(obs.step_count)[done], 0)
    steps = np.asarray(final.step_count)
    assert (steps[~done] > 0).all()
    np.testing.assert_array_equal(np.asarray(obs.step_count)[~done], steps[~done])
    # Episodes end by submit or after 4 steps, so a final observation has 1-4 steps.
    assert ((steps[done] >= 1) & (steps[done] <= 4)).all()
    # New tasks are sampled: more distinct tasks than envs over the run.
    assert len(np.unique(np.asarray(obs.task_index))) > NUM_ENVS


def test_pool_hands_out_pooled_states_with_fresh_keys_and_refreshes():
    env = gridax.make("ForagaxTwoBiome-v1", episode_length=2)
    wrapper = AutoReset(env, "pool", pool_size=NUM_ENVS, refresh_every=4)
    state, _ = wrapper.reset(jax.random.key(0), NUM_ENVS)
    pool_states = state.pool
    keys = set()
    for t in range(4):
        state, _, _, done, _ = wrapper.step(state, jnp.zeros(NUM_ENVS, jnp.int32))
        if t == 1:  # every env ended: each took a pooled world, under its own key
            assert bool(done.all())
            assert eqx.tree_equal(state.env_state.cells.object, pool_states.cells.object)
            keys = {tuple(map(int, k)) for k in state.env_state.key}
            assert len(keys) == NUM_ENVS
            assert not keys & {tuple(map(int, k)) for k in pool_states.key}
    # Step 4 refreshed the pool.
    assert not eqx.tree_equal(state.pool.key, pool_states.key)


def test_forage_without_an_episode_length_never_resets():
    env = gridax.make("ForagaxTwoBiome-v1")
    wrapper = AutoReset(env, "always")
    state, _ = wrapper.reset(jax.random.key(0), 2)
    for _ in range(3):
        state, _, _, done, _ = wrapper.step(state, jnp.array([0, 1], jnp.int32))
    assert not bool(done.any()) and state.env_state.time.tolist() == [3, 3]


def test_bad_arguments_are_named(arc_env):
    with pytest.raises(ValueError, match="strategy must be one of 'always', 'any_done', 'pool'"):
        AutoReset(arc_env, "sometimes")
    with pytest.raises(ValueError, match="pool_size must be an integer >= 1"):
        AutoReset(arc_env, "pool", pool_size=0)
    with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
        AutoReset(arc_env).reset(jax.random.key(0), 0)
    with pytest.raises(TypeError, match="AutoReset's env must be a gridax.Env"):
        AutoReset("ArcAgi1-v0")
