"""reset and step of an ARC-AGI-3 game: arcengine's ``perform_action`` as arrays.

An action runs like this (arcengine's fixed game loop):

1. RESET restarts the level if an action was taken in it since it started (and the game
   is not won), else the whole game (score 0, level 0). Any other action on a won or lost
   game changes nothing and makes no frame.
2. The action counts (RESET does not), then the game's rule runs once per frame until it
   marks the action complete; a completed level starts on the frame after the one that
   completed it. UNDO (ACTION7) restores the snapshot taken before the last action of the
   level instead of running the rule.

``step`` returns the frames the action made, ``[max_frames, 64, 64]``, padded by
repeating the last one, and their number (0 when nothing happened). An action the game
does not offer, or a click off the screen, is a no-op flagged in ``info`` when traced,
and a ``ValueError`` naming it when ``step`` is called with concrete values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from gridax.batching import cond_rare
from gridax.dispatch import per_config
from gridax.envs.arc3 import camera as cam
from gridax.envs.arc3.game import Game, LevelBank, build_bank, initial_camera
from gridax.envs.arc3.types import (
    CLICK,
    GAME_OVER,
    NOT_FINISHED,
    NOT_PLAYED,
    RESET,
    UNDO,
    WIN,
    Action,
    Arc3State,
    Snapshot,
)

# A frame whose changes fit in REDRAW_WINDOW x REDRAW_WINDOW view cells is drawn in
# part, in games whose view is at least twice that window's area (smaller views are
# drawn whole for less: measured, benchmarks/RESULTS.md).
REDRAW_WINDOW = 3


def _draws_in_part(game: Game) -> bool:
    return game.view_size**2 >= 2 * REDRAW_WINDOW**2


def _keeps_canvas(game: Game) -> bool:
    """The frame before the UI layer is kept apart from the frame shown (a game without
    a UI shows it as it is)."""
    return _draws_in_part(game) and game.ui is not None


def _show(state: Arc3State, canvas, game: Game) -> tuple[Arc3State, jax.Array]:
    """``(state, frame)``: ``canvas`` kept if the game keeps it, under the UI layer."""
    if _keeps_canvas(game):
        state = eqx.tree_at(lambda s: s.canvas, state, canvas)
    return state, canvas if game.ui is None else game.ui(state, canvas, game)


def _canvas(table, camera, game: Game):
    return cam.frame(table, camera, game.max_downscale, game.view_size)


def render(state: Arc3State, game: Game) -> tuple[Arc3State, jax.Array]:
    """``(state, frame)``: the canvas drawn whole (the camera's view, upscaled and
    letterboxed), and the frame (the canvas under the game's UI layer)."""
    with jax.named_scope("render"):
        return _show(state, _canvas(state.table, state.camera, game), game)


def redraw(before: Arc3State, state: Arc3State, game: Game) -> tuple[Arc3State, jax.Array]:
    """:func:`render`, drawing again only the view cells where sprites changed since
    ``before`` (a window of ``REDRAW_WINDOW`` cells) on ``before``'s canvas; whole when
    the camera changed or the changes do not fit the window (few envs of a batch:
    ``cond_rare``)."""
    if not _draws_in_part(game):
        return render(state, game)
    window = REDRAW_WINDOW
    with jax.named_scope("render"):
        x0, y0, x1, y1 = cam.changed_area(before.table, state.table, state.camera)
        # A game without a kept canvas has no UI (_keeps_canvas): its frame is the canvas.
        canvas = before.screen if before.canvas is None else before.canvas
        canvas = cam.redraw(canvas, state.table, state.camera, (x0, y0), window, game.max_downscale)
        moved = jax.tree.leaves(jax.tree.map(jnp.not_equal, before.camera, state.camera))
        whole = jnp.any(jnp.stack(moved)) | (x1 - x0 > window) | (y1 - y0 > window)
        canvas = cond_rare(
            whole,
            lambda _, table, camera: _canvas(table, camera, game),
            canvas,
            state.table,
            state.camera,
            compact_to=1 / 16,
        )
        return _show(state, canvas, game)


def _level_of(bank: LevelBank, index) -> LevelBank:
    """Level ``index`` of the bank."""
    return jax.tree.map(lambda leaf: jnp.asarray(leaf)[index], bank)


def set_level(state: Arc3State, bank: LevelBank, index, game: Game) -> Arc3State:
    """Level ``index`` from its declaration, with the camera resized to its grid, then
    the game's ``on_set_level`` (arcengine's ``set_level``)."""
    level = _level_of(bank, index)
    table, memory, size = level.table, level.memory, level.grid_size
    resize = size[0] > 0
    camera = eqx.tree_at(
        lambda c: (c.width, c.height),
        state.camera,
        (
            jnp.where(resize, size[0], state.camera.width),
            jnp.where(resize, size[1], state.camera.height),
        ),
    )
    state = eqx.tree_at(
        lambda s: (s.table, s.memory, s.camera, s.level, s.action_count, s.history_size),
        state,
        (table, memory, camera, jnp.int32(index), jnp.int32(0), jnp.int32(0)),
    )
    return state if game.on_set_level is None else game.on_set_level(state, game)


def _initial_state(game: Game, bank: LevelBank) -> Arc3State:
    first = _level_of(bank, 0)
    history = jax.tree.map(
        lambda leaf: jnp.broadcast_to(leaf, (game.undo_depth + 1,) + jnp.shape(leaf)),
        Snapshot(first.table, initial_camera(game), first.memory),
    )
    zero = jnp.int32(0)
    state = Arc3State(
        table=first.table,
        camera=initial_camera(game),
        memory=first.memory,
        level=zero,
        score=zero,
        status=jnp.int32(NOT_PLAYED),
        action_count=zero,
        complete=jnp.bool_(False),
        pending_level=jnp.bool_(False),
        frame=zero,
        history=history,
        history_size=zero,
        history_start=zero,
        screen=jnp.zeros((cam.SCREEN, cam.SCREEN), jnp.int8),
        canvas=jnp.zeros((cam.SCREEN, cam.SCREEN), jnp.int8) if _keeps_canvas(game) else None,
    )
    state, frame = render(set_level(state, bank, 0, game), game)
    return eqx.tree_at(lambda s: s.screen, state, frame)


def _handle_reset(state: Arc3State, game: Game, bank: LevelBank) -> tuple[Arc3State, jax.Array]:
    """``(state, full)``: arcengine's ``handle_reset``."""
    full = (state.action_count == 0) | (state.status == WIN)
    state = eqx.tree_at(lambda s: s.score, state, jnp.where(full, 0, state.score))
    return set_level(state, bank, jnp.where(full, 0, state.level), game), full


def _select(pred, new, old):
    """``new`` if ``pred`` else ``old``, leaf by leaf, for one env (a leaf both share is
    passed through)."""
    return jax.tree.map(lambda a, b: a if a is b else jnp.where(pred, a, b), new, old)


def _push(state: Arc3State, depth: int, saving) -> Arc3State:
    """The level's sprites, camera and memory written to the undo stack's free slot, and
    counted on it where ``saving``. The stack is a ring of ``depth + 1`` snapshots from
    ``history_start``, ``history_size`` <= ``depth`` of them live, so a free slot always
    exists: the write needs no select, and one that is not counted changes nothing (on
    a full stack, saving drops the oldest)."""
    ring = depth + 1
    now = Snapshot(state.table, state.camera, state.memory)
    slot = (state.history_start + state.history_size) % ring
    history = jax.tree.map(lambda h, leaf: h.at[slot].set(leaf), state.history, now)
    full = state.history_size >= depth
    return eqx.tree_at(
        lambda s: (s.history, s.history_size, s.history_start),
        state,
        (
            history,
            jnp.where(saving, jnp.minimum(state.history_size + 1, depth), state.history_size),
            jnp.where(saving & full, (state.history_start + 1) % ring, state.history_start),
        ),
    )


def _undo(state: Arc3State, depth: int) -> Arc3State:
    """The last snapshot restored and popped (nothing changes on an empty stack)."""
    some = state.history_size > 0
    size = jnp.maximum(state.history_size - 1, 0)
    last = jax.tree.map(lambda h: h[(state.history_start + size) % (depth + 1)], state.history)
    restored = eqx.tree_at(
        lambda s: (s.table, s.camera, s.memory, s.history_size),
        state,
        (last.table, last.camera, last.memory, size),
    )
    return _select(some, restored, state)


def _frame_of_action(state: Arc3State, action: Action, game: Game, bank: LevelBank) -> Arc3State:
    """One pass of the game loop: the next level if one is pending, else the rule (or,
    on an action's first frame, undo)."""

    def advance(state):
        state = set_level(state, bank, state.level + 1, game)
        return eqx.tree_at(lambda s: s.pending_level, state, jnp.bool_(False))

    def rule(state):
        with jax.named_scope("rule"):
            return game.rule(state, action, game)

    def play(state):
        if game.undo_depth == 0:
            return rule(state)
        with jax.named_scope("undo"):
            undone = _undo(state, game.undo_depth)
            undone = eqx.tree_at(lambda s: s.complete, undone, jnp.bool_(True))
        return _select(action.id == UNDO, undone, rule(state))

    if game.undo_depth:
        with jax.named_scope("undo"):
            # A snapshot before each action's first frame but UNDO's and RESET's. It is
            # taken outside the branches, which then pass the history through untouched.
            saving = ~state.pending_level & (state.frame == 0)
            saving = saving & (action.id != UNDO) & (action.id != RESET)
            state = _push(state, game.undo_depth, saving)
    state = jax.lax.cond(state.pending_level, advance, play, state)
    return eqx.tree_at(lambda s: s.frame, state, state.frame + 1)


def _running(state: Arc3State):
    """The action in progress needs another frame."""
    return ~state.complete | state.pending_level


def _further_frames(carry, action: Action, game: Game, bank: LevelBank):
    """Frames 2 to ``max_frames`` of an action that did not complete in one; each new
    frame also pads the frames after it."""
    slots = jnp.arange(game.max_frames)[:, None, None]

    def running(carry):
        state, _, count = carry
        return _running(state) & (count < game.max_frames)

    def one_frame(carry):
        state, frames, count = carry
        state, frame = render(_frame_of_action(state, action, game, bank), game)
        return state, jnp.where(slots >= count, frame, frames), count + 1

    return jax.lax.while_loop(running, one_frame, carry)


def _perform(state: Arc3State, action: Action, acts, game: Game, bank: LevelBank):
    """arcengine's ``perform_action``: ``(state, frames, count, full_reset)``; unless
    ``acts`` (a RESET always acts), nothing changes and no frame is made (the frames
    show the last one again)."""
    is_reset = action.id == RESET
    before = state  # what the canvas shows
    # RESETs are rare in a batch: the level is reloaded only when some env resets.
    with jax.named_scope("level_reset"):
        state, full = cond_rare(
            is_reset, lambda carry: _handle_reset(carry[0], game, bank), (state, jnp.bool_(False))
        )
    state = eqx.tree_at(
        lambda s: (s.status, s.complete, s.action_count, s.frame),
        state,
        (
            jnp.where(acts, NOT_FINISHED, state.status),
            state.complete & ~acts,
            state.action_count + jnp.where(acts & ~is_reset, 1, 0),
            jnp.where(acts, 0, state.frame),
        ),
    )
    # Most actions take one frame: it runs outside any loop, and the few actions that
    # take more (a level's transition, animations) run the rest behind cond_rare. An env
    # that does not act keeps its state; _select passes through what both share: the
    # history (_push writes only its free slot), the screen and the canvas.
    stepped = _frame_of_action(state, action, game, bank)
    state = _select(acts, stepped, eqx.tree_at(lambda s: s.history, state, stepped.history))
    state, frame = redraw(before, state, game)
    shown = jnp.where(acts, frame, state.screen)
    frames = jnp.broadcast_to(shown, (game.max_frames, cam.SCREEN, cam.SCREEN))
    count = acts.astype(jnp.int32)
    if game.max_frames > 1:
        state, frames, count = cond_rare(
            acts & _running(state),
            lambda carry, action: _further_frames(carry, action, game, bank),
            (state, frames, count),
            action,
            compact_to=1 / 16,
            chunks=True,
        )
    return state, frames, count, full


def is_valid(action: Action, game: Game):
    """The game offers the action and a click lands on the screen."""
    return game.offers(action.id) & ((action.id != CLICK) | _on_screen(action))


def _on_screen(action: Action):
    return (action.x >= 0) & (action.y >= 0) & (action.x < cam.SCREEN) & (action.y < cam.SCREEN)


def is_over(state: Arc3State):
    """The game is won or lost: only RESET acts on it."""
    return (state.status == WIN) | (state.status == GAME_OVER)


def _step(state: Arc3State, action: Action, game: Game, bank: LevelBank):
    """One env's step: ``(state, frames, info)``."""
    valid = is_valid(action, game)
    acts = valid & ((action.id == RESET) | ~is_over(state))
    performed, frames, count, full = _perform(state, action, acts, game, bank)
    new_state = eqx.tree_at(lambda s: s.screen, performed, frames[-1])
    info = {
        "frame_count": count,
        "full_reset": acts & full,
        "invalid_action": ~valid,
        "levels_completed": new_state.score,
        "level": new_state.level,
        "status": new_state.status,
    }
    return new_state, frames, info


class _Compiled(NamedTuple):
    reset: Callable
    step: Callable
    batch_reset: Callable
    batch_step: Callable


def _compile(game: Game) -> _Compiled:
    # The bank outlives the call that builds it, which may be inside a caller's jit: its
    # arrays (the tables' converters make them JAX arrays) must be that trace's constants.
    with jax.ensure_compile_time_eval():
        bank = build_bank(game)

    def reset_one():
        state = _initial_state(game, bank)
        return state, state.screen

    def step_one(state, action):
        return _step(state, action, game, bank)

    def batch_reset(num_envs: int):
        state, frame = reset_one()
        grow = lambda leaf: jnp.broadcast_to(leaf, (num_envs,) + jnp.shape(leaf))  # noqa: E731
        return jax.tree.map(grow, state), grow(frame)

    return _Compiled(
        reset=jax.jit(reset_one),
        step=jax.jit(step_one),
        batch_reset=jax.jit(batch_reset, static_argnums=0),
        batch_step=jax.jit(jax.vmap(step_one)),
    )


_compiled = per_config(_compile)


def reset(game: Game) -> tuple[Arc3State, jax.Array]:
    """The game before its first action (arcengine's ``NOT_PLAYED``) and its frame.
    Games are deterministic: there is no key."""
    return _compiled(game).reset()


def check_action(action: Action, game: Game) -> None:
    """Raises a ``ValueError`` naming a concrete action the game does not offer or a
    click off the screen (traced actions are checked inside: flagged no-ops)."""
    try:
        ids, valid = np.asarray(action.id), np.asarray(is_valid(action, game))
    except jax.errors.TracerArrayConversionError:
        return
    if valid.all():
        return
    offered = np.asarray(game.offers(action.id))
    if not offered.all():
        bad = sorted(set(np.atleast_1d(ids[~offered]).tolist()))
        raise ValueError(
            f"game {game.name!r} offers RESET and {list(game.available_actions)}; got action "
            f"id {', '.join(map(str, bad))}"
        )
    first = np.flatnonzero(np.atleast_1d(~valid))[0]
    x, y = (np.atleast_1d(np.asarray(v))[first] for v in (action.x, action.y))
    raise ValueError(f"clicks land on the 64x64 screen (x, y in 0-63); got ({x}, {y})")


def step(state: Arc3State, action: Action, game: Game):
    """``(state, frames, info)`` after one action (module docstring); a concrete bad
    action is a ``ValueError`` (:func:`check_action`)."""
    check_action(action, game)
    return _compiled(game).step(state, action)


def batch_reset(num_envs: int, game: Game):
    return _compiled(game).batch_reset(num_envs)


def batch_step(states: Arc3State, actions: Action, game: Game):
    check_action(actions, game)
    return _compiled(game).batch_step(states, actions)
