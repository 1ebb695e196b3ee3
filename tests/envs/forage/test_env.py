"""The registered worlds: layouts, observation shapes, batching, determinism, properties."""

import dataclasses
import math
import re

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridax.envs import forage
from gridax.envs.forage import world
from gridax.envs.forage.config import replace

# Objects per id at reset, as Foragax places them (deterministic spawn) or close to it.
EXACT_COUNTS = {
    "ForagaxDiwali-v5": {1: 90},
    "ForagaxBig-v5": {1: 68},
    "ForagaxSquareWaveTwoBiome-v11": {1: 15, 2: 15, 3: 15, 4: 15, 5: 32},
    "ForagaxSineTwoBiome-v1": {1: 8, 2: 8, 3: 8, 4: 8},
    "ForagaxWeather-v5": {1: 15, 2: 15},
}
# Observation shapes of Foragax's make() defaults (5x5 aperture): color, then object.
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


@pytest.mark.parametrize("env_id", sorted(EXACT_COUNTS))
def test_deterministic_spawn_places_foragax_counts(env_id):
    config = forage.make_config(env_id)
    for seed in range(3):
        state, _ = forage.reset(jax.random.key(seed), config)
        counts = np.bincount(np.asarray(state.visible()).ravel(), minlength=8)
        assert {k: int(counts[k]) for k in EXACT_COUNTS[env_id]} == EXACT_COUNTS[env_id]


def test_big_v5_walls_fill_the_blocks_and_scatter():
    config = forage.make_config("ForagaxBig-v5")
    state, _ = forage.reset(jax.random.key(0), config)
    walls = np.asarray(state.visible()) == 2
    for x in (6, 20):
        for y in (6, 20):
            assert walls[y : y + 3, x : x + 3].sum() == 6
    assert 90 <= walls.sum() <= 103  # 79 scattered, some replaced by the 24 block walls


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


def _rollout(config, keys, actions):
    states, _ = forage.batch_reset(keys, config)
    rewards = []
    for action in actions:
        states, _, reward, _, _ = forage.batch_step(states, action, config)
        rewards.append(reward)
    return states, jnp.stack(rewards)


def test_batch_step_equals_a_loop_of_step_through_regeneration():
    """check_env compares batch and loop for every id over a few steps; this run is long
    enough for biomes to regenerate."""
    config = forage.make_config("ForagaxDiwali-v5", biome_threshold=5)
    keys = jax.random.split(jax.random.key(3), 4)
    actions = jax.random.randint(jax.random.key(4), (60, 4), 0, 4)
    batched, batch_rewards = _rollout(config, keys, actions)
    for i in range(4):
        state, _ = forage.reset(keys[i], config)
        rewards = []
        for action in actions[:, i]:
            state, _, reward, _, _ = forage.step(state, action, config)
            rewards.append(float(reward))
        np.testing.assert_array_equal(np.float32(rewards), batch_rewards[:, i])
        assert eqx.tree_equal(state, jax.tree.map(lambda x, i=i: x[i], batched))
    assert int(batched.biome_generation.max()) >= 1  # regeneration was exercised


@pytest.mark.parametrize("env_id", ["ForagaxDiwali-v5", "ForagaxBig-v5"])
def test_fourier_resets_are_bit_identical_for_any_batch_size(env_id):
    # Fourier curves are summed in a fixed order (world.ordered_sum): jnp.sum's order
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
    first = _rollout(config, keys, actions)
    again = _rollout(config, keys, actions)
    assert eqx.tree_equal(first, again)
    other = _rollout(config, jax.random.split(jax.random.key(2), 2), actions)
    assert not np.array_equal(first[0].object, other[0].object)


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


def test_static_worlds_keep_their_objects():
    config = forage.make_config("ForagaxTwoBiome-v1")
    keys = jax.random.split(jax.random.key(5), 8)
    states, _ = forage.batch_reset(keys, config)
    before = np.count_nonzero(np.asarray(states.object), axis=(1, 2))
    actions = jax.random.randint(jax.random.key(6), (300, 8), 0, 4)
    states, rewards = _rollout(config, keys, actions)
    after = np.count_nonzero(np.asarray(states.object), axis=(1, 2))
    np.testing.assert_array_equal(before, after)  # regrowing objects stay in their cells
    assert set(np.unique(np.asarray(rewards))) <= {0.0, 30.0, 1.0, -1.0}


