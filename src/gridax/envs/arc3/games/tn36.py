"""tn36 (ARC Prize's ARC-AGI-3 game "TN36", levels from its official file): programming
a machine by example. Click only (ACTION6).

Each level has two **machines**. Each holds a **block** on a grid and a **tablet** of
**columns**, one instruction each, whose **bits** (lit: colour 5, dark: 1) spell a
number from the top (bit 0) down. A machine **runs** its tablet, one column a frame
(the column lights up): 1 and 34 move the block a cell (4 pixels) left, 2 right, 3 down,
33 up; 10 and 11 two cells right, 12 and 13 two left; 5, 6, 7 and 16 turn it 90, -90,
180 and 270 degrees; 8 and 9 scale it up and down (not below 1); 14, 15 and 63 paint it
9, 8 and 15; any other number does nothing. A move or scale into a **wall** is undone; a
block that meets a **beam** (or, while the beam is off, its emitter) dies: it shows as
a dead block for a frame, then nothing, and ignores moves and scales for the rest of
the run. Each third column but the last switches the beams on or off (a block under a
beam switched on dies), and so does a run that misses. A block that meets a
**checkpoint** of its own scale hides it (the others show), and at a run's end starts
from there. Rotation and paint apply even to a dead block.

The left machine's tablet is read-only: the **selectors** below it load one of the
level's programs (its block's place, turn, scale, tablet and whether it goes back to
the start after a run) and run it; it shows the player what each number does. The right
machine is the player's: a click on a bit toggles it, a click on its **button** runs the
program. A run of the right machine that leaves the block exactly on its **target**
(place, scale, turn and colour) flashes both (colour 14) for a frame, and the level is
complete on the frame after; a run that misses puts the block back at its start. Every
click moves the **timer** bar (top row) a pixel left, from level 6 every second click;
the game is lost once it has gone 61 times (the frame after the run that spent it).

The original's Python state, as memory: the running machine and its column, each
machine's start (place, turn, scale, colour), colour, life, flash flags and whether a
run puts the block back, the pressed button, the clicks, and the win or loss shown on
the next frame. The parts of each machine, by slot, are level data (``tn36_levels``).
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games import tn36_levels as lv
from gridax.envs.arc3.rules import CLICK, Game, Var

LEFT, RIGHT = 0, 1
LIT, DARK = 5, 1  # a bit's colours
SELECTED, UNSELECTED = 9, 2  # a selector's frame
PRESSED, FLASH = 10, 14
HALF_SPEED_FROM = 5  # the level index from which the timer ticks every second click
NOT_ENDING, WINNING, LOSING = 0, 1, 2
FLASHES = ("block_flash", "target_flash", "flashed")  # a win's flash: on, and shown


def _table(entries: dict, default, width: int = 1) -> np.ndarray:
    """An instruction table: ``entries`` by number (0-63), ``default`` elsewhere."""
    table = np.full((1 << lv.MAX_BITS, width), default, np.int32)
    for number, value in entries.items():
        table[number] = value
    return table[:, 0] if width == 1 else table


CELL = lv.CELL
MOVES = _table(
    {1: (-CELL, 0), 34: (-CELL, 0), 2: (CELL, 0), 3: (0, CELL), 33: (0, -CELL)}
    | {n: (2 * CELL, 0) for n in (10, 11)}
    | {n: (-2 * CELL, 0) for n in (12, 13)},
    0,
    width=2,
)
TURNS = _table({5: 90, 6: -90, 7: 180, 16: 270}, 0)
GROWTH = _table({8: 1, 9: -1}, 0)
PAINTS = _table({14: 9, 15: 8, 63: 15}, -1)


# --- boxes ---------------------------------------------------------------------------


def _boxes(state, slots):
    """``(x, y, width, height)`` of the slots' boxes as drawn."""
    height, width = rules.drawn_size(state)
    slots = jnp.clip(slots, 0)
    return state.table.x[slots], state.table.y[slots], width[slots], height[slots]


def _contains(state, slots, x, y):
    """Cell ``(x, y)`` lies in each slot's box (-1: no)."""
    left, top, width, height = _boxes(state, slots)
    inside = (left <= x) & (x < left + width) & (top <= y) & (y < top + height)
    return inside & (slots >= 0)


