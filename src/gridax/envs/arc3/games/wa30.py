"""wa30 (ARC Prize's ARC-AGI-3 public game, version ee6fef47), frame for frame.

Everything stands on a grid of 4x4 cells (16 a side). The player (tag ``wbmdvjhthc``)
brings the **boxes** (``geezpjgiyd``) into the **goal zones** (``fsjjayjoeg``); the level
is complete when every box stands in one (its top-left cell inside a zone's rectangle)
and nobody holds it. Every action (ACTION1-5) spends one of the level's moves
(``StepCounter``); none left loses the game.

- ACTION1-4: the player turns that way (unless it holds a box) and steps a cell there if
  the cell is free; holding a box, the two move together, keeping their places.
- ACTION5: the player lets go of the box it holds; else it takes the box in front of it
  (from whoever held it), and sends away a thief in front of it (which lets go of its
  box).
- **Helpers** (``kdweefinfi``), in turn, after every action: one holding a box lets go
  of it in a goal zone, else carries it a cell along the shortest way to one; one with
  empty hands takes a free box (held by nobody, not in a goal) next to it, and then no
  later helper acts this turn; else it steps a cell along the shortest way to a cell
  next to such a box.
- **Thieves** (``ysysltqlke``) then do the same with their **dens** (``zqxwgacnue``) for
  goals, taking any box no thief holds (from the player or a helper) outside a den.

"Free", "shortest" and "next to" are the original's: a cell is free when no collidable
sprite of the level stands there (by its top-left cell: the set the original keeps) and
it is not a no-go cell (``bnzklblgdk``), and off the grid is never free; the ways are
breadth-first, each cell's neighbours taken left, right, up, down, the first cell
reached winning. A pair moves when the carrier's new cell is free or the box's, not a
no-go cell, and the box's new cell not blocked or the carrier's. A RESET's frame only
checks the level.

Every action then repaints the borders of the boxes: colour 0 held by the player, 3 in
front of the player, 5 held by another, 4 otherwise; and thieves: 11 in front of the
player, else 15. The bottom row of the screen shows ``round(64 * left / moves)`` pixels
of colour 7, the rest colour 4.

The original keeps the cells blocking sprites stand on as a set of their top-left cells
(its two screen-wide walls, on level 7, block only that one cell); here those walls are
drawn as pieces of at most 16x16 pixels, of which only the first blocks (``blocks``).

Memory: the moves and moves left, who holds which box (``holds``, by carrier slot), and
per level the slots of the helpers and thieves in list order and which sprites block.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games import wa30_levels
from gridax.envs.arc3.games.wa30_levels import (
    DATA,
    LEVELS,
    MAX_HELPERS,
    MAX_THIEVES,
    NUM_SLOTS,
    PIXELS,
    ZONE_TAGS,
    ZONES,
)
from gridax.envs.arc3.rules import Game, Var

TAGS = DATA.tags
PLAYER, BOX, HELPER, THIEF, GOAL, DEN, NO_GO = (
    TAGS.index(tag)
    for tag in (
        "wbmdvjhthc",
        "geezpjgiyd",
        "kdweefinfi",
        "ysysltqlke",
        "fsjjayjoeg",
        "zqxwgacnue",
        "bnzklblgdk",
    )
)
CELL = 4  # pixels of a grid cell
GRID = 16  # cells a side
BORDER = np.zeros((CELL, CELL), bool)  # a box's border pixels
BORDER[[0, -1], :] = BORDER[:, [0, -1]] = True
HELD_BY_PLAYER, IN_FRONT, HELD, FREE = 0, 3, 5, 4  # box border colours
THIEF_IN_FRONT, THIEF_COLOUR = 11, 15  # a thief's border colours
BAR_FULL, BAR_SPENT = 7, 4
# A unit vector per quarter turn: 0 faces up, 1 right, 2 down, 3 left.
FACING = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)], np.int32)
# The breadth-first search's neighbour order: left, right, up, down.
NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


# --- the grid -------------------------------------------------------------------------


def _cells(state):
    """``(column, row)`` of every slot's top-left cell on the grid, ``[N]`` each."""
    return state.table.x // CELL, state.table.y // CELL


