"""ACTION7 (undo): a stack of snapshots of the level's sprites, camera and memory, kept
in a ring of ``undo_depth + 1`` slots from ``history_start`` with ``history_size`` of
them live, so that one slot is always free. A game without undo has no ring (no slot),
and the engine calls nothing here for it."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.envs.arc3.engine.types import Arc3State, Snapshot, select


def push(state: Arc3State, depth: int, saving) -> Arc3State:
    """The level's sprites, camera and memory written to the stack's free slot, and
    counted on it where ``saving``. The free slot always exists, so the write needs no
    select, and one that is not counted changes nothing (on a full stack, saving drops
    the oldest)."""
    ring = depth + 1
    now = Snapshot(state.table, state.camera, state.memory)
    slot = (state.history_start + state.history_size) % ring
    history = jax.tree.map(lambda h, leaf: h.at[slot].set(leaf), state.history, now)
    full = state.history_size >= depth
    return eqx.tree_at(
        lambda s: (s.history, s.history_size, s.history_start),
        state,
        (
            history,
            jnp.where(saving, jnp.minimum(state.history_size + 1, depth), state.history_size),
            jnp.where(saving & full, (state.history_start + 1) % ring, state.history_start),
        ),
    )


def undo(state: Arc3State, depth: int) -> Arc3State:
    """The last snapshot restored and popped (nothing changes on an empty stack)."""
    some = state.history_size > 0
    size = jnp.maximum(state.history_size - 1, 0)
    last = jax.tree.map(lambda h: h[(state.history_start + size) % (depth + 1)], state.history)
    restored = eqx.tree_at(
        lambda s: (s.table, s.camera, s.memory, s.history_size),
        state,
        (last.table, last.camera, last.memory, size),
    )
    return select(some, restored, state)
