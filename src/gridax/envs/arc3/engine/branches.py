"""What a rule calls where only some envs of a batch need something (``rules`` re-exports
these): a rule is written for one env, and a batch runs it for all; these keep rare or
per-env work from costing every env of the batch."""

from __future__ import annotations

from typing import TypeVar

from gridax.batching import cond_rare, cond_select, loop_to_largest, with_constants_passed
from gridax.envs.arc3.engine.changes import Flag
from gridax.envs.arc3.engine.types import Arc3State, select

T = TypeVar("T")


def where(pred: Flag, new: T, old: T) -> T:
    """``new`` where ``pred``, else ``old``: a whole state chosen (one env), or any two
    like pytrees (a sprite a rule works out)."""
    return select(pred, new, old)


def rarely(pred: Flag, fn, state: Arc3State, *args) -> Arc3State:
    """``fn(state, *args)`` where ``pred``, else ``state``, for events that few envs of a
    batch meet at a time (grabbing, detaching, a merge): the engine runs ``fn`` only on
    the envs that need it. Pass what ``fn`` reads of one env through ``args``, not a
    closure (a batching rule cannot see batched values a closure holds)."""
    return _branch(pred, fn, state, args, compact_to=1 / 16)


def drawn_rarely(pred: Flag, draw, frame, state: Arc3State, *args):
    """``draw(frame, state, *args)`` where ``pred``, else ``frame``: a UI layer few envs
    of a batch show at a time (ls20's fog, its last level's): drawn only on the envs
    that show it, not computed at every pixel of every env's frame."""
    return _branch(pred, draw, frame, (state, *args), compact_to=1 / 16)


def when_any(pred: Flag, fn, state: Arc3State, *args) -> Arc3State:
    """``fn(state, *args)`` where ``pred``, else ``state``, for a phase that many envs of
    a batch are in at once or none (an animation's frames, which the engine runs apart
    from the actions' first frames): the batch runs ``fn`` on every env when some env
    needs it and skips it when none does. ``args`` as for :func:`rarely`."""
    return _branch(pred, fn, state, args, compact_to=0.0)


def _branch(pred: Flag, fn, operand, args, compact_to: float):
    """``fn(operand, *args)`` where ``pred``, else ``operand`` (a state, a frame), with
    the arrays ``fn`` closes over passed to the batching rule as arguments."""
    replay, consts = with_constants_passed(fn, operand, *args)

    def replayed(operand, consts, *args):
        return replay(consts, operand, *args)

    return cond_rare(pred, replayed, operand, consts, *args, compact_to=compact_to, chunks=True)


def repeat(count, body, carry, *args):
    """``body(i, carry, *args)`` for ``i`` from 0 to ``count - 1`` (traced): a loop over
    the few things of one env that need it (the sprites a rule shoves now), not over
    every slot that might. Batched, the batch runs its largest ``count`` of passes with
    no select per env, so ``body`` must leave an env's carry as it is for ``i >=
    count``. Pass what it reads of one env through ``carry`` or ``args``, not a closure
    (:func:`gridax.batching.loop_to_largest`)."""
    return loop_to_largest(count, body, carry, *args)


def either(pred: Flag, if_true, if_false, state: Arc3State, *args):
    """``if_true(state, *args)`` where ``pred``, else ``if_false(state, *args)``: one
    of the two for one env, both for a batch (as ``lax.cond`` under ``vmap``), without
    copying the game's level data per env as ``lax.cond`` would. Pass what they read of
    one env through ``args``."""
    return cond_select(pred, if_true, if_false, state, *args)
