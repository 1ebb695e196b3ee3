"""Regression benchmarks of the jitted ARC and forage rollouts (pytest-benchmark).

    pytest benchmarks --benchmark-enable            # timed, with pytest-benchmark's stats
    make test                                       # runs each once (benchmarks disabled)

Each benchmark is one ``lax.scan`` rollout of ``STEPS`` steps over a batch of envs;
``extra_info`` carries env-steps per second (pytest-benchmark's OPS times batch x steps).
Batch sizes come from ``GRIDAX_BENCH_SIZES`` (default ``64,1024``).
"""

import os

import jax
import pytest

from gridax import bench
from gridax.envs import arc, forage

STEPS = 50
SIZES = [int(n) for n in os.environ.get("GRIDAX_BENCH_SIZES", "64,1024").split(",")]


@pytest.fixture(scope="module")
def tasks():
    return arc.load_tasks("arc-agi-1")


def run_benchmark(benchmark, compiled, args, num_envs):
    def once():
        return jax.block_until_ready(compiled(*args))

    benchmark.pedantic(once, rounds=3, warmup_rounds=1)
    if benchmark.stats is not None:  # None when benchmarks are disabled
        benchmark.extra_info["steps_per_second"] = num_envs * STEPS / benchmark.stats.stats.median


@pytest.mark.parametrize("num_envs", SIZES)
@pytest.mark.parametrize("fmt", bench.FORMATS)
def test_arc_rollout(benchmark, tasks, fmt, num_envs):
    config = arc.ArcConfig(selection_format=fmt, max_episode_steps=STEPS)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    draws = bench.draw_rollout_actions(STEPS, num_envs)
    compiled = bench.make_rollout(config, STEPS).lower(states, draws).compile()
    run_benchmark(benchmark, compiled, (states, draws), num_envs)


@pytest.mark.parametrize("num_envs", SIZES)
def test_roofline(benchmark, tasks, num_envs):
    states, _ = arc.batch_reset(
        jax.random.split(jax.random.key(0), num_envs), arc.ArcConfig(), tasks
    )
    args = ((states.working_grid, states.target_grid), bench.draw_roofline_cells(STEPS, num_envs))
    compiled = bench.make_arc_roofline_rollout(STEPS).lower(*args).compile()
    run_benchmark(benchmark, compiled, args, num_envs)


@pytest.mark.parametrize("num_envs", SIZES)
@pytest.mark.parametrize("env_id", ["ForagaxDiwali-v5", "ForagaxBig-v5"])
def test_forage_rollout(benchmark, env_id, num_envs):
    config = forage.make_config(env_id)
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), num_envs), config)
    moves = bench.draw_moves(STEPS, num_envs)
    compiled = bench.make_forage_rollout(config, STEPS).lower(states, moves).compile()
    run_benchmark(benchmark, compiled, (states, moves), num_envs)
