"""How a benchmark row is measured: env-steps per second of a compiled rollout.

Every figure is env-steps per second: batch size times steps, divided by the median wall
time of the timed runs after compilation. Compile time is reported separately.
A rollout's random inputs (actions, the roofline's cells) are drawn before the timed
calls, so that a ratio of two rows compares step costs and not random number generation
(jax.random's Threefry is a loop of small kernels on a CPU).

Runs that are compared are timed in turns (:func:`time_in_turns`): each round runs every
one of them once, so a machine that slows down for a while (the first heavy computation
of a process runs slow on the shared CPU) slows all of them in the same rounds.
"""

from __future__ import annotations

import dataclasses
import functools
import statistics
import time
from collections.abc import Callable, Sequence

import jax


@dataclasses.dataclass
class Row:
    """One measured configuration."""

    env: str  # "arc", "forage", "arc3", "roofline", "autoreset", "sharded" or an anchor's name
    # Which configuration of the env: an ARC action format, a forage id, an ARC-AGI-3
    # game, an auto-reset mode, a roofline's or a sharded run's description.
    variant: str
    rollout: str  # "scan" (lax.scan inside one jit) or "loop" (Python loop over batch_step)
    num_envs: int
    num_steps: int
    steps_per_second: float
    compile_seconds: float
    bytes_per_state: int
    roofline_fraction: float | None = None


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """One configuration, compiled and ready to time: each ``run()`` makes ``num_envs``
    times ``num_steps`` env-steps from the same state with the same inputs."""

    env: str
    variant: str
    rollout: str
    num_envs: int
    num_steps: int
    run: Callable[[], object]
    compile_seconds: float
    bytes_per_state: int

    def row(self, seconds: Sequence[float], roofline_fraction: float | None = None) -> Row:
        """The row of timed runs that took ``seconds`` each (their median counts)."""
        steps_per_second = self.num_envs * self.num_steps / statistics.median(seconds)
        return Row(
            self.env,
            self.variant,
            self.rollout,
            self.num_envs,
            self.num_steps,
            steps_per_second,
            self.compile_seconds,
            self.bytes_per_state,
            roofline_fraction,
        )


def state_bytes(states) -> int:
    """Bytes of one env's state: the batch's leaves divided by the batch size."""
    leaves = jax.tree.leaves(states)
    return sum(leaf.nbytes for leaf in leaves) // leaves[0].shape[0]


def time_in_turns(runs: Sequence[Callable[[], object]], rounds: int) -> list[list[float]]:
    """Seconds of each of ``runs``, ``[round][run]``: every round runs each once, in turn."""
    timings = []
    for _ in range(rounds):
        seconds = []
        for run in runs:
            started = time.perf_counter()
            jax.block_until_ready(run())
            seconds.append(time.perf_counter() - started)
        timings.append(seconds)
    return timings


def median_seconds(run: Callable[[int], object], repeats: int) -> float:
    """The median seconds of ``run(0)``, ``run(1)``, ..., ``run(repeats - 1)``."""
    runs = [functools.partial(run, repeat) for repeat in range(repeats)]
    return statistics.median(time_in_turns(runs, rounds=1)[0])


def measure_in_turns(benchmarks: Sequence[Benchmark], repeats: int) -> list[Row]:
    """The rows of ``benchmarks`` timed in turns, ``repeats`` rounds."""
    timings = time_in_turns([benchmark.run for benchmark in benchmarks], repeats)
    columns = zip(*timings, strict=True)
    return [benchmark.row(seconds) for benchmark, seconds in zip(benchmarks, columns, strict=True)]


def measure(benchmark: Benchmark, repeats: int) -> Row:
    """The row of ``benchmark`` timed ``repeats`` times on its own."""
    return measure_in_turns([benchmark], repeats)[0]


def compile_scan(env: str, variant: str, rollout, states, inputs, num_steps: int) -> Benchmark:
    """Compiles ``rollout(states, inputs)``, a scan of ``num_steps`` steps over the batch
    ``states`` (:func:`gridax.bench.rollout.make_scan_rollout`) reading ``inputs``: the
    actions and other random inputs, drawn before the timed calls."""
    jax.block_until_ready(inputs)
    started = time.perf_counter()
    compiled = rollout.lower(states, inputs).compile()
    compile_seconds = time.perf_counter() - started
    num_envs = jax.tree.leaves(states)[0].shape[0]
    return Benchmark(
        env,
        variant,
        "scan",
        num_envs,
        num_steps,
        lambda: compiled(states, inputs),
        compile_seconds,
        state_bytes(states),
    )


def unstack(tree, count: int) -> list:
    """The ``count`` slices of ``tree`` along its leading (step) axis, one per call of a
    Python loop, cut before the timing."""
    return [jax.tree.map(lambda x, i=i: x[i], tree) for i in range(count)]