def _on_grid(column, row):
    return (column >= 0) & (row >= 0) & (column < GRID) & (row < GRID)


def _grid_of(state, which):
    """``[GRID, GRID]`` (row, column): the cells where sprites ``which`` stand."""
    column, row = _cells(state)
    keep = which & _on_grid(column, row)
    grid = jnp.zeros((GRID, GRID), bool)
    return grid.at[jnp.where(keep, row, GRID), jnp.where(keep, column, GRID)].set(True, mode="drop")


def _blocked(state):
    """``[GRID, GRID]``: the cells a blocking sprite stands on (the original's set)."""
    return _grid_of(state, state.table.exists & state.memory["blocks"])


def _free(state):
    """``[GRID, GRID]``: cells no blocking sprite stands on and not no-go cells."""
    return ~_blocked(state) & ~_grid_of(state, rules.tagged(state, NO_GO))


def _held(state, by=None):
    """``[N]``: the boxes held (by the sprites of mask ``by``; by anyone when None)."""
    holds = state.memory["holds"]
    holding = holds >= 0 if by is None else by & (holds >= 0)
    held = jnp.zeros(NUM_SLOTS, bool)
    return held.at[jnp.where(holding, holds, NUM_SLOTS)].set(True, mode="drop")


def _in_zones(state, tag, x, y):
    """Pixel ``(x, y)`` (any shape) is inside the rectangle of a sprite with ``tag``
    (the level's zones, mapped once: ``wa30_levels.ZONES``)."""
    world = wa30_levels.WORLD
    on = (x >= 0) & (y >= 0) & (x < world) & (y < world)
    zones = jnp.asarray(ZONES)[state.level, ZONE_TAGS.index(TAGS[tag])]
    return on & zones[jnp.clip(y, 0, world - 1), jnp.clip(x, 0, world - 1)]


def _zone_grid(state, tag):
    """``[GRID, GRID]``: the cells whose top-left pixel is in a zone with ``tag``."""
    cells = jnp.asarray(ZONES[:, :, ::CELL, ::CELL])
    return cells[state.level, ZONE_TAGS.index(TAGS[tag])]


def _shifted(grid, dx, dy, fill):
    """``grid`` moved by ``(dx, dy)`` cells (at most one each): ``out[r, c] = grid[r - dy,
    c - dx]``, ``fill`` where that is off the grid."""
    padded = jnp.pad(grid, 1, constant_values=fill)
    return jax.lax.dynamic_slice(padded, (1 - dy, 1 - dx), (GRID, GRID))


def _neighbour_cells(grid):
    """``[GRID, GRID]``: the cells next to (left, right, above, below) a cell of ``grid``."""
    out = jnp.zeros_like(grid)
    for dx, dy in NEIGHBOURS:
        out = out | _shifted(grid, dx, dy, False)
    return out


