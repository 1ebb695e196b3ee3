"""arcengine's game loop (``perform_action``) for one env, as arrays.

An action runs like this:

1. RESET restarts the level if an action was taken in it since it started (and the game
   is not won), else the whole game (score 0, level 0). Any other action on a won or lost
   game changes nothing and makes no frame.
2. The action counts (RESET does not), then the game's rule runs once per frame until it
   marks the action complete; a completed level starts on the frame after the one that
   completed it. UNDO (ACTION7) restores the snapshot taken before the last action of the
   level instead of running the rule (a game with ``undo_in_rule`` gets it as any other
   action).

The rule runs on the sprites and memory only; frames are drawn from the states they
show (:mod:`gridax.envs.arc3.engine.drawing`). With ``frames="all"`` every frame the action made
is drawn: ``[max_frames, 64, 64]``, padded by repeating the last one (parity, replays,
GIFs); with ``frames="last"`` only the last is drawn, ``[1, 64, 64]`` (what an agent
sees: training). Both count the frames made (0 when nothing happened), and give the same
state.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.batching import cond_rare
from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine import undo as undo_stack
from gridax.envs.arc3.engine.checks import is_over, is_valid
from gridax.envs.arc3.engine.drawing import draw_frame
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.levels import LevelBank, set_level
from gridax.envs.arc3.engine.types import NOT_FINISHED, RESET, UNDO, WIN, Action, Arc3State, select

# The envs of a batch still animating after an action's first frame run the rest in
# chunks of this share of the batch (32 envs at 1,024): a chunk loops until its slowest
# env is done, so big chunks keep envs with short animations waiting on long ones (1/256
# paid 1.37x on r11l when every frame was drawn; with frames="last" a frame is only the
# rule, and 1/32 paid 1.17x on su15: benchmarks/RESULTS.md).
ANIMATION_CHUNK = 1 / 32

# A level (re)starts, its on_set_level included, in the envs of a batch that RESET or
# complete one, a sub-batch of this share at a time: one env in 20 resetting is 51 of
# 1,024, and a game that sets up its level with collisions between every pair of
# sprites (vc33) paid for all 1,024 (benchmarks/RESULTS.md).
LEVEL_CHUNK = 1 / 16

FRAMES = ("all", "last")  # what an action returns: every frame it made, or its last


def _handle_reset(state: Arc3State, game: Game, bank: LevelBank) -> tuple[Arc3State, jax.Array]:
    """``(state, full)``: arcengine's ``handle_reset``."""
    full = (state.action_count == 0) | (state.status == WIN)
    state = eqx.tree_at(lambda s: s.score, state, jnp.where(full, 0, state.score))
    return set_level(state, bank, jnp.where(full, 0, state.level), game), full


def _frame_of_action(
    state: Arc3State, action: Action, game: Game, bank: LevelBank, acts=True, later=None
) -> Arc3State:
    """One pass of the game loop where ``acts``: the next level if one is pending, else
    the rule (or, on an action's first frame, undo; on its later frames, ``later``: the
    game's ``animate``, or its rule where it has none); elsewhere the state as it is."""
    step = game.rule if later is None else later

    def advance(state):
        state = set_level(state, bank, state.level + 1, game)
        return eqx.tree_at(lambda s: s.pending_level, state, jnp.bool_(False))

    def rule(state):
        with jax.named_scope("rule"):
            return step(state, action, game)

    def play(state):
        if game.undo_depth == 0:
            return rule(state)
        with jax.named_scope("undo"):
            undone = undo_stack.undo(state, game.undo_depth)
            undone = eqx.tree_at(lambda s: s.complete, undone, jnp.bool_(True))
        return select(action.id == UNDO, undone, rule(state))

    if game.undo_depth:
        with jax.named_scope("undo"):
            # A snapshot before each action's first frame but UNDO's and RESET's. It is
            # taken outside the branches, which then pass the history through untouched.
            saving = acts & ~state.pending_level & (state.frame == 0)
            saving = saving & (action.id != UNDO) & (action.id != RESET)
            state = undo_stack.push(state, game.undo_depth, saving)
    # A level starts in few envs of a batch: only they load it (cond_rare), and one
    # select keeps it, or the state of an env that does not act, over the rule's frame.
    pending = state.pending_level
    with jax.named_scope("level_reset"):
        advanced = cond_rare(pending & acts, advance, state, compact_to=LEVEL_CHUNK, chunks=True)
    advanced = eqx.tree_at(lambda s: s.history, advanced, state.history)  # untouched
    state = select(pending | ~jnp.asarray(acts), advanced, play(state))
    return eqx.tree_at(lambda s: s.frame, state, state.frame + jnp.asarray(acts, jnp.int32))


