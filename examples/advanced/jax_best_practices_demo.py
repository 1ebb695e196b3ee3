"""Errors in three tiers, structured actions under jit and vmap, static vs traced config.

    python examples/advanced/jax_best_practices_demo.py [--quick]

Every result printed is computed while the script runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax import bench
from gridax.actions import PointAction
from gridax.envs import arc

STRICT_SCRIPT = """
import jax
from gridax.actions import PointAction
from gridax.envs import arc
tasks = arc.load_tasks("arc-agi-1")
config = arc.ArcConfig(strict=True)
state, _ = arc.reset(jax.random.key(0), config, tasks)
try:
    new, _, reward, _, info = arc.step(state, PointAction(99, 0, 0), config)
    same = bool(eqx.tree_equal(new.working_grid, state.working_grid))
    print(f"reward {float(reward)}, working grid unchanged: {same}")
except Exception as error:
    lines = str(error).splitlines()
    line = next((l for l in lines if "invalid" in l), lines[0])
    print(type(error).__name__ + ": " + line.removeprefix("equinox.EquinoxRuntimeError: "))
""".replace("import jax\n", "import jax\nimport equinox as eqx\n", 1)


def strict_run(mode: str) -> str:
    env = {**os.environ, "EQX_ON_ERROR": mode}
    result = subprocess.run(
        [sys.executable, "-c", STRICT_SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    return result.stdout.strip().splitlines()[-1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="accepted for symmetry; fast anyway")
    parser.parse_args(argv)
    tasks = arc.load_tasks("arc-agi-1")
    config = arc.ArcConfig()

    print("1. Three tiers of errors")
    try:
        arc.ArcConfig(selection_format="points")
    except ValueError as error:
        print(f"   a bad config fails at once, in Python: ValueError: {error}")
    state, _ = arc.reset(jax.random.key(0), config, tasks)
    new, _, reward, _, info = arc.step(state, PointAction(99, 0, 0), config)
    unchanged = bool(eqx.tree_equal(new.working_grid, state.working_grid))
    print(
        f"   an agent's bad action is data: invalid_action={bool(info['invalid_action'])}, "
        f"reward {float(reward):+.2f}, grid unchanged: {unchanged}"
    )
    print("   strict=True turns it into an eqx.error_if check, per EQX_ON_ERROR:")
    for mode in ("raise", "nan"):
        print(f"     EQX_ON_ERROR={mode:<5} -> {strict_run(mode)}")

    print("\n2. Structured actions are PyTrees: jit and vmap take them as they are")
    actions = PointAction(jnp.array([3, 4, 5]), jnp.array([0, 1, 2]), jnp.array([0, 1, 2]))
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(1), 3), config, tasks)
    vmapped = jax.vmap(lambda s, a: arc.step(s, a, config))(states, actions)
    batched = arc.batch_step(states, actions, config)
    one = jax.jit(lambda s, a: arc.step(s, a, config))(state, PointAction(3, 0, 0))
    print(
        f"   vmap(step) == batch_step: {bool(eqx.tree_equal(vmapped, batched))}; "
        f"jit(step) on one env: reward {float(one[2]):+.3f}"
    )

    print("\n3. Static vs traced: the config fixes shapes and branches, arrays do not")
    fresh = arc.ArcConfig(max_episode_steps=37)  # a config not compiled yet
    first = bench.median_seconds(lambda _: arc.reset(jax.random.key(2), fresh, tasks), 1)
    same = bench.median_seconds(lambda _: arc.reset(jax.random.key(3), fresh, tasks), 1)
    print(
        f"   reset with a new ArcConfig {first * 1e3:.0f} ms (compiles); with another key: "
        f"{same * 1e3:.1f} ms (reuses it)"
    )
    other = arc.ArcConfig(max_episode_steps=38)
    again = bench.median_seconds(lambda _: arc.reset(jax.random.key(2), other, tasks), 1)
    print(f"   changing a config field compiles again: {again * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
