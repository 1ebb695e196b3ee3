"""Structured actions for grid environments: an operation plus a selection of cells.

Three formats share one contract: ``PointAction`` selects one cell, ``BboxAction`` an
inclusive rectangle and ``MaskAction`` any set of cells. The environment turns every
action into a boolean selection mask with :meth:`AbstractAction.to_selection_mask`,
so the step itself sees one representation.

A batch of actions is the same class with a leading batch axis on every field::

    PointAction(operation=jnp.array([3, 4]), row=jnp.array([0, 1]), col=jnp.array([2, 2]))
"""

from __future__ import annotations

import abc
from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int32, Shaped

from gridax.envs.arc.grid import GRID_SHAPE, canvas_coordinates, pack_rows
from gridax.geometry import box_mask

_INT32_MIN = np.iinfo(np.int32).min
_INT32_MAX = np.iinfo(np.int32).max
_INT16_MIN = np.iinfo(np.int16).min
_INT16_MAX = np.iinfo(np.int16).max


def _integer_field(name: str):
    """Converter to int32 that rejects floats and booleans and saturates huge values.

    Saturating (rather than wrapping) keeps an out-of-range coordinate out of range, so
    a huge row can never alias a valid one.
    """

    def convert(value) -> Int32[Array, ...]:
        if type(value) is int:  # a Python int of any size, even past int64
            value = min(max(value, _INT32_MIN), _INT32_MAX)
        if not isinstance(value, jax.Array):
            value = np.asarray(value)
        dtype = value.dtype
        if dtype == np.bool_ or not np.issubdtype(dtype, np.integer):
            raise TypeError(
                f"{name} must hold integers, got dtype {dtype}; "
                f"pass an int or an integer array (e.g. jnp.int32)"
            )
        if isinstance(value, np.ndarray):
            return jnp.asarray(np.clip(value, _INT32_MIN, _INT32_MAX).astype(np.int32))
        if dtype != jnp.int32:
            value = jnp.clip(value, _INT32_MIN, _INT32_MAX)
        return value.astype(jnp.int32)

    return convert


def _selection_field(value) -> Bool[Array, ...]:
    """Converter to bool: booleans pass, integers select their nonzero cells."""
    if not isinstance(value, jax.Array):
        value = np.asarray(value)
    dtype = value.dtype
    if dtype != np.bool_ and not np.issubdtype(dtype, np.integer):
        raise TypeError(f"selection must be a boolean (or 0/1 integer) mask, got dtype {dtype}")
    value = jnp.asarray(value)
    return value if dtype == np.bool_ else value != 0


def _in_range(value: Int32[Array, "*batch"], size: int) -> Bool[Array, "*batch"]:
    return (value >= 0) & (value < size)


def _as_record(*values: Int32[Array, "*batch"]) -> Shaped[Array, "*batch K"]:
    """Stacks coordinates into an int16 history record, saturating out-of-range values."""
    return jnp.stack([jnp.clip(v, _INT16_MIN, _INT16_MAX) for v in values], axis=-1).astype(
        jnp.int16
    )


class AbstractAction(eqx.Module):
    """An operation id and a selection; see the concrete classes below."""

    operation: eqx.AbstractVar[Int32[Array, "*batch"]]

    # Width and dtype of this format's action-history record (see gridax.actions.history).
    record_width: ClassVar[int]
    record_dtype: ClassVar[type]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.operation.shape)

    @abc.abstractmethod
    def to_selection_mask(
        self, grid_shape: tuple[int, int] = GRID_SHAPE
    ) -> Bool[Array, "*batch H W"]:
        """The selected cells on a canvas of ``grid_shape``; off-canvas parts are dropped."""

    @abc.abstractmethod
    def within_canvas(self, grid_shape: tuple[int, int] = GRID_SHAPE) -> Bool[Array, "*batch"]:
        """Whether every coordinate of the action lies on the canvas."""

    @abc.abstractmethod
    def history_record(self) -> Shaped[Array, "*batch K"]:
        """The compact selection record kept in the action history."""


def _check_same_shapes(action: AbstractAction, fields: tuple[str, ...]) -> None:
    shapes = {name: tuple(getattr(action, name).shape) for name in fields}
    if len(set(shapes.values())) > 1:
        listed = ", ".join(f"{name}{shape}" for name, shape in shapes.items())
        raise ValueError(
            f"{type(action).__name__} fields must share one (batch) shape, got {listed}"
        )


