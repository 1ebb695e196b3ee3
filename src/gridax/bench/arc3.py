"""ARC-AGI-3 throughput: each game stepped with random actions through the jitted
batched step, beside ARC Prize's engine (``arcengine``, Python 3.12+) playing the same
game with the same kind of actions from Python, one game at a time.

The actions follow the parity traces' mix: 5 % RESET, else one of the game's actions,
clicks anywhere on the screen; drawn before the timed calls. arcengine is timed on its
cheapest path (``perform_action(..., raw=True)``), in a process of its own: the Python
named by ``$GRIDAX_ARCENGINE_PYTHON`` or ``.venv-arcengine`` (``make arc3-parity``).

Each game is also measured beside the frames roofline (:mod:`gridax.bench.roofline`).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from gridax.bench.rollout import make_scan_rollout
from gridax.bench.timing import Benchmark, Row, compile_scan
from gridax.envs import arc3

RESET_SHARE = 0.05


def draw_actions(game: arc3.Game, num_steps: int, num_envs: int, seed: int = 1) -> arc3.Action:
    """Random actions ``[num_steps, num_envs]`` (module docstring)."""
    rng = np.random.default_rng(seed)
    shape = (num_steps, num_envs)
    ids = rng.choice(np.asarray(game.available_actions, np.int32), shape)
    ids = np.where(rng.random(shape) < RESET_SHARE, arc3.RESET, ids).astype(np.int32)
    xs, ys = (rng.integers(0, 64, shape, dtype=np.int32) for _ in range(2))
    return arc3.Action(ids, xs, ys)


def make_arc3_rollout(game: arc3.Game, num_steps: int):
    """The scan of ``num_steps`` batched steps, frames consumed."""

    def step(states, actions):
        states, frames, info = arc3.batch_step(states, actions, game)
        return states, (frames, info["levels_completed"])  # ints, as the frames sum

    return make_scan_rollout(step, num_steps)


def game_benchmark(name: str, num_envs: int, num_steps: int) -> Benchmark:
    game = arc3.games.GAMES[name]
    states, _ = arc3.batch_reset(num_envs, game)
    actions = draw_actions(game, num_steps, num_envs)
    rollout = make_arc3_rollout(game, num_steps)
    return compile_scan("arc3", name, rollout, states, actions, num_steps)


# The games written again against arcengine: test code of a source checkout, not part of
# the library (tests/envs/arc3/arcengine).
ARCENGINE_GAMES = Path(__file__).resolve().parents[3] / "tests/envs/arc3/arcengine/games.py"


def arcengine_python() -> str | None:
    """A Python with arcengine: ``$GRIDAX_ARCENGINE_PYTHON``, else ``.venv-arcengine``;
    None without one, or outside a source checkout (no :data:`ARCENGINE_GAMES`)."""
    named = os.environ.get("GRIDAX_ARCENGINE_PYTHON")
    local = Path(".venv-arcengine") / "bin" / "python"
    python = named or (str(local) if local.exists() else None)
    return python if ARCENGINE_GAMES.exists() else None


ARCENGINE_MIN_STEPS = 2000  # a shorter timed loop is mostly noise


def measure_arcengine(name: str, num_steps: int, python: str, repeats: int = 3) -> Row:
    """arcengine playing ``name`` (its reference, :data:`ARCENGINE_GAMES`) for
    ``num_steps`` random actions (at least ``ARCENGINE_MIN_STEPS``), ``repeats`` fresh
    games; the median."""
    game = arc3.games.GAMES[name]
    num_steps = max(num_steps, ARCENGINE_MIN_STEPS)
    moves = draw_actions(game, num_steps, repeats)
    episodes = [
        np.stack([moves.id[:, r], moves.x[:, r], moves.y[:, r]], axis=1).tolist()
        for r in range(repeats)
    ]
    with tempfile.TemporaryDirectory() as folder:
        levels, played = Path(folder) / "levels.json", Path(folder) / "episodes.json"
        levels.write_text(json.dumps(arc3.to_json(game)))
        played.write_text(json.dumps(episodes))
        command = [python, str(ARCENGINE_GAMES), str(levels), str(played), "--time"]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"arcengine ({python}) failed:\n{result.stderr[-2000:]}")
    seconds = sorted(json.loads(result.stdout)["seconds"])[repeats // 2]
    return Row("arcengine", name, "loop", 1, num_steps, num_steps / seconds, 0.0, 0)
