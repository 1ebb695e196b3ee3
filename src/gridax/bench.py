"""Throughput measurement of the ARC environment: random policies and jitted rollouts."""

from __future__ import annotations

import time
from dataclasses import dataclass

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.envs import arc
from gridax.envs.arc import operations as ops
from gridax.grid import GRID_SIZE


def random_actions(key, states: arc.ArcState, config: arc.ArcConfig, include_submit: bool):
    """One random valid-looking action per env, in ``config.selection_format``.

    Operations are uniform over 0-34 (0-33 without submit). Coordinates are uniform over
    the live grid, except for resize, whose corner is uniform over the whole canvas so
    that grids grow as well as shrink.
    """
    batch = states.step_count.shape[0]
    op_key, a_key, b_key = jax.random.split(key, 3)
    num_ops = ops.NUM_OPERATIONS if include_submit else ops.SUBMIT
    operation = jax.random.randint(op_key, (batch,), 0, num_ops, dtype=jnp.int32)
    resizes = operation == ops.RESIZE
    limit = jnp.where(resizes[:, None], GRID_SIZE, states.working_shape)

    def corner(k):
        return jnp.floor(jax.random.uniform(k, (batch, 2)) * limit.astype(jnp.float32)).astype(
            jnp.int32
        )

    first, second = corner(a_key), corner(b_key)
    if config.selection_format == "point":
        return PointAction(operation, first[:, 0], first[:, 1])
    boxes = BboxAction(operation, first[:, 0], first[:, 1], second[:, 0], second[:, 1])
    if config.selection_format == "bbox":
        return boxes
    return MaskAction(operation, boxes.to_selection_mask())


def make_rollout(config: arc.ArcConfig, num_steps: int, include_submit: bool = False):
    """A jitted ``(states, key) -> (states, total_reward)`` scan of ``num_steps`` steps."""

    def body(carry, _):
        states, key = carry
        key, action_key = jax.random.split(key)
        actions = random_actions(action_key, states, config, include_submit)
        states, _, rewards, _, _ = arc.batch_step(states, actions, config)
        return (states, key), jnp.sum(rewards)

    @eqx.filter_jit
    def rollout(states, key):
        (states, _), rewards = jax.lax.scan(body, (states, key), None, length=num_steps)
        return states, jnp.sum(rewards)

    return rollout


@dataclass
class Measurement:
    num_envs: int
    num_steps: int
    compile_seconds: float
    steps_per_second: float
    bytes_per_state: int


def state_bytes(states: arc.ArcState) -> int:
    """Bytes of one env's state (the batch's leaves divided by the batch size)."""
    total = sum(leaf.nbytes for leaf in jax.tree.leaves(states))
    return total // states.step_count.shape[0]


def measure(config, tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Measurement:
    """Compiles a scan rollout, then times it ``repeats`` times; reports the median."""
    keys = jax.random.split(jax.random.key(0), num_envs)
    states, _ = arc.batch_reset(keys, config, tasks)
    rollout = make_rollout(config, num_steps)
    started = time.perf_counter()
    compiled = rollout.lower(states, jax.random.key(1)).compile()
    compile_seconds = time.perf_counter() - started
    timings = []
    for repeat in range(repeats):
        started = time.perf_counter()
        out, total = compiled(states, jax.random.key(2 + repeat))
        jax.block_until_ready(total)
        timings.append(time.perf_counter() - started)
    median = sorted(timings)[len(timings) // 2]
    return Measurement(
        num_envs, num_steps, compile_seconds, num_envs * num_steps / median, state_bytes(states)
    )
