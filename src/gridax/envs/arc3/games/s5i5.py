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

The original's Python state, as memory: the clicks (``moves``, ``moves_left``), every
slot's place, size and way (``geometry``: an arm may grow longer than the table's
sprites, which hold the part of it near the screen), and the same as it was before a
click that made arms overlap (``saved``, while ``reverting``). Facts of the level data
(``s5i5_levels``): which arms each button drives (``drives``), what each arm carries and
in how many ways (``ways``), each arm's first parent (``parent``), each sprite's colour,
whether it has a base (``capped``) and whether it is not a wall (``solid``).
"""

from __future__ import annotations

import functools
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
    DOWN,
    GOAL,
    LEFT,
    LEVELS,
    MOVER,
    NUM_SLOTS,
    RESIZER,
    RIGHT,
    ROTATOR,
    UP,
    WALL_AREAS,
    WINDOW,
    WINDOW_FROM,
    turns_of,
)
from gridax.envs.arc3.rules import Game, Var

# An arm may grow past any bound (some levels leave room to): the table holds the part
# of it inside SEEN_FROM..SEEN_TO, the memory its whole. The screen is cells 0-63: an arm
# wholly outside it is drawn as one block in the margin, unseen. The table holds an arm
# lengthwise, BREADTH rows of up to PIXELS, turned to its way (s5i5_levels.lengthwise): a
# 72x72 grid a slot made s5i5's state 134 KB an env, and every pass over it slow.
PIXELS = 72
SEEN_FROM, SEEN_TO = -4, 68
assert SEEN_TO - SEEN_FROM <= PIXELS
BAR_LEFT, BAR_SPENT = 3, 4
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
    return Geometry(*state.memory["geometry"])


def _choose(pred, new: Geometry, old: Geometry) -> Geometry:
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), new, old)


def _seen(start, length):
    """The part of ``[start, start + length)`` the table holds: its cells inside
    ``SEEN_FROM..SEEN_TO``, or 3 cells beyond the screen for an arm wholly outside."""
    first = jnp.clip(start, SEEN_FROM, SEEN_TO - BREADTH)
    last = jnp.clip(start + length, first + BREADTH, SEEN_TO)
    return first, last - first


def _apply(state, g: Geometry):
    """``g`` kept in memory, the sprites placed as it says, and the arms (walls aside)
    drawn anew: the part of them near the screen (:func:`_seen`), in their colour, with
    the base along their way for those that have one (an arm without a base reads as
    way ``RIGHT``, as the original reads it from its pixels), held lengthwise and
    turned (``s5i5_levels.turns_of``)."""
    memory = state.memory
    g = g._replace(way=jnp.where(memory["capped"], g.way, RIGHT))
    state = rules.set_memory(state, "geometry", jnp.stack(g))
    arms = rules.tagged(state, ARM) & memory["solid"]
    x, width = _seen(g.x, g.width)
    y, height = _seen(g.y, g.height)
    turns = turns_of(g.way, height > width)
    state = rules.resize(state, arms, BREADTH, jnp.maximum(height, width))
    state = rules.set_rotation(state, arms, 90 * turns)
    state = rules.place(state, SLOTS >= 0, jnp.where(arms, x, g.x), jnp.where(arms, y, g.y))
    cell_x, cell_y = rules.pixel_cells(state)  # where each pixel of the grids is drawn
    top, left = g.y[:, None, None], g.x[:, None, None]
    bottom = top + g.height[:, None, None] - 1
    right = left + g.width[:, None, None] - 1
    way = g.way[:, None, None]
    base = jnp.where(
        way == UP,
        cell_y == bottom,
        jnp.where(
            way == LEFT, cell_x == left, jnp.where(way == DOWN, cell_y == top, cell_x == right)
        ),
    )
    inside = (cell_y >= top) & (cell_y <= bottom) & (cell_x >= left) & (cell_x <= right)
    colour = memory["colour"][:, None, None].astype(jnp.int8)
    pixels = jnp.where(memory["capped"][:, None, None] & base, jnp.int8(CAP), colour)
    return rules.repaint(state, arms, jnp.where(inside, pixels, jnp.int8(rules.TRANSPARENT)))


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


def _turn_all(state, g: Geometry, button, game: Game) -> Geometry:
    """A turn button clicked: every arm of its colour (its middle pixel) turned, in the
    level's order; one whose way is opposite its first parent's, less a quarter, twice."""
    middle = state.table.height[button] // 2
    shown = rules.source_pixel(state, button, middle, middle, game).astype(jnp.int32)
    memory = state.memory
    turning = rules.tagged(state, ARM) & (memory["colour"] == shown)

    def one(arm, g):
        parent = memory["parent"][arm]
        opposite = (parent >= 0) & (jnp.abs(90 * g.way[arm] - 90 - 90 * g.way[parent]) == 180)
        turned = _turned(g, arm, jnp.where(opposite, 2, 1), memory["ways"])
        return _choose(turning[arm], turned, g)

    return jax.lax.fori_loop(0, NUM_SLOTS, one, g)


def _press(state, rotator, resizer, x, y, game: Game):
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
    turned = _turn_all(state, g, rotator, game)
    g = _choose(rotator >= 0, turned, resized)
    state = _apply(state, g)
    return rules.set_memory(state, "reverting", _overlapping(state))


# --- overlaps -------------------------------------------------------------------------


def _overlapping(state):
    """Any two arms (walls included) overlap (the original's ``collides_with`` between
    every pair): solid arms by their boxes, walls by their pixels over the window (the
    level's walls never move, nor overlap one another: ``s5i5_levels.wall_area``)."""
    arms, g = rules.tagged(state, ARM), _geometry(state)
    solid = arms & state.memory["solid"]
    left, top = g.x, g.y
    right, bottom = left + g.width, top + g.height
    boxes = (left[:, None] < right[None, :]) & (left[None, :] < right[:, None])
    boxes = boxes & (top[:, None] < bottom[None, :]) & (top[None, :] < bottom[:, None])
    pairs = boxes & solid[:, None] & solid[None, :] & (SLOTS[:, None] != SLOTS[None, :])

    def corner(x, y):  # cells of wall above and left of world cell (x, y)
        row, column = jnp.clip(y - WINDOW_FROM, 0, WINDOW), jnp.clip(x - WINDOW_FROM, 0, WINDOW)
        return jnp.asarray(WALL_AREAS)[state.level, row, column]

    under = corner(right, bottom) - corner(left, bottom) - corner(right, top) + corner(left, top)
    return jnp.any(pairs) | jnp.any(solid & (under > 0))


# --- the rule -------------------------------------------------------------------------


def _revert(state):
    """Every sprite put back as it was before the click."""
    state = _apply(state, Geometry(*state.memory["saved"]))
    return rules.set_memory(state, "reverting", False)


def _click(state, action, game: Game, acting):
    """A click, where ``acting`` (not the frame that puts back an overlap)."""
    clicking = acting & (action.id == rules.CLICK)
    left = state.memory["moves_left"]
    state = rules.set_memory(state, "moves_left", jnp.maximum(left - 1, 0), clicking)
    x, y, on_view = rules.clicked_cell(state, action)
    rotator = rules.sprite_at(state, x, y, game, tag=ROTATOR)
    resizer = jnp.where(rotator >= 0, -1, rules.sprite_at(state, x, y, game, tag=RESIZER))
    pressed = clicking & on_view & ((rotator >= 0) | (resizer >= 0))
    press = functools.partial(_press, game=game)  # the game is static: no batched value
    return rules.rarely(pressed, press, state, rotator, resizer, x, y)


def _all_covered(state):
    table = state.table
    movers, goals = rules.tagged(state, MOVER), rules.tagged(state, GOAL)
    same = (table.x[:, None] == table.x[None, :]) & (table.y[:, None] == table.y[None, :])
    return jnp.all(jnp.any(same & movers[None, :], axis=1) | ~goals)


def _settle(state, game: Game):
    """The end of a frame: unless an overlap is to be put back, the action done, the
    level won when every goal is covered, else the game lost without moves."""
    settled = ~state.memory["reverting"]
    won = settled & _all_covered(state)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, settled & ~won & (state.memory["moves_left"] == 0))
    return rules.complete(state, settled)


