"""cn04 (ARC Prize's ARC-AGI-3 public game, version 65d47d14), frame for frame.

Pieces lie on a 20x20 board; each has plugs, pixels of colour 8. The level is solved
when every plug of every piece sits on the same cell as exactly one plug of another
piece. One piece at a time is selected (drawn on top, on layer 4):

- ACTION1-4 move it one cell up, down, left or right, unless it would leave the board;
- ACTION5 turns it 90 degrees clockwise about its top-left corner (it may then stick
  out of the board, and moves that keep it out are refused);
- a click on another piece selects that one; a click on the selected piece puts it
  down, leaving nothing selected.

After each move or turn, every plug that meets exactly one other plug turns colour 3,
and the level is checked. The selected piece shows its plugs and joins and paints the
rest of itself colour 0; the others show their own colours. On the fifth level the
pieces are hidden: every piece but the selected one is drawn all in colour 4.

A level starts with the piece nearest the board's top-left corner selected (least
``x**2 + y**2``, the first in sprite order on a tie), and the camera painted the
level's background colour. Each level allows 150 actions; the 150th loses the game.
A bar along the top of the screen (32 pixels, from x = 16) shows the actions left:
``round(32 * left / 150)`` pixels of colour 4 on the right, the rest colour 0.

Three quirks of the original are kept, for exactness:

- a piece put down by a click shows the pixels it had when it was selected (the joins
  of that time) until the next selection repaints every piece;
- a click finds the piece under it in the order of the layers at the level's first
  click (arcengine sorts a level's sprites once), not the layers of the moment;
- the level's data file has every piece's pixels as declared; the game's memory keeps
  them (``original``), as the original keeps a copy of each by name.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Game, Var

DATA = rules.official.load("cn04")
SLOTS = max(len(level.sprites) for level in DATA.levels)
PIXELS = 7  # the largest piece is 7 pixels on a side
PLUG, JOINED, SHOWN, HIDDEN_FROM = 8, 3, 0, 4  # colours; HIDDEN_FROM: the first hidden level
MAX_PLUGS = max(
    sum(int((np.asarray(s.pixels) == PLUG).sum()) for s in level.sprites) for level in DATA.levels
)
ON_TOP = 4  # the selected piece's layer
ACTIONS_PER_LEVEL = 150
BAR_X, BAR_WIDTH, BAR_FULL, BAR_EMPTY = 16, 32, 4, 0


def _original_pixels(level) -> list:
    """A level's pieces' pixels, padded to ``[SLOTS, PIXELS, PIXELS]`` with transparency."""
    grid = np.full((SLOTS, PIXELS, PIXELS), rules.TRANSPARENT, np.int8)
    for slot, sprite in enumerate(level.sprites):
        rows = np.asarray(sprite.pixels)
        grid[slot, : rows.shape[0], : rows.shape[1]] = rows
    return grid.tolist()


def _plugs(level) -> list:
    """``[MAX_PLUGS, 3]``: (slot, row, col) of every plug of a level's pieces, padded with
    -1: the few pixels the joins are computed over (pieces never change their pixels)."""
    found = [
        (slot, int(row), int(col))
        for slot, sprite in enumerate(level.sprites)
        for row, col in zip(*np.nonzero(np.asarray(sprite.pixels) == PLUG), strict=True)
    ]
    return found + [(-1, -1, -1)] * (MAX_PLUGS - len(found))


def _level_memory(number: int, data) -> dict:
    level = DATA.levels[number]
    return {
        "original": _original_pixels(level),
        "plugs": _plugs(level),
        "background": data["BackgroundColour"],
    }


def _joined_plugs(state):
    """``[N, P, P]``: the plugs (of the original pixels) that share their world cell with
    exactly one other plug, with every piece as it lies and turns now."""
    slot, row, col = state.memory["plugs"].T
    real = (slot >= 0) & state.table.exists[slot]
    x, y = rules.pixel_cells(state)
    x, y = x[slot, row, col], y[slot, row, col]
    same_cell = (x[:, None] == x[None, :]) & (y[:, None] == y[None, :]) & real[None, :]
    joined = real & (jnp.sum(same_cell, axis=1) == 2)  # [K]
    at = (
        (jnp.arange(SLOTS)[:, None, None, None] == slot[None, None, None, :])
        & (jnp.arange(PIXELS)[None, :, None, None] == row[None, None, None, :])
        & (jnp.arange(PIXELS)[None, None, :, None] == col[None, None, None, :])
    )
    return jnp.any(at & joined[None, None, None, :], axis=-1)


def _hidden(state):
    return state.level >= HIDDEN_FROM


def _repaint_all(state):
    """Every piece drawn afresh from its original pixels (the selected one, the others,
    the joined plugs); ``(state, solved)``: whether every plug is joined."""
    original = state.memory["original"]
    joined = _joined_plugs(state)
    selected = (jnp.arange(SLOTS) == state.memory["selected"])[:, None, None]
    opaque = original >= 0
    as_selected = jnp.where(
        _hidden(state),
        original,
        jnp.where(opaque & (original != PLUG) & (original != JOINED), SHOWN, original),
    )
    as_other = jnp.where(_hidden(state) & opaque, HIDDEN_FROM, original)
    pixels = jnp.where(selected, as_selected, as_other)
    pixels = jnp.where(joined & (pixels == PLUG), JOINED, pixels)
    state = rules.repaint(state, state.table.exists, pixels)
    plugs = (original == PLUG) & state.table.exists[:, None, None]
    return state, jnp.all(joined | ~plugs)


def _put_down(state, when):
    """The selected piece back to layer 0 with the pixels it had when selected (hidden
    levels: all but its plugs in colour 4); nothing selected."""
    slot = state.memory["selected"]
    when = when & (slot >= 0)
    saved = state.memory["saved"]
    saved = jnp.where(_hidden(state) & (saved >= 0) & (saved != PLUG), HIDDEN_FROM, saved)
    state = rules.repaint(state, slot, saved, when)
    state = rules.set_layer(state, slot, 0, when)
    return rules.set_memory(state, "selected", -1, when)


def _select(state, slot, when):
    """Piece ``slot`` selected (the one selected before put down), every piece repainted."""
    state = _put_down(state, when)
    state = rules.set_layer(state, slot, ON_TOP, when)
    state = rules.set_memory(state, "saved", state.table.pixels[slot], when)
    state = rules.set_memory(state, "selected", slot, when)
    repainted, _ = _repaint_all(state)
    return rules.where(when, repainted, state)


def on_set_level(state, game: Game):
    """The level's colours, hidden pieces on hidden levels, and the piece nearest the
    top-left corner selected."""
    background = state.memory["background"]
    state = rules.set_camera_colours(state, background, background)
    original = state.memory["original"]
    hidden = jnp.where(original >= 0, HIDDEN_FROM, original)
    state = rules.repaint(state, state.table.exists & _hidden(state), hidden)
    table = state.table
    distance = jnp.where(table.exists, table.x**2 + table.y**2, jnp.iinfo(jnp.int32).max)
    # (arcengine repaints once more after the selection's repaint: the same pixels.)
    return _select(state, jnp.argmin(distance), jnp.any(table.exists))


def _click(state, action, game: Game):
    x, y, on_view = rules.clicked_cell(state, action)
    # arcengine sorts the sprites by layer at the level's first click, and keeps that order.
    first = on_view & ~state.memory["sorted"]
    state = rules.set_memory(state, "sort_layers", state.table.layer, first)
    state = rules.set_memory(state, "sorted", True, on_view)
    layers = state.memory["sort_layers"]
    hit = rules.sprite_at(state, x, y, game, ignore_collidable=True, layers=layers)
    hit_some = on_view & (hit >= 0)
    again = hit_some & (hit == state.memory["selected"])
    state = _put_down(state, again)
    return _select(state, hit, hit_some & ~again)


def _move_or_turn(state, action, game: Game):
    """ACTION1-5 on the selected piece, then the joins and the check for a solution."""
    slot = state.memory["selected"]
    dx, dy = rules.arrow_step(action)
    height, width = rules.drawn_size(state)
    x, y = state.table.x[slot] + dx, state.table.y[slot] + dy
    on_board = (x >= 0) & (y >= 0) & (x + width[slot] <= state.camera.width)
    on_board = on_board & (y + height[slot] <= state.camera.height)
    acting = slot >= 0
    state = rules.move(state, slot, dx, dy, acting & on_board)
    state = rules.rotate(state, slot, 90, acting & (action.id == rules.ACTION5))
    repainted, solved = _repaint_all(state)
    state = rules.where(acting, repainted, state)
    return rules.next_level(state, len(game.levels), acting & solved)


# A winning run of each level, planned from the rules (tests/tools/plan_cn04.py: a
# placement where every plug meets one other, then each piece selected, turned and
# moved there) and checked on the official file (the recorded trace's last episode).
SOLUTIONS = (
    (4, 4, 4, 2, 2, 2, 2, 2, 2),
    ((6, 24, 36), 4, 4, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, (6, 12, 12), 4, 4, 4, 4, 1, 1),
    (5, 4, 4, 4, 4, 4, 4, 2, 2, (6, 33, 36), 4, 4, 1, 1, 1, 1, 1),
    ((6, 33, 30), 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, (6, 48, 12), 3, 3, 3, 3, 2, 2, 2, 2, 2, 2),
    ((6, 45, 42), 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, (6, 18, 48), 4, 4, 4, 4, 4, 4, 1, 1, 1, 1,
     (6, 9, 12), 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 2),
)  # fmt: skip


def rule(state, action, game: Game):
    out_of_actions = state.action_count >= ACTIONS_PER_LEVEL
    state = rules.lose(state, out_of_actions)
    playing = ~out_of_actions
    clicked = rules.where(playing & (action.id == rules.CLICK), _click(state, action, game), state)
    moving = playing & (action.id >= rules.ACTION1) & (action.id <= rules.ACTION5)
    state = rules.where(moving, _move_or_turn(clicked, action, game), clicked)
    return rules.complete(state)


def ui(state, frame, game: Game):
    """The bar of actions left: its right part colour 4, the spent part colour 0."""
    left = jnp.clip(ACTIONS_PER_LEVEL - state.action_count, 0, ACTIONS_PER_LEVEL)
    full = rules.rounded_share(left, ACTIONS_PER_LEVEL, BAR_WIDTH)
    frame = rules.draw_rect(frame, BAR_X, 0, BAR_WIDTH, 1, BAR_FULL)
    return rules.draw_rect(frame, BAR_X, 0, BAR_WIDTH - full, 1, BAR_EMPTY)


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "dnkiufrohe dzfylahsaw glojtydbea gqxqpkuwab grpgefeksy hjqjqsmhmf lejuhuvrjg lxgvcnpsir "
    "nhppemmlcd oncjjftokv supigciwwi udepuflbbb vmgdxvpgkh ygyvhkssnz zhhaofpbyw"
)


GAME = Game(
    **DATA.game_fields(),
    static_kinds=rules.kinds_but(DATA.kinds, MOVING_KINDS),
    levels=DATA.game_levels(_level_memory),
    rule=rule,
    animate=rules.no_later_frames,
    pixel_size=PIXELS,
    reach=PIXELS,
    memory={
        "original": Var("int8", (SLOTS, PIXELS, PIXELS), rules.TRANSPARENT),
        "plugs": Var(shape=(MAX_PLUGS, 3), value=-1),
        "background": Var("int8"),
        "selected": Var(value=-1),
        "saved": Var("int8", (PIXELS, PIXELS), rules.TRANSPARENT),
        "sort_layers": Var(shape=(SLOTS,)),
        "sorted": Var("bool"),
    },
    max_frames=2,
    ui=ui,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
