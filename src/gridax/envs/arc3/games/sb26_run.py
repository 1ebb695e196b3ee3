"""sb26's program runs (``games/sb26.py``): an action's later frames on memory alone.

A run's state is memory, as the original keeps it: the stack of (frame, slot) being
run, the target it fills, its two motions (actor, from x, y, width, to x, y, width),
each actor's place, colour, fade target (-1 none) and visibility, the call marks (the
call item's index among the level's calls, colour, fade target) and the targets' rows.
Each frame of a run changes a copy of it; ``games/sb26.py`` lays it out in the slots.
A function named for a frame of the original's takes memory ``m`` (a dict it changes)
and ``board``, what a run reads of the level and never changes (:func:`board_of`).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.sb26_levels import (
    AYAI,
    BACKDROP,
    CALL,
    DATA,
    DEPTH,
    MAX_SLOTS,
    MAX_TARGETS,
    MEMORY,
    MJEQ,
    MROK0,
    MROK1,
    OHVA,
)

CALL_KIND = DATA.kind(CALL)
PLAIN_KIND = DATA.kind("lngftsryyw")

TRANSPARENT = rules.TRANSPARENT
# What the program is doing: one phase at a time, each with its frame counter.
IDLE, WAIT, MOTION, FILL, BLINK, CLEAR, BANNER, WINNING, SWAP = range(9)
EASE_FRAMES = 6

# --- the eased motions: Python's float64 and its halves-to-even rounding, tabulated -----
LOW, HIGH = -2, 66  # the cells and widths a motion goes between


def _eased_table() -> np.ndarray:
    """``[k, a - LOW, b - LOW]``: ``round(a + t * (b - a))`` with ``t = 1 - (1 - k/6)^2``,
    each step as the original computes it (doubles; ``round`` takes halves to even, and
    ``t`` is not exact for most ``k``: no integer formula gives the same cells)."""
    values = range(LOW, HIGH + 1)
    table = np.zeros((EASE_FRAMES + 1, len(values), len(values)), np.int16)
    for k in range(EASE_FRAMES + 1):
        t = k / EASE_FRAMES
        t = 1 - (1 - t) * (1 - t)
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                table[k, i, j] = round(a + t * (b - a))
    return table


EASED = _eased_table()


def eased(k, a, b):
    eased = jnp.asarray(EASED)[
        k, jnp.clip(a - LOW, 0, HIGH - LOW), jnp.clip(b - LOW, 0, HIGH - LOW)
    ]
    return eased.astype(jnp.int32)


# --- memory ---------------------------------------------------------------------------


def memory_of(state) -> dict:
    """The game's memory, unpacked (``sb26_levels.MEMORY``)."""
    return MEMORY.unpack(state.memory["packed"])


def with_memory(state, m):
    """``state`` holding memory ``m``, packed."""
    return rules.set_memory(state, "packed", MEMORY.pack(m))


def board_of(state):
    """What a run reads of the level and never changes: the sprites' places, widths and
    kinds, and the items' colours by slot."""
    table, m = state.table, memory_of(state)
    colours = rules.per_slot(state, m["items"], m["item_colours"], fill=-1)
    return table.x, table.y, table.width, table.kind, colours


def faded(m):
    """The fades at the top of each frame: every faded sprite one colour nearer its
    target, its fade over when there."""

    def step(colour, fade):
        on = fade >= 0
        colour = jnp.where(on, colour + jnp.sign(fade - colour), colour).astype(colour.dtype)
        return colour, jnp.where(on & (colour == fade), -1, fade).astype(fade.dtype)

    m = dict(m)
    m["actor_colour"], m["actor_fade"] = step(m["actor_colour"], m["actor_fade"])
    m["bg_colour"], m["bg_fade"] = step(m["bg_colour"], m["bg_fade"])
    m["marker_colour"], m["marker_fade"] = step(m["marker_colour"], m["marker_fade"])
    return m


def set_at(m, name, index, value, when: rules.Flag = True):
    """``m[name][index] = value`` where ``when``, in the variable's dtype."""
    old = m[name]
    value = jnp.asarray(value).astype(old.dtype)
    m[name] = old.at[index].set(jnp.where(when, value, old[index]))


def set_phase(m, phase, timer, when: rules.Flag = True):
    m["phase"] = jnp.where(when, phase, m["phase"]).astype(jnp.int32)
    m["timer"] = jnp.where(when, timer, m["timer"]).astype(jnp.int32)


