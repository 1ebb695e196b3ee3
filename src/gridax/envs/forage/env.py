"""The foraging env: functional ``reset``/``step`` and their batched forms.

Cells hold what lives or will regrow there (``object``) and the state time from which it
is visible (``ready_at``), so regrowth costs nothing until someone looks: an object
collected in the step that starts at time ``t`` with delay ``d`` is absent from the
``d + 1`` states that step and the next ``d`` return, and visible again after. Rare
events (random respawn, a biome regenerating) go through
:func:`gridax.batching.cond_rare`, so a batch pays for them only on steps where some env
needs them.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int8, Int32, UInt8, UInt32

from gridax.batching import cond_rare
from gridax.envs.forage import world
from gridax.envs.forage.config import ForageConfig, ForageParams, Structure
from gridax.fields import pinned
from gridax.prng import batch_key_data, key_data, split_uniform

DOWN, RIGHT, UP, LEFT = range(4)
NUM_ACTIONS = 4
# (row, column) steps of DOWN, RIGHT, UP, LEFT: Foragax's numbering, y grows downwards.
MOVES = ((1, 0), (0, 1), (-1, 0), (0, -1))
_INT32_MAX = jnp.iinfo(jnp.int32).max


class ForageState(eqx.Module):
    """One env's state (or a batch, with a leading axis on every leaf)."""

    object: Int8[Array, "*b H W"] = pinned(jnp.int8)  # present or regrowing; 0 none
    ready_at: Int32[Array, "*b H W"] = pinned(jnp.int32)  # visible from this state time
    origin: Int8[Array, "*b H W"] = pinned(jnp.int8)  # biome whose spawn drew its curve
    generation: Int32[Array, "*b H W"] = pinned(jnp.int32)  # that biome's generation then
    position: Int32[Array, "*b 2"] = pinned(jnp.int32)  # (row y, column x)
    time: Int32[Array, "*b"] = pinned(jnp.int32)
    offset: Int32[Array, "*b"] = pinned(jnp.int32)  # reward clock = time + offset
    biome_generation: Int32[Array, "*b B"] = pinned(jnp.int32)
    consumed: Int32[Array, "*b B"] = pinned(jnp.int32)  # this generation's collections
    spawned: Int32[Array, "*b B"] = pinned(jnp.int32)  # objects its last spawn placed
    # Per biome, generation slot and object id: fourier reward curves and the random
    # colours of fourier/sine objects (kept for `generations_kept` generations).
    curves: Float32[Array, "*b B R K2 C"] = pinned(jnp.float32)
    palette: UInt8[Array, "*b B R K2 3"] = pinned(jnp.uint8)
    # Each curve's value at the state's reward clock, refreshed only when a curve's slow
    # clock ticks or a biome regenerates, so a step reads rewards instead of computing them.
    curve_values: Float32[Array, "*b B R K2"] = pinned(jnp.float32)
    # Per cell holding food (present or regrowing): its reward now if constant or fourier,
    # 0 for waves (added per type); -inf for empty cells and walls. Kept so that the
    # centred reward and the hint sum a grid instead of looking up tables per cell.
    food_value: Float32[Array, "*b H W"] = pinned(jnp.float32)
    # With a centred reward: the sum and count of visible food values (waves excluded),
    # kept up to date step by step, and a calendar (by state time modulo `horizon`) of the
    # values that regrow then, so the step never sums the grid.
    food_total: Float32[Array, "*b"] = pinned(jnp.float32)
    food_count: Int32[Array, "*b"] = pinned(jnp.int32)
    calendar_total: Float32[Array, "*b D"] = pinned(jnp.float32)
    calendar_count: Int32[Array, "*b D"] = pinned(jnp.int32)
    key: UInt32[Array, "*b 2"] = pinned(jnp.uint32)
    params: ForageParams

    def visible(self) -> Int8[Array, "*b H W"]:
        """The objects an observer sees now (regrowing cells show as empty)."""
        return jnp.where(self.ready_at <= self.time[..., None, None], self.object, 0)


def invariant_violations(states: ForageState) -> dict[str, Int32[Array, ""]]:
    """For each invariant of the forage state, how many envs of ``states`` break it
    (jittable, for one state or any batch shape)."""
    height, width = states.object.shape[-2:]
    num_ids = states.params.blocking.shape[-1]
    row, col = states.position[..., 0], states.position[..., 1]
    inside = (row >= 0) & (row < height) & (col >= 0) & (col < width)
    flat_cell = (jnp.clip(row, 0, height - 1) * width + jnp.clip(col, 0, width - 1))[..., None]
    under = jnp.take_along_axis(states.visible().reshape(*row.shape, -1), flat_cell, axis=-1)
    on_wall = jnp.take_along_axis(states.params.blocking, under.astype(jnp.int32), axis=-1)[..., 0]
    grid_axes = (-2, -1)
    per_env = {
        "agent outside the world": ~inside,
        "agent on a blocking object": on_wall,
        "object id out of range": jnp.any(
            (states.object < 0) | (states.object >= num_ids), axis=grid_axes
        ),
        "negative time": states.time < 0,
        "non-finite food values": ~jnp.isfinite(states.food_total)
        | jnp.any(jnp.isnan(states.food_value), axis=grid_axes)
        | jnp.any(~jnp.isfinite(states.curve_values), axis=(-3, -2, -1)),
        "negative food count": states.food_count < 0,
    }
    return {name: jnp.sum(flag, dtype=jnp.int32) for name, flag in per_env.items()}


