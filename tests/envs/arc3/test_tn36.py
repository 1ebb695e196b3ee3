"""tn36's edges: every instruction's effect on a block; walls undo moves and scales; a
dead block shows for a frame, ignores moves and still turns; checkpoints hide and save
the start; a selector loads its program and runs it; a win flashes, then the level
changes; the timer loses on the 61st click (the 122nd from level 6); level data the
port cannot stand for is refused by name (the recorded traces hold the rest against
the official file)."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from gridax.envs.arc3 import env, rules
from gridax.envs.arc3.engine.types import GAME_OVER, NOT_FINISHED, Action
from gridax.envs.arc3.games import tn36, tn36_levels

GAME = tn36.GAME
RIGHT, LEFT = tn36.RIGHT, tn36.LEFT
STEP = jax.jit(lambda state, action: env.step(state, action, GAME))
EXECUTE = jax.jit(lambda state, number: tn36.execute(state, RIGHT, number, True))


def play(state, points):
    info = None
    for x, y in points:
        state, _, info = STEP(state, Action(6, x, y))
    return state, info


def block(state, m=RIGHT):
    """``(x, y, quarter turns, scale, colour)`` of machine ``m``'s block."""
    slot = int(state.memory["block"][m])
    table = state.table
    return tuple(
        int(v)
        for v in (
            table.x[slot],
            table.y[slot],
            table.quarter_turns[slot],
            table.scale[slot],
            table.pixels[slot, 1, 1],
        )
    )


# What each number does (the module docstring), from level 2's right block at (45, 24),
# turned 180 degrees, scale 1, colour 11.
EFFECTS = {
    1: (41, 24, 2, 1, 11), 34: (41, 24, 2, 1, 11), 2: (49, 24, 2, 1, 11),
    3: (45, 28, 2, 1, 11), 33: (45, 20, 2, 1, 11), 10: (53, 24, 2, 1, 11),
    11: (53, 24, 2, 1, 11), 12: (37, 24, 2, 1, 11), 13: (37, 24, 2, 1, 11),
    5: (45, 24, 3, 1, 11), 6: (45, 24, 1, 1, 11), 7: (45, 24, 0, 1, 11),
    16: (45, 24, 1, 1, 11), 8: (45, 24, 2, 2, 11), 9: (45, 24, 2, 1, 11),
    14: (45, 24, 2, 1, 9), 15: (45, 24, 2, 1, 8), 63: (45, 24, 2, 1, 15),
}  # fmt: skip


def test_every_number_moves_turns_scales_or_paints_the_block_or_does_nothing():
    state, _ = env.reset(GAME, 1)
    assert block(state) == (45, 24, 2, 1, 11)
    for number in range(64):
        assert block(EXECUTE(state, number)) == EFFECTS.get(number, block(state)), number


def test_walls_undo_a_move_and_a_scale():
    state, _ = env.reset(GAME, 3)  # level 4: the right block at (45, 8), scale 2
    state = EXECUTE(state, 3)
    assert block(state)[:4] == (45, 12, 0, 2)
    assert block(EXECUTE(state, 3))[:4] == (45, 12, 0, 2)  # down into the wall at y 20
    assert block(EXECUTE(state, 8))[:4] == (45, 12, 0, 2)  # 12 cells wide: into it too
    assert block(EXECUTE(state, 9))[:4] == (45, 12, 0, 1)


def test_a_dead_block_shows_as_the_dead_sprite_ignores_moves_and_still_turns():
    state, _ = env.reset(GAME, 6)  # level 7, with beams
    dead = int(state.memory["dead"][RIGHT])
    assert not bool(state.table.exists[dead])
    killed = jax.jit(lambda s: tn36.kill(s, RIGHT, True))(state)
    slot = int(state.memory["block"][RIGHT])
    assert not bool(killed.memory["alive"][RIGHT]) and not bool(killed.table.visible[slot])
    assert bool(killed.table.exists[dead])
    assert (int(killed.table.x[dead]), int(killed.table.y[dead])) == block(state)[:2]
    assert int(killed.table.order[dead]) == int(np.max(killed.table.order))  # added last
    assert block(EXECUTE(killed, 33))[:2] == block(state)[:2]
    assert block(EXECUTE(killed, 5))[2] == (block(state)[2] + 1) % 4


def test_a_beam_switched_on_kills_the_block_under_it_and_the_emitter_always_does():
    state, _ = env.reset(GAME, 6)
    beam, emitter = (int(state.memory[name][RIGHT, 0]) for name in ("beams", "emitters"))
    assert not bool(state.table.visible[beam])  # off: only its emitter kills
    slot = int(state.memory["block"][RIGHT])
    on_beam = rules.place(state, slot, int(state.table.x[beam]) + 1, int(state.table.y[beam]))
    assert not bool(tn36.under_beam(on_beam, RIGHT))
    switched = tn36.switch_beams(on_beam, RIGHT, True, deadly=True)
    assert bool(switched.table.visible[beam]) and not bool(switched.memory["alive"][RIGHT])
    at = int(state.table.x[emitter]), int(state.table.y[emitter])
    assert bool(tn36.under_beam(rules.place(state, slot, *at), RIGHT))