def test_reward_schedules_against_formulas():
    config = forage.make_config("ForagaxSquareWaveTwoBiome-v11", period=1000.0)
    params = config.params()
    structure = config.structure()
    for clock in (0, 1, 250, 499, 501, 999, 1000, 123_456):
        values = np.asarray(world.type_rewards(params, jnp.int32(clock), structure))
        sign = np.sign(np.sin(np.float32(2 * np.pi * clock / 1000)))
        np.testing.assert_allclose(values[1:5], -5 + np.array([9, 3, -3, -9]) * sign, atol=1e-4)
    config = forage.make_config("ForagaxSineTwoBiome-v1")
    for clock in (0, 250_000, 600_000):
        values = np.asarray(
            world.type_rewards(config.params(), jnp.int32(clock), config.structure())
        )
        s = math.sin(2 * math.pi * clock / 1e6)
        np.testing.assert_allclose(
            values[1:5], [10 + 10 * s, -10 + 10 * s, -10 - 10 * s, 10 - 10 * s], atol=1e-3
        )
    config = forage.make_config("ForagaxWeather-v5")
    series = config.structure().temperatures.values
    for clock in (0, 499, 500, 10**7):
        values = np.asarray(
            world.type_rewards(config.params(), jnp.int32(clock), config.structure())
        )
        day = (clock // 500) % len(series)
        np.testing.assert_allclose(values[1:3], [series[day], -series[day]], rtol=1e-6)


def test_weather_takes_a_users_temperature_record():
    record = forage.Series([0.5, -0.25, 1.0])
    config = forage.make_config("ForagaxWeather-v5", temperatures=record, repeat=10)
    assert config.structure().temperatures == record
    for clock, expected in ((0, 0.5), (9, 0.5), (10, -0.25), (25, 1.0), (30, 0.5)):
        values = world.type_rewards(config.params(), jnp.int32(clock), config.structure())
        np.testing.assert_allclose(np.asarray(values)[1:3], [expected, -expected])
    with pytest.raises(ValueError, match="finite"):
        forage.Series([0.0, float("nan")])


def test_fourier_curve_against_numpy():
    curve = np.asarray(
        world.draw_curve(jax.random.uniform(jax.random.key(7), (world.CURVE_DRAWS,)))
    )
    period, low, high = curve[:3]
    assert 10 <= period <= 1000 and period == int(period)
    a, b = curve[3::2], curve[4::2]
    n = np.arange(1, 11)

    def y(s):
        return np.sum(a * np.cos(n * s) + b * np.sin(n * s))

    samples = [y(s) for s in np.linspace(0, 2 * np.pi, 1000)]
    np.testing.assert_allclose([low, high], [min(samples), max(samples)], rtol=1e-4, atol=1e-5)
    for step in (0, 3, 57, 2000):
        s = 2 * np.pi * (step % period) / period
        expected = 2 * (y(s) - low) / (high - low) - 1
        got = float(world.curve_value(jnp.asarray(curve), jnp.int32(step)))
        assert abs(got - expected) < 1e-4


def test_box_muller_draws_are_standard_normal():
    u = jax.random.uniform(jax.random.key(0), (2, 200_000))
    z = np.asarray(world.gaussian(u[0], u[1]))
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    assert abs(np.mean(np.abs(z) < 1.96) - 0.95) < 0.005


def test_synthetic_temperatures_are_seasonal_and_in_range():
    series = forage.synthetic_temperatures().values
    assert len(series) == round(135 * 365.25) and series.min() == -1 and series.max() == 1
    years = series[: 100 * 365].reshape(100, 365)
    assert years[:, 180:200].mean() > 0.3 > -0.3 > years[:, 0:30].mean()  # July warm, January cold


def test_diagnostics_on_demand():
    config = forage.make_config("ForagaxBig-v5")
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), 3), config)
    report = forage.diagnostics(states, config)
    assert report["reward_map"].shape == (3, 28, 28) and report["region_means"].shape == (3, 5)
    assert np.asarray(report["region"]).tolist() == [4, 4, 4]  # the centre is in the void
    assert (np.asarray(report["regret"]) >= 0).all() and (np.asarray(report["rank"]) >= 1).all()
    means = np.asarray(report["region_means"])
    np.testing.assert_allclose(report["regret"], means.max(1) - means[:, 4], rtol=1e-6)


@pytest.mark.parametrize(
    "env_id", ["ForagaxBig-v5", "ForagaxTwoBiome-v1", "ForagaxSineTwoBiome-v1"]
)
def test_centred_reward_sums_kept_step_by_step_match_the_grid(env_id):
    config = forage.make_config(env_id, center_reward=True, hint=False, aperture=3)
    structure = config.structure()
    keys = jax.random.split(jax.random.key(11), 4)
    actions = jax.random.randint(jax.random.key(12), (300, 4), 0, 4)
    states, rewards = _rollout(config, keys, actions)
    assert np.isfinite(np.asarray(rewards)).all()
    for i in range(4):
        state = jax.tree.map(lambda x, i=i: x[i], states)
        total, count, calendar_total, calendar_count = forage.env._food_sums(
            state, state.food_value, structure.horizon
        )
        assert int(state.food_count) == int(count) and int(state.food_count) > 0
        np.testing.assert_allclose(state.food_total, total, rtol=1e-5, atol=1e-3)
        np.testing.assert_array_equal(state.calendar_count, calendar_count)
        np.testing.assert_allclose(state.calendar_total, calendar_total, rtol=1e-5, atol=1e-3)


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
