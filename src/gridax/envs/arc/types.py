"""State and observation of the ARC environment: arrays only, with pinned dtypes."""

from __future__ import annotations

import functools

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int8, Int32, UInt32

from gridax.envs.arc.grid import live_mask
from gridax.envs.arc.history import ActionHistory
from gridax.fields import as_dtype


class Augmentation(eqx.Module):
    """How an episode's task was augmented (:mod:`~gridax.envs.arc.tasks.augmentation` draws,
    applies and inverts it); a batch has a leading axis."""

    transform: Int32[Array, "*batch"] = eqx.field(converter=as_dtype(jnp.int32))
    colours: Int8[Array, "*batch 10"] = eqx.field(converter=as_dtype(jnp.int8))
    offset: Int32[Array, "*batch 2"] = eqx.field(converter=as_dtype(jnp.int32))


class Context(eqx.Module):
    """A task's demonstration pairs, padded to the bank's pair count; ``mask`` says which
    are real (and, in ``"train"`` mode, leaves out the episode's own pair, whose output is
    the answer: its grids are zeros)."""

    inputs: Int8[Array, "*batch P 30 30"]
    outputs: Int8[Array, "*batch P 30 30"]
    input_shapes: Int32[Array, "*batch P 2"]
    output_shapes: Int32[Array, "*batch P 2"]
    mask: Bool[Array, "*batch P"]


class ArcState(eqx.Module):
    """One environment's state (or a batch of them, with a leading axis on every leaf).

    Grids sit on the 30x30 canvas, anchored top-left, with their live ``(height, width)``
    beside them; cells outside the live rectangle are always 0. ``input_grid``,
    ``input_shape``, ``target_grid`` and ``target_shape`` are the episode's task data:
    they are copied from the task bank at reset so that ``step`` needs no bank, and
    ``task_index``/``pair_index`` say where they came from.
    """

    working_grid: Int8[Array, "*batch 30 30"] = eqx.field(converter=as_dtype(jnp.int8))
    working_shape: Int32[Array, "*batch 2"] = eqx.field(converter=as_dtype(jnp.int32))
    input_grid: Int8[Array, "*batch 30 30"] = eqx.field(converter=as_dtype(jnp.int8))
    input_shape: Int32[Array, "*batch 2"] = eqx.field(converter=as_dtype(jnp.int32))
    target_grid: Int8[Array, "*batch 30 30"] = eqx.field(converter=as_dtype(jnp.int8))
    target_shape: Int32[Array, "*batch 2"] = eqx.field(converter=as_dtype(jnp.int32))
    # The last copied cells at their original positions, and the top-left of the
    # copied selection's bounding box (where a paste aligns them).
    clipboard: Int8[Array, "*batch 30 30"] = eqx.field(converter=as_dtype(jnp.int8))
    clipboard_mask: Bool[Array, "*batch 30 30"] = eqx.field(converter=as_dtype(bool))
    clipboard_origin: Int32[Array, "*batch 2"] = eqx.field(converter=as_dtype(jnp.int32))
    step_count: Int32[Array, "*batch"] = eqx.field(converter=as_dtype(jnp.int32))
    task_index: Int32[Array, "*batch"] = eqx.field(converter=as_dtype(jnp.int32))
    pair_index: Int32[Array, "*batch"] = eqx.field(converter=as_dtype(jnp.int32))
    similarity: Float32[Array, "*batch"] = eqx.field(converter=as_dtype(jnp.float32))
    terminated: Bool[Array, "*batch"] = eqx.field(converter=as_dtype(bool))
    success: Bool[Array, "*batch"] = eqx.field(converter=as_dtype(bool))
    # Raw PRNG key data (not a typed key), so the state serialises as plain arrays.
    key: UInt32[Array, "*batch 2"] = eqx.field(converter=as_dtype(jnp.uint32))
    history: ActionHistory
    # With ArcConfig(context=True): the task's demonstration pairs, for the observation;
    # task data, like the input and target (checkpoints restore it from the bank).
    context: Context | None = None
    # With ArcConfig(augment=True): how the episode's task was augmented (saved by
    # checkpoints; the task data restored from the bank is augmented again).
    augmentation: Augmentation | None = None

    @property
    def working_mask(self) -> Bool[Array, "*batch 30 30"]:
        """Live cells of the working grid."""
        return live_mask(self.working_shape)

    @property
    def input_mask(self) -> Bool[Array, "*batch 30 30"]:
        return live_mask(self.input_shape)

    @property
    def target_mask(self) -> Bool[Array, "*batch 30 30"]:
        return live_mask(self.target_shape)


class ArcObservation(eqx.Module):
    """What the agent sees each step (shapes and dtypes in ``docs/arc.md``).

    ``context`` (the task's demonstration pairs) is None unless
    ``ArcConfig(context=True)``; otherwise the state's own arrays, so a step copies
    nothing for it.
    """

    working_grid: Int8[Array, "*batch 30 30"]
    working_shape: Int32[Array, "*batch 2"]
    input_grid: Int8[Array, "*batch 30 30"]
    input_shape: Int32[Array, "*batch 2"]
    clipboard: Int8[Array, "*batch 30 30"]
    clipboard_mask: Bool[Array, "*batch 30 30"]
    step_count: Int32[Array, "*batch"]
    task_index: Int32[Array, "*batch"]
    pair_index: Int32[Array, "*batch"]
    context: Context | None = None


def invariant_violations(states: ArcState, config) -> dict[str, Int32[Array, ""]]:
    """For each invariant of the ARC state, how many envs of ``states`` break it.

    Jittable and batch-agnostic (one state or any batch shape), so a long run can check
    a whole batch every few hundred steps (``benchmarks/soak.py``).
    """
    live_rect = (
        live_mask(s) for s in (states.working_shape, states.input_shape, states.target_shape)
    )
    grids = (states.working_grid, states.input_grid, states.target_grid)
    shapes = jnp.stack([states.working_shape, states.input_shape, states.target_shape])
    history = states.history
    records = jnp.sum((history.operation != -1) | history.invalid, axis=-1, dtype=jnp.int32)
    written = jnp.minimum(states.step_count, history.length)

    def cells(flags):  # any flagged cell per env
        return jnp.any(flags, axis=(-2, -1))

    per_env = {
        "colour outside 0-9": functools.reduce(
            jnp.logical_or,
            [cells((g < 0) | (g > 9)) for g in (*grids, states.clipboard)],
        ),
        "grid shape outside 1x1-30x30": jnp.any((shapes < 1) | (shapes > 30), axis=(0, -1)),
        "nonzero cell outside the live grid": functools.reduce(
            jnp.logical_or, [cells((g != 0) & ~m) for g, m in zip(grids, live_rect, strict=True)]
        ),
        "step count outside 0..max_episode_steps": (states.step_count < 0)
        | (states.step_count > config.max_episode_steps),
        "similarity outside [0, 1]": ~((states.similarity >= 0) & (states.similarity <= 1)),
        "success without a submit": states.success & ~states.terminated,
        "history records != steps taken": records != written,
    }
    return {name: jnp.sum(flag, dtype=jnp.int32) for name, flag in per_env.items()}
