"""Biomes: where objects spawn at reset, and dynamic biomes that regenerate.

A biome is a rectangle with a spawn frequency per object type. At reset every biome
spawns its objects (largest biome first, so smaller ones win their cells). A dynamic
biome counts the objects of its current generation that the agent collects; when the
count reaches its threshold (a number, or a fraction of what it spawned) it starts a new
generation: new reward curves and colours, a fresh spawn, old objects thinned out.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int8

from gridax.batching import cond_rare
from gridax.envs.forage import schedules
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import Biomes, Cells, ForageState
from gridax.geometry import box_mask


def biome_cells(params: ForageParams, biome, structure: Structure) -> Bool[Array, "H W"]:
    """The cells of a biome's rectangle."""
    x0, y0, x1, y1 = (params.biome_bounds[biome, i] for i in range(4))  # half-open
    return box_mask(y0, x0, y1 - 1, x1 - 1, (structure.height, structure.width))


def spawn(
    draw: Float32[Array, "H W"],
    params: ForageParams,
    biome,
    free: Bool[Array, "H W"],
    structure: Structure,
) -> Int8[Array, "H W"]:
    """New object ids on the free cells of a biome's rectangle (0 where none spawns),
    from one uniform per cell (``draw``).

    Bernoulli spawn: each cell independently, empty with probability ``1 - sum(f)``,
    else object ``j`` with probability ``f_j``. Deterministic spawn: exactly
    ``ceil(N * (f_j + ... + f_K)) - ceil(N * (f_{j+1} + ... + f_K))`` objects of id ``j``
    (N the rectangle's cells), the highest ids on the cells of highest random priority;
    cells that are not free rank last and receive nothing.
    """
    inside = biome_cells(params, biome, structure)
    frequencies = params.frequencies[biome, 1:]  # ids 1..K

    starts = 1.0 - jnp.sum(frequencies) + jnp.cumsum(frequencies) - frequencies
    bernoulli = jnp.sum(draw[..., None] >= starts[None, None], axis=-1, dtype=jnp.int32)

    cells = jnp.sum(inside, dtype=jnp.int32).astype(jnp.float32)
    from_last = jnp.cumsum(frequencies[::-1])[::-1]  # f_j + ... + f_K
    # ids >= j take ranks < quota_j; the tolerance keeps float32 rounding (360 * 4/60 =
    # 24.000002) from adding an object.
    quota = jnp.ceil(cells * from_last - 1e-3).astype(jnp.int32)
    priority = jnp.where(inside & free, draw, jnp.where(inside, -10.0, -jnp.inf)).reshape(-1)
    order = jnp.argsort(-priority)
    rank = jnp.zeros_like(order).at[order].set(jnp.arange(order.size, dtype=order.dtype))
    rank = rank.reshape(inside.shape).astype(jnp.int32)
    exact = jnp.sum(rank[..., None] < quota[None, None], axis=-1, dtype=jnp.int32)

    ids = jnp.where(params.deterministic_spawn, exact, bernoulli)
    return jnp.where(inside & free, ids, 0).astype(jnp.int8)


def place_objects(key, params: ForageParams, structure: Structure):
    """The objects at reset and the biome each came from: static objects first, largest
    biome first (smaller biomes overwrite their cells), then time-varying objects on the
    cells still empty; one scan over both passes."""
    shape = (structure.height, structure.width)
    biomes = structure.num_biomes

    def place(carry, step):
        objects, origin = carry
        biome, key, second_pass = step
        inside = biome_cells(params, biome, structure)
        free = jnp.where(second_pass, objects == 0, True)
        ids = spawn(jax.random.uniform(key, shape), params, biome, free, structure)
        time_varying = params.biome_time_varying[biome]
        write = jnp.where(second_pass, (ids > 0) & time_varying, inside & ~time_varying)
        objects = jnp.where(write, ids, objects)
        origin = jnp.where(write, biome.astype(jnp.int8), origin)
        return (objects, origin), None

    passes = (
        jnp.concatenate([params.biome_order, params.biome_order]),
        jax.random.split(key, 2 * biomes),
        jnp.arange(2 * biomes) >= biomes,
    )
    empty = jnp.zeros(shape, jnp.int8)
    (objects, origin), _ = jax.lax.scan(place, (empty, empty), passes)
    return objects, origin


def count_spawned(objects, params: ForageParams, structure: Structure):
    """Objects per biome rectangle."""
    return jax.vmap(
        lambda b: jnp.sum(biome_cells(params, b, structure) & (objects > 0), dtype=jnp.int32)
    )(jnp.arange(structure.num_biomes))


