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
does not offer, or a click off the screen, is a no-op flagged in ``info``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp

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


def render(state: Arc3State, game: Game):
    """The 64x64 frame of a state: the camera's view, then the game's UI layer."""
    screen = cam.frame(state.table, state.camera, game.max_downscale)
    return screen if game.ui is None else game.ui(state, screen, game)


def _level_of(bank: LevelBank, index):
    return jax.tree.map(lambda leaf: jnp.asarray(leaf)[index], bank.table), jnp.asarray(
        bank.memory
    )[index]


def set_level(state: Arc3State, bank: LevelBank, index) -> Arc3State:
    """Level ``index`` from its declaration, with the camera resized to its grid."""
    table, memory = _level_of(bank, index)
    size = jnp.asarray(bank.grid_size)[index]
    resize = size[0] > 0
    camera = eqx.tree_at(
        lambda c: (c.width, c.height),
        state.camera,
        (
            jnp.where(resize, size[0], state.camera.width),
            jnp.where(resize, size[1], state.camera.height),
        ),
    )
    return eqx.tree_at(
        lambda s: (s.table, s.memory, s.camera, s.level, s.action_count, s.history_size),
        state,
        (table, memory, camera, jnp.int32(index), jnp.int32(0), jnp.int32(0)),
    )


def _initial_state(game: Game, bank: LevelBank) -> Arc3State:
    table, memory = _level_of(bank, 0)
    depth = max(game.undo_depth, 1)  # one unused slot keeps the shapes uniform
    history = jax.tree.map(
        lambda leaf: jnp.broadcast_to(leaf, (depth,) + jnp.shape(leaf)),
        Snapshot(table, initial_camera(game), memory),
    )
    zero = jnp.int32(0)
    state = Arc3State(
        table=table,
        camera=initial_camera(game),
        memory=memory,
        level=zero,
        score=zero,
        status=jnp.int32(NOT_PLAYED),
        action_count=zero,
        complete=jnp.bool_(False),
        pending_level=jnp.bool_(False),
        frame=zero,
        history=history,
        history_size=zero,
        steps=zero,
    )
    return set_level(state, bank, 0)


def _handle_reset(state: Arc3State, bank: LevelBank) -> tuple[Arc3State, jax.Array]:
    """``(state, full)``: arcengine's ``handle_reset``."""
    full = (state.action_count == 0) | (state.status == WIN)
    whole = set_level(eqx.tree_at(lambda s: s.score, state, jnp.int32(0)), bank, 0)
    level = set_level(state, bank, state.level)
    state = _select(full, whole, level)
    return eqx.tree_at(lambda s: s.status, state, jnp.int32(NOT_FINISHED)), full


def _select(pred, new, old):
    """``new`` if ``pred`` else ``old``, leaf by leaf, for one env."""
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), new, old)


def _push(state: Arc3State, depth: int) -> Arc3State:
    """The level's sprites, camera and memory on top of the undo stack (the oldest
    snapshot drops off a full stack)."""
    now = Snapshot(state.table, state.camera, state.memory)
    full = state.history_size >= depth
    shifted = jax.tree.map(lambda h: jnp.where(full, jnp.roll(h, -1, axis=0), h), state.history)
    top = jnp.minimum(state.history_size, depth - 1)
    history = jax.tree.map(lambda h, leaf: h.at[top].set(leaf), shifted, now)
    return eqx.tree_at(
        lambda s: (s.history, s.history_size),
        state,
        (history, jnp.minimum(state.history_size + 1, depth)),
    )


def _undo(state: Arc3State) -> Arc3State:
    """The last snapshot restored and popped (nothing changes on an empty stack)."""
    some = state.history_size > 0
    top = jnp.maximum(state.history_size - 1, 0)
    last = jax.tree.map(lambda h: h[top], state.history)
    restored = eqx.tree_at(
        lambda s: (s.table, s.camera, s.memory), state, (last.table, last.camera, last.memory)
    )
    restored = eqx.tree_at(lambda s: s.history_size, restored, top)
    return _select(some, restored, state)


