"""Golden tests: each operation on a tiny hand-written grid, exact result."""

import jax.numpy as jnp
import pytest

from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.envs import arc
from gridax.envs.arc import operations as ops

from .helpers import parse, show, start

GRID = """
0 0 1
0 2 1
3 3 1
"""


def bbox(op, r1, c1, r2, c2):
    return BboxAction(op, r1, c1, r2, c2)


def mask(op, cells):
    selection = jnp.zeros((30, 30), dtype=bool)
    for r, c in cells:
        selection = selection.at[r, c].set(True)
    return MaskAction(op, selection)


CASES = [
    # (name, grid, action, expected)
    ("fill one cell", GRID, PointAction(5, 0, 0), "5 0 1\n0 2 1\n3 3 1"),
    ("fill a box", GRID, bbox(7, 0, 0, 1, 1), "7 7 1\n7 7 1\n3 3 1"),
    ("flood a region", GRID, PointAction(ops.FLOOD_FILL + 4, 0, 0), "4 4 1\n4 2 1\n3 3 1"),
    ("flood the column", GRID, PointAction(ops.FLOOD_FILL + 9, 2, 2), "0 0 9\n0 2 9\n3 3 9"),
    (
        "flood each selected region",
        GRID,
        mask(ops.FLOOD_FILL + 6, [(0, 1), (2, 0)]),
        "6 6 1\n6 2 1\n6 6 1",
    ),
    ("flood is 4-connected", "1 0\n0 1", PointAction(ops.FLOOD_FILL + 2, 0, 0), "2 0\n0 1"),
    ("move up", GRID, bbox(ops.MOVE_UP, 1, 1, 2, 1), "0 2 1\n0 3 1\n3 0 1"),
    ("move up off the grid", GRID, bbox(ops.MOVE_UP, 0, 2, 0, 2), "0 0 0\n0 2 1\n3 3 1"),
    ("move down", GRID, PointAction(ops.MOVE_DOWN, 1, 1), "0 0 1\n0 0 1\n3 2 1"),
    ("move left", GRID, bbox(ops.MOVE_LEFT, 1, 1, 1, 2), "0 0 1\n2 1 0\n3 3 1"),
    ("move right", GRID, bbox(ops.MOVE_RIGHT, 2, 0, 2, 1), "0 0 1\n0 2 1\n0 3 3"),
    ("rotate square clockwise", GRID, bbox(ops.ROTATE_CW, 0, 1, 1, 2), "0 2 0\n0 1 1\n3 3 1"),
    (
        "rotate square counter-clockwise",
        GRID,
        bbox(ops.ROTATE_CCW, 0, 1, 1, 2),
        "0 1 1\n0 0 2\n3 3 1",
    ),
    # A 1x3 row rotated clockwise becomes a 3x1 column under its top-left cell.
    (
        "rotate wide clockwise",
        "1 2 3\n0 0 0\n0 0 0",
        bbox(ops.ROTATE_CW, 0, 0, 0, 2),
        "1 0 0\n2 0 0\n3 0 0",
    ),
    (
        "rotate wide counter-clockwise",
        "1 2 3\n0 0 0\n0 0 0",
        bbox(ops.ROTATE_CCW, 0, 0, 0, 2),
        "3 0 0\n2 0 0\n1 0 0",
    ),
    (
        "rotate past the edge",
        "0 0 0\n0 0 0\n1 2 3",
        bbox(ops.ROTATE_CW, 2, 0, 2, 2),
        "0 0 0\n0 0 0\n1 0 0",
    ),
    ("flip horizontal", GRID, bbox(ops.FLIP_HORIZONTAL, 0, 0, 2, 2), "1 0 0\n1 2 0\n1 3 3"),
    ("flip vertical", GRID, bbox(ops.FLIP_VERTICAL, 0, 0, 2, 2), "3 3 1\n0 2 1\n0 0 1"),
    (
        "flip keeps unselected",
        GRID,
        mask(ops.FLIP_VERTICAL, [(0, 2), (2, 0)]),
        "3 0 0\n0 2 1\n0 3 1",
    ),
    ("copy leaves the grid", GRID, bbox(ops.COPY, 0, 0, 1, 1), "0 0 1\n0 2 1\n3 3 1"),
    ("cut", GRID, bbox(ops.CUT, 1, 1, 2, 2), "0 0 1\n0 0 0\n3 0 0"),
    ("clear", GRID, PointAction(ops.CLEAR, 1, 1), "0 0 1\n0 0 1\n3 3 1"),
    ("resize grows", "1 2\n3 4", PointAction(ops.RESIZE, 2, 2), "1 2 0\n3 4 0\n0 0 0"),
    ("resize shrinks", GRID, PointAction(ops.RESIZE, 0, 1), "0 0"),
    ("resize to the box corner", GRID, bbox(ops.RESIZE, 1, 0, 0, 3), "0 0 1 0\n0 2 1 0"),
    ("submit changes nothing", GRID, PointAction(ops.SUBMIT, 0, 0), GRID.strip()),
]


