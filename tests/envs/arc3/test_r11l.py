"""r11l's edges: a leg's line is the original's Bresenham line; a click on a leg selects
it, a click into a wall does nothing, both spending an action; a body on a hazard walks
back and the fifth time loses; a painted body takes a pickup's colours; the 60th action
loses; level data the port cannot stand for is refused by name (the recorded traces
hold the rest against the official file)."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.types import GAME_OVER, NOT_FINISHED, Action
from gridax.envs.arc3.games import r11l, r11l_levels

STEP = jax.jit(lambda state, action: env.step(state, action, r11l.GAME))


def click(x, y):
    return Action(6, x, y)


def play(state, actions):
    info = None
    for action in actions:
        state, _, info = STEP(state, action)
    return state, info


def place(state, slot):
    return int(state.table.x[slot]), int(state.table.y[slot])


def bresenham(x0, y0, x1, y1):
    """The line as the original draws it, step by step."""
    dx, dy = abs(x1 - x0), abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    error, points = dx - dy, []
    while True:
        points.append((x0, y0))
        if (x0, y0) == (x1, y1):
            return points
        twice = 2 * error
        if twice > -dy:
            error, x0 = error - dy, x0 + sx
        if twice < dx:
            error, y0 = error + dx, y0 + sy


def test_a_line_is_the_bresenham_line_in_every_direction_cut_at_the_screen():
    starts = [(3, 8), (60, 2), (-2, 40), (30, 30)]
    ends = np.array([(x, y) for x in range(-6, 70, 3) for y in range(-6, 70, 2)])
    draw = jax.jit(
        jax.vmap(lambda *ends: r11l.lines_drawn(r11l.line_cells(*ends)), (None, None, 0, 0))
    )
    for x0, y0 in starts:
        for (x1, y1), mask in zip(
            ends, np.asarray(draw(x0, y0, ends[:, 0], ends[:, 1])), strict=True
        ):
            want = np.zeros((64, 64), bool)
            for x, y in bresenham(x0, y0, int(x1), int(y1)):
                if 0 <= x < 64 and 0 <= y < 64:
                    want[y, x] = True
            np.testing.assert_array_equal(mask, want, err_msg=f"{(x0, y0)} to {(x1, y1)}")


def test_a_click_on_a_leg_selects_it_and_a_click_into_a_wall_does_nothing():
    state, _ = env.reset(r11l.GAME, 1)
    first, second = (int(s) for s in state.memory["legs"][:2])
    assert int(state.memory["selected"]) == first
    x, y = place(state, second)
    state, info = play(state, [click(x + 4, y + 4)])  # the corner of its box
    assert int(state.memory["selected"]) == second and int(info["frame_count"]) == 1
    pixels = np.asarray(state.table.pixels)
    assert (pixels[second] == r11l.UNSELECTED).sum() == 0  # its cells of colour 0 drawn white (0)
    assert (pixels[first] == r11l.SELECTED).sum() == 0  # the other's dark grey (3)
    before = np.asarray(state.table.x), np.asarray(state.table.y)
    state, info = play(state, [click(62, 62)])  # the wall in the corner
    np.testing.assert_array_equal(np.asarray(state.table.x), before[0])
    np.testing.assert_array_equal(np.asarray(state.table.y), before[1])
    assert int(info["frame_count"]) == 1 and int(state.action_count) == 2


def test_a_body_on_a_hazard_walks_back_and_the_fifth_time_loses():
    state, _ = env.reset(r11l.GAME, 1)
    leg = int(state.memory["selected"])
    start = place(state, leg)
    for hit in range(1, 5):
        state, info = play(state, [click(28, 34)])  # the body lands in the water
        assert int(info["frame_count"]) == 23  # the click, the step, 20 flashes, back
        assert place(state, leg) == start and int(state.memory["hazard_hits"]) == hit
        assert int(info["status"]) == NOT_FINISHED
    state, info = play(state, [click(28, 34)])
    assert int(info["status"]) == GAME_OVER and int(info["frame_count"]) == 2


def test_a_painted_body_takes_a_pickups_colours_and_the_pickup_goes():
    state, _ = env.reset(r11l.GAME, 4)
    body = int(state.memory["leg_body"][0])
    legs = [
        int(s)
        for s, b in zip(state.memory["legs"], state.memory["leg_body"], strict=True)
        if b == body
    ]
    pickup = next(
        int(p)
        for p in state.memory["pickups"]
        if p >= 0 and r11l.GAME.kinds[int(state.table.kind[p])] == "xigcb-txxvzpgkne"
    )
    colours = set(np.asarray(state.table.pixels[pickup]).ravel().tolist()) - {-1, 0}
    # Every leg of the body onto the pickup's centre: the body lands on it.
    px, py = place(state, pickup)
    for leg in legs:
        x, y = place(state, leg)
        state, _ = play(state, [click(x + 2, y + 2), click(px + 2 + 6 * (leg == legs[0]), py + 2)])
    grid = np.asarray(state.table.pixels[body, :5, :5])
    assert colours <= set(grid.ravel().tolist())
    assert not bool(state.table.exists[pickup])


def test_the_sixtieth_action_loses():
    state, _ = env.reset(r11l.GAME, 0)
    leg = place(state, int(state.memory["selected"]))
    state, info = play(state, [click(leg[0] + 2, leg[1] + 2)] * 59)
    assert int(info["status"]) == NOT_FINISHED
    state, info = play(state, [click(leg[0] + 2, leg[1] + 2)])
    assert int(info["status"]) == GAME_OVER and int(info["frame_count"]) == 1


def _with_sprites(level, sprites):
    return dataclasses.replace(level, sprites=tuple(sprites))


def test_legs_equally_far_from_the_origin_are_refused_naming_the_level():
    level = r11l_levels.DATA.levels[0]
    leg = next(s for s in level.sprites if s.kind.startswith(r11l_levels.LEG))
    twin = dataclasses.replace(leg, x=leg.y, y=leg.x)
    with pytest.raises(ValueError, match=r"r11l level 1: two legs equally far"):
        r11l_levels.level_of(_with_sprites(level, [*level.sprites, twin]), 0)


def test_a_leg_without_a_body_and_too_many_legs_are_refused():
    level = r11l_levels.DATA.levels[0]
    leg = next(s for s in level.sprites if s.kind.startswith(r11l_levels.LEG))
    stray = dataclasses.replace(leg, kind=r11l_levels.LEG + "nobody", x=30, y=30)
    with pytest.raises(ValueError, match=r"r11l level 1: a leg without a body"):
        r11l_levels.level_of(_with_sprites(level, [*level.sprites, stray]), 0)
    many = [dataclasses.replace(leg, x=3 * i, y=40 + i) for i in range(r11l_levels.MAX_LEGS)]
    with pytest.raises(ValueError, match=r"r11l level 1: 10 legs; the port holds 8"):
        r11l_levels.level_of(_with_sprites(level, [*level.sprites, *many]), 0)


def test_a_pickup_that_paints_outside_its_body_is_refused():
    level = r11l_levels.DATA.levels[4]
    pickup = next(s for s in level.sprites if s.kind.startswith(r11l_levels.PICKUP))
    pixels = [list(row) for row in pickup.pixels]
    pixels[0][0] = 9  # a corner the blank bodies leave transparent
    spilled = dataclasses.replace(pickup, pixels=tuple(map(tuple, pixels)))
    sprites = [spilled if s is pickup else s for s in level.sprites]
    with pytest.raises(ValueError, match=r"r11l level 5: pickup xigcb-\w+ paints outside its body"):
        r11l_levels.level_of(_with_sprites(level, sprites), 4)