def fade(m, actor, colour, when: rules.Flag = True):
    set_at(m, "actor_fade", actor, colour, when)


def place(m, actor, x, y, when: rules.Flag = True):
    set_at(m, "actor_x", actor, x, when)
    set_at(m, "actor_y", actor, y, when)


def cursor_at(board, frame_slot):
    """The program cursor's place and width around a frame: one cell out, two wider."""
    x, y, width, _, _ = board
    return x[frame_slot] - 1, y[frame_slot] - 1, width[frame_slot] + 2


def _motion(actor, start, end):
    return jnp.stack([jnp.asarray(actor, jnp.int32), *start, *end]).astype(jnp.int32)


def _item_motion(board, a, b):
    x, y, *_ = board
    return _motion(AYAI, (x[a], y[a], 6), (x[b], y[b], 6))


def _target_motion(board, a, b):
    x, y, *_ = board
    return _motion(OHVA, (x[a] - 1, y[a] - 1, 8), (x[b] - 1, y[b] - 1, 8))


def _frame_motion(board, a, b):
    return _motion(MJEQ, cursor_at(board, a), cursor_at(board, b))


# --- a run's step: what the original does each time its wait runs out ----------------


def _error(m, when):
    """A wrong slot: both cursors blink colour 8 and black for 18 frames."""
    for actor in (AYAI, OHVA):
        set_at(m, "actor_colour", actor, 8, when)
    set_phase(m, BLINK, 0, when)


def _next_slot(m, board, frame, slot, item, when):
    """On to the frame's next slot (the item cursor), or back to its caller (the frame
    cursor too), or, the main frame done with targets left, the banner over them."""
    x, y, *_ = board
    m["returning"] = m["returning"] & ~when
    later = slot + 1
    more = when & (later < m["frame_slots"][frame])
    target, top = m["p"], m["depth"] - 1
    following = m["slot_of"][frame, jnp.minimum(later, MAX_SLOTS - 1)]
    targets = m["targets"]
    set_at(m, "stack_slot", top, later, more)
    back = when & ~more & (m["depth"] > 1)
    caller, at = m["stack_frame"][top - 1], m["stack_slot"][top - 1]
    call = m["slot_of"][caller, at]
    motions = jnp.where(
        more,
        jnp.stack(
            [
                _item_motion(board, item, following),
                _target_motion(board, targets[target], targets[target + 1]),
            ]
        ),
        jnp.stack(
            [
                _frame_motion(board, m["frames"][frame], m["frames"][caller]),
                _item_motion(board, item, call),
            ]
        ),
    )
    m["motion"] = jnp.where(more | back, motions, m["motion"])
    m["p"] = m["p"] + more.astype(jnp.int32)
    m["depth"] = m["depth"] - back.astype(jnp.int32)
    m["returning"] = m["returning"] | back
    set_at(m, "marker_fade", m["marker_count"] - 2, 3, back & (m["marker_count"] > 1))
    set_phase(m, MOTION, 0, more | back)
    ended = when & ~more & ~back
    for actor, colour in ((MJEQ, BACKDROP), (AYAI, BACKDROP), (OHVA, 5)):
        fade(m, actor, colour, ended)
    after = targets[jnp.minimum(target + 1, MAX_TARGETS - 1)]
    wide = m["banner"] >= 0
    m["banner_x"] = jnp.where(ended, x[after] - 1 - jnp.where(wide, 28, 0), m["banner_x"])
    m["banner_y"] = jnp.where(ended, y[after] - 1, m["banner_y"])
    m["banner_width"] = jnp.where(ended, 7 * (m["num_targets"] - target - 1) + 1, m["banner_width"])
    m["banner_on"] = m["banner_on"] | ended
    set_phase(m, BANNER, 0, ended)


