"""Reference policies for the ARC env: the random agent benchmarks and tests use."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Int32

from gridax.envs.arc import operations as ops
from gridax.envs.arc.actions import BboxAction, MaskAction, PointAction
from gridax.envs.arc.grid import GRID_SIZE


def random_actions(
    key,
    working_shape: Int32[Array, "batch 2"],
    selection_format: str,
    num_operations: int = ops.SUBMIT,
):
    """One random action per env in ``selection_format``, for grids of ``working_shape``.

    Operations are uniform over ``0 .. num_operations - 1``, by default 0-33: submit is
    left out, so that a rollout no longer than the episode measures only live steps.
    Coordinates are uniform over the live grid, except for resize, whose corner is
    uniform over the whole canvas so that grids grow as well as shrink. Bbox corners are
    two such cells; a mask is the rectangle between them.
    """
    batch = working_shape.shape[0]
    op_key, a_key, b_key = jax.random.split(key, 3)
    operation = jax.random.randint(op_key, (batch,), 0, num_operations, dtype=jnp.int32)
    resizes = operation == ops.RESIZE
    limit = jnp.where(resizes[:, None], GRID_SIZE, working_shape).astype(jnp.float32)

    def corner(k):
        return jnp.floor(jax.random.uniform(k, (batch, 2)) * limit).astype(jnp.int32)

    first, second = corner(a_key), corner(b_key)
    if selection_format == "point":
        return PointAction(operation, first[:, 0], first[:, 1])
    boxes = BboxAction(operation, first[:, 0], first[:, 1], second[:, 0], second[:, 1])
    if selection_format == "bbox":
        return boxes
    return MaskAction(operation, boxes.to_selection_mask())
