"""Which actions act: the game offers them and clicks land on the screen (traced), and
named errors for concrete ones that do not."""

from __future__ import annotations

import jax
import numpy as np

from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.types import CLICK, GAME_OVER, RESET, WIN, Action, Arc3State


def is_valid(action: Action, game: Game):
    """The game offers the action and a click lands on the screen."""
    return game.offers(action.id) & _lands(action.id, action.x, action.y)


def _lands(ids, xs, ys):
    """Not a click, or a click on the screen (JAX or NumPy arrays alike)."""
    on_screen = (xs >= 0) & (ys >= 0) & (xs < cam.SCREEN) & (ys < cam.SCREEN)
    return (ids != CLICK) | on_screen


def is_over(state: Arc3State):
    """The game is won or lost: only RESET acts on it."""
    return (state.status == WIN) | (state.status == GAME_OVER)


def check_action(action: Action, game: Game) -> None:
    """Raises a ``ValueError`` naming a concrete action the game does not offer or a
    click off the screen (traced actions are checked inside: flagged no-ops). The check
    is :func:`is_valid` in NumPy: a step called from Python pays no JAX dispatch for it."""
    try:
        ids, xs, ys = (np.atleast_1d(np.asarray(v)) for v in (action.id, action.x, action.y))
    except jax.errors.TracerArrayConversionError:
        return
    offered = np.isin(ids, (RESET, *game.available_actions))
    valid = offered & _lands(ids, xs, ys)
    if valid.all():
        return
    if not offered.all():
        bad = sorted(set(ids[~offered].tolist()))
        raise ValueError(
            f"game {game.name!r} offers RESET and {list(game.available_actions)}; got action "
            f"id {', '.join(map(str, bad))}"
        )
    first = np.flatnonzero(~valid)[0]
    raise ValueError(
        f"clicks land on the 64x64 screen (x, y in 0-63); got ({xs[first]}, {ys[first]})"
    )
