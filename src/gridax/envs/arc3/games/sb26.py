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

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.sb26_levels import (
    AYAI,
    BACKDROP,
    BOTTOM,
    CLICKABLE,
    CORNER_PIXELS,
    CURSOR,
    DATA,
    DEPTH,
    ENERGY,
    GHOST,
    HIGHLIGHT,
    ITEM,
    LEVELS,
    MAX_CALLS,
    MAX_FRAMES,
    MAX_ITEMS,
    MAX_SLOTS,
    MAX_SPOTS,
    MAX_TARGETS,
    MJEQ,
    MROK0,
    MROK1,
    NUM_ACTORS,
    NUM_SLOTS,
    OHVA,
    SLOT_INSET,
    SLOT_STEP,
    SOLUTIONS,
    SPOT,
    TARGET,
    UNDO_DEPTH,
    corner_places,
)
from gridax.envs.arc3.games.sb26_run import (
    IDLE,
    SWAP,
    WAIT,
    board_of,
    fade,
    faded,
    later_frame,
    place,
    set_at,
    set_phase,
)
from gridax.envs.arc3.rules import Game, Var

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
    set_at(m, "actor_visible", GHOST, True, when)
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


def _click(state, m, action, game: Game, when):
    """ACTION6 (``(state, memory, swapped)``): select, move the selection, deselect, or
    place the selected item (a swap of places, or onto a spot: the spot it leaves shown,
    the one it takes hidden), the placement pushed for undo."""
    table = state.table
    hit = rules.sprite_at(state, action.x, action.y, game, tag=CLICK_TAG)
    safe = jnp.maximum(hit, 0)
    item = when & (hit >= 0) & table.tags[safe, ITEM_TAG]
    spot = when & (hit >= 0) & table.tags[safe, SPOT_TAG]
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
    left = rules.sprite_at(state, table.x[held], table.y[held], game, tag=SPOT_TAG)
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
    state = rules.lay_out(
        state, m["actors"], x=x, y=y, visible=m["actor_visible"][actor], pixels=grids
    )
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
    m = state.memory
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
    m = faded(dict(state.memory))
    board = board_of(state)
    runs = action.id == rules.ACTION5
    _start(m, board, runs)
    state, m, swapped = _click(state, m, action, game, action.id == rules.CLICK)
    state, m = _undo(state, m, action.id == rules.UNDO)
    state = rules.update_memory(state, m)
    return rules.complete(_laid_out(state, m), ~runs & ~swapped)


def animate(state, action, game: Game):
    """An action's later frames: one frame of memory, laid out."""
    m, complete, won, lost = later_frame(dict(state.memory), board_of(state))
    state = rules.update_memory(state, m)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, lost)
    return rules.complete(_laid_out(state, m), complete)


def finish(state, action, game: Game):
    """``Game.finish``: an action's later frames in one loop over memory (a run of
    hundreds of frames, a placement's 6), laid out once."""
    board = board_of(state)

    def running(carry):
        _, frames, complete, _, _ = carry
        return ~complete & (frames < game.max_frames)

    def one_frame(carry):
        m, frames, _, won, lost = carry
        m, complete, now_won, now_lost = later_frame(m, board)
        return m, frames + 1, complete, won | now_won, lost | now_lost

    start = (dict(state.memory), state.frame, jnp.bool_(False), jnp.bool_(False), jnp.bool_(False))
    m, frames, complete, won, lost = jax.lax.while_loop(running, one_frame, start)
    state = rules.at_frame(rules.update_memory(state, m), frames)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, lost)
    return rules.complete(_laid_out(state, m), complete)


_ACTORS = NUM_ACTORS
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
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    reach=rules.SCREEN,
    undo_in_rule=True,
    max_frames=1001,  # arcengine's most frames an action may take (it raises after)
    memory={
        # The level's lists (games/sb26_levels.py), set as it starts.
        "frames": Var(shape=(MAX_FRAMES,), value=-1),
        "frame_slots": Var(shape=(MAX_FRAMES,)),
        "frame_colours": Var(shape=(MAX_FRAMES,), value=-1),
        "targets": Var(shape=(MAX_TARGETS,), value=-1),
        "target_colours": Var(shape=(MAX_TARGETS,), value=-1),
        "num_targets": Var(),
        "items": Var(shape=(MAX_ITEMS,), value=-1),
        "item_colours": Var(shape=(MAX_ITEMS,), value=-1),
        "calls": Var(shape=(MAX_CALLS,), value=-1),
        "spots": Var(shape=(MAX_SPOTS,), value=-1),
        "backgrounds": Var(shape=(MAX_TARGETS,), value=-1),
        "actors": Var(shape=(_ACTORS + 3,), value=-1),
        "markers": Var(shape=(MAX_CALLS,), value=-1),
        "banner": Var(value=-1),
        # Play.
        "energy": Var(value=ENERGY),
        "selected": Var(value=-1),
        "history": Var(shape=(UNDO_DEPTH, 3), value=-1),
        "history_size": Var(),
        # A run.
        "phase": Var(value=IDLE),
        "timer": Var(),
        "p": Var(),
        "depth": Var(),
        "stack_frame": Var(shape=(DEPTH,)),
        "stack_slot": Var(shape=(DEPTH,)),
        "returning": Var("bool"),
        "slot_of": Var(shape=(MAX_FRAMES, MAX_SLOTS), value=-1),
        "motion": Var(shape=(2, 7)),
        "frozen": Var("bool"),
        # The sprites it moves and recolours.
        "actor_x": Var(shape=(_ACTORS,)),
        "actor_y": Var(shape=(_ACTORS,)),
        "actor_colour": Var("int8", (_ACTORS,)),
        "actor_fade": Var("int8", (_ACTORS,), -1),
        "actor_visible": Var("bool", (_ACTORS,)),
        "cursor_width": Var(),
        "bg_colour": Var("int8", value=5),
        "bg_fade": Var("int8", value=-1),
        "target_rows": Var("int8", (MAX_TARGETS, 4), -1),
        "marker_call": Var(shape=(DEPTH,)),
        "marker_colour": Var("int8", (DEPTH,)),
        "marker_fade": Var("int8", (DEPTH,), -1),
        "marker_count": Var(),
        "banner_on": Var("bool"),
        "banner_x": Var(),
        "banner_y": Var(),
        "banner_width": Var(value=1),
    },
    ui=ui,
    solutions=SOLUTIONS,
)
