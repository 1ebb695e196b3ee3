"""s5i5 (ARC Prize's ARC-AGI-3 public game, version a48e4b1d), frame for frame. Click
only (ACTION6).

**Arms** (tag ``agujdcrunq``) are bars 3 cells broad, of one colour, most with a *base*
(a row of colour 3) across one end: the end they turn and grow from. An arm's way is
where its base is (the original's 0, 90, 180, 270: base at the bottom, left, top,
right). Arms of colour 15 with holes are walls; they never move. Arms **carry** sprites:
the goals' movers (``zylvdxoiuq``) they touch when the level starts, and the arms the
level's ``Children`` pairs name; what a carried arm carries comes along, once for every
way it is reached (the original recurses through its sets).

- A **resize button** (``gdgcpukdrl``) drives the arms whose colour it shows. A click on
  its far half (right, or lower for an upright one) makes each of them 3 cells longer,
  on its near half 3 cells shorter (down to 3); the base stays, the other end moves, and
  what the arm carries moves with it.
- A **turn button** (``myzmclysbl``) turns every arm of its colour (its middle pixel) a
  quarter counter-clockwise around its base, with all it carries; an arm whose way is
  opposite to its first parent's, less a quarter, turns twice.
- If any two arms (walls included) then overlap, the frame shows it, and the next frame
  puts every sprite back as it was (the action takes two frames).
- The level is complete when every goal (``cpdhnkdobh``) has a mover on its cell.

Every click spends one of the level's clicks (``StepCounter``); the bottom row shows
``round(64 * left / clicks)`` pixels of colour 3, the rest 4. With none left, a click that
does not complete the level loses the game. The original's camera draws the sprites in
the level's order, whatever their layers: the levels here have every layer 0.

The original's Python state, as memory: the clicks (``moves``, ``moves_left``), and the
sprites as they were before a click that made arms overlap (``saved``: every slot's
place, size and way, while ``reverting``). Facts of the level data
(``s5i5_levels``): which arms each button drives (``drives``), what each arm carries and
in how many ways (``ways``), each arm's first parent (``parent``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.s5i5_levels import (
    ARM,
    BREADTH,
    CAP,
    DATA,
    GOAL,
    MOVER,
    NUM_SLOTS,
    RESIZER,
    ROTATOR,
    WINDOW,
    WINDOW_FROM,
    level_of,
)
from gridax.envs.arc3.rules import Game, Var

# The widest wall is 70 cells. Arms grow with clicks, and the walls seem to bound them
# short of 72 before they overlap one: NOT MEASURED yet (see the branch's note); an arm
# longer than PIXELS would be drawn wrong.
PIXELS = 72
BAR_LEFT, BAR_SPENT = 3, 4
UP, LEFT, DOWN, RIGHT = 0, 1, 2, 3  # an arm's way in quarters: where its base is
SLOTS = np.arange(NUM_SLOTS)


class Geometry(NamedTuple):
    """Every slot's place, size and way (``[N]`` each): all a click changes. A click
    works on this and writes it to the sprites once (:func:`_apply`); an arm's pixels
    follow from its size and way."""

    x: jax.Array
    y: jax.Array
    height: jax.Array
    width: jax.Array
    way: jax.Array


def _geometry(state) -> Geometry:
    """The sprites' geometry; the way as the original reads it from the pixels (base
    along the bottom row, else the left column, else the top row, else the right)."""
    table = state.table
    pixels, height = table.pixels, table.height
    bottom = pixels[SLOTS, jnp.maximum(height - 1, 0), 1] == CAP
    left, top = pixels[:, 1, 0] == CAP, pixels[:, 0, 1] == CAP
    way = jnp.where(bottom, UP, jnp.where(left, LEFT, jnp.where(top, DOWN, RIGHT)))
    return Geometry(table.x, table.y, height, table.width, way)


def _choose(pred, new: Geometry, old: Geometry) -> Geometry:
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), new, old)


def _solid(state):
    """``[N]``: the sprite has no transparent pixel (an arm, not a wall)."""
    table = state.table
    rows = jnp.arange(PIXELS)[None, :, None] < table.height[:, None, None]
    cols = jnp.arange(PIXELS)[None, None, :] < table.width[:, None, None]
    return ~jnp.any((table.pixels == rules.TRANSPARENT) & rows & cols, axis=(1, 2))


def _apply(state, g: Geometry):
    """The sprites placed as ``g`` says, and the arms (walls aside) drawn anew at their
    size: their colour (pixel (1, 1)) with, for those that have one, the base along
    their way."""
    table = state.table
    arms = rules.tagged(state, ARM) & _solid(state)
    capped = jnp.any(table.pixels == CAP, axis=(1, 2))[:, None, None]
    colour = table.pixels[:, 1, 1][:, None, None]
    rows = jnp.arange(PIXELS)[None, :, None]
    cols = jnp.arange(PIXELS)[None, None, :]
    h, w, way = g.height[:, None, None], g.width[:, None, None], g.way[:, None, None]
    base = jnp.where(
        way == UP,
        rows == h - 1,
        jnp.where(way == LEFT, cols == 0, jnp.where(way == DOWN, rows == 0, cols == w - 1)),
    )
    pixels = jnp.where(capped & base, jnp.int8(CAP), colour)
    state = rules.resize(state, arms, g.height, g.width)
    state = rules.repaint(state, arms, jnp.where((rows < h) & (cols < w), pixels, -1))
    return rules.place(state, SLOTS >= 0, g.x, g.y)


# --- buttons --------------------------------------------------------------------------


def _resized(g: Geometry, drives, carried, grow, shrink) -> Geometry:
    """Each arm ``drives`` marks 3 cells longer (``grow``) or shorter (``shrink``, down
    to 3): its base kept, its end and all it carries moved (``carried``: ``[arm, slot]``,
    the ways each slot is carried). Resizes commute (each moves sprites and sets only
    its own arm's size), so all are made at once."""
    length = jnp.maximum(g.height, g.width) // BREADTH
    changing = drives & (grow | (shrink & (length > 1)))
    new = BREADTH * jnp.where(grow, length + 1, length - 1)
    upright = (g.way == UP) | (g.way == DOWN)
    height = jnp.where(changing, jnp.where(upright, new, BREADTH), g.height)
    width = jnp.where(changing, jnp.where(upright, BREADTH, new), g.width)
    # the arm's end moves by dx, dy; the arm itself moves where it grows up or left
    dx = jnp.where(g.way == LEFT, width - g.width, jnp.where(g.way == RIGHT, g.width - width, 0))
    dy = jnp.where(g.way == DOWN, height - g.height, jnp.where(g.way == UP, g.height - height, 0))
    own_x, own_y = jnp.where(g.way == RIGHT, dx, 0), jnp.where(g.way == UP, dy, 0)
    carried_x, carried_y = dx @ carried, dy @ carried
    return Geometry(g.x + own_x + carried_x, g.y + own_y + carried_y, height, width, g.way)


def _turned(g: Geometry, arm, times, carried) -> Geometry:
    """Arm ``arm`` turned ``times`` quarters counter-clockwise around its base, with what
    it carries (a carried slot once per way it is carried)."""
    pivot_x = jnp.where(g.way[arm] == RIGHT, g.x[arm] + g.width[arm] - BREADTH, g.x[arm])
    pivot_y = jnp.where(g.way[arm] == UP, g.y[arm] + g.height[arm] - BREADTH, g.y[arm])
    turns = (times * ((arm == SLOTS).astype(jnp.int32) + carried[arm])) % 4
    for quarter in range(3):
        turning = turns > quarter
        quarter_turned = Geometry(
            pivot_x - pivot_y + g.y,
            pivot_y + pivot_x - g.x - (g.width - BREADTH),
            g.width,
            g.height,
            (g.way + 3) % 4,
        )
        g = _choose(turning, quarter_turned, g)
    return g


def _turn_all(state, g: Geometry, button) -> Geometry:
    """A turn button clicked: every arm of its colour (its middle pixel) turned, in the
    level's order; one whose way is opposite its first parent's, less a quarter, twice."""
    table, memory = state.table, state.memory
    middle = table.height[button] // 2
    turning = rules.tagged(state, ARM) & (
        table.pixels[:, 1, 1] == table.pixels[button, middle, middle]
    )

    def one(arm, g):
        parent = memory["parent"][arm]
        opposite = (parent >= 0) & (jnp.abs(90 * g.way[arm] - 90 - 90 * g.way[parent]) == 180)
        turned = _turned(g, arm, jnp.where(opposite, 2, 1), memory["ways"])
        return _choose(turning[arm], turned, g)

    return jax.lax.fori_loop(0, NUM_SLOTS, one, g)


def _press(state, rotator, resizer, x, y):
    """A button clicked: its arms changed, and put back on the next frame if two
    overlap."""
    g = _geometry(state)
    state = rules.set_memory(state, "saved", jnp.stack(g))
    table = state.table
    across = table.width[resizer] > table.height[resizer]
    half = jnp.where(across, table.width[resizer], table.height[resizer]) // 2
    offset = jnp.where(across, x - table.x[resizer], y - table.y[resizer])
    drives = state.memory["drives"][resizer]
    resized = _resized(g, drives, state.memory["ways"], offset > half, offset < half)
    turned = _turn_all(state, g, rotator)
    g = _choose(rotator >= 0, turned, resized)
    state = _apply(state, g)
    return rules.set_memory(state, "reverting", _overlapping(state))


# --- overlaps -------------------------------------------------------------------------


def _overlapping(state):
    """Any two arms (walls included) overlap (the original's ``collides_with`` between
    every pair): solid arms by their boxes, walls by their pixels over the window."""
    table, arms = state.table, rules.tagged(state, ARM)
    solid = arms & _solid(state)
    walls = arms & ~solid
    left, top = table.x, table.y
    right, bottom = left + table.width, top + table.height
    boxes = (left[:, None] < right[None, :]) & (left[None, :] < right[:, None])
    boxes = boxes & (top[:, None] < bottom[None, :]) & (top[None, :] < bottom[:, None])
    pairs = boxes & solid[:, None] & solid[None, :] & (SLOTS[:, None] != SLOTS[None, :])
    cell_x, cell_y = rules.pixel_cells(state)
    drawn = (table.pixels != rules.TRANSPARENT) & walls[:, None, None]
    count = jnp.zeros((WINDOW, WINDOW), jnp.int32)
    count = count.at[cell_y - WINDOW_FROM, cell_x - WINDOW_FROM].add(
        drawn.astype(jnp.int32), mode="drop"
    )
    # Cells of wall under each solid arm's box: a summed-area table of the walls.
    area = jnp.pad(jnp.cumsum(jnp.cumsum(count > 0, axis=0), axis=1), ((1, 0), (1, 0)))

    def corner(x, y):
        return area[jnp.clip(y - WINDOW_FROM, 0, WINDOW), jnp.clip(x - WINDOW_FROM, 0, WINDOW)]

    under = corner(right, bottom) - corner(left, bottom) - corner(right, top) + corner(left, top)
    return jnp.any(pairs) | jnp.any(count >= 2) | jnp.any(solid & (under > 0))


# --- the rule -------------------------------------------------------------------------


def _revert(state):
    """Every sprite put back as it was before the click."""
    state = _apply(state, Geometry(*state.memory["saved"]))
    return rules.set_memory(state, "reverting", False)


def _click(state, action, game: Game):
    clicking = action.id == rules.CLICK
    left = state.memory["moves_left"]
    state = rules.set_memory(state, "moves_left", jnp.maximum(left - 1, 0), clicking)
    x, y, on_view = rules.clicked_cell(state, action)
    rotator = rules.sprite_at(state, x, y, game, tag=ROTATOR)
    resizer = jnp.where(rotator >= 0, -1, rules.sprite_at(state, x, y, game, tag=RESIZER))
    pressed = clicking & on_view & ((rotator >= 0) | (resizer >= 0))
    return rules.rarely(pressed, _press, state, rotator, resizer, x, y)


def _all_covered(state):
    table = state.table
    movers, goals = rules.tagged(state, MOVER), rules.tagged(state, GOAL)
    same = (table.x[:, None] == table.x[None, :]) & (table.y[:, None] == table.y[None, :])
    return jnp.all(jnp.any(same & movers[None, :], axis=1) | ~goals)


def rule(state, action, game: Game):
    reverting = state.memory["reverting"]
    state = rules.where(reverting, _revert(state), _click(state, action, game))
    settled = ~state.memory["reverting"]
    won = settled & _all_covered(state)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, settled & ~won & (state.memory["moves_left"] == 0))
    return rules.complete(state, settled)


def ui(state, frame, game: Game):
    """The bottom row: the clicks left, ``round(64 * left / clicks)`` pixels of colour 3."""
    full = rules.rounded_share(state.memory["moves_left"], state.memory["moves"], rules.SCREEN)
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, full, 1, BAR_LEFT)


GAME = Game(
    **DATA.game_fields(),
    levels=tuple(level_of(n) for n in range(len(DATA.levels))),
    rule=rule,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    reach=PIXELS,
    memory={
        "moves": Var(value=1),  # the level's StepCounter (1: never a zero divisor)
        "moves_left": Var(),
        "ways": Var("int32", (NUM_SLOTS, NUM_SLOTS)),
        "parent": Var("int32", (NUM_SLOTS,), -1),
        "drives": Var("bool", (NUM_SLOTS, NUM_SLOTS)),
        "saved": Var("int32", (5, NUM_SLOTS)),
        "reverting": Var("bool"),
    },
    max_frames=2,
    ui=ui,
)
