"""Test-wide JAX settings: strict dtype and rank promotion (warnings are errors via
pyproject), and one persistent compilation cache per run of the tests."""

import os
import shutil
import tempfile

import jax
import pytest

jax.config.update("jax_numpy_dtype_promotion", "strict")
jax.config.update("jax_numpy_rank_promotion", "raise")

# A run's compiled programs go to one folder, shared by pytest-xdist's workers, so that
# a game compiled in one test module loads in the next (each module drops its compiled
# code, below) and in the other worker. The folder is new for each run, so a run starts
# cold as on a fresh machine, and is removed at its end.
_CACHE = "GRIDAX_TEST_COMPILE_CACHE"
_owned = pytest.StashKey[str]()  # the folder, in the process that made it


def pytest_configure(config):
    if not hasattr(config, "workerinput") and _CACHE not in os.environ:  # the first process
        os.environ[_CACHE] = tempfile.mkdtemp(prefix="gridax-tests-jax-")
        config.stash[_owned] = os.environ[_CACHE]
    jax.config.update("jax_compilation_cache_dir", os.environ[_CACHE])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)


# The longest training smoke runs and the GPU script's CPU run (marked ci_only) run where
# GRIDAX_CI_ONLY is set (make ci-extra, which CI runs after make test): make test stays
# under 25 minutes on 2 cores.
def pytest_collection_modifyitems(config, items):
    if os.environ.get("GRIDAX_CI_ONLY"):
        return
    skip = pytest.mark.skip(reason="a training smoke run for CI: make ci-extra runs it")
    for item in items:
        if "ci_only" in item.keywords:
            item.add_marker(skip)


def pytest_unconfigure(config):
    folder = config.stash.get(_owned, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        del os.environ[_CACHE]


@pytest.fixture(autouse=True, scope="module")
def _free_compiled_code():
    """Drops JAX's compiled executables after each test module. One process compiles
    thousands of them over the whole run; each keeps memory mappings of its machine
    code, and past the kernel's limit LLVM fails with "Cannot allocate memory" (seen
    at about 460 tests, with 6 GB resident out of 24)."""
    yield
    jax.clear_caches()


@pytest.fixture(scope="session")
def arc_agi_1():
    from gridax.envs import arc

    return arc.load_tasks("arc-agi-1", split="training")
