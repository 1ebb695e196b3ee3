"""Functional ARC environment: ``reset``, ``step``, ``batch_reset``, ``batch_step``.

The undecorated ``_reset``/``_step`` are the whole logic; the public functions check
their arguments (:mod:`~gridax.envs.arc.checks`: in Python, or once at trace time under a
caller's jit) and call a ``jax.jit`` (and ``jax.vmap``) of them with the config closed
over, built once per config (:mod:`gridax.dispatch`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int, Key, UInt32

from gridax.dispatch import Static, per_config
from gridax.envs.arc import checks, legality
from gridax.envs.arc import operations as ops
from gridax.envs.arc.actions import ACTION_TYPES, AbstractAction
from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.history import empty_history, record_action
from gridax.envs.arc.reward import reward as compute_reward
from gridax.envs.arc.reward import similarity
from gridax.envs.arc.tasks import augmentation as augment
from gridax.envs.arc.tasks.bank import TaskSource, uniform_index
from gridax.envs.arc.tasks.context import episode_task_data
from gridax.envs.arc.termination import episode_ends
from gridax.envs.arc.types import ArcObservation, ArcState
from gridax.fields import assemble
from gridax.prng import check_batch_keys, key_data, require_array, split_uniform

Info = dict[str, Array]


def observe(state: ArcState, config: ArcConfig | None = None) -> ArcObservation:
    """The agent's view of a state (or a batch). ``config`` is accepted so that every
    env's ``observe`` has one signature; the view does not depend on it."""
    del config
    return assemble(
        ArcObservation,
        working_grid=state.working_grid,
        working_shape=state.working_shape,
        input_grid=state.input_grid,
        input_shape=state.input_shape,
        clipboard=state.clipboard,
        clipboard_mask=state.clipboard_mask,
        step_count=state.step_count,
        task_index=state.task_index,
        pair_index=state.pair_index,
        context=state.context,
    )


def _reset(
    key: Key[Array, ""] | UInt32[Array, 2],
    config: ArcConfig,
    tasks: TaskSource,
    task_index: Int[Array, ""] | None = None,
    pair_index: Int[Array, ""] | None = None,
) -> tuple[ArcState, ArcObservation]:
    # One fused threefry kernel for the episode's key and draws (prng.split_uniform).
    keys, (task_draw, pair_draw) = split_uniform(key_data(key), 1 + tasks.extra_keys, 2)
    next_key = keys[0]
    bank, task, recorded_task = tasks.episode_task(keys[1:], task_draw, task_index)
    count = bank.pairs(config.part).count[task]
    if pair_index is None:
        pair = uniform_index(pair_draw, count)
    else:
        pair = jnp.clip(pair_index, 0, count - 1).astype(jnp.int32)
    augmentation = None
    if config.augment:  # from a stream of its own
        augmentation = _draw_augmentation(key_data(key), bank, task, config)
    episode = episode_task_data(bank, task, pair, config.part, config.context, augmentation)
    input_grid, input_shape = episode.input_grid, episode.input_shape
    empty_start = config.initial_grid == "empty"
    working_grid = jnp.zeros_like(input_grid) if empty_start else input_grid
    start_similarity, _ = similarity(
        working_grid, input_shape, episode.target_grid, episode.target_shape
    )
    state = ArcState(
        working_grid=working_grid,
        working_shape=input_shape,
        input_grid=input_grid,
        input_shape=input_shape,
        target_grid=episode.target_grid,
        target_shape=episode.target_shape,
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
        context=episode.context,
        augmentation=augmentation,
    )
    return state, observe(state)


def _draw_augmentation(key, bank, task, config: ArcConfig) -> augment.Augmentation:
    stream = jax.random.fold_in(jax.random.wrap_key_data(key), 0x61756776)  # "augv"
    _, uniforms = split_uniform(jax.random.key_data(stream), 0, augment.DRAWS)
    offset_limit = augment.task_max_offset(bank, task) if config.augment_translate else 0
    return augment.draw(uniforms, config.augment_all_colours, offset_limit)


