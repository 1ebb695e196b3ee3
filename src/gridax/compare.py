"""Side-by-side runs of the anchors (JaxARC, ARCLE) when the ``compare`` extra is installed."""

from __future__ import annotations

import importlib.util


def available() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("jaxarc", "arcle"))


def run(batch_sizes, num_steps: int, repeats: int) -> str:
    raise NotImplementedError(
        "the anchors are installed, but gridax's side-by-side runner for them is not "
        "written yet; see benchmarks/RESULTS.md for their figures measured on this machine"
    )
