"""``evaluate``: a policy on every test input of a bank, scored as ARC Prize scores.

Each test input is played ``attempts`` times (ARC Prize allows 2), each attempt an
episode in ``"eval"`` mode with its own key; an attempt's answer is the working grid
when its episode ends (a submit, or the step limit). The episodes run batched, a
``lax.scan`` of ``batch_step`` per batch, and the answers are scored by
:func:`gridax.envs.arc.tools.scoring.score_attempts`.

A policy maps one env's observation and a PRNG key to one action of the config's
format; ``evaluate`` vmaps it. It may be an ``eqx.Module`` holding arrays (they are
traced, not baked in): :class:`Oracle` reads the answer from the bank by the
observation's task and pair index, and paints it.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Int8, Int32

from gridax.envs.arc import render
from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.env import batch_reset, batch_step, observe
from gridax.envs.arc.operations import NUM_OPERATIONS
from gridax.envs.arc.tasks import augmentation as augment
from gridax.envs.arc.tasks.bank import TaskBank
from gridax.envs.arc.tasks.loading import BUILTIN_SOURCES, load_tasks
from gridax.envs.arc.tools.demonstrations import LENGTH, paint_target
from gridax.envs.arc.tools.policies import random_actions
from gridax.envs.arc.tools.scoring import (
    Grid,
    Score,
    score_attempts,
    score_submission,
    to_submission,
)
from gridax.envs.arc.types import ArcObservation
from gridax.validation import require_int, require_type

Policy = Callable[[ArcObservation, Array], object]
# Mask actions and room for the longest painted answer: what the oracle needs.
DEFAULT_CONFIG = ArcConfig(mode="eval", selection_format="mask", max_episode_steps=LENGTH)


class Oracle(eqx.Module):
    """Paints the test output of the observed task and pair (needs mask actions and
    ``max_episode_steps >= LENGTH``): the policy that scores 1.0."""

    outputs: Int8[Array, "N T 30 30"]
    output_shapes: Int32[Array, "N T 2"]

    def __init__(self, tasks: TaskBank):
        self.outputs, self.output_shapes = tasks.test_outputs, tasks.test_output_shapes

    def __call__(self, obs: ArcObservation, key) -> object:
        del key
        where = (obs.task_index, obs.pair_index)
        demonstration = paint_target(self.outputs[where], self.output_shapes[where])
        step = jnp.minimum(obs.step_count, LENGTH - 1)
        return jax.tree.map(lambda x: x[step], demonstration.actions)


def random_policy(config: ArcConfig) -> Policy:
    """Uniform random actions of ``config.selection_format``, submit included."""

    def policy(obs: ArcObservation, key):
        action = random_actions(
            key, obs.working_shape[None], config.selection_format, NUM_OPERATIONS
        )
        return jax.tree.map(lambda x: x[0], action)

    return policy


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` found: the score, and every attempt's answer grid (per task
    id, per test output, per attempt)."""

    score: Score
    attempts: dict[str, list[list[Grid]]]


@eqx.filter_jit
def _play(policy, states, key, config: ArcConfig):
    """The states after ``config.max_episode_steps`` steps of ``policy``."""

    def body(states, key):
        keys = jax.random.split(key, states.step_count.shape[0])
        actions = jax.vmap(policy)(observe(states), keys)
        return batch_step(states, actions, config)[0], None

    steps = jax.random.split(key, config.max_episode_steps)
    return jax.lax.scan(body, states, steps)[0]


@eqx.filter_jit
def _answers(states):
    """The final working grids, in the task's own frame (augmentation inverted)."""
    if states.augmentation is None:
        return states.working_grid, states.working_shape
    answers = jax.vmap(augment.invert)
    return answers(states.working_grid, states.working_shape, states.augmentation)


