"""cd82 (ARC Prize's ARC-AGI-3 public game, version fb555c5d), frame for frame.

A 10x10 **canvas** (``xytrjjbyib``, all colour 0 at first) sits in the middle of the
screen; the level's **target** picture (``eoqnvkspoa-*``) is in the top-left corner. A
**basket** of paint stands at one of eight places around the canvas, clockwise from
the top: at even places it is the flat basket (``oaoosfneq-oaanwen``), at odd ones, the
corners, the diagonal one (``oaoosfneq-laopvne``), each turned to face the canvas. A row
of **swatches** (``pqkenviek``) along the top holds the level's colours; a small bar
(``ydiwkzjkgl``) marks the one chosen. The basket's contents (colour 15 in the file)
are drawn in the chosen colour, 15 at first.

- ACTION1-4 move the basket to the next place up, down, left or right on the ring of
  places (a 3x3 grid without its centre); a move into the centre or off the grid does
  nothing.
- ACTION5 pours: over 15 frames the basket slides 7 cells towards the canvas, paints its
  half of the canvas (flat baskets: the 5 rows or columns on their side; diagonal ones:
  the triangle on their side, the diagonal included) in the chosen colour, and slides
  back.
- From level 3 a **nozzle** (``ctwspzkygu``) stands beside the flat basket (even
  places). Clicking it squirts: over 15 frames it slides 14 cells (2 a frame) towards
  the canvas, paints a 4x3 block in the middle of the canvas's side, and slides back.
- Clicking a swatch chooses its colour (its centre pixel) and moves the bar under it.
- After a pour or a squirt, the level is complete when the canvas equals the target on
  every cell off its two diagonals.

Each level allows 100 actions: the 100th action loses the game before it does anything.
The bottom row of the screen is a bar of the actions left: ``round(64 * left / 100)``
pixels of colour 4 from the left, the rest colour 5.

Like the original, every change of place or colour takes the basket (and the nozzle)
out and adds them anew, last in the sprite order (the basket, then the nozzle), and a
level starts by taking out the basket and nozzle it declares and adding them so. Here
each is a reserved slot per level (the flat and diagonal baskets, the nozzle), out of
the level but when shown.

The screen's frame (``gkyfnkvrty``, 64x18 pixels, layer -1) is declared here as four
pieces of at most 18 columns, side by side in its place in the sprite order: it is
drawn the same, never changes and does nothing when clicked, and every sprite's pixel
grid stays 18 on a side instead of 64.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Game, Level, Var

DATA = rules.official.load("cd82")
FLAT, DIAGONAL, NOZZLE = "oaoosfneq-oaanwen", "oaoosfneq-laopvne", "ctwspzkygu"
RESERVED = (FLAT, DIAGONAL, NOZZLE)  # a slot each per level, absent but while shown
SWATCH, CANVAS, MARKER, FRAME = "pqkenviek", "xytrjjbyib", "ydiwkzjkgl", "gkyfnkvrty"
TARGET_PREFIX = "eoqnvkspoa-"  # the target's name (one per level) begins so
PIXELS = 18  # the diagonal basket is 17 on a side; the frame's pieces 18
SIZE = 10  # the canvas's and the target's side
FILL = 15  # a basket's or nozzle's contents in the file, drawn in the chosen colour
SWATCH_CENTRE = 2  # a swatch's colour is its pixel (2, 2)
MARKER_BELOW = 5  # the marker's cells below the chosen swatch's top
BUDGET = 100  # actions per level
SLIDE_FRAMES = 7  # frames a pour or squirt slides out, and then back
IDLE, POURING, SQUIRTING = 0, 1, 2
BAR_FULL, BAR_SPENT = 4, 5

# The basket's places, clockwise from the top (even places take the flat basket, odd
# ones, the corners, the diagonal): where it stands, how it is turned, and the cell a
# frame it slides by when pouring.
BASKET_XY = np.array(
    [(25, 24), (33, 21), (38, 32), (33, 40), (25, 45), (14, 40), (17, 32), (14, 21)], np.int32
)
BASKET_TURN = np.array([180, 0, 270, 90, 0, 180, 90, 270], np.int32)
POUR_STEP = np.array(
    [(0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0), (1, 1)], np.int32
)
# The nozzle at each even place: its offset from the basket, turn and slide (2 a frame).
NOZZLE_OFFSET = np.array(
    [(4, -6), (0, 0), (10, 4), (0, 0), (4, 10), (0, 0), (-6, 4), (0, 0)], np.int32
)
NOZZLE_TURN = np.array([180, 0, 270, 0, 0, 0, 90, 0], np.int32)
SQUIRT_STEP = np.array([(0, 2), (0, 0), (-2, 0), (0, 0), (0, -2), (0, 0), (2, 0), (0, 0)], np.int32)
# Each place's (row, column) on the 3x3 grid of places.
RING = ((0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0))


def _neighbours() -> np.ndarray:
    """``[8, 4]``: the place ACTION1-4 (up, down, left, right) lead to from each place."""
    table = np.zeros((8, 4), np.int32)
    for place, (row, col) in enumerate(RING):
        for a, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
            to = (min(max(row + dr, 0), 2), min(max(col + dc, 0), 2))
            table[place, a] = RING.index(to) if to != (1, 1) else place
    return table


NEXT_PLACE = _neighbours()


def _padded(mask: np.ndarray) -> np.ndarray:
    grid = np.zeros((PIXELS, PIXELS), bool)
    grid[:SIZE, :SIZE] = mask
    return grid


def _pour_masks() -> np.ndarray:
    """``[8, P, P]``: the canvas cells a pour from each place paints."""
    rows, cols = np.indices((SIZE, SIZE))
    half = SIZE // 2
    masks = [
        rows < half,  # top
        cols >= rows,  # top-right corner: the upper triangle
        cols >= half,  # right
        cols >= SIZE - 1 - rows,  # bottom-right
        rows >= half,  # bottom
        cols <= rows,  # bottom-left
        cols < half,  # left
        cols <= SIZE - 1 - rows,  # top-left
    ]
    return np.stack([_padded(m) for m in masks])


def _squirt_masks() -> np.ndarray:
    """``[8, P, P]``: the canvas cells a squirt from each even place paints."""
    masks = np.zeros((8, SIZE, SIZE), bool)
    masks[0, 0:3, 3:7] = True  # from the top
    masks[2, 3:7, 7:10] = True  # from the right
    masks[4, 7:10, 3:7] = True  # from below
    masks[6, 3:7, 0:3] = True  # from the left
    return np.stack([_padded(m) for m in masks])


def _checked() -> np.ndarray:
    """``[P, P]``: the canvas cells the target is compared on, off both diagonals."""
    rows, cols = np.indices((SIZE, SIZE))
    return _padded((rows != cols) & (rows + cols != SIZE - 1))


POUR_MASKS, SQUIRT_MASKS, CHECKED = _pour_masks(), _squirt_masks(), _checked()
TEMPLATES = {kind: DATA.padded_pixels(kind, PIXELS) for kind in RESERVED}


# --- the levels: the official sprites (the frame in pieces), then reserved slots -------


def _frame_pieces(frame: rules.Sprite) -> list:
    pixels = np.asarray(frame.pixels)
    pieces = [pixels[:, x : x + PIXELS] for x in range(0, pixels.shape[1], PIXELS)]
    return [
        dataclasses.replace(frame, pixels=tuple(map(tuple, piece.tolist())), x=frame.x + PIXELS * i)
        for i, piece in enumerate(pieces)
    ]


def _level(number: int) -> Level:
    declared = DATA.levels[number]
    sprites = []
    for sprite in declared.sprites:
        sprites += _frame_pieces(sprite) if sprite.kind == FRAME else [sprite]
    # Layer 2: the layer the original gives the basket and nozzle it adds.
    reserved = [dataclasses.replace(DATA.catalogue[kind], layer=2) for kind in RESERVED]
    slot = {kind: len(sprites) + i for i, kind in enumerate(RESERVED)}
    kinds = [s.kind for s in sprites]
    memory = {
        "flat": slot[FLAT],
        "diagonal": slot[DIAGONAL],
        "nozzle": slot[NOZZLE],
        "has_nozzle": NOZZLE in kinds,
        "canvas": kinds.index(CANVAS),
        "target": next(i for i, k in enumerate(kinds) if k.startswith(TARGET_PREFIX)),
        "marker": kinds.index(MARKER),
    }
    return Level(tuple(sprites + reserved), declared.grid_size, memory, declared.name)


LEVELS = tuple(_level(n) for n in range(len(DATA.levels)))
NUM_SLOTS = max(len(level.sprites) for level in LEVELS)


# --- the rule -------------------------------------------------------------------------


def _slots():
    return jnp.arange(NUM_SLOTS)


def _at_corner(state):
    """The basket stands at a corner (an odd place): the diagonal basket, no nozzle."""
    return state.memory["place"] % 2 == 1


def _basket(state):
    """The slot of the basket at the current place (flat or diagonal)."""
    m = state.memory
    return jnp.where(_at_corner(state), m["diagonal"], m["flat"])


def _painted(kind: str, colour):
    """Catalogue sprite ``kind``'s pixels with its contents in ``colour``."""
    template = TEMPLATES[kind]
    return jnp.where(template == FILL, colour, template)


