"""Functional ARC environment: ``reset``, ``step``, ``batch_reset``, ``batch_step``.

The undecorated ``_reset``/``_step`` are the whole logic; the public functions are
``eqx.filter_jit`` (and ``jax.vmap``) over them, plus argument checks that run in
Python or at trace time, so they cost nothing per call once compiled.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float32, Int, Int32, Key, UInt32

from gridax.actions.history import empty_history, record_action
from gridax.actions.selection import ACTION_TYPES, AbstractAction
from gridax.envs.arc import operations as ops
from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.generators import Generator
from gridax.envs.arc.reward import reward as compute_reward
from gridax.envs.arc.reward import similarity
from gridax.envs.arc.tasks import TaskBank
from gridax.envs.arc.types import ArcObservation, ArcState
from gridax.grid import live_mask
from gridax.prng import batch_key_data, key_data, split_uniform

Info = dict[str, Array]


def observe(state: ArcState) -> ArcObservation:
    """The agent's view of a state."""
    return ArcObservation(
        working_grid=state.working_grid,
        working_shape=state.working_shape,
        input_grid=state.input_grid,
        input_shape=state.input_shape,
        clipboard=state.clipboard,
        clipboard_mask=state.clipboard_mask,
        step_count=state.step_count,
        task_index=state.task_index,
        pair_index=state.pair_index,
    )


def _uniform_index(draw: Float32[Array, ""], count) -> Int32[Array, ""]:
    """An index uniform over ``0 .. count - 1`` from a uniform draw in [0, 1)."""
    index = jnp.floor(draw * jnp.asarray(count, jnp.float32)).astype(jnp.int32)
    return jnp.minimum(index, count - 1)  # float rounding can reach count itself


def _reset(
    key: Key[Array, ""] | UInt32[Array, 2],
    config: ArcConfig,
    tasks: TaskBank | Generator,
    task_index: Int[Array, ""] | None = None,
    pair_index: Int[Array, ""] | None = None,
) -> tuple[ArcState, ArcObservation]:
    # One fused threefry kernel for the episode's key and draws (prng.split_uniform).
    generated = isinstance(tasks, Generator)
    keys, (task_draw, pair_draw) = split_uniform(key_data(key), 1 + generated, 2)
    next_key = keys[0]
    if generated:
        # A fresh task every episode; its seed is what task_index records.
        seed = (keys[1][0] >> 1).astype(jnp.int32) if task_index is None else task_index
        tasks, task, recorded_task = tasks.task(seed), jnp.int32(0), seed.astype(jnp.int32)
    else:
        num_tasks = tasks.num_train.shape[0]
        if task_index is None:
            task = _uniform_index(task_draw, num_tasks)
        else:
            task = jnp.clip(task_index, 0, num_tasks - 1).astype(jnp.int32)
        recorded_task = task
    pairs = tasks.pairs("train" if config.mode == "train" else "test")
    count = pairs.count[task]
    if pair_index is None:
        pair = _uniform_index(pair_draw, count)
    else:
        pair = jnp.clip(pair_index, 0, count - 1).astype(jnp.int32)

    input_grid, input_shape = pairs.inputs[task, pair], pairs.input_shapes[task, pair]
    target_grid, target_shape = pairs.outputs[task, pair], pairs.output_shapes[task, pair]
    empty_start = config.initial_grid == "empty"
    working_grid = jnp.zeros_like(input_grid) if empty_start else input_grid
    start_similarity, _ = similarity(working_grid, input_shape, target_grid, target_shape)
    state = ArcState(
        working_grid=working_grid,
        working_shape=input_shape,
        input_grid=input_grid,
        input_shape=input_shape,
        target_grid=target_grid,
        target_shape=target_shape,
        clipboard=jnp.zeros_like(input_grid),
        clipboard_mask=jnp.zeros(input_grid.shape, dtype=bool),
        clipboard_origin=jnp.zeros(2, dtype=jnp.int32),
        step_count=0,
        task_index=recorded_task,
        pair_index=pair,
        similarity=start_similarity,
        terminated=False,
        success=False,
        key=next_key,
        history=empty_history(ACTION_TYPES[config.selection_format], config.history_size),
    )
    return state, observe(state)


