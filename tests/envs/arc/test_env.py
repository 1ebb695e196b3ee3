"""Behaviour of the ARC environment: conformance, batching, determinism, episodes."""

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.envs import arc
from gridax.envs.arc import env as arc_env
from gridax.envs.arc import operations as ops

from .helpers import show, start
from .test_reference_parity import random_actions

FORMATS = ["point", "bbox", "mask"]
STATE_DTYPES = {
    "working_grid": jnp.int8,
    "working_shape": jnp.int32,
    "input_grid": jnp.int8,
    "target_grid": jnp.int8,
    "clipboard": jnp.int8,
    "clipboard_mask": jnp.bool_,
    "step_count": jnp.int32,
    "task_index": jnp.int32,
    "similarity": jnp.float32,
    "terminated": jnp.bool_,
    "key": jnp.uint32,
}


def leaf_dtypes(tree):
    return [leaf.dtype for leaf in jax.tree.leaves(tree)]


def action_at(actions, i):
    return jax.tree.map(lambda x: x[i], actions)


@pytest.mark.parametrize("fmt", FORMATS)
def test_random_episode_conformance(arc_agi_1, fmt):
    config = arc.ArcConfig(selection_format=fmt, max_episode_steps=12)
    rng = np.random.default_rng(1)
    states, obs = arc.batch_reset(jax.random.split(jax.random.key(0), 16), config, arc_agi_1)
    initial_dtypes = leaf_dtypes(states)
    for name, dtype in STATE_DTYPES.items():
        assert getattr(states, name).dtype == dtype, name
    for _ in range(15):
        actions = random_actions(rng, fmt, np.asarray(states.working_shape))
        states, obs, rewards, dones, infos = arc.batch_step(states, actions, config)
        assert leaf_dtypes(states) == initial_dtypes
        assert rewards.dtype == jnp.float32 and bool(jnp.all(jnp.isfinite(rewards)))
        assert dones.dtype == jnp.bool_
        assert set(infos) == {"success", "terminated", "truncated", "invalid_action", "similarity"}
        assert obs.working_grid.shape == (16, 30, 30) and obs.working_grid.dtype == jnp.int8
    assert bool(jnp.all(dones))  # every episode ends by submit or truncation


@pytest.mark.parametrize("fmt", FORMATS)
def test_batch_step_equals_loop_of_step_and_no_jit(arc_agi_1, fmt):
    config = arc.ArcConfig(selection_format=fmt)
    rng = np.random.default_rng(2)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(5), 4), config, arc_agi_1)
    for _ in range(3):
        actions = random_actions(rng, fmt, np.asarray(states.working_shape))
        batched = arc.batch_step(states, actions, config)
        for i in range(4):
            single_state = jax.tree.map(lambda x, i=i: x[i], states)
            jitted = arc.step(single_state, action_at(actions, i), config)
            assert eqx.tree_equal(jitted, jax.tree.map(lambda x, i=i: x[i], batched))
        unjitted = arc_env._step(single_state, action_at(actions, 3), config)
        assert eqx.tree_equal(unjitted, jitted)
        states = batched[0]


def test_same_key_same_trajectory_and_different_keys_differ(arc_agi_1):
    config = arc.ArcConfig()

    def rollout(seed):
        keys = jax.random.split(jax.random.key(seed), 8)
        states, _ = arc.batch_reset(keys, config, arc_agi_1)
        rng = np.random.default_rng(seed)
        trajectory = [states]
        for _ in range(5):
            actions = random_actions(rng, "point", np.asarray(states.working_shape))
            states = arc.batch_step(states, actions, config)[0]
            trajectory.append(states)
        return trajectory

    assert eqx.tree_equal(rollout(11), rollout(11))
    a, b = rollout(11)[0], rollout(12)[0]
    assert not np.array_equal(np.asarray(a.task_index), np.asarray(b.task_index))


def test_no_retracing_across_states_tasks_and_keys(arc_agi_1):
    config = arc.ArcConfig()
    counted_step = eqx.filter_jit(eqx.debug.assert_max_traces(arc_env._step, max_traces=1))
    counted_reset = eqx.filter_jit(eqx.debug.assert_max_traces(arc_env._reset, max_traces=1))
    # What the public reset passes: banks of one shape share a compilation, ids or not.
    banks = [arc_agi_1.arrays_only(), dataclasses.replace(arc_agi_1, task_ids=("x",) * 400)]
    for seed in range(3):
        bank = banks[seed % 2].arrays_only()
        state, _ = counted_reset(jax.random.key(seed), config, bank, jnp.int32(seed), None)
        for op in (3, 12, 24, 33):
            state = counted_step(state, PointAction(op, seed, 1), config)[0]


