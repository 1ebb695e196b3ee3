"""sp80 (ARC Prize's ARC-AGI-3 public game, version 0ee2d095), frame for frame.

Spouts (tag ``syaipsfndp``: their pixels of colour 4) pour water (``nkrtlkykwe``, 1x1,
colour 6) into cups (``xsrqllccpx``, a U of 2x3). The player moves bars
(``ksmzdcblcz``) and deflectors (``hfjpeygkxy``, an L of 2x2) to lead the water; the
level is solved when a pour fills every cup and touches no floor (``uzunfxpwmd``).

- ACTION6 on a bar or deflector (its box) selects it (drawn in colour 9, on layer 1);
  the piece nearest the top-left corner is selected when a level starts.
- ACTION1-4 move the selected piece a cell, unless it would reach the top three rows or
  a cell next to a cup; onto other bars and deflectors it goes anyway, onto anything
  else not.
- ACTION5 pours: the selection is dropped, every spout's pixel starts a stream below it
  (the level's own water under the fixed spouts, new water under a bar's spout), and
  each following frame every stream flows a cell: into an empty cell (new water), on
  through water; onto a bar it spreads to the empty cells beside it (across the flow);
  into a cup whose both sides are the cup it fills it (colour 13), else spreads; onto
  a deflector with the deflector on one side and nothing on the other it turns a
  quarter away from the deflector (else spreads); onto a floor it marks it (colour 14)
  and the pour fails. When no stream is left, a pour that filled every cup and touched
  no floor completes the level; else the touched floors and unfilled cups blink for six
  frames, the new water drains and the selection returns to the nearest piece. A level
  allows four pours.

Every action but RESET spends one of the level's steps; none left loses (the action's
frame still shows what it did). The top row of the screen shows ``round(64 * left /
steps)`` pixels of colour 14, the rest colour 0; on the levels that turn the screen
(their ``rotation``: 90, 180 or 270) the whole frame is then turned counterclockwise a
quarter that many times, and the arrows and clicks are turned back.

Poured water is one sprite here, a grid over the level (the original adds a 1x1 sprite
per cell, only where no sprite is: the same drawing); streams are a list of (cell,
direction) in the original's order, each once (a repeat would change nothing): their
flow is ``sp80_streams``. An agent's step (``frames="last"``) runs a pour's later frames
in one call (:func:`finish`): the streams on memory alone, the sprites painted once.

Memory: the mode (moving or pouring), the selection, steps and pours, the streams,
the water grid, and the pour's filled cups, touched floors and blink counter.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games import sp80_streams as water_flow
from gridax.envs.arc3.games.sp80_levels import (
    BAR,
    CUP,
    DATA,
    DEFLECTOR,
    FLOOR,
    LEVELS,
    MOVING_KINDS,
    NUM_SLOTS,
    PIECE_SIZE,
    PIXELS,
    POURED,
    SOLUTIONS,
    SPAN,
    SPOUT,
    SPOUT_WIDTH,
    WATER,
)
from gridax.envs.arc3.rules import Game, Var

SPOUT_COLOUR, WATER_COLOUR = 4, 6
BAR_COLOUR, DEFLECTOR_COLOUR, SELECTED_COLOUR = 8, 15, 9
CUP_COLOUR, CUP_FULL, CUP_BLINK = 11, 13, 0
FLOOR_COLOUR, FLOOR_TOUCHED = 1, 14
BAR_LEFT, BAR_SPENT = 14, 0
TOP_ROWS = 3  # a piece may not move into the top three rows
MAX_POURS = 4
BLINKS = 6
MOVING, POURING = 0, 1
# By quarter turn of the screen, the action each arrow stands for (ids 0-7).
ARROWS = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [0, 4, 3, 1, 2, 5, 6, 7],
                   [0, 2, 1, 4, 3, 5, 6, 7], [0, 3, 4, 2, 1, 5, 6, 7]], np.int32)  # fmt: skip
# A pour's outcome before it flows (and after it drains).
NO_POUR = {"filled": np.zeros(NUM_SLOTS, bool), "touched": np.zeros(NUM_SLOTS, bool),
           "failed": False, "settled": False}  # fmt: skip


def _slots():
    return jnp.arange(NUM_SLOTS)


def _set(state, **values):
    return rules.update_memory(state, values)


def _pieces(state):
    return rules.tagged(state, BAR) | rules.tagged(state, DEFLECTOR)


def _paint(state, which, colour, keep_spout=False):
    """Every drawn pixel of sprites ``which`` painted ``colour`` (but a spout's 4)."""
    pixels = state.table.pixels
    drawn = (pixels >= 0) & ~(keep_spout & (pixels == SPOUT_COLOUR))
    return rules.repaint(state, which, jnp.where(drawn, jnp.asarray(colour, jnp.int8), pixels))


# --- the selection ---------------------------------------------------------------------


def _deselect(state):
    m = state.memory
    slot = m["selected"]
    some = slot >= 0
    chosen = (_slots() == slot) & some
    colour = jnp.where(state.table.tags[slot, DEFLECTOR], DEFLECTOR_COLOUR, BAR_COLOUR)
    state = _paint(state, chosen, colour, keep_spout=True)
    state = rules.set_layer(state, chosen, 0)
    return rules.set_memory(state, "selected", -1)


def _select(state, slot, when: rules.Flag = True):
    """Piece ``slot`` selected (the last one dropped): colour 9 but its spout, layer 1."""
    selected = _deselect(state)
    chosen = _slots() == slot
    selected = _paint(selected, chosen, SELECTED_COLOUR, keep_spout=True)
    selected = rules.set_layer(selected, chosen, 1)
    selected = rules.set_memory(selected, "selected", slot)
    return rules.where(when, selected, state)


def _select_nearest(state):
    """The piece nearest the top-left corner (the first of the nearest, bars before
    deflectors, each in list order)."""
    table, pieces = state.table, _pieces(state)
    bars_first = jnp.where(table.tags[:, BAR], 0, 1) * NUM_SLOTS + _slots()
    distance = table.x**2 + table.y**2
    key = jnp.where(pieces, distance * 4 * NUM_SLOTS + bars_first, jnp.iinfo(jnp.int32).max)
    return _select(state, jnp.argmin(key), jnp.any(pieces))


def on_set_level(state, game: Game):
    """The original's colours (bars 8 but their spouts, cups 11, floors 1), then the
    nearest piece selected."""
    state = _paint(state, rules.tagged(state, BAR), BAR_COLOUR, keep_spout=True)
    state = _paint(state, rules.tagged(state, CUP), CUP_COLOUR)
    state = _paint(state, rules.tagged(state, FLOOR), FLOOR_COLOUR)
    state = rules.set_memory(state, "selected", -1)
    return _select_nearest(state)


# --- moving ---------------------------------------------------------------------------


def _allowed(state, slot, x, y):
    """The original's test of a piece's new place: below the top rows and not within a
    cell of any cup."""
    table = state.table
    height, width = rules.drawn_size(state)
    cups = rules.tagged(state, CUP)
    near = (x < table.x + width + 1) & (x + width[slot] > table.x - 1)
    near = near & (y < table.y + height + 1) & (y + height[slot] > table.y - 1)
    return (y >= TOP_ROWS) & ~jnp.any(cups & near)


def _move(state, action, game: Game):
    """ACTION1-4 on the selected piece: through other pieces, stopped by anything else."""
    m = state.memory
    slot = m["selected"]
    dx, dy = rules.arrow_step(action)
    table = state.table
    goes = _allowed(state, slot, table.x[slot] + dx, table.y[slot] + dy)
    moved, hit = rules.try_move(state, slot, dx, dy, game, size=PIECE_SIZE)
    through = jnp.any(hit) & ~jnp.any(hit & ~_pieces(state))
    moved = rules.move(moved, slot, dx, dy, through)
    return rules.where(goes, moved, state)


def _click(state, action, game: Game):
    """``(state, hit)``: ACTION6 on a piece's box selects it."""
    x, y, on_view = rules.clicked_cell(state, action)
    table = state.table
    height, width = rules.drawn_size(state)
    inside = (table.x <= x) & (x < table.x + width) & (table.y <= y) & (y < table.y + height)
    candidates = _pieces(state) & inside & on_view
    bars_first = jnp.where(table.tags[:, BAR], 0, 1) * NUM_SLOTS + _slots()
    slot = jnp.argmin(jnp.where(candidates, bars_first, jnp.iinfo(jnp.int32).max))
    hit = jnp.any(candidates)
    return _select(state, slot, hit), hit


def _turned_back(state, action):
    """The action as the unturned game sees it: arrows and clicks turned back."""
    turns, edge, x, y = state.memory["turns"], rules.SCREEN - 1, action.x, action.y
    unturned_x = jnp.stack([x, edge - y, edge - x, y])[turns]
    unturned_y = jnp.stack([y, x, edge - y, edge - x])[turns]
    return rules.Action(jnp.asarray(ARROWS)[turns, action.id], unturned_x, unturned_y)


# --- pouring --------------------------------------------------------------------------


def _pour(state, game: Game):
    """ACTION5: the selection dropped; the streams: the level's water (in list order),
    then a new water cell under every spout pixel with nothing below it."""
    state = _deselect(state)
    table = state.table
    streams, count = jnp.zeros((water_flow.STREAMS, 4), jnp.int32), jnp.int32(0)
    level_water = rules.tagged(state, WATER)
    down = jnp.stack([table.x, table.y, jnp.zeros_like(table.x), jnp.ones_like(table.x)], axis=1)
    streams, count = water_flow.append(streams, count, down, level_water)
    owners = water_flow.owners_at(state, game)
    kinds = water_flow.kinds_of(state, owners)
    cols = jnp.arange(SPOUT_WIDTH)
    spouts = rules.tagged(state, SPOUT)[:, None] & (
        table.pixels[:, 0, :SPOUT_WIDTH] == SPOUT_COLOUR
    )
    spouts = spouts & (cols[None, :] < table.width[:, None])
    x, y = (table.x[:, None] + cols[None, :]).ravel(), jnp.repeat(table.y + 1, SPOUT_WIDTH)
    empty = spouts.ravel() & (water_flow.kind_at(kinds, x, y) == water_flow.EMPTY)
    new = jnp.stack([x, y, jnp.zeros_like(x), jnp.ones_like(x)], axis=1)
    streams, count = water_flow.append(streams, count, new, empty)
    inside, row, column = water_flow.cell(x, y)
    water = jnp.zeros((SPAN, SPAN), bool).at[row, column].max(empty & inside)
    state = _set(state, mode=POURING, streams=streams, count=count, water=water, blinks=0)
    return _show_water(_set(state, owners=owners, **NO_POUR))


def _show_water(state):
    """The water sprite drawn from the water grid."""
    m = state.memory
    pixels = jnp.full(PIXELS, rules.TRANSPARENT, jnp.int8)
    pixels = pixels.at[:SPAN, :SPAN].set(jnp.where(m["water"], WATER_COLOUR, rules.TRANSPARENT))
    return rules.repaint(state, _slots() == m["poured"], pixels)


def _flowed(state, flowed):
    """The pour's memory after its streams flowed (``flowed``: ``water_flow.FLOWING``),
    the cups filled and the floors touched since painted, the water drawn."""
    m = state.memory
    state = _set(state, **flowed, settled=flowed["count"] == 0)
    state = _paint(state, flowed["filled"] & ~m["filled"], CUP_FULL)
    state = _paint(state, flowed["touched"] & ~m["touched"], FLOOR_TOUCHED)
    return _show_water(state)


def _flow(state, game: Game):
    """A frame of the pour: the streams flow; the pour settles when none is left."""
    return _flowed(state, water_flow.flow(water_flow.obstacles(state), state.memory))


def _drain(state):
    """After a failed pour: the poured water gone, cups and floors in their colours, a
    pour spent, the nearest piece selected."""
    m = state.memory
    state = _show_water(rules.set_memory(state, "water", np.zeros((SPAN, SPAN), bool)))
    state = _paint(state, rules.tagged(state, CUP), CUP_COLOUR)
    state = _paint(state, rules.tagged(state, FLOOR), FLOOR_COLOUR)
    state = _set(state, mode=MOVING, count=0, pours=m["pours"] + 1, **NO_POUR)
    return _select_nearest(state)


def _solved(state):
    """The pour filled every cup and touched no floor."""
    m = state.memory
    return ~m["failed"] & jnp.all(m["filled"] | ~rules.tagged(state, CUP))


def _settled(state, game: Game):
    """The frames after the last stream: the level complete, or six frames of blinking
    (touched floors 14 and 1, unfilled cups 0 and 11 for five), then the drain."""
    m = state.memory
    cups = rules.tagged(state, CUP)
    solved = _solved(state)
    blinks = m["blinks"]
    blinking = ~solved & (blinks < BLINKS)
    odd = blinks % 2 == 1
    state = _paint(state, m["touched"] & blinking, jnp.where(odd, FLOOR_TOUCHED, FLOOR_COLOUR))
    unfilled = cups & ~m["filled"] & blinking & (blinks < BLINKS - 1)
    state = _paint(state, unfilled, jnp.where(odd, CUP_COLOUR, CUP_BLINK))
    state = rules.set_memory(state, "blinks", blinks + 1, blinking)
    drained = _drain(state)
    drained = rules.lose(drained, drained.memory["steps_left"] <= 0)
    state = rules.where(~solved & ~blinking, drained, state)
    state = rules.next_level(state, len(game.levels), solved)
    return rules.complete(state, ~blinking)


def _act(state, action, game: Game):
    """A player's action (the pieces' mode)."""
    m = state.memory
    action = _turned_back(state, action)
    counts = action.id != rules.RESET
    left = jnp.maximum(m["steps_left"] - jnp.where(counts, 1, 0), 0)
    state = rules.set_memory(state, "steps_left", left)
    out = counts & (left <= 0)
    state = rules.complete(rules.lose(state, out), out)
    is_click = action.id == rules.CLICK
    clicked, hit = _click(state, action, game)
    hit = is_click & hit
    arrow = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION4)
    moving = ~hit & arrow & (m["selected"] >= 0)
    pours = ~hit & ~moving & (action.id == rules.ACTION5)
    spent = pours & (m["pours"] >= MAX_POURS)
    state = rules.where(hit, clicked, rules.where(moving, _move(state, action, game), state))
    state = rules.rarely(pours & ~spent, lambda state: _pour(state, game), state)
    state = rules.lose(state, spent)
    return rules.complete(state, ~(pours & ~spent))


