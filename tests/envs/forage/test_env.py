"""The registered worlds: observation shapes, hints, ids, errors, batching, determinism,
properties."""

import dataclasses
import re

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridax.envs import forage
from gridax.envs.forage.config import replace
from tests.envs.forage.helpers import rollout

SHAPES = {
    "ForagaxTwoBiome-v1": ((5, 5, 2), (5, 5, 5)),
    "ForagaxDiwali-v5": ((5, 5, 1), (5, 5, 2)),
    "ForagaxBig-v5": ((5, 5, 1), (5, 5, 3)),
    "ForagaxSquareWaveTwoBiome-v11": ((5, 5, 3), (5, 5, 6)),
    "ForagaxSineTwoBiome-v1": ((5, 5, 2), (5, 5, 5)),
    "ForagaxWeather-v5": ((5, 5, 1), (5, 5, 3)),
    "ForagaxTwoBiomeLarge-v1": ((5, 5, 3), (5, 5, 4)),
}


def image(obs):
    return obs["image"] if isinstance(obs, dict) else obs


@pytest.mark.parametrize("env_id", sorted(SHAPES))
def test_observation_shapes_match_foragax(env_id):
    state, obs = forage.reset(jax.random.key(0), forage.make_config(env_id))
    assert image(obs).shape == SHAPES[env_id][0] and image(obs).dtype == jnp.float32
    obs = forage.observe(state, forage.make_config(env_id, observation="object"))
    assert image(obs).shape == SHAPES[env_id][1] and image(obs).dtype == jnp.float32
    obs = forage.observe(state, forage.make_config(env_id, observation="rgb", aperture=7))
    assert image(obs).shape == (7, 7, 3)
    assert float(image(obs).min()) >= 0.0 and float(image(obs).max()) <= 1.0


def test_big_v5_hint_is_shown_for_ten_steps_every_hundred():
    config = forage.make_config("ForagaxBig-v5")
    state, obs = forage.reset(jax.random.key(0), config)
    shown = [float(obs["hint"].sum())]
    for t in range(105):
        state, obs, *_ = forage.step(state, t % 4, config)
        shown.append(float(obs["hint"].sum()))
    assert shown[:10] == [1.0] * 10 and shown[10:100] == [0.0] * 90 and shown[100] == 1.0


def test_aliases_and_unknown_ids():
    alias = forage.make_config("ForagaxUnendingTasks-v1")
    assert alias.structure() == forage.make_config("ForagaxBig-v5").structure()
    with pytest.raises(ValueError, match="did you mean 'ForagaxDiwali-v5'"):
        forage.make_config("ForagaxDiwal-v5")
    with pytest.raises(ValueError, match="did you mean 'aperture'"):
        forage.make_config("ForagaxDiwali-v5", apperture=3)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("aperture", 4, "must be None or odd positive sizes"),
        ("observation", "pixels", "must be one of 'object', 'rgb', 'color'"),
        ("width", 0, "must be an integer in 1..4096"),
        ("episode_length", 0, "must be None or an integer >= 1"),
        ("biome_spawn_empty", 1.5, "must be a probability"),
    ],
)
def test_bad_config_values_are_named(field, value, message):
    with pytest.raises(ValueError, match=re.escape(f"ForageConfig.{field} {message}")):
        forage.make_config("ForagaxTwoBiome-v1", **{field: value})


def test_bad_actions_are_named():
    config = forage.make_config("ForagaxTwoBiome-v1")
    state, _ = forage.reset(jax.random.key(0), config)
    with pytest.raises(ValueError, match="integers 0-3"):
        forage.step(state, 1.5, config)
    with pytest.raises(ValueError, match=r"of shape \(\)"):
        forage.step(state, jnp.array([1, 2]), config)
    with pytest.raises(TypeError, match="ForageConfig"):
        forage.reset(jax.random.key(0), "ForagaxTwoBiome-v1")


