"""su15's edges: the float tables against Python's floats from every start; the ring's
bands against the original's float32 test; the union of overlapping sprites against a
plain union-find; a merge, a bad merge's flash, fine and undo, and ACTION7; the step
bar's negative count; level data the port cannot stand for is refused by name (the
recorded traces hold the rest against the official file)."""

from __future__ import annotations

import dataclasses
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import CLICK, UNDO, Action
from gridax.envs.arc3.games import su15
from gridax.envs.arc3.games import su15_levels as lv
from gridax.envs.arc3.games import su15_lists as ls

GAME = su15.GAME
STEP = jax.jit(lambda state, action: env.step(state, action, GAME))


def fruits(state):
    """The fruits' list: (size, x, y) in order."""
    m = state.memory
    n = int(m["f_n"])
    return [
        (int(s), int(x), int(y))
        for s, x, y in zip(m["f_size"][:n], m["f_x"][:n], m["f_y"][:n], strict=True)
    ]


@pytest.mark.parametrize("table, scale, steps", [("FLIGHT", 2.5, 4), ("GLIDE", 4 * 0.85, 1)])
def test_float_tables_equal_python_floats_from_every_start(table, scale, steps):
    """Each table entry, read with the start's parity, is what the original's floats give
    from every start cell 0-63: ``round(start + step + step ...)``, halves to even."""
    span = np.arange(-lv.SPAN, lv.SPAN + 1)
    units = np.array([[lv._unit(int(a), int(b)) for b in span] for a in span])
    step = units * scale  # numpy's float64 products and sums are Python's
    starts = np.arange(64, dtype=np.float64)
    position = np.broadcast_to(starts, step.shape + (64,)).copy()
    moves = getattr(lv, table).reshape(step.shape + (steps, 2))
    for k in range(steps):
        position += step[..., None]
        expected = np.round(position) - starts  # numpy rounds halves to even, as Python
        got = moves[:, :, k, :][..., np.arange(64) % 2]
        np.testing.assert_array_equal(got, expected, err_msg=f"{table}, step {k + 1}")


def test_ring_bands_are_the_originals_float32_test():
    """The ring's band of squared distances on each frame, and the cells the UI draws,
    are the original's test of a 64x64 float32 grid against its radius, here from a
    click at (20, 30)."""
    rows, cols = np.meshgrid(
        np.arange(64, dtype=np.float32), np.arange(64, dtype=np.float32), indexing="ij"
    )
    radius, step = 8.0, 8.0 / 3.0
    for frame in range(lv.VACUUM_FRAMES + 1):
        d2 = (cols - np.float32(20.0)) ** 2 + (rows - np.float32(30.0)) ** 2
        outer, inner = radius + 0.5, max(0.0, radius - 0.5)
        expected = (d2 <= outer * outer) & (d2 >= inner * inner) if radius > 0 else d2 < 0
        lo, hi = lv.RING[frame]
        np.testing.assert_array_equal((d2 >= lo) & (d2 <= hi), expected, err_msg=f"frame {frame}")
        drawn = np.zeros((64, 64), bool)
        for dx, dy in lv.RING_CELLS[frame]:
            if 0 <= 30 + dy < 64 and 0 <= 20 + dx < 64:
                drawn[30 + dy, 20 + dx] = True
        np.testing.assert_array_equal(drawn, expected, err_msg=f"frame {frame}'s cells")
        radius = max(0.0, radius - step)


def _union_find(overlap, kinds, chosen):
    """The original's scan: pairs in order, a clash ends it, else union and groups."""
    k = len(kinds)
    parent = list(range(k))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(k):
        for j in range(i + 1, k):
            if chosen[i] and chosen[j] and overlap[i, j]:
                if kinds[i] != kinds[j]:
                    return (i, j), None
                parent[find(j)] = find(i)
    roots = [find(i) if chosen[i] else -1 for i in range(k)]
    members = [chosen[i] and sum(r == roots[i] for r in roots) >= 2 for i in range(k)]
    first = {r: min(i for i in range(k) if roots[i] == r) for r in set(roots) if r >= 0}
    return None, ([first[r] if r >= 0 else -1 for r in roots], members)


