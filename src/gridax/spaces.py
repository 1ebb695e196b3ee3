"""Observation and action spaces: jittable ``sample(key)`` and ``contains(x)``.

The same small vocabulary as gymnax (``Discrete``, ``Box``, ``Dict``), without depending
on it; ``gridax.wrappers.GymnaxEnv`` converts them to gymnax's own classes. ``contains``
returns a boolean array, so it works under ``jit`` and ``vmap``; it checks values, and
``shape``/``dtype`` are there for the caller to check.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp

from gridax.validation import require_int


class Space:
    """A set of values with a shape and dtype (or a tree of such sets)."""

    shape: tuple[int, ...]
    dtype: Any

    def sample(self, key) -> Any:
        raise NotImplementedError

    def contains(self, x) -> jax.Array:
        raise NotImplementedError


class Discrete(Space):
    """The integers ``0 .. n - 1``."""

    def __init__(self, n: int, dtype=jnp.int32):
        require_int("Discrete's n", n, 1)
        self.n = n
        self.shape: tuple[int, ...] = ()
        self.dtype = jnp.dtype(dtype)

    def __repr__(self) -> str:
        return f"Discrete({self.n})"

    def sample(self, key) -> jax.Array:
        return jax.random.randint(key, self.shape, 0, self.n, dtype=self.dtype)

    def contains(self, x) -> jax.Array:
        x = jnp.asarray(x)
        return jnp.all((x >= 0) & (x < self.n))


class Box(Space):
    """Arrays of ``shape`` and ``dtype`` with every element in ``[low, high]``."""

    def __init__(self, low, high, shape: tuple[int, ...], dtype=jnp.float32):
        self.low, self.high = low, high
        self.shape = tuple(shape)
        self.dtype = jnp.dtype(dtype)

    def __repr__(self) -> str:
        return f"Box({self.low}, {self.high}, {self.shape}, {self.dtype.name})"

    def sample(self, key) -> jax.Array:
        if self.dtype == jnp.bool_:
            return jax.random.bernoulli(key, 0.5, self.shape)
        if jnp.issubdtype(self.dtype, jnp.integer):
            return jax.random.randint(key, self.shape, self.low, self.high + 1, dtype=self.dtype)
        return jax.random.uniform(key, self.shape, self.dtype, self.low, self.high)

    def contains(self, x) -> jax.Array:
        x = jnp.asarray(x)
        if x.dtype == jnp.bool_:
            return jnp.bool_(True)
        return jnp.all((x >= self.low) & (x <= self.high))


class Dict(Space):
    """Named subspaces. Samples are dicts, or ``cls(**fields)`` when ``cls`` is given (a
    structured action or observation class); ``contains`` reads fields by key or by
    attribute, so it takes either."""

    def __init__(self, spaces: Mapping[str, Space], cls: type | None = None):
        self.spaces = dict(spaces)
        self.cls = cls

    def __repr__(self) -> str:
        name = self.cls.__name__ if self.cls else "Dict"
        fields = ", ".join(f"{k}={v!r}" for k, v in self.spaces.items())
        return f"{name}({fields})"

    def sample(self, key):
        keys = jax.random.split(key, len(self.spaces))
        values = {name: s.sample(k) for (name, s), k in zip(self.spaces.items(), keys, strict=True)}
        return self.cls(**values) if self.cls else values

    def contains(self, x) -> jax.Array:
        inside = [space.contains(field(x, name)) for name, space in self.spaces.items()]
        return jnp.all(jnp.stack(inside))

    @property
    def flat_size(self) -> int | None:
        """How many values a ``Dict`` of ``Discrete`` fields holds (None if a field is not
        ``Discrete``): the size of :meth:`unflatten`'s range."""
        sizes = [space.n for space in self.spaces.values() if isinstance(space, Discrete)]
        return math.prod(sizes) if len(sizes) == len(self.spaces) else None

    def unflatten(self, index) -> Any:
        """The value numbered ``index`` (any batch shape) of a ``Dict`` of ``Discrete``
        fields, mixed-radix with the first field most significant: for ARC point actions
        ``(operation, row, col) = (a // 900, (a // 30) % 30, a % 30)``."""
        index = jnp.asarray(index, jnp.int32)
        values = {}
        for name, space in reversed(self.spaces.items()):
            if not isinstance(space, Discrete):
                raise TypeError(f"unflatten needs Discrete fields; {name!r} is {space!r}")
            values[name] = index % space.n
            index = index // space.n
        values = {name: values[name] for name in self.spaces}
        return self.cls(**values) if self.cls else values


def field(value, name: str):
    """Field ``name`` of a structured value or of a dict."""
    return value[name] if isinstance(value, Mapping) else getattr(value, name)


def as_dicts(space: Space, value, leaf=lambda x: x) -> Any:
    """A value of ``space`` (a structured observation, say) as nested dicts of its
    fields, with ``leaf`` applied to each array: how the adapters hand values to
    libraries whose spaces are dicts (Gymnasium, Stoa)."""
    if isinstance(space, Dict):
        return {name: as_dicts(sub, field(value, name), leaf) for name, sub in space.spaces.items()}
    return leaf(value)


def as_structured(space: Space, value, leaf=None, path: str = "") -> Any:
    """The inverse of :func:`as_dicts`: nested dicts (or structured values) of ``space``
    as gridax takes them (``space.cls(**fields)`` where a ``Dict`` has a class). Each
    array goes through ``leaf(space, value, path)`` (``path`` like ``"['row']"``; the
    default makes it a JAX array), so a caller can check it on the way."""
    if not isinstance(space, Dict):
        return jnp.asarray(value) if leaf is None else leaf(space, value, path)
    try:
        values = {name: field(value, name) for name in space.spaces}
    except (KeyError, AttributeError, TypeError):
        raise ValueError(
            f"expected a value of {space!r} (a dict of its fields); got {value!r}"
        ) from None
    fields = {
        name: as_structured(sub, values[name], leaf, f"{path}[{name!r}]")
        for name, sub in space.spaces.items()
    }
    return space.cls(**fields) if space.cls else fields
