"""ARC-AGI-3 throughput: each game stepped with random actions through the jitted
batched step, beside ARC Prize's engine (``arcengine``, Python 3.12+) playing the same
game with the same kind of actions from Python, one game at a time.

What arcengine plays is the truth each game is held to: for a port of ARC Prize's games
(``arc3.games.PORTED``: cn04, ft09, ...) the official game file itself, from level 0
(``tests/envs/arc3/arcengine/official.py``; the files are found as the parity tests find
them, :func:`official_games_folder`); for gridax's own games their re-implementation on
arcengine (``tests/envs/arc3/arcengine/games.py``).

The actions follow the parity traces' mix: 5 % RESET, else one of the game's actions,
clicks anywhere on the screen; drawn before the timed calls. arcengine is timed on its
cheapest path (``perform_action(..., raw=True)``), in a process of its own: the Python
named by ``$GRIDAX_ARCENGINE_PYTHON`` or ``.venv-arcengine`` (``make arc3-parity``).

Each game is also measured beside the frames roofline (:mod:`gridax.bench.roofline`),
and each row is held against the target (:data:`TARGET`, :meth:`GameSummary.verdict`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import tempfile
from pathlib import Path

import jax
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


def make_arc3_rollout(game: arc3.Game, num_steps: int, frames: str = "last"):
    """The scan of ``num_steps`` batched steps, frames consumed: every frame of each
    action (``frames="all"``) or the last (``"last"``, what ``Arc3Env`` observes)."""

    def step(states, actions):
        states, frames_made, info = arc3.batch_step(states, actions, game, frames)
        return states, (frames_made, info["levels_completed"])  # ints, as the frames sum

    return make_scan_rollout(step, num_steps)


def game_named(name: str) -> str:
    """The game ``name`` names, in any case or as its id (``LS20``, ``Arc3-ls20-v0``);
    a ``ValueError`` lists the games there are."""
    names = {key.lower(): key for key in arc3.games.GAMES}
    key = name.lower().removeprefix("arc3-").removesuffix("-v0")
    if key not in names:
        raise ValueError(f"no ARC-AGI-3 game {name!r}; there is {', '.join(names.values())}")
    return names[key]


def all_games() -> tuple[str, ...]:
    """Every game, gridax's own then the ported ones (what a bare ``--arc3`` measures)."""
    return tuple(arc3.games.GAMES)


def is_ported(name: str) -> bool:
    """A port of an ARC Prize game: arcengine plays the official file for it."""
    return any(module.GAME.name == name for module in arc3.games.PORTED)


def make_env_rollout(env: arc3.Arc3Env, num_steps: int):
    """The scan of ``num_steps`` of ``Arc3Env``'s batched step, observations (the last
    frame) and levels completed consumed: what an agent's rollout pays."""

    def step(states, actions):
        states, obs, _, _, info = env.batch_step(states, actions)
        return states, (obs, info["levels_completed"])  # ints, as the frames sum

    return make_scan_rollout(step, num_steps)


def game_benchmark(name: str, num_envs: int, num_steps: int) -> Benchmark:
    """Game ``name`` as an agent steps it: ``Arc3Env``'s batched step (one frame drawn
    an action, the last), random actions (:func:`draw_actions`)."""
    env = arc3.make_env(f"Arc3-{name}-v0")
    states, _ = env.batch_reset(jax.random.split(jax.random.key(0), num_envs))
    actions = draw_actions(env.game, num_steps, num_envs)
    rollout = make_env_rollout(env, num_steps)
    return compile_scan("arc3", name, rollout, states, actions, num_steps)


# The reference players: test code of a source checkout, not part of the library.
ARCENGINE_FOLDER = Path(__file__).resolve().parents[3] / "tests" / "envs" / "arc3" / "arcengine"
ARCENGINE_GAMES = ARCENGINE_FOLDER / "games.py"  # gridax's own games, written for arcengine
OFFICIAL_RUNNER = ARCENGINE_FOLDER / "official.py"  # plays ARC Prize's game files