def _pouring(state, game: Game):
    """A frame of the pour's animation: the streams flow, or it has settled."""
    return rules.where(state.memory["settled"], _settled(state, game), _flow(state, game))


def _poured(state, game: Game):
    """A pour's later frames in one call: the streams flow on memory alone, frame by
    frame, until none is left; the cups and floors they reached are painted once, the
    water drawn once; then the settling: a solved level's one frame, or six blinks and
    the drain in one (the blinks paint only cups and floors, which the drain paints
    again). A pour longer than ``Game.max_frames`` is left to the frame loop."""

    def flowing(carry):
        flowed, flows = carry
        return ((flows == 0) | (flowed["count"] > 0)) & (flows < game.max_frames)

    cells_met = water_flow.obstacles(state)

    def flow(carry):
        flowed, flows = carry
        return water_flow.flow(cells_met, flowed), flows + 1

    start = {name: state.memory[name] for name in water_flow.FLOWING}
    flowed, flows = jax.lax.while_loop(flowing, flow, (start, jnp.int32(0)))
    settling = _flowed(state, flowed)
    solved = _solved(settling)
    settling = rules.set_memory(settling, "blinks", BLINKS, ~solved)
    frames = state.frame + flows + jnp.where(solved, 1, BLINKS + 1)
    done = rules.at_frame(_settled(settling, game), frames)
    return rules.where(frames <= game.max_frames, done, state)


