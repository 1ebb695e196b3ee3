"""The generated task families, one record each: the rule that turns an input into its
output, how the family's inputs are drawn, and its natural demonstration (the few
operations that solve it). :mod:`~gridax.envs.arc.tasks.generators` draws the inputs,
:mod:`~gridax.envs.arc.tools.demonstrations` replays the demonstrations; a new family is one
more record here (and its NumPy rule in the tests).

Rules map ``(grid, shape, parameters)`` to the output ``(grid, shape)`` on the 30x30
canvas; the table of ``docs/arc-generators.md`` and of the generators module says what
each does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int8, Int32, UInt32

from gridax.envs.arc import grid as canvas
from gridax.envs.arc import operations as ops
from gridax.envs.arc.grid import GRID_SIZE, canvas_box, canvas_coordinates, gather, live_mask

# Up, down, left, right. NumPy, not jnp: importing gridax must not start a JAX backend.
MOVES = np.array([[-1, 0], [1, 0], [0, -1], [0, 1]], np.int32)
MAX_DISTANCE = 3  # cells a translate task moves its object

Rule = Callable[..., tuple[Int8[Array, "30 30"], Int32[Array, " 2"]]]
Step = tuple[int | Int32[Array, ""], Bool[Array, "30 30"]]  # (operation, selection)


class TaskParameters(NamedTuple):
    """What a task's pairs share; drawn once per task from its seed (by
    :meth:`~gridax.envs.arc.Generator.parameters`)."""

    family: Int32[Array, ""]  # index into generators.FAMILIES, the names of FAMILIES below
    palette: Int32[Array, " 9"]  # a permutation of colours 1-9; objects use the first few
    source_colour: Int32[Array, ""]  # a: recoloured, and the colour of the first object
    new_colour: Int32[Array, ""]  # b, c: the recolour target, fill and box colour
    direction: Int32[Array, ""]  # 0-3: up, down, left, right
    distance: Int32[Array, ""]  # cells moved
    factor: Int32[Array, ""]  # scale factor, 2 or 3
    pairs_key: UInt32[Array, " 2"]  # the pairs' keys derive from it


# --- rules (tests check them against NumPy) ----------------------------------------------


def copy(grid, shape, parameters=None):
    return grid, shape


def recolour(grid, shape, parameters: TaskParameters):
    a, b = parameters.source_colour.astype(jnp.int8), parameters.new_colour.astype(jnp.int8)
    return jnp.where(grid == a, b, grid), shape


def fill_background(grid, shape, parameters: TaskParameters):
    c = parameters.new_colour.astype(jnp.int8)
    return jnp.where(live_mask(shape) & (grid == 0), c, grid), shape


# The whole-grid transforms of the canvas, as rules: they read no task parameters.


def flip_horizontal(grid, shape, parameters=None):
    return canvas.flip_horizontal(grid, shape)


def flip_vertical(grid, shape, parameters=None):
    return canvas.flip_vertical(grid, shape)


def rotate(grid, shape, parameters=None):
    return canvas.rotate(grid, shape)


def object_bounds(grid) -> ops.Bounds:
    """``(top, left, bottom, right)`` of the nonzero cells, inclusive."""
    return ops.selection_bounds(grid != 0)


def flip_object(grid, shape, parameters=None):
    top, left, bottom, right = object_bounds(grid)
    rows, cols = canvas_coordinates()
    inside = canvas_box(top, left, bottom, right)
    return jnp.where(inside, gather(grid, rows, left + right - cols, inside), grid), shape


def rotate_object(grid, shape, parameters=None):
    """The bounding box of the nonzero cells (square) turned clockwise in place."""
    top, left, bottom, _ = object_bounds(grid)
    size = bottom - top + 1
    rows, cols = canvas_coordinates()
    inside = canvas_box(top, left, top + size - 1, left + size - 1)
    source_rows, source_cols = top + size - 1 - (cols - left), left + (rows - top)
    return jnp.where(inside, gather(grid, source_rows, source_cols, inside), grid), shape


def translate(grid, shape, parameters: TaskParameters):
    move = jnp.asarray(MOVES)[parameters.direction] * parameters.distance
    rows, cols = canvas_coordinates()
    source_rows, source_cols = rows - move[0], cols - move[1]
    inside = (source_rows >= 0) & (source_rows < GRID_SIZE) & (source_cols >= 0)
    inside = inside & (source_cols < GRID_SIZE) & live_mask(shape)
    return gather(grid, source_rows, source_cols, inside), shape


def box_ring(grid) -> Bool[Array, "30 30"]:
    """The cells one step outside the bounding box of the nonzero cells."""
    top, left, bottom, right = object_bounds(grid)
    return canvas_box(top - 1, left - 1, bottom + 1, right + 1) & ~canvas_box(
        top, left, bottom, right
    )


def draw_box(grid, shape, parameters: TaskParameters):
    return jnp.where(box_ring(grid), parameters.new_colour.astype(jnp.int8), grid), shape


def scale(grid, shape, parameters: TaskParameters):
    factor = parameters.factor
    rows, cols = canvas_coordinates()
    scaled_shape = shape * factor
    return gather(grid, rows // factor, cols // factor, live_mask(scaled_shape)), scaled_shape


def _compose(*rules: Rule) -> Rule:
    def composed(grid, shape, parameters):
        for rule in rules:
            grid, shape = rule(grid, shape, parameters)
        return grid, shape

    return composed


# --- natural demonstrations ----------------------------------------------------------------


class Hints(NamedTuple):
    """The steps natural demonstrations are made of, for one episode's input."""

    live: Bool[Array, "30 30"]  # the live grid
    recolour: Step  # fill colour b where the input has colour a
    fill: Step  # fill colour c on the background
    box: Bool[Array, "30 30"]  # the object's bounding box
    ring: Step  # fill colour c one cell around the object's bounding box
    moves: list[Step]  # MAX_DISTANCE moves of the object; submits past the distance


