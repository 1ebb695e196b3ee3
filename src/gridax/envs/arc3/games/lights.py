"""Lights: click cells (ACTION6) to cycle their colours until every cell shows the first
colour, within a budget of clicks.

A click on a cell moves it and its four neighbours one colour on in the level's cycle
(two colours: lights out; three: a cycle of three). Every click spends one of the
level's moves, on a cell or not; the moves left are shown along the screen's bottom
row (a bar, two pixels a move). The level is lost when the moves run out before the
cells are done.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import CLICK, SCREEN, Game, Level, Sprite, Var, maps

KINDS = ("cell",)
CELL = 0
PALETTE = (3, 14, 11)  # colour of state 0 (done), 1, 2
DOT = 9
NEIGHBOURS = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))

# Each character is a cell's starting state (0-2), "." no cell; then the level's number
# of colours and its budget of clicks.
LEVELS = (
    (("010", "111", "010"), 2, 3),
    (("120", "201", "012"), 3, 8),
    (("1001", "0110", "0110", "1001"), 2, 6),
)

# A shortest solution of each level: screen clicks (6, x, y), found by
# gridax.envs.arc3.tools.search over clicks on the centre of every cell of any level.
SOLUTIONS = (
    ((6, 24, 24),),
    ((6, 8, 24), (6, 24, 8), (6, 24, 56), (6, 24, 56), (6, 52, 31), (6, 52, 31)),
    ((6, 8, 24), (6, 8, 40), (6, 52, 31), (6, 56, 40)),
)


def level_of(rows: tuple[str, ...], colours: int, budget: int) -> Level:
    """A level from a map of cell states, its number of colours and its budget."""
    sprites = tuple(
        Sprite(((PALETTE[int(state)],),), "cell", x=x, y=y)
        for state, x, y in maps.cells(rows, "012"[:colours])
    )
    return Level(
        sprites, grid_size=maps.size(rows), memory={"moves_left": budget, "colours": colours}
    )


def _next_colours() -> np.ndarray:
    """The next colour of each colour, per number of colours in the cycle: ``[3, 16]``
    (row ``k - 1`` for ``k`` colours; colours outside the cycle stay)."""
    table = np.arange(16, dtype=np.int8)[None].repeat(3, axis=0)
    for k in (2, 3):
        for i in range(k):
            table[k - 1, PALETTE[i]] = PALETTE[(i + 1) % k]
    return table


_NEXT = _next_colours()


def rule(state, action, game: Game):
    """One frame of a click: every action completes in one frame."""
    clicking = action.id == CLICK
    x, y, on_view = rules.clicked_cell(state, action)
    on_cell = on_view & (rules.sprite_at(state, x, y, game) >= 0)
    slots = jnp.arange(game.num_slots)
    cycled = jnp.zeros(game.num_slots, bool)
    for dx, dy in NEIGHBOURS:
        cycled = cycled | (slots == rules.sprite_at(state, x + dx, y + dy, game))
    cycled = cycled & clicking & on_cell
    colour = state.table.pixels[:, 0, 0]
    following = jnp.asarray(_NEXT)[state.memory["colours"] - 1, colour]
    state = rules.set_pixel(state, slots, 0, 0, following, cycled)
    moves = state.memory["moves_left"] - jnp.where(clicking, 1, 0)
    state = rules.set_memory(state, "moves_left", moves)
    cells = state.table.exists & (state.table.kind == CELL)
    done = jnp.all(~cells | (state.table.pixels[:, 0, 0] == PALETTE[0]))
    state = rules.next_level(state, len(game.levels), clicking & done)
    state = rules.lose(state, clicking & ~done & (moves <= 0))
    return rules.complete(state)


def ui(state, frame, game: Game):
    """Moves left: a bar along the bottom row, two pixels a move."""
    return rules.draw_rect(frame, 0, SCREEN - 1, 2 * state.memory["moves_left"], 1, DOT)


def cell_centres(game_levels=LEVELS) -> list[tuple[int, int, int]]:
    """Clicks on the centre of every cell position of any level (the search's actions)."""
    clicks = set()
    for rows, _, _ in game_levels:
        width, height = maps.size(rows)
        scale = min(SCREEN // width, SCREEN // height)
        left, top = (SCREEN - width * scale) // 2, (SCREEN - height * scale) // 2
        for _, x, y in maps.cells(rows, "012"):
            clicks.add((CLICK, left + x * scale + scale // 2, top + y * scale + scale // 2))
    return sorted(clicks)


GAME = Game(
    name="Lights",
    levels=tuple(level_of(*level) for level in LEVELS),
    kinds=KINDS,
    rule=rule,
    available_actions=(CLICK,),
    pixel_size=1,
    reach=1,
    # The clicks left, and how many colours the level's cells cycle through.
    memory={"moves_left": Var(), "colours": Var()},
    ui=ui,
    solutions=SOLUTIONS,
)