def _lay_out(state, when=True):
    """The basket (and on levels with one, the nozzle at even places) taken out and added
    anew at the current place in the chosen colour, last in the sprite order."""
    m = state.memory
    place, colour = m["place"], m["colour"].astype(jnp.int8)
    reserved = (_slots() == m["flat"]) | (_slots() == m["diagonal"]) | (_slots() == m["nozzle"])
    state = rules.remove(state, reserved, when)
    basket, corner = _basket(state), _at_corner(state)
    pixels = jnp.where(corner, _painted(DIAGONAL, colour), _painted(FLAT, colour))
    state = rules.repaint(state, basket, pixels, when)
    x, y = jnp.asarray(BASKET_XY)[place]
    state = rules.place(state, basket, x, y, when)
    state = rules.set_rotation(state, basket, jnp.asarray(BASKET_TURN)[place], when)
    nozzle, shown = m["nozzle"], m["has_nozzle"] & ~corner
    state = rules.repaint(state, nozzle, _painted(NOZZLE, colour), when & shown)
    dx, dy = jnp.asarray(NOZZLE_OFFSET)[place]
    state = rules.place(state, nozzle, x + dx, y + dy, when & shown)
    state = rules.set_rotation(state, nozzle, jnp.asarray(NOZZLE_TURN)[place], when & shown)
    added = (_slots() == basket) | ((_slots() == nozzle) & shown)
    return rules.add_again(state, added, when)


