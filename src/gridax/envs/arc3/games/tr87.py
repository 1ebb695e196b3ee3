"""tr87 (ARC Prize's ARC-AGI-3 public game, version cd924810), frame for frame.

Symbols (tag ``nxkictbbvzt``, 5x5) come in three families (A, B, C) of seven variants
each (the last digit of their name). Above the background's top edge, rules: each
arrow (``iqrduxrukrk``) has a left side (the symbol on the arrow's left end and its
neighbours every 7 cells leftwards) and a right side (the symbol at its right end and
its neighbours rightwards). Below: the top row (the symbols highest below the edge) and
the answer (every other symbol below, by row then column).

The level is solved when the top row, read left to right, translates into the answer:
at each place the first rule whose left side matches the top row there is taken, and
its right side must match the answer at the next place of the answer. On level 4
(``double_translation``) a rule whose left side carries a marker ``...1``
(``tjaqvwdgkxe``) is chained with the rule marked ``...2``, and the right side is
translated once more by the first rule whose left side it matches; on level 6
(``tree_translation``, which wins over double) each symbol of the right side is
translated by the first rule whose left side starts with it.

ACTION3 and ACTION4 move the cursor (two bars above and below) to the previous or next
answer symbol; ACTION1 and ACTION2 turn the selected symbol one variant back or on. On
levels 5 and 6 (``alter_rules``) the answer is fixed and the cursor selects a side of a
rule instead (the left of rule 1, its right, the left of rule 2, ...), all of whose
symbols turn together. Every action spends one of the level's 128 moves (256 on level
6); none left loses. A solving turn hides the cursor and plays the translation over 7
frames a pair: the pair's symbols of the top row and answer go through the colours 5,
8, 14, 15, 6, 9, 12, 0, with the rule's symbols framed in colour 0.

The level's setup is the original's, fixed by its seeds: each symbol turned a random
quarter (``random.Random`` seeded 4, 2, 1, 2, 12, 20 by level), then the answer's
symbols (or each side of each rule, on levels 5 and 6) turned on by a random 0-6
variants (seeded 7, 7, 32, 18, 23, 11). ``tr87_levels`` computes it with Python's
``random`` at import into the levels' starting sprites and memory.

Memory: the moves, the selection, each slot's symbol code (``family * 7 + variant``),
the level's rows, rules and sides as slot lists, and while a solution plays, its pairs
(which sprites recolour, which are framed).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.tr87_levels import (
    ANSWER,
    CURSOR,
    CURSOR_GAP,
    DATA,
    FAMILIES,
    FRAME,
    LEVELS,
    LOWER_BAR,
    NUM_RULES,
    NUM_SLOTS,
    PIXELS,
    RESULT,
    ROW,
    SETS,
    SIDE,
    VARIANTS,
    symbol_kind,
)
from gridax.envs.arc3.rules import Game, Var

COLOURS = (5, 8, 14, 15, 6, 9, 12, 0)  # a solution's colours, a frame each
FRAMES_PER_PAIR = len(COLOURS) - 1
BAR_LEFT, BAR_SPENT = 1, 4

TEMPLATES = np.stack(
    [DATA.padded_pixels(symbol_kind(c), PIXELS) for c in range(len(FAMILIES) * VARIANTS)]
)
BARS = np.stack([DATA.padded_pixels(f"{CURSOR}{n}", PIXELS) for n in range(1, SIDE + 1)])
BAR_WIDTHS = np.array(
    [np.shape(DATA.catalogue[f"{CURSOR}{n}"].pixels)[1] for n in range(1, SIDE + 1)]
)


# --- the check: does the top row translate into the answer? --------------------------


def _slots():
    return jnp.arange(NUM_SLOTS)


def _mask(slots, valid):
    """``[N]``: the slots listed in ``slots`` where ``valid``."""
    return jnp.any((slots[:, None] == _slots()[None, :]) & valid[:, None], axis=0)


def _codes(state, slots):
    """The codes of the symbols at ``slots`` (-1 where a slot is -1)."""
    return jnp.where(slots >= 0, state.memory["code"][jnp.maximum(slots, 0)], -1)


def _tree(state):
    """The rules of the tree level as the check uses them (module docstring): each
    symbol of a rule's right side translated by the first rule whose left side starts
    with it. ``(usable, result, lit)``, ``[R]``, ``[R, RESULT]``, ``[R, N]``."""
    m = state.memory
    left, right = m["left"], m["right"]
    starts = _codes(state, left[:, 0])  # [R]
    right_codes = _codes(state, right)  # [R, SIDE]
    hits = (right_codes[:, :, None] == starts[None, None, :]) & (left[None, None, :, 0] >= 0)
    found, by = jnp.any(hits, axis=2), jnp.argmax(hits, axis=2)  # [R, SIDE]
    present = right >= 0
    usable = jnp.all(found | ~present, axis=1)
    # The results concatenated: every symbol of every translating rule's right side,
    # compacted in order.
    pieces = right[by]  # [R, SIDE, SIDE]
    valid = present[:, :, None] & (pieces >= 0)
    place = jnp.cumsum(valid.reshape(NUM_RULES, -1), axis=1) - 1
    target = jnp.where(valid.reshape(NUM_RULES, -1), place, RESULT)
    result = jnp.full((NUM_RULES, RESULT + 1), -1, jnp.int32)
    rows = jnp.arange(NUM_RULES)[:, None]
    result = result.at[rows, target].set(pieces.reshape(NUM_RULES, -1))[:, :RESULT]
    used = jnp.concatenate([left[by], pieces], axis=2)  # [R, SIDE, 2 * SIDE]
    used = jnp.where(present[:, :, None], used, -1).reshape(NUM_RULES, -1)
    own = jnp.concatenate([left, right], axis=1)
    lit = jax.vmap(lambda slots: _mask(slots, slots >= 0))(jnp.concatenate([own, used], axis=1))
    return usable, result, lit


def _check(state):
    """``(solved, pairs, members, lit)``: the top row read left to right, at each place
    the first usable rule whose left side matches, its result matched against the
    answer; each pair's sprites that recolour (``[ROW, N]``) and are framed."""
    m = state.memory
    tree_usable, tree_result, tree_lit = _tree(state)
    usable = jnp.where(m["tree"], tree_usable, m["usable"])
    result = jnp.where(m["tree"], tree_result, m["result"])
    lit = jnp.where(m["tree"], tree_lit, m["lit"])
    left = m["left"]
    consumed = jnp.where(m["tree"], jnp.sum(left >= 0, axis=1), m["consumed"])
    top, answer, num_top, num_answer = m["top"], m["answer"], m["num_top"], m["num_answer"]
    left_codes, result_codes = _codes(state, left), _codes(state, result)
    left_len, result_len = jnp.sum(left >= 0, axis=1), jnp.sum(result >= 0, axis=1)
    side, res = jnp.arange(SIDE), jnp.arange(RESULT)

    def one_pair(carry, pair):
        at, at_answer, going, solved, members, framed = carry
        going = going & ~solved
        rows = _codes(state, top[jnp.clip(at + side, 0, ROW - 1)])
        rows = jnp.where(at + side < num_top, rows, -2)
        fits = at + left_len <= num_top
        same = (left_codes == rows[None, :]) | (side[None, :] >= left_len[:, None])
        matches = usable & fits & jnp.all(same, axis=1)
        rule = jnp.argmax(matches)
        answers = _codes(state, answer[jnp.clip(at_answer + res, 0, ANSWER - 1)])
        length = result_len[rule]
        right = (at_answer + length <= num_answer) & jnp.all(
            (result_codes[rule] == answers) | (res >= length)
        )
        step = going & jnp.any(matches) & right
        taken = consumed[rule]
        from_top = top[jnp.clip(at + res, 0, ROW - 1)]
        recoloured = _mask(from_top, (res < taken) & (at + res < num_top))
        from_answer = answer[jnp.clip(at_answer + res, 0, ANSWER - 1)]
        recoloured = recoloured | _mask(from_answer, res < length)
        members = members.at[pair].set(recoloured & step)
        framed = framed.at[pair].set(lit[rule] & step)
        at, at_answer = at + jnp.where(step, taken, 0), at_answer + jnp.where(step, length, 0)
        solved = solved | (step & (at >= num_top))
        return (at, at_answer, step, solved, members, framed), None

    empty = jnp.zeros((ROW, NUM_SLOTS), bool)
    start = (jnp.int32(0), jnp.int32(0), jnp.bool_(True), jnp.bool_(False), empty, empty)
    (_, _, _, solved, members, framed), _ = jax.lax.scan(one_pair, start, jnp.arange(ROW))
    pairs = jnp.sum(jnp.any(members, axis=1), dtype=jnp.int32)
    return solved, pairs, members, framed


