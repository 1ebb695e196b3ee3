"""Forage throughput: random moves through the jitted batched step."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.bench.timing import Row, scan_row
from gridax.envs import forage


def make_moves_rollout(step, num_envs: int, num_steps: int, num_actions: int = 4):
    """A jitted ``lax.scan`` of uniformly random moves over a batch.

    ``step(states, actions, key) -> (states, obs, rewards)``; observations are consumed
    (summed) so that the compiler cannot skip them.
    """

    def body(states, key):
        move_key, step_key = jax.random.split(key)
        actions = jax.random.randint(move_key, (num_envs,), 0, num_actions)
        states, obs, rewards = step(states, actions, step_key)
        seen = sum(jnp.sum(leaf) for leaf in jax.tree.leaves(obs))
        return states, jnp.sum(rewards) + seen

    @jax.jit
    def rollout(states, key):
        states, totals = jax.lax.scan(body, states, jax.random.split(key, num_steps))
        return states, jnp.sum(totals)

    return rollout


def make_forage_rollout(config, num_envs: int, num_steps: int):
    """:func:`make_moves_rollout` of the forage env's batched step."""

    def step(states, actions, _):
        states, obs, rewards, _, _ = forage.batch_step(states, actions, config)
        return states, obs, rewards

    return make_moves_rollout(step, num_envs, num_steps, forage.NUM_ACTIONS)


def measure_forage(env_id: str, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    config = forage.make_config(env_id)
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), num_envs), config)
    rollout = make_forage_rollout(config, num_envs, num_steps)
    label = env_id.removeprefix("Foragax")
    return scan_row("forage", label, rollout, (states,), num_steps, repeats)
