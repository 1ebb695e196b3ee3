"""sb26, ARC Prize's public ARC-AGI-3 game (version 7fbdac44), as JAX rules.

A program is built from coloured items and run. Frames (outlined boxes, the first by
(y, x) the main one) hold rows of slots; a row of targets along the top shows the
colours the program must output in order. An *item* in a slot outputs its colour into
the next target; a *call* item (a hollow square) runs the frame of its colour and comes
back. The palette along the bottom holds the items to place; the frames' own items stay.
The level is won when the program fills the last target; energy (the bar on row 53, 64
a level) pays for each placement and each run, and a level ends lost when it is spent.

- **ACTION6** clicks: a palette item selects it (a black outline), another palette item
  moves the selection, the selected item again deselects it; a spot or an item in a
  frame then takes the selected item (a swap of places, or the item onto the spot, the
  spot it left shown again), for one energy, with the two outlines fading out.
- **ACTION7** undoes the last placement (energy is not given back).
- **ACTION5** runs the program, for one energy: a cursor steps through the slots (eased
  over 6 frames), each item fills its target row by row if its colour matches, a call
  moves the frame cursor to the called frame and marks the call; a mismatch, an empty
  slot, a call into itself from a first slot, or the main frame ending early blinks
  and undoes the run's output. The run is one action of many frames (up to hundreds).

While a program runs the original hides the level's sprites and shows a picture of the
screen it copied into a sprite instead (its only use: nothing reads it). The hidden
sprites do not change while it shows, so the port keeps them shown, and adds what of
that picture the live sprites do not cover: the target cursor where it stood (the
*ghost*), and the run's call marks over the frames' items (layer 1 while the picture
shows, the original's 0 after). Every sprite the rule moves or recolours is memory,
laid out in its slot each frame; a run's later frames step memory alone, and with
``frames="last"`` a whole run is one loop over memory (``finish``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.sb26_jumps import run_to_end
from gridax.envs.arc3.games.sb26_levels import (
    AYAI,
    BACKDROP,
    BOTTOM,
    CLICKABLE,
    CORNER_PIXELS,
    CURSOR,
    DATA,
    DEPTH,
    GHOST,
    HIGHLIGHT,
    ITEM,
    LEVELS,
    MAX_CALLS,
    MAX_SLOTS,
    MAX_TARGETS,
    MEMORY,
    MJEQ,
    MROK0,
    MROK1,
    NUM_SLOTS,
    OHVA,
    SLOT_INSET,
    SLOT_STEP,
    SOLUTIONS,
    SPOT,
    TARGET,
    corner_places,
)
from gridax.envs.arc3.games.sb26_run import (
    SWAP,
    WAIT,
    board_of,
    fade,
    faded,
    later_frame,
    memory_of,
    place,
    set_at,
    set_phase,
    with_memory,
)
from gridax.envs.arc3.rules import Game

TRANSPARENT = rules.TRANSPARENT
PIXELS = 8  # the largest grid the rule repaints (the target cursor's)


def _pixels_of(key: str) -> np.ndarray:
    return DATA.padded_pixels(key, PIXELS)


def _corner_grids() -> np.ndarray:
    grids = np.full((4, PIXELS, PIXELS), TRANSPARENT, np.int8)
    grids[:, :3, :3] = CORNER_PIXELS
    return grids


# The actors' slots' grids in colour 0 (recoloured as laid out): the two highlights, the
# program cursor's corners, the item cursor, the target cursor and its ghost.
ACTOR_GRIDS = np.concatenate(
    [_pixels_of(HIGHLIGHT)[None]] * 2
    + [
        _corner_grids(),
        _pixels_of(HIGHLIGHT)[None],
        _pixels_of(CURSOR)[None],
        _pixels_of(CURSOR)[None],
    ]
)
ACTOR_OF_SLOT = np.array([MROK0, MROK1, MJEQ, MJEQ, MJEQ, MJEQ, AYAI, OHVA, GHOST])
TARGET_GRID = _pixels_of(TARGET)
MARKER_GRID = _pixels_of("upbhqnvnyx")
CLICK_TAG, ITEM_TAG, SPOT_TAG = (DATA.tags.index(t) for t in (CLICKABLE, ITEM, SPOT))


def _recoloured(grids, colours):
    return jnp.where(grids >= 0, colours.astype(jnp.int8)[:, None, None], grids)


# --- an action's first frame ----------------------------------------------------------


def _start(m, board, when):
    """ACTION5: one energy; the screen's picture (its ghost of the target cursor) shown;
    a selection's highlight faded out; each frame slot's item or spot looked up (the
    first item at the slot's cell, else the first spot); both cursors shown on the main
    frame's first slot and the first target, fading to black; a wait of 15 frames."""
    x, y, *_ = board
    m["energy"] = m["energy"] - when.astype(jnp.int32)
    for name in ("actor_x", "actor_y", "actor_colour"):
        set_at(m, name, GHOST, m[name][OHVA], when)
    m["frozen"] = m["frozen"] | when
    fade(m, MROK0, BACKDROP, when & (m["selected"] >= 0))
    m["selected"] = jnp.where(when, -1, m["selected"])
    frames = jnp.maximum(m["frames"], 0)
    cell_x = x[frames][:, None] + SLOT_INSET + SLOT_STEP * jnp.arange(MAX_SLOTS)[None, :]
    cell_y = jnp.broadcast_to(y[frames][:, None] + SLOT_INSET, cell_x.shape)

    def first_at(slots):
        safe = jnp.maximum(slots, 0)
        here = (x[safe][None, None, :] == cell_x[..., None]) & (slots >= 0)[None, None, :]
        here = here & (y[safe][None, None, :] == cell_y[..., None])
        return jnp.where(jnp.any(here, -1), slots[jnp.argmax(here, -1)], -1)

    items = first_at(m["items"])
    m["slot_of"] = jnp.where(when, jnp.where(items >= 0, items, first_at(m["spots"])), m["slot_of"])
    for name, value in (("stack_frame", 0), ("stack_slot", 0)):
        set_at(m, name, 0, value, when)
    m["depth"] = jnp.where(when, 1, m["depth"])
    for actor in (AYAI, OHVA):
        set_at(m, "actor_visible", actor, True, when)
        fade(m, actor, 0, when)
    first = m["slot_of"][0, 0]
    place(m, AYAI, x[first], y[first], when)
    m["returning"] = m["returning"] & ~when
    m["p"] = jnp.where(when, 0, m["p"])
    target = m["targets"][0]
    place(m, OHVA, x[target] - 1, y[target] - 1, when)
    set_phase(m, WAIT, 15, when)


def _first_at(table, slots, x, y, among=True):
    """The first of ``slots`` (list order; -1 none) whose box holds cell ``(x, y)``, or
    -1: arcengine's ``get_sprite_at`` among the items (layer 1) or the spots (layer 0),
    solid on their whole box (``sb26_levels`` checks it)."""
    safe = jnp.maximum(slots, 0)
    left, top = table.x[safe], table.y[safe]
    inside = (x >= left) & (x < left + table.width[safe]) & (y >= top)
    inside = inside & (y < top + table.height[safe]) & (slots >= 0) & among
    return jnp.where(jnp.any(inside), slots[jnp.argmax(inside)], -1)


def _click(state, m, action, game: Game, when):
    """ACTION6 (``(state, memory, swapped)``): select, move the selection, deselect, or
    place the selected item (a swap of places, or onto a spot: the spot it leaves shown,
    the one it takes hidden), the placement pushed for undo."""
    table = state.table
    items = m["items"]
    clickable = table.tags[jnp.maximum(items, 0), CLICK_TAG]
    on_item = _first_at(table, items, action.x, action.y, clickable)
    on_spot = _first_at(table, m["spots"], action.x, action.y)
    hit = jnp.where(on_item >= 0, on_item, on_spot)
    safe = jnp.maximum(hit, 0)
    item = when & (on_item >= 0)
    spot = when & (on_item < 0) & (on_spot >= 0)
    selected = m["selected"]
    chosen = selected >= 0
    held = jnp.maximum(selected, 0)
    picks = item & ~chosen
    again = item & chosen & (hit == selected)
    across = item & chosen & (hit != selected) & (table.y[held] > BOTTOM) & (table.y[safe] > BOTTOM)
    swaps = item & chosen & (hit != selected) & ~across
    onto = spot & chosen
    placed = swaps | onto
    place(m, MROK0, table.x[safe], table.y[safe], picks | across)
    set_at(m, "actor_colour", MROK0, jnp.where(again, BACKDROP, 0), picks | again)
    m["selected"] = jnp.where(picks | across, hit, jnp.where(again | placed, -1, selected))
    place(m, MROK1, table.x[safe], table.y[safe], placed)
    set_at(m, "actor_colour", MROK1, 0, placed)
    left = _first_at(table, m["spots"], table.x[held], table.y[held])
    state = rules.place(state, held, table.x[safe], table.y[safe], placed)
    state = rules.place(state, safe, table.x[held], table.y[held], swaps)
    state = rules.set_visible(state, jnp.maximum(left, 0), True, onto)
    state = rules.set_visible(state, safe, False, onto)
    entry = jnp.stack([held, jnp.where(onto, left, safe), jnp.where(onto, safe, -1)])
    set_at(m, "history", m["history_size"], entry, placed)
    m["history_size"] = m["history_size"] + placed.astype(jnp.int32)
    m["energy"] = m["energy"] - placed.astype(jnp.int32)
    set_phase(m, SWAP, 0, placed)
    return state, m, placed


def _undo(state, m, when):
    """ACTION7: the last placement taken back (not its energy), the selection dropped;
    nothing without one."""
    table = state.table
    when = when & (m["history_size"] > 0)
    index = jnp.maximum(m["history_size"] - 1, 0)
    a, b, c = (m["history"][index, i] for i in range(3))
    spot = c >= 0
    state = rules.place(state, a, table.x[b], table.y[b], when)
    state = rules.place(state, b, table.x[a], table.y[a], when & ~spot)
    state = rules.set_visible(state, b, False, when & spot)
    state = rules.set_visible(state, jnp.maximum(c, 0), True, when & spot)
    m["history_size"] = m["history_size"] - when.astype(jnp.int32)
    m["selected"] = jnp.where(when, -1, m["selected"])
    set_at(m, "actor_colour", MROK0, BACKDROP, when)
    return state, m


# --- memory laid out in the slots -----------------------------------------------------


def _slots(state, slots):
    """Slot indices with -1 (none) past the table, where ``lay_out`` skips them."""
    return jnp.where(slots >= 0, slots, state.table.x.shape[-1])


def _laid_out(state, m):
    """The actors, call marks, targets and backgrounds as memory has them."""
    table = state.table
    actor = jnp.asarray(ACTOR_OF_SLOT)
    corner_x, corner_y = corner_places(m["actor_x"][MJEQ], m["actor_y"][MJEQ], m["cursor_width"])
    x = m["actor_x"][actor].at[2:6].set(jnp.stack(corner_x))
    y = m["actor_y"][actor].at[2:6].set(jnp.stack(corner_y))
    grids = _recoloured(jnp.asarray(ACTOR_GRIDS), m["actor_colour"][actor])
    # The ghost is part of the original's picture: shown exactly while it is.
    visible = jnp.where(actor == GHOST, m["frozen"], m["actor_visible"][actor])
    state = rules.lay_out(state, m["actors"], x=x, y=y, visible=visible, pixels=grids)
    # Each call item's mark: the latest of its marks on the stack (marks of one item lie
    # on each other), on layer 1 while the picture shows, the original's 0 after.
    marks = (jnp.arange(DEPTH) < m["marker_count"])[None, :]
    mine = marks & (m["marker_call"][None, :] == jnp.arange(MAX_CALLS)[:, None])
    latest = jnp.argmax(jnp.where(mine, jnp.arange(DEPTH), -1), axis=1)
    calls = jnp.maximum(m["calls"], 0)
    state = rules.lay_out(
        state,
        _slots(state, m["markers"]),
        x=table.x[calls],
        y=table.y[calls],
        visible=jnp.any(mine, axis=1),
        layer=jnp.broadcast_to(m["frozen"].astype(jnp.int32), (MAX_CALLS,)),
        pixels=_recoloured(jnp.asarray(MARKER_GRID)[None], m["marker_colour"][latest]),
    )
    rows = jnp.zeros((PIXELS, PIXELS), bool).at[1:5, 1:5].set(True)
    inside = jnp.broadcast_to(m["target_rows"][:, :, None], (MAX_TARGETS, 4, 4))
    inside = jnp.pad(inside, ((0, 0), (1, PIXELS - 5), (1, PIXELS - 5)))
    border = _recoloured(jnp.asarray(TARGET_GRID)[None], m["target_colours"])
    state = rules.lay_out(
        state, _slots(state, m["targets"]), pixels=jnp.where(rows, inside, border)
    )
    background = jnp.full((MAX_TARGETS, PIXELS, PIXELS), m["bg_colour"], jnp.int8)
    state = rules.lay_out(state, _slots(state, m["backgrounds"]), pixels=background)
    banner = _slots(state, m["banner"])
    return rules.lay_out(state, banner, x=m["banner_x"], y=m["banner_y"], visible=m["banner_on"])


def ui(state, frame, game: Game):
    """The energy bar on row 53 (colour 2 for what is left, 3 for what is spent), and
    the banner of a level without a banner sprite: an outline of colour 8, 8 rows high."""
    m = memory_of(state)
    frame = rules.draw_rect(frame, 0, BOTTOM, rules.SCREEN, 1, 3)
    frame = rules.draw_rect(frame, 0, BOTTOM, m["energy"], 1, 2)
    shown = m["banner_on"] & (m["banner"] < 0)
    x, y, width = m["banner_x"], m["banner_y"], m["banner_width"]
    for left, top, wide, high in (
        (x, y, width, 1), (x, y + 7, width, 1), (x, y, 1, 8), (x + width - 1, y, 1, 8),
    ):  # fmt: skip
        frame = rules.draw_rect(frame, left, top, wide, high, 8, shown)
    return frame


def rule(state, action, game: Game):
    """An action's first frame: the fades, then a run started, a click or an undo."""
    m = faded(memory_of(state))
    board = board_of(state)
    runs = action.id == rules.ACTION5
    _start(m, board, runs)
    state, m, swapped = _click(state, m, action, game, action.id == rules.CLICK)
    state, m = _undo(state, m, action.id == rules.UNDO)
    state = with_memory(state, m)
    return rules.complete(_laid_out(state, m), ~runs & ~swapped)


def animate(state, action, game: Game):
    """An action's later frames: one frame of memory, laid out."""
    m, complete, won, lost = later_frame(memory_of(state), board_of(state))
    state = with_memory(state, m)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, lost)
    return rules.complete(_laid_out(state, m), complete)


def finish(state, action, game: Game):
    """``Game.finish``: an action's later frames a phase at a time on memory
    (``games/sb26_jumps.py``: a run of hundreds of frames in a few dozen passes, a
    placement's 6 in one), laid out once."""
    m, frames, complete, won, lost = run_to_end(
        memory_of(state), board_of(state), state.frame, game.max_frames
    )
    state = rules.at_frame(with_memory(state, m), frames)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, lost)
    return rules.complete(_laid_out(state, m), complete)


GAME = Game(
    **DATA.game_fields(),
    static_kinds=tuple(
        sorted(
            {s.kind for level in LEVELS for s in level.sprites if "pkpgflvjel" in s.tags}
            | {"pqezjimbse"}
        )
    ),
    repainted_kinds=(TARGET, "uzxwqmkrmk", "upbhqnvnyx", HIGHLIGHT, CURSOR, "lnzhvcagos"),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    finish=finish,
    finish_completes=True,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    reach=rules.SCREEN,
    undo_in_rule=True,
    max_frames=1001,  # arcengine's most frames an action may take (it raises after)
    memory={"packed": MEMORY.var},
    ui=ui,
    solutions=SOLUTIONS,
)
