"""Property-based tests: any action sequence, in any format, keeps the ARC invariants.

Operation ids and coordinates range over everything a user can pass (negative, past the
canvas, past int32 and even int64); masks include the empty and the full selection.
After every step: colours in 0-9, cells outside the live grid zero, leaf shapes and
dtypes fixed, a finite reward, an invalid action changes nothing, a finished episode
changes nothing, and the action history holds exactly the steps taken (checked against
a NumPy encoding of each record written here).
"""

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.envs import arc
from gridax.envs.arc.config import INITIAL_GRIDS
from gridax.envs.arc.operations import NUM_OPERATIONS

INT16 = np.iinfo(np.int16)
INT32 = np.iinfo(np.int32)

operations = st.one_of(
    st.integers(0, NUM_OPERATIONS - 1),
    st.integers(-3, NUM_OPERATIONS + 3),
    st.integers(INT32.min, INT32.max),
)
coordinates = st.one_of(
    st.integers(0, 9),  # on most live grids
    st.integers(-2, 32),  # around the canvas edges
    st.integers(INT32.min, INT32.max),
    st.integers(-(2**70), 2**70),  # Python ints past int64 saturate
)
selections = st.one_of(
    st.just(np.zeros((30, 30), bool)),
    st.just(np.ones((30, 30), bool)),
    hnp.arrays(bool, (30, 30)),
    st.tuples(st.integers(0, 29), st.integers(0, 29)).map(
        lambda rc: np.eye(1, 900, rc[0] * 30 + rc[1], dtype=bool).reshape(30, 30)
    ),
)
ACTIONS = {
    "point": st.builds(PointAction, operations, coordinates, coordinates),
    "bbox": st.builds(BboxAction, operations, coordinates, coordinates, coordinates, coordinates),
    "mask": st.builds(MaskAction, operations, selections),
}

TASKS = {
    "tall": {"input": [[1], [2], [3]], "output": [[3], [2], [1]]},
    "wide": {"input": [[0, 5, 5, 9, 0, 1, 2, 3]], "output": [[1, 1]]},
    "square": {"input": [[c % 10 for c in range(r, r + 12)] for r in range(12)], "output": [[7]]},
}
BANK = arc.tasks_from_dict(
    {name: {"train": [pair], "test": [pair]} for name, pair in TASKS.items()}
)


def leaf_types(state):
    return [(x.shape, x.dtype) for x in jax.tree.leaves(state)]


def expected_record(action) -> np.ndarray:
    """The history record of an action, encoded independently with NumPy."""

    def saturate(*values):
        return np.clip(np.array([int(v) for v in values]), INT16.min, INT16.max).astype(np.int16)

    if isinstance(action, PointAction):
        return saturate(action.row, action.col)
    if isinstance(action, BboxAction):
        rows, cols = (
            sorted([int(action.r1), int(action.r2)]),
            sorted([int(action.c1), int(action.c2)]),
        )
        return saturate(rows[0], cols[0], rows[1], cols[1])
    bits = np.asarray(action.selection).astype(np.uint64) << np.arange(30, dtype=np.uint64)
    return bits.sum(axis=1).astype(np.uint32)


def check_step(before, after, action, reward, info, config):
    grid, shape = np.asarray(after.working_grid), np.asarray(after.working_shape)
    assert shape.min() >= 1 and shape.max() <= 30
    assert grid.min() >= 0 and grid.max() <= 9
    assert np.asarray(after.clipboard).min() >= 0 and np.asarray(after.clipboard).max() <= 9
    assert not grid[shape[0] :, :].any() and not grid[:, shape[1] :].any()
    assert leaf_types(after) == leaf_types(before)
    assert np.isfinite(float(reward))

    was_done = bool(before.terminated) or int(before.step_count) >= config.max_episode_steps
    if was_done:  # absorbing: nothing moves, nothing is recorded, nothing is earned
        assert jax.tree.all(jax.tree.map(np.array_equal, before, after))
        assert float(reward) == 0.0
        return
    operation = int(action.operation)
    invalid = bool(info["invalid_action"])
    if not 0 <= operation < NUM_OPERATIONS:
        assert invalid
    if invalid:
        for field in ("working_grid", "working_shape", "clipboard", "clipboard_mask"):
            assert np.array_equal(getattr(before, field), getattr(after, field)), field
        assert not bool(after.terminated)
    assert int(after.step_count) == int(before.step_count) + 1
    slot = int(before.step_count) % config.history_size
    history = after.history
    assert int(history.operation[slot]) == np.clip(operation, INT16.min, INT16.max)
    assert bool(history.invalid[slot]) == invalid
    np.testing.assert_array_equal(history.selection[slot], expected_record(action))


def run_episode(selection_format, actions, seed, initial_grid):
    config = arc.ArcConfig(
        selection_format=selection_format,
        max_episode_steps=6,
        history_length=4,  # shorter than the episode: the ring buffer wraps
        initial_grid=initial_grid,
    )
    state, _ = arc.reset(jax.random.key(seed), config, BANK)
    for action in actions:
        after, _, reward, _, info = arc.step(state, action, config)
        check_step(state, after, action, reward, info, config)
        state = after


@pytest.mark.parametrize("selection_format", ["point", "bbox", "mask"])
def test_any_action_sequence_keeps_the_invariants(selection_format):
    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        actions=st.lists(ACTIONS[selection_format], min_size=1, max_size=9),
        seed=st.integers(0, 2**32 - 1),
        initial_grid=st.sampled_from(INITIAL_GRIDS),
    )
    def check(actions, seed, initial_grid):
        run_episode(selection_format, actions, seed, initial_grid)

    check()


@settings(max_examples=40, deadline=None)
@given(row=coordinates, col=coordinates)
def test_huge_coordinates_saturate_and_never_alias_a_cell(row, col):
    action = PointAction(0, row, col)
    assert int(action.row) == np.clip(row, INT32.min, INT32.max)
    on_canvas = 0 <= row < 30 and 0 <= col < 30
    assert bool(action.within_canvas()) == on_canvas
    assert int(action.to_selection_mask().sum()) == int(on_canvas)