def _first_step(passable, targets, column, row, when):
    """The original's breadth-first search from cell ``(column, row)`` over ``passable``
    cells to the first of ``targets`` reached: ``(found, (column, row) of the way's
    second cell, or of the start when the start is a target)``. Unless ``when``, nothing
    is searched (a batch loops only as long as its envs that search)."""
    big = 4 * GRID * GRID  # above any key: a parent's rank times 4 plus the direction
    start = jnp.zeros((GRID, GRID), bool).at[row, column].set(when)
    cells = jnp.arange(GRID * GRID).reshape(GRID, GRID)
    rank = jnp.where(start, 0, -1)  # each cell of the current layer: its place in the queue
    first = jnp.where(start, cells, -1)  # each visited cell: its way's second cell

    def reached(rank):
        hits = targets & (rank >= 0)
        at = jnp.argmin(jnp.where(hits, rank, big))
        return jnp.any(hits), at

    def go_on(carry):
        rank, _, _, found, _ = carry
        return ~found & jnp.any(rank >= 0)

    def next_layer(carry):
        rank, first, visited, _, _ = carry
        key, via = jnp.full((GRID, GRID), big), jnp.full((GRID, GRID), -1)
        for k, (dx, dy) in enumerate(NEIGHBOURS):  # the queue's order: parent, then side
            parent_rank = _shifted(rank, dx, dy, -1)
            parent_first = _shifted(first, dx, dy, -1)
            candidate = jnp.where(parent_rank >= 0, 4 * parent_rank + k, big)
            better = candidate < key
            from_start = _shifted(start, dx, dy, False)
            via = jnp.where(better, jnp.where(from_start, cells, parent_first), via)
            key = jnp.minimum(key, candidate)
        new = (key < big) & passable & ~visited
        counts = jnp.zeros(big + 1, jnp.int32).at[jnp.where(new, key, big)].add(1)
        below = jnp.cumsum(counts) - counts  # how many new cells have a smaller key
        rank = jnp.where(new, below[key], -1)
        first = jnp.where(new, via, first)
        found, at = reached(rank)
        return rank, first, visited | new, found, at

    found, at = reached(rank)
    carry = (rank, first, start, found, at)
    _, first, _, found, at = jax.lax.while_loop(go_on, next_layer, carry)
    step = first.reshape(-1)[at]
    return found, (step % GRID, step // GRID)


# --- moves ----------------------------------------------------------------------------


def _at(grid, column, row):
    """``grid`` at a cell, False off the grid."""
    inside = _on_grid(column, row)
    return inside & grid[jnp.clip(row, 0, GRID - 1), jnp.clip(column, 0, GRID - 1)]


def _pair_passable(state, carrier, box):
    """``[GRID, GRID]``: the cells the carrier of ``box`` may step to with it: free or the
    box's own, with the box's new cell not blocked or the carrier's own."""
    column, row = _cells(state)
    dx, dy = column[box] - column[carrier], row[box] - row[carrier]
    r, c = jnp.mgrid[:GRID, :GRID]
    carrier_ok = _free(state) | ((c == column[box]) & (r == row[box]))
    carrier_ok = carrier_ok & ~_grid_of(state, rules.tagged(state, NO_GO))
    box_ok = _shifted(~_blocked(state), -dx, -dy, False)  # off the grid: blocked
    box_ok = box_ok | ((c + dx == column[carrier]) & (r + dy == row[carrier]))
    return carrier_ok & box_ok


def _step_to(state, who, column, row, when):
    """``who`` (and the box it holds) one cell to ``(column, row)``, where the move is
    allowed (a free cell, or for a pair, ``_pair_passable``)."""
    box = state.memory["holds"][who]
    holding = box >= 0
    ok = jnp.where(
        holding,
        _at(_pair_passable(state, who, jnp.maximum(box, 0)), column, row),
        _at(_free(state), column, row),
    )
    cells = _cells(state)
    dx, dy = column - cells[0][who], row - cells[1][who]
    moving = (jnp.arange(NUM_SLOTS) == who) | ((jnp.arange(NUM_SLOTS) == box) & holding)
    return rules.move(state, moving, CELL * dx, CELL * dy, when & ok)


def _let_go(state, who, when):
    holds = state.memory["holds"]
    return rules.set_memory(state, "holds", holds.at[who].set(jnp.where(when, -1, holds[who])))


def _take(state, who, box, when):
    """``who`` takes ``box``, from whoever held it."""
    holds = state.memory["holds"]
    holds = jnp.where(when & (holds == box), -1, holds)
    return rules.set_memory(state, "holds", holds.at[who].set(jnp.where(when, box, holds[who])))


def _first_of(mask):
    """``(slot, any)``: the first slot of ``mask`` in list order."""
    return jnp.argmax(mask), jnp.any(mask)


# --- the turn -------------------------------------------------------------------------


def _player_acts(state, action):
    m = state.memory
    player, _ = _first_of(rules.tagged(state, PLAYER))
    column, row = _cells(state)
    holding = m["holds"][player] >= 0
    arrow = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION4)
    dx, dy = rules.arrow_step(action)
    turns = jnp.select([dy < 0, dx > 0, dy > 0], [0, 1, 2], 3)
    state = rules.set_rotation(state, player, 90 * turns, arrow & ~holding)
    state = _step_to(state, player, column[player] + dx, row[player] + dy, arrow)
    # ACTION5: let go; else take the box in front, send away the thief in front.
    grab = action.id == rules.ACTION5
    state = _let_go(state, player, grab & holding)
    fx, fy = jnp.asarray(FACING)[state.table.quarter_turns[player]]
    column, row = _cells(state)
    in_front = (column == column[player] + fx) & (row == row[player] + fy)
    box, any_box = _first_of(rules.tagged(state, BOX) & in_front)
    state = _take(state, player, box, grab & ~holding & any_box)
    thief, any_thief = _first_of(rules.tagged(state, THIEF) & in_front)
    away = grab & ~holding & any_thief
    state = _let_go(state, thief, away)
    return rules.remove(state, thief, away)


