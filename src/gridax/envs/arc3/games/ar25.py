"""ar25 (ARC Prize's ARC-AGI-3 public game, version e3c63847), frame for frame.

A 21x21 board holds one or two pieces (colour 5), one or two mirrors (lines of colour 10,
one upright and one level, each at most) and target cells (colour 11). Every piece shows
its reflections in the mirrors (colour 4): across the upright one, across the level one,
and across both. The level is solved when every target lies under a piece or one of its
reflections. One piece or mirror at a time is selected:

- ACTION1-4 move it one cell up, down, left or right (an upright mirror only sideways, a
  level one only up and down), unless that would take a piece off the board, or a
  mirror's line off its columns or rows; each move that moves spends one step of the
  level's budget (64, 128 or 320), and the last step loses the game;
- ACTION5 selects the next of the level's mirrors, then pieces, in turn (and spends a
  step);
- a click selects the piece under it, else the mirror (where two cross: the other one
  than the selected, the upright first), and spends nothing;
- ACTION7 undoes the last move that moved (the step stays spent, the selection too).

A winning move shows its frame, a second frame, then the next level. On the second level
a move that leaves fewer than 50 steps, while the first piece has stayed selected all
along, blinks a marker over that piece (8 frames, once a level): the hint to select
another. The column at the screen's right edge is the budget's bar (64 rows a colour, up
to five colours from 11 as steps go: 11, 12, 15, 8, 14); a dot in the middle of each
board cell shows what the game tracks there: 11 on a covered target, 0 on the selected
piece or mirror, 10 on a fixed mirror, 9 on the others (a mirror's dot gives way where
a reflection lies).

How the port draws it: the original keeps three board-sized sprites that it repaints
after every move with the pieces and their reflections (its BFS over mirror images,
closed after two reflections with one mirror of each way). Here each reflection is a
sprite of its own, the piece's pixels in colour 4 mirrored, placed by the rule, one layer
under the pieces: the same picture from small moving sprites. The original's catalogue
also has rotating pieces and one-way reflectors, which no level uses: a level with them
is refused by name.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.ar25_levels import (
    BLINK_BELOW,
    BLINK_FRAMES,
    BLINK_LEVEL,
    BOARD,
    DATA,
    KINDS,
    LEVELS,
    MASK_ROWS,
    MASKS,
    MAX_MOVES,
    MOVING_KINDS,
    MOVING_RUNS,
    OFF_BOARD_X,
    ON_BOARD,
    PIECES,
    TARGET_ROWS,
)
from gridax.envs.arc3.rules import Game, Var

BAR_COLOURS = (11, 12, 15, 8, 14)
BAR_ROWS, BAR_X = 64, 63
# A dot's colour by priority (the original's ranking of what a cell shows).
DOT_COLOURS = (-1, 9, 0, 10, 11)  # priority 0 (none) to 4
COVERED_TARGET, FIXED_DOT, SELECTED_DOT, PLAIN_DOT = 4, 3, 2, 1


def _image_corners(state):
    """``(x, y)``, each ``[PIECES, 4]``: where each piece's four placements (itself, and
    its reflections across the upright mirror, the level one and both) have their
    top-left corner."""
    table, memory = state.table, state.memory
    upright, level_mirror = memory["mirrors"][0], memory["mirrors"][1]
    axis_x, axis_y = table.x[jnp.maximum(upright, 0)], table.y[jnp.maximum(level_mirror, 0)]
    piece = jnp.maximum(memory["pieces"], 0)
    x, y = table.x[piece], table.y[piece]
    left = 2 * axis_x - x - table.width[piece] + 1  # across x = axis_x
    top = 2 * axis_y - y - table.height[piece] + 1  # across y = axis_y
    return jnp.stack([x, left, x, left], axis=1), jnp.stack([y, y, top, top], axis=1)


def _place_images(state):
    """Every reflection put where its piece's pixels land across its mirror(s)."""
    corner_x, corner_y = _image_corners(state)
    images = state.memory["images"].reshape(-1)  # [PIECES * 3] slots, -1: none
    # One write of every reflection: which slot each is, one-hot over the slots.
    is_image = images[:, None] == jnp.arange(state.table.x.shape[0])[None, :]

    def spread(corner):
        return jnp.sum(jnp.where(is_image, corner[:, 1:].reshape(-1)[:, None], 0), axis=0)

    return rules.place(state, jnp.any(is_image, axis=0), spread(corner_x), spread(corner_y))


