"""Argument checks of the forage env's public functions: a wrong type, an action that is
not an integer of the batch's shape, or a state made under another config fails with a
message naming it, not deep inside the step (or, worse, runs). They read only types and
shapes, so under a caller's jit they run once, at trace time."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from gridax.envs.forage.config import ForageConfig, ForageParams
from gridax.envs.forage.types import ForageState
from gridax.validation import require_batch_shape, require_type


def params_for(config: ForageConfig, params: ForageParams | None) -> ForageParams:
    """``params``, or the config's own when None."""
    require_type("config", config, ForageConfig)
    if params is None:
        return config.params()
    require_type("params", params, ForageParams, "ForageParams or None")
    return params


def action_array(action, batch_shape: tuple[int, ...]) -> jax.Array:
    """``action`` as an int32 array of ``batch_shape``."""
    array = jnp.asarray(action)
    if not jnp.issubdtype(array.dtype, jnp.integer) or array.shape != batch_shape:
        raise ValueError(
            f"forage actions are integers 0-3 (DOWN, RIGHT, UP, LEFT) of shape {batch_shape}; "
            f"got dtype {array.dtype} and shape {array.shape}"
        )
    return array.astype(jnp.int32)


@functools.cache
def _state_leaf_types(config: ForageConfig, reset) -> tuple:
    """``(path, shape, dtype)`` of every leaf of one env's state under ``config``."""
    state, _ = jax.eval_shape(
        lambda key: reset(key, config.params(), config.structure()),
        jax.ShapeDtypeStruct((2,), jnp.uint32),
    )
    return tuple(
        (jax.tree_util.keystr(path), leaf.shape, leaf.dtype)
        for path, leaf in jax.tree_util.tree_leaves_with_path(state)
    )


def state_fits(state, config: ForageConfig, reset, batched: bool) -> tuple[int, ...]:
    """The batch shape of ``state``, after checking that ``reset`` under ``config`` makes
    states of its leaf shapes and dtypes."""
    require_type("config", config, ForageConfig)
    require_type("state", state, ForageState)
    batch_shape = require_batch_shape(tuple(state.time.shape), batched)
    expected, leaves = _state_leaf_types(config, reset), jax.tree.leaves(state)
    if len(leaves) != len(expected):
        raise ValueError(f"the state has {len(leaves)} leaves; a ForageState has {len(expected)}")
    for (path, shape, dtype), leaf in zip(expected, leaves, strict=True):
        if tuple(leaf.shape) != batch_shape + shape or leaf.dtype != dtype:
            raise ValueError(
                f"the state does not fit this ForageConfig: state{path} has shape "
                f"{tuple(leaf.shape)} and dtype {leaf.dtype}, the config makes "
                f"{batch_shape + shape} and {dtype}; was the state made with another "
                "config or env id?"
            )
    return batch_shape


def step_action(state, action, config: ForageConfig, reset, batched: bool) -> jax.Array:
    """The action of a (batch) step as int32, after checking that ``state`` fits
    ``config`` and that ``action`` is integers of the state's batch shape."""
    return action_array(action, state_fits(state, config, reset, batched))