def arcengine_python() -> str | None:
    """A Python with arcengine: ``$GRIDAX_ARCENGINE_PYTHON``, else ``.venv-arcengine``;
    None without one, or outside a source checkout (no :data:`ARCENGINE_GAMES`)."""
    named = os.environ.get("GRIDAX_ARCENGINE_PYTHON")
    local = Path(".venv-arcengine") / "bin" / "python"
    python = named or (str(local) if local.exists() else None)
    return python if ARCENGINE_GAMES.exists() else None


def official_games_folder() -> Path:
    """Where ARC Prize's game files are (for the bench and the parity tests):
    ``$GRIDAX_ARC3_REFERENCE``, else the first ``shared/reference/arc-agi-3`` beside the
    checkout or one of its parents."""
    if "GRIDAX_ARC3_REFERENCE" in os.environ:
        return Path(os.environ["GRIDAX_ARC3_REFERENCE"])
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "reference" / "arc-agi-3"
        if candidate.is_dir():
            return candidate
    return Path("shared") / "reference" / "arc-agi-3"  # absent: the bench says so


def _official_version(name: str) -> str:
    """The version of ARC Prize's file that ported game ``name``'s data came from."""
    return arc3.rules.official.load(name).version


def official_file(name: str) -> Path:
    """The official file of ported game ``name`` at the version its data came from."""
    version = _official_version(name)
    return official_games_folder() / name / version / f"{name}.py"


def reference_of(name: str) -> str:
    """What arcengine plays for ``name``, for the output."""
    if is_ported(name):
        return f"ARC Prize's {name}.py, version {_official_version(name)}, from level 0"
    return "its re-implementation in tests/envs/arc3/arcengine/games.py"


def missing_reference(name: str, python: str | None) -> str | None:
    """Why arcengine cannot play ``name`` here (printed instead of its row), or None."""
    if python is None:
        return (
            "arcengine is not installed (make arc3-parity sets up .venv-arcengine, or set "
            "GRIDAX_ARCENGINE_PYTHON)"
        )
    if is_ported(name) and not official_file(name).is_file():
        return (
            f"ARC Prize's {name}.py ({_official_version(name)}) is not in "
            f"{official_games_folder()} (set GRIDAX_ARC3_REFERENCE)"
        )
    return None


ARCENGINE_MIN_STEPS = 2000  # a shorter timed loop is mostly noise


def arcengine_command(name: str, python: str, folder: Path, episodes: list) -> list[str]:
    """The command that times ``episodes`` (lists of ``[id, x, y]``) on arcengine,
    its input files written to ``folder``: the official file for a ported game (each
    episode a fresh game on level 0), else the re-implementation."""
    played = folder / "episodes.json"
    if is_ported(name):
        played.write_text(json.dumps([{"start_level": 0, "actions": a} for a in episodes]))
        reference = str(official_games_folder())
        which = f"{name}/{_official_version(name)}"
        return [python, str(OFFICIAL_RUNNER), reference, which, str(played), "--time"]
    levels = folder / "levels.json"
    levels.write_text(json.dumps(arc3.to_json(arc3.games.GAMES[name])))
    played.write_text(json.dumps(episodes))
    return [python, str(ARCENGINE_GAMES), str(levels), str(played), "--time"]


