"""sk48's arms and blocks (``games/sk48.py`` describes the game): where each segment is,
what blocks a move and which blocks the selected arm's segments push, in the original's
order (its recursive push, as a loop over the segments and a chain of blocks ahead)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3.games.sk48_levels import MAX_ARMS, MAX_BLOCKS, MAX_SEGMENTS, STEP

GROW, SHRINK, SLIDE = 1, 2, 3  # the kinds of move
ARMS, SEGMENTS = np.arange(MAX_ARMS), np.arange(MAX_SEGMENTS)


# --- where things are -----------------------------------------------------------------


def segments(memory):
    """``(x, y, exists)``, each ``[arms, segments]``: every segment, chained from its
    base one step at a time along its arm's way."""
    base, way = memory["base"], memory["way"]
    x = base[:, 0:1] + SEGMENTS[None, :] * STEP * way[:, 0:1]
    y = base[:, 1:2] + SEGMENTS[None, :] * STEP * way[:, 1:2]
    exists = memory["arm_exists"][:, None] & (memory["count"][:, None] > SEGMENTS[None, :])
    return x, y, exists


def _beside(values, points):
    """``values`` with a leading axis per axis of ``points``, to compare each point with
    every value."""
    return jnp.reshape(values, (1,) * jnp.ndim(points) + jnp.shape(values))


def in_boxes(boxes, x, y):
    """Whether each point lies in any box ``(x, y, width, height)`` of ``boxes``."""
    left, top, width, height = (_beside(boxes[:, k], x) for k in range(4))
    x, y = jnp.asarray(x)[..., None], jnp.asarray(y)[..., None]
    return jnp.any((x >= left) & (x < left + width) & (y >= top) & (y < top + height), axis=-1)


def blocked(memory, x, y):
    """A 6-cell sprite at ``(x, y)`` would leave the board or have a wall at its corner."""
    left, top, right, bottom = (memory["board"][k] for k in range(4))
    outside = (x < left) | (x + STEP > right) | (y < top) | (y + STEP > bottom)
    return outside | in_boxes(memory["walls"], x, y)


def _block_at(memory, x, y):
    """``(index, found)`` of the first block at exactly each ``(x, y)``."""
    here = (_beside(memory["block"][:, 0], x) == jnp.asarray(x)[..., None]) & (
        _beside(memory["block"][:, 1], y) == jnp.asarray(y)[..., None]
    )
    return jnp.argmax(here, axis=-1), jnp.any(here, axis=-1)


def _segment_at(memory, x, y, horizontal, skip=None):
    """Whether a segment lying ``horizontal`` (or not) is at exactly each ``(x, y)``,
    ``skip`` (``[arms, segments]``) left out."""
    sx, sy, exists = segments(memory)
    lying = (memory["way"][:, 1] == 0)[:, None] == horizontal
    candidates = exists & lying if skip is None else exists & lying & ~skip
    here = (_beside(sx, x) == jnp.asarray(x)[..., None, None]) & (
        _beside(sy, y) == jnp.asarray(y)[..., None, None]
    )
    return jnp.any(_beside(candidates, x) & here, axis=(-2, -1))


# --- a move ---------------------------------------------------------------------------


