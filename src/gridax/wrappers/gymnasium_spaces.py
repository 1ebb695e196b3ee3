"""How the Gymnasium adapters (:mod:`gridax.wrappers.gymnasium`) present a gridax env's
spaces and values: gridax's own fields as Gymnasium ``Dict`` spaces (observations one
level deep, scalars as shape ``(1,)``: :func:`to_gymnasium_observation_space`), with
every action checked at the boundary, or the flat forms PyTorch trainers take:

- :class:`FlatActions` (``flat_actions=True``): a ``Dict`` action as one vector of
  integers, a ``MultiDiscrete`` (ARC point ``[35, 30, 30]``, ARC-AGI-3 ``[8, 64, 64]``),
  with its mask for masked policies (``action_masks()``);
- :func:`flat_observation` (``observations="flat"``): an observation as one ``float32``
  vector in ``[0, 1]``; ``observations="image"``: ``Env.observation_image``.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, TypeGuard

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float32

from gridax import spaces
from gridax.interface import Env
from gridax.validation import require_known

OBSERVATION_FORMS = ("native", "flat", "image")
PATH_SEPARATOR = "/"  # a nested field's name in the Dict form: "context/inputs"


class _Field(NamedTuple):
    """One field of a structured action, in the flat vector."""

    name: str
    shape: tuple[int, ...]
    entries: int  # of the vector
    values: int  # per entry
    low: int  # the field's value of entry value 0


class FlatActions:
    """A structured action space (a ``Dict`` of fields, as ARC's and ARC-AGI-3's) as one
    vector of integers, the ``MultiDiscrete`` space that PyTorch trainers' categorical
    heads take (``flat_actions=True``). In the space's field order, a ``Discrete(n)``
    field is one entry of ``n`` values; an integer or bool ``Box`` field is one entry per
    element (row-major) of its ``high - low + 1`` values, so an ARC mask action is the
    operation then 900 cell bits."""

    def __init__(self, space: spaces.Dict):
        self.space = space
        self.fields: list[_Field] = []
        for name, sub in space.spaces.items():
            if isinstance(sub, spaces.Discrete):
                self.fields.append(_Field(name, (), 1, sub.n, 0))
            elif isinstance(sub, spaces.Box) and sub.dtype == jnp.bool_:
                self.fields.append(_Field(name, sub.shape, math.prod(sub.shape), 2, 0))
            elif isinstance(sub, spaces.Box) and jnp.issubdtype(sub.dtype, jnp.integer):
                values = int(sub.high) - int(sub.low) + 1
                size = math.prod(sub.shape)
                self.fields.append(_Field(name, sub.shape, size, values, int(sub.low)))
            else:
                raise TypeError(f"field {name!r} ({sub!r}) has no flat integer form")
        self.nvec = np.concatenate([np.full(f.entries, f.values) for f in self.fields])
        self.starts = np.cumsum([0] + [f.entries for f in self.fields])

    def field_of(self, entry: int) -> str:
        """The name of the field entry ``entry`` of the vector belongs to."""
        return self.fields[int(np.searchsorted(self.starts, entry, side="right")) - 1].name

    def structured(self, env_id: str, vector, batch: tuple[int, ...]) -> Any:
        """The action a flat ``vector`` (NumPy, JAX or CPU torch; ``batch`` in front)
        stands for, as gridax takes it; a ``ValueError`` names a bad entry's field."""
        array = np.asarray(vector)
        shape = (*batch, len(self.nvec))
        if array.shape != shape:
            raise ValueError(f"{env_id}: a flat action must have shape {shape}; got {array.shape}")
        if not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"{env_id}: a flat action must be integers; got dtype {array.dtype}")
        outside = (array < 0) | (array >= self.nvec)
        if outside.any():
            first = np.unravel_index(np.argmax(outside), shape)
            entry = int(first[-1])
            where = f" (env {first[0]})" if batch else ""
            raise ValueError(
                f"{env_id}: flat action entry {entry} (field {self.field_of(entry)!r}) must "
                f"be an integer in 0..{self.nvec[entry] - 1}; got {array[first]}{where}"
            )
        values = {}
        for field, start in zip(self.fields, self.starts, strict=False):
            value = array[..., start : start + field.entries].reshape((*batch, *field.shape))
            dtype = self.space.spaces[field.name].dtype
            values[field.name] = jnp.asarray((value + field.low).astype(dtype))
        return self.space.cls(**values) if self.space.cls else values

    def flat(self, action) -> np.ndarray:
        """The flat vector of a structured action (or a batch; a dict of fields or the
        action itself): the inverse of :meth:`structured`."""
        parts = []
        for field in self.fields:
            value = np.asarray(spaces.field(action, field.name))
            batch = value.shape[: value.ndim - len(field.shape)]
            parts.append(value.reshape(*batch, field.entries).astype(np.int64) - field.low)
        return np.concatenate(parts, axis=-1)

    def mask(self, field_masks: dict, batch: tuple[int, ...]) -> np.ndarray:
        """``Env.action_mask``'s per-field masks as one bool vector over ``nvec``'s
        values (each entry's values in turn), the form ``MaskablePPO`` takes for a
        ``MultiDiscrete`` space; a field without a mask allows every value."""
        parts = []
        for field in self.fields:
            if field.name in field_masks:
                mask = np.asarray(field_masks[field.name], bool)
                parts.append(mask.reshape(*batch, field.values))
            else:
                parts.append(np.ones((*batch, field.entries * field.values), bool))
        return np.concatenate(parts, axis=-1)