def hints(grid, shape, parameters: TaskParameters) -> Hints:
    live = live_mask(shape)
    a = parameters.source_colour.astype(jnp.int8)
    # One move per cell of distance, each selecting the object where the last left it.
    move = jnp.asarray(MOVES)[parameters.direction]
    moves = []
    for k in range(MAX_DISTANCE):
        shifted = jnp.roll(grid != 0, jnp.stack([k * move[0], k * move[1]]), axis=(0, 1))
        moving = k < parameters.distance
        operation = jnp.where(moving, ops.MOVE_UP + parameters.direction, ops.SUBMIT)
        moves.append((operation, jnp.where(moving, shifted, True)))
    return Hints(
        live=live,
        recolour=(ops.FILL + parameters.new_colour, live & (grid == a)),
        fill=(ops.FILL + parameters.new_colour, live & (grid == 0)),
        box=canvas_box(*object_bounds(grid)),
        ring=(ops.FILL + parameters.new_colour, box_ring(grid)),
        moves=moves,
    )


# --- the records -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Family:
    """A family of generated tasks.

    Attributes:
        rule: the input-output rule.
        demonstration: its natural solution's steps (before the submit), from
            :class:`Hints`; None for a family no short sequence solves (scale: painted).
        one_object: each input holds one object (the rule is about that object).
        square_grid: inputs are square (rotations keep the shape legal).
        square_object: the object fills two opposite corners of a square box.
        margin: free cells between the object and the grid's edges.
        room_for_move: free cells beyond the object towards the task's move.
        keep_background: at least one background cell (the bottom-right).
        max_size: the largest input side (scale: room for a factor 3).
        ends_with_moves: the demonstration's last steps are :attr:`Hints.moves`, whose
            unused ones (past the distance) are submits, so its length is cut by them.
    """

    rule: Rule
    demonstration: Callable[[Hints], Sequence[Step]] | None
    one_object: bool = False
    square_grid: bool = False
    square_object: bool = False
    margin: int = 0
    room_for_move: bool = False
    keep_background: bool = False
    max_size: int = GRID_SIZE
    ends_with_moves: bool = False


FAMILIES: dict[str, Family] = {
    "copy": Family(copy, lambda h: []),
    "recolour": Family(recolour, lambda h: [h.recolour]),
    "fill_background": Family(fill_background, lambda h: [h.fill], keep_background=True),
    "flip_horizontal": Family(flip_horizontal, lambda h: [(ops.FLIP_HORIZONTAL, h.live)]),
    "flip_vertical": Family(flip_vertical, lambda h: [(ops.FLIP_VERTICAL, h.live)]),
    "rotate": Family(rotate, lambda h: [(ops.ROTATE_CW, h.live)], square_grid=True),
    "flip_object": Family(flip_object, lambda h: [(ops.FLIP_HORIZONTAL, h.box)], one_object=True),
    "rotate_object": Family(
        rotate_object, lambda h: [(ops.ROTATE_CW, h.box)], one_object=True, square_object=True
    ),
    "translate": Family(
        translate,
        lambda h: h.moves,
        one_object=True,
        room_for_move=True,
        ends_with_moves=True,
    ),
    "draw_box": Family(draw_box, lambda h: [h.ring], one_object=True, margin=1),
    "scale": Family(scale, None, max_size=GRID_SIZE // 3),
    "flip_recolour": Family(
        _compose(flip_horizontal, recolour),
        lambda h: [h.recolour, (ops.FLIP_HORIZONTAL, h.live)],
    ),
    "translate_recolour": Family(
        _compose(translate, recolour),
        lambda h: [h.recolour, *h.moves],
        one_object=True,
        room_for_move=True,
        ends_with_moves=True,
    ),
    "rotate_fill": Family(
        _compose(rotate, fill_background),
        lambda h: [h.fill, (ops.ROTATE_CW, h.live)],
        square_grid=True,
        keep_background=True,
    ),
}
