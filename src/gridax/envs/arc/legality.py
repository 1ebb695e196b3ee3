"""When an action is invalid, and strict mode's errors.

An invalid action is not an error but a flagged no-op (``info["invalid_action"]``); with
``ArcConfig(strict=True)`` it raises instead, as does a broken invariant of the grid.
"""

from __future__ import annotations

from typing import NamedTuple

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32

from gridax.envs.arc import operations as ops
from gridax.envs.arc.actions import AbstractAction
from gridax.envs.arc.grid import live_mask


class Violations(NamedTuple):
    """Why an action is invalid; all false for the action of a finished episode."""

    operation_out_of_range: Bool[Array, ""]
    off_canvas: Bool[Array, ""]  # coordinates outside the canvas
    no_live_cell: Bool[Array, ""]  # an operation on selected cells selected none
    empty_resize: Bool[Array, ""]

    def any(self) -> Bool[Array, ""]:
        return self.operation_out_of_range | self.off_canvas | self.no_live_cell | self.empty_resize


MESSAGES = {
    "operation_out_of_range": "invalid action: operation id outside 0-34",
    "off_canvas": "invalid action: coordinates outside the 30x30 canvas",
    "no_live_cell": "invalid action: the selection has no cell on the live grid",
    "empty_resize": "invalid action: resize needs a non-empty selection",
}


def violations(
    action: AbstractAction, selection: ops.Selection, running: Bool[Array, ""], grid_shape
) -> Violations:
    """What is wrong with ``action``, in an episode that is ``running`` (not finished)."""
    operation = action.operation
    return Violations(
        operation_out_of_range=running & ((operation < 0) | (operation >= ops.NUM_OPERATIONS)),
        off_canvas=running & ~action.within_canvas(grid_shape) & ~ops.ignores_selection(operation),
        no_live_cell=running & ops.needs_live_selection(operation) & ~jnp.any(selection.live),
        empty_resize=running & (operation == ops.RESIZE) & ~jnp.any(selection.canvas),
    )


def strict_checks(
    reward: Float32[Array, ""], found: Violations, edit: ops.Workspace
) -> Float32[Array, ""]:
    """Raises (or poisons the reward, per ``EQX_ON_ERROR``) on an invalid action or a
    broken invariant of the edited grid.

    The checks hang off the reward so that ``EQX_ON_ERROR=nan`` gives a NaN reward for
    the offending step while the state stays a clean no-op.
    """
    checks = [
        *((flag, MESSAGES[name]) for name, flag in found._asdict().items()),
        (jnp.any((edit.grid < 0) | (edit.grid > 9)), "invariant broken: colour outside 0-9"),
        (
            jnp.any((edit.grid != 0) & ~live_mask(edit.shape)),
            "invariant broken: nonzero cell outside the live grid",
        ),
    ]
    for failed, message in checks:
        reward = eqx.error_if(reward, failed, message)
    return reward
