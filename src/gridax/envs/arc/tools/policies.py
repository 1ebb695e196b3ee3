"""Reference policies for the ARC env: the random agent benchmarks and tests use.

A random action is two pieces: the random numbers (:func:`draw_actions`, which need no
state) and their mapping onto the live grid (:func:`actions_from_draws`, a multiply and
a floor). Benchmarks draw a whole rollout's numbers before the timed call, so a figure
measures the step and not the random number generator.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32, Int32

from gridax.envs.arc import operations as ops
from gridax.envs.arc.actions import BboxAction, MaskAction, PointAction
from gridax.envs.arc.grid import GRID_SIZE


class ActionDraws(NamedTuple):
    """The random numbers behind random actions, for any batch shape ``*B``."""

    operation: Int32[Array, "*B"]
    first: Float32[Array, "*B 2"]  # a corner's (row, col), uniform in [0, 1)
    second: Float32[Array, "*B 2"]


def draw_actions(key, batch_shape: tuple[int, ...], num_operations: int = ops.SUBMIT):
    """Operations uniform over ``0 .. num_operations - 1`` and two uniform corners for
    each of ``batch_shape`` actions (``(num_steps, num_envs)`` for a whole rollout)."""
    op_key, a_key, b_key = jax.random.split(key, 3)
    return ActionDraws(
        operation=jax.random.randint(op_key, batch_shape, 0, num_operations, dtype=jnp.int32),
        first=jax.random.uniform(a_key, (*batch_shape, 2)),
        second=jax.random.uniform(b_key, (*batch_shape, 2)),
    )


def actions_from_draws(
    draws: ActionDraws, working_shape: Int32[Array, "batch 2"], selection_format: str
):
    """The actions in ``selection_format`` that ``draws`` make on grids of ``working_shape``.

    Coordinates are uniform over the live grid, except for resize, whose corner is
    uniform over the whole canvas so that grids grow as well as shrink. Bbox corners are
    the two cells; a mask is the rectangle between them.
    """
    resizes = draws.operation == ops.RESIZE
    limit = jnp.where(resizes[..., None], GRID_SIZE, working_shape).astype(jnp.float32)
    first, second = (jnp.floor(u * limit).astype(jnp.int32) for u in (draws.first, draws.second))
    if selection_format == "point":
        return PointAction(draws.operation, first[..., 0], first[..., 1])
    boxes = BboxAction(
        draws.operation, first[..., 0], first[..., 1], second[..., 0], second[..., 1]
    )
    if selection_format == "bbox":
        return boxes
    return MaskAction(draws.operation, boxes.to_selection_mask())


def random_actions(
    key,
    working_shape: Int32[Array, "batch 2"],
    selection_format: str,
    num_operations: int = ops.SUBMIT,
):
    """One random action per env in ``selection_format``, for grids of ``working_shape``.

    Operations are uniform over ``0 .. num_operations - 1``, by default 0-33: submit is
    left out, so that a rollout no longer than the episode measures only live steps.
    Coordinates as :func:`actions_from_draws` maps them.
    """
    draws = draw_actions(key, working_shape.shape[:1], num_operations)
    return actions_from_draws(draws, working_shape, selection_format)