# --- the rule -------------------------------------------------------------------------


def _bars(state):
    """``[N]``: the cursor's two bars."""
    cursor = state.memory["cursor"]
    return (_slots() == cursor[0]) | (_slots() == cursor[1])


def _place_cursor(state, when=True):
    """The cursor's two bars above and below the selected set's first symbol, as wide as
    the set (the original's bars are re-painted for every selection)."""
    m = state.memory
    chosen = m["sets"][m["selected"]]
    first, count = chosen[0], jnp.sum(chosen >= 0)
    table = state.table
    x, y = table.x[first], table.y[first]
    bars = _bars(state)
    state = rules.resize(state, bars, 2, jnp.asarray(BAR_WIDTHS)[count - 1], when=when)
    state = rules.repaint(state, bars, jnp.asarray(BARS)[count - 1], when)
    top_bar, bottom_bar = m["cursor"][0], m["cursor"][1]
    state = rules.place(state, top_bar, x, y - CURSOR_GAP, when)
    return rules.place(state, bottom_bar, x, y + LOWER_BAR, when)


def _turn(state, step, when):
    """The selected set's symbols turned ``step`` variants on, each added again last."""
    m = state.memory
    chosen = m["sets"][m["selected"]]
    turning = _mask(chosen, chosen >= 0) & when
    code = m["code"]
    turned = code // VARIANTS * VARIANTS + (code + step) % VARIANTS
    state = rules.set_memory(state, "code", jnp.where(turning, turned, code))
    pixels = jnp.asarray(TEMPLATES)[jnp.maximum(turned, 0)]
    state = rules.repaint(state, turning, pixels)
    rank = jnp.max(
        jnp.where(chosen[:, None] == _slots()[None, :], jnp.arange(SIDE)[:, None], -1), axis=0
    )
    return rules.put_last(state, jnp.where(turning, rank, -1))