def _object_at(state: ForageState, cell, time) -> Int32[Array, ""]:
    row, col = cell[0], cell[1]
    present = state.ready_at[row, col] <= time
    return jnp.where(present, state.object[row, col], 0).astype(jnp.int32)


def _generation_draws(structure: Structure) -> int:
    """Uniforms per object id that :func:`_draw_generation` needs."""
    return (world.CURVE_DRAWS if structure.fourier else 0) + 3


def _draw_generation(draws, params: ForageParams, structure: Structure):
    """Fourier curves and random colours for every object id of one biome generation,
    from uniforms ``draws[num_ids, _generation_draws(structure)]``."""
    num_ids = structure.num_objects + 2
    width = world.CURVE_DRAWS if structure.fourier else 0
    if structure.fourier:
        curves = jax.vmap(world.draw_curve)(draws[:, :width])
    else:
        curves = jnp.zeros((num_ids, 0), jnp.float32)
    random_colours = jnp.floor(draws[:, width:] * 256.0).astype(jnp.uint8)
    colours = jnp.where(params.regenerated[:, None], random_colours, params.colour)
    return curves, colours


def _reset(key: UInt32[Array, "2"], params: ForageParams, structure: Structure):
    spawn_key, draw_key, offset_key, next_key = jax.random.split(key, 4)
    shape = (structure.height, structure.width)
    biomes = structure.num_biomes

    # Static objects first, largest biome first (smaller biomes overwrite their cells),
    # then time-varying objects on the cells still empty: one scan over both passes.
    def place(carry, step):
        objects, origin = carry
        biome, key, second_pass = step
        inside = world.biome_cells(params, biome, structure)
        free = jnp.where(second_pass, objects == 0, True)
        ids = world.spawn(jax.random.uniform(key, shape), params, biome, free, structure)
        time_varying = params.biome_time_varying[biome]
        write = jnp.where(second_pass, (ids > 0) & time_varying, inside & ~time_varying)
        objects = jnp.where(write, ids, objects)
        origin = jnp.where(write, biome.astype(jnp.int8), origin)
        return (objects, origin), None

    passes = (
        jnp.concatenate([params.biome_order, params.biome_order]),
        jax.random.split(spawn_key, 2 * biomes),
        jnp.arange(2 * biomes) >= biomes,
    )
    empty = jnp.zeros(shape, jnp.int8)
    (objects, origin), _ = jax.lax.scan(place, (empty, empty), passes)
    # The agent starts in the centre; a wall drawn there is removed (Foragax keeps it and
    # starts the agent inside the wall).
    start = (structure.height // 2, structure.width // 2)
    under_agent = objects[start].astype(jnp.int32)
    objects = objects.at[start].set(jnp.where(params.blocking[under_agent], 0, objects[start]))

    num_ids = structure.num_objects + 2
    draws = jax.random.uniform(draw_key, (biomes, num_ids, _generation_draws(structure)))
    curves, palette = jax.vmap(lambda u: _draw_generation(u, params, structure))(draws)
    kept = structure.generations_kept
    spawned = jax.vmap(
        lambda b: jnp.sum(world.biome_cells(params, b, structure) & (objects > 0), dtype=jnp.int32)
    )(jnp.arange(biomes))
    state = ForageState(
        object=objects,
        ready_at=jnp.zeros(shape, jnp.int32),
        origin=origin,
        generation=jnp.zeros(shape, jnp.int32),
        position=jnp.array(start, jnp.int32),
        time=0,
        offset=jnp.floor(
            jax.random.uniform(offset_key) * (params.random_shift + 1).astype(jnp.float32)
        ).astype(jnp.int32),
        biome_generation=jnp.zeros(biomes, jnp.int32),
        consumed=jnp.zeros(biomes, jnp.int32),
        spawned=spawned,
        curves=jnp.repeat(curves[:, None], kept, axis=1),
        palette=jnp.repeat(palette[:, None], kept, axis=1),
        curve_values=jnp.zeros((biomes, kept, structure.num_objects + 2), jnp.float32),
        food_value=jnp.zeros(shape, jnp.float32),
        food_total=0.0,
        food_count=0,
        calendar_total=jnp.zeros(structure.horizon, jnp.float32),
        calendar_count=jnp.zeros(structure.horizon, jnp.int32),
        key=next_key,
        params=params,
    )
    state = _refresh_values(state, jnp.bool_(True), structure)
    return state, _observe(state, structure)


def _curve_values(curves, params: ForageParams, clock) -> Float32[Array, "B R K2"]:
    """Every curve's value at ``clock`` (zeros when the world has no fourier objects)."""
    if curves.shape[-1] == 0:
        return jnp.zeros(curves.shape[:-1], jnp.float32)
    ticks = jnp.broadcast_to(clock // params.repeat, curves.shape[:-1])
    return world.curve_value(curves, ticks)


def _food_values(state: ForageState, curve_values) -> Float32[Array, "H W"]:
    """``ForageState.food_value`` from scratch (see there)."""
    params = state.params
    ids = state.object.astype(jnp.int32)
    values = jnp.where(params.schedule == world.CONSTANT, params.reward, 0.0)[ids]
    slot = state.generation % curve_values.shape[1]
    fourier = curve_values[state.origin.astype(jnp.int32), slot, ids]
    values = jnp.where(params.schedule[ids] == world.FOURIER, fourier, values)
    food = (ids > 0) & ~params.blocking[ids]
    return jnp.where(food, values, -jnp.inf)


def _food_sums(state: ForageState, food_value, horizon: int):
    """``(food_total, food_count, calendar_total, calendar_count)`` from scratch."""
    food = food_value > -jnp.inf
    visible = food & (state.ready_at <= state.time)
    pending = (food & ~visible).reshape(-1)
    slots = (state.ready_at % horizon).reshape(-1)
    values = jnp.where(pending, food_value.reshape(-1), 0.0)
    return (
        world.ordered_sum(jnp.where(visible, food_value, 0.0).reshape(-1)),
        jnp.sum(visible, dtype=jnp.int32),
        jnp.zeros(horizon, jnp.float32).at[slots].add(values),
        jnp.zeros(horizon, jnp.int32).at[slots].add(pending.astype(jnp.int32)),
    )


def _refresh_values(state: ForageState, refresh, structure: Structure) -> ForageState:
    """Recomputes ``curve_values`` and ``food_value`` (and the centred reward's sums) for
    the state's clock if ``refresh``."""

    def recompute(_, state, clock):
        values = _curve_values(state.curves, state.params, clock)
        food_value = _food_values(state, values)
        sums = _food_sums(state, food_value, structure.horizon) if structure.horizon else ()
        return values, food_value, sums

    clock = state.time + state.offset
    sums = (state.food_total, state.food_count, state.calendar_total, state.calendar_count)
    current = (state.curve_values, state.food_value, sums if structure.horizon else ())
    values, food_value, sums = cond_rare(refresh, recompute, current, state, clock)
    state = eqx.tree_at(lambda s: (s.curve_values, s.food_value), state, (values, food_value))
    if structure.horizon:
        state = eqx.tree_at(
            lambda s: (s.food_total, s.food_count, s.calendar_total, s.calendar_count),
            state,
            sums,
        )
    return state


class Removal(NamedTuple):
    """What a removal did, for the centred reward's sums."""

    value: Float32[Array, ""]  # the object's food value, -inf if nothing edible went
    ready: Int32[Array, ""]  # state time from which it is visible again
    returns: Bool[Array, ""]  # it regrows (not removed for good)


def _account(state: ForageState, removal: Removal, horizon: int) -> ForageState:
    """Moves a removed food object's value from the visible sums to its regrowth slot."""
    gone = removal.value > -jnp.inf
    back = gone & removal.returns
    value = jnp.where(gone, removal.value, 0.0)
    slot = removal.ready % horizon
    return eqx.tree_at(
        lambda s: (s.food_total, s.food_count, s.calendar_total, s.calendar_count),
        state,
        (
            state.food_total - value,
            state.food_count - gone.astype(jnp.int32),
            state.calendar_total.at[slot].add(jnp.where(back, value, 0.0)),
            state.calendar_count.at[slot].add(back.astype(jnp.int32)),
        ),
    )


def _advance_calendar(state: ForageState, horizon: int) -> ForageState:
    """Adds the food that becomes visible at the state's (new) time to the sums."""
    slot = state.time % horizon
    return eqx.tree_at(
        lambda s: (s.food_total, s.food_count, s.calendar_total, s.calendar_count),
        state,
        (
            state.food_total + state.calendar_total[slot],
            state.food_count + state.calendar_count[slot],
            state.calendar_total.at[slot].set(0.0),
            state.calendar_count.at[slot].set(0),
        ),
    )


def _wave_values(state: ForageState, clock, structure: Structure) -> Float32[Array, "H W"]:
    """Per cell: the current reward of a visible sine, square or weather object, else 0.
    (Their rewards change every step, so ``food_value`` holds 0 for them.)"""
    params = state.params
    waves = world.type_rewards(params, clock, structure)
    is_wave = (params.schedule >= world.SINE) & ~params.blocking
    visible = state.visible().astype(jnp.int32)
    return jnp.where(is_wave, waves, 0.0)[visible]


def reward_map(state: ForageState, clock, structure: Structure):
    """Per cell: the reward collecting its visible object would pay at ``clock``, the
    state's reward clock (uncentred), and whether it is food (a visible, non-blocking
    object)."""
    food = (state.ready_at <= state.time) & (state.food_value > -jnp.inf)
    values = jnp.where(food, state.food_value, 0.0)
    if structure.waves:
        values = values + _wave_values(state, clock, structure)
    return values, food


def _mean_food_reward(state: ForageState, clock, structure: Structure) -> Float32[Array, ""]:
    total, count = state.food_total, state.food_count
    if structure.waves:  # waves change every step: their part is summed from the grid
        total = total + world.ordered_sum(_wave_values(state, clock, structure).reshape(-1))
    return total / jnp.maximum(count, 1).astype(jnp.float32)


def _region_means(state: ForageState, clock, structure: Structure) -> Float32[Array, " R"]:
    """Mean food reward per region: the food biomes in order, then the rest (the void)."""
    values, food = reward_map(state, clock, structure)
    regions = jax.nn.one_hot(state.params.region_map, structure.num_food_biomes + 1, dtype=bool)
    in_region = regions & food[..., None]
    per_cell = jnp.where(in_region, values[..., None], 0.0)
    totals = world.ordered_sum(per_cell.reshape(-1, per_cell.shape[-1]).T)
    counts = jnp.sum(in_region, axis=(0, 1), dtype=jnp.int32)
    return totals / jnp.maximum(counts, 1).astype(jnp.float32)


class Cells(NamedTuple):
    """The per-cell grids that collection, regrowth and expiry write."""

    object: Int8[Array, "H W"]
    ready_at: Int32[Array, "H W"]
    origin: Int8[Array, "H W"]
    generation: Int32[Array, "H W"]
    food_value: Float32[Array, "H W"]


def _cells(state: ForageState) -> Cells:
    return Cells(state.object, state.ready_at, state.origin, state.generation, state.food_value)


def _with_cells(state: ForageState, cells: Cells) -> ForageState:
    return eqx.tree_at(lambda s: tuple(_cells(s)), state, tuple(cells))


RESPAWN_TRIES = 16  # all miss with probability 0.6**16 ~ 3e-4 when 40 % of cells are free


RANDOM_PER_REMOVAL = world.DELAY_DRAWS + 2 * RESPAWN_TRIES + 1


def _respawn_target(cells: Cells, params: ForageParams, cell, draws) -> Int32[Array, ""]:
    """A uniformly random empty cell (flat index) of the biome of ``cell``, which counts as
    empty: a few random cells of the biome's rectangle are tried first, and only when
    none fits (rare) is every cell of the world searched. Both are uniform over the
    candidates, so the mixture is too."""
    row, col = cell[0], cell[1]
    biome = params.biome_map[row, col]
    height, width = cells.object.shape
    bounds = jnp.where(
        biome >= 0, params.biome_bounds[jnp.maximum(biome, 0)], jnp.array([0, 0, width, height])
    )
    low = jnp.stack([bounds[1], bounds[0]])
    high = jnp.stack([bounds[3], bounds[2]])
    # One float per coordinate (randint spends two words per draw): uniform to 1 in 2**23.
    spans = (high - low).astype(jnp.float32)[None]
    tries = draws[: 2 * RESPAWN_TRIES].reshape(RESPAWN_TRIES, 2)
    picks = low[None] + jnp.floor(tries * spans).astype(jnp.int32)
    source = jnp.all(picks == cell[None], axis=-1)
    empty = (cells.object[picks[:, 0], picks[:, 1]] == 0) | source
    fits = empty & (params.biome_map[picks[:, 0], picks[:, 1]] == biome)
    first = picks[jnp.argmax(fits)]
    tried = first[0] * width + first[1]

    def search(_, object, biome_map, cell, u):
        emptied = object.at[cell[0], cell[1]].set(0)
        return world.choose_cell(u, (emptied == 0) & (biome_map == biome_map[cell[0], cell[1]]))

    args = (cells.object, params.biome_map, cell, draws[2 * RESPAWN_TRIES])
    return cond_rare(~jnp.any(fits), search, tried, *args)


def _remove(
    cells: Cells, params: ForageParams, removes, cell, obj, rule, draws, time, horizon: int
) -> tuple[Cells, Removal]:
    """If ``removes``, takes the object at ``cell`` away; it regrows after a delay drawn
    from ``rule``, in place or (random respawn) in a random empty cell of its biome
    (``cell`` itself included). ``draws``: ``RANDOM_PER_REMOVAL`` uniforms.

    Every grid is written once, with one scatter of at most two cells (the source and
    the target): under ``vmap`` each scatter is a pass over the whole batch of grids.
    """
    delay, permanent = world.draw_delay(draws[: world.DELAY_DRAWS], rule)
    if horizon:  # the regrowth calendar holds delays up to horizon - 3
        delay = jnp.minimum(delay, horizon - 3)
    ready = time + delay + 2  # visible again in the state after step time + delay + 1
    moves = removes & params.random_respawn[obj] & ~permanent
    with jax.named_scope("respawn"):
        target = _respawn_target(cells, params, cell, draws[world.DELAY_DRAWS :])
    width = cells.object.shape[1]
    # Without a move the target is the source cell, so both writes say the same.
    target = jnp.where(moves, target, cell[0] * width + cell[1])
    rows = jnp.stack([cell[0], target // width])
    cols = jnp.stack([cell[1], target % width])
    same = target == cell[0] * width + cell[1]

    def write(grid, source_value, target_value):
        # On one cell the target's value wins (the object regrows where it was).
        source_value = jnp.where(same, target_value, source_value)
        values = jnp.stack([source_value, target_value]).astype(grid.dtype)
        return grid.at[rows, cols].set(values)

    here = cells.object[cell[0], cell[1]]
    regrows = jnp.where(permanent, 0, obj).astype(jnp.int8)
    value = jnp.where(removes, cells.food_value[cell[0], cell[1]], -jnp.inf)
    removal = Removal(value, ready, ~permanent)
    return Cells(
        write(cells.object, jnp.where(moves, 0, here), jnp.where(removes, regrows, here)),
        write(
            cells.ready_at,
            cells.ready_at[cell[0], cell[1]],
            jnp.where(removes, ready, cells.ready_at[target // width, target % width]),
        ),
        write(cells.origin, cells.origin[cell[0], cell[1]], cells.origin[cell[0], cell[1]]),
        write(
            cells.generation,
            cells.generation[cell[0], cell[1]],
            cells.generation[cell[0], cell[1]],
        ),
        write(
            cells.food_value,
            jnp.where(moves, -jnp.inf, cells.food_value[cell[0], cell[1]]),
            jnp.where(permanent & removes, -jnp.inf, cells.food_value[cell[0], cell[1]]),
        ),
    ), removal


def _expire_one(
    cells: Cells, params: ForageParams, time, draws, structure: Structure
) -> tuple[Cells, Removal]:
    """Removes the most overdue expired object (ties: the highest row-major index), as a
    collection without reward; at most one per step."""
    present = (cells.ready_at <= time + 1) & (cells.object > 0)
    ids = cells.object.astype(jnp.int32)
    born = jnp.maximum(cells.ready_at - 1, 0)
    overdue = (time - born) - params.expiry_time[ids]
    eligible = present & (params.expiry_time[ids] < _INT32_MAX) & (overdue >= 0)
    worst = jnp.max(jnp.where(eligible, overdue, -1))
    chosen = (eligible & (overdue == worst)).reshape(-1)[::-1]
    flat = chosen.size - 1 - jnp.argmax(chosen)
    cell = jnp.stack([flat // structure.width, flat % structure.width]).astype(jnp.int32)
    obj = ids.reshape(-1)[flat]
    rule = params.expiry_regen[obj]
    return _remove(cells, params, worst >= 0, cell, obj, rule, draws, time, structure.horizon)


def _regenerate(state: ForageState, crossing, time, key, structure: Structure) -> ForageState:
    """Every biome in ``crossing`` starts a new generation: old fourier/sine objects in its
    rectangle survive with probability ``1 - spawn_empty``, new ones (with new curves and
    colours) spawn on cells without a static object, and pending regrowth is cancelled."""
    params = state.params
    kept = structure.generations_kept
    visible_now = state.ready_at <= time + 1

    def regenerate(state: ForageState, step) -> tuple[ForageState, None]:
        biome, key = step
        cells = structure.height * structure.width
        per_id = (structure.num_objects + 2, _generation_draws(structure))
        draws = jax.random.uniform(key, (2 * cells + per_id[0] * per_id[1],))
        grids = draws[: 2 * cells].reshape(2, structure.height, structure.width)
        generation_draws = draws[2 * cells :].reshape(per_id)
        inside = world.biome_cells(params, biome, structure)
        ids = state.object.astype(jnp.int32)
        present = visible_now & (ids > 0)
        regenerated = params.regenerated[ids]
        static = inside & present & ~regenerated
        survives = grids[0] >= params.spawn_empty
        keep = (inside & present & regenerated & survives) | static
        new = world.spawn(grids[1], params, biome, inside & ~static, structure).astype(jnp.int32)
        new = jnp.where(params.regenerated[new], new, 0)
        generation = state.biome_generation[biome] + 1
        # Objects of this biome from `kept` generations ago lose their curve slot.
        stale = (state.origin.astype(jnp.int32) == biome) & (state.generation <= generation - kept)
        placed = new > 0
        objects = jnp.where(inside, jnp.where(placed, new, jnp.where(keep, ids, 0)), ids)
        objects = jnp.where(stale & ~placed, 0, objects)
        curves, palette = _draw_generation(generation_draws, params, structure)
        slot = generation % kept
        updated = eqx.tree_at(
            lambda s: (
                s.object,
                s.ready_at,
                s.origin,
                s.generation,
                s.biome_generation,
                s.consumed,
                s.spawned,
                s.curves,
                s.palette,
            ),
            state,
            (
                objects.astype(jnp.int8),
                jnp.where(placed, time + 1, state.ready_at),
                jnp.where(placed, biome.astype(jnp.int8), state.origin),
                jnp.where(placed, generation, state.generation),
                state.biome_generation.at[biome].set(generation),
                state.consumed.at[biome].set(0),
                state.spawned.at[biome].set(jnp.sum(placed, dtype=jnp.int32)),
                state.curves.at[biome, slot].set(curves),
                state.palette.at[biome, slot].set(palette),
            ),
        )
        go = crossing[biome]
        return jax.tree.map(lambda new, old: jnp.where(go, new, old), updated, state), None

    steps = (jnp.arange(structure.num_biomes), jax.random.split(key, structure.num_biomes))
    return jax.lax.scan(regenerate, state, steps)[0]


def _step(state: ForageState, action, structure: Structure):
    params = state.params
    time = state.time
    clock = time + state.offset
    with jax.named_scope("random"):
        # Every random number of a step from one fused threefry kernel.
        removals = 2 if structure.expiry else 1  # a collection, and an expiry if any
        (key, biome_key), draws = split_uniform(state.key, 2, removals * RANDOM_PER_REMOVAL)
        draws = draws.reshape(removals, RANDOM_PER_REMOVAL)
    action = jnp.asarray(action, jnp.int32)

    with jax.named_scope("move"):
        move = jnp.asarray(MOVES, jnp.int32)[jnp.clip(action, 0, NUM_ACTIONS - 1)]
        target = state.position + move
        size = jnp.array([structure.height, structure.width], jnp.int32)
        if structure.wrap:
            target = jnp.mod(target, size)
            outside = jnp.bool_(False)
        else:
            outside = jnp.any((target < 0) | (target >= size))
            target = jnp.clip(target, 0, size - 1)
        blocked = outside | params.blocking[_object_at(state, target, time)]
        position = jnp.where(blocked, state.position, target)

    with jax.named_scope("collect"):
        obj = _object_at(state, position, time)
        collects = (obj > 0) & params.collectable[obj]
        row, col = position[0], position[1]
        value = world.type_rewards(params, clock, structure)[obj]
        if structure.fourier:
            slot = state.generation[row, col] % structure.generations_kept
            fourier = state.curve_values[state.origin[row, col], slot, obj]
            value = jnp.where(params.schedule[obj] == world.FOURIER, fourier, value)
        if structure.center_reward:
            with jax.named_scope("center"):
                value = value - _mean_food_reward(state, clock, structure)
        reward = jnp.where(collects, value, 0.0).astype(jnp.float32)

    biome = params.biome_map[row, col].astype(jnp.int32)
    if structure.dynamic_biomes:
        current = state.generation[row, col] == state.biome_generation[jnp.maximum(biome, 0)]
        counts = collects & (biome >= 0) & current
        state = eqx.tree_at(
            lambda s: s.consumed,
            state,
            state.consumed.at[jnp.maximum(biome, 0)].add(counts.astype(jnp.int32)),
        )

    with jax.named_scope("regrow"):
        state = eqx.tree_at(lambda s: s.position, state, position)
        cells, removals = _remove(
            _cells(state),
            params,
            collects,
            position,
            obj,
            params.regen[obj],
            draws[0],
            time,
            structure.horizon,
        )
        removals = [removals]
        if structure.expiry:
            with jax.named_scope("expire"):
                cells, expired = _expire_one(cells, params, time, draws[1], structure)
                removals.append(expired)
        state = _with_cells(state, cells)
        if structure.horizon:
            for removal in removals:
                state = _account(state, removal, structure.horizon)

    regenerated = jnp.bool_(False)
    if structure.dynamic_biomes:
        with jax.named_scope("biomes"):
            consumed = state.consumed.astype(jnp.float32)
            spawned = jnp.maximum(state.spawned, 1).astype(jnp.float32)
            measure = jnp.where(params.threshold_is_fraction, consumed / spawned, consumed)
            crossing = measure >= params.threshold
            regenerated = jnp.any(crossing)
            state = cond_rare(
                jnp.any(crossing),
                lambda s, *args: _regenerate(s, *args, structure),
                state,
                crossing,
                time,
                biome_key,
            )

    state = eqx.tree_at(lambda s: (s.time, s.key), state, (time + 1, key))
    if structure.horizon:
        state = _advance_calendar(state, structure.horizon)
    if structure.fourier:
        fourier = params.schedule == world.FOURIER
        ticks = fourier & (((clock + 1) // params.repeat) != (clock // params.repeat))
        state = _refresh_values(state, jnp.any(ticks) | regenerated, structure)
    done = (
        jnp.bool_(False)
        if structure.episode_length is None
        else state.time >= structure.episode_length
    )
    info = {"collected": jnp.where(collects, obj, -1), "biome": biome}
    with jax.named_scope("observe"):
        obs = _observe(state, structure)
    return state, obs, reward, done, info


def _window(state: ForageState, structure: Structure) -> Int32[Array, "h w"]:
    """Object ids the agent sees in its aperture (padding beyond a walled edge)."""
    height, width = structure.aperture
    rows = state.position[0] - height // 2 + jnp.arange(height)
    cols = state.position[1] - width // 2 + jnp.arange(width)
    if structure.wrap:
        rows, cols = rows % structure.height, cols % structure.width
        outside = jnp.zeros((height, width), bool)
    else:
        outside = ((rows < 0) | (rows >= structure.height))[:, None] | (
            (cols < 0) | (cols >= structure.width)
        )[None, :]
        rows = jnp.clip(rows, 0, structure.height - 1)
        cols = jnp.clip(cols, 0, structure.width - 1)
    ids = jnp.where(
        state.ready_at[rows[:, None], cols[None, :]] <= state.time,
        state.object[rows[:, None], cols[None, :]],
        0,
    ).astype(jnp.int32)
    return jnp.where(outside, structure.padding_id, ids), (rows, cols)


def _rgb(state: ForageState, ids, cells, structure: Structure) -> Float32[Array, "h w 3"]:
    rows, cols = cells
    params = state.params
    slot = state.generation[rows, cols] % structure.generations_kept
    drawn = state.palette[state.origin[rows, cols].astype(jnp.int32), slot, ids]
    colours = jnp.where(params.regenerated[ids][..., None], drawn, params.colour[ids])
    return colours.astype(jnp.float32) / 255.0


def observe(state: ForageState, config: ForageConfig):
    """The observation of a state (or a batch), as ``reset`` and ``step`` return it
    (docs/forage.md)."""
    structure = config.structure()
    if state.time.ndim:
        return jax.vmap(lambda s: _observe(s, structure))(state)
    return _observe(state, structure)


def _observe(state: ForageState, structure: Structure):
    params = state.params
    if structure.aperture is not None:
        ids, (rows, cols) = _window(state, structure)
        cells = (rows[:, None], cols[None, :])
    else:
        ids = state.visible().astype(jnp.int32)
        rows, cols = world.cell_grid(structure)
        cells = (rows, cols)
    if structure.observation == "object":
        if structure.aperture is not None:
            channels = structure.num_objects + 1 + int(structure.padding)
            image = jax.nn.one_hot(ids, channels, dtype=jnp.float32)
        else:
            objects = jax.nn.one_hot(ids - 1, structure.num_objects, dtype=jnp.float32)
            agent = (rows == state.position[0]) & (cols == state.position[1])
            image = jnp.concatenate([objects, agent[..., None].astype(jnp.float32)], axis=-1)
    elif structure.observation == "color":
        image = jax.nn.one_hot(params.colour_channel[ids], structure.num_colours, dtype=jnp.float32)
    else:
        image = _rgb(state, jnp.minimum(ids, structure.num_objects + 1), cells, structure)
    if not structure.hint:
        return image
    with jax.named_scope("hint"):
        return {"image": image, "hint": _hint(state, structure)}


def _hint(state: ForageState, structure: Structure) -> Float32[Array, " F"]:
    """One-hot of the food biome with the best mean reward, shown for ``hint_duration``
    steps every ``hint_every`` steps (zeros otherwise)."""
    params = state.params
    shown = jnp.mod(state.time, params.hint_every) < params.hint_duration
    clock = state.time + state.offset

    def best(_, state, clock):
        means = _region_means(state, clock, structure)[: structure.num_food_biomes]
        return jax.nn.one_hot(jnp.argmax(means), structure.num_food_biomes, dtype=jnp.float32)

    hidden = jnp.zeros(structure.num_food_biomes, jnp.float32)
    return cond_rare(shown, best, hidden, state, clock)


def diagnostics(state: ForageState, config: ForageConfig) -> dict:
    """How well the agent is placed, computed only when asked (never inside ``step``).

    For a state (or a batch): ``reward_map`` (the reward of every visible object at the
    state's clock, 0 for empty cells and walls), ``region_means`` (mean food reward per
    food biome, then the rest of the world), ``region`` (the agent's), ``best_region``,
    ``regret`` (best mean minus the agent's region's) and ``rank`` (1 = the best region).
    """
    return _diagnostics_jit(state, config.structure())


def _diagnostics(state: ForageState, structure: Structure) -> dict:
    if state.time.ndim:
        return jax.vmap(lambda s: _diagnostics(s, structure))(state)
    clock = state.time + state.offset
    values, _ = reward_map(state, clock, structure)
    means = _region_means(state, clock, structure)
    region = state.params.region_map[state.position[0], state.position[1]].astype(jnp.int32)
    order = jnp.argsort(-means, stable=True)
    return {
        "reward_map": values,
        "region_means": means,
        "region": region,
        "best_region": jnp.argmax(means),
        "regret": jnp.max(means) - means[region],
        "rank": 1 + jnp.argmax(order == region),
    }


_diagnostics_jit = eqx.filter_jit(_diagnostics)
_reset_jit = eqx.filter_jit(_reset)
_step_jit = eqx.filter_jit(_step)
_batch_reset_jit = eqx.filter_jit(jax.vmap(_reset, in_axes=(0, 0, None)))
_batch_step_jit = eqx.filter_jit(jax.vmap(_step, in_axes=(0, 0, None)))


def _params_for(config: ForageConfig, params: ForageParams | None) -> ForageParams:
    if not isinstance(config, ForageConfig):
        raise TypeError(f"config must be a ForageConfig, got {type(config).__name__}")
    if params is None:
        return config.params()
    if not isinstance(params, ForageParams):
        raise TypeError(f"params must be ForageParams or None, got {type(params).__name__}")
    return params


def reset(key, config: ForageConfig, params: ForageParams | None = None):
    """Starts a world: ``reset(key, config, params=None) -> (state, obs)``.

    ``params`` defaults to ``config.params()``; pass another variant's params of the
    same structure to reuse the compilation.
    """
    return _reset_jit(key_data(key), _params_for(config, params), config.structure())


def batch_reset(keys, config: ForageConfig, params: ForageParams | None = None):
    """``reset`` for a batch of keys; ``params`` may be shared or batched (one per env)."""
    keys = batch_key_data(keys)
    params = _params_for(config, params)
    if jax.tree.leaves(params)[0].ndim == jax.tree.leaves(config.params())[0].ndim:
        params = jax.tree.map(lambda x: jnp.broadcast_to(x, (keys.shape[0],) + x.shape), params)
    return _batch_reset_jit(keys, params, config.structure())


def _check_action(action, batch_shape: tuple[int, ...]) -> jax.Array:
    array = jnp.asarray(action)
    if not jnp.issubdtype(array.dtype, jnp.integer) or array.shape != batch_shape:
        raise ValueError(
            f"forage actions are integers 0-3 (DOWN, RIGHT, UP, LEFT) of shape {batch_shape}; "
            f"got dtype {array.dtype} and shape {array.shape}"
        )
    return array.astype(jnp.int32)


@functools.cache
def _state_leaf_types(config: ForageConfig) -> tuple:
    """``(path, shape, dtype)`` of every leaf of one env's state under ``config``."""
    state, _ = jax.eval_shape(
        lambda key: _reset(key, config.params(), config.structure()),
        jax.ShapeDtypeStruct((2,), jnp.uint32),
    )
    return tuple(
        (jax.tree_util.keystr(path), leaf.shape, leaf.dtype)
        for path, leaf in jax.tree_util.tree_leaves_with_path(state)
    )


def _check_state(state, config: ForageConfig, batched: bool) -> tuple[int, ...]:
    """The batch shape of ``state``, after checking that it was made under ``config``: a
    state of another config would fail deep inside the step, or worse, run."""
    if not isinstance(config, ForageConfig):
        raise TypeError(f"config must be a ForageConfig, got {type(config).__name__}")
    if not isinstance(state, ForageState):
        raise TypeError(f"state must be a ForageState, got {type(state).__name__}")
    batch_shape = tuple(state.time.shape)
    if batched and len(batch_shape) != 1:
        raise ValueError(
            f"batch_step needs a batch of states (one leading axis), got {batch_shape}"
        )
    if not batched and batch_shape:
        raise ValueError(
            f"step takes one state, got a batch of shape {batch_shape}; use batch_step for batches"
        )
    expected, leaves = _state_leaf_types(config), jax.tree.leaves(state)
    if len(leaves) != len(expected):
        raise ValueError(f"the state has {len(leaves)} leaves; a ForageState has {len(expected)}")
    for (path, shape, dtype), leaf in zip(expected, leaves, strict=True):
        if tuple(leaf.shape) != batch_shape + shape or leaf.dtype != dtype:
            raise ValueError(
                f"the state does not fit this ForageConfig: state{path} has shape "
                f"{tuple(leaf.shape)} and dtype {leaf.dtype}, the config makes "
                f"{batch_shape + shape} and {dtype}; was the state made with another "
                "config or env id?"
            )
    return batch_shape


def step(state: ForageState, action, config: ForageConfig):
    """``step(state, action, config) -> (state, obs, reward, done, info)``.

    ``action`` is 0-3 (DOWN, RIGHT, UP, LEFT); an id outside 0-3 is clipped. ``done``
    is false in a continuing world. ``info``: ``collected`` (object id, -1 for none) and
    ``biome`` (the agent's biome, -1 for none).
    """
    _check_state(state, config, batched=False)
    return _step_jit(state, _check_action(action, ()), config.structure())


def batch_step(states: ForageState, actions, config: ForageConfig):
    """``step`` over a batch: states and actions carry a leading batch axis."""
    shape = _check_state(states, config, batched=True)
    return _batch_step_jit(states, _check_action(actions, shape), config.structure())
