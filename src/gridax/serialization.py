"""Checkpoints of env states, without the task data an ARC state copies from its bank.

``save_state(path, state, config, tasks=bank)`` writes one file: a JSON header, then the
state's leaves (``eqx.tree_serialise_leaves``) minus an ARC state's input and target
grids and shapes, which ``load_state(path, like, config, tasks=bank)`` copies back from
the bank by the state's task and pair indices. The header records the format version,
the env kind, the config (field by field), the batch shape, the task source and a digest
of its task ids, and a SHA-256 of the leaves, so that loading with another config or
bank, or from a truncated, corrupted or incompatible file, raises ``ValueError`` naming
what does not match. The file is written to a temporary name and renamed, so a crash
mid-save leaves the previous checkpoint intact. Sizes: docs/serialization.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import tempfile
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs import arc, forage
from gridax.envs.arc.generators import Generator

FORMAT_VERSION = 2
# Format 1 (gridax before the forage state was grouped) differs only for forage states,
# whose params then held one more leaf; ARC states of format 1 read as they are.
READABLE = {"arc": (1, 2), "forage": (2,)}
MAGIC = b"GRIDAX-STATE\n"
TASK_FIELDS = ("input_grid", "input_shape", "target_grid", "target_shape")


def _kind(state) -> str:
    if isinstance(state, arc.ArcState):
        return "arc"
    if isinstance(state, forage.ForageState):
        return "forage"
    raise TypeError(f"save_state takes an ArcState or a ForageState, got {type(state).__name__}")


def _config_fields(config) -> dict[str, str]:
    return {f.name: repr(getattr(config, f.name)) for f in dataclasses.fields(config)}


def _task_identity(tasks: arc.TaskBank | Generator) -> tuple[str, int, str]:
    """``(source, number of tasks, digest)``: a bank's task ids, or a generator's knobs
    (its states hold task seeds, and the tasks are regenerated from them)."""
    if isinstance(tasks, Generator):
        return tasks.source, 0, tasks.digest
    return tasks.source, len(tasks), hashlib.sha256("\n".join(tasks.task_ids).encode()).hexdigest()


def _skip_on_save(file, leaf) -> None:
    del file, leaf


def _keep_template_on_load(file, leaf):
    del file
    return leaf


def _filter_spec(state, saving: bool):
    """Per leaf, how to save (or load) it: every leaf but an ARC state's task data."""
    kept = eqx.default_serialise_filter_spec if saving else eqx.default_deserialise_filter_spec
    skipped = _skip_on_save if saving else _keep_template_on_load
    spec = jax.tree.map(lambda _: kept, state)
    if isinstance(state, arc.ArcState):
        spec = eqx.tree_at(lambda s: [getattr(s, f) for f in TASK_FIELDS], spec, [skipped] * 4)
    return spec


def _check_arguments(kind: str, config, tasks) -> None:
    expected = arc.ArcConfig if kind == "arc" else forage.ForageConfig
    if not isinstance(config, expected):
        raise TypeError(f"a state of the {kind} env needs its {expected.__name__}, got {config!r}")
    if kind == "arc" and not isinstance(tasks, arc.TaskBank | Generator):
        raise TypeError(
            "an ARC state is saved without its task data, so it needs tasks= (the TaskBank "
            f"or Generator it was reset from), got {type(tasks).__name__}"
        )


