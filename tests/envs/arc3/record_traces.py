"""Records the reference traces that tests/envs/arc3/test_games.py replays: for each game,
three episodes of 80 random actions (seed 0) and one that plays every level's solution,
then acts on the won game and resets it, answered by the game's arcengine reference.

    python tests/envs/arc3/record_traces.py PYTHON_WITH_ARCENGINE [GAME ...]
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from gridax.envs.arc3.game import to_json
from gridax.envs.arc3.games import GAMES

HERE = Path(__file__).parent
REFERENCE = HERE / "reference" / "games.py"
FIXTURES = HERE.parents[1] / "fixtures" / "arc3"


def as_triples(moves) -> list[list[int]]:
    return [list(m) if isinstance(m, tuple) else [m, 0, 0] for m in moves]


def solving_episode(game) -> list[list[int]]:
    """Every level's solution in turn, one more action on the won game, then RESET."""
    actions = [a for moves in game.solutions for a in as_triples(moves)]
    return actions + [[game.available_actions[0], 0, 0], [0, 0, 0]]


def trace_path(name: str) -> Path:
    return FIXTURES / f"{name.lower()}_trace.json.gz"


def ask_reference(python: str, game, *arguments: str, play: list | None = None) -> dict:
    """The reference's answer (``reference/games.py``) for ``game``'s levels: random
    episodes (``arguments``), or the actions ``play``."""
    with tempfile.TemporaryDirectory() as folder:
        levels, played = Path(folder) / "levels.json", Path(folder) / "play.json"
        levels.write_text(json.dumps(to_json(game)))
        if play is not None:
            played.write_text(json.dumps(play))
            arguments = (*arguments, "--play", str(played))
        command = [python, str(REFERENCE), str(levels), *arguments]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"the arcengine reference failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def record(python: str, name: str) -> Path:
    game = GAMES[name]
    episodes = ask_reference(python, game, "--seed", "0", "--episodes", "3", "--actions", "80")
    episodes = (
        episodes["episodes"] + ask_reference(python, game, play=solving_episode(game))["episodes"]
    )
    data = {"game": name, "levels": to_json(game), "episodes": episodes}
    out = trace_path(name)
    out.write_bytes(gzip.compress(json.dumps(data).encode(), mtime=0))
    return out


if __name__ == "__main__":
    for name in sys.argv[2:] or sorted(GAMES):
        print(record(sys.argv[1], name))