def leaves(space: spaces.Space, value) -> list[tuple[spaces.Space, Any]]:
    """Each leaf space of a (nested) ``Dict`` with its part of ``value``, in field order."""
    if isinstance(space, spaces.Dict):
        return [
            pair
            for name, sub in space.spaces.items()
            for pair in leaves(sub, spaces.field(value, name))
        ]
    return [(space, value)]


def zeros(space: spaces.Space):
    """A value of ``space`` (nested dicts of zeros), for tracing."""
    if isinstance(space, spaces.Dict):
        return {name: zeros(sub) for name, sub in space.spaces.items()}
    return jnp.zeros(space.shape, space.dtype)


def flat_observation(space: spaces.Space, obs) -> Float32[Array, "... n"]:
    """``obs`` (or a batch) as one ``float32`` vector: every field in order, each element
    scaled by its space's bounds to ``[0, 1]``, so that an identifier such as ARC's
    ``task_index`` cannot swamp an MLP's input."""
    parts = []
    for leaf, value in leaves(space, obs):
        if isinstance(leaf, spaces.Discrete):
            low, high = 0.0, float(leaf.n - 1)
        elif isinstance(leaf, spaces.Box):
            low, high = float(leaf.low), float(leaf.high)
        else:
            raise TypeError(f"no flat form of {leaf!r}")
        if not (np.isfinite(low) and np.isfinite(high)):
            low, high = 0.0, 1.0
        scaled = (jnp.asarray(value, jnp.float32) - low) / max(high - low, 1e-12)
        batch = jnp.shape(value)[: jnp.ndim(value) - len(leaf.shape)]
        parts.append(scaled.reshape(*batch, -1))
    return jnp.concatenate(parts, axis=-1)


# --- gridax's own trees, as Gymnasium spaces ----------------------------------------


def to_gymnasium_space(space: spaces.Space) -> gymnasium.spaces.Space:
    """The Gymnasium space equal to a gridax space."""
    if isinstance(space, spaces.Dict):
        return gymnasium.spaces.Dict({k: to_gymnasium_space(v) for k, v in space.spaces.items()})
    dtype: Any = np.dtype(space.dtype)  # Gymnasium's annotations name numpy scalar types
    if isinstance(space, spaces.Discrete):
        return gymnasium.spaces.Discrete(space.n, dtype=dtype)
    if isinstance(space, spaces.Box):
        low, high = (0, 1) if dtype == np.bool_ else (space.low, space.high)
        return gymnasium.spaces.Box(low, high, space.shape, dtype)
    raise TypeError(f"no Gymnasium equivalent for {space!r}")


def named_leaves(space: spaces.Space, prefix: str = "") -> list[tuple[str, spaces.Space]]:
    """Each leaf space of a (nested) ``Dict`` with its path (``"context/inputs"``), in
    field order (as :func:`leaves`)."""
    if not isinstance(space, spaces.Dict):
        return [(prefix, space)]
    return [
        pair
        for name, sub in space.spaces.items()
        for pair in named_leaves(sub, f"{prefix}{PATH_SEPARATOR}{name}" if prefix else name)
    ]


def _scalar_box(space: spaces.Space) -> TypeGuard[spaces.Box]:
    """A ``Box`` of shape ``()``: shape ``(1,)`` in the ``Dict`` form."""
    return isinstance(space, spaces.Box) and space.shape == ()


def _lifted(space: spaces.Space) -> spaces.Space:
    if _scalar_box(space):
        return spaces.Box(space.low, space.high, (1,), space.dtype)
    return space


def to_gymnasium_observation_space(space: spaces.Space) -> gymnasium.spaces.Space:
    """The Gymnasium form of a gridax observation space (``observations="native"``): a
    structured one as a ``Dict`` one level deep, nested fields named by their path
    (``"context/inputs"``), each ``Box`` field at least one-dimensional (a scalar as
    shape ``(1,)``). Stable-Baselines3's ``MultiInputPolicy`` takes this form: it
    refuses nested ``Dict`` spaces and cannot flatten a scalar ``Box``."""
    if not isinstance(space, spaces.Dict):
        return to_gymnasium_space(space)
    fields = {name: to_gymnasium_space(_lifted(leaf)) for name, leaf in named_leaves(space)}
    return gymnasium.spaces.Dict(fields)