@pytest.mark.parametrize(("name", "grid", "action", "expected"), CASES, ids=[c[0] for c in CASES])
def test_operation(name, grid, action, expected):
    fmt = {PointAction: "point", BboxAction: "bbox", MaskAction: "mask"}[type(action)]
    state, config = start(grid, selection_format=fmt)
    state, _, _, _, info = arc.step(state, action, config)
    assert not info["invalid_action"]
    assert show(state) == expected.strip()


def test_copy_then_paste_aligns_the_top_left():
    state, config = start(GRID, selection_format="bbox")
    state, *_ = arc.step(state, bbox(ops.COPY, 1, 1, 2, 2), config)
    state, *_ = arc.step(state, bbox(ops.PASTE, 0, 0, 0, 0), config)
    assert show(state) == "2 1 1\n3 1 1\n3 3 1"
    # Pasting near the edge loses what falls off the live grid.
    state, *_ = arc.step(state, bbox(ops.PASTE, 2, 2, 2, 2), config)
    assert show(state) == "2 1 1\n3 1 1\n3 3 2"


def test_paste_writes_only_copied_cells():
    state, config = start(GRID, selection_format="mask")
    state, *_ = arc.step(state, mask(ops.COPY, [(0, 2), (1, 1)]), config)
    state, *_ = arc.step(state, mask(ops.PASTE, [(0, 0)]), config)
    # Copied cells (0,2)=1 and (1,1)=2 keep their offsets from the origin (0,1); the
    # uncopied cells of the box, (0,1) and (1,2), do not overwrite (0,0) and (1,1).
    assert show(state) == "0 1 1\n2 2 1\n3 3 1"


def test_cut_fills_the_clipboard():
    state, config = start(GRID)
    state, *_ = arc.step(state, PointAction(ops.CUT, 1, 1), config)
    state, *_ = arc.step(state, PointAction(ops.PASTE, 0, 0), config)
    assert show(state) == "2 0 1\n0 0 1\n3 3 1"


def test_paste_with_empty_clipboard_is_a_valid_no_op():
    state, config = start(GRID)
    state, _, _, _, info = arc.step(state, PointAction(ops.PASTE, 0, 0), config)
    assert not info["invalid_action"]
    assert show(state) == GRID.strip()


def test_copy_input_restores_grid_and_shape():
    state, config = start(GRID)
    state, *_ = arc.step(state, PointAction(ops.RESIZE, 0, 0), config)
    state, *_ = arc.step(state, PointAction(ops.FILL + 9, 0, 0), config)
    assert show(state) == "9"
    state, *_ = arc.step(state, PointAction(ops.COPY_INPUT, 0, 0), config)
    assert show(state) == GRID.strip()


def test_resize_then_grow_shows_zeros():
    state, config = start(GRID)
    state, *_ = arc.step(state, PointAction(ops.RESIZE, 0, 0), config)
    state, *_ = arc.step(state, PointAction(ops.RESIZE, 1, 1), config)
    assert show(state) == "0 0\n0 0"


def test_operation_names():
    assert len(arc.OPERATION_NAMES) == arc.NUM_OPERATIONS == 35
    assert arc.OPERATION_NAMES[ops.FLOOD_FILL + 3] == "flood_fill_3"
    assert arc.OPERATION_NAMES[ops.SUBMIT] == "submit"
    assert parse("0 1\n2 3") == [[0, 1], [2, 3]]