def _selection(state: ArcState, action: AbstractAction, config: ArcConfig) -> ops.Selection:
    canvas = action.to_selection_mask(config.grid_shape)
    return ops.Selection(canvas=canvas, live=canvas & state.working_mask)


def _apply(state: ArcState, operation, selection: ops.Selection) -> ops.Workspace:
    """The state's grid and clipboard after ``operation``."""
    workspace = ops.Workspace(
        grid=state.working_grid,
        shape=state.working_shape,
        clipboard=state.clipboard,
        clipboard_mask=state.clipboard_mask,
        clipboard_origin=state.clipboard_origin,
    )
    return ops.apply_operation(
        operation,
        selection,
        workspace,
        input_grid=state.input_grid,
        input_shape=state.input_shape,
    )


def _replace(state: ArcState, **fields) -> ArcState:
    """``state`` with the named fields replaced."""
    names, values = list(fields), list(fields.values())
    return eqx.tree_at(lambda s: [getattr(s, name) for name in names], state, values)


def _advance(
    state: ArcState, action: AbstractAction, config: ArcConfig
) -> tuple[ArcState, Float32[Array, ""], Bool[Array, ""], Info]:
    """One environment, one action: the next state, the reward, done and the parts of
    ``info`` that the state does not hold (see :func:`step`)."""
    # A finished episode is absorbing: its action becomes a no-op, the reward is zero.
    finished = episode_ends(state, config).done
    running = ~finished
    with jax.named_scope("selection"):
        selection = _selection(state, action, config)
    found = legality.violations(action, selection, running, config.grid_shape)
    invalid = found.any()
    operation = jnp.where(invalid | finished, ops.NO_OP, action.operation)
    with jax.named_scope("operations"):
        edit = _apply(state, operation, selection)
    with jax.named_scope("reward"):
        new_similarity, exact = similarity(
            edit.grid, edit.shape, state.target_grid, state.target_shape
        )
        submitted = operation == ops.SUBMIT
        reward = compute_reward(config, state.similarity, new_similarity, submitted, exact, invalid)
        reward = jnp.where(finished, jnp.float32(0.0), reward)
    if config.strict:
        reward = legality.strict_checks(reward, found, edit)
    with jax.named_scope("history"):
        history = record_action(state.history, state.step_count, action, invalid, write=running)
    next_state = _replace(
        state,
        working_grid=edit.grid,
        working_shape=edit.shape,
        clipboard=edit.clipboard,
        clipboard_mask=edit.clipboard_mask,
        clipboard_origin=edit.clipboard_origin,
        step_count=state.step_count + running.astype(jnp.int32),
        similarity=new_similarity,
        terminated=state.terminated | submitted,
        success=state.success | (submitted & exact),
        history=history,
    )
    ends = episode_ends(next_state, config)
    return next_state, reward, ends.done, {"truncated": ends.truncated, "invalid_action": invalid}


def _outputs(state: ArcState, reward, done, own_info: Info):
    """``step``'s five outputs from :func:`_advance`'s. The observation and the info that
    repeat state arrays are built here, outside the jitted call: as outputs of a compiled
    call each would be a copy (30 us of a 110 us one-env step from Python)."""
    info = {
        "success": state.success,
        "terminated": state.terminated,
        "truncated": own_info["truncated"],
        "invalid_action": own_info["invalid_action"],
        "similarity": state.similarity,
    }
    return state, observe(state), reward, done, info


def _step(state: ArcState, action: AbstractAction, config: ArcConfig):
    """One environment, one action (see :func:`step`)."""
    return _outputs(*_advance(state, action, config))


def _batch_reset(keys, config, tasks, task_index=None, pair_index=None):
    batch = keys.shape[0]

    def per_env(index):
        return None if index is None else jnp.broadcast_to(index, (batch,))

    return jax.vmap(lambda k, t, p: _reset(k, config, tasks, t, p))(
        keys, per_env(task_index), per_env(pair_index)
    )


