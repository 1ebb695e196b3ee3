"""Batches of envs across devices, with JAX's own SPMD machinery.

``make_mesh`` builds a 1-D device mesh, ``shard_batch`` places a batch (states, actions,
keys) on it, one slice of envs per device, and ``replicate`` copies shared data (a task
bank) to every device. ``device_local(fn, mesh)`` runs a batch function with
``jax.shard_map``: each device steps its own slice, so the step has no cross-device
traffic at all. (Under plain ``jit`` with sharded inputs, XLA would also keep the envs
apart, but the step's batch-level conditions, such as "does any env need a flood-fill
sweep", would become all-reduces over devices; under ``shard_map`` each device decides
for its own envs.) Results are bit-identical to the unsharded batch's. See
docs/scaling.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "envs"


def make_mesh(devices: Sequence[Any] | None = None, axis_name: str = AXIS) -> Mesh:
    """A 1-D mesh over ``devices`` (default: every device of every process)."""
    devices = jax.devices() if devices is None else list(devices)
    if not devices:
        raise ValueError("make_mesh needs at least one device")
    return Mesh(np.array(devices), (axis_name,))


def _axis(mesh: Mesh) -> str:
    if len(mesh.axis_names) != 1:
        raise ValueError(f"gridax shards envs over a 1-D mesh; got axes {mesh.axis_names}")
    return mesh.axis_names[0]


def check_batch(num_envs: int, mesh: Mesh) -> None:
    """Raises unless the batch splits evenly over the mesh's devices."""
    devices = mesh.devices.size
    if num_envs % devices:
        raise ValueError(
            f"a batch of {num_envs} envs does not split evenly over {devices} devices; "
            f"use a multiple of {devices} (e.g. {devices * max(1, num_envs // devices)})"
        )


def _parts(batched, tree, fn):
    """``fn(flag, subtree)`` over the parts of ``tree`` that the prefix ``batched`` marks."""
    return jax.tree.map(fn, batched, tree, is_leaf=lambda x: isinstance(x, bool))


def _check_part(flag: bool, subtree, mesh: Mesh) -> None:
    leaves = jax.tree.leaves(subtree)
    if flag and leaves:
        check_batch(np.shape(leaves[0])[0], mesh)


def shard_batch(tree, mesh: Mesh, batched=True):
    """``tree`` placed on the mesh: the parts ``batched`` marks (a bool, or a pytree prefix
    of bools as for :func:`device_local`) one slice of envs per device, the rest copied to
    every device."""
    axis = _axis(mesh)

    def place(flag, subtree):
        _check_part(flag, subtree, mesh)
        spec = PartitionSpec(axis) if flag else PartitionSpec()
        return jax.device_put(subtree, NamedSharding(mesh, spec))

    return _parts(batched, tree, place)


def replicate(tree, mesh: Mesh):
    """``tree`` copied whole to every device of the mesh (a task bank, shared params)."""
    return shard_batch(tree, mesh, batched=False)


def device_local(
    fn: Callable, mesh: Mesh, batched: Any = None, out_batched: Any = True
) -> Callable:
    """``fn`` (a function of batches, e.g. ``batch_step`` or a ``lax.scan`` rollout) run
    by every device on its own slice, jitted.

    ``batched`` says, per positional argument, whether it carries the batch axis: a bool
    or a pytree prefix of bools (default: every argument is batched); the rest (a task
    bank, one PRNG key for a whole rollout) is replicated. ``out_batched`` does the same
    for the outputs; an output that is not batched must come out the same on every
    device (reduce per-device results with ``jax.lax.psum(x, "envs")`` inside ``fn``).
    """
    axis = _axis(mesh)

    def spec(is_batched):
        return PartitionSpec(axis) if is_batched else PartitionSpec()

    def run(*args):
        flags = (True,) * len(args) if batched is None else tuple(batched)
        for flag, arg in zip(flags, args, strict=True):
            _parts(flag, arg, lambda f, part: _check_part(f, part, mesh))
        # check_vma off: a replicated counter carried through a per-device lax.cond is
        # still the same on every device, which the check cannot see.
        mapped = jax.shard_map(
            fn,
            mesh=mesh,
            in_specs=jax.tree.map(spec, flags),
            out_specs=jax.tree.map(spec, out_batched),
            check_vma=False,
        )
        return mapped(*args)

    return jax.jit(run)


def autoreset_batched(state):
    """The ``batched`` prefix of an ``AutoResetState`` for :func:`device_local`: the env
    states and reset keys are per env, the counters replicated."""
    from gridax.wrappers.autoreset import AutoResetState

    if state.pool is not None:
        raise ValueError(
            "the 'pool' auto-reset strategy shares one pool and cursor across the batch, "
            "which devices cannot update independently; use 'always' or 'any_done' sharded"
        )
    flags = (True, True, None, False, False, False)  # a prefix tree of flags, not a state
    return AutoResetState(*flags)  # pyright: ignore[reportArgumentType]