def measure_arcengine(name: str, num_steps: int, python: str, repeats: int = 3) -> Row:
    """arcengine playing ``name`` (:func:`reference_of`) for ``num_steps`` random actions
    (at least ``ARCENGINE_MIN_STEPS``), ``repeats`` fresh games; the median."""
    game = arc3.games.GAMES[name]
    num_steps = max(num_steps, ARCENGINE_MIN_STEPS)
    moves = draw_actions(game, num_steps, repeats)
    episodes = [
        np.stack([moves.id[:, r], moves.x[:, r], moves.y[:, r]], axis=1).tolist()
        for r in range(repeats)
    ]
    with tempfile.TemporaryDirectory() as folder:
        command = arcengine_command(name, python, Path(folder), episodes)
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"arcengine ({python}) failed on {name}:\n{result.stderr[-2000:]}")
    seconds = sorted(json.loads(result.stdout)["seconds"])[repeats // 2]
    return Row("arcengine", name, "loop", 1, num_steps, num_steps / seconds, 0.0, 0)


# The target, at TARGET_ENVS envs: at least TARGET_SPEEDUP times arcengine's one-game rate
# or TARGET_ROOFLINE of the frames roofline, whichever is lower, and a compile under
# TARGET_COMPILE_SECONDS.
TARGET_ENVS = 1024
TARGET_SPEEDUP = 100.0
TARGET_ROOFLINE = 0.5
TARGET_COMPILE_SECONDS = 10.0
TARGET = (
    f"at {TARGET_ENVS:,} envs, >= {TARGET_SPEEDUP:g}x arcengine's one-game rate or >= "
    f"{TARGET_ROOFLINE:g} of the frames roofline (whichever is lower), and compile < "
    f"{TARGET_COMPILE_SECONDS:g} s"
)


@dataclasses.dataclass(frozen=True)
class GameSummary:
    """One game at one batch size: gridax's row beside arcengine's one-game rate."""

    game: str
    num_envs: int
    steps_per_second: float
    arcengine: float | None  # steps/s of one game from Python; None: not measured
    roofline_fraction: float
    compile_seconds: float

    @property
    def speedup(self) -> float | None:
        return None if self.arcengine is None else self.steps_per_second / self.arcengine

    def verdict(self) -> bool | None:
        """Whether the row meets the target (:data:`TARGET`): being at least the lower of
        two rates is being at least one of them. None when it cannot be told: the row
        misses half the roofline and arcengine was not measured."""
        if self.compile_seconds >= TARGET_COMPILE_SECONDS:
            return False
        if self.roofline_fraction >= TARGET_ROOFLINE:
            return True
        return None if self.speedup is None else self.speedup >= TARGET_SPEEDUP


def summarize(rows: list[Row]) -> list[GameSummary]:
    """Each gridax row (env ``arc3``) beside its game's arcengine row, if any."""
    arcengine = {r.variant: r.steps_per_second for r in rows if r.env == "arcengine"}
    return [
        GameSummary(
            r.variant,
            r.num_envs,
            r.steps_per_second,
            arcengine.get(r.variant),
            r.roofline_fraction or 0.0,
            r.compile_seconds,
        )
        for r in rows
        if r.env == "arc3"
    ]


def _judged(summary: GameSummary) -> str:
    if summary.num_envs != TARGET_ENVS:
        return "-"
    return {True: "yes", False: "NO", None: "?"}[summary.verdict()]


def format_summary(summaries: list[GameSummary]) -> str:
    """Per game and size: steps/s, arcengine's, the speed-up, the fraction of the
    roofline, the compile seconds and, at :data:`TARGET_ENVS`, whether it meets the
    target ("?": undecided without arcengine)."""
    lines = [
        f"{'game':<10}{'envs':>6}{'gridax':>13}{'arcengine':>11}{'speed-up':>10}"
        f"{'of roofline':>13}{'compile s':>11}{'meets target':>14}"
    ]
    for s in summaries:
        anchor = "-" if s.arcengine is None else f"{s.arcengine:,.0f}"
        speedup = "-" if s.speedup is None else f"{s.speedup:.{2 if s.speedup < 10 else 1}f}x"
        lines.append(
            f"{s.game:<10}{s.num_envs:>6}{s.steps_per_second:>13,.0f}{anchor:>11}{speedup:>10}"
            f"{s.roofline_fraction:>13.3f}{s.compile_seconds:>11.2f}{_judged(s):>14}"
        )
    lines.append(f"target: {TARGET}")
    if not any(s.num_envs == TARGET_ENVS for s in summaries):
        lines.append(f"(no row at {TARGET_ENVS:,} envs: nothing judged; --num-envs 1024)")
    return "\n".join(lines)
