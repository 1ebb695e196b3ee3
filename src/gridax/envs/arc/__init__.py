"""The ARC-AGI grid-puzzle environment (see docs/arc.md)."""

from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.env import batch_reset, batch_step, observe, reset, step
from gridax.envs.arc.operations import NUM_OPERATIONS, OPERATION_NAMES
from gridax.envs.arc.tasks import TaskBank, TaskPairs, load_tasks, tasks_from_dict
from gridax.envs.arc.types import ArcObservation, ArcState, invariant_violations

__all__ = [
    "NUM_OPERATIONS",
    "OPERATION_NAMES",
    "ArcConfig",
    "ArcObservation",
    "ArcState",
    "TaskBank",
    "TaskPairs",
    "batch_reset",
    "batch_step",
    "invariant_violations",
    "load_tasks",
    "observe",
    "reset",
    "step",
    "tasks_from_dict",
]