def _no_rule(state: Arc3State, action: Action, game: Game) -> Arc3State:
    """A later frame of an action whose ``Game.finish`` ended it: none (the loop runs
    only to start a level it completed), so the rule is not compiled for it."""
    return eqx.tree_at(lambda s: s.complete, state, jnp.bool_(True))


def _running(state: Arc3State):
    """The action in progress needs another frame."""
    return ~state.complete | state.pending_level


def _further_frames(carry, action: Action, game: Game, bank: LevelBank, later):
    """Frames 2 to ``max_frames`` of an action that did not complete in one, each made by
    ``later``: ``(state, drawn, count)``; where ``drawn`` holds frames (not None), each
    new frame is drawn into it and pads the frames after it."""
    slots = jnp.arange(game.max_frames)[:, None, None]

    def running(carry):
        state, _, count = carry
        return _running(state) & (count < game.max_frames)

    def one_frame(carry):
        state, drawn, count = carry
        state = _frame_of_action(state, action, game, bank, later=later)
        if drawn is not None:
            drawn = jnp.where(slots >= count, draw_frame(state, game, bank), drawn)
        return state, drawn, count + 1

    return jax.lax.while_loop(running, one_frame, carry)


def _perform(state: Arc3State, action: Action, acts, game: Game, bank: LevelBank, frames: str):
    """arcengine's ``perform_action``: ``(state, frames, count, full_reset)``; unless
    ``acts`` (a RESET always acts), nothing changes and no frame is made (the frames
    show the last one again)."""
    is_reset = action.id == RESET
    # RESETs are rare in a batch: the level is reloaded only when some env resets.
    with jax.named_scope("level_reset"):
        state, full = cond_rare(
            is_reset,
            lambda carry: _handle_reset(carry[0], game, bank),
            (state, jnp.bool_(False)),
            compact_to=LEVEL_CHUNK,
            chunks=True,
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
    # that does not act keeps its state (push writes only the history's free slot).
    # With frames="last", no frame is drawn but the one shown after the last pass.
    state = _frame_of_action(state, action, game, bank, acts)
    drawn = None
    if frames == "last" and game.finish is not None:
        # An animation whose frames are not seen ends in one call (its frames counted).
        animating = acts & ~state.complete & ~state.pending_level
        with jax.named_scope("rule"):
            state = select(animating, game.finish(state, action, game), state)
    count = jnp.where(acts, state.frame, 0)
    later = game.rule if game.animate is None else game.animate
    if frames == "last" and game.finish is not None and game.finish_completes:
        later = _no_rule  # what is left after its finish: a level to start
    if frames == "all":  # (an env that did not act draws the frame it shows again)
        shown = draw_frame(state, game, bank)
        drawn = jnp.broadcast_to(shown, (game.max_frames, cam.SCREEN, cam.SCREEN))
    if game.max_frames > 1:
        state, drawn, count = cond_rare(
            acts & _running(state),
            lambda carry, action: _further_frames(carry, action, game, bank, later),
            (state, drawn, count),
            action,
            compact_to=ANIMATION_CHUNK,
            chunks=True,
        )
    if drawn is None:  # frames="last": the one frame shown, drawn from the final state
        drawn = draw_frame(state, game, bank)[None]
    return state, drawn, count, full


def check_frames(frames: str) -> None:
    """A ``frames`` option other than :data:`FRAMES` is a named error."""
    if frames not in FRAMES:
        raise ValueError(f'frames must be "all" or "last", got {frames!r}')


def perform_action(state: Arc3State, action: Action, game: Game, bank: LevelBank, frames="all"):
    """One env's action: ``(state, frames, info)`` (module docstring); ``frames`` (static)
    is ``"all"`` or ``"last"``."""
    check_frames(frames)
    valid = is_valid(action, game)
    acts = valid & ((action.id == RESET) | ~is_over(state))
    new_state, drawn, count, full = _perform(state, action, acts, game, bank, frames)
    info = {
        "frame_count": count,
        "full_reset": acts & full,
        "invalid_action": ~valid,
        "levels_completed": new_state.score,
        "level": new_state.level,
        "status": new_state.status,
    }
    return new_state, drawn, info
