"""Same-process A/B of the ARC-AGI-3 step: ``env.py`` (and ``types.py``) as of a git
revision or from a file, against the working tree's, in one process.

Both rollouts (the ``gridax bench --arc3`` scan, random actions drawn before the timing)
are compiled, checked for equal totals, then timed alternately; the median of each and
their ratio are printed. Ratios from one process are the measurement (RESULTS.md).

    python benchmarks/arc3_ab.py HEAD Keys,Lights 1024 100
    python benchmarks/arc3_ab.py saved_env.py Keys      # an env.py kept aside
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

from gridax.bench.arc3 import draw_actions, make_arc3_rollout
from gridax.envs import arc3
from gridax.envs.arc3 import env as current

MODULE_DIR = "src/gridax/envs/arc3"


def load(name: str, source: str, folder: Path):
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def old_env(revision: str, folder: Path):
    """The old step module; from git, with that revision's state types."""
    if Path(revision).exists():
        return load("old_env", Path(revision).read_text(), folder)

    def show(name):
        command = ["git", "show", f"{revision}:{MODULE_DIR}/{name}"]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    module = load("old_env", show("env.py"), folder)
    types = load("old_types", show("types.py"), folder)
    module.Arc3State, module.Snapshot = types.Arc3State, types.Snapshot
    return module


def compiled(module, game, states, actions, num_steps):
    started = time.perf_counter()
    rollout = make_arc3_rollout(game, num_steps, module.batch_step)
    run = rollout.lower(states, actions).compile()
    return run, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="a git revision, or an env.py file")
    parser.add_argument("games", help="comma-separated game names")
    parser.add_argument("num_envs", type=int, nargs="?", default=1024)
    parser.add_argument("steps", type=int, nargs="?", default=100)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        versions = {"old": old_env(args.old, Path(folder)), "new": current}
        for name in args.games.split(","):
            game = arc3.games.GAMES[name]
            actions = draw_actions(game, args.steps, args.num_envs)
            states, runs, compile_s, totals = {}, {}, {}, {}
            for label, module in versions.items():
                states[label] = module.batch_reset(args.num_envs, game)[0]
                runs[label], compile_s[label] = compiled(
                    module, game, states[label], actions, args.steps
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