class _Compiled(NamedTuple):
    """The public functions' jitted bodies for one config (see :mod:`gridax.dispatch`)."""

    reset: Callable
    batch_reset: Callable
    step: Callable
    batch_step: Callable


def _compile(config: ArcConfig) -> _Compiled:
    # The task source arrives split: arrays as arguments, the rest (a generator's
    # settings) static, so a new bank of the same shapes reuses the compilation.
    def reset(key, arrays, static, task_index, pair_index):
        return _reset(key, config, eqx.combine(arrays, static.value), task_index, pair_index)

    def batch_reset(keys, arrays, static, task_index, pair_index):
        check_batch_keys(keys)
        tasks = eqx.combine(arrays, static.value)
        return _batch_reset(keys, config, tasks, task_index, pair_index)

    def advance(state, action):
        return _advance(state, action, config)

    def jit(fn, static_argnums=()):
        # Strict checks raise through eqx.error_if: eqx.filter_jit turns their failure into
        # an EquinoxRuntimeError (under jax.jit it would be XLA's JaxRuntimeError).
        return eqx.filter_jit(fn) if config.strict else jax.jit(fn, static_argnums=static_argnums)

    return _Compiled(
        reset=jit(reset, static_argnums=2),
        batch_reset=jit(batch_reset, static_argnums=2),
        step=jit(advance),
        batch_step=jit(jax.vmap(advance)),
    )


_compiled = per_config(_compile)


def _split(tasks: TaskSource) -> tuple[TaskSource, Static]:
    arrays, static = eqx.partition(tasks.for_jit(), eqx.is_array)
    return arrays, Static(static)


_split_tasks = per_config(_split, cache_size=0)  # the last source, by identity


# --- the public functions, with their argument checks ----------------------------------


def reset(key, config: ArcConfig, tasks: TaskSource, task_index=None, pair_index=None):
    """Starts an episode: ``reset(key, config, tasks) -> (state, obs)``.

    Samples a task and a pair (a demonstration pair in ``"train"`` mode, a test pair in
    ``"eval"`` mode) from ``key`` unless ``task_index``/``pair_index`` are given. A pair
    index past the task's pair count is clipped to its last pair. With a
    :class:`~gridax.envs.arc.Generator` as ``tasks``, the task is generated
    from a seed drawn from ``key`` (or ``task_index``, the seed), recorded as the
    state's ``task_index``.
    """
    indices = checks.reset_arguments(config, tasks, task_index, pair_index)
    require_array("key", key)  # checked and converted inside the jit, at trace time
    return _compiled(config).reset(key, *_split_tasks(tasks), *indices)


def batch_reset(keys, config: ArcConfig, tasks: TaskSource, task_index=None, pair_index=None):
    """``reset`` for a batch of keys; ``task_index``/``pair_index`` may be per-env arrays."""
    indices = checks.reset_arguments(config, tasks, task_index, pair_index)
    require_array("keys", keys)
    return _compiled(config).batch_reset(keys, *_split_tasks(tasks), *indices)


def step(state: ArcState, action: AbstractAction, config: ArcConfig):
    """``step(state, action, config) -> (state, obs, reward, done, info)``.

    The action's class must match ``config.selection_format``. An invalid action is a
    no-op with ``info["invalid_action"]`` set (or an error when ``config.strict``). Once
    an episode is done (submitted or truncated) further steps change nothing and give
    zero reward.
    """
    checks.step_arguments(state, action, config, batched=False)
    return _outputs(*_compiled(config).step(state, action))


def batch_step(states: ArcState, actions: AbstractAction, config: ArcConfig):
    """``step`` over a batch: states and actions carry a leading batch axis."""
    checks.step_arguments(states, actions, config, batched=True)
    return _outputs(*_compiled(config).batch_step(states, actions))


__all__ = ["batch_reset", "batch_step", "observe", "reset", "step"]
