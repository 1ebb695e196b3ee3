"""gridax.make: ids, overrides, errors, spaces, and jax transformations on methods (every
id's conformance: tests/test_conformance.py)."""

import json

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

import gridax
from gridax import spaces
from gridax.envs import arc, forage


def test_registered_ids_cover_arc_and_forage():
    ids = gridax.registered_ids()
    assert {"ArcAgi1-v0", "ArcAgi2-v0", "ArcFolder-v0"} <= set(ids)
    assert set(forage.registered_ids()) <= set(ids)
    assert all("-v" in env_id for env_id in ids)


def test_arc_overrides_split_and_config_fields():
    env = gridax.make("ArcAgi2-v0", split="evaluation", selection_format="bbox")
    assert len(env.default_params) == 120
    assert env.config == arc.ArcConfig(selection_format="bbox")
    assert isinstance(env.action_space.sample(jax.random.key(0)), arc_actions("bbox"))
    assert gridax.make("ArcAgi1-v0").default_params.task_ids[0] == "007bbfb7"


def arc_actions(fmt):
    from gridax.actions import ACTION_TYPES

    return ACTION_TYPES[fmt]


def test_arc_folder_takes_a_path(tmp_path):
    pair = {"input": [[1]], "output": [[2]]}
    task = {"train": [pair], "test": [pair]}
    (tmp_path / "one.json").write_text(json.dumps(task))
    env = gridax.make("ArcFolder-v0", path=tmp_path, max_episode_steps=3)
    assert env.default_params.task_ids == ("one",)
    _, obs = env.reset(jax.random.key(0))
    assert int(obs.input_grid[0, 0]) == 1 and env.config.max_episode_steps == 3


@pytest.mark.parametrize(
    ("env_id", "overrides", "message"),
    [
        ("ArcAgi3-v0", {}, "did you mean 'ArcAgi2-v0'"),
        ("ForagaxDiwali-v4", {}, "did you mean 'ForagaxDiwali-v5'"),
        ("ArcAgi1-v0", {"splt": "evaluation"}, "argument 'splt'; did you mean 'split'"),
        ("ArcAgi1-v0", {"split": "test"}, "unknown split 'test'"),
        ("ArcAgi1-v0", {"path": "x"}, "unexpected keyword argument 'path'"),
        ("ArcAgi1-v0", {"selection_format": "points"}, "selection_format must be one of"),
        ("ArcFolder-v0", {}, "needs path="),
        ("ArcFolder-v0", {"path": "/no/such/folder"}, "no/such/folder"),
        ("ArcFolder-v0", {"path": ".", "split": "training"}, "unexpected keyword argument 'split'"),
        ("ForagaxTwoBiome-v1", {"apertur": 7}, "aperture"),
    ],
)
def test_make_errors_name_the_problem(env_id, overrides, message):
    with pytest.raises(ValueError, match=message):
        gridax.make(env_id, **overrides)


@pytest.mark.parametrize("env_id", ["ArcAgi1-v0", "ForagaxTwoBiome-v1"])
def test_jit_and_vmap_work_on_the_methods(env_id):
    env = gridax.make(env_id)
    keys = jax.random.split(jax.random.key(0), 3)
    states, obs = env.batch_reset(keys)
    assert eqx.tree_equal(env.observe(states), obs)
    actions = jax.vmap(env.action_space.sample)(jax.random.split(jax.random.key(1), 3))
    batched = env.batch_step(states, actions)
    assert eqx.tree_equal(jax.vmap(env.step)(states, actions), batched)
    first = jax.tree.map(lambda x: x[0], (states, actions))
    assert eqx.tree_equal(jax.jit(env.step)(*first), jax.tree.map(lambda x: x[0], batched))
    reset = jax.jit(env.reset)(keys[0], env.default_params)
    assert eqx.tree_equal(reset, jax.tree.map(lambda x: x[0], env.batch_reset(keys)))


def test_forage_spaces_follow_the_config():
    env = gridax.make("ForagaxBig-v5")  # its observation carries the hint
    space = env.observation_space
    assert isinstance(space, spaces.Dict) and set(space.spaces) == {"image", "hint"}
    image = gridax.make("ForagaxTwoBiome-v1", observation="object", aperture=9)
    assert image.observation_space.shape[:2] == (9, 9)
    assert env.action_space.n == forage.NUM_ACTIONS == env.num_actions


def test_spaces_reject_values_outside():
    assert not bool(spaces.Discrete(4).contains(4))
    assert not bool(spaces.Box(0, 9, (2,), jnp.int8).contains(jnp.array([0, 10], jnp.int8)))
    point = gridax.make("ArcAgi1-v0").action_space
    assert not bool(point.contains({"operation": 35, "row": 0, "col": 0}))
    with pytest.raises(ValueError, match="Discrete's n must be an integer >= 1; got 0"):
        spaces.Discrete(0)
