"""ARC-AGI-3 throughput: each game stepped with random actions through the jitted
batched step, beside ARC Prize's engine (``arcengine``, Python 3.12+) playing the same
game with the same kind of actions from Python, one game at a time.

The actions follow the parity traces' mix: 5 % RESET, else one of the game's actions,
clicks anywhere on the screen; drawn before the timed calls. arcengine is timed on its
cheapest path (``perform_action(..., raw=True)``), in a process of its own: the Python
named by ``$GRIDAX_ARCENGINE_PYTHON`` or ``.venv-arcengine`` (``make arc3-parity``).

The roofline is the cheapest possible step of the same contract, read the same way: a
one-cell player moved by a given arrow on an 8x8 view (8 screen pixels a cell), its old
and new cells repainted in the 64x64 frame, and ``max_frames`` frames returned (the
frame repeated, as the engine pads). Each game's figure is also a fraction of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from gridax.bench.forage import make_moves_rollout
from gridax.bench.timing import Row, scan_row
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


def make_arc3_rollout(game: arc3.Game, num_steps: int, batch_step=arc3.batch_step):
    """The scan of ``num_steps`` batched steps, frames consumed; ``batch_step`` (as
    ``arc3.batch_step``) lets ``benchmarks/arc3_ab.py`` time an older version."""

    def step(states, actions):
        states, frames, info = batch_step(states, actions, game)
        return states, frames, info["levels_completed"]  # ints, as the frames sum

    return make_moves_rollout(step, num_steps)


def measure_arc3(name: str, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    game = arc3.games.GAMES[name]
    states, _ = arc3.batch_reset(num_envs, game)
    actions = draw_actions(game, num_steps, num_envs)
    rollout = make_arc3_rollout(game, num_steps)
    return scan_row("arc3", name, rollout, (states,), actions, num_steps, repeats)


ROOFLINE_SCALE = 8  # screen pixels per view cell: an 8x8 view


def make_roofline_rollout(num_steps: int, max_frames: int):
    """The roofline's rollout (module docstring): ``(screens, cells)`` are the state,
    the inputs are arrows ``[num_steps, num_envs, 2]``."""
    pixel_cells = jnp.arange(64, dtype=jnp.int32) // ROOFLINE_SCALE
    last = 64 // ROOFLINE_SCALE - 1

    def move(screen, cell, arrow):
        new = jnp.clip(cell + arrow, 0, last)

        def at(c):
            return (pixel_cells[:, None] == c[1]) & (pixel_cells[None, :] == c[0])

        screen = jnp.where(at(cell), jnp.int8(0), screen)
        screen = jnp.where(at(new), jnp.int8(9), screen)
        return screen, new

    def step(state, arrows):
        screens, cells = jax.vmap(move)(state[0], state[1], arrows)
        frames = jnp.broadcast_to(screens[:, None], (screens.shape[0], max_frames, 64, 64))
        return (screens, cells), frames, cells

    return make_moves_rollout(step, num_steps)


def measure_roofline(num_envs: int, num_steps: int, max_frames: int, repeats: int = 3) -> Row:
    state = (jnp.zeros((num_envs, 64, 64), jnp.int8), jnp.zeros((num_envs, 2), jnp.int32))
    arrows = np.random.default_rng(1).integers(-1, 2, (num_steps, num_envs, 2), dtype=np.int32)
    rollout = make_roofline_rollout(num_steps, max_frames)
    label = f"{max_frames} frames"
    return scan_row("roofline", label, rollout, (state,), jnp.asarray(arrows), num_steps, repeats)


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


def format_ratios(rows) -> str:
    """Per game and batch size: gridax's steps per second over arcengine's."""
    reference = {r.selection_format: r.steps_per_second for r in rows if r.env == "arcengine"}
    lines = ["gridax / arcengine steps per second (the same game, random actions):"]
    for r in rows:
        if r.env == "arc3" and r.selection_format in reference:
            ratio = r.steps_per_second / reference[r.selection_format]
            lines.append(f"  {r.selection_format:<10}{r.num_envs:>6} envs  {ratio:8.1f}x")
    return "\n".join(lines)
