"""Taking objects away and growing them back: collection, random respawn and expiry.

A regrowth delay is a rule ``(kind, a, b)`` per object id (``ForageParams.regen``, and
``expiry_regen`` after an expiry; the kinds are named in ``kinds.py``):

=========  =======================================================================
never      the object is removed for good
uniform    an integer in ``[a, b)`` (``a`` when ``a == b``)
normal     ``max(0, floor(a + b * N(0, 1)))``
=========  =======================================================================

A removed object is visible again in the state after step time ``t + delay + 1``, in
its own cell or (random respawn) in a random empty cell of its biome.
"""

from __future__ import annotations

from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int8, Int32

from gridax.batching import cond_rare
from gridax.envs.forage.arithmetic import gaussian
from gridax.envs.forage.kinds import NEVER, NORMAL
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import ForageState

DELAY_DRAWS = 3  # uniforms per delay: one for uniform, two for normal (Box-Muller)
RESPAWN_TRIES = 16  # all miss with probability 0.6**16 ~ 3e-4 when 40 % of cells are free
RANDOM_PER_REMOVAL = DELAY_DRAWS + 2 * RESPAWN_TRIES + 1
_INT32_MAX = 2**31 - 1


def draw_delay(u: Float32[Array, "3"], rule: Float32[Array, "3"]):
    """``(delay, permanent)`` from three uniforms and a rule (module docstring)."""
    kind, a, b = rule[0], rule[1], rule[2]
    uniform = jnp.floor(a + u[0] * (b - a))
    normal = jnp.maximum(0.0, jnp.floor(a + b * gaussian(u[1], u[2])))
    delay = jnp.where(kind == NORMAL, normal, uniform).astype(jnp.int32)
    return delay, kind == NEVER


def choose_cell(u: Float32[Array, ""], candidates: Bool[Array, "H W"]) -> Int32[Array, ""]:
    """A uniformly random candidate cell as a flat index, from one uniform (0 when there
    is no candidate)."""
    flat = candidates.reshape(-1)
    count = jnp.sum(flat, dtype=jnp.int32)
    pick = jnp.floor(u * count.astype(jnp.float32)).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(flat, dtype=jnp.int32) > pick).astype(jnp.int32)


class Grids(NamedTuple):
    """The per-cell grids that a removal writes."""

    object: Int8[Array, "H W"]
    ready_at: Int32[Array, "H W"]
    origin: Int8[Array, "H W"]
    generation: Int32[Array, "H W"]
    food_value: Float32[Array, "H W"]


def _grids_of(state: ForageState) -> Grids:
    cells = state.cells
    return Grids(cells.object, cells.ready_at, cells.origin, cells.generation, state.food.value)


def _with_grids(state: ForageState, grids: Grids) -> ForageState:
    return eqx.tree_at(lambda s: tuple(_grids_of(s)), state, tuple(grids))


class Pick(NamedTuple):
    """An object to take away: whether it goes, its cell (row, column), its id and its
    regrowth rule."""

    happens: Bool[Array, ""]
    cell: Int32[Array, " 2"]
    object: Int32[Array, ""]
    rule: Float32[Array, " 3"]


class Removal(NamedTuple):
    """What a removal did, for the centred reward's sums."""

    value: Float32[Array, ""]  # the object's food value, -inf if nothing edible went
    ready: Int32[Array, ""]  # state time from which it is visible again
    returns: Bool[Array, ""]  # it regrows (not removed for good)


def _respawn_target(grids: Grids, params: ForageParams, cell, draws, moves) -> Int32[Array, ""]:
    """A uniformly random empty cell (flat index) of the biome of ``cell``, which counts as
    empty: a few random cells of the biome's rectangle are tried first, and only when
    none fits (rare) is every cell of the world searched. Both are uniform over the
    candidates, so the mixture is too. The search runs only where an object ``moves``:
    batched, it runs for the whole batch, and envs that move nothing (their result is
    unused) often miss, an agent standing in a small, crowded biome."""
    row, col = cell[0], cell[1]
    biome = params.biome_map[row, col]
    height, width = grids.object.shape
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
    empty = (grids.object[picks[:, 0], picks[:, 1]] == 0) | source
    fits = empty & (params.biome_map[picks[:, 0], picks[:, 1]] == biome)
    first = picks[jnp.argmax(fits)]
    tried = first[0] * width + first[1]

    def search(_, object, biome_map, cell, u):
        emptied = object.at[cell[0], cell[1]].set(0)
        return choose_cell(u, (emptied == 0) & (biome_map == biome_map[cell[0], cell[1]]))

    args = (grids.object, params.biome_map, cell, draws[2 * RESPAWN_TRIES])
    return cond_rare(moves & ~jnp.any(fits), search, tried, *args, compact_to=1 / 64)


