"""r11l (ARC Prize's ARC-AGI-3 game "R11L", levels from its official file): creatures of
legs. Click only (ACTION6).

Each level has one to three **bodies** (``bdkaz``), each held at the centre of its
**legs** (``bdkazLeg``; a thin line of colour 1 joins each leg to its body over the
background and the hazards), and **targets** (``kzeze``, rings). One leg is selected
(its cells of colour 0 white; the other legs' dark grey, 3). A click on a leg (inside
its box; legs tried by their distance from the origin at the level's start) selects it;
a click anywhere else sends the selected leg there (centred on the click), unless it
would then touch a **wall** (``bvzgd``): the body moves to its legs' new centre.

- A body that lands on a **hazard** (``qtwnv``) flashes for 20 frames and its leg walks
  back; the fifth time in a level loses the game.
- A target **covered** by its body blinks for 20 frames, then keeps a white overlay while
  covered. The level is complete when every target (but the decoys, ``anqcf``) is
  covered, once the blinking is over. In levels 5 and 6 the bodies are blank (``yukft``)
  and **pickups** (``xigcb``) paint them: a body that touches a pickup takes its
  coloured cells and the pickup goes. A blank-bodied group's target is covered by a
  painted body that touches it and shows exactly its colours.
- Every level has 60 actions: the 60th loses. Column 0 is a bar, white from the bottom
  for what is left.

A move plays over frames: the click, the leg's step (the checks above), then the blinks
and flashes (the hazard's, then the step back); a blink still running when a move ends
(the step back does not wait for it) goes on in the next move's frames.

The official file's Python state, as memory: the selected leg, the move in progress
(``moving``, ``start``, ``goal``, ``waiting`` for blinks, ``winning``, ``reverting``), the
hazard's count and flash (``hazard_hits``, ``flashing``, ``flash_frames``,
``flash_blinks``, ``flash_body``) and each target's blink (``covered``, ``blinking``,
``blink_frames``, ``blinks``). The groups, by slot, are level data (``r11l_levels``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games import r11l_levels as lv
from gridax.envs.arc3.rules import CLICK, SCREEN, Game, Var

BUDGET = 60  # actions per level
HAZARD_LIVES = 5
BLINKS, BLINK_PERIOD = 5, 4  # a target's blink and the hazard's flash
BLINK_FRAMES = BLINKS * BLINK_PERIOD
UNSELECTED, SELECTED = 3, 0  # a leg's cells of colour 0, as drawn
LINE, BAR_LEFT, BAR_SPENT = 1, 0, 5
LINE_OVER = (5, 10)  # the colours a leg's line is drawn over


def _kind_mask(state, kinds: np.ndarray):
    return state.table.exists & jnp.asarray(kinds)[state.table.kind]


def _valid(slots):
    return slots >= 0, jnp.clip(slots, 0)


def _touching(state, slot, game: Game, among):
    """``[k]``: which of the slots ``among`` (``[k]``, -1 for none) sprite ``slot`` (a
    body or leg, 5 x 5) collides with."""
    return rules.collisions(state, slot, game, size=5, among=among)


# --- legs and bodies -----------------------------------------------------------------


def centre_bodies(state, when: rules.Flag = True):
    """Every body put at the centre of its legs' centres (floor means), where ``when``."""
    legs_ok, legs = _valid(state.memory["legs"])
    height, width = rules.drawn_size(state)
    x, y = state.table.x, state.table.y
    bodies_ok, bodies = _valid(state.memory["bodies"])
    of_body = legs_ok[None, :] & (state.memory["leg_body"][None, :] == bodies[:, None])
    count = jnp.maximum(jnp.sum(of_body, axis=1), 1)
    mean_x = jnp.sum(jnp.where(of_body, (x + width // 2)[legs][None, :], 0), axis=1) // count
    mean_y = jnp.sum(jnp.where(of_body, (y + height // 2)[legs][None, :], 0), axis=1) // count
    new_x, new_y = mean_x - width[bodies] // 2, mean_y - height[bodies] // 2
    for b in range(lv.MAX_BODIES):
        state = rules.place(state, bodies[b], new_x[b], new_y[b], bodies_ok[b] & when)
    return state


def select(state, leg, when: rules.Flag = True):
    """Leg ``leg`` selected (the original's ``pprcmbqpwi``)."""
    state = rules.recolour(state, state.memory["selected"], SELECTED, UNSELECTED, when)
    state = rules.recolour(state, leg, UNSELECTED, SELECTED, when)
    return rules.set_memory(state, "selected", leg, when)


def on_set_level(state, game: Game):
    state = rules.remove(state, rules.mask_of(state, state.memory["overlays"], True))
    state = rules.remove(state, state.memory["flash"])
    state = rules.recolour(state, _kind_mask(state, lv.IS_LEG), SELECTED, UNSELECTED)
    first = state.memory["legs"][0]
    state = rules.set_memory(state, "selected", first)
    state = rules.recolour(state, first, UNSELECTED, SELECTED)
    return centre_bodies(state)


# --- what bodies touch ---------------------------------------------------------------


def body_contacts(state, game: Game, among):
    """``(ok, bodies, touching)``: the body slots and ``[bodies, k]`` which of the slots
    ``among`` each touches."""
    ok, bodies = _valid(state.memory["bodies"])
    touching = jax.vmap(lambda b: _touching(state, b, game, among))(bodies)
    return ok, bodies, touching & ok[:, None]


def colour_bits(pixels):
    """The colours above 0 of a sprite's pixels, as a bit mask."""
    colours = jnp.arange(1, 16, dtype=pixels.dtype)
    shown = jnp.any(pixels[..., None] == colours.reshape((1,) * pixels.ndim + (15,)), axis=(-3, -2))
    bits = jnp.left_shift(1, jnp.arange(1, 16, dtype=jnp.int32))
    return jnp.sum(jnp.where(shown, bits[None, :], 0), axis=-1)


def covered_targets(state, contacts):
    """``[targets]``: each target touched by its own body, or (a blank-bodied group's) by
    a painted body showing exactly its colours (``contacts``: :func:`body_contacts`
    among the targets)."""
    ok, bodies, on = contacts  # on: [bodies, targets]
    targets_ok = state.memory["targets"] >= 0
    own = state.memory["target_body"]
    by_own = jnp.any(on & (bodies[:, None] == own[None, :]), axis=0)
    bits = colour_bits(state.table.pixels[bodies, :5, :5])
    matches = bits[:, None] == state.memory["target_colours"][None, :]
    painted = state.memory["painted"][:, None] & ok[:, None]
    by_paint = jnp.any(on & matches & painted & (bits[:, None] > 0), axis=0)
    return targets_ok & jnp.where(own >= 0, by_own, by_paint)


def paint(state, game: Game):
    """Each painted body takes the coloured cells of every pickup it touches (in level
    order), and the pickups go."""
    size = 5
    pickups_ok, pickups = _valid(state.memory["pickups"])
    for b in range(lv.MAX_BODIES):
        body = jnp.clip(state.memory["bodies"][b], 0)
        painting = state.memory["painted"][b] & (state.memory["bodies"][b] >= 0)
        hit = pickups_ok & _touching(state, body, game, state.memory["pickups"]) & painting
        colours = state.table.pixels[pickups, :size, :size]
        wet = hit[:, None, None] & (colours != rules.TRANSPARENT) & (colours != 0)
        last = wet.shape[0] - 1 - jnp.argmax(wet[::-1], axis=0)  # the last pickup wins
        new = jnp.take_along_axis(colours, last[None], axis=0)[0]
        old = state.table.pixels[body, :size, :size]
        state = rules.set_pixels(state, body, jnp.where(jnp.any(wet, axis=0), new, old))
        state = rules.remove(state, rules.mask_of(state, pickups, hit))
    return state


# --- a move's frames -----------------------------------------------------------------


def blink_phase(frames, blinks):
    """``(show, hide, blinks, over)`` on a blink's ``frames``-th frame, ``blinks`` counted
    before it: the sprite toggles on even frames (shown on 2-3 of every 4, hidden on
    4-5), a blink is counted every ``BLINK_PERIOD`` frames and the ``BLINKS``-th ends it."""
    even = frames % 2 == 0
    counted = frames % BLINK_PERIOD == 0
    blinks = blinks + counted.astype(jnp.int32)
    show, hide = even & ((frames // 2) % 2 == 1), even & ((frames // 2) % 2 == 0)
    return show, hide, blinks, counted & (blinks >= BLINKS)


def blink_targets(state, game: Game):
    """Targets newly covered start blinking, uncovered ones stop and lose their overlay;
    a blink shows the overlay on frames 2-3 of each 4 and keeps it after the fifth (the
    original's ``dkhjddmkke``)."""
    m = state.memory
    # Only the targets' contacts, not every slot's: every frame of a blink asks.
    now = covered_targets(state, body_contacts(state, game, state.memory["targets"]))
    was, blinking = m["covered"], m["blinking"]
    starts = now & ~was & ~blinking
    leaves = ~now & was
    overlays_ok, overlays = _valid(m["overlays"])
    blinking = (blinking | starts) & ~leaves
    frames = jnp.where(starts, 0, m["blink_frames"]) + blinking.astype(jnp.int32)
    before = jnp.where(starts, 0, m["blinks"])
    show, hide, counted, over = blink_phase(frames, before)
    blinks = jnp.where(blinking, counted, before)
    show, hide, done = blinking & show, (blinking & hide) | leaves, blinking & over
    show, hide = show | done, hide & ~done
    shown = state.table.exists[overlays] & overlays_ok
    state = rules.remove(state, rules.mask_of(state, m["overlays"], hide & shown))
    state = rules.add_again(state, rules.mask_of(state, m["overlays"], show & ~shown))
    for name, value in (
        ("covered", (was | starts) & ~leaves),
        ("blinking", blinking & ~done),
        ("blink_frames", frames),
        ("blinks", blinks),
    ):
        state = rules.set_memory(state, name, value)
    return state


def flash_frame(state, when):
    """One frame of the hazard's flash, where ``when`` (the original's ``zznsngfkwo``)."""
    m = state.memory
    frames = m["flash_frames"] + 1
    flash, body = m["flash"], m["flash_body"]
    on, off, blinks, over = blink_phase(frames, m["flash_blinks"])
    shown = state.table.exists[flash]
    showing = when & on & ~shown
    state = rules.place(state, flash, state.table.x[body], state.table.y[body], showing)
    state = rules.add_again(state, flash, showing)
    state = rules.remove(state, flash, when & (off | over) & shown)
    state = rules.set_memory(state, "flash_frames", jnp.where(over, 0, frames), when)
    state = rules.set_memory(state, "flash_blinks", jnp.where(over, 0, blinks), when)
    state = rules.set_memory(state, "flashing", False, when & over)
    return rules.set_memory(state, "reverting", True, when & over)


def step_out(state, game: Game, when):
    """The selected leg steps to its goal, where ``when``: then a hazard, the win, or
    wait for blinks."""
    leg = state.memory["selected"]
    goal = state.memory["goal"]
    state = centre_bodies(rules.place(state, leg, goal[0], goal[1], when), when)
    has_pickups = when & jnp.any(state.memory["pickups"] >= 0)
    state = rules.rarely(has_pickups, lambda s: paint(s, game), state)
    # Only the hazards' and the targets' contacts: a pixel test against every slot
    # took a quarter of the step under the profiler (with the step skipped in the
    # blinks' frames: 1.74x).
    among = jnp.concatenate([state.memory["hazards"], state.memory["targets"]])
    ok, bodies, touching = body_contacts(state, game, among)
    on_hazard = jnp.any(touching[:, : lv.MAX_HAZARDS], axis=1)
    hazard = when & jnp.any(on_hazard)
    hits = state.memory["hazard_hits"] + hazard.astype(jnp.int32)
    state = rules.set_memory(state, "hazard_hits", hits)
    lost = hazard & (hits >= HAZARD_LIVES)
    state = rules.lose(state, lost)
    state = rules.set_memory(state, "moving", False, lost)
    flashing = hazard & ~lost
    for name, value in (("flashing", True), ("flash_frames", 0), ("flash_blinks", 0)):
        state = rules.set_memory(state, name, value, flashing)
    state = rules.set_memory(state, "flash_body", bodies[jnp.argmax(on_hazard)], flashing)
    on_targets = (ok, bodies, touching[:, lv.MAX_HAZARDS :])
    won = jnp.all(covered_targets(state, on_targets) | ~state.memory["scored"])
    state = rules.set_memory(state, "winning", True, when & ~hazard & won)
    return rules.set_memory(state, "waiting", True, when & ~hazard & ~won)


def step_back(state, when):
    """The leg walks back to where the move started (after a hazard), where ``when``."""
    start = state.memory["start"]
    state = rules.place(state, state.memory["selected"], start[0], start[1], when)
    state = centre_bodies(state, when)
    state = rules.set_memory(state, "reverting", False, when)
    return rules.set_memory(state, "moving", False, when)


def move_frame(state, game: Game):
    """A frame after a move's first (the original's ``tpjhojnaoa``)."""
    state = blink_targets(state, game)
    m = state.memory
    settled = ~jnp.any(m["blinking"])
    flashing, winning, waiting = m["flashing"], m["winning"], m["waiting"]
    stepping = ~flashing & ~winning & ~waiting
    state = flash_frame(state, flashing)
    # A move's leg steps on its second frame only: the blinks' frames skip it whole.
    out = stepping & ~m["reverting"]
    state = rules.when_any(out, lambda state, out: step_out(state, game, out), state, out)
    state = step_back(state, stepping & m["reverting"])
    won = ~flashing & winning & settled
    state = rules.next_level(state, len(game.levels), won)
    done = won | (~flashing & ~winning & waiting & settled)
    for name in ("moving", "winning", "waiting"):
        state = rules.set_memory(state, name, False, done)
    return state


# --- the click -----------------------------------------------------------------------


def click(state, action, game: Game):
    """A click: select the leg under it, or start the selected leg's move there."""
    x, y, on_view = rules.clicked_cell(state, action)
    legs_ok, legs = _valid(state.memory["legs"])
    height, width = rules.drawn_size(state)
    lx, ly = state.table.x[legs], state.table.y[legs]
    inside = legs_ok & (lx <= x) & (x < lx + width[legs]) & (ly <= y) & (y < ly + height[legs])
    on_leg = on_view & jnp.any(inside)
    state = select(state, legs[jnp.argmax(inside)], on_leg)
    leg = state.memory["selected"]
    goal_x, goal_y = x - width[leg] // 2, y - height[leg] // 2
    there = rules.place(state, leg, goal_x, goal_y)
    blocked = jnp.any(_touching(there, leg, game, there.memory["walls"]))
    moves = on_view & ~on_leg & ~blocked
    start = jnp.stack([state.table.x[leg], state.table.y[leg]])
    for name, value in (
        ("moving", True),
        ("start", start),
        ("goal", jnp.stack([goal_x, goal_y])),
        ("reverting", False),
        ("waiting", False),
    ):
        state = rules.set_memory(state, name, value, moves)
    return state


def rule(state, action, game: Game):
    out_of_moves = state.action_count >= BUDGET
    state = rules.lose(state, out_of_moves)
    state = rules.where(out_of_moves, state, click(state, action, game))  # a move: animate
    return rules.complete(state, out_of_moves | ~state.memory["moving"])


def animate(state, action, game: Game):
    """An action's later frames: a move's (an action over the budget took one frame)."""
    state = move_frame(state, game)
    return rules.complete(state, ~state.memory["moving"])


# --- the UI: the budget bar and the legs' lines ---------------------------------------


def line_cells(x0, y0, x1, y1):
    """``[64]``: the flat screen cells (``row * 64 + column``) of the line from ``(x0,
    y0)`` to ``(x1, y1)`` as the original draws it (integer Bresenham, both ends
    included), ``64 * 64`` where none: the major axis steps every cell, the minor one
    ``(2 i d_minor + d_major - 1) // (2 d_major)`` times by cell ``i``, so a line holds
    one cell per column (or row, for a steep line)."""
    dx, dy = jnp.abs(x1 - x0), jnp.abs(y1 - y0)
    sx, sy = jnp.where(x0 < x1, 1, -1), jnp.where(y0 < y1, 1, -1)
    major, minor = jnp.maximum(dx, dy), jnp.minimum(dx, dy)
    cells = jnp.arange(SCREEN, dtype=jnp.int32)
    wide = dx >= dy
    # Along the major axis from the start: cell i of the line, and its minor offset.
    i = (cells - jnp.where(wide, x0, y0)) * jnp.where(wide, sx, sy)
    steps = jnp.maximum((2 * i * minor + major - 1) // jnp.maximum(2 * major, 1), 0)
    other = jnp.where(wide, y0 + sy * steps, x0 + sx * steps)
    row, col = jnp.where(wide, other, cells), jnp.where(wide, cells, other)
    on = (i >= 0) & (i <= major) & (other >= 0) & (other < SCREEN)
    return jnp.where(on, row * SCREEN + col, SCREEN * SCREEN)


def lines_drawn(cells) -> jax.Array:
    """``[64, 64]``: the screen cells of lines (:func:`line_cells`, any leading axes),
    scattered (a mask per line compared at every cell recomputed each column's division
    at each of its cells: 16 of r11l's 77 ms a profiled batch step, benchmarks/RESULTS.md)."""
    drawn = jnp.zeros(SCREEN * SCREEN, bool).at[cells.reshape(-1)].set(True, mode="drop")
    return drawn.reshape(SCREEN, SCREEN)


def ui(state, frame, game: Game):
    """The budget bar in column 0, then a line from each leg's centre to its body's."""
    left = jnp.clip(BUDGET - state.action_count, 0, BUDGET)
    bar = rules.rounded_share(left, BUDGET, SCREEN)
    frame = rules.draw_rect(frame, 0, 0, 1, SCREEN, BAR_SPENT)
    frame = rules.draw_rect(frame, 0, SCREEN - bar, 1, bar, BAR_LEFT)
    legs_ok, legs = _valid(state.memory["legs"])
    bodies = jnp.clip(state.memory["leg_body"], 0)
    height, width = rules.drawn_size(state)
    x, y = state.table.x + width // 2, state.table.y + height // 2
    cells = jax.vmap(line_cells)(x[legs], y[legs], x[bodies], y[bodies])
    drawn = lines_drawn(jnp.where(legs_ok[:, None], cells, SCREEN * SCREEN))
    under = (frame == LINE_OVER[0]) | (frame == LINE_OVER[1])
    return jnp.where(drawn & under, jnp.int8(LINE), frame).astype(frame.dtype)


# A winning run of each level: the screen points clicked (tests/tools/solve_r11l.py: a
# beam search over leg moves on a plain-Python model of the level; checked on the
# official file by the recorded trace's last episode).
# fmt: off
POINTS = (
    ((48, 8), (27, 59), (26, 30)),
    ((54, 48), (63, 10), (8, 21), (54, 52), (17, 6), (24, 62), (49, 9), (36, 53)),
    ((37, 34), (26, 62), (52, 40), (36, 53), (23, 21), (62, 54), (14, 16), (62, 62),
     (34, 9), (55, 61)),
    ((46, 58), (39, 6), (26, 30), (46, 36), (0, 52), (46, 52), (36, 53), (27, 52), (44, 0),
     (17, 36), (60, 8), (10, 47), (38, 23)),
    ((43, 34), (8, 46), (45, 1), (7, 17), (34, 55), (63, 25), (41, 47), (4, 54), (63, 25),
     (17, 58), (52, 0), (4, 54), (44, 4), (52, 55), (38, 23)),
    ((49, 43), (0, 26), (50, 57), (36, 62), (24, 33), (60, 12), (0, 26), (38, 23), (4, 19),
     (36, 60), (11, 11), (12, 62), (22, 19), (36, 53), (49, 23), (12, 62), (50, 6), (4, 58),
     (49, 23), (6, 48)),
)
# fmt: on
SOLUTIONS = tuple(tuple((CLICK, x, y) for x, y in run) for run in POINTS)

# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "bdkaz-kpaac bdkaz-pgknepyzud bdkaz-qniqj bdkaz-qniqjgigctpgknekpaac bdkaz-ttyiazjgrp "
    "bdkaz-yukft bdkaz-yukft-2 bdkaz-zjgrp bdkazLeg-kpaac bdkazLeg-pgknepyzud bdkazLeg-qniqj "
    "bdkazLeg-qniqjgigctpgknekpaac bdkazLeg-ttyiazjgrp bdkazLeg-yukft bdkazLeg-yukft-2 "
    "bdkazLeg-zjgrp mpjrv-bdkaz mpjrv-kzeze xigcb-gigctpgknezzepw xigcb-kpaaczzepw "
    "xigcb-ttyiazzepw xigcb-txxvzPink xigcb-txxvzpgkne xigcb-txxvzpgkneBottom "
    "xigcb-txxvzpyzud xigcb-txxvzttyia xigcb-txxvzzjgrp xigcb-zjgrp"
)

GAME = Game(
    **lv.DATA.game_fields(),
    static_kinds=rules.kinds_but(lv.DATA.kinds, MOVING_KINDS),
    levels=lv.LEVELS,
    rule=rule,
    animate=animate,
    num_slots=lv.NUM_SLOTS,
    # The moving sprites' list (tests/tools/moving_runs.py): the most seen in play is 65
    # runs (the default counted sprites out of play at a level's start).
    moving_runs=96,
    pixel_size=0,  # the moving sprites' (static boards are larger)
    reach=lv.PIXEL_SIZE,
    memory={
        "legs": Var("int32", (lv.MAX_LEGS,), -1),
        "leg_body": Var("int32", (lv.MAX_LEGS,), -1),
        "bodies": Var("int32", (lv.MAX_BODIES,), -1),
        "painted": Var("bool", (lv.MAX_BODIES,)),
        "targets": Var("int32", (lv.MAX_TARGETS,), -1),
        "target_body": Var("int32", (lv.MAX_TARGETS,), -1),
        "scored": Var("bool", (lv.MAX_TARGETS,)),
        "target_colours": Var("int32", (lv.MAX_TARGETS,)),
        "overlays": Var("int32", (lv.MAX_TARGETS,), -1),
        "flash": Var(),
        "pickups": Var("int32", (lv.MAX_PICKUPS,), -1),
        "walls": Var("int32", (lv.MAX_WALLS,), -1),
        "hazards": Var("int32", (lv.MAX_HAZARDS,), -1),
        "selected": Var(),
        "moving": Var("bool"),
        "start": Var("int32", (2,)),
        "goal": Var("int32", (2,)),
        "waiting": Var("bool"),
        "winning": Var("bool"),
        "reverting": Var("bool"),
        "hazard_hits": Var(),
        "flashing": Var("bool"),
        "flash_frames": Var(),
        "flash_blinks": Var(),
        "flash_body": Var(),
        "covered": Var("bool", (lv.MAX_TARGETS,)),
        "blinking": Var("bool", (lv.MAX_TARGETS,)),
        "blink_frames": Var("int32", (lv.MAX_TARGETS,)),
        "blinks": Var("int32", (lv.MAX_TARGETS,)),
    },
    # The longest move: the click, the step, a 20-frame flash or blink, the step back
    # or the next level.
    max_frames=2 + BLINK_FRAMES + 1,
    ui=ui,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