def test_reset_takes_task_and_pair_from_the_bank(arc_agi_1):
    config = arc.ArcConfig(mode="train")
    index = arc_agi_1.index_of("007bbfb7")
    state, obs = arc.reset(jax.random.key(0), config, arc_agi_1, task_index=index, pair_index=2)
    demos = arc_agi_1.demonstrations(obs.task_index)
    assert int(state.pair_index) == 2 and int(demos.count) == 5
    np.testing.assert_array_equal(state.input_grid, demos.inputs[2])
    np.testing.assert_array_equal(state.target_grid, demos.outputs[2])
    assert show(state) == "0 0 0\n0 0 2\n2 0 2"  # pair 2 of 007bbfb7
    assert state.working_shape.tolist() == [3, 3] and state.target_shape.tolist() == [9, 9]

    evaluation, _ = arc.reset(
        jax.random.key(0), arc.ArcConfig(mode="eval"), arc_agi_1, task_index=index
    )
    np.testing.assert_array_equal(evaluation.target_grid, arc_agi_1.test_outputs[index, 0])

    empty, _ = arc.reset(
        jax.random.key(0), arc.ArcConfig(initial_grid="empty"), arc_agi_1, task_index=index
    )
    assert not np.asarray(empty.working_grid).any() and empty.working_shape.tolist() == [3, 3]


def test_reset_samples_demonstration_pairs_within_count(arc_agi_1):
    states, _ = arc.batch_reset(
        jax.random.split(jax.random.key(0), 512), arc.ArcConfig(), arc_agi_1
    )
    pairs = np.asarray(states.pair_index)
    counts = np.asarray(arc_agi_1.num_train)[np.asarray(states.task_index)]
    assert (pairs < counts).all() and len(np.unique(np.asarray(states.task_index))) > 200
    # Training mode plays the pair's own input, never another pair's.
    expected = np.asarray(arc_agi_1.train_inputs)[np.asarray(states.task_index), pairs]
    np.testing.assert_array_equal(np.asarray(states.input_grid), expected)
    np.testing.assert_array_equal(np.asarray(states.working_grid), expected)


def test_batch_reset_accepts_per_env_task_indices(arc_agi_1):
    keys = jax.random.split(jax.random.key(0), 3)
    states, _ = arc.batch_reset(keys, arc.ArcConfig(), arc_agi_1, task_index=[5, 6, 7])
    assert states.task_index.tolist() == [5, 6, 7]
    states, _ = arc.batch_reset(keys, arc.ArcConfig(), arc_agi_1, task_index=9)
    assert states.task_index.tolist() == [9, 9, 9]


INVALID = [
    ("operation out of range", PointAction(99, 0, 0)),
    ("negative operation", PointAction(-1, 0, 0)),
    ("point off the canvas", PointAction(3, 30, 0)),
    ("point off the live grid", PointAction(3, 5, 5)),
    ("bbox partly off the canvas", BboxAction(3, 0, 0, 0, 40)),
    ("resize off the canvas", PointAction(ops.RESIZE, -1, 2)),
    ("huge coordinate", PointAction(3, 2**40, 0)),
]