def _meets(state, slot, others):
    """The box of ``slot`` overlaps each of ``others``' (arcengine's bounding-box
    collision: every collision in tn36 is one)."""
    ax, ay, aw, ah = _boxes(state, slot)
    bx, by, bw, bh = _boxes(state, others)
    return (others >= 0) & (ax < bx + bw) & (bx < ax + aw) & (ay < by + bh) & (by < ay + ah)


def _set_for(state, name, m, value, when: rules.Flag = True):
    """Machine ``m``'s entry of memory ``name`` set to ``value``, where ``when``."""
    old = state.memory[name]
    return rules.set_memory(state, name, old.at[m].set(jnp.asarray(value, old.dtype)), when)


# --- a machine's block ---------------------------------------------------------------


def _lit(state, bits):
    return (state.table.pixels[jnp.clip(bits, 0), 1, 2] == LIT) & (bits >= 0)


def instruction(state, m, column):
    """The number column ``column`` of machine ``m``'s tablet spells (bit 0 on top)."""
    lit = _lit(state, state.memory["bits"][m, column])
    return jnp.sum(jnp.where(lit, 1 << jnp.arange(lv.MAX_BITS), 0))


def matched(state, m):
    """Machine ``m``'s block lies exactly on its target: place (the target's inside),
    scale, turn and colour."""
    mem, table = state.memory, state.table
    block, target = mem["block"][m], mem["target"][m]
    on = jnp.clip(target, 0)
    inset = table.scale[on]
    return (
        (target >= 0)
        & (table.x[block] == table.x[on] + inset)
        & (table.y[block] == table.y[on] + inset)
        & (table.scale[block] == table.scale[on])
        & (table.quarter_turns[block] == table.quarter_turns[on])
        & (table.pixels[block, 1, 1].astype(jnp.int32) == mem["target_colour"][m])
    )


def check_points(state, m, when, save: bool = False):
    """The checkpoints shown in order up to the first one the block meets at its own
    scale, which hides (the later ones stay as they are); with ``save``, the block
    starts from there from now on."""
    mem, table = state.memory, state.table
    block, points = mem["block"][m], mem["checkpoints"][m]
    met = _meets(state, block, points) & (table.scale[jnp.clip(points, 0)] == table.scale[block])
    first = jnp.argmax(met)
    order = jnp.arange(points.shape[0])
    was = table.visible[jnp.clip(points, 0)]
    shown = jnp.where(jnp.any(met), (order < first) | ((order > first) & was), True)
    visible = rules.per_slot(state, points, shown)
    state = rules.set_visible(state, rules.mask_of(state, points), visible, when)
    if save:
        here = jnp.stack(
            [
                table.x[block],
                table.y[block],
                table.quarter_turns[block] * 90,
                table.scale[block],
                table.pixels[block, 1, 1].astype(jnp.int32),
            ]
        )
        state = _set_for(state, "start", m, here, when & jnp.any(met))
    return state


def restore(state, m, when):
    """Machine ``m``'s block back at its start, alive and shown."""
    mem = state.memory
    block, (x, y, turn, scale, colour) = mem["block"][m], mem["start"][m]
    state = rules.place(state, block, x, y, when)
    state = rules.set_rotation(state, block, turn, when)
    state = rules.set_scale(state, block, scale, when)
    state = rules.recolour(state, block, None, colour, when)
    state = _set_for(state, "colour", m, colour, when)
    state = rules.set_visible(state, block, True, when)
    state = _set_for(state, "alive", m, True, when)
    return check_points(state, m, when)


def kill(state, m, when):
    """Machine ``m``'s block dies (if alive): hidden, its dead block shown in its place."""
    mem, table = state.memory, state.table
    block, dead = mem["block"][m], mem["dead"][m]
    when = when & mem["alive"][m]
    state = _set_for(state, "alive", m, False, when)
    state = rules.set_visible(state, block, False, when)
    state = rules.place(state, dead, table.x[block], table.y[block], when)
    state = rules.set_rotation(state, dead, table.quarter_turns[block] * 90, when)
    state = rules.set_scale(state, dead, table.scale[block], when)
    state = rules.set_layer(state, dead, table.layer[block], when)
    return rules.add_again(state, dead, when)