def save_state(path, state, config, tasks: arc.TaskBank | Generator | None = None) -> Path:
    """Writes ``state`` (one env or a batch) to ``path``; returns the path.

    ``config`` is the state's ``ArcConfig``/``ForageConfig``; ``tasks`` (ARC only) is the
    bank whose indices the state holds, recorded by source and task ids.
    """
    kind = _kind(state)
    _check_arguments(kind, config, tasks)
    buffer = io.BytesIO()
    eqx.tree_serialise_leaves(buffer, state, filter_spec=_filter_spec(state, saving=True))
    payload = buffer.getvalue()
    batch = state.step_count.shape if kind == "arc" else state.time.shape
    header = {
        "format_version": FORMAT_VERSION,
        "env": kind,
        "config": _config_fields(config),
        "batch_shape": list(batch),
        "payload_bytes": len(payload),
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
    }
    if kind == "arc":
        source, num_tasks, digest = _task_identity(tasks)
        header |= {"task_source": source, "num_tasks": num_tasks, "task_ids_sha256": digest}
    encoded = json.dumps(header, sort_keys=True).encode()
    path = Path(path)
    # Written beside the target and renamed over it: a reader sees the old file or the
    # whole new one, never a part.
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(MAGIC + len(encoded).to_bytes(8, "little") + encoded + payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def read_header(path) -> tuple[dict, bytes]:
    """The header and the verified leaf bytes of a checkpoint file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read checkpoint {str(path)!r}: {error.strerror}") from None
    if not data.startswith(MAGIC):
        raise ValueError(f"{str(path)!r} is not a gridax state checkpoint")
    start = len(MAGIC) + 8
    size = int.from_bytes(data[len(MAGIC) : start], "little")
    try:
        header = json.loads(data[start : start + size])
    except ValueError:
        raise ValueError(f"checkpoint {str(path)!r} has a damaged header") from None
    version = header.get("format_version")
    readable = READABLE.get(header.get("env"), (FORMAT_VERSION,))
    if version not in readable:
        raise ValueError(
            f"checkpoint {str(path)!r} has format version {version}; this gridax reads "
            f"{header.get('env')} states of version {' or '.join(map(str, readable))}"
            + (
                " (forage states of version 1 held ForageParams.time_varying, since removed)"
                if version == 1
                else ""
            )
        )
    payload = data[start + size :]
    if len(payload) != header["payload_bytes"]:
        raise ValueError(
            f"checkpoint {str(path)!r} is truncated: {len(payload)} of "
            f"{header['payload_bytes']} state bytes"
        )
    if hashlib.sha256(payload).hexdigest() != header["payload_sha256"]:
        raise ValueError(f"checkpoint {str(path)!r} is corrupted: its checksum does not match")
    return header, payload


def _check_match(path, header: dict, kind: str, like, config, tasks) -> None:
    where = f"checkpoint {str(path)!r}"
    if header["env"] != kind:
        raise ValueError(f"{where} holds a state of the {header['env']} env; like= is {kind}")
    saved, given = header["config"], _config_fields(config)
    names = sorted(set(saved) | set(given))
    differing = [name for name in names if saved.get(name) != given.get(name)]
    if differing:
        details = "; ".join(f"{n}: saved {saved.get(n)}, given {given.get(n)}" for n in differing)
        raise ValueError(f"{where} was saved with another config ({details})")
    batch = list((like.step_count if kind == "arc" else like.time).shape)
    if header["batch_shape"] != batch:
        raise ValueError(
            f"{where} holds a batch of shape {tuple(header['batch_shape'])}, but like= has "
            f"batch shape {tuple(batch)}"
        )
    if kind == "arc":
        saved_bank = (header["task_source"], header["num_tasks"], header["task_ids_sha256"])
        source, num_tasks, digest = _task_identity(tasks)
        if saved_bank != (source, num_tasks, digest):
            same_size = num_tasks == header["num_tasks"]
            raise ValueError(
                f"{where} refers to tasks of {header['task_source']!r} "
                f"({header['num_tasks']} tasks), but tasks= is {source!r} "
                f"({num_tasks} tasks{', other task ids' if same_size else ''})"
            )


def _attach_tasks(state: arc.ArcState, config: arc.ArcConfig, tasks):
    """Copies the episode's grids back from the bank (or from the tasks regenerated from
    the states' seeds), as ``reset`` did."""
    task_index = state.task_index
    if isinstance(tasks, Generator):
        tasks = tasks.bank(np.asarray(task_index).reshape(-1))
        task_index = jnp.arange(len(tasks), dtype=jnp.int32).reshape(task_index.shape)
    pairs = tasks.pairs("train" if config.mode == "train" else "test")
    fields = ("inputs", "input_shapes", "outputs", "output_shapes")
    values = [getattr(pairs, f)[task_index, state.pair_index] for f in fields]
    return eqx.tree_at(lambda s: [getattr(s, f) for f in TASK_FIELDS], state, values)


def load_state(path, like, config, tasks: arc.TaskBank | Generator | None = None):
    """The state saved in ``path``, bit-identical to the one saved.

    ``like`` is a state of the same config and batch shape (e.g. from ``reset`` or
    ``batch_reset``); it gives the shapes and dtypes. ``config`` and (ARC) ``tasks`` must
    be the ones the state was saved with; anything that does not match raises
    ``ValueError`` naming it, and nothing is loaded.
    """
    kind = _kind(like)
    _check_arguments(kind, config, tasks)
    header, payload = read_header(path)
    _check_match(path, header, kind, like, config, tasks)
    state = eqx.tree_deserialise_leaves(
        io.BytesIO(payload), like, filter_spec=_filter_spec(like, saving=False)
    )
    if kind == "arc":
        state = _attach_tasks(state, config, tasks)
    return state
