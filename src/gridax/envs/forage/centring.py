"""The centred reward: each reward minus the mean current reward of all visible food.

Summing the world every step would cost a grid pass per env, so the state keeps the sum
and count of visible food values (``Food.total``, ``Food.count``, sine/square/weather
objects excluded, their part is summed when needed) and a calendar, indexed by state
time modulo ``horizon``, of the values that become visible again then: a removal moves
its value from the sums to its slot (:func:`account`), each step adds the slot that
comes due (:func:`advance_calendar`), and :func:`refresh_rewards`, which recomputes the
cached rewards when a fourier curve ticks or a biome regenerates, rebuilds all of it.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Float32

from gridax.batching import cond_rare
from gridax.envs.forage import schedules
from gridax.envs.forage.arithmetic import ordered_sum
from gridax.envs.forage.regrowth import Removal
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import ForageState


def _sums(state: ForageState) -> tuple:
    food = state.food
    return (food.total, food.count, food.calendar_total, food.calendar_count)


def _with_sums(state: ForageState, sums: tuple) -> ForageState:
    return eqx.tree_at(
        lambda s: (s.food.total, s.food.count, s.food.calendar_total, s.food.calendar_count),
        state,
        sums,
    )


def food_sums(state: ForageState, food_value, horizon: int):
    """``(total, count, calendar_total, calendar_count)`` from scratch."""
    food = food_value > -jnp.inf
    visible = food & (state.cells.ready_at <= state.time)
    pending = (food & ~visible).reshape(-1)
    slots = (state.cells.ready_at % horizon).reshape(-1)
    values = jnp.where(pending, food_value.reshape(-1), 0.0)
    return (
        ordered_sum(jnp.where(visible, food_value, 0.0).reshape(-1)),
        jnp.sum(visible, dtype=jnp.int32),
        jnp.zeros(horizon, jnp.float32).at[slots].add(values),
        jnp.zeros(horizon, jnp.int32).at[slots].add(pending.astype(jnp.int32)),
    )


def refresh_rewards(state: ForageState, refresh, structure: Structure) -> ForageState:
    """Recomputes the cached rewards (``Biomes.curve_values``, ``Food.value``) and, with a
    centred reward, the sums for the state's clock, if ``refresh`` (a rare event:
    :func:`~gridax.batching.cond_rare`)."""

    def recompute(_, state, clock):
        values = schedules.curve_values(state.biomes.curves, state.params, clock)
        food_value = schedules.food_values(state, values)
        sums = food_sums(state, food_value, structure.horizon) if structure.horizon else ()
        return values, food_value, sums

    current = (
        state.biomes.curve_values,
        state.food.value,
        _sums(state) if structure.horizon else (),
    )
    values, food_value, sums = cond_rare(refresh, recompute, current, state, state.clock)
    state = eqx.tree_at(
        lambda s: (s.biomes.curve_values, s.food.value), state, (values, food_value)
    )
    return _with_sums(state, sums) if structure.horizon else state


def account(state: ForageState, removal: Removal, horizon: int) -> ForageState:
    """Moves a removed food object's value from the visible sums to its regrowth slot."""
    gone = removal.value > -jnp.inf
    back = gone & removal.returns
    value = jnp.where(gone, removal.value, 0.0)
    slot = removal.ready % horizon
    food = state.food
    return _with_sums(
        state,
        (
            food.total - value,
            food.count - gone.astype(jnp.int32),
            food.calendar_total.at[slot].add(jnp.where(back, value, 0.0)),
            food.calendar_count.at[slot].add(back.astype(jnp.int32)),
        ),
    )


def advance_calendar(state: ForageState, horizon: int) -> ForageState:
    """Adds the food that becomes visible at the state's (new) time to the sums."""
    slot = state.time % horizon
    food = state.food
    return _with_sums(
        state,
        (
            food.total + food.calendar_total[slot],
            food.count + food.calendar_count[slot],
            food.calendar_total.at[slot].set(0.0),
            food.calendar_count.at[slot].set(0),
        ),
    )


def mean_food_reward(state: ForageState, clock, structure: Structure) -> Float32[Array, ""]:
    """The mean current reward of the visible food, which a centred reward subtracts."""
    total, count = state.food.total, state.food.count
    if structure.waves:  # waves change every step: their part is summed from the grid
        waves = schedules.wave_values(state, clock, structure)
        total = total + ordered_sum(waves.reshape(-1))
    return total / jnp.maximum(count, 1).astype(jnp.float32)
