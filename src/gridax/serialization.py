"""Checkpoints of env states, without the task data an ARC state copies from its bank.

``save_state(path, state, env, params=None)`` writes one file: a JSON header, then the
state's leaves (``eqx.tree_serialise_leaves``) minus those the env's
``checkpoint_filter`` leaves out (an ARC state's input and target grids and shapes),
which ``load_state(path, like, env, params=None)`` has the env restore from its params
(the task bank, by the state's task and pair indices). The header records the format
version, the env kind, the config (field by field), the batch shape, what the env says
identifies its params (an ARC bank's source and a digest of its task ids), and a SHA-256
of the leaves, so that loading with another config or bank, or from a truncated,
corrupted or incompatible file, raises ``ValueError`` naming what does not match. The
file is written to a temporary name and renamed, so a crash mid-save leaves the
previous checkpoint intact. Sizes: docs/serialization.md.

Everything here goes through :class:`gridax.Env`: any env that implements it can be
checkpointed.
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

from gridax.interface import Env
from gridax.validation import require_type

FORMAT_VERSION = 2
# Format 1 (gridax before the forage state was grouped) differs only for forage states,
# whose params then held one more leaf; ARC states of format 1 read as they are.
READABLE = {"arc": (1, 2)}
MAGIC = b"GRIDAX-STATE\n"


def _config_fields(config) -> dict[str, str]:
    if config is None:
        return {}
    return {f.name: repr(getattr(config, f.name)) for f in dataclasses.fields(config)}


def _config_defaults(config) -> dict[str, str]:
    if config is None:
        return {}
    fields = dataclasses.fields(config)
    return {f.name: repr(f.default) for f in fields if f.default is not dataclasses.MISSING}


def _batch_shape(env: Env, state) -> tuple[int, ...]:
    """The leading axes ``state`` has beyond one env's state."""
    one, _ = jax.eval_shape(env.reset, jax.random.key(0))
    leaf, single = jax.tree.leaves(state)[0], jax.tree.leaves(one)[0]
    return tuple(leaf.shape[: leaf.ndim - single.ndim])


def _filter_spec(env: Env, state, saving: bool):
    """Per leaf, how to save (or load) it: kept leaves as equinox does, the others
    skipped on save and taken from ``like`` on load (then restored by the env)."""
    kept = eqx.default_serialise_filter_spec if saving else eqx.default_deserialise_filter_spec

    def skipped(file, leaf):
        del file
        return None if saving else leaf

    return jax.tree.map(lambda keep: kept if keep else skipped, env.checkpoint_filter(state))


def _check_env(env) -> None:
    require_type(
        "env",
        env,
        Env,
        "a gridax.Env (gridax.make(...)); save_state and load_state take the env and its "
        "params since gridax 0.2, not the config and tasks=",
    )


def save_state(path, state, env: Env, params=None) -> Path:
    """Writes ``state`` (one env or a batch) of ``env`` to ``path``; returns the path.

    ``params`` is what the state was reset with (``env.default_params`` when None): for
    ARC the task bank (or generator) whose indices the state holds, recorded by its
    source and task ids.
    """
    _check_env(env)
    buffer = io.BytesIO()
    eqx.tree_serialise_leaves(buffer, state, filter_spec=_filter_spec(env, state, saving=True))
    payload = buffer.getvalue()
    header = {
        "format_version": FORMAT_VERSION,
        "env": env.kind,
        "state_type": type(state).__name__,
        "config": _config_fields(env.config),
        "batch_shape": list(_batch_shape(env, state)),
        "payload_bytes": len(payload),
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
        **env.params_identity(params),
    }
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


def _check_match(path, header: dict, env: Env, like, params) -> None:
    where = f"checkpoint {str(path)!r}"
    if header["env"] != env.kind:
        raise ValueError(f"{where} holds a state of the {header['env']} env; env= is {env.kind}")
    # Files written before the state type was recorded hold the env's own state.
    saved_type = header.get("state_type", type(like).__name__)
    if saved_type != type(like).__name__:
        raise ValueError(f"{where} holds a {saved_type}, but like= is a {type(like).__name__}")
    given = _config_fields(env.config)
    # A field added to the config after the file was written reads as its default, which
    # keeps the behaviour the file was written under.
    saved = {**_config_defaults(env.config), **header["config"]}
    names = sorted(set(saved) | set(given))
    differing = [name for name in names if saved.get(name) != given.get(name)]
    if differing:
        details = "; ".join(f"{n}: saved {saved.get(n)}, given {given.get(n)}" for n in differing)
        raise ValueError(f"{where} was saved with another config ({details})")
    batch = list(_batch_shape(env, like))
    if header["batch_shape"] != batch:
        raise ValueError(
            f"{where} holds a batch of shape {tuple(header['batch_shape'])}, but like= has "
            f"batch shape {tuple(batch)}"
        )
    identity = env.params_identity(params)
    saved_identity = {key: header.get(key) for key in identity}
    if saved_identity != identity:
        source, count = header.get("task_source"), header.get("num_tasks")
        same_size = identity.get("num_tasks") == count
        raise ValueError(
            f"{where} refers to tasks of {source!r} ({count} tasks), but tasks= is "
            f"{identity.get('task_source')!r} ({identity.get('num_tasks')} tasks"
            f"{', other task ids' if same_size else ''})"
        )


def load_state(path, like, env: Env, params=None):
    """The state saved in ``path``, bit-identical to the one saved.

    ``like`` is a state of the same env and batch shape (e.g. from ``reset`` or
    ``batch_reset``); it gives the shapes and dtypes. ``env`` (its config) and ``params``
    must be the ones the state was saved with; anything that does not match raises
    ``ValueError`` naming it, and nothing is loaded.
    """
    _check_env(env)
    header, payload = read_header(path)
    _check_match(path, header, env, like, params)
    try:
        state = eqx.tree_deserialise_leaves(
            io.BytesIO(payload), like, filter_spec=_filter_spec(env, like, saving=False)
        )
    except RuntimeError as error:  # equinox: a leaf of another shape, dtype or type
        raise ValueError(
            f"checkpoint {str(path)!r} does not fit like=: {error} It was saved by "
            "another version of gridax, whose state had another layout."
        ) from error
    return env.restore_task_data(state, params)