def under_beam(state, m, shown_only: bool = False):
    """Machine ``m``'s block meets a beam that is on, or the emitter of one that is off
    (``shown_only``: a beam that is on)."""
    mem = state.memory
    block, beams = mem["block"][m], mem["beams"][m]
    on = state.table.visible[jnp.clip(beams, 0)]
    hit = jnp.where(on, _meets(state, block, beams), _meets(state, block, mem["emitters"][m]))
    return jnp.any(hit & (beams >= 0) & (on | (not shown_only)))


def switch_beams(state, m, when, deadly: bool = False):
    """Machine ``m``'s beams switched on or off; with ``deadly``, one switched on over
    the block kills it."""
    beams = rules.mask_of(state, state.memory["beams"][m])
    state = rules.set_visible(state, beams, ~state.table.visible, when)
    if deadly:
        state = kill(state, m, when & under_beam(state, m, shown_only=True))
    return state


def execute(state, m, number, when):
    """Instruction ``number`` on machine ``m``'s block."""
    mem, table = state.memory, state.table
    block = mem["block"][m]
    (dx, dy), growth = jnp.asarray(MOVES)[number], jnp.asarray(GROWTH)[number]
    physical = when & mem["alive"][m] & ((dx != 0) | (dy != 0) | (growth != 0))
    x, y, scale = table.x[block], table.y[block], table.scale[block]
    grown = jnp.maximum(scale + growth, 1)
    state = rules.place(state, block, x + dx, y + dy, physical)
    state = rules.set_scale(state, block, grown, physical)
    walled = physical & jnp.any(_meets(state, block, mem["walls"][m]))
    state = rules.place(state, block, x, y, walled)
    state = rules.set_scale(state, block, jnp.maximum(grown - growth, 1), walled)
    state = kill(state, m, physical & under_beam(state, m))
    state = check_points(state, m, physical)
    turn = jnp.asarray(TURNS)[number]
    state = rules.rotate(state, block, turn, when & (turn != 0))
    paint = jnp.asarray(PAINTS)[number]
    painting = when & (paint >= 0)
    state = rules.recolour(state, block, None, paint, painting)
    return _set_for(state, "colour", m, paint, painting)


# --- a run ---------------------------------------------------------------------------


def start_run(state, m, when):
    state = rules.set_memory(state, "running", m, when)
    state = rules.set_memory(state, "column", 0, when)
    return restore(state, m, when)


def run_frame(state):
    """A frame of the running machine's run (the original's ``zhxlrqdrcn``): last
    frame's dead block and flash undone, then a column, the run's end, or the end of a
    win's flash."""
    mem = state.memory
    m = mem["running"]
    block, target = mem["block"][m], mem["target"][m]
    state = rules.remove(state, mem["dead"][m], ~mem["alive"][m])
    state = rules.recolour(state, block, None, mem["colour"][m], mem["block_flash"][m])
    state = rules.recolour(state, target, None, mem["target_colour"][m], mem["target_flash"][m])
    state = _set_for(state, "block_flash", m, False)
    state = _set_for(state, "target_flash", m, False)
    flashed, read_only = mem["flashed"][m], mem["read_only"][m]
    state = _set_for(state, "flashed", m, False)
    going = ~flashed
    step = mem["column"]
    columns = mem["columns"][m]
    length = jnp.sum(columns >= 0)
    state = rules.set_visible(state, columns[jnp.maximum(step - 1, 0)], False, going & (step > 0))
    # The run's end: checkpoints, then the block back (a miss) or the win's flash.
    ends = going & (step >= length)
    state = check_points(state, m, ends, save=True)
    won = matched(state, m)
    missed = ends & ~won
    state = switch_beams(state, m, missed)
    back = mem["reset_after"][m]
    put_back = ends & won & read_only & back
    state = restore(state, m, (missed & back) | put_back)
    flashes = ends & won & ~put_back
    state = _set_for(state, "flashed", m, True, flashes)
    for name, slot in (("block_flash", block), ("target_flash", target)):
        state = rules.recolour(state, slot, None, FLASH, flashes)
        state = _set_for(state, name, m, True, flashes)
    # A column of the program.
    steps = going & (step < length)
    column = jnp.minimum(step, lv.MAX_COLUMNS - 1)
    state = rules.set_visible(state, columns[column], True, steps)
    state = execute(state, m, instruction(state, m, column), steps)
    third = (step < length - 1) & (step % 3 == 2)
    state = switch_beams(state, m, steps & third, deadly=True)
    state = rules.set_memory(state, "column", step + 1, steps)
    stops = missed | put_back | (flashed & ~read_only)
    return rules.set_memory(state, "running", -1, stops)


