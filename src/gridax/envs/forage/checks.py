"""Argument checks of the forage env's public functions: a wrong type, an action that is
not an integer of the batch's shape, or a state made under another config fails with a
message naming it, not deep inside the step (or, worse, runs). They read only types and
shapes, so under a caller's jit they run once, at trace time."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.envs.forage.config import ForageConfig
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.types import ForageState
from gridax.validation import require_batch_shape, require_type


def checked_config(value) -> ForageConfig:
    """``value``, checked to be a ForageConfig."""
    require_type("config", value, ForageConfig)
    return value


def params_or(params: ForageParams | None, default: ForageParams) -> ForageParams:
    """``params``, or ``default`` (the config's own) when None."""
    if params is None:
        return default
    require_type("params", params, ForageParams, "ForageParams or None")
    return params


def action_array(action, batch_shape: tuple[int, ...]) -> jax.Array:
    """``action`` as an int32 array of ``batch_shape``."""
    # As a jitted policy returns it: nothing to convert (and no dispatch).
    if isinstance(action, jax.Array) and action.dtype == jnp.int32 and action.shape == batch_shape:
        return action
    array = jnp.asarray(action)
    if not jnp.issubdtype(array.dtype, jnp.integer) or array.shape != batch_shape:
        raise ValueError(
            f"forage actions are integers 0-3 (DOWN, RIGHT, UP, LEFT) of shape {batch_shape}; "
            f"got dtype {array.dtype} and shape {array.shape}"
        )
    return array.astype(jnp.int32)


def state_layout(reset, params: ForageParams) -> tuple:
    """``(path, shape, dtype)`` of every leaf of the state that ``reset(key, params)``
    makes, traced once per config (the step's checks compare states against it)."""
    state, _ = jax.eval_shape(reset, jax.ShapeDtypeStruct((2,), jnp.uint32), params)
    return tuple(
        (jax.tree_util.keystr(path), leaf.shape, leaf.dtype)
        for path, leaf in jax.tree_util.tree_leaves_with_path(state)
    )


def state_fits(state, layout: tuple, batched: bool) -> tuple[int, ...]:
    """The batch shape of ``state``, after checking that its leaves have the shapes and
    dtypes of ``layout`` (:func:`state_layout` of the config)."""
    require_type("state", state, ForageState)
    batch_shape = require_batch_shape(tuple(state.time.shape), batched)
    leaves = jax.tree.leaves(state)
    if len(leaves) != len(layout):
        raise ValueError(f"the state has {len(leaves)} leaves; a ForageState has {len(layout)}")
    for (path, shape, dtype), leaf in zip(layout, leaves, strict=True):
        if leaf.shape != batch_shape + shape or leaf.dtype != dtype:
            raise ValueError(
                f"the state does not fit this ForageConfig: state{path} has shape "
                f"{tuple(leaf.shape)} and dtype {leaf.dtype}, the config makes "
                f"{batch_shape + shape} and {dtype}; was the state made with another "
                "config or env id?"
            )
    return batch_shape


def step_action(state, action, layout: tuple, batched: bool) -> jax.Array:
    """The action of a (batch) step as int32, after checking that ``state`` fits the
    config's ``layout`` and that ``action`` is integers of the state's batch shape."""
    return action_array(action, state_fits(state, layout, batched))
