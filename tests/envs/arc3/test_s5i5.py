"""s5i5's edges: a click that makes arms overlap shows it for a frame and puts every
sprite back, an arm grows longer than the table's sprites (the recorded traces hold both
against the official file too), and the level data's chains of carried sprites are
counted by ways and refused when they loop."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from gridax.envs.arc3 import env, rules
from gridax.envs.arc3.engine.types import Action
from gridax.envs.arc3.games import s5i5, s5i5_levels
from tests.tools.record_traces import S5I5_LONG_ARM

STEP = jax.jit(lambda state, action: env.step(state, action, s5i5.GAME))
GROW_DOWN = Action(6, 24, 44)  # level 0: the lower half of the colour-11 arm's button


def sprites(state):
    table = state.table
    return [np.asarray(c) for c in (table.x, table.y, table.height, table.width, table.pixels)]


def test_an_arm_grown_into_a_wall_shows_it_then_goes_back():
    state, _ = env.reset(s5i5.GAME, 0)
    # The arm's end is at row 35 and grows 3 rows a click; a wall stands at rows 64-66.
    for _ in range(9):
        state, _, info = STEP(state, GROW_DOWN)
        assert int(info["frame_count"]) == 1
    before = sprites(state)
    state, _, info = STEP(state, GROW_DOWN)
    assert int(info["frame_count"]) == 2  # the overlap (below the screen), then back
    for column, (now, then) in enumerate(zip(sprites(state), before, strict=True)):
        np.testing.assert_array_equal(now, then, err_msg=f"column {column}")
    assert int(state.memory["moves_left"]) == int(state.memory["moves"]) - 10


def test_an_arm_longer_than_the_sprite_grid_is_kept_whole_and_drawn_where_seen():
    state, _ = env.reset(s5i5.GAME, 6)
    for triple in S5I5_LONG_ARM:  # level 6's last arm grown up through a gap
        state, frames, _ = STEP(state, Action(*triple))
    x, y, height, width, way = np.asarray(state.memory["geometry"])[:, 0]
    assert (x, y, height, width, way) == (6, -66, 108, 3, s5i5_levels.UP)  # 108 > PIXELS
    table, seen = state.table, 41 - s5i5.SEEN_FROM + 1
    # held lengthwise (3 rows of its seen length), turned a quarter clockwise: upright
    held = tuple(int(column[0]) for column in (table.height, table.width, table.quarter_turns))
    assert held == (s5i5_levels.BREADTH, seen, 1)
    drawn_height, drawn_width = rules.drawn_size(state)
    assert (int(table.y[0]), int(drawn_height[0]), int(drawn_width[0])) == (-4, seen, 3)
    frame = np.asarray(frames[-1])
    assert np.all(frame[:41, 6:9] == 12) and np.all(frame[41, 6:9] == s5i5_levels.CAP)


@pytest.mark.parametrize(
    ("start", "length", "seen"),
    [
        (10, 20, (10, 20)),  # on the screen: whole
        (-100, 108, (-4, 12)),  # its end on the screen: from the margin
        (60, 30, (60, 8)),  # its base on the screen: to the margin
        (-100, 90, (-4, 3)),  # wholly left of the screen: one block, unseen
        (70, 9, (65, 3)),  # wholly right: one block, unseen
    ],
)
def test_the_part_of_an_arm_the_table_holds(start, length, seen):
    first, size = s5i5._seen(np.int32(start), np.int32(length))
    assert (int(first), int(size)) == seen


def test_a_sprite_carried_two_ways_is_counted_twice():
    carried = np.zeros((s5i5_levels.NUM_SLOTS,) * 2, np.int64)
    carried[0, 1] = carried[0, 2] = carried[1, 3] = carried[2, 3] = 1
    ways = s5i5_levels._ways(carried)
    assert ways[0, 3] == 2 and ways[0, 1] == 1 and ways[1, 3] == 1 and ways[3].sum() == 0


def test_a_loop_of_carried_arms_is_refused():
    carried = np.zeros((s5i5_levels.NUM_SLOTS,) * 2, np.int64)
    carried[0, 1] = carried[1, 0] = 1
    with pytest.raises(ValueError, match="cycle"):
        s5i5_levels._ways(carried)


def _button_colour(button) -> int:
    middle = len(button.pixels) // 2
    return button.pixels[middle][middle]


def test_a_turned_arm_without_a_base_is_refused(monkeypatch):
    """An arm a turn button turns must have a base (the port reads its way once)."""
    data = s5i5_levels.DATA
    for number, level in enumerate(data.levels):
        sprites = list(level.sprites)
        turns = {_button_colour(s) for s in sprites if "myzmclysbl" in s.tags}
        resizes = [s for s in sprites if "gdgcpukdrl" in s.tags]
        for slot, arm in enumerate(sprites):
            colour = arm.pixels[1][1]
            driven = any(colour in sum(button.pixels, ()) for button in resizes)
            if "agujdcrunq" not in arm.tags or colour not in turns or driven:
                continue
            no_base = tuple(
                tuple(colour if c == s5i5_levels.CAP else c for c in row) for row in arm.pixels
            )
            sprites[slot] = dataclasses.replace(arm, pixels=no_base)
            levels = list(data.levels)
            levels[number] = dataclasses.replace(level, sprites=tuple(sprites))
            monkeypatch.setattr(
                s5i5_levels, "DATA", dataclasses.replace(data, levels=tuple(levels))
            )
            with pytest.raises(ValueError, match=r"s5i5 level .*: a turned arm has no base"):
                s5i5_levels.level_of(number)
            return
    pytest.fail("no level of s5i5 has an arm turned and not resized")


def test_the_walls_summed_area_counts_wall_cells_and_refuses_overlapping_walls():
    """Walls never move, so a level's cells of wall are summed once (an arm's box over a
    wall is four reads); two walls that overlap would put back every click: refused."""
    level = s5i5_levels.DATA.levels[1]
    walls = [s for s in level.sprites if s5i5_levels._is_wall(s)]
    area = s5i5_levels.wall_area(level)
    cells = sum(int(np.sum(np.asarray(w.pixels) != -1)) for w in walls)
    assert area[-1, -1] == cells and area.shape == (s5i5_levels.WINDOW + 1,) * 2
    twice = dataclasses.replace(level, sprites=(*level.sprites, walls[0]))
    with pytest.raises(ValueError, match=r"s5i5 level .*: two walls overlap"):
        s5i5_levels.wall_area(twice)
