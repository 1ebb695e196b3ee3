"""The forage state, its parts and its invariants: arrays only, with pinned dtypes.

Cells hold what lives or will regrow there (``Cells.object``) and the state time from
which it is visible (``Cells.ready_at``), so regrowth costs nothing until someone looks:
an object collected in the step that starts at time ``t`` with delay ``d`` is absent from
the ``d + 1`` states that step and the next ``d`` return, and visible again after.

The leaves flatten in the order of the flat state that checkpoints of format 1 hold
(cells, agent and clocks, biomes, food values, key, params), so those still load.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Float32, Int8, Int32, UInt8, UInt32

from gridax.envs.forage.params import ForageParams
from gridax.fields import as_dtype


class Cells(eqx.Module):
    """What each cell holds: the object that is or will be there, and where it came from."""

    # present or regrowing; 0 none
    object: Int8[Array, "*b H W"] = eqx.field(converter=as_dtype(jnp.int8))
    # visible from this state time
    ready_at: Int32[Array, "*b H W"] = eqx.field(converter=as_dtype(jnp.int32))
    # biome whose spawn drew its curve
    origin: Int8[Array, "*b H W"] = eqx.field(converter=as_dtype(jnp.int8))
    # that biome's generation then
    generation: Int32[Array, "*b H W"] = eqx.field(converter=as_dtype(jnp.int32))


class Biomes(eqx.Module):
    """Per biome: its generation, what it spawned and consumed, and its reward curves."""

    generation: Int32[Array, "*b B"] = eqx.field(converter=as_dtype(jnp.int32))
    # this generation's collections
    consumed: Int32[Array, "*b B"] = eqx.field(converter=as_dtype(jnp.int32))
    # objects its last spawn placed
    spawned: Int32[Array, "*b B"] = eqx.field(converter=as_dtype(jnp.int32))
    # Per generation slot and object id: fourier reward curves and the random colours of
    # fourier/sine objects (kept for `generations_kept` generations).
    curves: Float32[Array, "*b B R K2 C"] = eqx.field(converter=as_dtype(jnp.float32))
    palette: UInt8[Array, "*b B R K2 3"] = eqx.field(converter=as_dtype(jnp.uint8))
    # Each curve's value at the state's reward clock, refreshed only when a curve's slow
    # clock ticks or a biome regenerates, so a step reads rewards instead of computing them.
    curve_values: Float32[Array, "*b B R K2"] = eqx.field(converter=as_dtype(jnp.float32))


class Food(eqx.Module):
    """Cached food rewards (``reward.py``) and the centred reward's sums (``centring.py``)."""

    # Per cell holding food (present or regrowing): its reward now if constant or fourier,
    # 0 for waves (added per type); -inf for empty cells and walls. Kept so that the
    # centred reward and the hint sum a grid instead of looking up tables per cell.
    value: Float32[Array, "*b H W"] = eqx.field(converter=as_dtype(jnp.float32))
    # With a centred reward: the sum and count of visible food values (waves excluded),
    # kept up to date step by step, and a calendar (by state time modulo `horizon`) of the
    # values that regrow then, so the step never sums the grid.
    total: Float32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.float32))
    count: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    calendar_total: Float32[Array, "*b D"] = eqx.field(converter=as_dtype(jnp.float32))
    calendar_count: Int32[Array, "*b D"] = eqx.field(converter=as_dtype(jnp.int32))


class ForageState(eqx.Module):
    """One env's state (or a batch, with a leading axis on every leaf)."""

    cells: Cells
    # (row y, column x)
    position: Int32[Array, "*b 2"] = eqx.field(converter=as_dtype(jnp.int32))
    time: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    # reward clock = time + offset
    offset: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    biomes: Biomes
    food: Food
    key: UInt32[Array, "*b 2"] = eqx.field(converter=as_dtype(jnp.uint32))
    params: ForageParams

    @property
    def clock(self) -> Int32[Array, "*b"]:
        """The reward clock: the state time plus the reset's random shift."""
        return self.time + self.offset

    def visible(self) -> Int8[Array, "*b H W"]:
        """The objects an observer sees now (regrowing cells show as empty)."""
        return jnp.where(self.cells.ready_at <= self.time[..., None, None], self.cells.object, 0)

    def object_at(self, cell: Int32[Array, "2"]) -> Int32[Array, ""]:
        """The object one env sees now at ``cell`` (row, column); 0 if none or regrowing."""
        row, col = cell[0], cell[1]
        present = self.cells.ready_at[row, col] <= self.time
        return jnp.where(present, self.cells.object[row, col], 0).astype(jnp.int32)


class Metrics(eqx.Module):
    """The running continual-RL figures of one env or a batch (``metrics.py``)."""

    # EWMs without the bias correction, and the correction's denominator 1 - (1 - rate)^t.
    ewm_reward: Float32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.float32))
    ewm_regret: Float32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.float32))
    ewm_weight: Float32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.float32))
    # steps in each biome, then outside every biome: their sum is the steps taken
    biome_steps: Int32[Array, "*b biomes_and_none"] = eqx.field(converter=as_dtype(jnp.int32))
    collections: Int32[Array, "*b ids"] = eqx.field(converter=as_dtype(jnp.int32))


class Tracked(eqx.Module):
    """An env state and its metrics."""

    state: ForageState
    metrics: Metrics


def invariant_violations(states: ForageState, config=None) -> dict[str, Int32[Array, ""]]:
    """For each invariant of the forage state, how many envs of ``states`` break it
    (jittable, for one state or any batch shape). ``config`` is unused: every bound is
    in the state, but the signature is the one every env's invariants share."""
    del config
    height, width = states.cells.object.shape[-2:]
    num_ids = states.params.blocking.shape[-1]
    row, col = states.position[..., 0], states.position[..., 1]
    inside = (row >= 0) & (row < height) & (col >= 0) & (col < width)
    flat_cell = (jnp.clip(row, 0, height - 1) * width + jnp.clip(col, 0, width - 1))[..., None]
    under = jnp.take_along_axis(states.visible().reshape(*row.shape, -1), flat_cell, axis=-1)
    on_wall = jnp.take_along_axis(states.params.blocking, under.astype(jnp.int32), axis=-1)[..., 0]
    grid_axes = (-2, -1)
    objects = states.cells.object
    per_env = {
        "agent outside the world": ~inside,
        "agent on a blocking object": on_wall,
        "object id out of range": jnp.any((objects < 0) | (objects >= num_ids), axis=grid_axes),
        "negative time": states.time < 0,
        "non-finite food values": ~jnp.isfinite(states.food.total)
        | jnp.any(jnp.isnan(states.food.value), axis=grid_axes)
        | jnp.any(~jnp.isfinite(states.biomes.curve_values), axis=(-3, -2, -1)),
        "negative food count": states.food.count < 0,
    }
    return {name: jnp.sum(flag, dtype=jnp.int32) for name, flag in per_env.items()}
