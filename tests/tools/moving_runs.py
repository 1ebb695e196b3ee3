"""How long a game's moving-sprite list must be (``Game.moving_runs``), seen in play.

A frame paints the sprites not of ``Game.static_kinds`` from a list of runs of
:data:`gridax.envs.arc3.engine.painting.RUN` view cells, of a length fixed per game (its
cost is the list's length, used or not); a frame whose sprites take more is drawn the
slow way, every moving sprite sampled at every view cell (exact, and several times
dearer). The engine's default is a quarter more than the levels' declared sprites
take, which misses sprites a level takes out at its start (tr87's frames of its rules)
or a rule lays out anew (sk48's arms). This plays ``--envs`` envs from every level with
the bench's random actions (``gridax.bench.arc3.draw_actions``) for ``--steps`` actions
and prints, per game, the runs the last frame of each action needed: the most, and
the list a quarter longer, in steps of 16, that a game may declare.

    python tests/tools/moving_runs.py cd82 sk48
"""

from __future__ import annotations

import argparse

import jax
import numpy as np

from gridax.bench.arc3 import draw_actions, game_named
from gridax.envs import arc3
from gridax.envs.arc3.engine.game import list_length
from gridax.envs.arc3.engine.levels import bank_of
from gridax.envs.arc3.engine.painting import runs_needed


def runs_in_play(game: arc3.Game, envs: int, steps: int) -> np.ndarray:
    """The runs each state's moving sprites take, from every level's start and after
    each of ``steps`` random actions of ``envs`` envs."""
    moving = bank_of(game).backdrop.moving
    needed = jax.jit(jax.vmap(lambda s: runs_needed(s.table, moving[s.level], s.camera)))
    step = jax.jit(lambda s, a: arc3.batch_step(s, a, game, "last")[0])
    seen = []
    for level in range(len(game.levels)):
        states, _ = arc3.batch_reset(envs, game, level)
        actions = draw_actions(game, steps, envs, seed=level + 7)
        seen.append(np.asarray(needed(states)))
        for t in range(steps):
            states = step(states, jax.tree.map(lambda leaf, t=t: leaf[t], actions))
            seen.append(np.asarray(needed(states)))
    return np.concatenate(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description="The moving-sprite list a game needs in play.")
    parser.add_argument("games", nargs="+")
    parser.add_argument("--envs", type=int, default=128)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    for name in args.games:
        game = arc3.games.GAMES[game_named(name)]
        seen = runs_in_play(game, args.envs, args.steps)
        over = np.mean(seen > game.paint_runs)
        print(
            f"{game.name:6} list {game.paint_runs:4}  most needed {seen.max():4}  "
            f"({over:.1%} of frames over the list)  a quarter more: {list_length(seen.max())}"
        )


if __name__ == "__main__":
    main()