def _act(state, action, game: Game):
    """ACTION3/4 move the selection, ACTION1/2 turn it; every one spends a move. A turn
    that solves the level starts the translation's frames."""
    m = state.memory
    moving = (action.id == rules.ACTION3) | (action.id == rules.ACTION4)
    turning = (action.id == rules.ACTION1) | (action.id == rules.ACTION2)
    step = jnp.where((action.id == rules.ACTION1) | (action.id == rules.ACTION3), -1, 1)
    state = rules.set_memory(state, "moves_left", m["moves_left"] - 1, moving | turning)
    selected = (m["selected"] + step) % m["num_sets"]
    state = rules.set_memory(state, "selected", selected, moving)
    state = _place_cursor(state, moving)
    state = _turn(state, step, turning)
    solved, pairs, members, framed = _check(state)
    solved = solved & turning
    state = rules.set_visible(state, _bars(state), False, solved)
    state = rules.set_memory(state, "playing", 0, solved)
    state = rules.set_memory(state, "pairs", pairs, solved)
    state = rules.set_memory(state, "members", members, solved)
    state = rules.set_memory(state, "framed", framed, solved)
    state = rules.lose(state, ~solved & (state.memory["moves_left"] == 0))
    return rules.complete(state, ~solved)


def _play(state, game: Game):
    """A frame of the translation: the pair's sprites one colour on; at a pair's first
    frame the frames of its rule replace the last pair's; after the last, the next
    level."""
    m = state.memory
    played = m["playing"]
    pair, colour = played // FRAMES_PER_PAIR, played % FRAMES_PER_PAIR
    old, new = jnp.asarray(COLOURS)[colour], jnp.asarray(COLOURS)[colour + 1]
    state = rules.recolour(state, m["members"][pair], old, new)
    first = colour == 0
    frames = m["frame_of"] >= 0
    state = rules.remove(state, frames, first)
    shown = frames & m["framed"][pair][jnp.maximum(m["frame_of"], 0)]
    state = rules.add_again(state, shown, first)
    played = played + 1
    state = rules.set_memory(state, "playing", played)
    done = played == m["pairs"] * FRAMES_PER_PAIR
    state = rules.next_level(state, len(game.levels), done)
    return rules.complete(state, done)


