"""The agent's actions and its move: one cell down, right, up or left, unless a wall or a
walled edge blocks it."""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp

from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import ForageState

DOWN, RIGHT, UP, LEFT = range(4)
NUM_ACTIONS = 4
# (row, column) steps of DOWN, RIGHT, UP, LEFT: Foragax's numbering, y grows downwards.
MOVES = ((1, 0), (0, 1), (-1, 0), (0, -1))


def move(state: ForageState, action, structure: Structure) -> ForageState:
    """One cell towards ``action`` (ids outside 0-3 clipped), unless a wall or a walled
    edge blocks it."""
    step = jnp.asarray(MOVES, jnp.int32)[jnp.clip(action, 0, NUM_ACTIONS - 1)]
    target = state.position + step
    size = jnp.array([structure.height, structure.width], jnp.int32)
    if structure.wrap:
        target = jnp.mod(target, size)
        outside = jnp.bool_(False)
    else:
        outside = jnp.any((target < 0) | (target >= size))
        target = jnp.clip(target, 0, size - 1)
    blocked = outside | state.params.blocking[state.object_at(target)]
    return eqx.tree_at(lambda s: s.position, state, jnp.where(blocked, state.position, target))