def on_set_level(state, game: Game):
    """The level's own basket and nozzle taken out, and the basket laid out at the top
    in colour 15 (with its nozzle from level 3)."""
    kinds = [game.kinds.index(k) for k in RESERVED]
    state = rules.remove(state, jnp.isin(state.table.kind, jnp.asarray(kinds)))
    return _lay_out(state)


def _solved(state):
    m = state.memory
    canvas, target = state.table.pixels[m["canvas"]], state.table.pixels[m["target"]]
    return jnp.all((canvas == target) | ~CHECKED)


def _slide(state, game: Game):
    """One frame of a pour or a squirt: a slide out (painting the canvas at the far end)
    or back (put home at the end, the canvas checked, the action complete)."""
    m = state.memory
    place, squirting, back = m["place"], m["animation"] == SQUIRTING, m["back"]
    slot = jnp.where(squirting, m["nozzle"], _basket(state))
    dx, dy = jnp.where(squirting, jnp.asarray(SQUIRT_STEP)[place], jnp.asarray(POUR_STEP)[place])
    sign = jnp.where(back, -1, 1)
    state = rules.move(state, slot, sign * dx, sign * dy)
    slid = m["slid"] + sign
    far = ~back & (slid >= SLIDE_FRAMES)
    mask = jnp.where(squirting, jnp.asarray(SQUIRT_MASKS)[place], jnp.asarray(POUR_MASKS)[place])
    canvas = state.table.pixels[m["canvas"]]
    painted = jnp.where(mask, m["colour"].astype(jnp.int8), canvas)
    state = rules.repaint(state, m["canvas"], painted, far)
    home = back & (slid <= 0)
    x, y = jnp.asarray(BASKET_XY)[place]
    offset = jnp.where(squirting, jnp.asarray(NOZZLE_OFFSET)[place], 0)
    state = rules.place(state, slot, x + offset[0], y + offset[1], home)
    state = rules.set_memory(state, "slid", slid)
    state = rules.set_memory(state, "back", True, far)
    state = rules.set_memory(state, "animation", IDLE, home)
    state = rules.next_level(state, len(game.levels), home & _solved(state))
    return rules.complete(state, home)


