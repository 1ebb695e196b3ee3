"""What a call from Python pays: configs memoised per object, no retracing on new values,
and the checks still in front of the compiled calls."""

import jax
import jax.numpy as jnp
import pytest

from gridax.dispatch import Static, per_config
from gridax.envs import arc, forage
from gridax.envs.arc import env as arc_env
from gridax.envs.forage import env as forage_env


def test_per_config_builds_once_per_equal_config():
    built = []
    get = per_config(lambda config: built.append(config) or len(built))
    first = arc.ArcConfig(max_episode_steps=7)
    assert get(first) == 1 and get(first) == 1
    assert get(arc.ArcConfig(max_episode_steps=7)) == 1  # equal: shares what was built
    assert get(arc.ArcConfig(max_episode_steps=8)) == 2
    assert get(first) == 1 and len(built) == 2


def test_per_config_without_a_cache_keeps_only_the_last_object():
    built = []
    get = per_config(lambda value: built.append(value) or len(built), cache_size=0)
    a, b = [1], [1]
    assert get(a) == 1 and get(a) == 1 and get(b) == 2 and get(a) == 3


def test_static_hashes_once_and_compares_by_value():
    config = arc.ArcConfig()
    one, two = Static(config), Static(arc.ArcConfig())
    assert hash(one) == hash(config) and one == two and one != Static(arc.ArcConfig(strict=True))
    assert one != config

    class Counted:
        hashed = 0

        def __hash__(self):
            Counted.hashed += 1
            return 7

    counted = Static(Counted())
    assert hash(counted) == hash(counted) == 7 and Counted.hashed == 1


def test_arc_calls_do_not_retrace_on_new_values(arc_agi_1):
    config = arc.ArcConfig(max_episode_steps=9)
    compiled = arc_env._compiled(config)
    for seed in range(3):
        state, _ = arc.reset(jax.random.key(seed), config, arc_agi_1, task_index=seed)
        action = arc.PointAction(operation=seed, row=seed, col=seed + 1)
        arc.step(state, action, config)
        keys = jax.random.split(jax.random.key(seed), 4)
        states, _ = arc.batch_reset(keys, config, arc_agi_1)
        actions = arc.random_actions(jax.random.key(seed), states.working_shape, "point")
        arc.batch_step(states, actions, config)
    for function in compiled:
        assert function._cache_size() == 1
    # A raw key is another argument type: one more compilation, not one per value.
    arc.reset(jax.random.PRNGKey(0), config, arc_agi_1)
    arc.reset(jax.random.PRNGKey(1), config, arc_agi_1)
    assert compiled.reset._cache_size() == 2


def test_forage_calls_do_not_retrace_on_new_values():
    config = forage.make_config("ForagaxTwoBiome-v1")
    compiled = forage_env._compiled(config)
    for seed in range(3):
        state, _ = forage.reset(jax.random.key(seed), config)
        forage.step(state, seed, config)
        forage.step(state, jnp.int32(seed), config)
        states, _ = forage.batch_reset(jax.random.split(jax.random.key(seed), 4), config)
        forage.batch_step(states, jnp.full(4, seed), config)
    for function in (compiled.reset, compiled.step, compiled.batch_reset, compiled.batch_step):
        assert function._cache_size() == 1


def test_checks_still_run_before_the_compiled_call(arc_agi_1):
    config = arc.ArcConfig()
    state, _ = arc.reset(jax.random.key(0), config, arc_agi_1)
    with pytest.raises(TypeError, match="so step takes a PointAction; got BboxAction"):
        arc.step(state, arc.BboxAction(0, 0, 0, 1, 1), config)
    with pytest.raises(ValueError, match="key must be one PRNG key"):
        arc.reset(jax.random.split(jax.random.key(0), 2), config, arc_agi_1)
    with pytest.raises(ValueError, match="threefry2x32"):
        arc.reset(jax.random.key(0, impl="rbg"), config, arc_agi_1)
    world = forage.make_config("ForagaxTwoBiome-v1")
    other = forage.make_config("ForagaxBig-v5")
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), 2), world)
    with pytest.raises(ValueError, match="does not fit this ForageConfig"):
        forage.batch_step(states, jnp.zeros(2, jnp.int32), other)
    with pytest.raises(ValueError, match="of shape \\(2,\\)"):
        forage.batch_step(states, jnp.zeros(3, jnp.int32), world)


def test_a_config_first_met_inside_a_trace_leaves_no_tracer_behind():
    # What is built once per config is kept: built under a caller's jit, it must not
    # hold that trace's values (forage's params are arrays).
    config = forage.make_config("ForagaxTwoBiome-v1", hint_every=77)
    jax.jit(lambda key: forage.reset(key, config)[0].time)(jax.random.key(0))
    state, _ = forage.reset(jax.random.key(1), config)
    forage.step(state, 1, config)
