"""ka59's shoves (``games/ka59.py``): what a sprite touches, and the original's shove of
a sprite, which shoves what it touches in turn, depth first."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.ka59_levels import (
    GRID,
    GRID_CORNER,
    GULCH_CELLS,
    REACH,
    SHAPES,
    WALL_CELLS,
)
from gridax.envs.arc3.rules import Game


def shape(state, slot):
    """Shovable sprite ``slot``'s solid cells as world boxes (``[..., 2, 4]``): its
    level's ``SHAPES`` where it stands."""
    table = state.table
    slot = jnp.maximum(slot, 0)
    return rules.boxes_at(jnp.asarray(SHAPES)[state.level, slot], table.x[slot], table.y[slot])


def shoves_into(state, slot, among):
    """``[k]``: which of the shovable sprites ``among`` (``[k]``, -1 for none) sprite
    ``slot`` collides with where it stands (their boxes, not their pixels: the same
    for sprites that keep their shape)."""
    exists = state.table.exists
    meet = rules.boxes_meet(shape(state, slot)[None], shape(state, among))
    real = (among >= 0) & (among != slot) & exists[jnp.maximum(among, 0)]
    return meet & real & exists[jnp.maximum(slot, 0)]


def touches(state, slot, among, game: Game):
    """Sprite ``slot`` (at most :data:`REACH` cells) collides with any of ``among``."""
    return jnp.any(rules.collisions(state, jnp.maximum(slot, 0), game, REACH, among))


def meets(state, slot, cells):
    """Sprite ``slot`` (at most :data:`REACH` cells) has a pixel that collides on a solid
    cell of ``cells`` (``WALL_CELLS``, ``GULCH_CELLS``: a grid per level of sprites that
    never move, read at the sprite's cells, not each such sprite sampled there)."""
    table = state.table
    slot = jnp.maximum(slot, 0)
    x = table.x[slot] + jnp.arange(REACH)[None, :]
    y = table.y[slot] + jnp.arange(REACH)[:, None]
    own = rules.in_boxes(x, y, shape(state, slot))
    column, row = x - GRID_CORNER, y - GRID_CORNER
    inside = (column >= 0) & (column < GRID) & (row >= 0) & (row < GRID)
    last = GRID - 1
    solid = jnp.asarray(cells)[state.level, jnp.clip(row, 0, last), jnp.clip(column, 0, last)]
    return jnp.any(own & inside & solid)


def _shove(state, root, heading, game: Game):
    """The original's shove of sprite ``root`` by ``heading`` (``(dx, dy)``): it moves,
    unless it then touches a wall; every shovable sprite it touches there is shoved in
    turn (in sprite order, depth first); where one of them is stopped, every sprite
    whose shove is still in progress goes back (those whose shoves ended stay moved).
    ``(state, stopped)``."""
    shovable = state.memory["shovable"]
    depth_most = shovable.shape[0] + 1
    dx, dy = heading[0], heading[1]
    root = jnp.maximum(root, 0)
    state = rules.move(state, root, dx, dy)
    stopped = meets(state, root, WALL_CELLS)
    state = rules.move(state, root, -dx, -dy, stopped)
    stack = jnp.full(depth_most + 1, -1, jnp.int32).at[0].set(root)
    touching = shoves_into(state, root, shovable) & ~stopped
    waiting = jnp.zeros((depth_most + 1, shovable.shape[0]), bool).at[0].set(touching)

    def going(carry):
        depth, count = carry[3], carry[5]
        return (depth > 0) & (count < 4 * depth_most)

    def one(carry):
        state, stack, waiting, depth, stopped, count = carry
        top = depth - 1
        more = jnp.any(waiting[top])
        k = jnp.argmax(waiting[top])
        waiting = waiting.at[top, k].set(False)
        other = jnp.maximum(shovable[k], 0)
        state = rules.move(state, other, dx, dy, more)
        blocked = more & meets(state, other, WALL_CELLS)
        state = rules.move(state, other, -dx, -dy, blocked)
        in_progress = rules.mask_of(state, stack, jnp.arange(stack.shape[0]) < depth)
        state = rules.move(state, in_progress, -dx, -dy, blocked)
        entering = more & ~blocked
        stack = stack.at[depth].set(jnp.where(entering, other, stack[depth]), mode="drop")
        touched = shoves_into(state, other, shovable)
        waiting = waiting.at[depth].set(jnp.where(entering, touched, waiting[depth]), mode="drop")
        depth = jnp.where(blocked, 0, jnp.where(more, depth + 1, depth - 1))
        return state, stack, waiting, depth, stopped | blocked, count + 1

    depth = jnp.where(jnp.any(touching), 1, 0)  # (touching nothing, the shove is done)
    carry = (state, stack, waiting, depth, stopped, jnp.int32(0))
    state, _, _, _, stopped, _ = jax.lax.while_loop(going, one, carry)
    return state, stopped


def shove_where(state, slot, heading, game: Game, when):
    shoved, stopped = _shove(state, slot, heading, game)
    return rules.where(when, shoved, state), when & stopped


def on_gulch(state, slot):
    return meets(state, slot, GULCH_CELLS)


def remember_heading(state, shoved, heading, when):
    """The sprites ``shoved`` (a mask over the slots) remembered as shoved ``heading``:
    their way at an explosion's end (the original's dict of each sprite's last shove)."""
    m = state.memory
    state = rules.set_memory(
        state, "heading", jnp.where(shoved[:, None], heading, m["heading"]), when
    )
    return rules.set_memory(state, "shoved", m["shoved"] | shoved, when)
