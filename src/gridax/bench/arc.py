"""ARC throughput beside the roofline kernel: the cheapest possible ARC step on the same
layout (paint one random cell of a 30x30 int8 grid, recompute the similarity to the
target), so each env figure is also a fraction of what this machine can do at all."""

from __future__ import annotations

import time

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.bench.timing import Row, median_seconds, scan_row, state_bytes
from gridax.envs import arc

FORMATS = ("point", "bbox", "mask")


def action_mix(num_steps: int) -> str:
    """What the benchmark's actions and rollouts are, for its output."""
    return (
        "random operation 0-33 (submit left out), coordinates uniform over the live grid "
        f"(resize: over the canvas); episodes of {num_steps} steps rolled out {num_steps} "
        "steps from reset, so every step is live"
    )


def make_rollout(config: arc.ArcConfig, num_steps: int):
    """A jitted ``(states, key) -> (states, total_reward)`` ``lax.scan`` of ``num_steps``."""

    def body(carry, _):
        states, key = carry
        key, action_key = jax.random.split(key)
        actions = arc.random_actions(action_key, states.working_shape, config.selection_format)
        states, _, rewards, _, _ = arc.batch_step(states, actions, config)
        return (states, key), jnp.sum(rewards)

    @eqx.filter_jit
    def rollout(states, key):
        (states, _), rewards = jax.lax.scan(body, (states, key), None, length=num_steps)
        return states, jnp.sum(rewards)

    return rollout


def make_roofline_rollout(num_steps: int):
    """The cheapest ARC step: paint one random cell, recompute similarity to the target."""

    def step(grid, target, key):
        row_key, col_key, colour_key = jax.random.split(key, 3)
        row = jax.random.randint(row_key, (), 0, arc.GRID_SIZE)
        col = jax.random.randint(col_key, (), 0, arc.GRID_SIZE)
        colour = jax.random.randint(colour_key, (), 0, 10).astype(jnp.int8)
        grid = grid.at[row, col].set(colour)
        similarity = jnp.mean(grid == target, dtype=jnp.float32)
        return grid, similarity

    def body(carry, _):
        grids, targets, key = carry
        key, step_key = jax.random.split(key)
        keys = jax.random.split(step_key, grids.shape[0])
        grids, similarity = jax.vmap(step)(grids, targets, keys)
        return (grids, targets, key), jnp.sum(similarity)

    @jax.jit
    def rollout(grids, targets, key):
        (grids, _, _), similarity = jax.lax.scan(body, (grids, targets, key), None, num_steps)
        return grids, jnp.sum(similarity)

    return rollout


def measure_roofline(tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    states, _ = arc.batch_reset(
        jax.random.split(jax.random.key(0), num_envs), arc.ArcConfig(), tasks
    )
    args = (states.working_grid, states.target_grid)
    return scan_row("roofline", "-", make_roofline_rollout(num_steps), args, num_steps, repeats)


def measure_scan(config, tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    """``lax.scan`` over ``num_steps`` steps inside one jit, as RL training loops run."""
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    rollout = make_rollout(config, num_steps)
    return scan_row("arc", config.selection_format, rollout, (states,), num_steps, repeats)


def measure_loop(config, tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    """A Python loop calling a jitted policy and the jitted ``batch_step`` every step."""
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    policy = jax.jit(
        lambda key, states: arc.random_actions(key, states.working_shape, config.selection_format)
    )
    keys = jax.random.split(jax.random.key(1), num_steps)

    def run(_):
        current = states
        for key in keys:
            current = arc.batch_step(current, policy(key, current), config)[0]
        return current

    started = time.perf_counter()
    jax.block_until_ready(arc.batch_step(states, policy(keys[0], states), config))
    compile_seconds = time.perf_counter() - started
    seconds = median_seconds(run, repeats)
    return Row(
        "arc",
        config.selection_format,
        "loop",
        num_envs,
        num_steps,
        num_envs * num_steps / seconds,
        compile_seconds,
        state_bytes(states),
    )


def make_sharded_rollout(config: arc.ArcConfig, num_steps: int, mesh):
    """:func:`make_rollout` run device-locally on every device of ``mesh`` (each device
    draws its own actions: the key is folded with the device index)."""
    from gridax import sharding

    rollout = make_rollout(config, num_steps)

    def local(states, key):
        key = jax.random.fold_in(key, jax.lax.axis_index(sharding.AXIS))
        states, total = rollout(states, key)
        return states, jax.lax.psum(total, sharding.AXIS)

    return sharding.device_local(local, mesh, batched=(True, False), out_batched=(True, False))


def measure_devices(tasks, num_devices: int, num_envs: int, num_steps: int, repeats: int = 3):
    """ARC point actions, a batch of ``num_envs`` split over ``num_devices`` devices."""
    from gridax import sharding

    if num_devices > jax.device_count():
        raise ValueError(
            f"{num_devices} devices asked for, {jax.device_count()} present (gridax bench "
            "--devices N simulates N CPU devices when it starts JAX)"
        )
    mesh = sharding.make_mesh(jax.devices()[:num_devices])
    config = arc.ArcConfig(max_episode_steps=num_steps)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    states = sharding.shard_batch(states, mesh)
    rollout = make_sharded_rollout(config, num_steps, mesh)
    label = f"point, {num_devices} device" + ("s" if num_devices > 1 else "")
    return scan_row("sharded", label, rollout, (states,), num_steps, repeats)
