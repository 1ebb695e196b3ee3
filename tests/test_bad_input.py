"""Every user-facing entry point, given bad input, raises an error that names the argument,
the value and what is allowed (issue: reliability). One row per mistake; the expected
message is matched as a regular expression."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.actions import MaskAction, PointAction
from gridax.envs import arc, forage
from gridax.wrappers import AutoReset

KEY = jax.random.key(0)


def arc_env(**overrides):
    return gridax.make("ArcAgi1-v0", **overrides)


def arc_start(**overrides):
    env = arc_env(**overrides)
    return env, env.reset(KEY)[0]


def forage_start(env_id="ForagaxTwoBiome-v1"):
    env = gridax.make(env_id)
    return env, env.reset(KEY)[0]


def step_arc(action, **overrides):
    env, state = arc_start(**overrides)
    return env.step(state, action)


def step_forage(action):
    env, state = forage_start()
    return env.step(state, action)


def step_with_another_config(make_state, make_other):
    _, state = make_state()
    return make_other().step(state, make_other().action_space.sample(KEY))


def write(folder, name, text):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder


CASES = {
    # --- the registry and configs
    "unknown env id": (
        lambda tmp: gridax.make("ArcAgi3-v0"),
        ValueError,
        r"unknown env id 'ArcAgi3-v0'; did you mean 'ArcAgi2-v0', 'ArcAgi1-v0'",
    ),
    "unknown option": (
        lambda tmp: gridax.make("ArcAgi1-v0", max_steps=5),
        ValueError,
        r"ArcAgi1-v0: unexpected keyword argument 'max_steps'; did you mean 'max_episode_steps'",
    ),
    "bad ARC config value": (
        lambda tmp: gridax.make("ArcAgi1-v0", max_episode_steps=-5),
        ValueError,
        r"ArcConfig.max_episode_steps must be an integer >= 1; got -5",
    ),
    "bad forage config value": (
        lambda tmp: gridax.make("ForagaxTwoBiome-v1", aperture=4),
        ValueError,
        r"ForageConfig.aperture .*; got 4",
    ),
    "unknown split": (
        lambda tmp: gridax.make("ArcAgi2-v0", split="test"),
        ValueError,
        r"unknown split 'test' for 'arc-agi-2'; valid splits: 'training', 'evaluation'",
    ),
    # --- keys
    "an int seed instead of a key": (
        lambda tmp: arc_env().reset(0),
        TypeError,
        r"key must be a JAX PRNG key array \(jax.random.key\(seed\)\), got int 0",
    ),
    "a batch of keys to reset": (
        lambda tmp: forage_start()[0].reset(jax.random.split(KEY, 3)),
        ValueError,
        r"key must be one PRNG key .* got an array of shape \(3, 2\)",
    ),
    "one key to batch_reset": (
        lambda tmp: arc_env().batch_reset(KEY),
        ValueError,
        r"batch_reset takes a batch of keys .* got key data of shape \(2,\)",
    ),
    # --- actions
    "a batched PointAction to step": (
        lambda tmp: step_arc(PointAction(jnp.array([3, 4]), jnp.array([0, 0]), jnp.array([0, 1]))),
        ValueError,
        r"step takes one action, got a batch of shape \(2,\); use batch_step",
    ),
    "a MaskAction of the wrong shape": (
        lambda tmp: step_arc(MaskAction(3, np.ones((5, 5), bool)), selection_format="mask"),
        ValueError,
        r"MaskAction.selection has grid shape \(5, 5\), but the environment's canvas is \(30, 30\)",
    ),
    "float coordinates": (
        lambda tmp: step_arc(PointAction(3, 1.5, 0)),
        TypeError,
        r"row must hold integers, got dtype float64",
    ),
    "an action of another format": (
        lambda tmp: step_arc(PointAction(3, 0, 0), selection_format="bbox"),
        TypeError,
        r"config.selection_format is 'bbox', so step takes a BboxAction; got PointAction",
    ),
    "a float forage action": (
        lambda tmp: step_forage(jnp.float32(1.0)),
        ValueError,
        r"forage actions are integers 0-3 .* of shape \(\); got dtype float32",
    ),
    "a batch of forage actions to step": (
        lambda tmp: step_forage(jnp.array([0, 1])),
        ValueError,
        r"forage actions are integers 0-3 .* of shape \(\); got dtype int32 and shape \(2,\)",
    ),
    "actions that do not match the batch": (
        lambda tmp: arc_env().batch_step(
            arc_env().batch_reset(jax.random.split(KEY, 2))[0], PointAction([1, 2, 3], 0, 0)
        ),
        ValueError,
        r"PointAction fields must share one \(batch\) shape",
    ),
    # --- states from elsewhere
    "an ARC state stepped under another history size": (
        lambda tmp: step_with_another_config(
            lambda: arc_start(max_episode_steps=10), lambda: arc_env(max_episode_steps=20)
        ),
        ValueError,
        r"the state's action history \(10 records .*\) was made by a different ArcConfig",
    ),
    "a forage state stepped under another env": (
        lambda tmp: step_with_another_config(
            lambda: forage_start("ForagaxBig-v5"), lambda: gridax.make("ForagaxTwoBiome-v1")
        ),
        ValueError,
        r"the state does not fit this ForageConfig: state.cells.object has shape \(\d+, \d+\)",
    ),
    "a forage state given to an ARC env": (
        lambda tmp: arc_env().step(forage_start()[1], PointAction(0, 0, 0)),
        TypeError,
        r"state must be an ArcState, got ForageState",
    ),
    "an ARC state given to a forage env": (
        lambda tmp: forage_start()[0].step(arc_start()[1], 0),
        TypeError,
        r"state must be a ForageState, got ArcState",
    ),
    # --- task banks and params
    "forage params as an ARC task bank": (
        lambda tmp: arc_env().reset(KEY, forage_start()[0].default_params),
        TypeError,
        r"tasks must be a TaskBank \(from gridax.envs.arc.load_tasks\) or a Generator "
        r"\(gridax.envs.arc.generators\), got ForageParams",
    ),
    "an ARC task bank as forage params": (
        lambda tmp: forage_start()[0].reset(KEY, arc_env().default_params),
        TypeError,
        r"params must be ForageParams or None, got TaskBank",
    ),
    "a task index outside the bank": (
        lambda tmp: arc.reset(KEY, arc.ArcConfig(), arc_env().default_params, task_index=400),
        ValueError,
        r"task_index=400 is out of range: the bank has 400 tasks \(0-399\)",
    ),
    # --- task data on disk
    "ArcFolder without a path": (
        lambda tmp: gridax.make("ArcFolder-v0"),
        ValueError,
        r"ArcFolder-v0 needs path=, a folder of ARC task JSON files",
    ),
    "a missing data folder": (
        lambda tmp: gridax.make("ArcFolder-v0", path=tmp / "missing"),
        ValueError,
        r"unknown task source '.*missing': expected one of 'arc-agi-1', 'arc-agi-2' or a path",
    ),
    "an empty data folder": (
        lambda tmp: gridax.make("ArcFolder-v0", path=tmp),
        ValueError,
        r"task folder '.*' contains no .json files",
    ),
    "an unreadable task file": (
        lambda tmp: (tmp / "dir.json").mkdir() or arc.load_tasks(tmp),
        ValueError,
        r"dir.json: cannot read task file",
    ),
    "a task file that is not JSON": (
        lambda tmp: arc.load_tasks(write(tmp, "t.json", '{"train": [')),
        ValueError,
        r"t.json: not valid JSON",
    ),
    "a grid cell that is JSON true": (
        lambda tmp: arc.load_tasks(
            write(tmp, "t.json", '{"train": [{"input": [[true]], "output": [[1]]}], "test": []}')
        ),
        ValueError,
        r"t.json, train pair 0 input: cell at row 0, col 0 is True; cells must be integers 0-9",
    ),
    "a task dict that is not a mapping": (
        lambda tmp: arc.tasks_from_dict([{"train": []}]),
        TypeError,
        r"tasks_from_dict takes a mapping of task id to ARC task, got list",
    ),
    # --- wrappers
    "an unknown auto-reset strategy": (
        lambda tmp: AutoReset(arc_env(), "sometimes"),
        ValueError,
        r"AutoReset strategy must be one of 'always', 'any_done', 'pool'; got 'sometimes'",
    ),
    "a non-positive batch size": (
        lambda tmp: AutoReset(arc_env()).reset(KEY, 0),
        ValueError,
        r"num_envs must be an integer >= 1; got 0",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_named(case, tmp_path):
    call, error, message = CASES[case]
    with pytest.raises(error, match=message):
        call(tmp_path)


def test_forage_batch_step_names_a_state_of_another_env():
    _, state = forage_start("ForagaxBig-v5")
    states = jax.tree.map(lambda x: x[None], state)
    other = forage.make_config("ForagaxTwoBiome-v1")
    with pytest.raises(ValueError, match="does not fit this ForageConfig"):
        forage.batch_step(states, jnp.zeros(1, jnp.int32), other)