def _placed_rows(state):
    """``[PIECES, 4, 21]``: the board rows each piece's placements cover, as row bits."""
    corner_x, corner_y = _image_corners(state)
    masks = jnp.asarray(MASKS)[state.level]  # [PIECES, 4, MASK_ROWS]
    row = jnp.arange(BOARD)[None, None, :] - corner_y[..., None]
    inside = (row >= 0) & (row < MASK_ROWS)
    bits = jnp.take_along_axis(masks, jnp.clip(row, 0, MASK_ROWS - 1), axis=-1)
    bits = jnp.where(inside, bits, 0)
    shift = corner_x[..., None]
    left = jnp.left_shift(bits, jnp.clip(shift, 0, 31).astype(jnp.uint32))
    right = jnp.right_shift(bits, jnp.clip(-shift, 0, 31).astype(jnp.uint32))
    placed = jnp.where(shift >= 0, left, right)
    return jnp.where(shift < BOARD, placed, 0) & ON_BOARD


def _coverage_rows(state):
    """``(own, covered)``: each piece's own cells (``[PIECES, 21]``) and what the pieces
    and their reflections cover (``[21]``), as row bits."""
    placed = _placed_rows(state)
    covered = jnp.bitwise_or.reduce(placed.reshape(-1, BOARD), axis=0)
    return placed[:, 0], covered


def _solved(state, covered):
    targets = jnp.asarray(TARGET_ROWS)[state.level]
    return jnp.all(covered & targets == targets)


def _board_cells():
    rows, cols = np.mgrid[0:BOARD, 0:BOARD]
    return jnp.asarray(cols, jnp.int32), jnp.asarray(rows, jnp.int32)


def _cells(rows) -> jax.Array:
    """Row bits ``[..., 21]`` as a boolean board ``[..., 21, 21]``."""
    columns = jnp.arange(BOARD, dtype=jnp.uint32).reshape((1,) * rows.ndim + (BOARD,))
    return (jnp.right_shift(rows[..., None], columns) & 1) == 1


def _covers(state, slot, x, y, game: Game):
    """Whether sprite ``slot`` (-1: none) has an opaque pixel at cell ``(x, y)``."""
    table = state.table
    safe = jnp.maximum(slot, 0)
    pixel = rules.source_pixel(state, safe, y - table.y[safe], x - table.x[safe], game)
    return (slot >= 0) & (pixel >= 0)


def _spend_step(state, when):
    """One step of the budget spent where ``when``; the game lost when none is left."""
    steps = state.memory["steps"]
    steps = jnp.where(when, jnp.maximum(steps - 1, 0), steps)
    state = rules.set_memory(state, "steps", steps)
    return rules.lose(state, when & (steps == 0))


def _movers(state):
    """``[PIECES + 2]``: the slots of what moves, pieces then mirrors (-1: none): an
    undo entry names one by its place here."""
    return jnp.concatenate([state.memory["pieces"], state.memory["mirrors"]])


def _arrow_move(state, action):
    """ACTION1-4's move of the selected piece or mirror: ``(slot, dx, dy, allowed)``
    (a mirror slides only along its line; nothing leaves the board)."""
    memory, table = state.memory, state.table
    slot = memory["selected"]
    upright, level_mirror = memory["mirrors"][0], memory["mirrors"][1]
    is_upright, is_level = slot == upright, slot == level_mirror
    dx, dy = rules.arrow_step(action)
    dx, dy = jnp.where(is_level, 0, dx), jnp.where(is_upright, 0, dy)
    height, width = rules.drawn_size(state)
    x, y = table.x[slot] + dx, table.y[slot] + dy
    off_x = ((x < 0) | (x + width[slot] > BOARD)) & ~is_level
    off_y = ((y < 0) | (y + height[slot] > BOARD)) & ~is_upright
    return slot, dx, dy, ~off_x & ~off_y


