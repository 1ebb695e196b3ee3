"""Forage throughput: random moves, drawn before the timed call, through the jitted
batched step; observations consumed. Measured beside the ARC roofline, against which
forage's targets are set (:mod:`gridax.bench.roofline`)."""

from __future__ import annotations

import jax

from gridax.bench.rollout import make_scan_rollout
from gridax.bench.timing import Benchmark, compile_scan
from gridax.envs import forage


def draw_moves(num_steps: int, num_envs: int, seed: int = 1, num_actions: int = 4):
    """Uniformly random moves, ``[num_steps, num_envs]``."""
    return jax.random.randint(jax.random.key(seed), (num_steps, num_envs), 0, num_actions)


def make_forage_rollout(config, num_steps: int):
    """The scan rollout of the forage env's batched step; its inputs are the moves."""

    def step(states, moves):
        states, obs, rewards, _, _ = forage.batch_step(states, moves, config)
        return states, (obs, rewards)

    return make_scan_rollout(step, num_steps)


def forage_benchmark(env_id: str, num_envs: int, num_steps: int) -> Benchmark:
    config = forage.make_config(env_id)
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), num_envs), config)
    rollout = make_forage_rollout(config, num_steps)
    moves = draw_moves(num_steps, num_envs, num_actions=forage.NUM_ACTIONS)
    label = env_id.removeprefix("Foragax")
    return compile_scan("forage", label, rollout, states, moves, num_steps)