def rule(state, action, game: Game):
    """An action's first frame (the translation comes after it: animate)."""
    return _act(state, action, game)


def animate(state, action, game: Game):
    """An action's later frames: the translation's."""
    return _play(state, game)


def on_set_level(state, game: Game):
    """The rule symbols' frames taken out (reserved slots, added while a solution
    plays)."""
    return rules.remove(state, state.memory["frame_of"] >= 0)


def ui(state, frame, game: Game):
    """The bottom row: the moves left, ``ceil(64 * left / moves)`` pixels of colour 1,
    the rest colour 4."""
    m = state.memory
    left = (rules.SCREEN * m["moves_left"] + m["moves"] - 1) // m["moves"]
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, left, 1, BAR_LEFT)


# The winning run of each level (tests/tools/solve_tr87.py: the turns that make the
# check pass, then the selection walked to each), checked on the official file (the
# recorded trace's last episode).
SOLUTIONS = (
    "22422411142422",
    "2224224111411411141114222",
    "242242224224111422422",
    "111411141114422411142",
    "42414142411442",
    "1141114422244441142424222422",
)


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "nxkictbbvztA1 nxkictbbvztA2 nxkictbbvztA3 nxkictbbvztA4 nxkictbbvztA5 nxkictbbvztA6 "
    "nxkictbbvztA7 nxkictbbvztB1 nxkictbbvztB2 nxkictbbvztB3 nxkictbbvztB4 nxkictbbvztB5 "
    "nxkictbbvztB6 nxkictbbvztB7 nxkictbbvztC1 nxkictbbvztC2 nxkictbbvztC3 nxkictbbvztC4 "
    "nxkictbbvztC5 nxkictbbvztC6 nxkictbbvztC7 nxkictbbvztedxeenecwqa qvtymdcqear1"
)


def _moving_runs() -> int:
    """The moving sprites' list (``Game.moving_runs``): a quarter more than the levels'
    moving sprites start with, as the engine's default, but without the rules' frames,
    reserved slots out of play but while a solution plays (most of the default's list:
    18 boxes of 9x9). A frame that shows them, the last frames of an action that ends
    on the next level, is drawn the slow way (exact)."""
    moving = set(MOVING_KINDS.split()) - {FRAME}
    most = max(
        sum(rules.box_runs(*s.drawn_shape) for s in level.sprites if s.kind in moving and s.visible)
        for level in LEVELS
    )
    return rules.list_length(most)


GAME = Game(
    **DATA.game_fields(),
    static_kinds=rules.kinds_but(DATA.kinds, MOVING_KINDS),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    moving_runs=_moving_runs(),
    reach=rules.SCREEN,
    memory={
        "moves": Var(value=1),  # 1: never a zero divisor
        "moves_left": Var(),
        "selected": Var(),
        "code": Var(shape=(NUM_SLOTS,), value=-1),
        "sets": Var(shape=(SETS, SIDE), value=-1),
        "num_sets": Var(value=1),
        "cursor": Var(shape=(2,)),
        "frame_of": Var(shape=(NUM_SLOTS,), value=-1),
        "top": Var(shape=(ROW,), value=-1),
        "num_top": Var(),
        "answer": Var(shape=(ANSWER,), value=-1),
        "num_answer": Var(),
        "left": Var(shape=(NUM_RULES, SIDE), value=-1),
        "right": Var(shape=(NUM_RULES, SIDE), value=-1),
        "usable": Var("bool", (NUM_RULES,)),
        "consumed": Var(shape=(NUM_RULES,)),
        "result": Var(shape=(NUM_RULES, RESULT), value=-1),
        "lit": Var("bool", (NUM_RULES, NUM_SLOTS)),
        "tree": Var("bool"),
        "playing": Var(value=-1),
        "pairs": Var(),
        "members": Var("bool", (ROW, NUM_SLOTS)),
        "framed": Var("bool", (ROW, NUM_SLOTS)),
    },
    # The longest action: the solving turn, 7 frames per pair, the next level's.
    max_frames=2 + FRAMES_PER_PAIR * ROW,
    ui=ui,
    on_set_level=on_set_level,
    solutions=rules.maps.actions(SOLUTIONS),
)
