"""The reward: what collecting an object pays, and the cache of food values it reads.

Collecting an object pays its schedule's value at the reward clock (``schedules.py``);
with ``center_reward``, minus the mean current reward of all visible food.

The cache serves every world, centred or not (the reward, the hint, diagnostics and
pictures read it). Constant and fourier values change rarely, so the state keeps each
fourier curve's value (``Biomes.curve_values``) and each food cell's value
(``Food.value``), and :func:`refresh_rewards` recomputes them only when a fourier
curve's slow clock ticks or a biome regenerates; sine, square and weather values change
every step and are computed per type when needed (:func:`wave_values`). With a centred
reward the refresh also rebuilds the running sums that ``centring.py`` keeps step by
step, which :func:`mean_food_reward` reads.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32

from gridax.batching import cond_rare
from gridax.envs.forage import centring, schedules
from gridax.envs.forage.arithmetic import ordered_sum
from gridax.envs.forage.kinds import changes_every_step, is_constant, is_fourier
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import ForageState

# --- the cache -------------------------------------------------------------------------


def food_values(state: ForageState, curve_values) -> Float32[Array, "H W"]:
    """``Food.value`` from scratch (see there)."""
    params, cells = state.params, state.cells
    ids = cells.object.astype(jnp.int32)
    values = jnp.where(is_constant(params.schedule), params.reward, 0.0)[ids]
    slot = cells.generation % curve_values.shape[1]
    fourier = curve_values[cells.origin.astype(jnp.int32), slot, ids]
    values = jnp.where(is_fourier(params.schedule[ids]), fourier, values)
    food = (ids > 0) & ~params.blocking[ids]
    return jnp.where(food, values, -jnp.inf)


def refresh_rewards(state: ForageState, refresh, structure: Structure) -> ForageState:
    """Recomputes the cache (``Biomes.curve_values``, ``Food.value``) and, with a centred
    reward, the sums built from it, for the state's clock, if ``refresh`` (a rare event:
    :func:`~gridax.batching.cond_rare`)."""

    def recompute(_, state, clock):
        values = schedules.curve_values(state.biomes.curves, state.params, clock)
        food_value = food_values(state, values)
        sums = centring.food_sums(state, food_value, structure.horizon) if structure.horizon else ()
        return values, food_value, sums

    current = (
        state.biomes.curve_values,
        state.food.value,
        centring.sums_of(state) if structure.horizon else (),
    )
    values, food_value, sums = cond_rare(refresh, recompute, current, state, state.clock)
    state = eqx.tree_at(
        lambda s: (s.biomes.curve_values, s.food.value), state, (values, food_value)
    )
    return centring.with_sums(state, sums) if structure.horizon else state


def refresh_after_step(state: ForageState, clock, regenerated, structure: Structure):
    """The cache after a step from reward clock ``clock``: refreshed if a fourier curve's
    slow clock ticked or a biome ``regenerated``. Only worlds with fourier objects
    refresh: a world whose biomes regenerate sine objects and has no fourier object
    keeps the values of its reset (no registered id is one)."""
    if not structure.fourier:
        return state
    refresh = schedules.fourier_ticks(state.params, clock) | regenerated
    return refresh_rewards(state, refresh, structure)


# --- what each cell would pay now ------------------------------------------------------


def wave_values(state: ForageState, clock, structure: Structure) -> Float32[Array, "H W"]:
    """Per cell: the current reward of a visible sine, square or weather object, else 0.
    (Their rewards change every step, so ``Food.value`` holds 0 for them.)"""
    params = state.params
    waves = schedules.type_rewards(params, clock, structure)
    is_wave = changes_every_step(params.schedule) & ~params.blocking
    visible = state.visible().astype(jnp.int32)
    return jnp.where(is_wave, waves, 0.0)[visible]


def reward_map(state: ForageState, clock, structure: Structure):
    """Per cell: the reward collecting its visible object would pay at ``clock``, the
    state's reward clock (uncentred), and whether it is food (a visible, non-blocking
    object)."""
    food = (state.cells.ready_at <= state.time) & (state.food.value > -jnp.inf)
    values = jnp.where(food, state.food.value, 0.0)
    if structure.waves:
        values = values + wave_values(state, clock, structure)
    return values, food


def region_means(state: ForageState, clock, structure: Structure) -> Float32[Array, " R"]:
    """Mean food reward per region: the food biomes in order, then the rest (the void)."""
    values, food = reward_map(state, clock, structure)
    regions = jax.nn.one_hot(state.params.region_map, structure.num_food_biomes + 1, dtype=bool)
    in_region = regions & food[..., None]
    per_cell = jnp.where(in_region, values[..., None], 0.0)
    totals = ordered_sum(per_cell.reshape(-1, per_cell.shape[-1]), axis=0)
    counts = jnp.sum(in_region, axis=(0, 1), dtype=jnp.int32)
    return totals / jnp.maximum(counts, 1).astype(jnp.float32)


# --- the reward ------------------------------------------------------------------------


def object_reward(state: ForageState, cell, obj, clock, structure: Structure):
    """The uncentred reward of collecting object ``obj`` at ``cell`` (row, column)."""
    value = schedules.type_rewards(state.params, clock, structure)[obj]
    if structure.fourier:
        row, col = cell[0], cell[1]
        slot = state.cells.generation[row, col] % structure.generations_kept
        fourier = state.biomes.curve_values[state.cells.origin[row, col], slot, obj]
        value = jnp.where(is_fourier(state.params.schedule[obj]), fourier, value)
    return value


def mean_food_reward(state: ForageState, clock, structure: Structure) -> Float32[Array, ""]:
    """The mean current reward of the visible food, which a centred reward subtracts."""
    total, count = state.food.total, state.food.count
    if structure.waves:  # waves change every step: their part is summed from the grid
        waves = wave_values(state, clock, structure)
        total = total + ordered_sum(waves.reshape(-1))
    return total / jnp.maximum(count, 1).astype(jnp.float32)


def step_reward(state: ForageState, obj, collects, clock, structure: Structure):
    """What a step pays: the reward of object ``obj`` under the agent at ``clock`` if it
    ``collects`` it (else 0), less the mean food reward when the reward is centred."""
    value = object_reward(state, state.position, obj, clock, structure)
    if structure.center_reward:
        with jax.named_scope("center"):
            value = value - mean_food_reward(state, clock, structure)
    return jnp.where(collects, value, 0.0).astype(jnp.float32)
