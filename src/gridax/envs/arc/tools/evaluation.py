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
from collections.abc import Callable, Iterable

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Int8, Int32

from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.env import batch_reset, batch_step, observe
from gridax.envs.arc.operations import NUM_OPERATIONS
from gridax.envs.arc.tasks import augmentation as augment
from gridax.envs.arc.tasks.bank import TaskBank
from gridax.envs.arc.tools.demonstrations import LENGTH, paint_target
from gridax.envs.arc.tools.policies import random_actions
from gridax.envs.arc.tools.scoring import Grid, Score, score_attempts
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