class PointAction(AbstractAction):
    """Apply ``operation`` to the single cell ``(row, col)``.

    >>> action = PointAction(operation=3, row=0, col=1)   # paint cell (0, 1) green
    >>> action.to_selection_mask((2, 2))
    Array([[False,  True],
           [False, False]], dtype=bool)
    """

    operation: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("operation"))
    row: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("row"))
    col: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("col"))

    record_width: ClassVar[int] = 2
    record_dtype: ClassVar[type] = jnp.int16

    def __check_init__(self):
        _check_same_shapes(self, ("operation", "row", "col"))

    def to_selection_mask(self, grid_shape=GRID_SHAPE):
        rows, cols = canvas_coordinates(grid_shape, self.row.ndim)
        return (rows == self.row[..., None, None]) & (cols == self.col[..., None, None])

    def within_canvas(self, grid_shape=GRID_SHAPE):
        height, width = grid_shape
        return _in_range(self.row, height) & _in_range(self.col, width)

    def history_record(self):
        return _as_record(self.row, self.col)


class BboxAction(AbstractAction):
    """Apply ``operation`` to the inclusive rectangle with corners ``(r1, c1)``, ``(r2, c2)``.

    The corners may come in any order.

    >>> BboxAction(operation=31, r1=1, c1=1, r2=0, c2=0).to_selection_mask((3, 3))[0]
    Array([ True,  True, False], dtype=bool)
    """

    operation: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("operation"))
    r1: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("r1"))
    c1: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("c1"))
    r2: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("r2"))
    c2: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("c2"))

    record_width: ClassVar[int] = 4
    record_dtype: ClassVar[type] = jnp.int16

    def __check_init__(self):
        _check_same_shapes(self, ("operation", "r1", "c1", "r2", "c2"))

    def corners(self) -> tuple[Int32[Array, "*batch"], ...]:
        """``(top, left, bottom, right)`` with the corners sorted."""
        return (
            jnp.minimum(self.r1, self.r2),
            jnp.minimum(self.c1, self.c2),
            jnp.maximum(self.r1, self.r2),
            jnp.maximum(self.c1, self.c2),
        )

    def to_selection_mask(self, grid_shape=GRID_SHAPE):
        top, left, bottom, right = self.corners()
        return box_mask(top, left, bottom, right, grid_shape)

    def within_canvas(self, grid_shape=GRID_SHAPE):
        height, width = grid_shape
        return (
            _in_range(self.r1, height)
            & _in_range(self.r2, height)
            & _in_range(self.c1, width)
            & _in_range(self.c2, width)
        )

    def history_record(self):
        return _as_record(*self.corners())


class MaskAction(AbstractAction):
    """Apply ``operation`` to the cells where ``selection`` is true.

    ``selection`` covers the whole canvas (``(30, 30)`` for ARC); integer masks are
    accepted and select their nonzero cells.
    """

    operation: Int32[Array, "*batch"] = eqx.field(converter=_integer_field("operation"))
    selection: Bool[Array, "*batch H W"] = eqx.field(converter=_selection_field)

    # One uint32 bit-row per grid row: 120 bytes a record instead of 900 booleans.
    record_width: ClassVar[int] = GRID_SHAPE[0]
    record_dtype: ClassVar[type] = jnp.uint32

    def __check_init__(self):
        if self.selection.ndim < 2 or tuple(self.selection.shape[:-2]) != self.batch_shape:
            raise ValueError(
                f"MaskAction.selection must have shape {self.batch_shape + GRID_SHAPE} "
                f"for operation of shape {self.batch_shape}, got {tuple(self.selection.shape)}"
            )

    def to_selection_mask(self, grid_shape=GRID_SHAPE):
        if tuple(self.selection.shape[-2:]) != tuple(grid_shape):
            raise ValueError(
                f"MaskAction.selection has grid shape {tuple(self.selection.shape[-2:])}, "
                f"but the environment's canvas is {tuple(grid_shape)}"
            )
        return self.selection

    def within_canvas(self, grid_shape=GRID_SHAPE):
        return jnp.ones(self.batch_shape, dtype=bool)

    def history_record(self):
        return pack_rows(self.selection)


ACTION_TYPES: dict[str, type[AbstractAction]] = {
    "point": PointAction,
    "bbox": BboxAction,
    "mask": MaskAction,
}
