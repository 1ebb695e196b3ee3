"""Compile once, reuse forever: filter_jit, no retracing, lax.scan, the compilation cache.

    python examples/advanced/jax_optimization_demo.py [--quick]

Every number printed is measured while the script runs.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import equinox as eqx
import jax

from gridax import bench
from gridax.actions import PointAction
from gridax.envs import arc
from gridax.envs.arc import env as arc_env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args(argv)
    num_envs, num_steps = (16, 10) if args.quick else (256, 100)
    tasks = arc.load_tasks("arc-agi-1")
    config = arc.ArcConfig(max_episode_steps=num_steps)

    print("1. eqx.filter_jit traces once per config; new arrays reuse the compiled step")
    traces = []

    def counted_step(state, action, config):
        traces.append(config)  # runs only while JAX traces, never in compiled calls
        return arc_env._step(state, action, config)

    step = eqx.filter_jit(counted_step)
    state, _ = arc.reset(jax.random.key(0), config, tasks)
    first = bench.median_seconds(lambda _: step(state, PointAction(3, 0, 0), config), 1)
    later = bench.median_seconds(
        lambda i: step(state, PointAction(i % 10, i % 5, i % 5), config), 19
    )
    print(
        f"   first call {first * 1e3:.0f} ms (trace + compile), then a median of "
        f"{later * 1e6:.0f} us over 19 calls with other actions"
    )
    print(f"   traces so far: {len(traces)}")
    other = arc.ArcConfig(max_episode_steps=num_steps, reward_mode="sparse")
    other_state, _ = arc.reset(jax.random.key(0), other, tasks)
    step(other_state, PointAction(3, 0, 0), other)
    print(f"   after one call with another ArcConfig (a static argument): {len(traces)} traces")

    print(
        f"\n2. lax.scan inside one jit vs a Python loop of batch_step ({num_envs} envs, "
        f"{num_steps} steps)"
    )
    scan = bench.measure_scan(config, tasks, num_envs, num_steps, repeats=3)
    loop = bench.measure_loop(config, tasks, num_envs, num_steps, repeats=3)
    print(
        f"   scan {scan.steps_per_second:,.0f} env-steps/s, loop {loop.steps_per_second:,.0f}: "
        f"{scan.steps_per_second / loop.steps_per_second:.1f}x from dispatching once"
    )

    print("\n3. The persistent compilation cache: a new process skips XLA compilation")
    with tempfile.TemporaryDirectory() as cache:
        jax.config.update("jax_compilation_cache_dir", cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        states, _ = arc.batch_reset(jax.random.split(jax.random.key(1), num_envs), config, tasks)
        rollout = bench.make_rollout(config, num_steps)
        draws = bench.draw_rollout_actions(num_steps, num_envs)
        cold = bench.median_seconds(lambda _: rollout.lower(states, draws).compile(), 1)
        jax.clear_caches()  # forget in-memory compilations, as a new process would
        rollout = bench.make_rollout(config, num_steps)
        warm = bench.median_seconds(lambda _: rollout.lower(states, draws).compile(), 1)
        files = sum(1 for p in Path(cache).rglob("*") if p.is_file())
        print(
            f"   compile {cold:.2f} s cold, {warm:.2f} s from the cache ({files} cache files);"
            " set jax_compilation_cache_dir once at start-up to get this across runs"
        )
        jax.config.update("jax_compilation_cache_dir", None)


if __name__ == "__main__":
    main()
