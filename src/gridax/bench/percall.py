"""The cost of one call from Python: ``reset``, ``step``, ``batch_reset`` and
``batch_step`` as a user who drives envs from a Python loop (an LLM agent, a notebook)
calls them, beside a plain ``jax.jit`` of the same call and the dispatch floor.

* gridax: the public function, argument checks included;
* jit: ``jax.jit`` of the same call (config closed over), as a user would wrap it: the
  checks then run at trace time only, and the call gets arrays only;
* floor: a jitted function of the same arguments that returns one of them: what JAX
  charges on this machine to get any arguments into and out of a compiled call.

Steps go on from the state they made, through a cycle of random actions drawn before
the timing; resets repeat one key.

The three are timed in turns (rounds of calls, median of the rounds), so that a noisy
machine moves them together.
"""

from __future__ import annotations

import dataclasses
import itertools
import statistics
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

from gridax.bench import arc as arc_bench
from gridax.bench import forage as forage_bench
from gridax.bench.timing import time_in_turns, unstack
from gridax.envs import arc, forage


@dataclasses.dataclass
class CallTime:
    """Microseconds per call of one function, three ways (module docstring)."""

    env: str
    function: str
    num_envs: int
    gridax_us: float
    jit_us: float
    floor_us: float
    arcle_us: float | None = None  # ARCLE stepping the same number of envs (--compare)


def _in_a_row(call: Callable[[], object], count: int) -> Callable[[], object]:
    """``count`` calls one after another, as a Python loop makes them."""

    def run():
        for _ in range(count):
            out = call()
        return out

    return run


def time_calls(
    variants: Sequence[Callable[[], object]], rounds: int = 7, budget: float = 0.05
) -> list[float]:
    """Median seconds per call of each variant, timed in turns; each round makes as many
    calls as fit in about ``budget`` seconds."""
    for call in variants:
        jax.block_until_ready(call())  # compile
    [[probe]] = time_in_turns([_in_a_row(variants[0], 3)], rounds=1)
    count = max(3, int(budget / max(probe / 3, 1e-6)))
    timings = time_in_turns([_in_a_row(call, count) for call in variants], rounds)
    return [statistics.median(column) / count for column in zip(*timings, strict=True)]


# Step calls cycle through this many actions drawn before the timing.
NUM_ACTIONS = 64


def _floor(*args):
    return jax.tree.leaves(args)[0]


def stepping(step: Callable, state, actions: Sequence) -> Callable[[], object]:
    """A call that steps ``state`` with the next of ``actions`` (in a cycle) and keeps
    the new state, as a Python loop does."""
    current, upcoming = [state], itertools.cycle(actions)

    def call():
        current[0] = step(current[0], next(upcoming))[0]
        return current[0]

    return call


def measure(
    env: str, function: str, num_envs: int, ours, plain, floor, rounds: int = 7
) -> CallTime:
    """Times three zero-argument calls: gridax's, a plain jit's and the floor's."""
    seconds = time_calls([ours, plain, floor], rounds)
    name = function if num_envs == 1 else f"batch_{function}"
    return CallTime(env, name, num_envs, *(s * 1e6 for s in seconds))


def _pair(env: str, num_envs: int, reset, key, step, states, actions, rounds) -> list[CallTime]:
    """``reset(key)`` and ``step(state, action)`` (config bound), each three ways."""
    floor = jax.jit(_floor)
    jitted_reset, jitted_step = jax.jit(reset), jax.jit(step)
    return [
        measure(
            env,
            "reset",
            num_envs,
            lambda: reset(key),
            lambda: jitted_reset(key),
            lambda: floor(key),
            rounds,
        ),
        measure(
            env,
            "step",
            num_envs,
            stepping(step, states, actions),
            stepping(jitted_step, states, actions),
            lambda: floor(states, actions[0]),
            rounds,
        ),
    ]


def measure_arc(tasks, fmt: str, num_envs: int, rounds: int = 7) -> list[CallTime]:
    """``reset`` and ``step`` (or their batch forms) on ``tasks``, cycling through random
    ``fmt`` actions (:func:`gridax.envs.arc.actions_from_draws` on the reset's grids)."""
    config = arc.ArcConfig(selection_format=fmt)
    tasks = tasks.arrays_only()  # a bank with its ids cannot be an argument of a plain jit
    if num_envs == 1:
        key, reset, step = jax.random.key(0), arc.reset, arc.step
    else:
        key = jax.random.split(jax.random.key(0), num_envs)
        reset, step = arc.batch_reset, arc.batch_step
    states, _ = reset(key, config, tasks)
    draws = arc_bench.draw_rollout_actions(NUM_ACTIONS, num_envs)
    shapes = jnp.broadcast_to(states.working_shape.reshape(-1, 2), (NUM_ACTIONS, num_envs, 2))
    actions = arc.actions_from_draws(draws, shapes, fmt)
    if num_envs == 1:
        actions = jax.tree.map(lambda x: x[:, 0], actions)
    return _pair(
        f"arc {fmt}",
        num_envs,
        lambda k: reset(k, config, tasks),
        key,
        lambda s, a: step(s, a, config),
        states,
        unstack(actions, NUM_ACTIONS),
        rounds,
    )


def measure_forage(env_id: str, num_envs: int, rounds: int = 7) -> list[CallTime]:
    """``reset`` and ``step`` (or their batch forms) of a forage world, random moves."""
    config = forage.make_config(env_id)
    moves = forage_bench.draw_moves(NUM_ACTIONS, num_envs)
    if num_envs == 1:
        key, reset, step = jax.random.key(0), forage.reset, forage.step
        moves = moves[:, 0]
    else:
        key = jax.random.split(jax.random.key(0), num_envs)
        reset, step = forage.batch_reset, forage.batch_step
    states, _ = reset(key, config)
    return _pair(
        env_id.removeprefix("Foragax"),
        num_envs,
        lambda k: reset(k, config),
        key,
        lambda s, a: step(s, a, config),
        states,
        list(moves),
        rounds,
    )