def _push_chain(memory, first, pusher, step, visited):
    """The original's recursive push of block ``first`` by segment ``pusher`` (a mask)
    one ``step``: ``(moves, chain, shadowed)``. The chain is the blocks in a row from
    ``first`` up to a gap or a block already moving; it moves, whole, unless one of them
    would leave the board or enter a wall, or lies on or would move onto a segment
    across the move (the pusher aside, for the first)."""
    k = jnp.arange(MAX_BLOCKS)
    x = memory["block"][first, 0] + k * step[0]
    y = memory["block"][first, 1] + k * step[1]
    index, found = _block_at(memory, x, y)
    stops = ~found | visited[index]
    length = jnp.where(jnp.any(stops), jnp.argmax(stops), MAX_BLOCKS)
    chain = k < length
    along = step[0] != 0  # a segment lies along the move if horizontal as the move is
    across = [
        jnp.where(
            k == 0, _segment_at(memory, x, y, ~along, pusher), _segment_at(memory, x, y, ~along)
        ),
        jnp.where(
            k == 0,
            _segment_at(memory, x + step[0], y + step[1], ~along, pusher),
            _segment_at(memory, x + step[0], y + step[1], ~along),
        ),
    ]
    fails = blocked(memory, x + step[0], y + step[1]) | across[0] | across[1]
    moves = ~jnp.any(chain & fails)
    onto = ~_segment_at(memory, x, y, along) & _segment_at(memory, x + step[0], y + step[1], along)
    members = jnp.zeros(MAX_BLOCKS, bool).at[index].max(chain)
    shadowed = jnp.zeros(MAX_BLOCKS, bool).at[index].max(chain & onto)
    return moves, members, shadowed


def pushes(memory, kind, step):
    """The selected arm's segments, in order, push the blocks on them and one step
    ahead: ``(moved, shadowed, stopped)`` (blocks; whether a slide stopped)."""
    arm = memory["selected"]
    way = memory["way"][arm]
    base = memory["base"][arm]

    def segment_and_offset(t, carry):
        visited, shadowed, stopped = carry
        index = t // 2 + jnp.where(kind == SHRINK, 1, 0)  # a shrinking arm lost its first
        ahead = t % 2
        x = base[0] + index * STEP * way[0]
        y = base[1] + index * STEP * way[1]
        live = (index < memory["count"][arm]) & ~stopped
        # A segment that would leave the board (or meet a wall) stops a slide, unless it
        # is off the board now; growing and shrinking segments never are stopped.
        stuck = blocked(memory, x + step[0], y + step[1]) & ~blocked(memory, x, y)
        stuck = (ahead == 0) & stuck & (kind == SLIDE)
        stopped = stopped | (live & stuck)
        live = live & ~stuck
        pusher = (arm == ARMS)[:, None] & (index == SEGMENTS)[None, :]
        block, found = _block_at(memory, x + ahead * step[0], y + ahead * step[1])
        pushing = live & found & ~visited[block]
        moves, chain, onto = _push_chain(memory, block, pusher, step, visited)
        visited = visited | (pushing & moves & chain)
        shadowed = shadowed | (pushing & moves & onto)
        held = pushing & ~moves
        stopped = stopped | (held & (kind == SLIDE))
        bare = ~_segment_at(
            memory, memory["block"][block, 0], memory["block"][block, 1], step[0] != 0
        )
        shadowed = shadowed.at[block].max(held & (kind != SLIDE) & bare)
        return visited, shadowed, stopped

    none = jnp.zeros(MAX_BLOCKS, bool)
    # Only the arm's segments push (a batch loops as long as its longest arm).
    pushing = jnp.clip(memory["count"][arm] - jnp.where(kind == SHRINK, 1, 0), 0, MAX_SEGMENTS)
    return jax.lax.fori_loop(0, 2 * pushing, segment_and_offset, (none, none, jnp.bool_(False)))


def blocks_on_arms(memory):
    """``(colour, count, on_any)``: the colours of the blocks on each arm's segments in
    order from its base, compacted (``[arms, segments]``), how many, and which blocks
    lie on any arm."""
    sx, sy, exists = segments(memory)
    on = (
        exists[..., None]
        & (memory["block"][None, None, :, 0] == sx[..., None])
        & (memory["block"][None, None, :, 1] == sy[..., None])
    )
    has = jnp.any(on, axis=-1)
    colour = memory["block_colour"][jnp.argmax(on, axis=-1)]
    rank = jnp.cumsum(has, axis=1) - 1
    placed = has[..., None] & (rank[..., None] == SEGMENTS[None, None, :])  # [arm, segment, k]
    compact = jnp.sum(jnp.where(placed, colour[..., None], 0), axis=1)
    return compact, jnp.sum(has, axis=1), jnp.any(on, axis=(0, 1))
