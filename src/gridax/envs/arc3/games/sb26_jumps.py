"""sb26's later frames a phase at a time (``Game.finish``: ``frames="last"``).

A run's phases (``games/sb26_run.py``) last a set number of frames: a wait its count,
a motion 6, a fill 8, a blink 18, the clearing 8, the banner 18, the winning fade 16, a
placement's fade 6. Between a phase's start and its last frame nothing happens that the
last frame does not undo or finish but the fades, one colour a frame toward their
targets: so a phase is jumped whole, its fades worked out for all its frames at once
(:func:`fades_over`) and then its last frame run as the frame loop runs it. A run of
hundreds of frames is a few dozen jumps, each the same memory as the frame loop gives
(the replays hold ``frames="last"`` against ``frames="all"``, state and all).

Two phases set colours the fades also touch: the blink the cursors' and the placement
the highlights', every frame; no fade of theirs is running then (the run's first fades
end within 5 frames of its 15-frame wait, and a placement starts a fresh action). The
clearing moves the frame cursor once its fade has made it the backdrop's colour, and
fades it again: :func:`_cleared` works out in which frame.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.envs.arc3.games.sb26_levels import BACKDROP, MJEQ
from gridax.envs.arc3.games.sb26_run import (
    BANNER,
    BLINK,
    CLEAR,
    FILL,
    IDLE,
    MOTION,
    NO_FLAGS,
    PHASES,
    SWAP,
    TRANSPARENT,
    WAIT,
    WINNING,
    cursor_at,
    end_of_run,
    fade,
    place,
    set_at,
)

# How many frames a phase takes from its start (a wait: its count).
LENGTHS = {MOTION: 6, FILL: 8, BLINK: 18, CLEAR: 8, BANNER: 18, WINNING: 16, SWAP: 6}


def _faded_over(colour, target, frames):
    """``(colour, target)`` after ``frames`` frames of fading (one colour a frame toward
    ``target``; done, -1, when there)."""
    on = target >= 0
    start = colour.astype(jnp.int32)
    gap = target.astype(jnp.int32) - start
    steps = jnp.minimum(frames, jnp.abs(gap))
    moved = jnp.where(on, start + jnp.sign(gap) * steps, start).astype(colour.dtype)
    done = on & (frames >= jnp.abs(gap)) & (frames >= 1)
    return moved, jnp.where(done, -1, target).astype(target.dtype)


def fades_over(m, frames):
    """Every fade of memory ``m`` run for ``frames`` frames."""
    m = dict(m)
    for colour, target in (("actor_colour", "actor_fade"), ("bg_colour", "bg_fade")):
        m[colour], m[target] = _faded_over(m[colour], m[target], frames)
    m["marker_colour"], m["marker_fade"] = _faded_over(m["marker_colour"], m["marker_fade"], frames)
    return m


def _cleared(m, board):
    """The clearing whole: every target's rows cleared; the frame cursor, in the frame
    its fade makes it the backdrop's colour (if one does), put back on the main frame in
    colour 3 and faded toward black for the frames left; then the run's end."""
    colour, target = m["actor_colour"][MJEQ], m["actor_fade"][MJEQ]
    after = jnp.arange(1, LENGTHS[CLEAR] + 1)  # fades by the end of each frame
    colours, _ = _faded_over(jnp.broadcast_to(colour, after.shape), target, after)
    hits = colours == BACKDROP
    gone, at = jnp.any(hits), jnp.argmax(hits)
    m.update(fades_over(m, LENGTHS[CLEAR]))
    left = LENGTHS[CLEAR] - 1 - at  # frames that fade it again
    x, y, width = cursor_at(board, m["frames"][0])
    place(m, MJEQ, x, y, gone)
    m["cursor_width"] = jnp.where(gone, width, m["cursor_width"])
    set_at(m, "actor_colour", MJEQ, jnp.maximum(3 - left, 0), gone)
    fade(m, MJEQ, jnp.where(left >= 3, -1, 0), gone)
    m["target_rows"] = jnp.full_like(m["target_rows"], TRANSPARENT)
    return end_of_run(m)


def _jumped(m, board, phase: int):
    """Phase ``phase`` whole from its start: ``(flags, frames)``; the fades for all its
    frames, then its last frame as the frame loop makes it."""
    if phase == CLEAR:
        return _cleared(m, board), LENGTHS[CLEAR]
    frames = m["timer"] if phase == WAIT else LENGTHS[phase]
    m.update(fades_over(m, frames))
    if phase == FILL:  # the rows its earlier frames made
        row = m["target_colours"][m["p"]]
        m["target_rows"] = m["target_rows"].at[m["p"]].set(row.astype(jnp.int8))
    m["timer"] = jnp.asarray(1 if phase == WAIT else frames - 1, jnp.int32)
    return PHASES[phase](m, board), frames


def run_to_end(m, board, frames, most: int):
    """An action's later frames from memory ``m`` after frame ``frames`` until it is
    complete (or ``most`` frames): ``(memory, frames, complete, won, lost)``."""

    def running(carry):
        _, count, complete, _, _ = carry
        return ~complete & (count < most)

    def one_phase(carry):
        m, count, _, won, lost = carry
        out, taken, flags = m, 0, NO_FLAGS
        for phase in (WAIT, *LENGTHS):
            new = dict(m)
            new_flags, length = _jumped(new, board, phase)
            chosen = m["phase"] == phase
            out = jax.tree.map(lambda a, b, c=chosen: jnp.where(c, a, b), new, out)
            taken = jnp.where(chosen, length, taken)
            flags = tuple(jnp.where(chosen, a, b) for a, b in zip(new_flags, flags, strict=True))
        complete, now_won, now_lost = flags
        return out, count + taken, complete, won | now_won, lost | now_lost

    idle = m["phase"] == IDLE  # an action already complete (a batch runs every env)
    false = jnp.bool_(False)
    return jax.lax.while_loop(running, one_phase, (m, frames, idle, false, false))
