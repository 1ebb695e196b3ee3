"""Same-process A/B of any registered env's batched step: gridax as of a git revision
against the working tree's, in one process.

The old ``src/gridax`` is taken from git into a temporary folder as ``old_gridax`` (its
imports of itself renamed), so both versions run side by side. For each id, both envs
step the same random actions (drawn from the action space before the timing) in the
``gridax bench`` scan rollout; each is compiled, checked for equal totals, then both are
timed alternately, and the median of each and their ratio are printed. Ratios from one
process are the measurement (RESULTS.md).

    python benchmarks/ab.py HEAD~3 Arc3-Keys-v0,ForagaxBig-v5 1024 100
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
import time
from pathlib import Path

import jax
import numpy as np

import gridax
from gridax.bench.rollout import make_scan_rollout

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


def random_actions(env, num_steps: int, num_envs: int, seed: int = 1):
    """Actions ``[num_steps, num_envs, ...]`` drawn from the env's action space."""
    keys = jax.random.split(jax.random.key(seed), (num_steps, num_envs))
    return jax.vmap(jax.vmap(env.action_space.sample))(keys)


def compiled_rollout(env, states, actions, num_steps: int):
    def step(states, actions):
        states, obs, reward, _, _ = env.batch_step(states, actions)
        return states, (obs, reward)

    started = time.perf_counter()
    run = make_scan_rollout(step, num_steps).lower(states, actions).compile()
    return run, time.perf_counter() - started


def compare(env_id: str, versions: dict, num_envs: int, num_steps: int, rounds: int) -> str:
    envs = {label: package.make(env_id) for label, package in versions.items()}
    keys = jax.random.split(jax.random.key(0), num_envs)
    states, actions, runs, compile_s, totals = {}, {}, {}, {}, {}
    for label, env in envs.items():
        # The same draws, as each version's own action type.
        actions[label] = random_actions(env, num_steps, num_envs)
        states[label] = env.batch_reset(keys)[0]
        runs[label], compile_s[label] = compiled_rollout(
            env, states[label], actions[label], num_steps
        )
        totals[label] = jax.device_get(runs[label](states[label], actions[label])[1])
    seconds = {label: [] for label in envs}
    for _ in range(rounds):
        for label, run in runs.items():
            started = time.perf_counter()
            jax.block_until_ready(run(states[label], actions[label]))
            seconds[label].append(time.perf_counter() - started)
    rate = {label: num_envs * num_steps / np.median(s) for label, s in seconds.items()}
    return (
        f"{env_id:32} {num_envs} envs: old {rate['old']:11,.0f}  new {rate['new']:11,.0f} "
        f"steps/s  new/old {rate['new'] / rate['old']:.2f}  compile "
        f"{compile_s['old']:.1f}/{compile_s['new']:.1f} s  same totals: "
        f"{bool(np.array_equal(totals['old'], totals['new']))}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="a git revision")
    parser.add_argument("ids", help="comma-separated env ids")
    parser.add_argument("num_envs", type=int, nargs="?", default=1024)
    parser.add_argument("steps", type=int, nargs="?", default=100)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        versions = {"old": old_gridax(args.old, Path(folder)), "new": gridax}
        for env_id in args.ids.split(","):
            print(compare(env_id, versions, args.num_envs, args.steps, args.rounds), flush=True)


if __name__ == "__main__":
    main()
