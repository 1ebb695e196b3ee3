"""su15's fruits and enemies as lists in memory (``games/su15.py`` describes the game).

The original keeps its fruits and its enemies in Python lists: merges and knocks take
entries out, merges append new ones, undo builds both again. Here each is a set of
memory arrays of one length (``MAX_FRUITS``, ``MAX_ENEMIES``), an entry per list
position, live below the count (``f_n``, ``e_n``): :func:`rebuild` keeps some entries in
order and appends new ones, as the original's removals and appends do. Also here: the
geometry both lists share (centres, boxes, clamping) and :func:`groups`, the
original's union of overlapping sprites.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3.games import su15_levels as lv

F, E = lv.MAX_FRUITS, lv.MAX_ENEMIES
# Each entry's fields, with the value of an empty or new entry.
FRUIT_FIELDS = {
    "f_size": 0,
    "f_layer": 0,  # its sprite's when made: a shrinking fruit keeps it
    "f_x": 0,
    "f_y": 0,
    "f_fresh": True,  # added after the vacuum's ring (drawn over it at equal layers)
    "f_sel": False,  # captured by the click (only these merge)
    "f_knock": False,  # knocked by an enemy: shakes, then flies (or goes)
    "f_count": 0,  # frames since the knock
    "f_ox": 0,  # where the knock found it
    "f_oy": 0,
    "f_da": 0,  # the knock's way: fruit centre minus enemy centre
    "f_db": 0,
    "f_shrink": -1,  # the size it shrinks to when it flies
    "f_doom": False,  # size 0: it goes when the shaking ends
    "f_flash": False,  # one of a bad merge's pair
}
ENEMY_FIELDS = {
    "e_kind": 0,
    "e_x": 0,
    "e_y": 0,
    "e_cool": 0,  # frames it neither chases nor knocks
    "e_cap": False,  # captured by the click
    "e_glide": False,  # captured, of the first kind: moves along a unit vector
    "e_da": 0,  # that vector's integer parts: click minus enemy centre
    "e_db": 0,
    "e_flash": False,
}


def live(memory, prefix: str) -> jnp.ndarray:
    """Which entries of list ``prefix`` ("f" or "e") are live."""
    size = F if prefix == "f" else E
    return jnp.arange(size) < memory[f"{prefix}_n"]


def fruit_size(memory):
    return jnp.asarray(lv.FRUIT_SIZE)[memory["f_size"]]


def centres(memory, prefix: str):
    """``(x, y)``: the centre cell of each entry (top-left plus half the size, down)."""
    if prefix == "f":
        width = height = fruit_size(memory)
    else:
        width, height = lv.ENEMY_WIDTH, lv.ENEMY_HEIGHT
    return memory[f"{prefix}_x"] + width // 2, memory[f"{prefix}_y"] + height // 2


def boxes(memory, prefix: str):
    """``(x, y, width, height)`` of each entry."""
    if prefix == "f":
        size = fruit_size(memory)
        return memory["f_x"], memory["f_y"], size, size
    x = memory["e_x"]
    return x, memory["e_y"], jnp.full_like(x, lv.ENEMY_WIDTH), jnp.full_like(x, lv.ENEMY_HEIGHT)


def clamped(x, y, width, height):
    """A top-left corner kept on the board: columns 0..64-width, rows TOP..63 and
    64-height (the original clamps in this order)."""
    x = jnp.clip(x, 0, lv.SCREEN - width)
    y = jnp.minimum(jnp.minimum(jnp.maximum(y, lv.TOP), lv.SCREEN - 1), lv.SCREEN - height)
    return x, y


def meeting(a, b) -> jnp.ndarray:
    """``[Ka, Kb]``: boxes ``a`` and ``b`` (each ``(x, y, width, height)``) overlap
    (touching is not)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return (
        (ax[:, None] < bx[None, :] + bw[None, :])
        & (bx[None, :] < ax[:, None] + aw[:, None])
        & (ay[:, None] < by[None, :] + bh[None, :])
        & (by[None, :] < ay[:, None] + ah[:, None])
    )


def overlaps(memory, prefix: str) -> jnp.ndarray:
    """``[K, K]``: the boxes of entries ``i`` and ``j`` of list ``prefix`` overlap."""
    return meeting(boxes(memory, prefix), boxes(memory, prefix))


def near(memory, prefix: str, px, py, radius: int) -> jnp.ndarray:
    """Entries whose box comes within ``radius`` of cell ``(px, py)``."""
    x, y, w, h = boxes(memory, prefix)
    dx = px - jnp.clip(px, x, x + w - 1)
    dy = py - jnp.clip(py, y, y + h - 1)
    return dx * dx + dy * dy <= radius * radius


def groups(overlap, kinds, chosen):
    """The original's union of overlapping sprites among ``chosen``, scanned pair by pair
    in list order: ``(clash, pair, root, members)``. ``clash``: some overlapping pair is
    of two kinds; ``pair`` ``[2]`` the first such (``i < j``, by ``i`` then ``j``); else
    ``root`` ``[K]`` is each entry's group by its first entry and ``members`` the
    entries of groups of two or more."""
    k = kinds.shape[0]
    upper = jnp.asarray(np.triu(np.ones((k, k), bool), 1))
    pairs = overlap & chosen[:, None] & chosen[None, :] & upper
    clashing = pairs & (kinds[:, None] != kinds[None, :])
    first = jnp.argmax(clashing.ravel())
    linked = (pairs | pairs.T) | jnp.diag(chosen)
    for _ in range(int(np.ceil(np.log2(max(k, 2))))):  # paths double each time
        linked = linked | (linked.astype(jnp.int32) @ linked.astype(jnp.int32) > 0)
    root = jnp.where(chosen, jnp.argmax(linked, axis=1), -1)
    size = jnp.sum(root[None, :] == root[:, None], axis=1)
    members = chosen & (size >= 2)
    return jnp.any(clashing), jnp.stack([first // k, first % k]), root, members


def merged_centres(memory, prefix: str, root, members):
    """``[K]`` per group root: the number of members and their centres' sums."""
    cx, cy = centres(memory, prefix)
    k = cx.shape[0]
    in_group = (members[None, :] & (root[None, :] == jnp.arange(k)[:, None])).astype(jnp.int32)
    count = jnp.sum(in_group, axis=1)
    return count, jnp.sum(in_group * cx[None, :], axis=1), jnp.sum(in_group * cy[None, :], axis=1)


def rebuild(memory, prefix: str, keep, new: dict, adding) -> dict:
    """The list ``prefix`` with the entries ``keep`` in their order, then ``new``'s
    entries where ``adding`` (``[K]`` each, in index order): the original's removals
    and appends. Fields ``new`` leaves out start as a new entry's."""
    fields = FRUIT_FIELDS if prefix == "f" else ENEMY_FIELDS
    size = F if prefix == "f" else E
    keep = keep & live(memory, prefix)
    kept = jnp.sum(keep)
    position = jnp.where(
        keep,
        jnp.cumsum(keep) - 1,
        jnp.where(adding, kept + jnp.cumsum(adding) - 1, size),  # size: dropped
    )
    out = dict(memory)
    for name, default in fields.items():
        old = memory[name]
        value = jnp.where(keep, old, jnp.asarray(new.get(name, default), old.dtype))
        empty = jnp.full_like(old, default)
        out[name] = empty.at[position].set(value, mode="drop")
    out[f"{prefix}_n"] = jnp.asarray(kept + jnp.sum(adding), memory[f"{prefix}_n"].dtype)
    return out
