"""The cost of one call from Python: ``reset``, ``step``, ``batch_reset`` and
``batch_step`` as a user who drives envs from a Python loop (an LLM agent, a notebook)
calls them, beside a plain ``jax.jit`` of the same call and the dispatch floor.

* gridax: the public function, argument checks included;
* jit: ``jax.jit`` of the same call (config closed over), as a user would wrap it: the
  checks then run at trace time only, and the call gets arrays only;
* floor: a jitted function of the same arguments that returns one of them: what JAX
  charges on this machine to get any arguments into and out of a compiled call.

The three are timed in turns (rounds of calls, median of the rounds), so that a noisy
machine moves them together.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

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


def _seconds_per_call(call: Callable[[], object], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        out = call()
    jax.block_until_ready(out)
    return (time.perf_counter() - started) / calls


def time_calls(
    variants: Sequence[Callable[[], object]], rounds: int = 7, budget: float = 0.05
) -> list[float]:
    """Median seconds per call of each variant, timed in turns; each round makes as many
    calls as fit in about ``budget`` seconds."""
    for call in variants:
        jax.block_until_ready(call())  # compile
    calls = max(3, int(budget / max(_seconds_per_call(variants[0], 3), 1e-6)))
    timings = [[_seconds_per_call(call, calls) for call in variants] for _ in range(rounds)]
    return [sorted(column)[rounds // 2] for column in zip(*timings, strict=True)]


def _floor(*args):
    return jax.tree.leaves(args)[0]


def measure(env: str, function: str, num_envs: int, call, args, rounds: int = 7) -> CallTime:
    """``call(*args)`` beside ``jax.jit(call)(*args)`` and the floor for ``args``."""
    plain, floor = jax.jit(call), jax.jit(_floor)
    variants = [lambda: call(*args), lambda: plain(*args), lambda: floor(*args)]
    seconds = time_calls(variants, rounds)
    name = function if num_envs == 1 else f"batch_{function}"
    return CallTime(env, name, num_envs, *(s * 1e6 for s in seconds))


def measure_arc(tasks, fmt: str, num_envs: int, rounds: int = 7) -> list[CallTime]:
    """``reset`` and ``step`` (or their batch forms) on ``tasks`` with ``fmt`` actions."""
    config = arc.ArcConfig(selection_format=fmt)
    tasks = tasks.arrays_only()  # a bank with its ids cannot be an argument of a plain jit
    if num_envs == 1:
        key, reset, step = jax.random.key(0), arc.reset, arc.step
    else:
        key = jax.random.split(jax.random.key(0), num_envs)
        reset, step = arc.batch_reset, arc.batch_step
    states, _ = reset(key, config, tasks)
    draws = arc.draw_actions(jax.random.key(1), (num_envs,))
    actions = arc.actions_from_draws(draws, states.working_shape.reshape(-1, 2), fmt)
    if num_envs == 1:
        actions = jax.tree.map(lambda x: x[0], actions)
    env = f"arc {fmt}"
    return [
        measure(env, "reset", num_envs, lambda k, t: reset(k, config, t), (key, tasks), rounds),
        measure(env, "step", num_envs, lambda s, a: step(s, a, config), (states, actions), rounds),
    ]


def measure_forage(env_id: str, num_envs: int, rounds: int = 7) -> list[CallTime]:
    """``reset`` and ``step`` (or their batch forms) of a forage world, moving right."""
    config = forage.make_config(env_id)
    if num_envs == 1:
        key, reset, step = jax.random.key(0), forage.reset, forage.step
        actions = jnp.int32(forage.RIGHT)
    else:
        key = jax.random.split(jax.random.key(0), num_envs)
        reset, step = forage.batch_reset, forage.batch_step
        actions = jnp.full(num_envs, forage.RIGHT, jnp.int32)
    states, _ = reset(key, config)
    env = env_id.removeprefix("Foragax")
    return [
        measure(env, "reset", num_envs, lambda k: reset(k, config), (key,), rounds),
        measure(env, "step", num_envs, lambda s, a: step(s, a, config), (states, actions), rounds),
    ]
