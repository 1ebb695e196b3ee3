"""A policy played on ARC-AGI-3 games and scored as ARC Prize scores it (``gridax evaluate
--arc3``).

Each game is played ``episodes`` times from its first level, every episode a batch row,
for at most ``max_steps`` actions (an episode ends when the game is won or lost). An
episode's score is ARC Prize's score of its best play (:mod:`gridax.envs.arc3.tools.scoring`,
``info["score"]``); a game's score is the mean over its episodes, and the overall score
the mean over games, as the scorecard averages its games.

A policy is ``policy(obs, key) -> Action`` for one env (``obs`` the 64x64 frame), vmapped
over the episodes; :func:`random_policy` draws the game's actions uniformly (clicks
anywhere on the screen), and ``"solutions"`` replays the game's reference solutions
(:func:`solution_actions`). :func:`play` runs the episodes and returns their last info,
for an evaluation of one's own (examples/arc3/ppo_arc3.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import interface
from gridax.envs.arc3.engine.camera import SCREEN
from gridax.envs.arc3.engine.game import Game, as_triple
from gridax.envs.arc3.engine.types import CLICK, Action

Policy = Callable[[jax.Array, jax.Array], Action]


def random_policy(game: Game) -> Policy:
    """One of the game's actions, uniformly (no RESET); clicks anywhere on the screen."""
    offered = jnp.asarray(game.available_actions, jnp.int32)

    def policy(obs, key):
        which, x, y = jax.random.split(key, 3)
        action_id = jax.random.choice(which, offered)
        click = action_id == CLICK
        x = jnp.where(click, jax.random.randint(x, (), 0, SCREEN), 0)
        y = jnp.where(click, jax.random.randint(y, (), 0, SCREEN), 0)
        return Action(action_id, x, y)

    return policy


def solution_actions(game: Game) -> np.ndarray:
    """The game's reference solutions, level after level, as ``[T, 3]`` (id, x, y)."""
    moves = [as_triple(move) for run in game.solutions for move in run]
    if not moves:
        raise ValueError(f"{game.name} has no reference solutions to replay")
    return np.asarray(moves, np.int32)


@dataclass(frozen=True)
class GameResult:
    """One game's episodes: ARC Prize's score (mean and best over episodes), levels
    completed (mean), the share won, and actions per episode (mean)."""

    game: str
    episodes: int
    score: float
    best_score: float
    levels_completed: float
    won: float
    actions: float

    def __str__(self) -> str:
        return (
            f"{self.game}: score {self.score:.2f} (best {self.best_score:.2f}), "
            f"levels {self.levels_completed:.2f}, won {self.won:.0%}, "
            f"{self.actions:.0f} actions per episode ({self.episodes} episodes)"
        )


def play(env, policy: Policy, episodes: int, max_steps: int, seed: int, script=None):
    """``(states, info)`` after ``episodes`` episodes of ``max_steps`` from the first
    level, in one jitted scan (``script``: ``[T, 3]`` actions played instead of the
    policy's, the same in every episode); a finished episode is absorbing, so its last
    info is its end's (``levels_completed``, ``level_actions``, ``score``, ...)."""

    def one_step(carry, t):
        states, obs, _ = carry
        if script is None:
            keys = jax.random.split(jax.random.fold_in(jax.random.key(seed + 1), t), episodes)
            actions = jax.vmap(policy)(obs, keys)
        else:
            actions = Action(*(jnp.broadcast_to(v, (episodes,)) for v in jnp.asarray(script)[t]))
        states, obs, _, _, info = env.batch_step(states, actions)
        return (states, obs, info), None

    @jax.jit
    def rollout(reset_keys):
        states, obs = env.batch_reset(reset_keys)
        nothing = Action(*[jnp.zeros(episodes, jnp.int32)] * 3)
        shapes = jax.eval_shape(env.batch_step, states, nothing)[-1]  # the info's
        info = jax.tree.map(lambda leaf: jnp.zeros(leaf.shape, leaf.dtype), shapes)
        (states, _, info), _ = jax.lax.scan(one_step, (states, obs, info), jnp.arange(max_steps))
        return states, info

    return rollout(jax.random.split(jax.random.key(seed), episodes))


def evaluate_game(
    name: str,
    policy: Policy | str = "random",
    episodes: int = 16,
    max_steps: int = 500,
    seed: int = 0,
) -> GameResult:
    """``policy`` (a :data:`Policy`, ``"random"`` or ``"solutions"``) on game ``name``."""
    env = interface.make_env(f"Arc3-{name}-v0", max_episode_steps=max_steps)
    script = solution_actions(env.game) if policy == "solutions" else None
    if script is not None:
        max_steps = len(script)
    # "solutions" plays the script; the random policy only fills the argument.
    played = policy if callable(policy) else random_policy(env.game)
    states, info = play(env, played, episodes, max_steps, seed, script)
    score = np.asarray(info["score"], np.float64)
    return GameResult(
        game=name,
        episodes=episodes,
        score=float(score.mean()),
        best_score=float(score.max()),
        levels_completed=float(np.mean(info["levels_completed"])),
        won=float(np.mean(np.asarray(info["status"]) == interface.WIN)),
        actions=float(np.mean(states.steps)),
    )


def overall_score(results: Sequence[GameResult]) -> float:
    """The mean of the games' scores (the scorecard's mean over the games played)."""
    return float(np.mean([r.score for r in results])) if results else 0.0