def _act(state, action, game: Game):
    """An action's first frame: a move, a pour's or squirt's start, or a click."""
    m = state.memory
    arrow = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION4)
    to = jnp.asarray(NEXT_PLACE)[m["place"], jnp.clip(action.id - rules.ACTION1, 0, 3)]
    moved = arrow & (to != m["place"])
    state = rules.set_memory(state, "place", to, moved)
    x, y, on_view = rules.clicked_cell(state, action)
    hit = rules.sprite_at(state, x, y, game, ignore_collidable=True)
    clicked = (action.id == rules.CLICK) & on_view & (hit >= 0)
    table = state.table
    kind = table.kind[hit]
    picked = clicked & (kind == game.kinds.index(SWATCH))
    colour = table.pixels[hit, SWATCH_CENTRE, SWATCH_CENTRE]
    state = rules.set_memory(state, "colour", colour, picked)
    state = rules.place(state, m["marker"], table.x[hit], table.y[hit] + MARKER_BELOW, picked)
    state = _lay_out(state, moved | picked)
    pour = action.id == rules.ACTION5
    squirt = clicked & (kind == game.kinds.index(NOZZLE))
    starts = pour | squirt
    state = rules.set_memory(state, "animation", jnp.where(pour, POURING, SQUIRTING), starts)
    state = rules.set_memory(state, "slid", 0, starts)
    state = rules.set_memory(state, "back", False, starts)
    return rules.complete(state, ~starts)


def rule(state, action, game: Game):
    """An action's first frame (its slide comes after it: animate)."""
    spent = state.action_count >= BUDGET
    return rules.where(spent, rules.complete(rules.lose(state)), _act(state, action, game))


def animate(state, action, game: Game):
    """An action's later frames: a pour's or a squirt's slide."""
    return _slide(state, game)


def ui(state, frame, game: Game):
    """The bottom row: the actions left, ``round(64 * left / 100)`` pixels of colour 4."""
    left = jnp.clip(BUDGET - state.action_count, 0, BUDGET)
    full = rules.rounded_share(left, BUDGET, rules.SCREEN)
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, full, 1, BAR_FULL)


# A winning run of each level, found from the rules (tests/tools/solve_cd82.py: the
# strokes peeled off the target backwards, then played) and checked on the official file
# (the recorded trace's last episode).
SOLUTIONS = (
    (3, 2, 2, 4, 5),
    (5, (6, 46, 4), 4, 2, 2, 5),
    ((6, 53, 4), 4, 2, 2, 5, (6, 47, 4), 1, 5, 1, 5, 3, 5, (6, 29, 4), 3, 5, (6, 35, 4), 4,
     (6, 33, 20)),
    ((6, 35, 4), 5, (6, 29, 4), 4, 2, 2, 5, (6, 59, 4), 3, 3, 1, 5, (6, 41, 4), (6, 11, 39)),
    ((6, 59, 4), 5, (6, 53, 4), (6, 33, 20), (6, 47, 4), 3, 2, 2, 5, 4, 5, (6, 35, 4), 4, 5),
    ((6, 47, 4), 4, 2, 5, 1, 5, 3, 5, (6, 53, 4), 3, 5, (6, 41, 4), 2, (6, 11, 39), (6, 47, 4),
     1, 4, 4, 2, (6, 48, 39), (6, 29, 4), 1, 3, (6, 33, 20)),
)  # fmt: skip


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = ("ctwspzkygu", "oaoosfneq-laopvne", "oaoosfneq-oaanwen", "xytrjjbyib", "ydiwkzjkgl")

GAME = Game(
    **DATA.game_fields(),
    static_kinds=rules.kinds_but(DATA.kinds, MOVING_KINDS),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    reach=PIXELS,
    # The moving sprites' list (tests/tools/moving_runs.py): the most seen in play is 72
    # runs (the default counted sprites out of play at a level's start).
    moving_runs=96,
    memory={
        "place": Var(),
        "colour": Var(value=FILL),
        "animation": Var(value=IDLE),
        "slid": Var(),  # cells out of a pour's or squirt's slide
        "back": Var("bool"),
        "flat": Var(),
        "diagonal": Var(),
        "nozzle": Var(),
        "has_nozzle": Var("bool"),
        "canvas": Var(),
        "target": Var(),
        "marker": Var(),
    },
    max_frames=2 * SLIDE_FRAMES + 2,  # the start, the slides out and back, a level's change
    ui=ui,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
