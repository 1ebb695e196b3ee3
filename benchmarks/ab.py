"""Same-process A/B of any registered env's batched step: gridax as of a git revision
against the working tree's, in one process.

The old ``src/gridax`` is taken from git into a temporary folder as ``old_gridax`` (its
imports of itself renamed), so both versions run side by side. For each id, both envs
step the same random actions (drawn from the action space before the timing) in the
``gridax bench`` scan rollout; each is compiled, checked for equal totals, then both are
timed in turns, and the median of each and the median of the rounds' new/old ratios are
printed. Ratios from one
process are the measurement (RESULTS.md).

    python benchmarks/ab.py HEAD~3 Arc3-Keys-v0,ForagaxBig-v5 1024 100
    python benchmarks/ab.py HEAD~3 Arc3-tr87-v0 1024 20 --frames all
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import gridax
from gridax.bench.arc3 import draw_actions as draw_arc3_actions
from gridax.bench.rollout import make_scan_rollout
from gridax.bench.roofline import roofline_fraction
from gridax.bench.timing import Benchmark, compile_scan, time_in_turns

PACKAGE_DIR = "src/gridax"
# gridax's own imports, not other words that contain the name ("gridax/" in a path).
OWN_IMPORT = re.compile(r"\b(from|import) gridax\b")


def old_gridax(revision: str, folder: Path):
    """``gridax`` as of ``revision``, imported as ``old_gridax``."""
    archive = subprocess.run(
        ["git", "archive", revision, PACKAGE_DIR], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "old_gridax"
    (folder / PACKAGE_DIR).rename(package)
    for path in package.rglob("*.py"):
        path.write_text(OWN_IMPORT.sub(r"\1 old_gridax", path.read_text()))
    sys.path.insert(0, str(folder))
    return importlib.import_module("old_gridax")


def random_actions(env, package, num_steps: int, num_envs: int, seed: int = 1):
    """Actions ``[num_steps, num_envs, ...]``: an ARC-AGI-3 game's as ``gridax bench``
    draws them (5 % RESET, else the game's own actions: its action space's ids 0-7 are
    mostly actions a game does not offer, which cost nothing), any other env's from its
    action space."""
    if hasattr(env, "game"):
        drawn = draw_arc3_actions(env.game, num_steps, num_envs, seed)
        action = importlib.import_module(f"{package.__name__}.envs.arc3").Action
        return action(*(jnp.asarray(a) for a in (drawn.id, drawn.x, drawn.y)))
    keys = jax.random.split(jax.random.key(seed), (num_steps, num_envs))
    return jax.vmap(jax.vmap(env.action_space.sample))(keys)


def benchmark(env, label: str, states, actions, num_steps: int) -> Benchmark:
    def step(states, actions):
        states, obs, reward, _, _ = env.batch_step(states, actions)
        return states, (obs, reward)

    rollout = make_scan_rollout(step, num_steps)
    return compile_scan(env.env_id, label, rollout, states, actions, num_steps)


def every_frame_benchmark(env, package, label: str, states, actions, num_steps: int):
    """An ARC-AGI-3 game's functional batched step with every frame of each action
    drawn (``frames="all"``: parity, replays, GIFs), on the env's game states."""
    batch_step = importlib.import_module(f"{package.__name__}.envs.arc3").batch_step

    def step(states, actions):
        states, frames, info = batch_step(states, actions, env.game, "all")
        return states, (frames, info["levels_completed"])

    rollout = make_scan_rollout(step, num_steps)
    return compile_scan(env.env_id, label, rollout, states.game_state, actions, num_steps)


def compare(
    env_id: str, versions: dict, num_envs: int, num_steps: int, rounds: int, frames: str
) -> str:
    keys = jax.random.split(jax.random.key(0), num_envs)
    runs = {}
    for label, package in versions.items():
        env = package.make(env_id)
        # The same draws, as each version's own action type.
        actions = random_actions(env, package, num_steps, num_envs)
        states = env.batch_reset(keys)[0]
        if frames == "all" and not hasattr(env, "game"):
            raise ValueError(f"--frames all is for ARC-AGI-3 games, not {env_id}")
        if frames == "all":
            runs[label] = every_frame_benchmark(env, package, label, states, actions, num_steps)
        else:
            runs[label] = benchmark(env, label, states, actions, num_steps)
    totals = {label: jax.device_get(run.run()[1]) for label, run in runs.items()}
    timings = time_in_turns([runs["old"].run, runs["new"].run], rounds)
    old_seconds = [old for old, _ in timings]
    new_seconds = [new for _, new in timings]
    old, new = runs["old"].row(old_seconds), runs["new"].row(new_seconds)
    # The median of the rounds' ratios, as gridax bench's fractions of a roofline.
    ratio = roofline_fraction(new_seconds, old_seconds)
    return (
        f"{env_id:32} {num_envs} envs: old {old.steps_per_second:11,.0f}  new "
        f"{new.steps_per_second:11,.0f} steps/s  new/old {ratio:.2f}  compile "
        f"{old.compile_seconds:.1f}/{new.compile_seconds:.1f} s  same totals: "
        f"{bool(np.array_equal(totals['old'], totals['new']))}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="a git revision")
    parser.add_argument("ids", help="comma-separated env ids")
    parser.add_argument("num_envs", type=int, nargs="?", default=1024)
    parser.add_argument("steps", type=int, nargs="?", default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--frames",
        choices=["last", "all"],
        default="last",
        help="ARC-AGI-3: Arc3Env's step (last frame), or every frame of each action",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        versions = {"old": old_gridax(args.old, Path(folder)), "new": gridax}
        for env_id in args.ids.split(","):
            row = compare(env_id, versions, args.num_envs, args.steps, args.rounds, args.frames)
            print(row, flush=True)


if __name__ == "__main__":
    main()
