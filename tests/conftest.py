"""Test-wide JAX settings: strict dtype and rank promotion (warnings are errors via pyproject)."""

import jax
import pytest

jax.config.update("jax_numpy_dtype_promotion", "strict")
jax.config.update("jax_numpy_rank_promotion", "raise")


@pytest.fixture(scope="session")
def arc_agi_1():
    from gridax.envs import arc

    return arc.load_tasks("arc-agi-1", split="training")
