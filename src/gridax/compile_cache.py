"""JAX's persistent compilation cache, as ``gridax bench`` and the examples turn it on.

XLA compiles each jitted function once per process; with the persistent cache the
executable goes to disk and the next process that compiles the same function (same
code, shapes, JAX version and flags) loads it instead. docs/performance.md has cold and
warm compile times measured here.

>>> from gridax import compile_cache
>>> compile_cache.enable()  # doctest: +SKIP

Call it once at start-up, before the first compile: JAX sets the cache up on first use.
"""

from __future__ import annotations

import os
from pathlib import Path

# Where the cache lives unless GRIDAX_COMPILE_CACHE says otherwise ("off" turns it off).
DEFAULT_DIR = Path.home() / ".cache" / "gridax" / "jax"


def enable(path: str | Path | None = None) -> Path | None:
    """Turns JAX's persistent compilation cache on at ``path`` (default:
    ``$GRIDAX_COMPILE_CACHE``, else :data:`DEFAULT_DIR`; ``"off"`` leaves it off) and
    returns the folder, or None.

    Every executable is stored, however quick its compile: a gridax rollout's many small
    functions (resets, observation, key splits) add up to seconds per process, and JAX's
    default of storing only compiles over one second would leave them out.
    """
    import jax

    setting = str(path or os.environ.get("GRIDAX_COMPILE_CACHE", DEFAULT_DIR))
    if setting.lower() == "off":
        return None
    folder = Path(setting).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(folder))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return folder