def _check_step_arguments(state: ArcState, action: AbstractAction, config: ArcConfig) -> None:
    """Trace-time checks: wrong types and shapes fail here with a message, not deep inside."""
    if not isinstance(config, ArcConfig):
        raise TypeError(f"config must be an ArcConfig, got {type(config).__name__}")
    if not isinstance(state, ArcState):
        raise TypeError(f"state must be an ArcState, got {type(state).__name__}")
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


def _strict_checks(reward: Float32[Array, ""], checks) -> Float32[Array, ""]:
    """Raises (or poisons the reward, per ``EQX_ON_ERROR``) when any check fails.

    The checks hang off the reward so that ``EQX_ON_ERROR=nan`` gives a NaN reward for
    the offending step while the state stays a clean no-op.
    """
    for failed, message in checks:
        reward = eqx.error_if(reward, failed, message)
    return reward


def _step(
    state: ArcState, action: AbstractAction, config: ArcConfig
) -> tuple[ArcState, ArcObservation, Float32[Array, ""], Bool[Array, ""], Info]:
    """Advances one environment by one action.

    ``step(state, action, config) -> (state, obs, reward, done, info)``. The action's
    class must match ``config.selection_format``. An invalid action is a no-op with
    ``info["invalid_action"]`` set (or an error when ``config.strict``). Once an episode
    is done (submitted or truncated) further steps change nothing and give zero reward.
    """
    _check_step_arguments(state, action, config)
    if action.batch_shape != ():
        raise ValueError(
            f"step takes one action, got a batch of shape {action.batch_shape}; "
            "use batch_step for batches"
        )
    if state.step_count.ndim != 0:
        raise ValueError(
            f"step takes one state, got a batch of shape {state.step_count.shape}; "
            "use batch_step for batches"
        )

    # A finished episode is absorbing: its action becomes a no-op, the reward is zero.
    was_done = state.terminated | (state.step_count >= config.max_episode_steps)
    live = ~was_done
    with jax.named_scope("selection"):
        canvas_selection = action.to_selection_mask(config.grid_shape)
        selection = canvas_selection & state.working_mask
    operation = action.operation
    out_of_range = live & ((operation < 0) | (operation >= ops.NUM_OPERATIONS))
    off_canvas = live & ~action.within_canvas(config.grid_shape) & ~ops.ignores_selection(operation)
    no_live_cell = live & ops.needs_live_selection(operation) & ~jnp.any(selection)
    empty_resize = live & (operation == ops.RESIZE) & ~jnp.any(canvas_selection)
    invalid = out_of_range | off_canvas | no_live_cell | empty_resize
    operation = jnp.where(invalid | was_done, ops.NO_OP, operation)

    with jax.named_scope("operations"):
        edit = ops.apply_operation(
            operation,
            selection,
            canvas_selection,
            state.working_grid,
            state.working_shape,
            state.input_grid,
            state.input_shape,
            state.clipboard,
            state.clipboard_mask,
            state.clipboard_origin,
        )
    with jax.named_scope("reward"):
        new_similarity, exact = similarity(
            edit.grid, edit.shape, state.target_grid, state.target_shape
        )
        submitted = operation == ops.SUBMIT
        reward = compute_reward(config, state.similarity, new_similarity, submitted, exact, invalid)
        reward = jnp.where(was_done, jnp.float32(0.0), reward)
    if config.strict:
        reward = _strict_checks(
            reward,
            [
                (out_of_range, "invalid action: operation id outside 0-34"),
                (off_canvas, "invalid action: coordinates outside the 30x30 canvas"),
                (no_live_cell, "invalid action: the selection has no cell on the live grid"),
                (empty_resize, "invalid action: resize needs a non-empty selection"),
                (
                    jnp.any((edit.grid < 0) | (edit.grid > 9)),
                    "invariant broken: colour outside 0-9",
                ),
                (
                    jnp.any((edit.grid != 0) & ~live_mask(edit.shape)),
                    "invariant broken: nonzero cell outside the live grid",
                ),
            ],
        )
    with jax.named_scope("history"):
        history = record_action(state.history, state.step_count, action, invalid, write=live)
    next_state = eqx.tree_at(
        lambda s: (
            s.working_grid,
            s.working_shape,
            s.clipboard,
            s.clipboard_mask,
            s.clipboard_origin,
            s.step_count,
            s.similarity,
            s.terminated,
            s.success,
            s.history,
        ),
        state,
        (
            edit.grid,
            edit.shape,
            edit.clipboard,
            edit.clipboard_mask,
            edit.clipboard_origin,
            state.step_count + live.astype(jnp.int32),
            new_similarity,
            state.terminated | submitted,
            state.success | (submitted & exact),
            history,
        ),
    )
    truncated = (next_state.step_count >= config.max_episode_steps) & ~next_state.terminated
    info = {
        "success": next_state.success,
        "terminated": next_state.terminated,
        "truncated": truncated,
        "invalid_action": invalid,
        "similarity": next_state.similarity,
    }
    return next_state, observe(next_state), reward, next_state.terminated | truncated, info