def _last_move(state):
    """The move ACTION7 takes back: ``(slot, dx, dy, some)`` (``some``: one is left)."""
    top = state.memory["undo_top"]
    entry = state.memory["undo"][jnp.maximum(top - 1, 0)].astype(jnp.int32)
    slot, way = _movers(state)[entry // 4], entry % 4
    dx, dy = rules.arrow_step(rules.Action(rules.ACTION1 + way))
    return slot, -dx, -dy, top > 0


def _after_arrow(state, action, moves, moved, covered):
    """ACTION1-4 after its move (``moves``: allowed, ``moved``: something moved): its
    undo entry, the step, the check for a solution (which holds the action for the next
    level) and the second level's hint."""
    memory = state.memory
    top = memory["undo_top"]
    which = jnp.argmax(_movers(state) == memory["selected"])
    entry = (which * 4 + action.id - rules.ACTION1).astype(jnp.int8)
    entry = jnp.where(moved, entry, memory["undo"][top])
    state = rules.set_memory(state, "undo", memory["undo"].at[top].set(entry))
    state = rules.set_memory(state, "undo_top", top + 1, moved)
    won = moves & _solved(state, covered)
    state = rules.set_memory(state, "won", True, won)
    state = _spend_step(state, moved & ~won)
    hint = moved & ~won & (state.level == BLINK_LEVEL) & (state.memory["blink"] == 0)
    hint = hint & (state.memory["steps"] < BLINK_BELOW) & ~memory["switched"]
    state = rules.set_memory(state, "blink", 1, hint)
    return rules.complete(state, ~won & ~hint)


def _select(state, slot, when):
    """``slot`` selected where ``when`` and it is not already."""
    switch = when & (slot != state.memory["selected"])
    state = rules.set_memory(state, "selected", slot, switch)
    return rules.set_memory(state, "switched", True, switch)


def _next_in_cycle(state):
    """ACTION5: the next mirror or piece in the level's cycle selected; a step spent."""
    memory = state.memory
    cycle, length = memory["cycle"], memory["cycle_length"]
    at = jnp.argmax(cycle == memory["selected"])
    index = jnp.where(jnp.any(cycle == memory["selected"]), at, -1)
    state = _select(state, cycle[(index + 1) % length], True)
    return rules.complete(_spend_step(state, True))


def _click(state, action, game: Game):
    """ACTION6: the first piece under the click, else the mirror under it."""
    x, y, on_view = rules.clicked_cell(state, action)
    memory = state.memory
    pieces, mirrors = memory["pieces"], memory["mirrors"]
    piece_hit = jnp.stack([_covers(state, pieces[i], x, y, game) for i in range(PIECES)])
    mirror_hit = jnp.stack([_covers(state, mirrors[i], x, y, game) for i in range(2)])
    mirror_hit = mirror_hit & ~memory["fixed"]
    piece = pieces[jnp.argmax(piece_hit)]
    upright, level_mirror = mirrors[0], mirrors[1]
    selected = memory["selected"]
    # Where both mirrors are under the click: the one not selected, the upright first.
    crossing = jnp.where(selected == upright, level_mirror, upright)
    mirror = jnp.where(mirror_hit[0] & mirror_hit[1], crossing, mirrors[jnp.argmax(mirror_hit)])
    hit_piece = jnp.any(piece_hit)
    chosen = jnp.where(hit_piece, piece, mirror)
    state = _select(state, chosen, on_view & (hit_piece | jnp.any(mirror_hit)))
    return rules.complete(state)


def _blink(state):
    """A frame of the hint: the marker over the first piece on odd counts, parked off
    the board on even ones, for 8 frames."""
    memory, table = state.memory, state.table
    count = memory["blink"] + 1
    piece = memory["pieces"][0]
    x = jnp.where(count % 2 == 1, table.x[piece], OFF_BOARD_X)
    state = rules.place(state, memory["blink_slot"], x, table.y[piece])
    done = count >= BLINK_FRAMES
    state = rules.set_memory(state, "blink", jnp.where(done, -1, count))
    return rules.complete(state, done)


def rule(state, action, game: Game):
    """An action's first frame. No first frame finds the hint blinking or the level won
    (every recorded trace): those frames are ``animate``'s."""
    action_id = action.id
    arrows = (action_id >= rules.ACTION1) & (action_id <= rules.ACTION4)
    undoing = action_id == rules.UNDO
    # ACTION1-4 and undo each move one thing: one move, then the reflections and what
    # the pieces cover, once for both (no other action moves a piece or a mirror).
    slot, dx, dy, moves = _arrow_move(state, action)
    back_slot, back_dx, back_dy, some = _last_move(state)
    moved = arrows & moves & ((dx != 0) | (dy != 0))
    slot = jnp.where(undoing, back_slot, slot)
    dx, dy = jnp.where(undoing, back_dx, dx), jnp.where(undoing, back_dy, dy)
    state = _place_images(rules.move(state, slot, dx, dy, moved | (undoing & some)))
    own, covered = _coverage_rows(state)
    new = rules.complete(state)  # RESET: nothing more
    new = rules.where(arrows, _after_arrow(state, action, moves, moved, covered), new)
    new = rules.where(action_id == rules.ACTION5, _next_in_cycle(state), new)
    new = rules.where(action_id == rules.CLICK, _click(state, action, game), new)
    took_back = rules.complete(
        rules.set_memory(state, "undo_top", state.memory["undo_top"] - 1, some)
    )
    new = rules.where(undoing, took_back, new)
    return _with_dots(new, own, covered)


def animate(state, action, game: Game):
    """An action's later frames: the hint's blink, or a solved level's next one (the
    only actions that take more than a frame; neither changes the dots)."""
    advanced = rules.complete(rules.next_level(state, len(game.levels)))
    return rules.where(state.memory["blink"] > 0, _blink(state), advanced)


def on_set_level(state, game: Game):
    state = _place_images(state)
    return _with_dots(state, *_coverage_rows(state))


def _dots(state, own_rows, covered_rows):
    """``[21, 21]``: the colour of the dot at each board cell's centre (-1: none), from
    the pieces' own cells and what they and their reflections cover (row bits)."""
    own, covered = _cells(own_rows), _cells(covered_rows)  # [PIECES, 21, 21], [21, 21]
    memory, table = state.memory, state.table
    targets = _cells(jnp.asarray(TARGET_ROWS)[state.level])
    # The cell's own piece: the last in sprite order whose pixel lies there.
    last = jnp.where(own[1], memory["pieces"][1], jnp.where(own[0], memory["pieces"][0], -1))
    on_piece = jnp.where(last == memory["selected"], SELECTED_DOT, PLAIN_DOT)
    best = jnp.where(covered & targets, COVERED_TARGET, 0)
    best = jnp.where(covered & ~targets & (last >= 0), on_piece, best)
    x, y = _board_cells()
    for index in range(2):
        mirror = memory["mirrors"][index]
        safe = jnp.maximum(mirror, 0)
        # A mirror is a line of one colour, one cell wide (checked when the levels are built).
        across_x = (x >= table.x[safe]) & (x < table.x[safe] + table.width[safe])
        across_y = (y >= table.y[safe]) & (y < table.y[safe] + table.height[safe])
        on_line = (mirror >= 0) & across_x & across_y
        plain = jnp.where(mirror == memory["selected"], SELECTED_DOT, PLAIN_DOT)
        fixed = memory["fixed"][index]
        dot = jnp.where(targets, COVERED_TARGET, jnp.where(fixed, FIXED_DOT, plain))
        # A mirror's plain dot gives way where a reflection (not a piece) lies.
        gives_way = covered & (last < 0) & (dot == PLAIN_DOT)
        best = jnp.maximum(best, jnp.where(on_line & ~gives_way, dot, 0))
    colour = jnp.full(best.shape, DOT_COLOURS[0], jnp.int8)
    for priority, dot_colour in enumerate(DOT_COLOURS[1:], start=1):
        colour = jnp.where(best == priority, jnp.int8(dot_colour), colour)
    return colour


def _with_dots(state, own_rows, covered_rows):
    """The dots kept in memory as the state changes: the UI spreads them over the
    screen, and XLA would compute them again at each screen pixel if the UI computed
    them (a fusion into the spread; 4x the cost of the whole frame)."""
    return rules.set_memory(state, "dots", _dots(state, own_rows, covered_rows))


def _bar(state):
    """``[64]``: the budget's bar down the right edge, each 64 steps a colour (-1 where
    it leaves the screen as it is)."""
    budget, steps = state.memory["budget"], state.memory["steps"]
    blocks = jnp.clip(-(-budget // BAR_ROWS), 1, len(BAR_COLOURS))
    spent = jnp.clip(budget - steps, 0, BAR_ROWS * blocks)
    block, row = spent // BAR_ROWS, spent % BAR_ROWS
    past = block >= blocks
    block, row = jnp.where(past, blocks - 1, block), jnp.where(past, BAR_ROWS, row)
    colours = jnp.asarray(BAR_COLOURS + (BAR_COLOURS[-1],), jnp.int8)
    rows = jnp.arange(rules.SCREEN)
    bar = jnp.where(rows >= row, colours[block], colours[block + 1])
    drawn = (rows >= row) | ((block != blocks - 1) & (row > 0))
    return jnp.where(drawn & (budget > 0), bar, -1).astype(jnp.int8)


# The screen pixels of the dots (the middle of each board cell's 3x3 square) and the bar.
DOT_PIXELS = np.zeros((rules.SCREEN, rules.SCREEN), bool)
DOT_PIXELS[1 : 3 * BOARD : 3, 1 : 3 * BOARD : 3] = True
BAR_PIXELS = np.zeros((rules.SCREEN, rules.SCREEN), bool)
BAR_PIXELS[:, BAR_X] = True


def ui(state, frame, game: Game):
    """The dots and the bar, laid over the frame in one pass (-1: the frame shows)."""
    dots = state.memory["dots"]
    spread = jnp.repeat(jnp.repeat(dots, 3, axis=0), 3, axis=1)
    edge = rules.SCREEN - 3 * BOARD
    spread = jnp.pad(spread, ((0, edge), (0, edge)), constant_values=-1)
    over = jnp.where(BAR_PIXELS, _bar(state)[:, None], jnp.where(DOT_PIXELS, spread, -1))
    return jnp.where(over >= 0, over, frame).astype(jnp.int8)


# A winning run of each level (tests/tools/solve_ar25.py: the cheapest placement of the
# pieces and mirrors that covers every target, then each selected and moved there),
# checked on the official file (the recorded trace's last episode).
SOLUTIONS = (
    (3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2),
    (3, 3, (6, 46, 19), 2, 2, 2, 2, 2, 2, 2, 2),
    (1, 1, 1, 1, 1, 1, 1, (6, 49, 31), 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2,
     (6, 13, 22), 4, 4, 4, 4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2),
    (2, 2, 2, 2, 2, 2, (6, 13, 19), 4, 4, 4, 4, 4, 4, 4, (6, 19, 31), 4, 4, 4, 4, 4, 4, 4),
    (2, 2, 2, 2, (6, 43, 37), 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, (6, 10, 1), 4, 4,
     4, 4, 4),
    (2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, (6, 46, 10), 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2,
     2, 2, 2, (6, 55, 25), 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, (6, 22, 1), 3),
    (2, 2, (6, 19, 49), 4, 4, 4, 1, 1, 1, 1, 1, 1, (6, 58, 40), 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
     1, 1, (6, 10, 1), 4, 4, 4, 4, 4, 4, 4, 4, 4),
    (2, 2, 2, 2, 2, 2, (6, 22, 22), 4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 1, 1, 1, (6, 40, 40), 3, 3, 3, 3,
     3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, (6, 10, 1), 4, 4, 4, 4, 4, 4, 4, 4, 4),
)  # fmt: skip

GAME = Game(
    **{**DATA.game_fields(), "kinds": KINDS},
    static_kinds=rules.kinds_but(KINDS, MOVING_KINDS),
    repainted_kinds=(),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    reach=41,
    moving_runs=MOVING_RUNS,
    memory={
        "budget": Var(),
        "steps": Var(),
        "pieces": Var(shape=(PIECES,), value=-1),
        "mirrors": Var(shape=(2,), value=-1),
        "fixed": Var("bool", (2,)),
        "cycle": Var(shape=(PIECES + 2,), value=-1),
        "cycle_length": Var(value=1),
        "selected": Var(value=-1),
        "switched": Var("bool"),
        "images": Var(shape=(PIECES, 3), value=-1),
        "blink_slot": Var(),
        "blink": Var(),
        "won": Var("bool"),
        "undo": Var("int8", (MAX_MOVES,)),  # a move: 4 x what moved + its way
        "undo_top": Var(),
        "dots": Var("int8", (BOARD, BOARD), -1),
    },
    max_frames=BLINK_FRAMES,
    undo_in_rule=True,
    ui=ui,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