# --- clicks --------------------------------------------------------------------------


def load_program(state, index, when):
    """The left machine set up for program ``index``: its block's place, turn and scale
    (its start too), its tablet's bits and whether a run puts the block back."""
    mem = state.memory
    block = mem["block"][LEFT]
    (x, y), turn, scale = (
        mem["program_at"][index],
        mem["program_rotation"][index],
        mem["program_scale"][index],
    )
    state = rules.place(state, block, x, y, when)
    state = rules.set_rotation(state, block, turn, when)
    state = rules.set_scale(state, block, scale, when)
    start = mem["start"][LEFT].at[:4].set(jnp.stack([x, y, turn, scale]))
    state = _set_for(state, "start", LEFT, start, when)
    program, bits = mem["programs"][index], mem["bits"][LEFT]
    wanted = (program[:, None] >> jnp.arange(lv.MAX_BITS)[None, :]) & 1 == 1
    change = when & (program[:, None] >= 0) & (_lit(state, bits) != wanted) & (bits >= 0)
    colours = rules.per_slot(state, bits, jnp.where(wanted, LIT, DARK))
    state = rules.recolour(state, rules.mask_of(state, bits, change), None, colours)
    return _set_for(state, "reset_after", LEFT, mem["program_reset"][index], when)


def select(state, x, y, when):
    """A click on a selector lights it (the others go dark), loads its program and runs
    it: ``(state, selected)``."""
    selectors = state.memory["selectors"]
    chosen = _contains(state, selectors, x, y)
    selected = when & jnp.any(chosen)
    index = jnp.argmax(chosen)
    lit = state.table.pixels[jnp.clip(selectors, 0), 0, 0] == SELECTED
    lit = rules.mask_of(state, selectors, lit)
    state = rules.recolour(state, lit, SELECTED, UNSELECTED, selected)
    slot = selectors[index]
    dark = state.table.pixels[slot, 0, 0] != SELECTED
    state = rules.recolour(state, slot, UNSELECTED, SELECTED, selected & dark)
    state = load_program(state, index, selected)
    return start_run(state, LEFT, selected), selected


def press(state, m, x, y, when):
    """A click in machine ``m``: on its (editable) tablet it toggles the bit under it;
    on its button it runs the machine: ``(state, runs)``."""
    mem = state.memory
    inside = when & _contains(state, mem["machine"][m], x, y)
    on_tablet = inside & ~mem["read_only"][m] & _contains(state, mem["tablet"][m], x, y)
    bits = mem["bits"][m]
    under = _contains(state, mem["columns"][m], x, y)[:, None] & _contains(state, bits, x, y)
    colours = rules.per_slot(state, bits, jnp.where(_lit(state, bits), DARK, LIT))
    state = rules.recolour(state, rules.mask_of(state, bits, under & on_tablet), None, colours)
    button = mem["button"][m]
    runs = inside & ~on_tablet & _contains(state, button, x, y)
    state = rules.recolour(state, button, mem["button_colour"][m], PRESSED, runs)
    state = rules.set_memory(state, "pressed", True, runs)
    return start_run(state, m, runs), runs


def click(state, action):
    """A click: a selector, else the left machine, else the right; the timer ticks."""
    x, y, on_view = rules.clicked_cell(state, action)
    x, y = jnp.where(on_view, x, 0), jnp.where(on_view, y, 0)  # arcengine's None: (0, 0)
    clicking = action.id == CLICK
    state, selected = select(state, x, y, clicking)
    state, left_runs = press(state, LEFT, x, y, clicking & ~selected)
    state, _ = press(state, RIGHT, x, y, clicking & ~selected & ~left_runs)
    clicks = state.memory["clicks"] + 1
    ticks = clicking & ((state.level < HALF_SPEED_FROM) | (clicks % 2 == 0))
    state = rules.move(state, state.memory["bar"], -1, 0, ticks)
    return rules.set_memory(state, "clicks", clicks, clicking)


def run_and_release(state):
    """A frame of a run; the pressed button comes back up."""
    mem = state.memory
    m = mem["running"]
    state = run_frame(state)
    button, colour = mem["button"][m], mem["button_colour"][m]
    state = rules.recolour(state, button, PRESSED, colour, mem["pressed"])
    return rules.set_memory(state, "pressed", False)


