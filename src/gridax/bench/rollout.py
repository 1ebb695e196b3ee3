"""The one rollout every scan benchmark times: ``lax.scan`` over a batched step inside
one jit, as RL training loops run."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def make_scan_rollout(step, num_steps: int):
    """A jitted ``(states, inputs) -> (states, total)``: a ``lax.scan`` of ``num_steps``
    calls of ``step(states, step_inputs) -> (states, outputs)``, ``inputs`` holding a
    leading step axis (the actions, and whatever else the step reads).

    Every leaf of ``outputs`` (rewards, observations, frames) is summed into ``total``,
    so that the compiler cannot skip computing it.
    """

    def body(states, step_inputs):
        states, outputs = step(states, step_inputs)
        return states, sum(jnp.sum(leaf) for leaf in jax.tree.leaves(outputs))

    @jax.jit
    def rollout(states, inputs):
        states, totals = jax.lax.scan(body, states, inputs, length=num_steps)
        return states, jnp.sum(totals)

    return rollout