def _batch_reset(keys, config, tasks, task_index=None, pair_index=None):
    keys = batch_key_data(keys)
    batch = keys.shape[0]

    def per_env(index):
        return None if index is None else jnp.broadcast_to(index, (batch,))

    return jax.vmap(lambda k, t, p: _reset(k, config, tasks, t, p))(
        keys, per_env(task_index), per_env(pair_index)
    )


def _batch_step(states, actions, config):
    """``step`` over a batch: states and actions carry a leading batch axis."""
    if not isinstance(actions, AbstractAction) or not isinstance(states, ArcState):
        raise TypeError(
            f"batch_step takes (ArcState, action, ArcConfig), got "
            f"({type(states).__name__}, {type(actions).__name__}, {type(config).__name__})"
        )
    if actions.batch_shape != tuple(states.step_count.shape) or len(actions.batch_shape) != 1:
        raise ValueError(
            f"batch_step needs one action per state: states have batch shape "
            f"{tuple(states.step_count.shape)}, actions {actions.batch_shape}"
        )
    return jax.vmap(lambda s, a: _step(s, a, config))(states, actions)


_reset_jit = eqx.filter_jit(_reset)
_batch_reset_jit = eqx.filter_jit(_batch_reset)
step = eqx.filter_jit(_step)
batch_step = eqx.filter_jit(_batch_step)


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


def _reset_arguments(tasks, task_index, pair_index) -> tuple:
    """Checks the bank and turns indices into arrays; drops the bank's static ids."""
    if isinstance(tasks, Generator):  # task_index is a task seed
        return (
            tasks,
            _index_argument("task_index", task_index, None),
            _index_argument("pair_index", pair_index, None),
        )
    if not isinstance(tasks, TaskBank):
        raise TypeError(
            "tasks must be a TaskBank (from gridax.envs.arc.load_tasks) or a Generator "
            f"(gridax.envs.arc.generators), got {type(tasks).__name__}"
        )
    return (
        tasks.arrays_only(),
        _index_argument("task_index", task_index, len(tasks)),
        _index_argument("pair_index", pair_index, None),
    )


def reset(key, config: ArcConfig, tasks: TaskBank | Generator, task_index=None, pair_index=None):
    """Starts an episode: ``reset(key, config, tasks) -> (state, obs)``.

    Samples a task and a pair (a demonstration pair in ``"train"`` mode, a test pair in
    ``"eval"`` mode) from ``key`` unless ``task_index``/``pair_index`` are given. A pair
    index past the task's pair count is clipped to its last pair. With a
    :class:`~gridax.envs.arc.generators.Generator` as ``tasks``, the task is generated
    from a seed drawn from ``key`` (or ``task_index``, the seed), recorded as the
    state's ``task_index``.
    """
    return _reset_jit(key, config, *_reset_arguments(tasks, task_index, pair_index))


def batch_reset(
    keys, config: ArcConfig, tasks: TaskBank | Generator, task_index=None, pair_index=None
):
    """``reset`` for a batch of keys; ``task_index``/``pair_index`` may be per-env arrays."""
    return _batch_reset_jit(keys, config, *_reset_arguments(tasks, task_index, pair_index))


__all__ = ["batch_reset", "batch_step", "observe", "reset", "step"]