def _agent_acts(state, who, zone_tag, takes, when):
    """A helper's or thief's turn (``zone_tag``: its goal or den; ``takes``: the boxes it
    may take): ``(state, took)``."""
    m = state.memory
    column, row = _cells(state)
    box = m["holds"][who]
    holding = box >= 0
    box = jnp.maximum(box, 0)
    zones = _zone_grid(state, zone_tag)
    arrived = _at(zones, column[box], row[box])
    beside = (jnp.abs(column - column[who]) + jnp.abs(row - row[who])) == 1
    near, any_near = _first_of(takes & beside)
    # One way is searched: holding, the pair's way to where the box stands in a zone;
    # empty-handed, its own way to a cell next to a box it may take.
    dx, dy = column[box] - column[who], row[box] - row[who]
    passable = jnp.where(holding, _pair_passable(state, who, box), _free(state))
    carried_home = _shifted(zones, -dx, -dy, False)
    targets = jnp.where(holding, carried_home, _neighbour_cells(_grid_of(state, takes)))
    found, (c, r) = _first_step(passable, targets, column[who], row[who], when)
    moved = (c != column[who]) | (r != row[who])
    # Holding: let go in a zone, else carry the box a cell on. Empty-handed: take a box
    # next to it, else step towards one.
    state = _let_go(state, who, when & holding & arrived)
    took = when & ~holding & any_near
    state = _take(state, who, near, took)
    walks = jnp.where(holding, ~arrived & moved, ~any_near)
    state = _step_to(state, who, c, r, when & found & walks)
    return state, took


def _boxes_to_take(state, zone_tag, by):
    """The boxes outside zones ``zone_tag`` that no sprite of mask ``by`` holds: those a
    helper (``by``: anyone) or a thief (``by``: the thieves) may take."""
    outside = ~_in_zones(state, zone_tag, state.table.x, state.table.y)
    return rules.tagged(state, BOX) & ~_held(state, by) & outside


def _agents_act(state):
    """Helpers, then thieves, in list order; after one takes a box the later ones of its
    kind wait."""
    for agents, zone_tag in (("helpers", GOAL), ("thieves", DEN)):
        waiting = jnp.bool_(False)
        for who in state.memory[agents]:
            by = None if agents == "helpers" else rules.tagged(state, THIEF)
            takes = _boxes_to_take(state, zone_tag, by)
            slot = jnp.maximum(who, 0)
            acting = (who >= 0) & state.table.exists[slot] & ~waiting
            state, took = _agent_acts(state, slot, zone_tag, takes, acting)
            waiting = waiting | took
    return state


