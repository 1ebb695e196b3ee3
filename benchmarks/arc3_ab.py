"""Same-process A/B of the ARC-AGI-3 step: the ``gridax.envs.arc3`` package (engine and
games) as of a git revision, against the working tree's, in one process.

The old package is taken from git into a temporary folder as ``old_arc3`` (its imports
of itself renamed), so both versions run side by side on the same shared modules. Both
rollouts (the ``gridax bench --arc3`` scan, random actions drawn before the timing) are
compiled, checked for equal totals, then timed alternately; the median of each and
their ratio are printed. Ratios from one process are the measurement (RESULTS.md).

    python benchmarks/arc3_ab.py HEAD Keys,Lights 1024 100
"""

from __future__ import annotations

import argparse
import importlib
import io
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

from gridax.bench.arc3 import draw_actions, make_arc3_rollout
from gridax.envs import arc3

PACKAGE_DIR = "src/gridax/envs/arc3"


def old_package(revision: str, folder: Path):
    """``gridax.envs.arc3`` as of ``revision``, imported as ``old_arc3``."""
    archive = subprocess.run(
        ["git", "archive", revision, PACKAGE_DIR], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "old_arc3"
    (folder / PACKAGE_DIR).rename(package)
    for path in package.rglob("*.py"):
        path.write_text(path.read_text().replace("gridax.envs.arc3", "old_arc3"))
    sys.path.insert(0, str(folder))
    return importlib.import_module("old_arc3")


def compiled(package, game, states, actions, num_steps):
    started = time.perf_counter()
    rollout = make_arc3_rollout(game, num_steps, package.batch_step)
    run = rollout.lower(states, actions).compile()
    return run, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="a git revision")
    parser.add_argument("games", help="comma-separated game names")
    parser.add_argument("num_envs", type=int, nargs="?", default=1024)
    parser.add_argument("steps", type=int, nargs="?", default=100)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        versions = {"old": old_package(args.old, Path(folder)), "new": arc3}
        for name in args.games.split(","):
            actions = draw_actions(arc3.games.GAMES[name], args.steps, args.num_envs)
            states, runs, compile_s, totals = {}, {}, {}, {}
            for label, package in versions.items():
                game = package.games.GAMES[name]
                states[label] = package.batch_reset(args.num_envs, game)[0]
                runs[label], compile_s[label] = compiled(
                    package, game, states[label], actions, args.steps
                )
                totals[label] = jax.device_get(runs[label](states[label], actions)[1])
            seconds = {label: [] for label in versions}
            for _ in range(args.rounds):
                for label, run in runs.items():
                    started = time.perf_counter()
                    jax.block_until_ready(run(states[label], actions))
                    seconds[label].append(time.perf_counter() - started)
            rate = {k: args.num_envs * args.steps / np.median(v) for k, v in seconds.items()}
            print(
                f"{name:8} {args.num_envs} envs: old {rate['old']:10,.0f}  new "
                f"{rate['new']:10,.0f} steps/s  new/old {rate['new'] / rate['old']:.2f}  "
                f"compile {compile_s['old']:.1f}/{compile_s['new']:.1f} s  "
                f"same totals: {totals['old'] == totals['new']}"
            )


if __name__ == "__main__":
    main()
