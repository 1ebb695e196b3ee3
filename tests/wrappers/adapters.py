"""Checks shared by the tests of the adapters whose steps take and return step records
(Jumanji, Stoa)."""

import jax
import pytest


def check_bad_input_is_named(adapter):
    """An unknown id and a structured action missing fields are named errors; returns a
    built env and its reset state for the adapter's own checks."""
    with pytest.raises(ValueError, match="unknown env id 'ArcAgi9-v0'"):
        adapter("ArcAgi9-v0")
    env = adapter("ArcAgi1-v0")
    state, _ = env.reset(jax.random.key(0))
    with pytest.raises(ValueError, match=r"expected a value of PointAction\(operation="):
        env.step(state, {"operation": 1})  # no row, col
    return env, state