def test_batch_step_equals_a_loop_of_step_through_regeneration():
    """check_env compares batch and loop for every id over a few steps; this run is long
    enough for biomes to regenerate."""
    config = forage.make_config("ForagaxDiwali-v5", biome_threshold=5)
    keys = jax.random.split(jax.random.key(3), 4)
    actions = jax.random.randint(jax.random.key(4), (60, 4), 0, 4)
    batched, batch_rewards = rollout(config, keys, actions)
    for i in range(4):
        state, _ = forage.reset(keys[i], config)
        rewards = []
        for action in actions[:, i]:
            state, _, reward, _, _ = forage.step(state, action, config)
            rewards.append(float(reward))
        np.testing.assert_array_equal(np.float32(rewards), batch_rewards[:, i])
        assert eqx.tree_equal(state, jax.tree.map(lambda x, i=i: x[i], batched))
    assert int(batched.biomes.generation.max()) >= 1  # regeneration was exercised


@pytest.mark.parametrize("env_id", ["ForagaxDiwali-v5", "ForagaxBig-v5"])
def test_fourier_resets_are_bit_identical_for_any_batch_size(env_id):
    # Fourier curves are summed in a fixed order (arithmetic.ordered_sum): jnp.sum's order
    # followed the batch size XLA vectorised over and changed the last bit.
    config = forage.make_config(env_id)
    keys = jax.random.split(jax.random.key(0), 16)
    whole, _ = forage.batch_reset(keys, config)
    for size in (1, 2, 8):
        parts = [forage.batch_reset(keys[i : i + size], config)[0] for i in range(0, 16, size)]
        assert eqx.tree_equal(jax.tree.map(lambda *x: jnp.concatenate(x), *parts), whole)


def test_same_key_same_trajectory_and_different_keys_differ():
    config = forage.make_config("ForagaxTwoBiome-v1")
    actions = jax.random.randint(jax.random.key(9), (30, 2), 0, 4)
    keys = jax.random.split(jax.random.key(1), 2)
    first = rollout(config, keys, actions)
    again = rollout(config, keys, actions)
    assert eqx.tree_equal(first, again)
    other = rollout(config, jax.random.split(jax.random.key(2), 2), actions)
    assert not np.array_equal(first[0].cells.object, other[0].cells.object)


def test_variants_of_one_structure_share_a_compilation():
    config = forage.make_config("ForagaxDiwali-v5")
    slower_food = dataclasses.replace(config.objects[0], repeat=1000)
    slower = replace(config, biome_threshold=10_000, objects=(slower_food,))
    assert slower.structure() == config.structure()
    counted = eqx.filter_jit(eqx.debug.assert_max_traces(forage.env._step, max_traces=1))
    for variant in (config, slower):
        state, _ = forage.reset(jax.random.key(0), variant)
        counted(state, jnp.int32(0), variant.structure())
    mixed = jax.tree.map(lambda a, b: jnp.stack([a, b]), config.params(), slower.params())
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), 2), config, mixed)
    assert states.params.repeat[:, 1].tolist() == [100, 1000]


@settings(max_examples=25, deadline=None)
@given(actions=st.lists(st.integers(np.iinfo(np.int32).min, np.iinfo(np.int32).max), max_size=12))
def test_any_action_ids_keep_the_invariants(actions):
    """Ids outside 0-3 are clipped: every step moves the agent at most one cell (or not at
    all, into a wall), and the state's invariants hold."""
    config = forage.make_config("ForagaxBig-v5")
    state, _ = forage.reset(jax.random.key(0), config)
    for action in actions:
        before = np.asarray(state.position)
        state, _, reward, _, _ = forage.step(state, jnp.int32(action), config)
        assert set(np.asarray(list(forage.invariant_violations(state).values()))) == {0}
        step = np.abs(np.asarray(state.position) - before)
        step = np.minimum(step, np.array([config.height, config.width]) - step)  # wrapping
        assert step.sum() <= 1 and np.isfinite(float(reward))
