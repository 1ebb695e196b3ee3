"""ARC throughput: random actions, drawn before the timed call, through the jitted
batched step in a scan, from a Python loop, or sharded over devices. Each is measured
beside the ARC roofline (:mod:`gridax.bench.roofline`)."""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp

from gridax.bench.rollout import make_scan_rollout
from gridax.bench.timing import Benchmark, compile_scan, measure, state_bytes, unstack
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
    """The scan rollout (:func:`gridax.bench.rollout.make_scan_rollout`) of ARC's batched
    step, rewards consumed; its inputs are :func:`draw_rollout_actions`."""

    def step(states, draws):
        actions = arc.actions_from_draws(draws, states.working_shape, config.selection_format)
        states, _, rewards, _, _ = arc.batch_step(states, actions, config)
        return states, rewards

    return make_scan_rollout(step, num_steps)


def _reset(config: arc.ArcConfig, tasks, num_envs: int):
    return arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)[0]


def scan_benchmark(config: arc.ArcConfig, tasks, num_envs: int, num_steps: int) -> Benchmark:
    """``lax.scan`` over ``num_steps`` steps inside one jit, as RL training loops run."""
    rollout = make_rollout(config, num_steps)
    draws = draw_rollout_actions(num_steps, num_envs)
    states = _reset(config, tasks, num_envs)
    return compile_scan("arc", config.selection_format, rollout, states, draws, num_steps)


def loop_benchmark(config: arc.ArcConfig, tasks, num_envs: int, num_steps: int) -> Benchmark:
    """A Python loop calling a jitted policy (mapping predrawn numbers onto the live
    grid) and the jitted ``batch_step`` every step."""
    states = _reset(config, tasks, num_envs)
    policy = jax.jit(
        lambda draws, states: arc.actions_from_draws(
            draws, states.working_shape, config.selection_format
        )
    )
    per_step = unstack(draw_rollout_actions(num_steps, num_envs), num_steps)

    def run():
        current = states
        for step_draws in per_step:
            current = arc.batch_step(current, policy(step_draws, current), config)[0]
        return current

    started = time.perf_counter()
    jax.block_until_ready(arc.batch_step(states, policy(per_step[0], states), config))
    compile_seconds = time.perf_counter() - started
    return Benchmark(
        "arc",
        config.selection_format,
        "loop",
        num_envs,
        num_steps,
        run,
        compile_seconds,
        state_bytes(states),
    )


def measure_scan(config: arc.ArcConfig, tasks, num_envs: int, num_steps: int, repeats: int = 3):
    """The row of :func:`scan_benchmark`, timed on its own."""
    return measure(scan_benchmark(config, tasks, num_envs, num_steps), repeats)


def measure_loop(config: arc.ArcConfig, tasks, num_envs: int, num_steps: int, repeats: int = 3):
    """The row of :func:`loop_benchmark`, timed on its own."""
    return measure(loop_benchmark(config, tasks, num_envs, num_steps), repeats)


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


def sharded_benchmark(tasks, num_devices: int, num_envs: int, num_steps: int) -> Benchmark:
    """ARC point actions, a batch of ``num_envs`` split over ``num_devices`` devices."""
    from gridax import sharding

    if num_devices > jax.device_count():
        raise ValueError(
            f"{num_devices} devices asked for, {jax.device_count()} present (gridax bench "
            "--devices N simulates N CPU devices when it starts JAX)"
        )
    mesh = sharding.make_mesh(jax.devices()[:num_devices])
    config = arc.ArcConfig(max_episode_steps=num_steps)
    states = sharding.shard_batch(_reset(config, tasks, num_envs), mesh)
    draws = jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), draw_rollout_actions(num_steps, num_envs))
    draws = sharding.shard_batch(draws, mesh)
    rollout = make_sharded_rollout(config, num_steps, mesh)
    label = f"point, {num_devices} device" + ("s" if num_devices > 1 else "")
    return compile_scan("sharded", label, rollout, states, draws, num_steps)
