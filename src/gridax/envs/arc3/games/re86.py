"""re86, ARC Prize's public ARC-AGI-3 game (version 4e57566e), as JAX rules.

A picture of coloured dots (the target, below everything) is to be covered by line
shapes: crosses, diagonal crosses, diamonds and frames. One shape is selected: its hub
(centre pixel) is 0. The level is won when every dot of the target (its pixels that are
neither transparent nor 4) lies under a shape's pixel of the dot's colour (the shapes
painted in list order, a later one over an earlier). Each level allows as many actions
as its step counter (a bar along the bottom row: ``round(64 * left / counter)`` pixels
of colour 15 from the left, the rest 1); the action that spends the last loses.

- **ACTION1-4** move the selected shape 3 cells, unless its hub would leave the screen.
  Against a wall, a *squashy* shape (tag ``nogegkgqgd``) wider (moving across) or
  taller (moving up or down) than 6 becomes a frame 3 narrower and 3 taller (or 3 lower
  and 3 wider), centred where it was and put on a multiple of 3; a narrower one stays.
  A cross against a wall slides the bar the wall holds 3 cells back (or stays, when
  both its bars meet the wall). A shape that then touches a paint pot of another
  colour takes the pot's colour where it overlaps the pot, and the colour spreads
  through the shape a ring of neighbours a frame until all of it is the pot's colour.
- **ACTION5** selects the next shape in list order: every hub is drawn as its shape's
  resting hub (a squashy shape's none, a ``ldkpywfara`` shape's in its colour, another
  in its colour where a bar runs through it) and the next shape's hub is 0.

The original's structures are memory: the shapes, walls and pots in list order, the
pots' colours, the target's cells (``goal``), the shape being painted and its colour
(``painting``, ``ink``) and the steps left. The original reads a shape's colour from its
pixels (the first that is neither 0 nor transparent); between actions every shape is of
one colour (a paint ends with all of it the pot's), so the port keeps it (``colours``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.re86_levels import (
    CORNER,
    DATA,
    LEVELS,
    MAPS,
    MAX_CELLS,
    MAX_POTS,
    MAX_SHAPES,
    MAX_WALLS,
    PIXELS,
    POT,
    SELECTED,
    SHAPE,
    SOLUTIONS,
    SQUASH_BELOW,
    STEP,
    TARGET,
    WALL,
    kinds_tagged,
)
from gridax.envs.arc3.rules import Game, Var

TRANSPARENT = rules.TRANSPARENT
# NumPy, not JAX: a module that made JAX arrays on import would start JAX's backends
# before a program could choose them (gridax bench --platform, --devices).
ROWS, COLS = (np.arange(n, dtype=np.int32) for n in PIXELS)


# --- a shape's grid (one slot's pixels, ``PIXELS`` padded transparent) ------------------


def _bars(grid, height, width):
    """``(column, row)``: the shape's first column and first row drawn end to end (the
    original's search ends on the last one where none is)."""
    drawn = grid != TRANSPARENT
    full_column = jnp.all(drawn | (ROWS[:, None] >= height), axis=0) & (width > COLS)
    full_row = jnp.all(drawn | (COLS[None, :] >= width), axis=1) & (height > ROWS)
    column = jnp.where(jnp.any(full_column), jnp.argmax(full_column), width - 1)
    row = jnp.where(jnp.any(full_row), jnp.argmax(full_row), height - 1)
    return column.astype(jnp.int32), row.astype(jnp.int32)


