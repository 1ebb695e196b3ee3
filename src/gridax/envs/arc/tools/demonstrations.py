"""Expert demonstrations: action sequences that solve ARC episodes with the env's own
operations, as batched ``MaskAction`` arrays replayable through ``batch_step``.

- :func:`paint` solves any episode (loaded or generated): resize to the target's shape,
  fill each colour of the target where the target has it, submit.
- :func:`natural` solves a generated episode the way its family suggests: one flip, one
  recolouring fill, a few moves of the object (``docs/arc-generators.md`` lists them);
  scale tasks, which no single operation does, are painted.

Both read only the state (its input, target and task seed), so they work on a fresh
batch from ``batch_reset``. Every demonstration has :data:`LENGTH` steps; the steps after
its submit (``length`` counts up to and including it) are further submits, which a
finished episode ignores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float32, Int8, Int32

from gridax.envs.arc import operations as ops
from gridax.envs.arc.actions import MaskAction
from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.env import batch_reset, batch_step
from gridax.envs.arc.grid import GRID_SHAPE, NUM_COLOURS, canvas_coordinates, live_mask
from gridax.envs.arc.tasks import families, generators
from gridax.envs.arc.tasks.bank import TaskBank
from gridax.envs.arc.tasks.families import Step
from gridax.envs.arc.types import ArcState
from gridax.validation import require_int

LENGTH = 2 + NUM_COLOURS  # resize, a fill per colour, submit: the longest demonstration


class Demonstration(eqx.Module):
    """``actions`` with a leading step axis (``LENGTH``) before the batch axes;
    ``length``: steps up to and including the submit, per env."""

    actions: MaskAction
    length: Int32[Array, "*batch"]


def _submit() -> Step:
    return jnp.int32(ops.SUBMIT), jnp.ones(GRID_SHAPE, bool)


def _padded(steps: Sequence[Step], prefix: Sequence[Step]) -> Demonstration:
    """Stacks one env's steps (submit appended, then padded with submits)."""
    steps = [*prefix, *steps, _submit()]
    length = len(steps)
    assert length <= LENGTH, "a demonstration longer than LENGTH"  # a gridax bug
    steps = steps + [_submit()] * (LENGTH - length)
    operation = jnp.stack([jnp.asarray(op, jnp.int32) for op, _ in steps])
    selection = jnp.stack([mask for _, mask in steps])
    return Demonstration(MaskAction(operation, selection), jnp.int32(length))


def paint_target(target: Int8[Array, "30 30"], shape: Int32[Array, " 2"]) -> Demonstration:
    """One env's demonstration that paints ``target`` (of ``shape``): resize, a fill per
    colour, submit. It paints every cell, so the start grid does not matter: no prefix."""
    live = live_mask(shape)
    rows, cols = canvas_coordinates()
    corner = (rows == shape[0] - 1) & (cols == shape[1] - 1)  # resize reads its bottom-right
    colours = jnp.arange(NUM_COLOURS, dtype=target.dtype)
    present = jnp.any(live[None] & (target[None] == colours[:, None, None]), axis=(1, 2))
    order = jnp.argsort(~present, stable=True).astype(jnp.int32)  # present colours first
    count = jnp.sum(present, dtype=jnp.int32)
    steps: list[Step] = [(jnp.int32(ops.RESIZE), corner)]
    for k in range(NUM_COLOURS):
        colour = order[k]
        used = k < count
        operation = jnp.where(used, ops.FILL + colour, ops.SUBMIT).astype(jnp.int32)
        selection = live & (target == colour.astype(target.dtype))
        steps.append((operation, jnp.where(used, selection, True)))
    demonstration = _padded(steps, [])
    # The fills past the last colour are submits already: the episode ends there.
    return eqx.tree_at(lambda d: d.length, demonstration, 2 + count)


def _prefix(config: ArcConfig) -> list[Step]:
    """An empty start grid gets the input first (copy_input ignores its selection)."""
    return [(jnp.int32(ops.COPY_INPUT), jnp.ones(GRID_SHAPE, bool))] * (
        config.initial_grid == "empty"
    )


def _vectorised(function, states: ArcState):
    """``function`` of one env over any batch shape, step axis first."""
    batch_ndim = states.step_count.ndim
    for _ in range(batch_ndim):
        function = jax.vmap(function)
    demonstration = function(states)
    actions = jax.tree.map(lambda x: jnp.moveaxis(x, batch_ndim, 0), demonstration.actions)
    return Demonstration(actions, demonstration.length)


@eqx.filter_jit
def paint(states: ArcState, config: ArcConfig) -> Demonstration:
    """The demonstration that solves any episode by painting its target (module doc)."""
    del config  # the same demonstration for any start grid
    return _vectorised(lambda state: paint_target(state.target_grid, state.target_shape), states)


