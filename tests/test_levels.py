"""Levels as values, for curricula: a level put in through ``reset_to_level`` plays
exactly as the same level reached any other way (check_env runs the generic check on
every registered id: tests/test_conformance.py)."""

import gzip
import json

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.envs.arc import ArcLevel
from gridax.envs.arc.tasks import augmentation as augment
from gridax.envs.arc3.engine.types import Action
from tests.envs.arc3.test_engine import hex_frame
from tests.tools.record_traces import trace_path


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("ArcAgi1-v0", {"augment": True, "augment_translate": True, "context": True}),
        ("ArcGen-Mixture-v0", {"context": True, "mode": "eval"}),
    ],
)
def test_an_arc_level_plays_as_reset_with_the_same_key(env_id, options):
    """The generator's (or bank's) level through reset_to_level against reset with the
    same key: the same task, pair, augmentation, context and next key."""
    env = gridax.make(env_id, **options)
    for seed in range(3):
        key = jax.random.key(seed)
        level = env.sample_level(key)
        assert isinstance(level, ArcLevel) and level.task.num_train.shape == (1,)
        assert eqx.tree_equal(env.reset_to_level(key, level), env.reset(key))


def test_an_arc_level_mutates_into_the_same_task_under_a_symmetry_and_colours():
    env = gridax.make("ArcGen-Recolour-v0")
    level = env.sample_level(jax.random.key(0))
    key = jax.random.key(5)
    mutated = env.mutate_level(key, level)
    _, uniforms = gridax.prng.split_uniform(jax.random.key_data(key), 0, augment.DRAWS)
    change = augment.draw(uniforms, False, 0)
    grid, shape = augment.apply(
        level.task.test_outputs[0, 0], level.task.test_output_shapes[0, 0], change
    )
    np.testing.assert_array_equal(mutated.task.test_outputs[0, 0], grid)
    np.testing.assert_array_equal(mutated.task.test_output_shapes[0, 0], shape)
    assert int(mutated.task_index) == int(level.task_index)
    # Its episode targets the mutated task's answer (of a demonstration pair, in "train").
    state, _ = env.reset_to_level(jax.random.key(1), mutated)
    answer = mutated.task.train_outputs[0, int(state.pair_index)]
    np.testing.assert_array_equal(state.target_grid, answer)
    changed = [
        not np.array_equal(env.mutate_level(jax.random.key(k), level).task.train_inputs,
                           level.task.train_inputs)
        for k in range(8)
    ]  # fmt: skip
    assert sum(changed) >= 6  # the identity is one of 8 x 9! draws


@pytest.mark.parametrize("name", ["cn04", "vc33"])
def test_an_arc_agi_3_level_plays_as_arc_prizes_file_from_set_level(name):
    """Each level of a ported game, put in through reset_to_level, against the parity
    trace recorded on ARC Prize's file from ``set_level``: the frame after every action
    (the env shows an action's last frame), the level and the state."""
    env = gridax.make(f"Arc3-{name}-v0", max_episode_steps=None)
    recorded = json.loads(gzip.decompress(trace_path(name).read_bytes()))
    levels = len(env.game.levels)
    step = jax.jit(env.step)
    for level, episode in zip(
        recorded["start_levels"][:levels], recorded["episodes"], strict=False
    ):
        state, _ = env.reset_to_level(jax.random.key(0), level)
        for t, record in enumerate(episode):
            state, obs, _, _, info = step(state, Action(*record["action"]))
            at = f"{name} level {level}, action {t}"
            if record["frames"]:
                np.testing.assert_array_equal(obs, hex_frame(record["frames"][-1]), err_msg=at)
            assert int(info["level"]) == record["level"], at
            assert int(info["levels_completed"]) == record["levels_completed"], at


def test_an_arc_agi_3_level_mutates_to_a_neighbour_within_the_game():
    env = gridax.make("Arc3-cn04-v0", start_level="random")
    levels = jax.vmap(env.sample_level)(jax.random.split(jax.random.key(0), 64))
    assert set(np.asarray(levels).tolist()) == set(range(5))
    mutated = jax.vmap(env.mutate_level)(jax.random.split(jax.random.key(1), 64), levels)
    assert np.all(np.abs(np.asarray(mutated) - np.asarray(levels)) <= 1)
    assert np.asarray(mutated).min() >= 0 and np.asarray(mutated).max() <= 4
    assert np.any(mutated != levels)


def test_bad_levels_are_named():
    with pytest.raises(ValueError, match="cn04: start level 9 is not one of its levels 0-4"):
        gridax.make("Arc3-cn04-v0").reset_to_level(jax.random.key(0), 9)
    with pytest.raises(TypeError, match="level must be an ArcLevel"):
        gridax.make("ArcAgi1-v0").reset_to_level(jax.random.key(0), jnp.int32(3))
    forage = gridax.make("ForagaxTwoBiome-v1")
    assert not forage.has_levels
    with pytest.raises(TypeError, match="ForagaxTwoBiome-v1 has no levels"):
        forage.sample_level(jax.random.key(0))