def _call(m, board, frame, slot, item, when):
    """A call item: its mark (the last mark faded out), the called frame (the first of
    the item's colour) pushed, both cursors on their way to it. From a first slot into
    a frame already run from its first slot by a first slot, an error instead."""
    top = m["depth"] - 1
    below = jnp.arange(DEPTH) < top
    again = jnp.any(below & (m["stack_frame"] == frame) & (m["stack_slot"] == 0))
    looping = (slot == 0) & (top >= 1) & (m["stack_slot"][jnp.maximum(top - 1, 0)] == 0) & again
    _error(m, when & looping)
    calls = when & ~looping
    count = m["marker_count"]
    set_at(m, "marker_fade", count - 1, BACKDROP, calls & (count > 0))
    index = jnp.argmax(m["calls"] == item)
    set_at(m, "marker_call", count, index, calls)
    set_at(m, "marker_colour", count, 3, calls)
    set_at(m, "marker_fade", count, -1, calls)
    m["marker_count"] = count + calls.astype(jnp.int32)
    colour = board[4][item]
    callee = jnp.argmax((m["frame_colours"] == colour) & (m["frames"] >= 0))
    set_at(m, "stack_frame", top + 1, callee, calls)
    set_at(m, "stack_slot", top + 1, 0, calls)
    m["depth"] = m["depth"] + calls.astype(jnp.int32)
    first = m["slot_of"][callee, 0]
    frames = m["frames"]
    motions = jnp.stack(
        [_frame_motion(board, frames[frame], frames[callee]), _item_motion(board, item, first)]
    )
    m["motion"] = jnp.where(calls, motions, m["motion"])
    set_phase(m, MOTION, 0, calls)


def _run_slot(m, board):
    """The original's step through a program (its wait over): the slot under the item
    cursor fills the target, moves on, calls, wins or fails."""
    _, _, _, kind, colours = board
    top = m["depth"] - 1
    frame, slot = m["stack_frame"][top], m["stack_slot"][top]
    item = m["slot_of"][frame, slot]
    plain, call = kind[item] == PLAIN_KIND, kind[item] == CALL_KIND
    target = m["p"]
    filled = m["target_rows"][target, 0] != TRANSPARENT
    fills = ~filled & plain
    matches = colours[item] == m["target_colours"][target]
    set_phase(m, FILL, 0, fills & matches)
    wins = ~fills & filled & (target == m["num_targets"] - 1)
    for actor in (MJEQ, AYAI):
        fade(m, actor, BACKDROP, wins)
    m["bg_fade"] = jnp.where(wins, 0, m["bg_fade"]).astype(m["bg_fade"].dtype)
    m["frozen"] = m["frozen"] & ~wins
    set_phase(m, WINNING, 0, wins)
    onwards = ~fills & ~wins & (m["returning"] | plain)
    m["marker_count"] = m["marker_count"] - (onwards & m["returning"]).astype(jnp.int32)
    _next_slot(m, board, frame, slot, item, onwards)
    _call(m, board, frame, slot, item, ~fills & ~wins & ~onwards & call)
    _error(m, (fills & ~matches) | (~fills & ~wins & ~onwards & ~call))
    return m


# --- a later frame of an action (memory only) -----------------------------------------
# Each phase's frame changes a copy of memory and says (complete, won, lost).
NO_FLAGS = (False, False, False)


def _moved(m, board):
    """A motion's frame: both its sprites eased one of 6 steps on; then the wait before
    the next slot (10 frames after a frame's first slot, a call or a return, else 5)."""
    k = m["timer"] + 1
    for entry in range(2):
        actor, fx, fy, fw, tx, ty, tw = (m["motion"][entry, i] for i in range(7))
        place(m, actor, eased(k, fx, tx), eased(k, fy, ty))
        m["cursor_width"] = jnp.where(actor == MJEQ, eased(k, fw, tw), m["cursor_width"])
    top = m["depth"] - 1
    frame, slot = m["stack_frame"][top], m["stack_slot"][top]
    long = (slot == 0) | (board[3][m["slot_of"][frame, slot]] == CALL_KIND) | m["returning"]
    set_phase(m, MOTION, k)
    set_phase(m, WAIT, jnp.where(long, 10, 5), k == EASE_FRAMES)
    return NO_FLAGS


def _waited(m, board):
    """The wait's frame; at its end, the next slot run (:func:`_run_slot`)."""
    set_phase(m, WAIT, m["timer"] - 1)
    ran = _run_slot(dict(m), board)
    m.update(rules.where(m["timer"] == 0, ran, dict(m)))
    return NO_FLAGS


