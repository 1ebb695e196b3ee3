"""Forage throughput: random moves, drawn before the timed call, through the jitted
batched step."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.bench.timing import Row, scan_row
from gridax.envs import forage


def draw_moves(num_steps: int, num_envs: int, seed: int = 1, num_actions: int = 4):
    """Uniformly random moves, ``[num_steps, num_envs]``."""
    return jax.random.randint(jax.random.key(seed), (num_steps, num_envs), 0, num_actions)


def make_moves_rollout(step, num_steps: int):
    """A jitted ``(states, inputs) -> (states, total)`` ``lax.scan`` over ``num_steps``
    steps of ``step(states, step_inputs) -> (states, obs, rewards)``, ``inputs`` holding
    a leading step axis (the moves, and whatever else the step reads).

    Observations are consumed (summed) so that the compiler cannot skip them.
    """

    def body(states, step_inputs):
        states, obs, rewards = step(states, step_inputs)
        seen = sum(jnp.sum(leaf) for leaf in jax.tree.leaves(obs))
        return states, jnp.sum(rewards) + seen

    @jax.jit
    def rollout(states, inputs):
        states, totals = jax.lax.scan(body, states, inputs, length=num_steps)
        return states, jnp.sum(totals)

    return rollout


def make_forage_rollout(config, num_steps: int):
    """:func:`make_moves_rollout` of the forage env's batched step; inputs are the moves."""

    def step(states, moves):
        states, obs, rewards, _, _ = forage.batch_step(states, moves, config)
        return states, obs, rewards

    return make_moves_rollout(step, num_steps)


def measure_forage(env_id: str, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    config = forage.make_config(env_id)
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), num_envs), config)
    rollout = make_forage_rollout(config, num_steps)
    moves = draw_moves(num_steps, num_envs, num_actions=forage.NUM_ACTIONS)
    label = env_id.removeprefix("Foragax")
    return scan_row("forage", label, rollout, (states,), moves, num_steps, repeats)