def count_consumption(state: ForageState, collects, structure: Structure) -> ForageState:
    """Counts a collection towards its biome's threshold if the object belongs to the
    biome's current generation (read at the agent's new position, before regrowth)."""
    if not structure.dynamic_biomes:
        return state
    row, col = state.position[0], state.position[1]
    biome = jnp.maximum(state.params.biome_map[row, col].astype(jnp.int32), 0)
    current = state.cells.generation[row, col] == state.biomes.generation[biome]
    inside = state.params.biome_map[row, col] >= 0
    counts = (collects & inside & current).astype(jnp.int32)
    return eqx.tree_at(
        lambda s: s.biomes.consumed, state, state.biomes.consumed.at[biome].add(counts)
    )


def regenerate_due(state: ForageState, time, key, structure: Structure):
    """``(state, regenerated)``: every biome whose consumption reached its threshold
    regenerates (:func:`regenerate`); ``regenerated`` says whether any did."""
    if not structure.dynamic_biomes:
        return state, jnp.bool_(False)
    params = state.params
    consumed = state.biomes.consumed.astype(jnp.float32)
    spawned = jnp.maximum(state.biomes.spawned, 1).astype(jnp.float32)
    measure = jnp.where(params.threshold_is_fraction, consumed / spawned, consumed)
    crossing = measure >= params.threshold
    regenerated = jnp.any(crossing)
    state = cond_rare(
        regenerated,
        lambda s, crossing, time, key: regenerate(s, crossing, time, key, structure),
        state,
        crossing,
        time,
        key,
    )
    return state, regenerated


def regenerate(state: ForageState, crossing, time, key, structure: Structure) -> ForageState:
    """Every biome in ``crossing`` starts a new generation: old fourier/sine objects in its
    rectangle survive with probability ``1 - spawn_empty``, new ones (with new curves and
    colours) spawn on cells without a static object, and pending regrowth is cancelled."""
    params = state.params
    kept = structure.generations_kept
    visible_now = state.cells.ready_at <= time + 1

    def one_biome(state: ForageState, step) -> tuple[ForageState, None]:
        biome, key = step
        cells, biomes = state.cells, state.biomes
        area = structure.height * structure.width
        per_id = (structure.num_objects + 2, schedules.generation_draws(structure))
        draws = jax.random.uniform(key, (2 * area + per_id[0] * per_id[1],))
        grids = draws[: 2 * area].reshape(2, structure.height, structure.width)
        generation_draws = draws[2 * area :].reshape(per_id)
        inside = biome_cells(params, biome, structure)
        ids = cells.object.astype(jnp.int32)
        present = visible_now & (ids > 0)
        regenerated = params.regenerated[ids]
        static = inside & present & ~regenerated
        survives = grids[0] >= params.spawn_empty
        keep = (inside & present & regenerated & survives) | static
        new = spawn(grids[1], params, biome, inside & ~static, structure).astype(jnp.int32)
        new = jnp.where(params.regenerated[new], new, 0)
        generation = biomes.generation[biome] + 1
        # Objects of this biome from `kept` generations ago lose their curve slot.
        stale = (cells.origin.astype(jnp.int32) == biome) & (cells.generation <= generation - kept)
        placed = new > 0
        objects = jnp.where(inside, jnp.where(placed, new, jnp.where(keep, ids, 0)), ids)
        objects = jnp.where(stale & ~placed, 0, objects)
        curves, palette = schedules.draw_generation(generation_draws, params, structure)
        slot = generation % kept
        updated = eqx.tree_at(
            lambda s: (s.cells, s.biomes),
            state,
            (
                Cells(
                    object=objects.astype(jnp.int8),
                    ready_at=jnp.where(placed, time + 1, cells.ready_at),
                    origin=jnp.where(placed, biome.astype(jnp.int8), cells.origin),
                    generation=jnp.where(placed, generation, cells.generation),
                ),
                Biomes(
                    generation=biomes.generation.at[biome].set(generation),
                    consumed=biomes.consumed.at[biome].set(0),
                    spawned=biomes.spawned.at[biome].set(jnp.sum(placed, dtype=jnp.int32)),
                    curves=biomes.curves.at[biome, slot].set(curves),
                    palette=biomes.palette.at[biome, slot].set(palette),
                    curve_values=biomes.curve_values,
                ),
            ),
        )
        go = crossing[biome]
        return jax.tree.map(lambda new, old: jnp.where(go, new, old), updated, state), None

    steps = (jnp.arange(structure.num_biomes), jax.random.split(key, structure.num_biomes))
    return jax.lax.scan(one_biome, state, steps)[0]