def evaluate(
    policy: Policy,
    tasks: TaskBank,
    config: ArcConfig = DEFAULT_CONFIG,
    attempts: int = 2,
    seed: int = 0,
    batch_size: int = 1024,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> Evaluation:
    """Plays every test input of ``tasks`` ``attempts`` times with ``policy`` (module
    docstring) and scores the answers as ARC Prize does. With ``config.augment`` each
    attempt plays an augmented episode and its answer is inverted before scoring.

    Args:
        policy: ``policy(obs, key) -> action`` for one env, jittable.
        tasks: the bank; its test outputs are the answers.
        config: an ``"eval"``-mode config (its format is the policy's action format).
        attempts: attempts per test output, 1 or 2.
        seed: the episodes' keys derive from it.
        batch_size: episodes per batch (the last batch is padded to it: one compile).
        progress: wraps the iterable of batches (a progress bar).
    """
    require_type("tasks", tasks, TaskBank, "a TaskBank (gridax.envs.arc.load_tasks)")
    require_type("config", config, ArcConfig, "an ArcConfig")
    if config.mode != "eval":
        raise ValueError("evaluate plays test inputs: config.mode must be 'eval'")
    require_int("attempts", attempts, 1, 2)
    require_int("batch_size", batch_size, 1)
    counts = np.asarray(tasks.num_test)
    episodes = [
        (task, pair, attempt)
        for task in range(len(tasks))
        for pair in range(int(counts[task]))
        for attempt in range(attempts)
    ]
    index = np.array(episodes, np.int32).reshape(-1, 3)
    starts = range(0, len(episodes), batch_size)
    grids, shapes = [], []
    for number, start in enumerate(progress(starts) if progress else starts):
        chunk = index[start : start + batch_size]
        padded = np.concatenate([chunk, np.repeat(chunk[:1], batch_size - len(chunk), 0)])
        key = jax.random.fold_in(jax.random.key(seed), number)
        reset_key, play_key = jax.random.split(key)
        keys = jax.random.split(reset_key, batch_size)
        states, _ = batch_reset(keys, config, tasks, padded[:, 0], padded[:, 1])
        grid, shape = _answers(_play(policy, states, play_key, config))
        grids.append(np.asarray(grid)[: len(chunk)])
        shapes.append(np.asarray(shape)[: len(chunk)])
    answers: dict[str, list[list[Grid]]] = {
        task_id: [[] for _ in range(int(counts[i]))] for i, task_id in enumerate(tasks.task_ids)
    }
    for (task, pair, _), grid, (height, width) in zip(
        index, np.concatenate(grids), np.concatenate(shapes), strict=True
    ):
        answers[tasks.task_ids[task]][pair].append(grid[:height, :width])
    return Evaluation(score_attempts(tasks, answers), answers)


# --- the commands (gridax evaluate, gridax score) ----------------------------------------


def tasks_from_spec(spec: str) -> TaskBank:
    """``"arc-agi-1:evaluation"``, ``"arc-agi-2:training"`` (a built-in source and split)
    or a folder of ARC JSON files."""
    source, _, split = spec.partition(":")
    if source in BUILTIN_SOURCES:
        return load_tasks(source, split or "evaluation")
    return load_tasks(spec)


def policy_from_spec(spec: str, tasks: TaskBank, config: ArcConfig) -> Policy:
    """``"random"``, ``"oracle"`` or ``"module:function"`` (a policy ``(obs, key) ->
    action``, imported)."""
    if spec == "random":
        return random_policy(config)
    if spec == "oracle":
        return Oracle(tasks)
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise ValueError(f"--policy is 'random', 'oracle' or 'module:function'; got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"--policy {spec!r}: cannot import {module_name!r} ({error})") from None
    policy = getattr(module, name, None)
    if not callable(policy):
        raise ValueError(f"--policy {spec!r}: {module_name} has no callable {name!r}")
    return policy


def failures(tasks: TaskBank, evaluation: Evaluation, limit: int = 6) -> list:
    """Up to ``limit`` unsolved test outputs as rows of :func:`render.answer_sheet`."""
    pairs = tasks.pairs("test")
    rows = []
    for task_id, solved in evaluation.score.solved.items():
        index = tasks.index_of(task_id)
        for pair, ok in enumerate(solved):
            if ok or len(rows) == limit:
                continue
            height, width = (int(v) for v in pairs.input_shapes[index, pair])
            answer = np.asarray(pairs.outputs[index, pair])
            out_h, out_w = (int(v) for v in pairs.output_shapes[index, pair])
            grids = [
                ("input", np.asarray(pairs.inputs[index, pair])[:height, :width]),
                ("expected", answer[:out_h, :out_w]),
            ]
            grids += [
                (f"attempt {k + 1}", grid)
                for k, grid in enumerate(evaluation.attempts[task_id][pair])
            ]
            rows.append((f"{task_id} test {pair}", grids))
    return rows


def evaluate_command(
    tasks_spec: str,
    policy_spec: str,
    out: str | Path,
    selection_format: str = "mask",
    max_steps: int = LENGTH,
    attempts: int = 2,
    seed: int = 0,
) -> int:
    """``gridax evaluate``: prints the score, writes ``report.json`` (score, per-task
    scores, the answers as an ARC Prize submission) and ``failures.png``."""
    from rich.progress import track

    tasks = tasks_from_spec(tasks_spec)
    config = ArcConfig(mode="eval", selection_format=selection_format, max_episode_steps=max_steps)
    policy = policy_from_spec(policy_spec, tasks, config)
    batches = lambda xs: track(xs, "evaluating", transient=True)  # noqa: E731
    evaluation = evaluate(policy, tasks, config, attempts, seed, progress=batches)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "tasks": tasks.source,
        "policy": policy_spec,
        "config": {f.name: getattr(config, f.name) for f in dataclasses.fields(config)},
        "attempts": attempts,
        "seed": seed,
        "score": evaluation.score.score,
        "task_scores": evaluation.score.tasks,
        "submission": to_submission(evaluation.attempts),
    }
    (out / "report.json").write_text(json.dumps(report))
    rows = failures(tasks, evaluation)
    written = [out / "report.json"]
    if rows:
        render.answer_sheet(rows, out / "failures.png")
        written.append(out / "failures.png")
    print(f"{tasks.source}, policy {policy_spec}: {evaluation.score}")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def score_command(submission: str | Path, tasks_spec: str) -> int:
    """``gridax score``: prints the score of an ARC Prize submission file and the tasks it
    left out."""
    tasks = tasks_from_spec(tasks_spec)
    score = score_submission(submission, tasks)
    print(f"{tasks.source}: {score}")
    if score.missing:
        print("missing (scored 0): " + ", ".join(score.missing))
    return 0
