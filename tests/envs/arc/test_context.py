"""ArcConfig(context=True): the task's demonstration pairs in every observation, without
the episode's own pair in train mode, for banks and generators, with matching spaces;
checkpoints leave the context out and restore it."""

import io

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.envs import arc
from gridax.serialization import load_state, read_header, save_state
from gridax.testing import check_env


@pytest.mark.parametrize(
    ("env_id", "overrides"),
    [
        ("ArcAgi1-v0", {}),
        ("ArcAgi2-v0", {"mode": "eval", "selection_format": "mask"}),
        ("ArcGen-Translate-v0", {"selection_format": "bbox"}),
    ],
)
def test_envs_with_context_conform(env_id, overrides):
    env = gridax.make(env_id, context=True, **overrides)
    check_env(env, num_envs=2, num_steps=4)
    assert "context" in env.observation_space.spaces


def test_no_observation_contains_its_own_pair_in_train_mode():
    tasks = arc.load_tasks("arc-agi-1")
    config = arc.ArcConfig(context=True, max_episode_steps=5)
    states, obs = arc.batch_reset(jax.random.split(jax.random.key(0), 512), config, tasks)
    actions = arc.random_actions(jax.random.key(1), states.working_shape, "point")
    _, stepped, *_ = arc.batch_step(states, actions, config)
    train = jax.device_get(tasks.pairs("train"))
    for view in jax.device_get((obs, stepped)):
        context, task, pair = view.context, view.task_index, view.pair_index
        for i in range(len(task)):
            count = int(train.count[task[i]])
            expected = (np.arange(10) < count) & (np.arange(10) != pair[i])
            np.testing.assert_array_equal(context.mask[i], expected)
            assert not context.outputs[i, pair[i]].any() and not context.inputs[i, pair[i]].any()
            assert (context.output_shapes[i, pair[i]] == 0).all()
            others = expected.nonzero()[0]
            np.testing.assert_array_equal(
                context.outputs[i, others], train.outputs[task[i], others]
            )
            np.testing.assert_array_equal(
                context.input_shapes[i, others], train.input_shapes[task[i], others]
            )


def test_eval_mode_shows_every_demonstration_and_generators_theirs():
    tasks = arc.load_tasks("arc-agi-1", "evaluation")
    config = arc.ArcConfig(context=True, mode="eval")
    state, obs = arc.reset(jax.random.key(2), config, tasks)
    count = int(tasks.num_train[state.task_index])
    np.testing.assert_array_equal(obs.context.mask, np.arange(tasks.max_pairs("train")) < count)
    generator = arc.Generator("translate", num_pairs=4)
    state, obs = arc.reset(jax.random.key(3), arc.ArcConfig(context=True), generator)
    assert obs.context.inputs.shape == (4, 30, 30) and int(obs.context.mask.sum()) == 3
    task = generator.task(state.task_index)
    shown = np.asarray(obs.context.mask).nonzero()[0]
    np.testing.assert_array_equal(obs.context.outputs[shown], task.train_outputs[0, shown])


def test_without_context_nothing_changes():
    tasks = arc.load_tasks("arc-agi-1")
    state, obs = arc.reset(jax.random.key(0), arc.ArcConfig(), tasks)
    assert state.context is None and obs.context is None
    assert "context" not in gridax.make("ArcAgi1-v0").observation_space.spaces


def test_checkpoints_leave_the_context_out_and_restore_it(tmp_path):
    env = gridax.make("ArcAgi1-v0", context=True)
    plain = gridax.make("ArcAgi1-v0")
    keys = jax.random.split(jax.random.key(4), 8)
    states, _ = env.batch_reset(keys)
    path = save_state(tmp_path / "c.ckpt", states, env)
    like, _ = env.batch_reset(jax.random.split(jax.random.key(5), 8))
    assert eqx.tree_equal(load_state(path, like, env), states)
    plain_path = save_state(tmp_path / "p.ckpt", plain.batch_reset(keys)[0], plain)
    sizes = [read_header(p)[0]["payload_bytes"] for p in (path, plain_path)]
    whole = io.BytesIO()
    eqx.tree_serialise_leaves(whole, states.context)
    assert sizes[0] - sizes[1] < 5 * 128  # five empty records, none of the context's bytes
    assert len(whole.getvalue()) > 100_000


def test_a_state_with_context_needs_a_config_with_context():
    tasks = arc.load_tasks("arc-agi-1")
    state, _ = arc.reset(jax.random.key(0), arc.ArcConfig(context=True), tasks)
    with pytest.raises(ValueError, match="the state has demonstration context but the ArcConfig"):
        arc.step(state, arc.PointAction(0, 0, 0), arc.ArcConfig())
    with pytest.raises(ValueError, match="ArcConfig.context must be True or False; got 1"):
        arc.ArcConfig(context=1)
    assert jnp.asarray(state.context.mask).dtype == jnp.bool_