def finish(state, action, game: Game):
    """``Game.finish``: a pour in one call (:func:`_poured`), run on the envs that pour."""
    pouring = ~state.complete & (state.memory["mode"] == POURING)
    return rules.rarely(pouring, lambda state: _poured(state, game), state)


def rule(state, action, game: Game):
    # A pour's frames run apart from actions' first frames: a batch skips a phase whole.
    pouring = state.memory["mode"] == POURING
    state = rules.when_any(pouring, lambda state: _pouring(state, game), state)
    return rules.when_any(~pouring, lambda state, action: _act(state, action, game), state, action)


def ui(state, frame, game: Game):
    """The top row: the steps left, ``round(64 * left / steps)`` pixels of colour 14,
    the rest 0; then the screen turned (``turns`` quarters counterclockwise)."""
    m = state.memory
    full = rules.rounded_share(m["steps_left"], m["steps"], rules.SCREEN)
    frame = rules.draw_rect(frame, 0, 0, rules.SCREEN, 1, BAR_SPENT)
    frame = rules.draw_rect(frame, 0, 0, full, 1, BAR_LEFT)
    turned = jnp.stack([jnp.rot90(frame, k) for k in range(4)])
    return turned[m["turns"]]


GAME = Game(
    **{**DATA.game_fields(), "kinds": (*DATA.kinds, POURED)},
    static_kinds=rules.kinds_but((*DATA.kinds, POURED), MOVING_KINDS),
    levels=LEVELS,
    rule=rule,
    animate=lambda state, action, game: _pouring(state, game),  # later frames: a pour's
    finish=finish,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    reach=max(PIXELS),
    memory={
        "steps": Var(value=1),  # 1: never a zero divisor
        "steps_left": Var(),
        "turns": Var(),
        "poured": Var(),  # the slot of the poured water's sprite
        "mode": Var(value=MOVING),
        "selected": Var(value=-1),
        "pours": Var(),
        "streams": Var(shape=(water_flow.STREAMS, 4)),
        "owners": Var("int8", (SPAN, SPAN), -1),  # _owners, taken as the pour starts
        "count": Var(),
        "water": Var("bool", (SPAN, SPAN)),
        "filled": Var("bool", (NUM_SLOTS,)),
        "touched": Var("bool", (NUM_SLOTS,)),
        "failed": Var("bool"),
        "settled": Var("bool"),
        "blinks": Var(),
    },
    max_frames=64,
    ui=ui,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