def test_groups_are_the_originals_union_of_overlaps():
    rng = np.random.default_rng(0)
    grouped = jax.jit(ls.groups)
    for _ in range(200):
        k = 9
        upper = np.triu(rng.random((k, k)) < 0.25, 1)
        overlap = upper | upper.T
        kinds = rng.integers(0, 2 if rng.random() < 0.5 else 1, k)
        chosen = rng.random(k) < 0.8
        clash, pair, root, members = grouped(
            jnp.asarray(overlap), jnp.asarray(kinds), jnp.asarray(chosen)
        )
        expected_pair, expected_groups = _union_find(overlap, kinds, chosen)
        assert bool(clash) == (expected_pair is not None)
        if expected_groups is None:
            assert tuple(np.asarray(pair).tolist()) == expected_pair
        else:
            assert np.asarray(root).tolist() == expected_groups[0]
            assert np.asarray(members).tolist() == expected_groups[1]


def test_a_merge_makes_the_next_size_last_in_the_list():
    """Level 3: the two size-0 fruits at (55, 23) and (61, 23), pulled together by a
    click between them, become one of size 1 at their mean centre, appended; one step
    is spent; ACTION7 brings the two back."""
    state, _ = env.reset(GAME, 2)
    before = fruits(state)
    state, _, info = STEP(state, Action(CLICK, 58, 23))
    after = fruits(state)
    assert int(info["frame_count"]) == 5
    assert after[:-1] == [f for f in before if f[1:] not in {(55, 23), (61, 23)}]
    assert after[-1] == (1, 57, 22)
    assert int(state.memory["steps"]) == 47
    state, _, _ = STEP(state, Action(UNDO))
    assert fruits(state) == before
    assert int(state.memory["steps"]) == 47  # undo gives no step back


def test_a_bad_merge_flashes_fines_and_undoes():
    """Level 3: a size-0 fruit (31, 22) and a size-1 fruit (30, 32) pulled together
    flash for 16 frames after the vacuum's; the click is undone, and the fine is 2 steps,
    then 4."""
    state, _ = env.reset(GAME, 2)
    before = fruits(state)
    for fine, left in ((2, 46), (4, 42)):
        state, _, info = STEP(state, Action(CLICK, 31, 27))
        assert int(info["frame_count"]) == 5 + su15.FLASH_FRAMES
        assert fruits(state) == before
        assert int(state.memory["steps"]) == left, f"fine {fine}"


def test_step_bar_shows_a_negative_count_as_a_slice_end():
    """The original draws ``ceil(64 * steps / max)`` pixels of row 63 as a Python slice's
    end: a fine that takes the steps below 0 blackens all but that many."""
    state, _ = env.reset(GAME, 0)
    frame = jnp.full((64, 64), 5, jnp.int8)
    for steps, black in ((32, 64), (31, 62), (1, 2), (0, 0), (-2, 60), (-40, 0)):
        memory = dict(state.memory, steps=jnp.int32(steps))
        shown = su15.ui(dataclasses.replace(state, memory=memory), frame, GAME)
        assert int(jnp.sum(shown[63] == 0)) == black, steps
        assert bool(jnp.all(shown[63, :black] == 0))


def _level(number, change):
    level = lv.DATA.levels[number]
    return dataclasses.replace(level, **change(level))


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda level: {"sprites": level.sprites + (lv.DATA.catalogue["0"],) * 9},
            "fruits; the port holds 9",
        ),
        (lambda level: {"data": {**level.data, "goal": ["dragon", 1]}}, "goal 'dragon'"),
        (
            lambda level: {
                "sprites": level.sprites
                + (dataclasses.replace(lv.DATA.catalogue["recfijsnol"], pixels=((11, 12),)),)
            },
            "has colours [11, 12]",
        ),
    ],
)
def test_level_data_the_port_cannot_stand_for_is_refused_by_name(change, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        lv.level_of(_level(1, change), 1)
