"""Records the reference traces that tests/envs/arc3/test_games.py replays: for each game,
per level an episode that plays the solutions of the levels before it and then 60 random
actions (seed 0), for a game with undo one that undoes past the bottom of a full stack,
and one that plays every level's solution, then acts on the won game and resets it,
answered by the game's arcengine reference.

    python tests/tools/record_traces.py PYTHON_WITH_ARCENGINE [GAME ...]
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from gridax.envs.arc3.game import to_json
from gridax.envs.arc3.games import GAMES
from gridax.envs.arc3.types import UNDO

HERE = Path(__file__).parent
REFERENCE = HERE.parent / "envs" / "arc3" / "arcengine" / "games.py"
FIXTURES = HERE.parent / "fixtures" / "arc3"


def as_triples(moves) -> list[list[int]]:
    return [list(m) if isinstance(m, tuple) else [m, 0, 0] for m in moves]


def solving_episode(game) -> list[list[int]]:
    """Every level's solution in turn, one more action on the won game, then RESET."""
    actions = [a for moves in game.solutions for a in as_triples(moves)]
    return actions + [[game.available_actions[0], 0, 0], [0, 0, 0]]


def random_actions(rng: np.random.Generator, game, count: int) -> list[list[int]]:
    """The game's actions, now and then RESET (5 %); clicks anywhere on the screen."""
    actions = []
    for _ in range(count):
        action_id = 0 if rng.random() < 0.05 else int(rng.choice(game.available_actions))
        x, y = rng.integers(0, 64, 2).tolist() if action_id == 6 else (0, 0)
        actions.append([action_id, x, y])
    return actions


def random_episodes(game, seed: int, count: int) -> list[list[list[int]]]:
    """Per level, its predecessors' solutions, then ``count`` random actions; for a game
    with undo, one more that fills the undo stack past its depth in the last level and
    then empties it."""
    rng = np.random.default_rng(seed)
    episodes = [
        [a for moves in game.solutions[:level] for a in as_triples(moves)]
        + random_actions(rng, game, count)
        for level in range(len(game.levels))
    ]
    if UNDO in game.available_actions:
        # Into the last level, half its solution (distinct states), random actions up
        # to past the stack's depth, then undo until the stack is empty and beyond.
        before = [a for moves in game.solutions[:-1] for a in as_triples(moves)]
        last = as_triples(game.solutions[-1])
        played = last[: len(last) // 2]
        moves = [a for a in game.available_actions if a != UNDO]
        extra = max(game.undo_depth + 8 - len(played), 0)
        played += [[int(rng.choice(moves)), 0, 0] for _ in range(extra)]
        undos = [[UNDO, 0, 0]] * (len(played) + 2)
        episodes.append(before + played + undos + random_actions(rng, game, count))
    return episodes


def trace_path(name: str) -> Path:
    return FIXTURES / f"{name.lower()}_trace.json.gz"


def ask_reference(python: str, game, episodes: list) -> list:
    """The reference's record of ``episodes`` on ``game`` (its ``games.py``)."""
    with tempfile.TemporaryDirectory() as folder:
        levels, played = Path(folder) / "levels.json", Path(folder) / "episodes.json"
        levels.write_text(json.dumps(to_json(game)))
        played.write_text(json.dumps(episodes))
        command = [python, str(REFERENCE), str(levels), str(played)]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"the arcengine reference failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)["episodes"]


def record(python: str, name: str) -> Path:
    game = GAMES[name]
    episodes = random_episodes(game, seed=0, count=60) + [solving_episode(game)]
    answers = ask_reference(python, game, episodes)
    data = {"game": name, "levels": to_json(game), "episodes": answers}
    out = trace_path(name)
    out.write_bytes(gzip.compress(json.dumps(data).encode(), mtime=0))
    return out


if __name__ == "__main__":
    for name in sys.argv[2:] or sorted(GAMES):
        print(record(sys.argv[1], name))
