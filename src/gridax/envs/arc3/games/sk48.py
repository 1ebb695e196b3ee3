"""sk48, ARC Prize's public ARC-AGI-3 game (version 41055498), as JAX rules.

Arms of 6-cell segments reach from their bases across a board; blocks of colours lie on
them. Most arms above the bar (row 53) have a pair below it, of the same base colour,
whose blocks are the target: the level is won when, for every pair, the blocks lying on
the upper arm's segments, in order from its base, have the colours of the pair's
blocks (a marker lights on the pair's blocks as each matches). An arm without a pair
only moves if it is the level's first, selected at the start. The bar is 196 moves; a
move spends one even when nothing moves, and the level is lost when none are left.

- **ACTION1-4** move the selected arm. Along its way it grows: a new segment at the
  base, the others and the blocks they carry pushed one step outward, unless the last
  segment would leave the board or enter a wall. Against its way it shrinks: the first
  segment goes (shown one more frame), the others and their blocks come one step back;
  an arm of one segment does not shrink. Across its way it slides, base and all, if a
  rail lies half a step that way from the base's centre and every segment on the board
  can go; a block a segment pushes moves unless it would leave the board, enter a wall,
  or lie on or move onto a segment across the move (other than the one pushing it), and
  pushes the block ahead of it in turn. Growing and shrinking arms slide under blocks
  that cannot move; a slide stops whole if any of its blocks cannot.
- A block pushed from off every segment along the move onto one is shadowed for the
  move; so is a block a growing or shrinking segment cannot push, where no segment along
  the move lies under it. A move takes two frames (3 cells each), a third when shadows
  show; a slide stopped by a block leaves its shadows waiting, and the next action the
  game offers, whatever it is, only clears them and ends the move.
- **ACTION6** on a base above the bar with a pair, or on its pair, selects that arm
  (its base and its pair's colour 4 drawn 0, their segments in the selected colours);
  an arm without a pair, once left, cannot be selected again.
- **ACTION7** is the game's own undo (not the engine's): it puts the bases, the arms'
  lengths and the blocks back as they were before the last move that moved something
  (nothing at the level's start; the selection and the moves spent stay). A stopped
  slide's clearing keeps an entry too, the same as the one before it: the undo after it
  shows no change.
- A win flashes the blocks on the arms (0 and their colour by turns, 35 frames), then
  the next level.

The original's structures are memory: the arms (``base``, ``way``, ``count``; their
segments are drawn from them), its pairs (``pair``), the blocks (``block``), the move in
progress (``moving``, ``kind``, ``move``, ``moved``), the shadows (``shadow``,
``shadow_shown``, ``pending``), the win's flash (``flash``, ``flashing``), the markers
(``lit``) and the undo stack of its moves (``history``, as many entries as the budget
allows: one a move, and the level's start). The level's constants (``sk48_levels``):
slots, the board, walls and rails; where segments are and what a move pushes
(``sk48_arms``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games import sk48_arms as arms
from gridax.envs.arc3.games.sk48_arms import ARMS, GROW, SEGMENTS, SHRINK, SLIDE
from gridax.envs.arc3.games.sk48_levels import (
    BAR_ROW,
    BASE_TAG,
    BUDGET,
    DATA,
    FIRST_MARKER,
    FIRST_SHADOW,
    GHOST,
    LEVELS,
    MAX_ARMS,
    MAX_BLOCKS,
    MAX_MARKERS,
    MAX_RAILS,
    MAX_SEGMENTS,
    MAX_WALLS,
    NUM_SLOTS,
    SEGMENT,
    STEP,
)
from gridax.envs.arc3.rules import Game, Var

PIXELS = 8
HISTORY = BUDGET + 1  # the level's start and one entry a move
FLASH_FRAMES = 35
UNLIT, LIT = 4, 0  # a base's colour, and the same colour while its arm is selected
BAR_LEFT, BAR_SPENT = 2, 3
BASE = DATA.tags.index(BASE_TAG)
_NORMAL = DATA.padded_pixels(SEGMENT, PIXELS)
# Selecting paints 2 as 1, then 3 as 2.
_SELECTED = np.where(_NORMAL == 2, 1, np.where(_NORMAL == 3, 2, _NORMAL)).astype(np.int8)


def _move(state, action, when):
    """An arrow: ``(state, animating)``."""
    memory = state.memory
    step = rules.arrow_step(action) * STEP
    arm = memory["selected"]
    way, base, count = memory["way"][arm], memory["base"][arm], memory["count"][arm]
    kind = jnp.where(
        jnp.all(step == way * STEP), GROW, jnp.where(jnp.all(step == -way * STEP), SHRINK, SLIDE)
    )
    last = base + (count - 1) * STEP * way
    rail = (base[0] + 2 + step[0] // 2, base[1] + 2 + step[1] // 2)
    tried = jnp.where(
        kind == GROW,
        ~arms.blocked(memory, last[0] + step[0], last[1] + step[1]),
        jnp.where(kind == SHRINK, count > 1, arms.in_boxes(memory["rails"], *rail)),
    )
    moved, shadowed, stopped = arms.pushes(memory, kind, step)
    shadowed = shadowed & tried
    animating = when & tried & ~stopped
    state = rules.set_memory(state, "moves_left", memory["moves_left"] - 1, when)
    state = rules.set_memory(state, "pending", jnp.any(shadowed), when)
    growth = jnp.where(kind == GROW, 1, jnp.where(kind == SHRINK, -1, 0))
    new_count = memory["count"].at[arm].add(growth)
    new_base = memory["base"].at[arm].add(jnp.where(kind == SLIDE, step, 0))
    new_block = memory["block"] + jnp.where(moved[:, None], step[None, :], 0)
    for name, value in (
        ("count", new_count),
        ("base", new_base),
        ("block", new_block),
        ("moving", True),
        ("kind", kind),
        ("move", step // STEP),
        ("moved", moved),
        ("shadow", shadowed),
        ("shadow_shown", jnp.any(shadowed)),
        ("shadow_turns", jnp.where(step[0] != 0, 0, 1)),
    ):
        state = rules.set_memory(state, name, value, animating)
    return state, animating


# --- what a level's state means ---------------------------------------------------------


def _markers(memory):
    """``(won, lit, on_any)``: every marker lit, and which are (marker ``k`` of an arm's
    pair is lit when the arm has a ``k``-th block and it is of the pair's ``k``-th block's
    colour), and the blocks on any arm."""
    colour, count, on_any = arms.blocks_on_arms(memory)
    arm = jnp.maximum(memory["marker_arm"], 0)
    pair = jnp.maximum(memory["pair"][arm], 0)
    k = memory["marker_index"]
    lit = (k < count[arm]) & (colour[arm, k] == colour[pair, k]) & (memory["marker_arm"] >= 0)
    return jnp.all(lit | (memory["marker_arm"] < 0)), lit, on_any


def _entry(memory):
    """What the undo stack keeps of a move: bases, arm lengths and blocks."""
    return jnp.concatenate(
        [memory["base"].T.ravel(), memory["count"], memory["block"].T.ravel()]
    ).astype(jnp.int8)


def _restore(state, entry, when):
    a, b = MAX_ARMS, MAX_BLOCKS
    entry = entry.astype(jnp.int32)
    state = rules.set_memory(state, "base", entry[: 2 * a].reshape(2, a).T, when)
    state = rules.set_memory(state, "count", entry[2 * a : 3 * a], when)
    return rules.set_memory(state, "block", entry[3 * a :].reshape(2, b).T, when)


def _push_history(state, when):
    """The state's entry on the undo stack (a row written where ``when``; the stack is
    never fuller than the budget allows)."""
    size = state.memory["history_size"]
    row = jnp.where(when, size, HISTORY)  # past the end: dropped
    history = state.memory["history"].at[row].set(_entry(state.memory), mode="drop")
    state = rules.update_memory(state, {"history": history})
    return rules.set_memory(state, "history_size", jnp.minimum(size + 1, HISTORY), when)


def _light_markers(state, when):
    won, lit, on_any = _markers(state.memory)
    return rules.set_memory(state, "lit", lit, when), won, on_any


# --- the frames of an action ------------------------------------------------------------


def _flash(state, game: Game, when):
    """A frame of the win's flash; the last starts the next level."""
    memory = state.memory
    n = memory["flash"]
    black = ((n // 5) % 2 == 0) | (n >= 25)
    colour = jnp.where(black, 0, memory["block_colour"])
    slots = memory["block_slot"]
    which = rules.mask_of(state, slots, memory["flashing"])
    state = rules.recolour(state, which, None, rules.per_slot(state, slots, colour), when)
    state = rules.set_memory(state, "flash", n + 1, when)
    done = when & (n + 1 >= FLASH_FRAMES)
    state = rules.complete(state, done)
    return rules.next_level(state, len(game.levels), done)


def _settle(state, when):
    """The frames after a move's first: the second half of the move; then shadows
    hidden; then the win checked, or the move ended (kept for undo)."""
    memory = state.memory
    was_moving = memory["moving"]
    state = rules.set_memory(state, "moving", False, when)
    showing = when & was_moving & memory["pending"]  # shadows stay a frame
    clearing = when & ~was_moving
    state = rules.set_memory(state, "shadow_shown", False, clearing)
    state = rules.set_memory(state, "pending", False, clearing)
    checking = when & ~showing
    state, won, on_any = _light_markers(state, checking)
    winning = checking & won
    state = rules.set_memory(state, "flash", 0, winning)
    state = rules.set_memory(state, "flashing", on_any, winning)
    state = rules.set_memory(state, "lit", False, winning)
    ending = checking & ~won
    state = _push_history(state, ending)
    return _end_action(state, ending)


def _end_action(state, when):
    state = rules.complete(state, when)
    return rules.lose(state, when & (state.memory["moves_left"] <= 0))


def _select(state, action, game: Game, when):
    """A click on a base above the bar with a pair, or on its pair: that arm selected."""
    memory = state.memory
    x, y, on_view = rules.clicked_cell(state, action)
    hit = jnp.where(on_view, rules.sprite_at(state, x, y, game, tag=BASE), -1)
    pair, slot = memory["pair"], memory["base_slot"]
    pair_slot = jnp.where(pair >= 0, slot[jnp.maximum(pair, 0)], -2)
    chosen = (pair >= 0) & (hit >= 0) & ((slot == hit) | (pair_slot == hit))
    chosen = chosen & (memory["selected"] != ARMS)
    picking = when & jnp.any(chosen)
    arm = jnp.argmax(chosen)
    state = rules.recolour(state, _lit_slots(memory, memory["selected"]), LIT, UNLIT, picking)
    state = rules.recolour(state, _lit_slots(memory, arm), UNLIT, LIT, picking)
    return rules.set_memory(state, "selected", arm, picking)


def _lit_slots(memory, arm):
    """The slots of an arm's base and its pair's, as a mask."""
    pair = memory["pair"][arm]
    slots = jnp.stack(
        [memory["base_slot"][arm], jnp.where(pair >= 0, memory["base_slot"][pair], NUM_SLOTS)]
    )
    return jnp.zeros(NUM_SLOTS, bool).at[slots].set(True, mode="drop")


def _undo(state, when):
    size = state.memory["history_size"]
    undoing = when & (size >= 2)
    state = _restore(state, state.memory["history"][jnp.maximum(size - 2, 0)], undoing)
    state = rules.set_memory(state, "history_size", size - 1, undoing)
    state, _, _ = _light_markers(state, undoing)
    return state


def _flash_or_settle(state, game: Game):
    """A flash's frame, or a move's settling, where one goes on."""
    memory = state.memory
    flashing = memory["flash"] >= 0
    state = _flash(state, game, flashing)
    return _settle(state, ~flashing & (memory["moving"] | memory["pending"]))


def rule(state, action, game: Game):
    memory = state.memory
    # A first frame may find a move still settling (the recorded trace has one).
    acting = (memory["flash"] < 0) & ~memory["moving"] & ~memory["pending"]
    state = _flash_or_settle(state, game)
    state = _select(state, action, game, acting & (action.id == rules.CLICK))
    picked = state.memory["selected"] != memory["selected"]
    state = rules.when_any(picked, _paint_arms, state)
    state = _undo(state, acting & (action.id == rules.UNDO))
    arrow = acting & (action.id >= rules.ACTION1) & (action.id <= rules.ACTION4)
    state, animating = _move(state, action, arrow)
    state = _end_action(state, acting & ~animating)
    return _draw(state)


def animate(state, action, game: Game):
    """An action's later frames: a flash, or a move settling (an action acts on its
    first frame only)."""
    return _draw(_flash_or_settle(state, game))


def on_set_level(state, game: Game):
    """The first arm selected, the markers lit where blocks match, the level's start
    kept for undo, the arms drawn."""
    state = rules.recolour(state, _lit_slots(state.memory, 0), UNLIT, LIT)
    state, _, _ = _light_markers(state, True)
    return _draw(_paint_arms(_push_history(state, True)))


# --- drawing --------------------------------------------------------------------------


def _paint_arms(state):
    """The arms' segments painted: the selected arm's and its pair's in the selected
    colours (as a level starts and when the selection changes: not every frame)."""
    arm = state.memory["selected"]
    lit = (arm == ARMS) | (state.memory["pair"][arm] == ARMS)
    painted = jnp.repeat(lit, MAX_SEGMENTS)
    pixels = jnp.where(painted[:, None, None], _SELECTED[None], _NORMAL[None])
    state = rules.lay_out(state, slice(0, GHOST), pixels=pixels)
    return rules.lay_out(state, GHOST, pixels=_SELECTED)


def _draw(state):
    """The sprites placed and shown as the memory says (their pixels:
    :func:`_paint_arms`); the first frame of a move draws what moves half a step (3
    cells) short."""
    memory = state.memory
    arm = memory["selected"]
    half = jnp.where(memory["moving"], memory["move"] * (STEP // 2), 0)
    kind = memory["kind"]
    sx, sy, exists = arms.segments(memory)
    # The moving arm's segments, but a growing arm's new first one, which stays put.
    short = (arm == ARMS[:, None]) & ((kind != GROW) | (SEGMENTS[None, :] >= 1))
    sx, sy = sx - jnp.where(short, half[0], 0), sy - jnp.where(short, half[1], 0)
    base_short = (arm == ARMS) & (kind == SLIDE)
    bases = memory["base"] - jnp.where(base_short[:, None], half[None, :], 0)
    blocks = memory["block"] - jnp.where(memory["moved"][:, None], half[None, :], 0)
    segments = {"x": sx.ravel(), "y": sy.ravel(), "visible": exists.ravel()}
    state = rules.lay_out(state, slice(0, GHOST), **segments)
    ghost, turns = memory["base"][arm], memory["turns"][arm]
    shrinking = memory["moving"] & (kind == SHRINK)
    state = rules.lay_out(
        state,
        GHOST,
        x=ghost[0],
        y=ghost[1],
        visible=shrinking,
        quarter_turns=turns,
        layer=jnp.where(turns % 2 == 0, 1, 0),
    )
    state = rules.lay_out(state, memory["base_slot"], x=bases[:, 0], y=bases[:, 1])
    state = rules.lay_out(state, memory["block_slot"], x=blocks[:, 0], y=blocks[:, 1])
    state = rules.lay_out(state, slice(FIRST_MARKER, FIRST_SHADOW), visible=memory["lit"])
    return rules.lay_out(
        state,
        slice(FIRST_SHADOW, None),
        x=blocks[:, 0],
        y=blocks[:, 1],
        visible=memory["shadow_shown"] & memory["shadow"],
        quarter_turns=memory["shadow_turns"],
    )


def ui(state, frame, game: Game):
    """The bar: ``ceil(64 * left / 196)`` pixels of row 53 in colour 2, the rest 3."""
    full = (rules.SCREEN * state.memory["moves_left"] + BUDGET - 1) // BUDGET  # rounded up
    frame = rules.draw_rect(frame, 0, BAR_ROW, rules.SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, BAR_ROW, full, 1, BAR_LEFT)


# A winning run of each level (tests/tools/solve_sk48.py: a beam search over moves and
# clicks on a plain-Python model of the rules), checked on the official file (the
# recorded trace's last episode).
# fmt: off
SOLUTIONS = (
    (1, 1, 1, 4, 4, 4, 4, 3, 2, 2, 4, 3, 1, 4),
    (1, 1, 4, 4, 4, 4, 1, 3, 3, 1, 4, 4, 2, 2, 4, 1, 4, 3, 3, 1, 4, 4, 3, 3, 1, 4, 4),
    (
        1, 1, 1, 1, 4, 4, 4, 2, 2, 3, 2, 2, 4, 1, 1, 3, 1, 4, 2, 3, 1, 1, 1, 4, 2, 2, 2, 3, 1,
        1, 1, 1, 4
    ),
    (1, 1, 3, 4, 1, 4, 1, 3, 3, 1, 3, 2, 4, 4, 2, 3, 1, (6, 36, 1), 2, 2, 2, 2),
    (
        1, 3, 3, 4, 4, 4, 1, 4, 2, 3, 3, 2, 3, 3, 3, 4, 4, 2, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 1,
        4, 1, 1, 4, 4, 4, 2, 3, 3, 3, 2, 2, 4, 4, 4, 4
    ),
    (
        2, 4, 4, 4, (6, 30, 3), 2, 2, 4, 2, 1, 4, 2, 1, 4, 2, 2, 3, 3, (6, 6, 33), 3, 2, 4, 3, 2,
        4, 4, 1, (6, 36, 3), 4, 2, 2, 1, 1, (6, 6, 39), 4, 4
    ),
    (4, 4, (6, 30, 3), 2, 3, 2, 4, 4, 4, 2, 3, (6, 6, 27), 4, 2, 2, 4, 1, 1, 3, 1, 4, 4, 4),
    (4, 4, (6, 30, 3), 2, 2, 4, 2, 3, 2, 2, 2, 1, 1, 1, 4, (6, 6, 27), 4, 4, 4, 4, 3, 2, 3, 1),
)
# fmt: on


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = ("ejlpqgojjt", "elmjchdqcn", "kevthtkmzm", "pkzxknabii", "qtjqovumxf", "udbuodqlxv")

GAME = Game(
    **DATA.game_fields(),
    static_kinds=rules.kinds_but(DATA.kinds, MOVING_KINDS),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    reach=rules.SCREEN,
    # The moving sprites' list (tests/tools/moving_runs.py): the most seen in play is 204
    # runs (its arms are laid out anew from memory: the default, from the declared
    # sprites, held 128, and half the frames of levels 2-8 were drawn the slow way).
    moving_runs=256,
    memory={
        "moves_left": Var(value=BUDGET),
        "selected": Var(),
        "arm_exists": Var("bool", (MAX_ARMS,)),
        "base": Var("int32", (MAX_ARMS, 2)),
        "way": Var("int32", (MAX_ARMS, 2)),
        "turns": Var("int32", (MAX_ARMS,)),
        "count": Var("int32", (MAX_ARMS,)),
        "pair": Var("int32", (MAX_ARMS,), -1),
        "base_slot": Var("int32", (MAX_ARMS,)),
        "block": Var("int32", (MAX_BLOCKS, 2)),
        "block_colour": Var("int32", (MAX_BLOCKS,)),
        "block_slot": Var("int32", (MAX_BLOCKS,)),
        "board": Var("int32", (4,)),
        "walls": Var("int32", (MAX_WALLS, 4)),
        "rails": Var("int32", (MAX_RAILS, 4)),
        "marker_arm": Var("int32", (MAX_MARKERS,), -1),
        "marker_index": Var("int32", (MAX_MARKERS,)),
        "moving": Var("bool"),
        "kind": Var(),
        "move": Var("int32", (2,)),
        "moved": Var("bool", (MAX_BLOCKS,)),
        "shadow": Var("bool", (MAX_BLOCKS,)),
        "shadow_shown": Var("bool"),
        "shadow_turns": Var(),
        "pending": Var("bool"),
        "flash": Var(value=-1),
        "flashing": Var("bool", (MAX_BLOCKS,)),
        "lit": Var("bool", (MAX_MARKERS,)),
        "history": Var("int8", (HISTORY, 3 * MAX_ARMS + 2 * MAX_BLOCKS)),
        "history_size": Var(),
    },
    max_frames=3 + FLASH_FRAMES + 1,  # a move, its shadows, the flash, the next level
    ui=ui,
    on_set_level=on_set_level,
    undo_in_rule=True,
    solutions=SOLUTIONS,
)