def _filled(m, board):
    """A target filled a row a frame, black then its colour (8 frames), then a wait of 5."""
    t, target = m["timer"], m["p"]
    colour = jnp.where(t < 4, 0, m["target_colours"][target])
    set_at(m, "target_rows", (target, t % 4), colour)
    set_phase(m, FILL, t + 1)
    set_phase(m, WAIT, 5, t + 1 == 8)
    return NO_FLAGS


def _blinked(m, board):
    """The error's blink: colour 8 and black by turns of 3 frames; after 18 the run's
    sprites fade out (the frame cursor unless on the main frame) and it clears."""
    t = m["timer"]
    for actor in (AYAI, OHVA):
        set_at(m, "actor_colour", actor, jnp.where(t // 3 % 2 == 0, 8, 0))
    over = t + 1 >= 18
    on_main = m["stack_frame"][m["depth"] - 1] == 0
    fade(m, MJEQ, BACKDROP, over & ~on_main)
    fade(m, AYAI, BACKDROP, over)
    fade(m, OHVA, 5, over)
    marks = jnp.arange(DEPTH) < m["marker_count"]
    m["marker_fade"] = jnp.where(over & marks, BACKDROP, m["marker_fade"]).astype(jnp.int8)
    set_phase(m, BLINK, t + 1)
    set_phase(m, CLEAR, 0, over)
    return NO_FLAGS


def _cleared(m, board):
    """The run undone: the targets' rows cleared top down (8 frames); the frame cursor,
    once faded out, back on the main frame in colour 3 fading to black. Then the marks
    go, the picture and the item cursor hide and the action ends (lost without energy)."""
    t = m["timer"]
    m["target_rows"] = m["target_rows"].at[:, jnp.minimum(t, 3)].set(TRANSPARENT)
    gone = m["actor_colour"][MJEQ] == BACKDROP
    x, y, width = cursor_at(board, m["frames"][0])
    place(m, MJEQ, x, y, gone)
    m["cursor_width"] = jnp.where(gone, width, m["cursor_width"])
    set_at(m, "actor_colour", MJEQ, 3, gone)
    fade(m, MJEQ, 0, gone)
    set_phase(m, CLEAR, t + 1)
    return end_of_run(m, t + 1 >= 8)


def end_of_run(m, when: rules.Flag = True):
    """A run over (where ``when``): the marks go, the picture (and its ghost) and the
    item cursor hide, the action completes, lost without energy. Its flags."""
    m["marker_count"] = jnp.where(when, 0, m["marker_count"])
    set_at(m, "actor_visible", AYAI, False, when)
    m["frozen"] = m["frozen"] & ~jnp.asarray(when)
    set_phase(m, IDLE, 0, when)
    return when, False, when & (m["energy"] == 0)


def _banner(m, board):
    """The main frame over with targets left: a banner over them blinks (18 frames),
    then the run clears."""
    t = m["timer"]
    m["banner_on"] = t // 3 % 2 == 0
    set_phase(m, BANNER, t + 1)
    set_phase(m, CLEAR, 0, t + 1 >= 18)
    return NO_FLAGS


def _winning(m, board):
    """The last target filled: 16 frames of fading, then the next level."""
    t = m["timer"] + 1
    set_phase(m, WINNING, t)
    return t > 15, t > 15, False


def _swapped(m, board):
    """A placement's two outlines fade from black to the backdrop (6 frames)."""
    t = m["timer"]
    colour = jnp.maximum(0, t - 1)
    for actor in (MROK0, MROK1):
        set_at(m, "actor_colour", actor, colour)
    done = colour == BACKDROP
    set_phase(m, SWAP, t + 1)
    set_phase(m, IDLE, 0, done)
    return done, False, done & (m["energy"] == 0)


PHASES = {
    WAIT: _waited, MOTION: _moved, FILL: _filled, BLINK: _blinked, CLEAR: _cleared,
    BANNER: _banner, WINNING: _winning, SWAP: _swapped,
}  # fmt: skip


def later_frame(m, board):
    """One frame of an action after its first, on memory alone: ``(memory, complete,
    won, lost)``; the fades, then the phase's frame."""
    m = faded(m)
    out, flags = m, NO_FLAGS
    for phase, body in PHASES.items():
        new = dict(m)
        new_flags = body(new, board)
        chosen = m["phase"] == phase
        out = rules.where(chosen, new, out)
        flags = tuple(jnp.where(chosen, a, b) for a, b in zip(new_flags, flags, strict=True))
    return out, *flags