def _repaint(state):
    """Box borders and thieves coloured by who holds them and what the player faces."""
    m = state.memory
    player, _ = _first_of(rules.tagged(state, PLAYER))
    column, row = _cells(state)
    fx, fy = jnp.asarray(FACING)[state.table.quarter_turns[player]]
    in_front = (column == column[player] + fx) & (row == row[player] + fy)
    by_player = m["holds"][player]
    box_colour = jnp.where(
        _held(state),
        jnp.where(
            jnp.arange(NUM_SLOTS) == by_player, HELD_BY_PLAYER, jnp.where(in_front, IN_FRONT, HELD)
        ),
        jnp.where(in_front, IN_FRONT, FREE),
    )
    boxes, thieves = rules.tagged(state, BOX), rules.tagged(state, THIEF)
    colour = jnp.where(boxes, box_colour, jnp.where(in_front, THIEF_IN_FRONT, THIEF_COLOUR))
    pixels = state.table.pixels
    painted = jnp.where(BORDER, colour.astype(jnp.int8)[:, None, None], pixels)
    return rules.repaint(state, boxes | thieves, painted)


def rule(state, action, game: Game):
    # ACTION1-5 spend a move, then the player, helpers and thieves act (not a RESET's
    # frame, which only checks the level).
    acting = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION5)
    left = state.memory["moves_left"]
    played = rules.set_memory(state, "moves_left", jnp.maximum(left - 1, 0))
    played = _repaint(_agents_act(_player_acts(played, action)))
    state = rules.where(acting, played, state)
    home = _in_zones(state, GOAL, state.table.x, state.table.y) & ~_held(state)
    won = jnp.all(~rules.tagged(state, BOX) | home)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, ~won & (state.memory["moves_left"] == 0))
    return rules.complete(state)


def ui(state, frame, game: Game):
    """The bottom row: the moves left, ``round(64 * left / moves)`` pixels of colour 7."""
    full = rules.rounded_share(state.memory["moves_left"], state.memory["moves"], rules.SCREEN)
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, full, 1, BAR_FULL)


# A winning run of each level from its start, checked on the official file (the
# recorded trace's last episode): levels 2-4 and 6 by the greedy planner
# (tests/tools/plan_wa30.py), the others by beam search over gridax's game
# (tests/tools/solve_wa30.py; level 9 after a planned opening, level 5 at width 512).
SOLUTIONS = (
    "11511544415233533333154445",
    "22224444444152332233335224444444152331333333152555555555",
    "23324544444511145511333145444533333314544444451444444444444444444444444444444444",
    "42522514252511151523151523315152224235352222222222222222222222",
    (
        "2244423511113333333333544444422224251111113333331313354442244444111444415222223333333332"
        "3223315"
    ),
    "11111111244444454533311335224444444423513333311135",
    "451131114444244255453333333335144444523332335",
    (
        "1144415154441523322234444422442215333333544244444454111333311133333113331544444444445313"
        "3554424444111111111111111111115"
    ),
    "44441541522415115333151152222333333331354524533544114441415",
)


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = ("byigobxzpg", "jqzhxgbmtz", "pktgsotzmw", "wppuejnwhl")


GAME = Game(
    **DATA.game_fields(),
    static_kinds=rules.kinds_but(DATA.kinds, MOVING_KINDS),
    levels=LEVELS,
    rule=rule,
    animate=rules.no_later_frames,
    num_slots=NUM_SLOTS,
    pixel_size=CELL,  # what moves is a cell (the static zones' pieces are larger)
    reach=PIXELS,
    memory={
        "moves": Var(value=1),  # the level's StepCounter (1: never a zero divisor)
        "moves_left": Var(),
        "holds": Var(shape=(NUM_SLOTS,), value=-1),
        "blocks": Var("bool", (NUM_SLOTS,)),
        "helpers": Var(shape=(MAX_HELPERS,), value=-1),
        "thieves": Var(shape=(MAX_THIEVES,), value=-1),
    },
    max_frames=2,  # a level's change takes a frame more
    ui=ui,
    solutions=rules.maps.actions(SOLUTIONS),
)
