"""Structured actions: masks, canvas checks, dtype pinning and clear errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.actions import BboxAction, MaskAction, PointAction, empty_history, record_action
from gridax.envs.arc.grid import pack_rows, unpack_rows


def test_point_mask():
    mask = PointAction(0, 2, 1).to_selection_mask((3, 3))
    assert np.argwhere(np.asarray(mask)).tolist() == [[2, 1]]


def test_bbox_corners_in_any_order_are_inclusive():
    a = BboxAction(0, 2, 3, 0, 1).to_selection_mask((4, 5))
    b = BboxAction(0, 0, 1, 2, 3).to_selection_mask((4, 5))
    np.testing.assert_array_equal(a, b)
    assert int(a.sum()) == 9 and bool(a[0, 1]) and bool(a[2, 3]) and not bool(a[3, 3])


def test_off_canvas_parts_drop_out_and_are_flagged():
    action = BboxAction(0, -2, -2, 1, 1)
    assert int(action.to_selection_mask((30, 30)).sum()) == 4
    assert not bool(action.within_canvas((30, 30)))
    assert bool(PointAction(0, 29, 29).within_canvas()) and not bool(
        PointAction(0, 30, 0).within_canvas()
    )


def test_batched_actions_give_batched_masks():
    actions = PointAction(jnp.array([1, 2]), jnp.array([0, 1]), jnp.array([0, 1]))
    masks = actions.to_selection_mask()
    assert masks.shape == (2, 30, 30) and actions.batch_shape == (2,)
    np.testing.assert_array_equal(masks[1], PointAction(2, 1, 1).to_selection_mask())
    boxes = BboxAction(*(jnp.array([0, 1]),) * 5)
    assert boxes.to_selection_mask().shape == (2, 30, 30)


def test_dtypes_are_pinned_and_huge_values_saturate():
    action = PointAction(np.int64(3), 2**40, -(2**40))
    assert action.operation.dtype == jnp.int32
    assert int(action.row) == np.iinfo(np.int32).max and int(action.col) == np.iinfo(np.int32).min
    assert MaskAction(0, np.ones((30, 30), dtype=np.uint8)).selection.dtype == jnp.bool_


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: PointAction(0, 1.5, 0), "row must hold integers"),
        (lambda: PointAction(0, True, 0), "row must hold integers"),
        (lambda: BboxAction(0, 0, 0, 0, np.float32(2)), "c2 must hold integers"),
        (lambda: PointAction(jnp.array([1, 2]), 0, 0), r"share one \(batch\) shape"),
        (lambda: MaskAction(0, np.zeros((5, 5), dtype=bool)).to_selection_mask(), "grid shape"),
        (lambda: MaskAction(jnp.array([1, 2]), np.zeros((30, 30), bool)), "must have shape"),
        (lambda: MaskAction(0, np.zeros((30, 30), dtype=np.float32)), "boolean"),
    ],
)
def test_bad_actions_raise_clear_errors(make, message):
    with pytest.raises((TypeError, ValueError), match=message):
        make()


def test_actions_work_under_jit_and_vmap():
    @jax.jit
    def masks(ops, rows, cols):
        return jax.vmap(lambda o, r, c: PointAction(o, r, c).to_selection_mask())(ops, rows, cols)

    out = masks(jnp.arange(3), jnp.arange(3), jnp.arange(3))
    assert out.shape == (3, 30, 30) and int(out.sum()) == 3


def test_pack_rows_round_trips():
    mask = np.random.default_rng(0).random((4, 30, 30)) < 0.3
    bits = pack_rows(jnp.asarray(mask))
    assert bits.dtype == jnp.uint32 and bits.shape == (4, 30)
    np.testing.assert_array_equal(unpack_rows(bits), mask)


@pytest.mark.parametrize(
    ("action_type", "width", "dtype", "record_bytes"),
    [
        (PointAction, 2, jnp.int16, 7),
        (BboxAction, 4, jnp.int16, 11),
        (MaskAction, 30, jnp.uint32, 123),
    ],
)
def test_history_record_width_per_format(action_type, width, dtype, record_bytes):
    history = empty_history(action_type, 100)
    assert history.selection.shape == (100, width) and history.selection.dtype == dtype
    assert history.nbytes() == 100 * record_bytes


def test_record_action_writes_the_ring_slot():
    history = empty_history(PointAction, 3)
    history = record_action(history, jnp.int32(4), PointAction(7, 1, 2), jnp.bool_(False))
    assert history.operation.tolist() == [-1, 7, -1]
    assert history.selection[1].tolist() == [1, 2]
