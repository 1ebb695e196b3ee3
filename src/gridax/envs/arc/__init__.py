"""The ARC-AGI grid-puzzle environment (see docs/arc.md).

Public submodules: ``augmentation`` (task-consistent augmentation), ``generators``
(generated task families), ``demonstrations`` (expert action sequences), ``evaluation``
and ``scoring`` (the ARC Prize protocol), ``render`` (pictures), ``grid`` (the 30x30
canvas helpers). The first two live in the ``tasks`` subpackage (where an episode's task
comes from), the next three in ``tools`` (what is built on the env).
"""

from gridax.envs.arc import grid, render
from gridax.envs.arc.actions import (
    ACTION_TYPES,
    AbstractAction,
    BboxAction,
    MaskAction,
    PointAction,
)
from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.env import batch_reset, batch_step, observe, reset, step
from gridax.envs.arc.grid import GRID_SHAPE, GRID_SIZE, NUM_COLOURS
from gridax.envs.arc.history import ActionHistory, empty_history, record_action
from gridax.envs.arc.interface import ArcEnv, make_env, registered_ids
from gridax.envs.arc.operations import (
    NUM_OPERATIONS,
    OPERATION_NAMES,
    RESIZE,
    SUBMIT,
)
from gridax.envs.arc.tasks import augmentation, generators
from gridax.envs.arc.tasks.augmentation import invert
from gridax.envs.arc.tasks.bank import TaskBank, TaskPairs, TaskSource
from gridax.envs.arc.tasks.generators import Generator
from gridax.envs.arc.tasks.level import ArcLevel
from gridax.envs.arc.tasks.loading import (
    BUILTIN_SOURCES,
    builtin_task_files,
    load_tasks,
    tasks_from_dict,
)
from gridax.envs.arc.tools import demonstrations, evaluation, scoring
from gridax.envs.arc.tools.evaluation import Evaluation, Oracle, evaluate, random_policy
from gridax.envs.arc.tools.policies import (
    ActionDraws,
    actions_from_draws,
    draw_actions,
    random_actions,
)
from gridax.envs.arc.tools.scoring import Score, score_attempts, score_submission
from gridax.envs.arc.types import (
    ArcObservation,
    ArcState,
    Augmentation,
    Context,
    invariant_violations,
)

__all__ = [
    "ACTION_TYPES",
    "BUILTIN_SOURCES",
    "GRID_SHAPE",
    "GRID_SIZE",
    "NUM_COLOURS",
    "NUM_OPERATIONS",
    "OPERATION_NAMES",
    "RESIZE",
    "SUBMIT",
    "AbstractAction",
    "Augmentation",
    "ActionHistory",
    "ArcConfig",
    "ArcEnv",
    "ArcLevel",
    "ArcObservation",
    "ArcState",
    "Evaluation",
    "Oracle",
    "Score",
    "BboxAction",
    "Context",
    "Generator",
    "MaskAction",
    "PointAction",
    "TaskBank",
    "TaskPairs",
    "TaskSource",
    "augmentation",
    "batch_reset",
    "batch_step",
    "builtin_task_files",
    "demonstrations",
    "empty_history",
    "evaluate",
    "evaluation",
    "generators",
    "grid",
    "invariant_violations",
    "invert",
    "load_tasks",
    "make_env",
    "observe",
    "random_actions",
    "ActionDraws",
    "actions_from_draws",
    "draw_actions",
    "random_policy",
    "record_action",
    "registered_ids",
    "render",
    "reset",
    "score_attempts",
    "score_submission",
    "scoring",
    "step",
    "tasks_from_dict",
]
