"""ARC's structured actions, kept here for imports written before they moved to
:mod:`gridax.envs.arc` (``from gridax.actions import PointAction`` keeps working)."""

from gridax.envs.arc import (
    ACTION_TYPES,
    AbstractAction,
    ActionHistory,
    BboxAction,
    MaskAction,
    PointAction,
    empty_history,
    record_action,
)

__all__ = [
    "ACTION_TYPES",
    "AbstractAction",
    "ActionHistory",
    "BboxAction",
    "MaskAction",
    "PointAction",
    "empty_history",
    "record_action",
]
