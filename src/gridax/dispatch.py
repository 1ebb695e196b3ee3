"""What a call from Python pays before XLA runs, kept small.

A one-env ARC step runs in about 0.1 ms, so the work around it counts. ``jax.jit``
with a config as a static argument hashes the config on every call (an ``eqx.Module``
hashes its fields through ``__getattribute__``: 6-9 us), and ``eqx.filter_jit`` also
splits every argument into arrays and the rest (another 0.1 ms for an ARC step). So the
public functions look up, per config, a ``jax.jit`` with the config closed over
(:func:`per_config`): a loop that passes the same config object pays one ``is`` test,
and the compiled call gets arrays only. A static argument that cannot be closed over (a
task source's non-array half) goes in a :class:`Static`, hashed once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

Built = TypeVar("Built")


def per_config(build: Callable[[Any], Built], cache_size: int = 32) -> Callable[[Any], Built]:
    """``build(config)``, memoised: the last config by identity, then up to
    ``cache_size`` configs by equality (equal configs share what was built, and so
    share a compilation)."""
    cached = functools.lru_cache(maxsize=cache_size)(build)
    last: tuple[Any, Any] = (object(), None)

    def get(config) -> Built:
        nonlocal last
        seen, built = last  # one read: another thread may replace the pair meanwhile
        if config is not seen:
            built = cached(config)
            last = (config, built)
        return built

    return get


class Static:
    """A static ``jax.jit`` argument hashed once: ``jax.jit`` hashes its static arguments
    on every call, and an ``eqx.Module`` hashes through ``__getattribute__`` (~5 us)."""

    __slots__ = ("_hash", "value")

    def __init__(self, value):
        self.value = value
        self._hash = hash(value)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        return isinstance(other, Static) and self._hash == other._hash and self.value == other.value
