"""ARC throughput beside the roofline kernel: the cheapest possible ARC step on the same
layout (paint one cell of a 30x30 int8 grid, recompute the similarity to the target),
so each env figure is also a fraction of what this machine can do at all.

Both sides read random inputs drawn before the timed call (the env its actions, the
roofline its cells and colours), so the fraction compares step costs only."""

from __future__ import annotations

import time

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.bench.timing import Row, median_seconds, scan_row, state_bytes, unstack
from gridax.envs import arc

FORMATS = ("point", "bbox", "mask")


def action_mix(num_steps: int) -> str:
    """What the benchmark's actions and rollouts are, for its output."""
    return (
        "random operation 0-33 (submit left out), coordinates uniform over the live grid "
        f"(resize: over the canvas), drawn before the timed call; episodes of {num_steps} "
        f"steps rolled out {num_steps} steps from reset, so every step is live"
    )


def draw_rollout_actions(num_steps: int, num_envs: int, seed: int = 1) -> arc.ActionDraws:
    """The random numbers of a rollout's actions, ``[num_steps, num_envs]``."""
    return arc.draw_actions(jax.random.key(seed), (num_steps, num_envs))


def make_rollout(config: arc.ArcConfig, num_steps: int):
    """A jitted ``(states, draws) -> (states, total_reward)`` ``lax.scan`` of ``num_steps``
    steps, ``draws`` from :func:`draw_rollout_actions`."""

    def body(states, draws):
        actions = arc.actions_from_draws(draws, states.working_shape, config.selection_format)
        states, _, rewards, _, _ = arc.batch_step(states, actions, config)
        return states, jnp.sum(rewards)

    @eqx.filter_jit
    def rollout(states, draws):
        states, rewards = jax.lax.scan(body, states, draws, length=num_steps)
        return states, jnp.sum(rewards)

    return rollout


def draw_roofline_cells(num_steps: int, num_envs: int, seed: int = 1):
    """The roofline's inputs: a cell and a colour per env and step, ``[num_steps, num_envs]``."""
    row_key, col_key, colour_key = jax.random.split(jax.random.key(seed), 3)
    shape = (num_steps, num_envs)
    return (
        jax.random.randint(row_key, shape, 0, arc.GRID_SIZE),
        jax.random.randint(col_key, shape, 0, arc.GRID_SIZE),
        jax.random.randint(colour_key, shape, 0, 10).astype(jnp.int8),
    )


def make_roofline_rollout(num_steps: int):
    """The cheapest ARC step: paint one given cell, recompute similarity to the target."""

    def step(grid, target, row, col, colour):
        grid = grid.at[row, col].set(colour)
        return grid, jnp.mean(grid == target, dtype=jnp.float32)

    @jax.jit
    def rollout(grids, targets, cells):
        def body(grids, cells):
            grids, similarity = jax.vmap(step)(grids, targets, *cells)
            return grids, jnp.sum(similarity)

        grids, similarity = jax.lax.scan(body, grids, cells, length=num_steps)
        return grids, jnp.sum(similarity)

    return rollout


def measure_roofline(tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    states, _ = arc.batch_reset(
        jax.random.split(jax.random.key(0), num_envs), arc.ArcConfig(), tasks
    )
    args = (states.working_grid, states.target_grid)
    cells = draw_roofline_cells(num_steps, num_envs)
    rollout = make_roofline_rollout(num_steps)
    return scan_row("roofline", "-", rollout, args, cells, num_steps, repeats)


def measure_scan(config, tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    """``lax.scan`` over ``num_steps`` steps inside one jit, as RL training loops run."""
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    rollout = make_rollout(config, num_steps)
    draws = draw_rollout_actions(num_steps, num_envs)
    return scan_row("arc", config.selection_format, rollout, (states,), draws, num_steps, repeats)


def measure_loop(config, tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    """A Python loop calling a jitted policy (mapping predrawn numbers onto the live
    grid) and the jitted ``batch_step`` every step."""
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    policy = jax.jit(
        lambda draws, states: arc.actions_from_draws(
            draws, states.working_shape, config.selection_format
        )
    )
    draws = draw_rollout_actions(num_steps, num_envs)
    per_step = unstack(draws, num_steps)

    def run(_):
        current = states
        for step_draws in per_step:
            current = arc.batch_step(current, policy(step_draws, current), config)[0]
        return current

    started = time.perf_counter()
    jax.block_until_ready(arc.batch_step(states, policy(per_step[0], states), config))
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
    """:func:`make_rollout` run device-locally on every device of ``mesh``. The draws come
    env-major (``[num_envs, num_steps]``, split over the devices with the states) and are
    turned step-major on each device."""
    from gridax import sharding

    rollout = make_rollout(config, num_steps)

    def local(states, draws):
        states, total = rollout(states, jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), draws))
        return states, jax.lax.psum(total, sharding.AXIS)

    return sharding.device_local(local, mesh, out_batched=(True, False))


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
    draws = jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), draw_rollout_actions(num_steps, num_envs))
    draws = sharding.shard_batch(draws, mesh)
    rollout = make_sharded_rollout(config, num_steps, mesh)
    label = f"point, {num_devices} device" + ("s" if num_devices > 1 else "")
    return scan_row("sharded", label, rollout, (states,), draws, num_steps, repeats)
