"""The authoring facade's engine features, each on a small game of its own: a game's
memory of any shape and dtype (restarted with each level, or kept), sprites added in
free slots, recolouring and new pixels, animations over several frames and rare work
run only where needed. The real and invented games' parity lives in test_games.py."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs.arc3 import env, rules
from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine import drawing
from gridax.envs.arc3.rules import (
    ACTION1,
    ACTION2,
    ACTION3,
    RESET,
    Action,
    Game,
    Level,
    Sprite,
    Var,
)

KINDS = ("block", "spare")
BLOCK, SPARE = range(len(KINDS))


def block(x=0, y=0, colour=9, kind="block"):
    return Sprite(((colour,),), kind, x=x, y=y)


def play(game, ids):
    """The states and infos after each action id, one env."""
    state, _ = env.reset(game)
    out = []
    for action_id in ids:
        state, frames, info = env.step(state, Action(action_id), game)
        out.append((state, frames, info))
    return out


# --- memory ---------------------------------------------------------------------------


def counting_rule(state, action, game):
    """ACTION1 counts (in a level counter, a kept total and a 2x3 int8 grid); ACTION2
    completes the level."""
    counting = action.id == ACTION1
    counter = state.memory["counter"] + 1
    state = rules.set_memory(state, "counter", counter, counting)
    state = rules.set_memory(state, "total", state.memory["total"] + 1, counting)
    grid = state.memory["grid"].at[0, 0].set(counter.astype(jnp.int8))
    state = rules.set_memory(state, "grid", grid, counting)
    state = rules.set_memory(state, "seen", True, counting)
    state = rules.next_level(state, len(game.levels), action.id == ACTION2)
    return rules.complete(state)


COUNTING = Game(
    name="Counting",
    levels=(Level((block(),), grid_size=(4, 4)), Level((block(),), memory={"counter": 5})),
    kinds=KINDS,
    rule=counting_rule,
    available_actions=(1, 2),
    memory={
        "counter": Var(),
        "total": Var(kept=True),
        "grid": Var("int8", (2, 3), -1),
        "seen": Var("bool", (), False),
    },
)


def test_memory_of_any_shape_and_dtype_restarts_with_each_level_unless_kept():
    steps = play(COUNTING, [ACTION1, ACTION1, ACTION2, ACTION1, RESET, ACTION1])
    memory = [jax.tree.map(np.asarray, s.memory) for s, _, _ in steps]
    assert memory[1]["counter"] == 2 and memory[1]["total"] == 2
    assert memory[1]["grid"].dtype == np.int8 and memory[1]["grid"].shape == (2, 3)
    np.testing.assert_array_equal(memory[1]["grid"], [[2, -1, -1], [-1, -1, -1]])
    # The next level starts its counter, grid and flag from its own values; the total goes on.
    assert memory[2]["counter"] == 5 and memory[2]["total"] == 2 and not memory[2]["seen"]
    assert (memory[2]["grid"] == -1).all()
    assert memory[3]["counter"] == 6 and memory[3]["total"] == 3 and memory[3]["seen"]
    # RESET restarts the level: the counter again, the total kept (as arcengine keeps an
    # attribute that on_set_level does not touch).
    assert memory[4]["counter"] == 5 and memory[4]["total"] == 3
    assert memory[5]["counter"] == 6 and memory[5]["total"] == 4


def test_memory_declaration_errors_name_the_level_and_variable():
    with pytest.raises(ValueError, match=r"level 1: memory \['count'\] not declared"):
        Game(
            "Bad",
            (Level((block(),)), Level((block(),), memory={"count": 1})),
            KINDS,
            rules.complete,
            memory={"counter": Var()},
        )
    with pytest.raises(ValueError, match=r"level 0, memory 'grid': a value of shape \(3,\)"):
        Game(
            "Bad",
            (Level((block(),), memory={"grid": (1, 2, 3)}),),
            KINDS,
            rules.complete,
            memory={"grid": Var("int8", (2,))},
        )


# --- sprites added, recoloured, repainted ---------------------------------------------


def building_rule(state, action, game):
    """ACTION1 adds a copy of the spare sprite one cell right of the last one added (at
    most the free slots); ACTION2 recolours every block 9 -> 3; ACTION3 gives the first
    block a 2x2 grid of pixels."""
    placed = rules.count(state, BLOCK) + rules.count(state, SPARE)
    spare = rules.slot_of(state, SPARE)
    state, _ = rules.add(state, spare, placed, 0, action.id == ACTION1)
    state = rules.recolour(state, rules.of_kind(state, BLOCK), 9, 3, action.id == ACTION2)
    state = rules.set_pixels(
        state, rules.slot_of(state, BLOCK), ((1, 2), (4, -1)), action.id == ACTION3
    )
    return rules.complete(state)


BUILDING = Game(
    name="Building",
    levels=(Level((block(0, 0), block(0, 1, 7, kind="spare")), grid_size=(8, 8)),),
    kinds=KINDS,
    rule=building_rule,
    available_actions=(1, 2, 3),
    num_slots=4,
    pixel_size=2,
    reach=2,
)


def test_sprites_are_added_in_free_slots_last_in_order_until_none_is_free():
    steps = play(BUILDING, [ACTION1, ACTION1, ACTION1])
    table = jax.tree.map(np.asarray, steps[-1][0].table)
    np.testing.assert_array_equal(table.exists, [True, True, True, True])
    np.testing.assert_array_equal(table.x[2:], [2, 3])
    np.testing.assert_array_equal(table.kind[2:], [SPARE, SPARE])
    assert table.order[3] > table.order[2] > table.order[1]
    # A third add finds no free slot: nothing changes.
    np.testing.assert_array_equal(steps[-1][0].table.x, steps[-2][0].table.x)
    frame = np.asarray(steps[1][1][0])  # 8x8 cells drawn 8 pixels each
    assert frame[0, 2 * 8] == 7 and frame[8, 0] == 7 and frame[0, 0] == 9


def test_recolour_and_new_pixels():
    (recoloured, _, _), (repainted, frames, _) = play(BUILDING, [ACTION2, ACTION3])
    assert int(recoloured.table.pixels[0, 0, 0]) == 3 and int(recoloured.table.pixels[1, 0, 0]) == 7
    assert (int(repainted.table.height[0]), int(repainted.table.width[0])) == (2, 2)
    np.testing.assert_array_equal(repainted.table.pixels[0], [[1, 2], [4, -1]])
    frame = np.asarray(frames[0])
    assert frame[0, 0] == 1 and frame[0, 8] == 2 and frame[8, 8] == BUILDING.background
    assert frame[8, 0] == 7  # the spare, later in sprite order, over the block's 4


def test_visibility_and_layers_by_slot_or_mask():
    state, _ = env.reset(BUILDING)
    hidden = rules.set_visible(state, 0, False)
    np.testing.assert_array_equal(hidden.table.visible[:2], [False, True])
    assert int(drawing.draw_frame(hidden, BUILDING)[0, 0]) == BUILDING.background
    raised = rules.set_layer(state, rules.of_kind(state, BLOCK), 3)
    np.testing.assert_array_equal(raised.table.layer[:2], [3, 0])
    # On a higher layer the block is drawn over the spare where they meet.
    moved = rules.place(raised, 1, 0, 0)
    assert int(drawing.draw_frame(moved, BUILDING)[0, 0]) == 9
    assert int(drawing.draw_frame(rules.place(state, 1, 0, 0), BUILDING)[0, 0]) == 7


def test_recolour_every_pixel_or_per_slot_colours():
    """``old`` None paints every pixel that is drawn (``color_remap(None, c)``: not -1,
    nor an invisible -2), in a traced colour too; ``old`` and ``new`` given per slot
    recolour each sprite with its own pair."""
    state, _ = env.reset(BUILDING)
    state = rules.set_pixels(state, 0, ((9, -1), (4, -2)))
    painted = rules.recolour(state, 0, None, jnp.int32(2))
    np.testing.assert_array_equal(painted.table.pixels[0, :2, :2], [[2, -1], [2, -2]])
    state = rules.set_pixels(state, 0, ((9, -1), (4, 9)))
    np.testing.assert_array_equal(painted.table.pixels[1], state.table.pixels[1])
    # Slot 0 maps 9 -> 5, slot 1 maps 7 -> 1; slot 0's 4 and the unused slots stay.
    old = jnp.asarray([9, 7, 9, 9])
    new = jnp.asarray([5, 1, 3, 3])
    each = rules.recolour(state, jnp.asarray([True, True, False, False]), old, new)
    np.testing.assert_array_equal(each.table.pixels[0, :2, :2], [[5, -1], [4, 5]])
    assert int(each.table.pixels[1, 0, 0]) == 1


def test_set_grid_gives_one_sprite_a_grid_of_traced_size_where_asked():
    """``set_grid``: the slot's grid and its size both change (traced values, under
    jit), the frame shows the new shape, the other slots keep theirs; ``when`` false
    changes nothing."""
    state, _ = env.reset(BUILDING)
    grid = jnp.full(state.table.pixels.shape[1:], rules.TRANSPARENT, jnp.int8)
    grid = grid.at[:2, :1].set(6)

    @jax.jit
    def set_it(state, height, width, when):
        return rules.set_grid(state, 0, grid, height, width, when)

    changed = set_it(state, jnp.int32(2), jnp.int32(1), True)
    assert (int(changed.table.height[0]), int(changed.table.width[0])) == (2, 1)
    np.testing.assert_array_equal(changed.table.pixels[0], grid)
    np.testing.assert_array_equal(changed.table.pixels[1:], state.table.pixels[1:])
    x, y = int(state.table.x[0]), int(state.table.y[0])
    frame = drawing.draw_frame(changed, BUILDING)  # a cell 8 pixels a side
    assert int(frame[8 * y, 8 * x]) == 6
    unchanged = set_it(state, jnp.int32(2), jnp.int32(1), False)
    for a, b in zip(jax.tree.leaves(unchanged), jax.tree.leaves(state), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_pixel_change_by_slot_index_equals_the_change_by_its_mask():
    """A slot named by its index (the pixel grid written in place) or by a mask over
    the slots (a select over every slot's grid) changes the same pixels, batched too; an
    index past the table, or ``when`` false, changes none."""
    state, _ = env.reset(BUILDING)
    state = rules.set_pixels(state, 1, ((9, -1), (4, -2)))
    slots = np.arange(state.table.x.shape[0])
    grid = jnp.full(state.table.pixels.shape[1:], 3, jnp.int8)
    grids = jnp.asarray(np.broadcast_to(slots[:, None, None], state.table.pixels.shape), jnp.int8)
    changes = {
        "recolour": lambda s, w, when: rules.recolour(s, w, 9, 6, when),
        "recolour any": lambda s, w, when: rules.recolour(s, w, None, jnp.int32(2), when),
        "recolour per slot": lambda s, w, when: rules.recolour(s, w, None, slots + 1, when),
        "repaint": lambda s, w, when: rules.repaint(s, w, grid, when),
        "repaint per slot": lambda s, w, when: rules.repaint(s, w, grids, when),
    }
    for name, change in changes.items():
        for slot in (-1, 0, 1, len(slots)):
            for when in (True, False):
                by_index = jax.jit(change, static_argnums=2)(state, jnp.int32(slot), when)
                by_mask = change(state, jnp.asarray(slots == slot), when)
                np.testing.assert_array_equal(
                    by_index.table.pixels, by_mask.table.pixels, err_msg=f"{name} {slot} {when}"
                )
        batch = jax.tree.map(lambda leaf: jnp.stack([leaf, leaf]), state)
        batched = jax.vmap(change, (0, 0, None))(batch, jnp.asarray([1, -1]), True)
        np.testing.assert_array_equal(batched.table.pixels[0], change(state, 1, True).table.pixels)
        np.testing.assert_array_equal(batched.table.pixels[1], state.table.pixels)


def test_set_scale_draws_a_sprite_larger_from_its_corner():
    """``set_scale`` (arcengine's): the drawn size grows, the top-left corner stays and
    each pixel covers scale x scale cells; scale 1 is as declared again."""
    state, _ = env.reset(BUILDING)
    state = rules.place(state, 1, 7, 7)  # the spare out of the way
    grown = rules.set_scale(rules.place(state, 0, 2, 1), 0, 3)
    height, width = rules.drawn_size(grown)
    assert (int(height[0]), int(width[0])) == (3, 3)
    frame = np.asarray(drawing.draw_frame(grown, BUILDING))  # 8 pixels a cell
    for cell_x, cell_y in ((2, 1), (4, 3)):
        assert frame[8 * cell_y, 8 * cell_x] == 9
    assert frame[8 * 4, 8 * 5] == BUILDING.background and frame[0, 8 * 2] == BUILDING.background
    assert int(rules.set_scale(state, 0, 3, when=False).table.scale[0]) == 1
    back = rules.set_scale(grown, 0, 1)
    assert tuple(int(s[0]) for s in rules.drawn_size(back)) == (1, 1)


def test_slots_kept_in_memory_become_a_mask_or_one_value_per_slot():
    """``mask_of`` and ``per_slot`` take slots of any shape, -1 naming none (it must not
    wrap to the last slot)."""
    state, _ = env.reset(BUILDING)
    slots = jnp.asarray([[1, -1], [3, 0]])
    mask = rules.mask_of(state, slots, jnp.asarray([[True, True], [False, True]]))
    np.testing.assert_array_equal(mask, [True, True, False, False])
    np.testing.assert_array_equal(rules.mask_of(state, -1), [False] * 4)
    values = rules.per_slot(state, slots, jnp.asarray([[7, 8], [9, 5]], jnp.int8), fill=-1)
    assert values.dtype == jnp.int8
    np.testing.assert_array_equal(values, [5, 7, -1, 9])


def test_tagged_masks_the_existing_sprites_with_a_tag():
    tagging = Game(
        name="Tagging",
        levels=(
            Level(
                (
                    Sprite(((1,),), "block", tags=("a",)),
                    Sprite(((2,),), "block", x=1, tags=("a", "b")),
                    Sprite(((3,),), "spare", x=2, tags=("b",)),
                ),
                grid_size=(4, 4),
            ),
        ),
        kinds=KINDS,
        tags=("a", "b"),
        rule=lambda state, action, game: rules.complete(state),
        pixel_size=1,
        reach=1,
    )
    state, _ = env.reset(tagging)
    np.testing.assert_array_equal(rules.tagged(state, 0), [True, True, False])
    np.testing.assert_array_equal(rules.tagged(state, 1), [False, True, True])
    np.testing.assert_array_equal(rules.tagged(rules.remove(state, 1), 1), [False, False, True])


def test_interaction_modes_by_visibility_and_collidability():
    """An intangible sprite (visible, not collidable) is drawn but neither collides nor is
    found at its cell; a removed one (neither) is not drawn either."""
    state, _ = env.reset(BUILDING)
    stacked = rules.place(state, 1, 0, 0)  # the spare on the block
    assert rules.collisions(stacked, 0, BUILDING, size=1).tolist()[:2] == [False, True]
    ghost = rules.set_collidable(stacked, 1, False)
    assert not bool(jnp.any(rules.collisions(ghost, 0, BUILDING, size=1)))
    assert int(rules.sprite_at(ghost, 0, 0, BUILDING)) == 0
    assert int(drawing.draw_frame(ghost, BUILDING)[0, 0]) == 7  # still drawn, on top
    removed = rules.set_visible(ghost, 1, False)
    assert int(drawing.draw_frame(removed, BUILDING)[0, 0]) == 9


def test_cells_on_screen_draw_view_cells_as_the_frame_does():
    """An 8x8 view at 8 pixels a cell; a 5x4 one at 12 pixels a cell, letterboxed by 2
    pixels across and 8 down: each screen pixel shows its view cell's value (0 on the
    letterbox) and knows whether it lies on the edge of its cell's square."""
    cells = jnp.arange(64, dtype=jnp.int8).reshape(8, 8)
    sizes = ((5, 4), (8, 8))
    shown, on_edge = (
        np.asarray(a) for a in cam.cells_on_screen(cells, cam.Camera(0, 0, 8, 8, 5, 5), sizes)
    )
    assert shown[10, 17] == 1 * 8 + 2 and not on_edge[10, 17] and on_edge[8, 17] and on_edge[15, 17]
    shown, on_edge = (
        np.asarray(a) for a in cam.cells_on_screen(cells, cam.Camera(1, 0, 5, 4, 5, 5), sizes)
    )
    assert shown[7, 30] == shown[30, 1] == 0  # the letterbox
    assert shown[8, 2] == 0 and shown[55, 61] == 3 * 8 + 4  # view cells (0, 0) and (4, 3)
    assert on_edge[8, 30] and on_edge[55, 61] and not on_edge[54, 60]
    state, _ = env.reset(BUILDING)
    drawn, _ = rules.cells_on_screen(state, BUILDING, cells)
    np.testing.assert_array_equal(drawn, np.repeat(np.repeat(cells, 8, 0), 8, 1))


def test_put_last_moves_sprites_to_the_end_of_the_order_in_rank_order():
    """arcengine's ``add_sprite`` of removed sprites: spare (rank 0), then block (rank
    1), after every sprite the level holds; a sprite put last is drawn over another of
    its layer."""
    state, _ = env.reset(BUILDING)
    stacked = rules.place(state, 1, 0, 0)  # the spare over the block (later in order)
    assert int(drawing.draw_frame(stacked, BUILDING)[0, 0]) == 7
    last = rules.put_last(stacked, jnp.asarray([1, 0, -1, -1]))
    order = np.asarray(last.table.order)
    assert order[0] > order[1] > max(np.asarray(stacked.table.order))
    np.testing.assert_array_equal(order[2:], np.asarray(stacked.table.order)[2:])
    assert int(drawing.draw_frame(last, BUILDING)[0, 0]) == 9


def test_draw_sprite_draws_a_sprite_as_drawn_at_a_screen_pixel():
    state, _ = env.reset(BUILDING)
    state = rules.set_pixels(state, 0, ((5, 6), (-1, -2)))
    state = rules.set_rotation(state, 0, 180)  # drawn [[-2, -1], [6, 5]]
    screen = jnp.zeros((64, 64), jnp.int8)
    drawn = np.asarray(rules.draw_sprite(screen, state, 0, 10, 20, BUILDING))
    np.testing.assert_array_equal(drawn[20:22, 10:12], [[0, 0], [6, 5]])
    assert drawn.sum() == 11
    hidden = rules.draw_sprite(screen, state, 0, 10, 20, BUILDING, when=False)
    assert int(np.asarray(hidden).sum()) == 0


def test_a_layer_drawn_rarely_is_drawn_on_the_envs_that_show_it_batched_or_not():
    state, _ = env.reset(BUILDING)
    state = rules.set_pixels(state, 0, ((5, 6), (-1, -2)))

    def sprite_over(frame, state, x):
        return rules.draw_sprite(frame, state, 0, x, 20, BUILDING)

    screens = jnp.arange(4 * 64 * 64, dtype=jnp.int32).reshape(4, 64, 64) % 3
    screens = screens.astype(jnp.int8)
    shows, xs = jnp.asarray([True, False, False, True]), jnp.asarray([10, 11, 12, 13])
    states = jax.tree.map(lambda leaf: jnp.broadcast_to(leaf, (4, *jnp.shape(leaf))), state)
    batched = jax.vmap(rules.drawn_rarely, in_axes=(0, None, 0, 0, 0))
    drawn = np.asarray(batched(shows, sprite_over, screens, states, xs))
    for env_index in range(4):
        one = rules.drawn_rarely(
            shows[env_index], sprite_over, screens[env_index], state, xs[env_index]
        )
        np.testing.assert_array_equal(drawn[env_index], np.asarray(one))
        expected = screens[env_index]
        if bool(shows[env_index]):
            expected = sprite_over(expected, state, xs[env_index])
        np.testing.assert_array_equal(drawn[env_index], np.asarray(expected))
    assert not np.array_equal(drawn[0], np.asarray(screens[0]))


def test_turns_cells_of_source_pixels_repaints_and_camera_colours():
    """``rotate`` turns clockwise about the top-left corner (four turns: back as it was),
    ``drawn_size`` is the turned size, ``pixel_cells`` puts each source pixel where the
    frame draws it; ``repaint`` keeps the size; ``set_camera_colours`` paints the cells no
    sprite covers."""
    state, _ = env.reset(BUILDING)
    state = rules.place(state, 1, 7, 7)  # the spare out of the way
    row = rules.set_pixels(state, 0, ((1, 2),))
    turned = rules.rotate(row, 0, 90)  # a column: 1 above 2
    height, width = rules.drawn_size(turned)
    assert (int(height[0]), int(width[0])) == (2, 1)
    x, y = rules.pixel_cells(turned)
    frame = np.asarray(drawing.draw_frame(turned, BUILDING))  # 8 pixels a cell
    for col, colour in ((0, 1), (1, 2)):
        cell_x, cell_y = int(x[0, 0, col]), int(y[0, 0, col])
        assert (cell_x, cell_y) == (0, col) and frame[8 * cell_y, 8 * cell_x] == colour
    again = turned
    for _ in range(3):
        again = rules.rotate(again, 0, 90)
    np.testing.assert_array_equal(again.table.quarter_turns, row.table.quarter_turns)
    assert int(rules.set_rotation(turned, 0, 360).table.quarter_turns[0]) == 0
    grid = jnp.full((2, 2), 5, jnp.int8)
    repainted = rules.repaint(row, 0, grid)
    assert (int(repainted.table.height[0]), int(repainted.table.width[0])) == (1, 2)
    np.testing.assert_array_equal(repainted.table.pixels[0], grid)
    coloured = rules.set_camera_colours(state, 11, 12)
    assert (int(coloured.camera.background), int(coloured.camera.letterbox)) == (11, 12)
    assert int(drawing.draw_frame(coloured, BUILDING)[40, 40]) == 11  # an empty cell


def test_drawn_pixel_is_what_the_frame_draws_at_a_world_cell():
    """``drawn_pixel`` reads a turned sprite as the frame draws it, at any shape of
    world cells, and is transparent off its box."""
    state, _ = env.reset(BUILDING)
    state = rules.place(state, 1, 7, 7)
    turned = rules.rotate(rules.set_pixels(state, 0, ((1, 2),)), 0, 90)  # 1 above 2
    xs, ys = jnp.array([[0, 0, 1]]), jnp.array([[0, 1, 0]])
    pixels = rules.drawn_pixel(turned, 0, xs, ys, BUILDING)
    np.testing.assert_array_equal(pixels, [[1, 2, rules.TRANSPARENT]])


def test_repeat_runs_each_env_its_own_count():
    """``repeat`` is a loop of a traced count for one env; batched, each env ends as
    its own count of passes leaves it (the body does nothing past it)."""

    def body(i, total, count, step):
        return total + jnp.where(i < count, step, 0)

    def run(count, step):
        return rules.repeat(count, body, jnp.int32(0), count, step)

    assert int(run(jnp.int32(3), jnp.int32(2))) == 6
    counts, steps = jnp.array([0, 1, 4]), jnp.array([5, 5, 1])
    np.testing.assert_array_equal(jax.vmap(run)(counts, steps), [0, 5, 4])


def test_sprite_at_can_search_in_the_layers_of_an_earlier_sort():
    """A click finds the highest layer first; with ``layers`` (arcengine's sort at a
    level's first lookup) it searches in that order, whatever the layers are now."""
    state, _ = env.reset(BUILDING)
    stacked = rules.place(state, 1, 0, 0)  # the spare on the block: equal layers
    assert int(rules.sprite_at(stacked, 0, 0, BUILDING)) == 0  # the first in order
    raised = rules.set_layer(stacked, 1, 3)
    assert int(rules.sprite_at(raised, 0, 0, BUILDING)) == 1
    before = stacked.table.layer
    assert int(rules.sprite_at(raised, 0, 0, BUILDING, layers=before)) == 0
    hidden = rules.set_collidable(raised, 1, False)
    assert int(rules.sprite_at(hidden, 0, 0, BUILDING)) == 0
    assert int(rules.sprite_at(hidden, 0, 0, BUILDING, ignore_collidable=True)) == 1


# --- animations and rare work ---------------------------------------------------------

STRIDES = np.array([1, 2, 1], np.int32)  # cells moved on frame 0, 1, 2 of an action


def sliding_rule(state, action, game):
    """ACTION1 slides the block right over three frames (a constant table gives each
    frame's stride: read in rare work on the first frame, in a phase that only the
    animation's frames run after it); ACTION2 moves it down in one frame."""
    sliding = action.id == ACTION1
    frame = rules.frame_number(state)
    slide = lambda state, frame: rules.move(state, 0, jnp.asarray(STRIDES)[frame], 0)  # noqa: E731
    state = rules.rarely(sliding & (frame == 0), slide, state, frame)
    state = rules.when_any(sliding & (frame > 0), slide, state, frame)
    state = rules.move(state, 0, 0, 1, action.id == ACTION2)
    return rules.complete(state, ~sliding | (frame == len(STRIDES) - 1))


SLIDING = Game(
    name="Sliding",
    levels=(Level((block(),), grid_size=(8, 8)),),
    kinds=KINDS,
    rule=sliding_rule,
    available_actions=(1, 2),
    max_frames=3,
)


def test_an_animation_makes_a_frame_per_pass_of_the_rule():
    (state, frames, info), (after, _, other) = play(SLIDING, [ACTION1, ACTION2])
    assert int(info["frame_count"]) == 3 and int(state.action_count) == 1
    columns = [int(np.flatnonzero(np.asarray(f)[0] == 9)[0]) // 8 for f in frames]
    assert columns == [1, 3, 4]
    assert int(other["frame_count"]) == 1 and (int(after.table.x[0]), int(after.table.y[0])) == (
        4,
        1,
    )


def assert_batch_plays_as_sliding_one_env_at_a_time(game):
    """``game`` stepped in a batch gives each env's frames and frame counts as SLIDING
    played alone."""
    ids = np.array([[1, 2, 1, 0], [2, 2, 1, 1], [1, 1, 2, 0]], np.int32)  # [env, step]
    states, _ = env.batch_reset(len(ids), game)
    for t in range(ids.shape[1]):
        actions = Action(ids[:, t], np.zeros(len(ids)), np.zeros(len(ids)))
        states, frames, info = env.batch_step(states, actions, game)
        for e in range(len(ids)):
            one = play(SLIDING, ids[e, : t + 1].tolist())[-1]
            np.testing.assert_array_equal(frames[e], one[1])
            assert int(info["frame_count"][e]) == int(one[2]["frame_count"])


def test_batched_animations_and_rare_work_equal_one_env_at_a_time():
    assert_batch_plays_as_sliding_one_env_at_a_time(SLIDING)


def sliding_later_frames(state, action, game):
    """SLIDING's later frames alone: only ACTION1 takes more than one."""
    frame = rules.frame_number(state)
    state = rules.move(state, 0, jnp.asarray(STRIDES)[frame], 0)
    return rules.complete(state, frame == len(STRIDES) - 1)


def test_animate_runs_an_actions_later_frames_and_the_rule_its_first():
    """A game's ``animate`` replaces the rule on every frame of an action after its
    first: the same frames where it does what the rule would, and only it runs there
    (one that moves down shows it), in a batch as one env at a time."""
    assert_batch_plays_as_sliding_one_env_at_a_time(
        dataclasses.replace(SLIDING, animate=sliding_later_frames)
    )

    def falling(state, action, game):  # later frames that move down, not right
        frame = rules.frame_number(state)
        return rules.complete(rules.move(state, 0, 0, 1), frame == len(STRIDES) - 1)

    state, frames, info = play(dataclasses.replace(SLIDING, animate=falling), [ACTION1])[-1]
    assert int(info["frame_count"]) == 3
    assert (int(state.table.x[0]), int(state.table.y[0])) == (1, 2)  # right 1, then down 2


# --- pixel grids resized, sprites added again ------------------------------------------

HIT_AREA = Sprite(((-2, 5),), "spare", x=0, y=0, layer=1)  # a solid, unseen cell, and a 5
SCENE = Game(
    name="Scene",
    levels=(Level((block(0, 0, 9), HIT_AREA, block(1, 0, 7)), grid_size=(8, 8)),),
    kinds=KINDS,
    rule=lambda state, action, game: rules.complete(state),
    available_actions=(1,),
    pixel_size=3,
    reach=3,
)


def test_resize_keeps_pixels_and_fills_the_new_ones():
    state, _ = env.reset(SCENE)
    grown = rules.resize(state, 1, 2, 3, fill=4)
    np.testing.assert_array_equal(grown.table.pixels[1], [[-2, 5, 4], [4, 4, 4], [-1, -1, -1]])
    assert (int(grown.table.height[1]), int(grown.table.width[1])) == (2, 3)
    shrunk = rules.resize(grown, jnp.array([False, True, False]), 1, 1)
    np.testing.assert_array_equal(shrunk.table.pixels[1], [[-2, -1, -1], [-1] * 3, [-1] * 3])
    np.testing.assert_array_equal(shrunk.table.width, [1, 1, 1])
    assert int(drawing.draw_frame(shrunk, SCENE)[0, 8]) == 7  # the 5 is gone from (1, 0)


def test_lay_out_sets_columns_of_one_slot_a_slice_or_listed_slots():
    """A game that keeps its sprites in memory lays them out: pixels padded transparent,
    listed slots past the table skipped, other columns and slots untouched."""
    state, _ = env.reset(SCENE)
    laid = rules.lay_out(state, slice(0, 2), x=jnp.array([4, 5]), pixels=jnp.full((2, 1, 2), 3))
    np.testing.assert_array_equal(laid.table.x, [4, 5, 1])
    np.testing.assert_array_equal(laid.table.pixels[0], [[3, 3, -1], [-1] * 3, [-1] * 3])
    np.testing.assert_array_equal(laid.table.y, state.table.y)
    laid = rules.lay_out(laid, jnp.array([2, 7]), y=jnp.array([6, 6]), exists=jnp.array([0, 1]))
    np.testing.assert_array_equal(laid.table.y, [0, 0, 6])
    np.testing.assert_array_equal(laid.table.exists, [True, True, False])
    laid = rules.lay_out(laid, 1, layer=2, quarter_turns=1)
    assert (int(laid.table.layer[1]), int(laid.table.quarter_turns[1])) == (2, 1)
    with pytest.raises(ValueError, match=r"no column \['tags'\]"):
        rules.lay_out(state, 0, tags=1)


def test_update_memory_sets_the_named_variables_in_their_dtypes():
    state, _ = env.reset(COUNTING)
    updated = rules.update_memory(state, {"grid": np.ones((2, 3)), "seen": 1})
    assert updated.memory["grid"].dtype == jnp.int8 and bool(updated.memory["seen"])
    assert int(updated.memory["counter"]) == int(state.memory["counter"])


def test_add_again_puts_removed_sprites_last_in_order():
    state, _ = env.reset(SCENE)
    removed = rules.remove(state, jnp.array([True, False, True]))
    again = rules.add_again(removed, jnp.array([True, False, True]))
    np.testing.assert_array_equal(again.table.exists, [True, True, True])
    np.testing.assert_array_equal(again.table.order, [3, 1, 4])
    unchanged = rules.add_again(removed, 0, False).table.exists
    np.testing.assert_array_equal(unchanged, removed.table.exists)


def test_rounded_share_is_pythons_round_of_the_exact_ratio():
    """A budget bar's length: ``round(length * part / whole)``, halves to even."""
    from fractions import Fraction

    for whole, length in ((4, 2), (100, 64), (150, 32), (35, 64), (8, 3)):
        parts = np.arange(whole + 1)
        expected = [round(Fraction(length * int(p), whole)) for p in parts]
        got = jax.vmap(lambda p, w=whole, n=length: rules.rounded_share(p, w, n))(parts)
        np.testing.assert_array_equal(got, expected, err_msg=f"{length} * part / {whole}")


def test_padded_pixels_of_a_catalogue_sprite():
    data = rules.official.load("cd82")
    grid = data.padded_pixels("ydiwkzjkgl", 6)  # a 5x1 bar of colour 0
    assert grid.shape == (6, 6) and grid.dtype == np.int8
    assert (grid[0, :5] == 0).all() and (grid[1:] == rules.TRANSPARENT).all()
    assert grid[0, 5] == rules.TRANSPARENT


def test_packed_memory_unpacks_each_variable_in_its_dtype_and_packs_back():
    packed = rules.Packed(
        {
            "count": rules.Var(value=3),
            "flags": rules.Var("bool", (2,), True),
            "grid": rules.Var("int8", (2, 3), -1),
        }
    )
    assert packed.size == 1 + 2 + 6 and packed.var.shape == (9,)
    start = packed.values({"grid": ((0, 1, 2), (3, 4, 5))})
    assert start == (3, 1, 1, 0, 1, 2, 3, 4, 5)
    memory = packed.unpack(jnp.asarray(start, jnp.int32))
    assert memory["flags"].dtype == jnp.bool_ and memory["grid"].dtype == jnp.int8
    np.testing.assert_array_equal(memory["grid"], [[0, 1, 2], [3, 4, 5]])
    memory["count"] = memory["count"] - 4
    again = packed.pack(memory)
    np.testing.assert_array_equal(again, [-1, 1, 1, 0, 1, 2, 3, 4, 5])
    np.testing.assert_array_equal(packed.unpack(again)["count"], -1)


def test_packed_memory_names_what_it_cannot_pack():
    with pytest.raises(ValueError, match=r"\['score'\] are kept"):
        rules.Packed({"score": rules.Var(kept=True)})
    with pytest.raises(ValueError, match=r"\['speed'\] are not among \['count'\]"):
        rules.Packed({"count": rules.Var()}).values({"speed": 1})
