"""How a benchmark row is measured: env-steps per second of a compiled rollout.

Every figure is env-steps per second: batch size times steps, divided by the median wall
time of at least three timed runs after compilation. Compile time is reported separately.
A rollout's random inputs (actions, the roofline's cells) are drawn before the timed
calls, so that a ratio of two rows compares step costs and not random number generation
(jax.random's Threefry is a loop of small kernels on a CPU).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import jax


@dataclasses.dataclass
class Row:
    """One measured configuration."""

    env: str  # "arc", "forage", "roofline", "autoreset", "sharded" or an anchor's name
    selection_format: str
    rollout: str  # "scan" (lax.scan inside one jit) or "loop" (Python loop over batch_step)
    num_envs: int
    num_steps: int
    steps_per_second: float
    compile_seconds: float
    bytes_per_state: int
    roofline_fraction: float | None = None


def state_bytes(states) -> int:
    """Bytes of one env's state: the batch's leaves divided by the batch size."""
    leaves = jax.tree.leaves(states)
    return sum(leaf.nbytes for leaf in leaves) // leaves[0].shape[0]


def median_seconds(run: Callable[[int], object], repeats: int) -> float:
    timings = []
    for repeat in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(run(repeat))
        timings.append(time.perf_counter() - started)
    return sorted(timings)[len(timings) // 2]


def scan_row(
    env: str, label: str, rollout, args: tuple, inputs, num_steps: int, repeats: int
) -> Row:
    """Compiles ``rollout(*args, inputs)`` (a jitted scan of ``num_steps`` steps over a
    batch whose state is ``args``, reading ``inputs``: the rollout's actions and other
    random inputs, drawn before the timed calls), times ``repeats`` runs and returns the
    row. Every run starts from the same state with the same inputs."""
    num_envs = jax.tree.leaves(args)[0].shape[0]
    jax.block_until_ready(inputs)
    started = time.perf_counter()
    compiled = rollout.lower(*args, inputs).compile()
    compile_seconds = time.perf_counter() - started
    seconds = median_seconds(lambda _: compiled(*args, inputs), repeats)
    return Row(
        env,
        label,
        "scan",
        num_envs,
        num_steps,
        num_envs * num_steps / seconds,
        compile_seconds,
        state_bytes(args),
    )


def unstack(tree, count: int) -> list:
    """The ``count`` slices of ``tree`` along its leading (step) axis, one per call of a
    Python loop, cut before the timing."""
    return [jax.tree.map(lambda x, i=i: x[i], tree) for i in range(count)]
