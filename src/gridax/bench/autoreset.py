"""The cost of automatic resets: ``AutoReset`` strategies against plain ``batch_step``."""

from __future__ import annotations

import dataclasses

import equinox as eqx
import jax

import gridax
from gridax.bench.rollout import make_scan_rollout
from gridax.bench.timing import Benchmark, compile_scan, state_bytes
from gridax.envs import arc
from gridax.wrappers import AutoReset

AUTORESET_MODES = ("none", "always", "any_done", "pool")


def make_autoreset_rollout(env, mode: str, num_steps: int):
    """The scan rollout of ``num_steps`` steps of random point actions (drawn before the
    call by :func:`gridax.envs.arc.draw_actions`), submit included (about one step in 35
    ends an episode), through ``AutoReset(env, mode)``; mode ``"none"`` is plain
    ``batch_step`` without resets, the baseline. The rollout's state is the wrapper's
    state and the task bank resets draw from."""
    wrapper = AutoReset(env, "always" if mode == "none" else mode)

    def step(carry, draws):
        state, bank = carry
        env_states = state.env_state
        actions = arc.actions_from_draws(draws, env_states.working_shape, "point")
        if mode == "none":
            env_states, _, rewards, _, _ = env.batch_step(env_states, actions)
            state = eqx.tree_at(lambda s: s.env_state, state, env_states)
        else:
            state, _, rewards, _, _ = wrapper.step(state, actions, bank)
        return (state, bank), rewards

    return wrapper, make_scan_rollout(step, num_steps)


def autoreset_benchmark(mode: str, num_envs: int, num_steps: int) -> Benchmark:
    env = gridax.make("ArcAgi1-v0")
    wrapper, rollout = make_autoreset_rollout(env, mode, num_steps)
    bank = env.default_params.arrays_only()
    state, _ = wrapper.reset(jax.random.key(0), num_envs, bank)
    draws = arc.draw_actions(jax.random.key(1), (num_steps, num_envs), arc.NUM_OPERATIONS)
    benchmark = compile_scan("autoreset", mode, rollout, (state, bank), draws, num_steps)
    return dataclasses.replace(benchmark, bytes_per_state=state_bytes(state.env_state))
