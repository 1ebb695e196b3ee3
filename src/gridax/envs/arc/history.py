"""Format-specific action history: a ring buffer of compact records inside the state.

Each step writes one record at slot ``step_count % length``: the operation id, whether
the action was invalid, and the selection in the format's own compact form (see
``record_width``/``record_dtype`` on each action class):

=========  ======================================  ===========================
format     selection record                         bytes per record
=========  ======================================  ===========================
point      int16 ``(row, col)``                    2 + 1 + 4 = 7
bbox       int16 ``(top, left, bottom, right)``    2 + 1 + 8 = 11
mask       30 uint32 bit-rows (bit c = column c)   2 + 1 + 120 = 123
=========  ======================================  ===========================

Coordinates are stored saturated to the int16 range; an operation id outside int16 is
saturated the same way.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Bool, Int, Int16, Shaped

from gridax.envs.arc.actions import _INT16_MAX, _INT16_MIN, AbstractAction
from gridax.envs.arc.grid import unpack_rows


class ActionHistory(eqx.Module):
    """The last ``length`` actions of an episode, oldest overwritten first."""

    operation: Int16[Array, "*batch L"]
    invalid: Bool[Array, "*batch L"]
    selection: Shaped[Array, "*batch L K"]

    @property
    def length(self) -> int:
        return self.operation.shape[-1]

    def nbytes(self) -> int:
        return sum(leaf.nbytes for leaf in (self.operation, self.invalid, self.selection))


def empty_history(action_type: type[AbstractAction], length: int) -> ActionHistory:
    """A history with room for ``length`` records of ``action_type``'s format."""
    return ActionHistory(
        operation=jnp.full((length,), -1, dtype=jnp.int16),
        invalid=jnp.zeros((length,), dtype=bool),
        selection=jnp.zeros((length, action_type.record_width), dtype=action_type.record_dtype),
    )


def record_action(
    history: ActionHistory,
    step_count: Int[Array, ""],
    action: AbstractAction,
    invalid: Bool[Array, ""],
    write: Bool[Array, ""] | bool = True,
) -> ActionHistory:
    """Writes ``action`` into slot ``step_count % length`` if ``write`` is true.

    ``write`` only selects within the one slot, so a step that must not record (the
    absorbing steps of a finished episode) costs no pass over the whole buffer.
    """
    slot = step_count % history.length

    def put(buffer, value):
        return buffer.at[slot].set(jnp.where(write, value, buffer[slot]))

    operation = jnp.clip(action.operation, _INT16_MIN, _INT16_MAX).astype(jnp.int16)
    return ActionHistory(
        operation=put(history.operation, operation),
        invalid=put(history.invalid, invalid),
        selection=put(history.selection, action.history_record()),
    )


def recorded_masks(history: ActionHistory) -> Bool[Array, "*batch L 30 30"]:
    """The selection masks of a mask-format history (unpacked bit-rows)."""
    return unpack_rows(history.selection)