def _natural_one(state: ArcState, generator: generators.Generator, prefix) -> Demonstration:
    parameters = generator.parameters(state.task_index)
    pieces = families.hints(state.input_grid, state.input_shape, parameters)
    unused_moves = families.MAX_DISTANCE - parameters.distance  # submits: the episode ends
    by_family = []
    for family in families.FAMILIES.values():
        if family.demonstration is None:  # no short solution: paint it
            by_family.append(paint_target(state.target_grid, state.target_shape))
            continue
        demonstration = _padded(family.demonstration(pieces), prefix)
        if family.ends_with_moves:
            demonstration = eqx.tree_at(
                lambda d: d.length, demonstration, demonstration.length - unused_moves
            )
        by_family.append(demonstration)
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *by_family)
    return jax.tree.map(lambda x: x[parameters.family], stacked)


@eqx.filter_jit
def natural(states: ArcState, config: ArcConfig, generator: generators.Generator) -> Demonstration:
    """The family's short solution of generated episodes (module doc); ``generator`` is
    the one the states were reset from."""
    if states.augmentation is not None:
        raise ValueError(
            "natural demonstrations follow the family's own rule, which an augmented "
            "episode no longer shows (its colours and directions changed); use paint, "
            "which solves any episode"
        )
    return _vectorised(lambda state: _natural_one(state, generator, _prefix(config)), states)


class Replay(eqx.Module):
    """What replaying a demonstration from a batch of states gave, step axis first."""

    states: ArcState  # after the last step
    # Before each step and after the last: LENGTH + 1 grids.
    working_grid: Int8[Array, " steps_and_one *batch 30 30"]
    working_shape: Int32[Array, " steps_and_one *batch 2"]
    reward: Float32[Array, " steps *batch"]
    done: Bool[Array, " steps *batch"]
    success: Bool[Array, "*batch"]


@eqx.filter_jit
def replay(states: ArcState, demonstration: Demonstration, config: ArcConfig) -> Replay:
    """Steps a batch through its demonstration with ``batch_step`` (``lax.scan``)."""

    def body(states, action):
        next_states, _, reward, done, _ = batch_step(states, action, config)
        return next_states, (states.working_grid, states.working_shape, reward, done)

    final, (grids, shapes, reward, done) = jax.lax.scan(body, states, demonstration.actions)
    grids = jnp.concatenate([grids, final.working_grid[None]])
    shapes = jnp.concatenate([shapes, final.working_shape[None]])
    return Replay(final, grids, shapes, reward, done, final.success)


def export_dataset(
    out: Path | str,
    tasks: TaskBank,
    config: ArcConfig | None = None,
    part: str = "train",
    shard_size: int = 1024,
) -> list[Path]:
    """Writes the painted demonstration of every pair of ``tasks`` to ``.npz`` shards, for
    behaviour cloning; returns their paths. The format is in ``docs/arc-generators.md``.

    ``part`` is ``"train"`` (every demonstration pair) or ``"test"`` (every test pair);
    ``config`` (default: mask actions, episodes of ``LENGTH`` steps) sets the start grid.
    """
    if part not in ("train", "test"):
        raise ValueError(f"part must be 'train' or 'test', got {part!r}")
    require_int("shard_size", shard_size, 1)
    config = config or ArcConfig(selection_format="mask", max_episode_steps=LENGTH)
    if config.selection_format != "mask" or config.max_episode_steps < LENGTH:
        raise ValueError(
            f"demonstrations are mask actions of up to {LENGTH} steps: the config needs "
            f"selection_format='mask' and max_episode_steps >= {LENGTH}"
        )
    config = dataclasses.replace(config, mode="train" if part == "train" else "eval")
    counts = np.asarray(tasks.pairs(part).count)
    task_index = np.repeat(np.arange(len(tasks), dtype=np.int32), counts)
    pair_index = np.concatenate([np.arange(c, dtype=np.int32) for c in counts])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, start in enumerate(range(0, len(task_index), shard_size)):
        tasks_here = task_index[start : start + shard_size]
        pairs_here = pair_index[start : start + shard_size]
        keys = jax.random.split(jax.random.key(number), len(tasks_here))
        states, _ = batch_reset(keys, config, tasks, tasks_here, pairs_here)
        demonstration = paint(states, config)
        played = jax.device_get(replay(states, demonstration, config))
        actions = jax.device_get(demonstration.actions)
        path = out / f"{part}-{number:05d}.npz"
        np.savez_compressed(
            path,
            task_id=np.array([tasks.task_ids[i] for i in tasks_here]),
            task_index=tasks_here,
            pair_index=pairs_here,
            input_grid=np.asarray(states.input_grid),
            input_shape=np.asarray(states.input_shape),
            target_grid=np.asarray(states.target_grid),
            target_shape=np.asarray(states.target_shape),
            working_grid=np.moveaxis(played.working_grid, 0, 1),
            working_shape=np.moveaxis(played.working_shape, 0, 1),
            operation=actions.operation.T,
            selection=np.packbits(np.moveaxis(actions.selection, 0, 1), axis=-1),
            reward=played.reward.T,
            done=played.done.T,
            length=np.asarray(demonstration.length),
            success=played.success,
        )
        paths.append(path)
    return paths


__all__ = ["LENGTH", "Demonstration", "Replay", "export_dataset", "natural", "paint", "replay"]
