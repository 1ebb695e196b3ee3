"""Small fixtures for ARC tests: text grids in, text grids out."""

from __future__ import annotations

import jax
import numpy as np

from gridax.envs import arc


def parse(text: str) -> list[list[int]]:
    """``"0 0 1\\n0 2 1"`` -> ``[[0, 0, 1], [0, 2, 1]]``."""
    return [[int(v) for v in line.split()] for line in text.strip().splitlines()]


def show(state: arc.ArcState) -> str:
    """The live working grid as text, the inverse of :func:`parse`."""
    h, w = (int(v) for v in state.working_shape)
    grid = np.asarray(state.working_grid)[:h, :w]
    return "\n".join(" ".join(str(v) for v in row) for row in grid)


def one_task_bank(input_text: str, target_text: str | None = None) -> arc.TaskBank:
    pair = {"input": parse(input_text), "output": parse(target_text or input_text)}
    return arc.tasks_from_dict({"golden": {"train": [pair], "test": [pair]}})


def start(input_text: str, target_text: str | None = None, **config_fields):
    """A state whose working grid is ``input_text``, and the config it was made with."""
    config = arc.ArcConfig(**config_fields)
    state, _ = arc.reset(jax.random.key(0), config, one_task_bank(input_text, target_text), 0, 0)
    return state, config