def gymnasium_observation(space: spaces.Space, obs, leaf) -> Any:
    """``obs`` (or a batch) in the form of :func:`to_gymnasium_observation_space`, each
    array through ``leaf`` (NumPy, torch or JAX out)."""
    if not isinstance(space, spaces.Dict):
        return leaf(obs)
    out = {}
    for (name, sub), (_, value) in zip(named_leaves(space), leaves(space, obs), strict=True):
        array = leaf(value)
        out[name] = array.reshape((*array.shape, 1)) if _scalar_box(sub) else array
    return out


def check_action(env_id: str, space: spaces.Space, action, batch: tuple[int, ...]) -> Any:
    """``action`` (NumPy, JAX or CPU torch arrays; a dict of fields for a structured
    space) as gridax takes it, after checking every field's shape and values against
    ``space``; a ``ValueError`` names the field, the allowed values and the env."""

    def check(space, value, path):
        what = f"{env_id}: action{path}"
        array = np.asarray(value)
        shape = batch + space.shape
        if array.shape != shape:
            raise ValueError(f"{what} must have shape {shape}; got shape {array.shape}")
        if isinstance(space, spaces.Discrete):
            integral = np.issubdtype(array.dtype, np.integer)
            outside = ~((array >= 0) & (array < space.n)) if integral else np.ones(shape, bool)
            if outside.any():
                first = np.unravel_index(np.argmax(outside), shape)
                where = f" (env {first[0]})" if batch else ""
                raise ValueError(
                    f"{what} must be an integer in 0..{space.n - 1}; got {array[first]!s}{where}"
                )
        elif space.dtype == jnp.bool_:
            if array.dtype != np.bool_:
                raise ValueError(f"{what} must be a bool array; got dtype {array.dtype}")
        elif not np.all((array >= space.low) & (array <= space.high)):
            raise ValueError(f"{what} must lie in [{space.low}, {space.high}]")
        return jnp.asarray(array.astype(space.dtype, copy=False))

    return spaces.as_structured(space, action, check)


# --- what an adapter presents -----------------------------------------------------------


def _flat_actions(env: Env, flat_actions: bool) -> FlatActions | None:
    """The flat form of ``env``'s actions if asked for and the space is structured (a
    ``Discrete`` space, as forage's, is flat already)."""
    space = env.action_space
    return FlatActions(space) if flat_actions and isinstance(space, spaces.Dict) else None


class Forms:
    """How an adapter presents one env's observations and actions: gridax's own trees,
    or, as asked, flat actions and flat or image observations (module docstring)."""

    def __init__(self, env: Env, flat_actions: bool, observations: str):
        require_known("observations", observations, OBSERVATION_FORMS)
        self.env = env
        # gridax's spaces, read once: a forage env derives its observation space by tracing
        self.obs_space, self.action_space = env.observation_space, env.action_space
        self.flat = _flat_actions(env, flat_actions)
        self.gym_action_space = (
            gymnasium.spaces.MultiDiscrete(self.flat.nvec)
            if self.flat
            else to_gymnasium_space(self.action_space)
        )
        self.form = observations
        if observations == "native":
            self.gym_obs_space = to_gymnasium_observation_space(self.obs_space)
            return
        convert = env.observation_image if observations == "image" else self._flatten
        self._convert = jax.jit(convert)
        example = spaces.as_structured(self.obs_space, zeros(self.obs_space))
        shape = jax.eval_shape(convert, example).shape
        low, high, dtype = (0, 255, np.uint8) if observations == "image" else (0, 1, np.float32)
        self.gym_obs_space = gymnasium.spaces.Box(low, high, shape, dtype)

    def _flatten(self, obs):
        return flat_observation(self.obs_space, obs)

    def observation(self, obs, leaf):
        if self.form == "native":
            return gymnasium_observation(self.obs_space, obs, leaf)
        return leaf(self._convert(obs))

    def action(self, action, batch: tuple[int, ...]):
        if self.flat:
            return self.flat.structured(self.env.env_id, action, batch)
        return check_action(self.env.env_id, self.action_space, action, batch)

    def action_masks(self, state, batch: tuple[int, ...]) -> np.ndarray:
        if self.flat:
            return self.flat.mask(self.env.action_mask(state), batch)
        if isinstance(self.action_space, spaces.Discrete):
            return np.ones((*batch, self.action_space.n), bool)
        raise ValueError(
            f"{self.env.env_id}: action_masks() is for flat action spaces; build the "
            "adapter with flat_actions=True"
        )
