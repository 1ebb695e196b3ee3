"""Structured actions shared by grid environments."""

from gridax.actions.history import ActionHistory, empty_history, record_action
from gridax.actions.selection import (
    ACTION_TYPES,
    AbstractAction,
    BboxAction,
    MaskAction,
    PointAction,
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
