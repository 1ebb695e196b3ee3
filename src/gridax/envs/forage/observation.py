"""What the agent sees: its aperture (or the world) as object, colour or RGB channels,
and, with a hint, which food biome pays best now (docs/forage.md).

:func:`window` and :func:`colours` are public: ``render.py`` draws with them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32, Int32

from gridax.batching import cond_rare
from gridax.envs.forage.arithmetic import cell_grid
from gridax.envs.forage.reward import region_means
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import ForageState

Cells = tuple[Int32[Array, "h 1"], Int32[Array, "1 w"]]


def window(state: ForageState, structure: Structure) -> tuple[Int32[Array, "h w"], Cells]:
    """Object ids the agent sees in its aperture (padding beyond a walled edge), and the
    world cells (rows, columns) they come from."""
    height, width = structure.aperture_size
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
    rows, cols = rows[:, None], cols[None, :]
    cells = state.cells
    ids = jnp.where(cells.ready_at[rows, cols] <= state.time, cells.object[rows, cols], 0)
    return jnp.where(outside, structure.padding_id, ids.astype(jnp.int32)), (rows, cols)


def colours(state: ForageState, ids, cells, structure: Structure) -> Float32[Array, "h w 3"]:
    """The RGB colour in [0, 1] of objects ``ids`` in world ``cells``: fourier and sine
    objects take their generation's random colour."""
    rows, cols = cells
    params = state.params
    slot = state.cells.generation[rows, cols] % structure.generations_kept
    drawn = state.biomes.palette[state.cells.origin[rows, cols].astype(jnp.int32), slot, ids]
    rgb = jnp.where(params.regenerated[ids][..., None], drawn, params.colour[ids])
    return rgb.astype(jnp.float32) / 255.0


def observe(state: ForageState, structure: Structure):
    """One env's observation (an image, or ``{"image", "hint"}`` with a hint)."""
    params = state.params
    if structure.aperture is not None:
        ids, cells = window(state, structure)
    else:
        ids = state.visible().astype(jnp.int32)
        cells = cell_grid(structure.height, structure.width)
    if structure.observation == "object":
        if structure.aperture is not None:
            channels = structure.num_objects + 1 + int(structure.padding)
            image = jax.nn.one_hot(ids, channels, dtype=jnp.float32)
        else:
            rows, cols = cells
            objects = jax.nn.one_hot(ids - 1, structure.num_objects, dtype=jnp.float32)
            agent = (rows == state.position[0]) & (cols == state.position[1])
            image = jnp.concatenate([objects, agent[..., None].astype(jnp.float32)], axis=-1)
    elif structure.observation == "color":
        image = jax.nn.one_hot(params.colour_channel[ids], structure.num_colours, dtype=jnp.float32)
    else:
        image = colours(state, jnp.minimum(ids, structure.num_objects + 1), cells, structure)
    if not structure.hint:
        return image
    with jax.named_scope("hint"):
        return {"image": image, "hint": hint(state, structure)}


def hint(state: ForageState, structure: Structure) -> Float32[Array, " F"]:
    """One-hot of the food biome with the best mean reward, shown for ``hint_duration``
    steps every ``hint_every`` steps (zeros otherwise)."""
    params = state.params
    shown = jnp.mod(state.time, params.hint_every) < params.hint_duration

    def best(_, state, clock):
        means = region_means(state, clock, structure)[: structure.num_food_biomes]
        return jax.nn.one_hot(jnp.argmax(means), structure.num_food_biomes, dtype=jnp.float32)

    hidden = jnp.zeros(structure.num_food_biomes, jnp.float32)
    return cond_rare(shown, best, hidden, state, state.clock)
