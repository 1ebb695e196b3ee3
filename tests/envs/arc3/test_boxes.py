"""Sprites as boxes (``engine/boxes.py``): the boxes cover exactly the solid cells, and
the arithmetic tests answer as the cells do."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs.arc3 import rules

CROSS = np.full((9, 9), -1)
CROSS[3:6, :] = 7
CROSS[:, 3:6] = 7


def sprite(pixels, **fields) -> rules.Sprite:
    return rules.Sprite(pixels=tuple(map(tuple, np.asarray(pixels).tolist())), kind="s", **fields)


def covered(boxes, height, width) -> np.ndarray:
    cells = np.zeros((height, width), bool)
    for left, top, right, bottom in boxes:
        cells[top:bottom, left:right] = True
    return cells


def test_a_full_sprite_is_one_box_and_the_rest_are_empty():
    boxes = rules.solid_boxes(sprite(np.full((3, 6), 4)), 2)
    np.testing.assert_array_equal(boxes, [[0, 0, 6, 3], [0, 0, 0, 0]])


def test_a_cross_is_two_boxes_that_cover_its_cells_alone():
    boxes = rules.solid_boxes(sprite(CROSS), 2)
    np.testing.assert_array_equal(covered(boxes, 9, 9), CROSS != -1)


def test_boxes_are_of_the_sprite_as_drawn():
    pixels = np.full((2, 4), -1)
    pixels[:, :1] = 3  # the left column; turned a quarter clockwise, the top row
    boxes = rules.solid_boxes(sprite(pixels, rotation=90, scale=2), 1)
    drawn = rules.drawn_grid(sprite(pixels, rotation=90, scale=2))
    np.testing.assert_array_equal(covered(boxes, *drawn.shape), drawn != -1)
    np.testing.assert_array_equal(boxes, [[0, 0, 4, 2]])


def test_a_shape_of_more_boxes_is_named():
    ring = np.full((3, 3), 2)
    ring[1, 1] = -1
    with pytest.raises(ValueError, match="'s'.*more than 2 boxes"):
        rules.solid_boxes(sprite(ring), 2)


def test_boxes_meet_and_in_boxes_answer_as_the_cells_do():
    rng = np.random.default_rng(0)
    shapes = [np.full((3, 3), 1), np.full((6, 3), 1), CROSS]
    world = 24
    for _ in range(200):
        a, b = (shapes[k] for k in rng.integers(0, len(shapes), 2))
        (ax, ay), (bx, by) = rng.integers(0, world - 9, (2, 2))
        cells_a, cells_b = np.zeros((world, world), bool), np.zeros((world, world), bool)
        cells_a[ay : ay + a.shape[0], ax : ax + a.shape[1]] = a != -1
        cells_b[by : by + b.shape[0], bx : bx + b.shape[1]] = b != -1
        boxes_a = rules.boxes_at(jnp.asarray(rules.solid_boxes(sprite(a), 2)), ax, ay)
        boxes_b = rules.boxes_at(jnp.asarray(rules.solid_boxes(sprite(b), 2)), bx, by)
        assert bool(rules.boxes_meet(boxes_a, boxes_b)) == bool(np.any(cells_a & cells_b))
        x, y = np.arange(world)[None, :], np.arange(world)[:, None]
        np.testing.assert_array_equal(rules.in_boxes(x, y, boxes_a), cells_a)
