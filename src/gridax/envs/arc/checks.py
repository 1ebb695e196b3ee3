"""Argument checks of the ARC env's public functions: wrong types and shapes fail with a
message naming them, not deep inside the step. They read only types and shapes, so
under a caller's jit they run once, at trace time."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc.actions import ACTION_TYPES, AbstractAction
from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.tasks.bank import TaskSource
from gridax.envs.arc.types import ArcState
from gridax.validation import require_batch_shape, require_type


def step_arguments(state, action, config, batched: bool) -> None:
    if batched and not (isinstance(action, AbstractAction) and isinstance(state, ArcState)):
        raise TypeError(
            f"batch_step takes (ArcState, action, ArcConfig), got ({type(state).__name__}, "
            f"{type(action).__name__}, {type(config).__name__})"
        )
    require_type("config", config, ArcConfig, "an ArcConfig")
    require_type("state", state, ArcState, "an ArcState")
    expected = ACTION_TYPES[config.selection_format]
    if not isinstance(action, expected):
        raise TypeError(
            f"config.selection_format is {config.selection_format!r}, so step takes a "
            f"{expected.__name__}; got {type(action).__name__}"
        )
    history = state.history
    if history.length != config.history_size or history.selection.dtype != expected.record_dtype:
        raise ValueError(
            f"the state's action history ({history.length} records of dtype "
            f"{history.selection.dtype}) was made by a different ArcConfig than the one passed "
            f"(history_size={config.history_size}, format {config.selection_format!r})"
        )
    if (state.context is not None) != config.context:
        raise ValueError(
            f"the state {'has' if state.context is not None else 'has no'} demonstration "
            f"context but the ArcConfig passed has context={config.context}: it was made by "
            "a different ArcConfig"
        )
    if (state.augmentation is not None) != config.augment:
        raise ValueError(
            f"the state {'is' if state.augmentation is not None else 'is not'} augmented but "
            f"the ArcConfig passed has augment={config.augment}: it was made by a different "
            "ArcConfig"
        )
    states_shape = tuple(state.step_count.shape)
    if batched:
        if action.batch_shape != states_shape or len(states_shape) != 1:
            raise ValueError(
                f"batch_step needs one action per state: states have batch shape "
                f"{states_shape}, actions {action.batch_shape}"
            )
        return
    if action.batch_shape != ():
        raise ValueError(
            f"step takes one action, got a batch of shape {action.batch_shape}; "
            "use batch_step for batches"
        )
    require_batch_shape(states_shape, batched=False)


def _index_argument(name: str, value, upper: int | None):
    """Ints become int32 arrays (a Python int would be static and recompile per value)."""
    if value is None or isinstance(value, jax.Array):
        return value
    array = np.asarray(value)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must be an integer or integer array, got {value!r}")
    if upper is not None and ((array < 0) | (array >= upper)).any():
        raise ValueError(
            f"{name}={value!r} is out of range: the bank has {upper} tasks (0-{upper - 1})"
        )
    if upper is None and ((array < 0) | (array > np.iinfo(np.int32).max)).any():
        raise ValueError(f"{name}={value!r} must be in 0..2^31-1")
    return jnp.asarray(array, dtype=jnp.int32)


def reset_arguments(config, tasks, task_index, pair_index) -> tuple:
    """Checks the config and the task source and turns the indices into arrays."""
    require_type("config", config, ArcConfig, "an ArcConfig")
    require_type(
        "tasks",
        tasks,
        TaskSource,
        "a TaskBank (from gridax.envs.arc.load_tasks) or a Generator (gridax.envs.arc.generators)",
    )
    return (
        _index_argument("task_index", task_index, tasks.task_index_limit),
        _index_argument("pair_index", pair_index, None),
    )