def remove(
    grids: Grids, params: ForageParams, pick: Pick, draws, time, horizon: int
) -> tuple[Grids, Removal]:
    """If ``pick.happens``, takes the object at ``pick.cell`` away; it regrows after a
    delay drawn from ``pick.rule``, in place or (random respawn) in a random empty cell
    of its biome (``pick.cell`` itself included). ``draws``: ``RANDOM_PER_REMOVAL``
    uniforms. With a centred reward (``horizon`` > 0) delays are cut at ``horizon - 3``,
    the longest the regrowth calendar holds.

    Every grid is written once, with one scatter of at most two cells (the source and
    the target): under ``vmap`` each scatter is a pass over the whole batch of grids.
    """
    removes, cell, obj = pick.happens, pick.cell, pick.object
    delay, permanent = draw_delay(draws[:DELAY_DRAWS], pick.rule)
    if horizon:
        delay = jnp.minimum(delay, horizon - 3)
    ready = time + delay + 2  # visible again in the state after step time + delay + 1
    moves = removes & params.random_respawn[obj] & ~permanent
    with jax.named_scope("respawn"):
        target = _respawn_target(grids, params, cell, draws[DELAY_DRAWS:], moves)
    width = grids.object.shape[1]
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

    def at_source(grid):
        return grid[cell[0], cell[1]]

    here = at_source(grids.object)
    regrows = jnp.where(permanent, 0, obj).astype(jnp.int8)
    value = jnp.where(removes, at_source(grids.food_value), -jnp.inf)
    removal = Removal(value, ready, ~permanent)
    return Grids(
        write(grids.object, jnp.where(moves, 0, here), jnp.where(removes, regrows, here)),
        write(
            grids.ready_at,
            at_source(grids.ready_at),
            jnp.where(removes, ready, grids.ready_at[target // width, target % width]),
        ),
        write(grids.origin, at_source(grids.origin), at_source(grids.origin)),
        write(grids.generation, at_source(grids.generation), at_source(grids.generation)),
        write(
            grids.food_value,
            jnp.where(moves, -jnp.inf, at_source(grids.food_value)),
            jnp.where(permanent & removes, -jnp.inf, at_source(grids.food_value)),
        ),
    ), removal


def expire_one(
    grids: Grids, params: ForageParams, time, draws, structure: Structure
) -> tuple[Grids, Removal]:
    """Removes the most overdue expired object (ties: the highest row-major index), as a
    collection without reward; at most one per step."""
    present = (grids.ready_at <= time + 1) & (grids.object > 0)
    ids = grids.object.astype(jnp.int32)
    born = jnp.maximum(grids.ready_at - 1, 0)
    overdue = (time - born) - params.expiry_time[ids]
    eligible = present & (params.expiry_time[ids] < _INT32_MAX) & (overdue >= 0)
    worst = jnp.max(jnp.where(eligible, overdue, -1))
    chosen = (eligible & (overdue == worst)).reshape(-1)[::-1]
    flat = chosen.size - 1 - jnp.argmax(chosen)
    cell = jnp.stack([flat // structure.width, flat % structure.width]).astype(jnp.int32)
    obj = ids.reshape(-1)[flat]
    pick = Pick(worst >= 0, cell, obj, params.expiry_regen[obj])
    return remove(grids, params, pick, draws, time, structure.horizon)


def regrow(
    state: ForageState, collected: Pick, draws, time, structure: Structure
) -> tuple[ForageState, list[Removal]]:
    """Removes the ``collected`` object and, with expiry, the most overdue one; both
    regrow. ``draws``: a row of ``RANDOM_PER_REMOVAL`` uniforms per removal. Also returns
    the removals, for the centred reward's sums."""
    grids, removal = remove(
        _grids_of(state), state.params, collected, draws[0], time, structure.horizon
    )
    removals = [removal]
    if structure.expiry:
        with jax.named_scope("expire"):
            grids, expired = expire_one(grids, state.params, time, draws[1], structure)
            removals.append(expired)
    return _with_grids(state, grids), removals
