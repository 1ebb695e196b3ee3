"""An episode's task data: the pair it plays and its demonstration context
(``ArcConfig(context=True)``: the task's demonstration pairs shown beside the episode),
in the episode's augmented frame. ``reset`` copies them into the state and a checkpoint
restores them through the same :func:`episode_task_data`."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jaxtyping import Array, Int8, Int32

from gridax.envs.arc.tasks import augmentation as augment
from gridax.envs.arc.tasks.bank import TaskBank
from gridax.envs.arc.types import Augmentation, Context


def episode_context(bank: TaskBank, task, pair, part: str) -> Context:
    """Task ``task``'s demonstration pairs as an episode's context: all of them, except in
    ``"train"`` part the episode's own pair ``pair``, masked out and zeroed (its output is
    the answer)."""
    train = bank.pairs("train")
    slots = jnp.arange(train.inputs.shape[1])
    mask = slots < train.count[task]
    if part == "train":
        mask = mask & (slots != pair)

    def masked(x):
        return jnp.where(
            mask.reshape((-1,) + (1,) * (x.ndim - 2)), x[task], jnp.zeros_like(x[task])
        )

    return Context(
        inputs=masked(train.inputs),
        outputs=masked(train.outputs),
        input_shapes=masked(train.input_shapes),
        output_shapes=masked(train.output_shapes),
        mask=mask,
    )


def augment_context(context: Context, augmentation: Augmentation) -> Context:
    """The context's pairs in the augmented frame; empty slots stay empty."""

    def one(grid, shape):
        return augment.apply(grid, shape, augmentation)

    inputs, input_shapes = jax.vmap(one)(context.inputs, context.input_shapes)
    outputs, output_shapes = jax.vmap(one)(context.outputs, context.output_shapes)
    keep = context.mask[:, None, None]
    return Context(
        inputs=jnp.where(keep, inputs, 0),
        outputs=jnp.where(keep, outputs, 0),
        input_shapes=jnp.where(context.mask[:, None], input_shapes, 0),
        output_shapes=jnp.where(context.mask[:, None], output_shapes, 0),
        mask=context.mask,
    )


class EpisodeTask(NamedTuple):
    """The task data an episode's state holds (the fields of the same names)."""

    input_grid: Int8[Array, "30 30"]
    input_shape: Int32[Array, " 2"]
    target_grid: Int8[Array, "30 30"]
    target_shape: Int32[Array, " 2"]
    context: Context | None


def episode_task_data(
    bank: TaskBank, task, pair, part: str, context: bool, augmentation: Augmentation | None
) -> EpisodeTask:
    """Pair ``pair`` of task ``task``'s ``"train"`` or ``"test"`` pairs (``part``) and,
    if ``context``, the task's context, all in ``augmentation``'s frame (None: the
    task's own)."""
    pairs = bank.pairs(part)
    input_grid, input_shape = pairs.inputs[task, pair], pairs.input_shapes[task, pair]
    target_grid, target_shape = pairs.outputs[task, pair], pairs.output_shapes[task, pair]
    shown = episode_context(bank, task, pair, part) if context else None
    if augmentation is not None:  # every grid of the task alike
        input_grid, input_shape = augment.apply(input_grid, input_shape, augmentation)
        target_grid, target_shape = augment.apply(target_grid, target_shape, augmentation)
        if shown is not None:
            shown = augment_context(shown, augmentation)
    return EpisodeTask(input_grid, input_shape, target_grid, target_shape, shown)