def test_a_checkpoint_met_at_the_blocks_scale_hides_and_saves_the_start():
    state, _ = env.reset(GAME, 5)  # level 6: three checkpoints on the right
    points = [int(p) for p in state.memory["checkpoints"][RIGHT] if p >= 0]
    slot = int(state.memory["block"][RIGHT])
    first = points[0]
    there = rules.place(state, slot, int(state.table.x[first]), int(state.table.y[first]))
    saved = tn36.check_points(there, RIGHT, True, save=True)
    assert [bool(saved.table.visible[p]) for p in points] == [False, True, True]
    assert tuple(int(v) for v in saved.memory["start"][RIGHT]) == (*block(there)[:2], 90, 1, 11)
    grown = rules.set_scale(there, slot, 2)  # another scale: no checkpoint
    kept = tn36.check_points(grown, RIGHT, True, save=True)
    assert np.array_equal(kept.memory["start"], state.memory["start"])


def test_a_selector_loads_its_program_into_the_left_machine_and_runs_it():
    state, _ = env.reset(GAME, 1)  # level 2: programs (1, 1, 1, 1) and (33, 33, 33, 33)
    first, second = (int(s) for s in state.memory["selectors"][:2])
    assert int(state.table.pixels[first, 0, 0]) == tn36.SELECTED
    state, info = play(state, [(21, 58)])  # the second selector
    assert int(state.table.pixels[second, 0, 0]) == tn36.SELECTED
    assert int(state.table.pixels[first, 0, 0]) == tn36.UNSELECTED
    numbers = [int(tn36.instruction(state, LEFT, c)) for c in range(4)]
    assert numbers == [33, 33, 33, 33]
    # Program 2 starts at (14, 24) turned 180 and stays where its run ends: 4 cells up.
    assert block(state, LEFT)[:3] == (14, 8, 2)
    assert int(info["frame_count"]) == 1 + 4 + 1  # the click, a frame a column, the end


def test_a_win_flashes_for_a_frame_then_the_next_level_starts():
    state, _ = env.reset(GAME, 0)
    points = [(x, y) for _, x, y in GAME.solutions[0]]
    before, _ = play(state, points[:-1])
    after, frames, info = env.step(before, Action(6, *points[-1]), GAME)
    columns = 5
    # The click, a frame a column, the run's end (the flash), the flash's end, the win's
    # frame and the next level's.
    assert int(info["frame_count"]) == 1 + columns + 4
    flash = np.asarray(frames[columns + 1])
    x, y = block(before)[:2]
    assert flash[y + 20, x] == tn36.FLASH  # five cells down: on the target
    assert int(after.level) == 1 and int(info["levels_completed"]) == 1


@pytest.mark.parametrize(("level", "clicks"), [(0, 61), (5, 122)])
def test_the_timer_runs_out_after_61_clicks_and_from_level_6_after_122(level, clicks):
    state, _ = env.reset(GAME, level)
    state, info = play(state, [(0, 63)] * (clicks - 1))
    assert int(info["status"]) == NOT_FINISHED
    _, info = play(state, [(0, 63)])
    assert int(info["status"]) == GAME_OVER


def _with(level, sprites=None, **data):
    return dataclasses.replace(
        level,
        sprites=level.sprites if sprites is None else tuple(sprites),
        data={**level.data, **data},
    )


def test_level_data_the_port_cannot_stand_for_is_refused_naming_the_level():
    level = tn36_levels.DATA.levels[1]
    sprites = list(level.sprites)
    tablet = next(i for i, s in enumerate(sprites) if tn36_levels.READ_ONLY in s.tags and s.x < 31)
    editable = [*sprites]
    editable[tablet] = dataclasses.replace(sprites[tablet], tags=(tn36_levels.TABLET,))
    with pytest.raises(ValueError, match="tn36 level 2: the left machine's tablet is editable"):
        tn36_levels.level_of(_with(level, editable), 1)
    target = next(s for s in sprites if tn36_levels.TARGET in s.tags)
    with pytest.raises(ValueError, match="the left machine has a target"):
        tn36_levels.level_of(_with(level, [*sprites, dataclasses.replace(target, x=4, y=8)]), 1)
    with pytest.raises(ValueError, match=r"program \[64, 1, 1, 1\] has values beyond 6 bits"):
        tn36_levels.level_of(_with(level, Programs=[[64, 1, 1, 1], [33, 33, 33, 33]]), 1)
    with pytest.raises(ValueError, match="2 programs but 1 Scales"):
        tn36_levels.level_of(_with(level, Scales=[1]), 1)
    wall = next(s for s in tn36_levels.DATA.levels[2].sprites if tn36_levels.WALL in s.tags)
    walls = [dataclasses.replace(wall, x=40 + i, y=10) for i in range(tn36_levels.MAX_WALLS + 1)]
    with pytest.raises(ValueError, match="6 walls; the port holds 5"):
        tn36_levels.level_of(_with(level, [*sprites, *walls]), 1)