def timer_out(state):
    mem, table = state.memory, state.table
    bar_x, _, bar_width, _ = _boxes(state, mem["bar"])
    return table.x[mem["marker"]] >= bar_x + bar_width


def frame(state, action, game: Game, first: bool):
    """An action's ``first`` frame (static): a click; a later one: a run's, or its end's."""
    played = click(state, action) if first else run_and_release(state)
    idle = played.memory["running"] < 0
    won = idle & matched(played, RIGHT)
    lost = idle & ~won & timer_out(played)
    played = rules.set_memory(played, "ending", jnp.where(won, WINNING, LOSING), won | lost)
    played = rules.complete(played, idle & ~won & ~lost)
    if first:
        return played
    # The frame after a run's win or loss.
    ending = state.memory["ending"]
    ended = rules.next_level(state, len(game.levels), ending == WINNING)
    ended = rules.lose(ended, ending == LOSING)
    ended = rules.complete(rules.set_memory(ended, "ending", NOT_ENDING))
    return rules.where(ending != NOT_ENDING, ended, played)


def on_set_level(state, game: Game):
    state = rules.remove(state, rules.mask_of(state, state.memory["dead"]))
    return load_program(state, 0, state.memory["first_program"])


# A winning run of each level: the screen points clicked, bits toggled then the button
# (tests/tools/solve_tn36.py: a search over programs on a plain-Python model of the
# right machine, runs chained through checkpoints; checked on the official file by the
# recorded trace's last episode).
# fmt: off
POINTS = (
    ((26, 42), (26, 45), (36, 42), (36, 45), (41, 42), (41, 45), (36, 55)),
    ((39, 33), (39, 48), (44, 33), (44, 48), (49, 33), (49, 48), (54, 33), (54, 48), (46, 58)),
    ((44, 33), (44, 48), (49, 36), (49, 42), (54, 36), (54, 42), (59, 33), (59, 48), (57, 58)),
    ((34, 33), (39, 33), (39, 36), (44, 33), (44, 42), (49, 33), (49, 36), (54, 33), (54, 36),
     (59, 33), (59, 36), (57, 58)),
    ((34, 33), (34, 36), (39, 33), (39, 36), (44, 33), (44, 36), (49, 33), (49, 39), (54, 42),
     (59, 33), (59, 36), (59, 39), (59, 42), (59, 45), (59, 48), (57, 58)),
    ((44, 36), (44, 42), (49, 36), (49, 42), (54, 33), (54, 48), (59, 33), (59, 48), (57, 58),
     (34, 33), (34, 48), (39, 33), (39, 48), (44, 42), (49, 36), (49, 39), (59, 48), (57, 58)),
    ((49, 36), (54, 36), (54, 42), (59, 33), (59, 48), (57, 58), (34, 33), (34, 48), (39, 33),
     (39, 48), (44, 33), (44, 48), (49, 48), (54, 36), (54, 39), (57, 58)),
)
# fmt: on
SOLUTIONS = tuple(tuple((CLICK, x, y) for x, y in run) for run in POINTS)

GAME = Game(
    **lv.DATA.game_fields(),
    static_kinds=rules.kinds_but(lv.DATA.kinds, lv.MOVING_KINDS),
    repainted_kinds=lv.REPAINTED_KINDS,
    levels=lv.LEVELS,
    rule=functools.partial(frame, first=True),
    animate=functools.partial(frame, first=False),
    num_slots=lv.NUM_SLOTS,
    reach=lv.PIXEL_SIZE,
    memory={
        **lv.PARTS,
        # The play.
        "start": lv.per_machine("int32", (5,), 0),  # x, y, turn, scale, colour
        "colour": lv.per_machine("int32", (), 0),
        "alive": lv.per_machine("bool", (), True),
        **{name: lv.per_machine("bool", (), False) for name in FLASHES},
        "reset_after": lv.per_machine("bool", (), True),
        "running": Var("int32", (), -1),
        "column": Var(),
        "pressed": Var("bool"),
        "clicks": Var(),
        "ending": Var(),
    },
    # The click, a frame per column, the run's end, the flash's end, the win's frame and
    # the next level's.
    max_frames=lv.MAX_STEPS + 5,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
