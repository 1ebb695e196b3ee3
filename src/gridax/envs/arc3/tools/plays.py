"""Plays of an ARC-AGI-3 game as ARC Prize's toolkit sees them: per action, what
arcengine's ``perform_action(action, raw=True)`` answers, as plain data, for any number
of plays of one game at once. ``gridax.wrappers.arc_agi`` wraps it in the toolkit's own
types; it is here, free of them, so that it runs (and is tested) on any Python.

What arcengine 0.9.3 answers, and so :meth:`Plays.act` does:

- every frame the action made, in order (64x64 ``int8``, as arcengine's camera draws);
- the game's state after it (``NOT_FINISHED``, ``WIN`` or ``GAME_OVER``), the levels
  completed, the game's level count (``win_levels``) and whether a RESET restarted the
  whole game (``full_reset``);
- an action other than RESET on a won or lost game makes nothing and changes nothing:
  arcengine answers it with its ``FrameData`` (not ``FrameDataRaw``), no frame, and
  levels counted 0 (it passes its counts under names that class does not have):
  :attr:`Answer.refused` marks that answer.

A new play is a new game on its first level, before any action (arcengine's
``NOT_PLAYED``); the toolkit's wrapper then sends RESET, and so does gridax's.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import numpy as np

from gridax.envs.arc3 import env as functional
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.types import GAME_OVER, RESET, STATUS_NAMES, WIN, Action


@dataclass(frozen=True)
class Answer:
    """One play's answer to one action: the fields of arcengine's ``FrameDataRaw``."""

    frames: list[np.ndarray]
    state: str
    levels_completed: int
    win_levels: int
    full_reset: bool
    refused: bool  # a won or lost game given an action other than RESET (module docstring)


class Plays:
    """``num_plays`` plays of ``game`` in lockstep, each a new game (module docstring).

    :meth:`act` sends one action to every play and returns their answers; the plays run
    as one batch through :func:`gridax.envs.arc3.batch_step` (``frames="all"``).
    """

    def __init__(self, game: Game, num_plays: int = 1):
        if num_plays < 1:
            raise ValueError(f"num_plays must be at least 1; got {num_plays}")
        self.game = game
        self.num_plays = num_plays
        self.states, _ = functional.batch_reset(num_plays, game)

    def act(self, ids, xs=0, ys=0) -> list[Answer]:
        """Action ``ids[i]`` (a click at ``(xs[i], ys[i])`` where it is a click) in play
        ``i``; scalars are sent to every play. An action the game does not offer, or a
        click off the 64x64 screen, is a ``ValueError`` naming it, and no play moves."""
        ids, xs, ys = (np.broadcast_to(np.asarray(v), (self.num_plays,)) for v in (ids, xs, ys))
        over = np.isin(np.asarray(self.states.status), (WIN, GAME_OVER))
        refused = over & (ids != RESET)
        action = Action(ids, xs, ys)
        self.states, frames, info = functional.batch_step(
            self.states, action, self.game, frames="all"
        )
        frames, info = jax.device_get((frames, info))
        win_levels = len(self.game.levels)
        return [
            Answer(
                frames=list(frames[i, : info["frame_count"][i]]),
                state=STATUS_NAMES[info["status"][i]],
                levels_completed=0 if refused[i] else int(info["levels_completed"][i]),
                win_levels=0 if refused[i] else win_levels,
                full_reset=bool(info["full_reset"][i]),
                refused=bool(refused[i]),
            )
            for i in range(self.num_plays)
        ]
