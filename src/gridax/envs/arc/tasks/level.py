"""An ARC level: one task as a value, what curricula (PLR, ACCEL) keep in their buffers
and hand back to ``ArcEnv.reset_to_level``.

- :func:`sample_level`: the task ``reset`` would play from a key (a bank's row, or a
  generator's task of the seed it draws), as an :class:`ArcLevel`;
- :func:`mutate_level`: the same task under a random symmetry of the square and colour
  permutation, applied alike to every grid of it (the env's augmentation as a mutation).

An :class:`ArcLevel` is itself a :class:`~gridax.envs.arc.tasks.bank.TaskSource` of one
task, so ``reset`` plays it as it plays a bank: the same draws from the same key, the
same pair, augmentation and context. It keeps its source's ``extra_keys``, since the
key's split depends on it, and the ``task_index`` its source records (a bank's row, a
generator's seed; a mutated level keeps its source's, and a checkpoint of its episode
restores the unmutated task's grids).
"""

from __future__ import annotations

import dataclasses
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Int32

from gridax.dispatch import Static
from gridax.envs.arc.tasks import augmentation as augment
from gridax.envs.arc.tasks.bank import TaskBank, TaskSource
from gridax.prng import key_data, split_uniform


class ArcLevel(TaskSource):
    """One task (a bank of one, arrays only) and the ``task_index`` its episodes record.
    Build it by keyword (``extra_keys``, declared by ``TaskSource``, comes first)."""

    extra_keys: int = eqx.field(static=True)  # the source's (module docstring)
    task: TaskBank
    task_index: Int32[Array, ""]

    def identity(self) -> tuple[str, int, str]:
        return "level", 1, ""

    def episode_task(self, keys, draw, task_index):
        del keys, draw, task_index  # one task: the level's
        return self.task, jnp.int32(0), jnp.asarray(self.task_index, jnp.int32)

    def tasks_of(self, task_index):
        return self.task, jnp.zeros(np.shape(task_index), jnp.int32)

    def max_pairs(self, part: str) -> int:
        return self.task.pairs(part).inputs.shape[-4]  # the source's padding

    @property
    def task_index_limit(self) -> None:
        return None

    def for_jit(self) -> ArcLevel:
        return self


def sample_level(key, tasks: TaskSource) -> ArcLevel:
    """The task ``reset(key, config, tasks)`` plays, as a level. Jittable, vmappable."""
    arrays, static = eqx.partition(tasks.for_jit(), eqx.is_array)
    return _sample(key_data(key), arrays, Static(static))


@partial(jax.jit, static_argnums=2)
def _sample(key, arrays, static) -> ArcLevel:
    tasks = eqx.combine(arrays, static.value)
    keys, (task_draw, _) = split_uniform(key, 1 + tasks.extra_keys, 2)  # as reset splits
    bank, row, recorded = tasks.episode_task(keys[1:], task_draw, None)
    task = jax.tree.map(lambda x: x[row][None], bank.arrays_only())
    return ArcLevel(extra_keys=tasks.extra_keys, task=task, task_index=recorded)


@partial(jax.jit, static_argnums=2)
def mutate_level(key, level: ArcLevel, permute_zero: bool = False) -> ArcLevel:
    """``level``'s task under one random symmetry of the square and colour permutation
    (colour 0 kept unless ``permute_zero``), every grid alike. Jittable, vmappable."""
    _, uniforms = split_uniform(key_data(key), 0, augment.DRAWS)
    change = augment.draw(uniforms, permute_zero, 0)
    grids = jax.vmap(jax.vmap(lambda grid, shape: augment.apply(grid, shape, change)))
    task = level.task
    replaced = {}
    for part in ("train", "test"):
        for side in ("inputs", "outputs"):
            name = f"{part}_{side}"
            shapes = f"{part}_{side[:-1]}_shapes"
            replaced[name], replaced[shapes] = grids(getattr(task, name), getattr(task, shapes))
    return dataclasses.replace(level, task=dataclasses.replace(task, **replaced))