def _hub_at(grid, value, height, width):
    return grid.at[height // 2, width // 2].set(jnp.asarray(value, grid.dtype))


def _resting_hub(grid, height, width, squashy, filled, colour):
    """The grid with its hub as an unselected shape's: none for a squashy shape, its
    colour for a filled-hub one, else its colour where a bar runs through the hub."""
    column, row = _bars(grid, height, width)
    on_bar = (height // 2 == row) | (width // 2 == column)
    hub = jnp.where(~squashy & (filled | on_bar), colour, TRANSPARENT)
    return _hub_at(grid, hub, height, width)


def _frame(colour, height, width):
    """A frame of ``colour``, ``height`` x ``width``, its hub 0 (a squashed shape)."""
    inside = (ROWS[:, None] < height) & (COLS[None, :] < width)
    edge = (ROWS[:, None] == 0) | (ROWS[:, None] == height - 1)
    edge |= (COLS[None, :] == 0) | (COLS[None, :] == width - 1)
    grid = jnp.where(inside & edge, colour, TRANSPARENT).astype(jnp.int8)
    return _hub_at(grid, SELECTED, height, width)


def _on_thirds(v):
    """``round(v / 3) * 3`` as Python rounds (``v`` an integer: never a half)."""
    return jnp.floor_divide(v + 1, STEP) * STEP


class Shape(NamedTuple):
    """The selected shape as the rule works it out, written to its slot once."""

    grid: jax.Array  # [*PIXELS], transparent beyond height x width
    x: jax.Array
    y: jax.Array
    height: jax.Array
    width: jax.Array


def _shape(state, slot) -> Shape:
    table = state.table
    return Shape(
        table.pixels[slot], table.x[slot], table.y[slot], table.height[slot], table.width[slot]
    )


def _met(shape: Shape, level, which: int):
    """``[*PIXELS]``: the list index of the wall (``which`` 0) or pot (1) under each of
    the shape's drawn pixels, -1 where none is (the level's map, ``re86_levels.MAPS``:
    arcengine's pixel-perfect collisions with sprites that never move)."""
    corner = (which, shape.y - CORNER, shape.x - CORNER)
    window = jax.lax.dynamic_slice(jnp.asarray(MAPS)[level], corner, (1, *PIXELS))[0]
    return jnp.where(shape.grid != TRANSPARENT, window.astype(jnp.int32), -1)


def _moved(shape: Shape, dx, dy, when: rules.Flag = True) -> Shape:
    return shape._replace(x=shape.x + jnp.where(when, dx, 0), y=shape.y + jnp.where(when, dy, 0))


def _squashed(shape: Shape, dx, dy, colour) -> Shape:
    """A squashy shape against a wall: a frame 3 narrower and 3 taller (moving across;
    3 lower and 3 wider moving up or down), centred where it was and put on a multiple
    of 3 across its move; kept where it was before the move if too narrow."""
    height, width = shape.height, shape.width
    across = dx != 0
    new_height = jnp.where(across, height + STEP, height - STEP)
    new_width = jnp.where(across, width - STEP, width + STEP)
    x = shape.x + jnp.where(across, 0, width // 2 - (width + STEP) // 2)
    y = shape.y + jnp.where(across, height // 2 - (height + STEP) // 2, 0)
    x = jnp.where(across, x - jnp.minimum(dx, 0), _on_thirds(x))
    y = jnp.where(across, _on_thirds(y), y - jnp.minimum(dy, 0))
    squashed = Shape(_frame(colour, new_height, new_width), x, y, new_height, new_width)
    squashes = jnp.where(across, width, height) >= SQUASH_BELOW
    return rules.where(squashes, squashed, _moved(shape, -dx, -dy))


def _slid(shape: Shape, dx, dy, wall_box, colour) -> Shape:
    """A cross against the wall in ``wall_box`` (x, y, height, width): the bar across
    the move that the wall holds slides 3 cells back (the cross keeps its move), or the
    cross stays, sliding its other bar 3 cells on if the wall holds that one (the
    original's rule, bar by bar)."""
    grid, height, width = shape.grid, shape.height, shape.width
    colour = colour.astype(grid.dtype)
    column, row = _bars(grid, height, width)
    wall_x, wall_y, wall_height, wall_width = wall_box
    holds_column = (wall_x <= shape.x + column) & (shape.x + column < wall_x + wall_width)
    holds_row = (wall_y <= shape.y + row) & (shape.y + row < wall_y + wall_height)
    across = dx != 0
    ahead = jnp.where(across, dx, dy) > 0
    bar, length = jnp.where(across, column, row), jnp.where(across, width, height)
    held = jnp.where(across, holds_column, holds_row)
    other_held = jnp.where(across, holds_row, holds_column)
    room_back = jnp.where(ahead, bar > 0, bar < length - 2)
    room_on = jnp.where(ahead, bar < length - 2, bar > 0)
    back = other_held | (held & ~room_back)
    slides = jnp.where(held, ~other_held & room_back, other_held & room_on)
    to = bar + jnp.where(held == ahead, -STEP, STEP)
    to = jnp.where(to < 0, to + length, to)  # Python's index from the end
    line = jnp.where(across, COLS[None, :], ROWS[:, None])
    inside = (ROWS[:, None] < height) & (COLS[None, :] < width)
    slid = jnp.where(inside & (line == bar), TRANSPARENT, grid)
    slid = jnp.where(inside & (line == to), colour, slid).astype(grid.dtype)
    slid = _hub_at(slid.at[row, column].set(colour), SELECTED, height, width)
    shape = shape._replace(grid=jnp.where(slides, slid, grid))
    return _moved(shape, -dx, -dy, back)


def _against_walls(state, slot, dx, dy):
    """The selected shape, just moved, against each wall it meets in list order (a
    squashy shape only the first): run only where it meets one."""
    m = state.memory
    table = state.table
    heights, widths = rules.drawn_size(state)
    squashy, colour = _of_shape(state, slot, "squashy"), _of_shape(state, slot, "colours")
    shape = _shape(state, slot)
    stopped = jnp.bool_(False)
    for i in range(MAX_WALLS):
        wall = jnp.maximum(m["walls"][i], 0)
        box = (table.x[wall], table.y[wall], heights[wall], widths[wall])
        hit = jnp.any(_met(shape, state.level, 0) == i) & ~stopped
        squashed = _squashed(shape, dx, dy, colour)
        after = rules.where(squashy, squashed, _slid(shape, dx, dy, box, colour))
        shape = rules.where(hit, after, shape)
        stopped |= hit & squashy
    return _write_shape(state, slot, shape)


def _of_shape(state, slot, name: str):
    """A per-shape memory value (``squashy``, ``filled_hub``, ``colours``) of shape
    ``slot``."""
    m = state.memory
    return m[name][jnp.argmax(m["shapes"] == slot)]


# --- moves, the paint, the selection ----------------------------------------------------


def _settled_and_painted(shape: Shape, slot, state):
    """``(shape, pot)`` after a move: the hub as at rest, then the first pot (list
    order) the shape touches, of another colour than the shape's, paints where they
    overlap (``pot`` its index, -1 for none); else the hub is 0 again."""
    m = state.memory
    height, width = shape.height, shape.width
    squashy, filled = _of_shape(state, slot, "squashy"), _of_shape(state, slot, "filled_hub")
    colour = _of_shape(state, slot, "colours")
    grid = _resting_hub(shape.grid, height, width, squashy, filled, colour)
    under = _met(shape._replace(grid=grid), state.level, 1)
    other_colour = m["pot_colours"][jnp.maximum(under, 0)] != colour
    pot = jnp.min(jnp.where((under >= 0) & other_colour, under, MAX_POTS))
    paints = pot < MAX_POTS
    pot = jnp.where(paints, pot, -1)
    # A pot is solid (re86_levels checks): the pixels over its box are those on its index.
    ink = m["pot_colours"][jnp.maximum(pot, 0)].astype(grid.dtype)
    painted = jnp.where(under == pot, ink, grid)
    grid = jnp.where(paints, painted, _hub_at(grid, SELECTED, height, width))
    return shape._replace(grid=grid), pot


def _write_shape(state, slot, shape: Shape, when: rules.Flag = True):
    state = rules.set_grid(state, slot, shape.grid, shape.height, shape.width, when)
    return rules.place(state, slot, shape.x, shape.y, when)


def _move(state, slot, dx, dy, when):
    """The selected shape moved (if its hub stays on screen), then against the walls and
    the pots, where ``when``: ``(state, paints)``, the paint's spread started where a
    pot paints it. A squashy shape that meets a wall is done with its move there."""
    m = state.memory
    shape = _moved(_shape(state, slot), dx, dy)
    hub_x, hub_y = shape.x + shape.width // 2, shape.y + shape.height // 2
    when &= (hub_x >= 0) & (hub_y >= 0) & (hub_x < rules.SCREEN) & (hub_y < rules.SCREEN)
    state = rules.place(state, slot, shape.x, shape.y, when)
    meets_wall = when & jnp.any(_met(shape, state.level, 0) >= 0)
    state = rules.rarely(meets_wall, _against_walls, state, slot, dx, dy)
    when &= ~(meets_wall & _of_shape(state, slot, "squashy"))
    painted, pot = _settled_and_painted(_shape(state, slot), slot, state)
    state = _write_shape(state, slot, painted, when)
    paints = when & (pot >= 0)
    state = rules.set_memory(state, "painting", slot, paints)
    return rules.set_memory(state, "ink", m["pot_colours"][jnp.maximum(pot, 0)], paints), paints


def _select_next(state, selected, when):
    """Every hub at rest, and the shape after ``selected`` (list order) selected, where
    ``when``."""
    m = state.memory
    table = state.table
    shapes = jnp.maximum(m["shapes"], 0)
    heights, widths = table.height[shapes], table.width[shapes]
    at_rest = (table.pixels[shapes], heights, widths, m["squashy"], m["filled_hub"], m["colours"])
    grids = jax.vmap(_resting_hub)(*at_rest)
    following = jnp.arange(MAX_SHAPES) == (selected + 1) % jnp.sum(m["shapes"] >= 0)
    hubs = jax.vmap(_hub_at, (0, None, 0, 0))(grids, SELECTED, heights, widths)
    grids = jnp.where(following[:, None, None], hubs, grids)
    for i in range(MAX_SHAPES):
        state = rules.repaint(state, m["shapes"][i], grids[i], when & (m["shapes"][i] >= 0))
    return state


def _selected(state):
    """``(index, any)``: the first shape (list order) whose hub is 0."""
    m = state.memory
    shapes = jnp.maximum(m["shapes"], 0)
    table = state.table
    hubs = table.pixels[shapes, table.height[shapes] // 2, table.width[shapes] // 2]
    chosen = (hubs == SELECTED) & (m["shapes"] >= 0)
    return jnp.argmax(chosen), jnp.any(chosen)


def _solved(state):
    """Every cell of the target under a shape's pixel of its colour (later shapes over
    earlier ones)."""
    m = state.memory
    table = state.table
    goal_x, goal_y, colour = m["goal"][:, 0], m["goal"][:, 1], m["goal"][:, 2]
    picture = jnp.full((MAX_CELLS,), TRANSPARENT, jnp.int32)
    for i in range(MAX_SHAPES):
        slot = jnp.maximum(m["shapes"][i], 0)
        col, row = goal_x - table.x[slot], goal_y - table.y[slot]
        inside = (col >= 0) & (row >= 0) & (col < PIXELS[1]) & (row < PIXELS[0])
        pixel = table.pixels[slot, jnp.clip(row, 0, PIXELS[0] - 1), jnp.clip(col, 0, PIXELS[1] - 1)]
        drawn = inside & (pixel != TRANSPARENT) & (m["shapes"][i] >= 0)
        picture = jnp.where(drawn, pixel.astype(jnp.int32), picture)
    return jnp.all((picture == colour) | (colour < 0))


def _end_action(state, game: Game, when: rules.Flag = True):
    """The action's end (where ``when``): the level won, or lost when no step is left."""
    solved = _solved(state)
    state = rules.next_level(state, len(game.levels), when & solved)
    state = rules.lose(state, when & ~solved & (state.memory["steps"] == 0))
    return rules.complete(state, when)


def rule(state, action, game: Game):
    m = state.memory
    keys = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION5)
    state = rules.set_memory(state, "steps", jnp.maximum(m["steps"] - 1, 0), keys)
    index, any_selected = _selected(state)
    slot = jnp.maximum(m["shapes"][index], 0)
    step = rules.arrow_step(action) * STEP
    arrow = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION4) & any_selected
    state, paints = _move(state, slot, step[0], step[1], arrow)
    state = _select_next(state, index, action.id == rules.ACTION5)
    return _end_action(state, game, ~paints)


def animate(state, action, game: Game):
    """The paint's spread: each frame the pot's colour takes every drawn pixel beside
    one of its own (rows, columns and diagonals); when all of the shape is the pot's
    colour, its hub is 0 again and the action ends."""
    m = state.memory
    slot = jnp.maximum(m["painting"], 0)
    table = state.table
    grid = table.pixels[slot]
    ink = m["ink"].astype(grid.dtype)
    drawn = grid != TRANSPARENT
    inked = grid == ink
    near = jax.lax.reduce_window(inked, False, jax.lax.bitwise_or, (3, 3), (1, 1), "SAME")
    spreading = jnp.any(drawn & ~inked)
    spread = jnp.where(drawn & near, ink, grid)
    done = _hub_at(grid, SELECTED, table.height[slot], table.width[slot])
    state = rules.repaint(state, slot, jnp.where(spreading, spread, done))
    colours = jnp.where(m["shapes"] == slot, m["ink"], m["colours"])
    state = rules.set_memory(state, "colours", colours, ~spreading)
    state = rules.set_memory(state, "painting", -1, ~spreading)
    return _end_action(state, game, ~spreading)


def ui(state, frame, game: Game):
    """The steps left: ``round(64 * left / counter)`` pixels of colour 15 along the
    bottom row from the left, the rest 1."""
    m = state.memory
    left = rules.rounded_share(m["steps"], m["budget"], rules.SCREEN)
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, 1)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, left, 1, 15)


GAME = Game(
    **DATA.game_fields(),
    static_kinds=kinds_tagged(TARGET, WALL, POT),
    repainted_kinds=kinds_tagged(SHAPE),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    pixel_size=PIXELS,
    reach=rules.SCREEN,  # the target's 64 cells (walls and pots are met through MAPS)
    memory={
        "steps": Var(),
        "budget": Var(value=1),
        "shapes": Var(shape=(MAX_SHAPES,), value=-1),
        "squashy": Var("bool", (MAX_SHAPES,)),
        "filled_hub": Var("bool", (MAX_SHAPES,)),
        "colours": Var(shape=(MAX_SHAPES,), value=-1),
        "walls": Var(shape=(MAX_WALLS,), value=-1),
        "pots": Var(shape=(MAX_POTS,), value=-1),
        "pot_colours": Var(shape=(MAX_POTS,), value=-1),
        "goal": Var(shape=(MAX_CELLS, 3), value=-1),
        "painting": Var(value=-1),
        "ink": Var(),
    },
    max_frames=64,
    ui=ui,
    solutions=SOLUTIONS,
)
