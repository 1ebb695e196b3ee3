"""The rooflines, one per env kind, and how a row is measured as a fraction of its own.

A roofline is the cheapest possible step of an env kind's contract, run through the same
rollout on inputs drawn the same way, so that an env's figure is also a fraction of what
this machine can do at all:

* ARC (and forage, whose targets are set against it): paint one given cell of a 30x30
  int8 grid and recompute the similarity to the target.
* ARC-AGI-3: a one-cell player moved by a given arrow on an 8x8 view (8 screen pixels a
  cell), its old and new cells repainted in the 64x64 frame, and ``max_frames`` frames
  returned (the frame repeated, as the engine pads).

A row and its roofline are timed back to back in every round (:func:`time_in_turns`) and
the fraction is the median of the rounds' ratios (:func:`roofline_fraction`): a slow
stretch of the machine (the first heavy computation of a process runs slow here) slows
both sides of the rounds it covers, and no fraction depends on which row ran first.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from gridax.bench.rollout import make_scan_rollout
from gridax.bench.timing import Benchmark, Row, compile_scan, measure, time_in_turns
from gridax.envs import arc


def roofline_fraction(seconds: Sequence[float], roofline_seconds: Sequence[float]) -> float:
    """A row's speed as a fraction of its roofline's: the median over rounds of each
    round's ratio. Round ``i`` timed the row (``seconds[i]``) and the roofline
    (``roofline_seconds[i]``) back to back, the same env-steps each."""
    ratios = [ceiling / row for row, ceiling in zip(seconds, roofline_seconds, strict=True)]
    return statistics.median(ratios)


def draw_roofline_cells(num_steps: int, num_envs: int, seed: int = 1):
    """The ARC roofline's inputs: a cell and a colour per env and step,
    ``[num_steps, num_envs]``."""
    row_key, col_key, colour_key = jax.random.split(jax.random.key(seed), 3)
    shape = (num_steps, num_envs)
    return (
        jax.random.randint(row_key, shape, 0, arc.GRID_SIZE),
        jax.random.randint(col_key, shape, 0, arc.GRID_SIZE),
        jax.random.randint(colour_key, shape, 0, 10).astype(jnp.int8),
    )


def make_arc_roofline_rollout(num_steps: int):
    """The cheapest ARC step (module docstring) on ``(grids, targets)``, reading
    :func:`draw_roofline_cells`."""

    def paint(grid, target, row, col, colour):
        grid = grid.at[row, col].set(colour)
        return grid, jnp.mean(grid == target, dtype=jnp.float32)

    def step(state, cells):
        grids, targets = state
        grids, similarity = jax.vmap(paint)(grids, targets, *cells)
        return (grids, targets), similarity

    return make_scan_rollout(step, num_steps)


def arc_roofline(tasks, num_envs: int, num_steps: int) -> Benchmark:
    """The ARC roofline on the grids and targets of ``num_envs`` resets of ``tasks``."""
    states, _ = arc.batch_reset(
        jax.random.split(jax.random.key(0), num_envs), arc.ArcConfig(), tasks
    )
    grids = (states.working_grid, states.target_grid)
    cells = draw_roofline_cells(num_steps, num_envs)
    rollout = make_arc_roofline_rollout(num_steps)
    return compile_scan("roofline", "-", rollout, grids, cells, num_steps)


FRAMES_ROOFLINE_SCALE = 8  # screen pixels per view cell: an 8x8 view


def make_frames_roofline_rollout(num_steps: int, max_frames: int):
    """The cheapest ARC-AGI-3 step (module docstring) on ``(screens, cells)``, reading
    arrows ``[num_steps, num_envs, 2]``."""
    pixel_cells = jnp.arange(64, dtype=jnp.int32) // FRAMES_ROOFLINE_SCALE
    last = 64 // FRAMES_ROOFLINE_SCALE - 1

    def move(screen, cell, arrow):
        new = jnp.clip(cell + arrow, 0, last)

        def at(c):
            return (pixel_cells[:, None] == c[1]) & (pixel_cells[None, :] == c[0])

        screen = jnp.where(at(cell), jnp.int8(0), screen)
        screen = jnp.where(at(new), jnp.int8(9), screen)
        return screen, new

    def step(state, arrows):
        screens, cells = jax.vmap(move)(state[0], state[1], arrows)
        frames = jnp.broadcast_to(screens[:, None], (screens.shape[0], max_frames, 64, 64))
        return (screens, cells), (frames, cells)

    return make_scan_rollout(step, num_steps)


def frames_roofline(max_frames: int, num_envs: int, num_steps: int) -> Benchmark:
    """The ARC-AGI-3 roofline returning ``max_frames`` frames a step."""
    state = (jnp.zeros((num_envs, 64, 64), jnp.int8), jnp.zeros((num_envs, 2), jnp.int32))
    arrows = np.random.default_rng(1).integers(-1, 2, (num_steps, num_envs, 2), dtype=np.int32)
    rollout = make_frames_roofline_rollout(num_steps, max_frames)
    label = f"{max_frames} frames"
    return compile_scan("roofline", label, rollout, state, jnp.asarray(arrows), num_steps)


Key = TypeVar("Key", bound=Hashable)  # what names a roofline: its batch size, frames...


def measure_beside_rooflines(
    plan: Iterable[tuple[Callable[[], Benchmark], Key | None]],
    roofline: Callable[[Key], Benchmark],
    repeats: int,
) -> list[Row]:
    """The rows of ``plan``: ``(prepare, key)`` pairs, ``prepare()`` compiling one
    benchmark and ``key`` naming its roofline (``roofline(key)``, compiled once), or None
    for a row without one. A row with a roofline is timed in turns with it, ``repeats``
    rounds; each roofline's row (first in the list) is the median of all its rounds."""
    rooflines: dict[Key, tuple[Benchmark, list[float]]] = {}
    rows = []
    for prepare, key in plan:
        benchmark = prepare()
        if key is None:
            rows.append(measure(benchmark, repeats))
            continue
        if key not in rooflines:
            rooflines[key] = (roofline(key), [])
        ceiling, ceiling_seconds = rooflines[key]
        # The fraction divides seconds: both must make the same env-steps.
        same = (benchmark.num_envs, benchmark.num_steps) == (ceiling.num_envs, ceiling.num_steps)
        assert same, f"{benchmark.variant} and its roofline make different env-steps"
        timings = time_in_turns([benchmark.run, ceiling.run], repeats)
        seconds, their_seconds = zip(*timings, strict=True)
        ceiling_seconds += their_seconds
        rows.append(benchmark.row(seconds, roofline_fraction(seconds, their_seconds)))
    return [ceiling.row(seconds) for ceiling, seconds in rooflines.values()] + rows