@pytest.mark.parametrize(("name", "action"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_action_is_a_flagged_no_op(name, action):
    fmt = "point" if isinstance(action, PointAction) else "bbox"
    state, config = start("1 2\n3 4", selection_format=fmt, invalid_action_penalty=-0.5)
    after, _, reward, done, info = arc.step(state, action, config)
    assert bool(info["invalid_action"]) and not bool(done)
    assert float(reward) == pytest.approx(config.step_penalty - 0.5)
    assert int(after.step_count) == 1 and bool(after.history.invalid[0])
    unchanged = ("working_grid", "working_shape", "clipboard", "clipboard_mask", "similarity")
    for name in unchanged:
        np.testing.assert_array_equal(getattr(after, name), getattr(state, name))


def test_empty_mask_is_invalid_except_for_operations_that_ignore_it():
    state, config = start("1 2\n3 4", selection_format="mask")
    empty = jnp.zeros((30, 30), dtype=bool)
    for op, invalid in (
        (3, True),
        (ops.RESIZE, True),
        (ops.COPY_INPUT, False),
        (ops.SUBMIT, False),
    ):
        info = arc.step(state, MaskAction(op, empty), config)[4]
        assert bool(info["invalid_action"]) == invalid, op
    # Copy-input and submit accept even coordinates off the canvas.
    state, config = start("1 2\n3 4")
    assert not arc.step(state, PointAction(ops.SUBMIT, -5, 99), config)[4]["invalid_action"]


def test_finished_episode_is_absorbing():
    state, config = start("1 2\n3 4", "1 2\n3 5", max_episode_steps=3)
    state, _, reward, done, info = arc.step(state, PointAction(ops.SUBMIT, 0, 0), config)
    assert bool(done) and bool(info["terminated"]) and not bool(info["success"])
    assert float(reward) == pytest.approx(config.step_penalty + config.failed_submit_penalty)
    again, _, reward, done, info = arc.step(state, PointAction(5, 1, 1), config)
    assert float(reward) == 0.0 and bool(done) and not bool(info["invalid_action"])
    assert eqx.tree_equal(again, state)

    state, config = start("1 2\n3 4", "1 2\n3 5", max_episode_steps=2)
    for expected_truncated in (False, True):
        state, _, _, done, info = arc.step(state, PointAction(7, 0, 0), config)
        assert bool(info["truncated"]) == expected_truncated == bool(done)
    assert not bool(info["terminated"])
    again, _, reward, _, info = arc.step(state, PointAction(99, 0, 0), config)
    assert eqx.tree_equal(again, state) and float(reward) == 0.0
    assert not bool(info["invalid_action"])


def test_dense_and_sparse_rewards():
    state, config = start("1 2\n3 4", "1 2\n3 5")
    state, _, reward, _, info = arc.step(state, PointAction(5, 1, 1), config)
    assert float(info["similarity"]) == 1.0
    assert float(reward) == pytest.approx(0.25 + config.step_penalty)
    _, _, reward, _, info = arc.step(state, PointAction(ops.SUBMIT, 0, 0), config)
    assert bool(info["success"])
    assert float(reward) == pytest.approx(config.step_penalty + config.success_bonus)

    state, config = start("1 2\n3 4", "1 2\n3 5", reward_mode="sparse")
    state, _, reward, *_ = arc.step(state, PointAction(5, 1, 1), config)
    assert float(reward) == 0.0
    _, _, reward, *_ = arc.step(state, PointAction(ops.SUBMIT, 0, 0), config)
    assert float(reward) == config.success_bonus


def test_similarity_counts_the_union_so_wrong_shapes_never_match():
    # The working grid's top-left 1x1 equals the target, but the grid is 2x2.
    state, config = start("1 0\n0 0", "1")
    assert float(state.similarity) == pytest.approx(1 / 4)
    _, _, _, _, info = arc.step(state, PointAction(ops.SUBMIT, 0, 0), config)
    assert not bool(info["success"])
    state, *_ = arc.step(state, PointAction(ops.RESIZE, 0, 0), config)
    assert float(state.similarity) == 1.0


def test_history_records_every_step():
    state, config = start("1 2\n3 4", selection_format="bbox", history_length=2)
    for op in (3, 4, 99):
        state, *_ = arc.step(state, BboxAction(op, 1, 1, 0, 0), config)
    # Ring buffer of 2: the third record overwrote the first.
    assert state.history.operation.tolist() == [99, 4]
    assert state.history.invalid.tolist() == [True, False]
    assert state.history.selection.tolist() == [[0, 0, 1, 1], [0, 0, 1, 1]]


def test_mask_history_round_trips_the_selection():
    from gridax.envs.arc.history import recorded_masks

    selection = jnp.zeros((30, 30), dtype=bool).at[1, 0].set(True).at[0, 29].set(True)
    state, config = start("1 2\n3 4", selection_format="mask")
    state, *_ = arc.step(state, MaskAction(3, selection), config)
    np.testing.assert_array_equal(recorded_masks(state.history)[0], selection)


@pytest.mark.parametrize(
    ("source", "split", "count"), [("arc-agi-1", "training", 8), ("arc-agi-2", "evaluation", 8)]
)
def test_painting_the_target_with_masks_succeeds_on_real_tasks(source, split, count):
    """Resize to the target, fill each colour's cells, submit: success on every env."""
    bank = arc.load_tasks(source, split=split)
    config = arc.ArcConfig(selection_format="mask", mode="eval")
    keys = jax.random.split(jax.random.key(0), count)
    states, _ = arc.batch_reset(keys, config, bank, task_index=np.arange(count) * 7)
    targets, shapes = states.target_grid, states.target_shape
    corner = jnp.zeros((count, 30, 30), dtype=bool)
    corner = corner.at[jnp.arange(count), shapes[:, 0] - 1, shapes[:, 1] - 1].set(True)
    states, *_ = arc.batch_step(states, MaskAction(jnp.full(count, ops.RESIZE), corner), config)
    for colour in range(10):
        cells = (targets == colour) & states.target_mask
        states, *_ = arc.batch_step(states, MaskAction(jnp.full(count, colour), cells), config)
    assert bool(jnp.all(states.similarity == 1.0))
    submit = MaskAction(jnp.full(count, ops.SUBMIT), jnp.zeros((count, 30, 30), dtype=bool))
    states, _, rewards, dones, infos = arc.batch_step(states, submit, config)
    assert bool(jnp.all(infos["success"])) and bool(jnp.all(dones))
    assert bool(jnp.all(rewards > config.success_bonus - 1))
    np.testing.assert_array_equal(states.working_grid, states.target_grid)


def test_properties_hold_over_many_random_envs(arc_agi_1):
    config = arc.ArcConfig(selection_format="bbox", max_episode_steps=40)
    rng = np.random.default_rng(9)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(9), 256), config, arc_agi_1)
    operations = []
    for _ in range(25):
        actions = random_actions(rng, "bbox", np.asarray(states.working_shape))
        operations.append(np.asarray(actions.operation))
        states, *_ = arc.batch_step(states, actions, config)
        grids = np.asarray(states.working_grid)
        assert grids.min() >= 0 and grids.max() <= 9
        assert not grids[~np.asarray(states.working_mask)].any()
        shapes = np.asarray(states.working_shape)
        assert (shapes >= 1).all() and (shapes <= 30).all()
    steps = np.asarray(states.step_count)
    recorded = np.asarray(states.history.operation)
    for i in range(256):
        np.testing.assert_array_equal(recorded[i, : steps[i]], np.stack(operations)[: steps[i], i])