def rule(state, action, game: Game):
    reverting = state.memory["reverting"]
    state = rules.rarely(reverting, _revert, state)
    return _settle(_click(state, action, game, ~reverting), game)


def animate(state, action, game: Game):
    """An action's later frame: the overlap its click made put back."""
    return _settle(_revert(state), game)


def ui(state, frame, game: Game):
    """The bottom row: the clicks left, ``round(64 * left / clicks)`` pixels of colour 3."""
    full = rules.rounded_share(state.memory["moves_left"], state.memory["moves"], rules.SCREEN)
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, full, 1, BAR_LEFT)


# --- winning runs ---------------------------------------------------------------------

# Per level, the clicks of a winning run: the points clicked, and the run as letters
# (``a`` the first point). Levels 0 and 1 by breadth-first search, 2-5 and 7 by beam
# search (``tests/tools/solve_s5i5.py``); level 6, whose mover goes round two walls at
# the end of a chain of four arms, by hand (the tool's docstring says how).
POINTS = (
    ((43, 21), (24, 42)),
    ((10, 57), (25, 57), (40, 57), (55, 57)),
    ((12, 48), (14, 57), (33, 57), (50, 48), (33, 48), (52, 57), (31, 57)),
    ((32, 54), (8, 57), (55, 48), (10, 48), (55, 57)),
    ((53, 57), (40, 57), (8, 57), (25, 57), (55, 57), (38, 57)),
    ((30, 57), (50, 48), (12, 48), (51, 57), (31, 48), (13, 57), (32, 57)),
    (
        (56, 51),
        (60, 58),
        (58, 51),
        (6, 58),
        (28, 51),
        (17, 51),
        (39, 51),
        (8, 51),
        (8, 58),
        (30, 51),
        (30, 58),
    ),
    ((10, 56), (49, 18), (57, 11), (43, 4), (43, 11), (24, 56), (41, 4), (41, 11)),
)
RUNS = (
    "aaaaaaabbbbbb",
    "aaaaaaaabbbbbbbbccddddddcc",
    "abbbccddaaaaeeeeeeeeeeefffgfedddccccccc",
    "aaabbbbbbbaaaacdeacdeacdeacdea",
    "aabcdddbbbcecefffccdddbbbddd",
    "abbbcddaceedfdfdfdffffbfffggggbfg",
    "aabbccdeffghhhhhhhhiiiiiiiiiiiiiggjjjjjjjkkkkkk",
    "abbbcddefffgbbbeeaahhfbbbcfcccccccaacccc",
)
SOLUTIONS = tuple(
    tuple((rules.CLICK, *points[ord(letter) - ord("a")]) for letter in run)
    for points, run in zip(POINTS, RUNS, strict=True)
)


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "anedvgcwyu bugouggabo crizqgtspi csewylpqnh cuykgjlznu dlyghqvdlr dwgllpjrka dxgsplbcdi "
    "eduyudjgpz efimqcucuz fpqwzzjifs gcvdxoxnwv gdgaedmejp gfjkihuvil ilmeegdqae instimfkuq "
    "iqfzjqrfyu jbhfimpvgt jrqapndtos kkxxwxgizv kuttnuxntg kuvfhdmqbz mvfzjgigjc nlektsynju "
    "nurpoywvho nzskdqpisy oupeuxupuy oxlmzkxlwo ozleyfpipy pcovmzgxdv pkxlhmidfi qnuxeaowwc "
    "qwaikxfvfx ruktfcnnju rzkqifogln sacxfjdztm shbgiallgn tksrscbnck tmvmrsvvke uhngzgwqzz "
    "umhgoiayzk uurtduofts vcjjjmwpuk vgzxuhvxge vmgdnqtxsp xipfwfleij xkfyibfspw xzljlcucab "
    "yxqzzpbnam zdzrlogohr zmohjixbwr zrwegmmtib"
)

GAME = Game(
    **DATA.game_fields(),
    static_kinds=rules.kinds_but(DATA.kinds, MOVING_KINDS),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    num_slots=NUM_SLOTS,
    pixel_size=(BREADTH, PIXELS),
    reach=PIXELS,
    memory={
        "moves": Var(value=1),  # the level's StepCounter (1: never a zero divisor)
        "moves_left": Var(),
        "ways": Var("int32", (NUM_SLOTS, NUM_SLOTS)),
        "parent": Var("int32", (NUM_SLOTS,), -1),
        "drives": Var("bool", (NUM_SLOTS, NUM_SLOTS)),
        "geometry": Var("int32", (5, NUM_SLOTS)),
        "colour": Var("int32", (NUM_SLOTS,)),
        "capped": Var("bool", (NUM_SLOTS,)),
        "solid": Var("bool", (NUM_SLOTS,)),
        "saved": Var("int32", (5, NUM_SLOTS)),
        "reverting": Var("bool"),
    },
    max_frames=2,
    ui=ui,
    solutions=SOLUTIONS,
)