def _frame_of_action(state: Arc3State, action: Action, game: Game, bank: LevelBank) -> Arc3State:
    """One pass of the game loop: the next level if one is pending, else the rule (or,
    on an action's first frame, undo)."""

    def advance(state):
        state = set_level(state, bank, state.level + 1)
        return eqx.tree_at(lambda s: s.pending_level, state, jnp.bool_(False))

    def play(state):
        if game.undo_depth == 0:
            return game.rule(state, action, game)
        undoing = action.id == UNDO
        first = state.frame == 0
        undone = eqx.tree_at(lambda s: s.complete, _undo(state), jnp.bool_(True))
        pushed = jax.lax.cond(
            first & (action.id != RESET), lambda s: _push(s, game.undo_depth), lambda s: s, state
        )
        return _select(undoing, undone, game.rule(pushed, action, game))

    state = jax.lax.cond(state.pending_level, advance, play, state)
    return eqx.tree_at(lambda s: s.frame, state, state.frame + 1)


def _perform(state: Arc3State, action: Action, game: Game, bank: LevelBank):
    """arcengine's ``perform_action``: ``(state, frames, count, full_reset)``."""
    is_reset = action.id == RESET
    reset_state, full = _handle_reset(state, bank)
    state = _select(is_reset, reset_state, state)
    state = eqx.tree_at(
        lambda s: (s.status, s.complete, s.action_count, s.frame),
        state,
        (
            jnp.int32(NOT_FINISHED),
            jnp.bool_(False),
            state.action_count + jnp.where(is_reset, 0, 1),
            jnp.int32(0),
        ),
    )
    frames = jnp.zeros((game.max_frames, cam.SCREEN, cam.SCREEN), jnp.int8)

    def running(carry):
        state, _, count = carry
        done = state.complete & ~state.pending_level
        return ~done & (count < game.max_frames)

    def one_frame(carry):
        state, frames, count = carry
        state = _frame_of_action(state, action, game, bank)
        return state, frames.at[count].set(render(state, game)), count + 1

    state, frames, count = jax.lax.while_loop(running, one_frame, (state, frames, jnp.int32(0)))
    return state, frames, count, is_reset & full


def is_valid(action: Action, game: Game):
    """The game offers the action and a click lands on the screen."""
    on_screen = (
        (action.x >= 0) & (action.y >= 0) & (action.x < cam.SCREEN) & (action.y < cam.SCREEN)
    )
    return game.offers(action.id) & ((action.id != CLICK) | on_screen)


def _step(state: Arc3State, action: Action, game: Game, bank: LevelBank):
    """One env's step: ``(state, frames, info)``."""
    valid = is_valid(action, game)
    over = (state.status == WIN) | (state.status == GAME_OVER)
    acts = valid & ((action.id == RESET) | ~over)
    performed, frames, count, full = _perform(state, action, game, bank)
    still = render(state, game)
    last = frames[jnp.maximum(count - 1, 0)]
    index = jnp.arange(game.max_frames)[:, None, None]
    frames = jnp.where(index < count, frames, last)
    frames = jnp.where(acts, frames, jnp.broadcast_to(still, frames.shape))
    new_state = _select(acts, performed, state)
    new_state = eqx.tree_at(lambda s: s.steps, new_state, state.steps + 1)
    info = {
        "frame_count": jnp.where(acts, count, 0).astype(jnp.int32),
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
    bank = build_bank(game)

    def reset_one():
        state = _initial_state(game, bank)
        return state, render(state, game)

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


compiled = per_config(_compile)


def reset(game: Game) -> tuple[Arc3State, jax.Array]:
    """The game before its first action (arcengine's ``NOT_PLAYED``) and its frame.
    Games are deterministic: there is no key."""
    return compiled(game).reset()


def step(state: Arc3State, action: Action, game: Game):
    """``(state, frames, info)`` after one action (module docstring)."""
    return compiled(game).step(state, action)


def batch_reset(num_envs: int, game: Game):
    return compiled(game).batch_reset(num_envs)


def batch_step(states: Arc3State, actions: Action, game: Game):
    return compiled(game).batch_step(states, actions)
