"""Task-consistent augmentation, inside jit: one of the 8 symmetries of the square, a
colour permutation and, optionally, a translation, drawn per episode and applied alike
to every grid of the episode's task (working grid, input, target, demonstrations).

An :class:`Augmentation` maps a grid of live shape ``(h, w)`` in three steps:

1. the dihedral transform ``t`` (0-7): a left-right flip if ``t >= 4``, then ``t % 4``
   quarter turns clockwise (``(h, w)`` becomes ``(w, h)`` after an odd number);
2. the colour permutation: colour ``c`` becomes ``colours[c]`` (``colours[0] == 0``
   unless the config permutes all ten);
3. the translation: ``offset[0]`` rows and ``offset[1]`` columns of colour 0 added at
   the top and left (the grid stays anchored at the canvas's top-left corner and grows;
   the offsets are drawn so that every grid of the task still fits in 30x30).

:func:`invert` undoes the three steps, so an answer found in the augmented frame maps
back to the original task's.
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Float32, Int8, Int32

from gridax.envs.arc.grid import (
    GRID_SIZE,
    NUM_COLOURS,
    canvas_coordinates,
    flip_horizontal,
    gather,
    live_mask,
    rotate,
)
from gridax.envs.arc.tasks.bank import TaskBank
from gridax.envs.arc.types import Augmentation

NUM_TRANSFORMS = 8
# Uniforms an augmentation draws: its transform, a sort key per colour, two offsets.
DRAWS = 1 + NUM_COLOURS + 2


def identity() -> Augmentation:
    return Augmentation(0, jnp.arange(NUM_COLOURS), jnp.zeros(2))


def draw(uniforms: Float32[Array, " 13"], permute_zero: bool, max_offset) -> Augmentation:
    """An augmentation from :data:`DRAWS` uniforms; offsets uniform in ``0..max_offset``
    (0 for none)."""
    transform = jnp.minimum(jnp.floor(uniforms[0] * NUM_TRANSFORMS), NUM_TRANSFORMS - 1)
    keys = uniforms[1 : 1 + NUM_COLOURS]
    if not permute_zero:  # 0 sorts first and stays; 1-9 in the order their keys sort
        keys = keys.at[0].set(-1.0)
    order = jnp.argsort(keys)  # a uniform permutation
    limit = jnp.asarray(max_offset, jnp.float32)
    offset = jnp.minimum(jnp.floor(uniforms[-2:] * (limit + 1)), limit)
    return Augmentation(transform, order, offset)


def _turn(times, grid, shape):
    """``times`` (0-3, traced) quarter turns clockwise."""
    for k in range(3):
        stepped = rotate(grid, shape)
        grid = jnp.where(k < times, stepped[0], grid)
        shape = jnp.where(k < times, stepped[1], shape)
    return grid, shape


def apply(grid: Int8[Array, "30 30"], shape: Int32[Array, " 2"], augmentation: Augmentation):
    """``(grid, shape)`` in the augmented frame (module docstring)."""
    flipped = flip_horizontal(grid, shape)
    flips = augmentation.transform >= 4
    grid, shape = jnp.where(flips, flipped[0], grid), jnp.where(flips, flipped[1], shape)
    grid, shape = _turn(augmentation.transform % 4, grid, shape)
    grid = jnp.where(live_mask(shape), augmentation.colours[grid.astype(jnp.int32)], 0)
    rows, cols = canvas_coordinates()
    dy, dx = augmentation.offset[0], augmentation.offset[1]
    shape = shape + augmentation.offset
    keep = live_mask(shape) & (rows >= dy) & (cols >= dx)
    return gather(grid, rows - dy, cols - dx, keep), shape


def invert(grid: Int8[Array, "30 30"], shape: Int32[Array, " 2"], augmentation: Augmentation):
    """``(grid, shape)`` of an augmented-frame grid back in the task's own frame."""
    rows, cols = canvas_coordinates()
    dy, dx = augmentation.offset[0], augmentation.offset[1]
    shape = jnp.maximum(shape - augmentation.offset, 1)
    grid = gather(grid, rows + dy, cols + dx, live_mask(shape))
    inverse = jnp.argsort(augmentation.colours).astype(jnp.int8)
    grid = jnp.where(live_mask(shape), inverse[grid.astype(jnp.int32)], 0)
    grid, shape = _turn((4 - augmentation.transform % 4) % 4, grid, shape)  # turns undone
    flipped = flip_horizontal(grid, shape)
    flips = augmentation.transform >= 4
    return jnp.where(flips, flipped[0], grid), jnp.where(flips, flipped[1], shape)


def describe(augmentation: Augmentation) -> str:
    """One env's augmentation in words, for pictures."""
    transform = int(augmentation.transform)
    turns = ["", "turned 90", "turned 180", "turned 270"][transform % 4]
    parts = [p for p in ("flipped" if transform >= 4 else "", turns) if p]
    colours = "".join(str(int(c)) for c in augmentation.colours)
    dy, dx = (int(v) for v in augmentation.offset)
    shift = [f"shifted {dy},{dx}"] if dy or dx else []
    return ", ".join([*parts, f"colours 0123456789->{colours}", *shift])


def max_offset(shapes: Int32[Array, "n 2"], mask) -> Int32[Array, ""]:
    """The largest translation that keeps every grid of ``shapes`` (where ``mask``) in
    the canvas, whichever way the dihedral transform turns them."""
    largest = jnp.max(jnp.where(mask[:, None], shapes, 0))
    return (GRID_SIZE - largest).astype(jnp.int32)


def task_max_offset(bank: TaskBank, task) -> Int32[Array, ""]:
    """The largest translation that keeps every grid of task ``task`` in the canvas."""
    limits = []
    for part in ("train", "test"):
        pairs = bank.pairs(part)
        real = jnp.arange(pairs.inputs.shape[1]) < pairs.count[task]
        for shapes in (pairs.input_shapes[task], pairs.output_shapes[task]):
            limits.append(max_offset(shapes, real))
    return jnp.min(jnp.stack(limits))
