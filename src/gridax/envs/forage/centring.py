"""The running sums behind the centred reward (each reward minus the mean current reward
of all visible food, ``reward.mean_food_reward``); only worlds with ``center_reward``
keep them (``Structure.horizon`` > 0).

Summing the world every step would cost a grid pass per env, so the state keeps the sum
and count of visible food values (``Food.total``, ``Food.count``, sine/square/weather
objects excluded, their part is summed when needed) and a calendar, indexed by state
time modulo ``horizon``, of the values that become visible again then: a removal moves
its value from the sums to its slot (:func:`account`), each step adds the slot that
comes due (:func:`advance_calendar`), and ``reward.refresh_rewards``, which recomputes
the cached food values when a fourier curve ticks or a biome regenerates, rebuilds all
of it (:func:`food_sums`).
"""

from __future__ import annotations

from collections.abc import Sequence

import equinox as eqx
import jax.numpy as jnp

from gridax.envs.forage.arithmetic import ordered_sum
from gridax.envs.forage.regrowth import Removal
from gridax.envs.forage.types import ForageState


def sums_of(state: ForageState) -> tuple:
    """``(total, count, calendar_total, calendar_count)`` as the state keeps them."""
    food = state.food
    return (food.total, food.count, food.calendar_total, food.calendar_count)


def with_sums(state: ForageState, sums: tuple) -> ForageState:
    return eqx.tree_at(sums_of, state, sums)


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


def account(state: ForageState, removals: Sequence[Removal], horizon: int) -> ForageState:
    """Moves each removed food object's value from the visible sums to its regrowth slot
    (nothing without a centred reward, ``horizon`` 0)."""
    if not horizon:
        return state
    for removal in removals:
        gone = removal.value > -jnp.inf
        back = gone & removal.returns
        value = jnp.where(gone, removal.value, 0.0)
        slot = removal.ready % horizon
        food = state.food
        state = with_sums(
            state,
            (
                food.total - value,
                food.count - gone.astype(jnp.int32),
                food.calendar_total.at[slot].add(jnp.where(back, value, 0.0)),
                food.calendar_count.at[slot].add(back.astype(jnp.int32)),
            ),
        )
    return state


def advance_calendar(state: ForageState, horizon: int) -> ForageState:
    """Adds the food that becomes visible at the state's (new) time to the sums (nothing
    without a centred reward, ``horizon`` 0)."""
    if not horizon:
        return state
    slot = state.time % horizon
    food = state.food
    return with_sums(
        state,
        (
            food.total + food.calendar_total[slot],
            food.count + food.calendar_count[slot],
            food.calendar_total.at[slot].set(0.0),
            food.calendar_count.at[slot].set(0),
        ),
    )
