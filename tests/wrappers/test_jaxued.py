"""jaxued, unchanged, on gridax's levels: its ``LevelSampler`` runs prioritised level
replay (PLR) and the ACCEL mutation loop on an ARC generator family under ``jit``, and
its ``AutoReplayWrapper`` replays a level on the adapter."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("jaxued", reason="the extra ued (pip install 'gridax[ued]') brings jaxued")
from jaxued.level_sampler import LevelSampler  # noqa: E402
from jaxued.wrappers import AutoReplayWrapper  # noqa: E402

import gridax  # noqa: E402
from gridax.envs.arc import ArcLevel  # noqa: E402
from gridax.wrappers.jaxued import JaxuedEnv  # noqa: E402

NUM_LEVELS, EPISODE = 8, 10


@pytest.fixture(autouse=True)
def numpy_promotion_as_users_run_jaxued():
    """jaxued relies on NumPy's rank and dtype promotion (its duplicate check compares a
    level with the whole buffer); the suite's strict settings (conftest.py) are for
    gridax's own code."""
    with jax.numpy_rank_promotion("allow"), jax.numpy_dtype_promotion("standard"):
        yield


@pytest.fixture(scope="module")
def env():
    return JaxuedEnv("ArcGen-Copy-v0", initial_grid="empty", max_episode_steps=EPISODE)


def rollout_scores(env, rng, levels):
    """Each level's score for the buffer: one minus the success rate of a random policy
    over two episodes (levels that chance fails rank first). Jitted by the caller."""

    def episode(rng, level):
        reset_key, rng = jax.random.split(rng)
        obs, state = env.reset_to_level(reset_key, level, env.default_params)
        actions = jax.random.randint(rng, (EPISODE,), 0, env.action_space().n)

        def step(state, action_and_key):
            action, key = action_and_key
            _, state, _, done, info = env.step(key, state, action, env.default_params)
            return state, info["success"]

        keys = jax.random.split(rng, EPISODE)
        _, success = jax.lax.scan(step, state, (actions, keys))
        return jnp.any(success)

    keys = jax.random.split(rng, (levels.task_index.shape[0], 2))
    solved = jax.vmap(jax.vmap(episode, in_axes=(0, None)))(keys, levels)
    return 1.0 - jnp.mean(solved, axis=1)


def test_the_adapter_is_an_underspecified_env_whose_levels_play_as_reset(env):
    rng = jax.random.PRNGKey(4)  # jaxued's raw keys
    level = env.sample_level(rng)
    assert isinstance(level, ArcLevel)
    obs, state = env.reset_to_level(rng, level)
    assert eqx.tree_equal(state, env.env.reset(rng)[0])
    obs, state, reward, done, _ = env.step(rng, state, 34 * 900, env.default_params)  # submit
    assert bool(done) and np.isfinite(float(reward))
    assert env.action_space().n == 35 * 30 * 30
    with pytest.raises(ValueError, match="ForagaxTwoBiome-v1 has no levels"):
        JaxuedEnv("ForagaxTwoBiome-v1")


def test_jaxueds_level_sampler_runs_plr_and_accel_on_generated_arc_tasks(env):
    """Jaxued's own buffer under jit: new levels from the generator (domain
    randomisation) inserted with their scores, replayed levels rescored, and ACCEL's
    edits of the replayed levels inserted as new ones."""
    sampler = LevelSampler(
        capacity=32, replay_prob=0.5, minimum_fill_ratio=0.25, duplicate_check=True
    )
    buffer = sampler.initialize(env.sample_level(jax.random.PRNGKey(0)))

    @jax.jit
    def new_levels(buffer, rng):
        level_key, score_key = jax.random.split(rng)
        levels = jax.vmap(env.sample_level)(jax.random.split(level_key, NUM_LEVELS))
        buffer, _ = sampler.insert_batch(buffer, levels, rollout_scores(env, score_key, levels))
        return buffer

    @jax.jit
    def replay_and_mutate(buffer, rng):
        replay_key, score_key, edit_key, edited_key = jax.random.split(rng, 4)
        buffer, (indices, levels) = sampler.sample_replay_levels(buffer, replay_key, NUM_LEVELS)
        buffer = sampler.update_batch(buffer, indices, rollout_scores(env, score_key, levels))
        edit_keys = jax.random.split(edit_key, NUM_LEVELS)
        edited = jax.vmap(lambda k, v: env.mutate_level(k, v, 2))(edit_keys, levels)
        buffer, _ = sampler.insert_batch(buffer, edited, rollout_scores(env, edited_key, edited))
        return buffer, levels, edited

    rng = jax.random.PRNGKey(1)
    for round_ in range(2):
        buffer = new_levels(buffer, jax.random.fold_in(rng, round_))
    assert int(buffer["size"]) == 2 * NUM_LEVELS
    buffer, replayed, edited = replay_and_mutate(buffer, jax.random.fold_in(rng, 9))
    assert int(buffer["size"]) == 3 * NUM_LEVELS  # the edits are new levels
    # The edits are the replayed tasks under symmetries and colours: grids change, sizes
    # are kept or transposed, the recorded task stays.
    assert not np.array_equal(edited.task.train_inputs, replayed.task.train_inputs)
    np.testing.assert_array_equal(edited.task_index, replayed.task_index)
    np.testing.assert_array_equal(
        np.sort(edited.task.test_input_shapes, axis=-1),
        np.sort(replayed.task.test_input_shapes, axis=-1),
    )
    # A stored level plays as the generator's level of the key it came from.
    key = jax.random.split(jax.random.split(jax.random.fold_in(rng, 0))[0], NUM_LEVELS)[3]
    stored = sampler.get_levels(buffer, sampler.find(buffer, env.sample_level(key)))
    assert eqx.tree_equal(env.reset_to_level(key, stored)[1], env.env.reset(key)[0])
    weights = sampler.level_weights(buffer)
    assert np.isclose(float(weights.sum()), 1.0) and int(jnp.sum(weights > 0)) == 3 * NUM_LEVELS


def test_jaxueds_auto_replay_wrapper_replays_the_level(env):
    replaying = AutoReplayWrapper(env)
    rng = jax.random.PRNGKey(2)
    level = env.sample_level(rng)
    obs, state = replaying.reset_to_level(rng, level, env.default_params)
    obs, state, _, done, _ = replaying.step(rng, state, 34 * 900, env.default_params)
    assert bool(done)  # submitted: the wrapper starts the same level (task) again
    assert int(state.env_state.step_count) == 0
    assert int(state.env_state.task_index) == int(level.task_index)
    pair = int(state.env_state.pair_index)  # a demonstration pair drawn anew
    np.testing.assert_array_equal(obs.input_grid, level.task.train_inputs[0, pair])


def test_an_arc_agi_3_game_is_a_jaxued_env_whose_levels_are_its_levels():
    env = JaxuedEnv("Arc3-Keys-v0")
    levels = jax.vmap(env.sample_level)(jax.random.split(jax.random.PRNGKey(0), 4))
    obs, state = jax.vmap(lambda k, v: env.reset_to_level(k, v, None))(
        jax.random.split(jax.random.PRNGKey(1), 4), levels + jnp.arange(4) % 3
    )
    np.testing.assert_array_equal(state.game_state.level, np.arange(4) % 3)
    assert obs.shape == (4, 64, 64)
    assert gridax.make("Arc3-Keys-v0").has_levels
