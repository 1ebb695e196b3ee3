"""What continual-RL papers report about a forager, step by step and env by env.

``ContinualMetrics(env)`` steps a forage env like the env itself (``reset``, ``step``,
``batch_reset``, ``batch_step``) and adds to ``info``, per env and per step:

========================  ==============================================================
``ewm_reward``            exponentially weighted mean of the reward, bias-corrected
                          (pandas/polars ``ewm(alpha=rate, adjust=True).mean()``)
``ewm_reward_online``     the same average without the correction, started at 0 (what
                          an online ``z <- (1 - rate) z + rate r`` logs)
``current_biome_mean``    the mean reward of the food in the agent's region
``max_biome_mean``        the best region's mean
``biome_regret``          ``max_biome_mean - current_biome_mean`` (>= 0)
``biome_rank``            the rank of the agent's region by mean (1 = the best)
``ewm_biome_regret``      the bias-corrected EWM of ``biome_regret``
``biome_steps``           steps spent in each biome so far (``num_biomes + 1``; the last
                          counts steps outside every biome)
``collections``           collections so far per object id (entry 0: steps that
                          collected nothing)
========================  ==============================================================

The regions and means are Foragax's (``docs/forage.md``, "Continual-RL metrics"): the
food biomes in order and the rest of the world last; a region's mean is the mean reward,
at the step's reward clock and before the step's collection, of the visible non-wall
objects in it (0 for a region with none); the agent's region is where its move took it.
Ties rank the lower region first.

Everything is arrays in :class:`Tracked` (the env state and its :class:`Metrics`), so it
runs under ``jit``, ``vmap`` and ``lax.scan``, and ``save_state``/``load_state`` with
the env checkpoint it whole.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.envs.forage import checks
from gridax.envs.forage import env as functional
from gridax.envs.forage.config import ForageConfig
from gridax.envs.forage.diagnostics import standing
from gridax.envs.forage.interface import ForageEnv
from gridax.envs.forage.reward import region_means
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import Metrics, Tracked
from gridax.validation import require_type


def initial_metrics(config: ForageConfig, batch_shape: tuple[int, ...] = ()) -> Metrics:
    """Zeros: the metrics of a world before its first step."""
    structure = config.structure()
    zeros = jnp.zeros(batch_shape)
    return Metrics(
        ewm_reward=zeros,
        ewm_regret=zeros,
        ewm_weight=zeros,
        biome_steps=jnp.zeros((*batch_shape, structure.num_biomes + 1)),
        collections=jnp.zeros((*batch_shape, structure.num_objects + 1)),
    )


def update(metrics: Metrics, before, after, reward, info, structure: Structure, rate: float):
    """One env's metrics after a step from ``before`` to ``after`` that paid ``reward``
    with ``info``; returns them and the step's figures (module docstring)."""
    # Foragax's timing: the means before the step's collection, the region after the move.
    means = region_means(before, before.clock, structure)
    region = before.params.region_map[after.position[0], after.position[1]].astype(jnp.int32)
    place = standing(means, region)
    decay = jnp.float32(1.0 - rate)
    weight = decay * metrics.ewm_weight + rate
    ewm_reward = decay * metrics.ewm_reward + rate * reward
    ewm_regret = decay * metrics.ewm_regret + rate * place["biome_regret"]
    biome = jnp.where(info["biome"] < 0, structure.num_biomes, info["biome"])
    metrics = Metrics(
        ewm_reward=ewm_reward,
        ewm_regret=ewm_regret,
        ewm_weight=weight,
        biome_steps=metrics.biome_steps.at[biome].add(1),
        collections=metrics.collections.at[jnp.maximum(info["collected"], 0)].add(1),
    )
    figures = {
        "ewm_reward": ewm_reward / weight,
        "ewm_reward_online": ewm_reward,
        **place,
        "ewm_biome_regret": ewm_regret / weight,
        "biome_steps": metrics.biome_steps,
        "collections": metrics.collections,
    }
    return metrics, figures


def _step(tracked: Tracked, action, structure: Structure, rate: float):
    state, obs, reward, done, info = functional._step(tracked.state, action, structure)
    metrics, figures = update(tracked.metrics, tracked.state, state, reward, info, structure, rate)
    return Tracked(state, metrics), obs, reward, done, {**info, **figures}


_step_jit = eqx.filter_jit(_step)
_batch_step_jit = eqx.filter_jit(jax.vmap(_step, in_axes=(0, 0, None, None)))


class ContinualMetrics(eqx.Module):
    """A forage env whose steps also report the continual-RL metrics (module docstring);
    ``rate`` is the EWMs' weight of the newest step (Foragax's agents log 1e-3)."""

    env: ForageEnv
    rate: float = eqx.field(static=True, default=1e-3)

    def __check_init__(self):
        require_type("ContinualMetrics' env", self.env, ForageEnv, "a forage env (gridax.make)")
        if not 0.0 < self.rate <= 1.0:
            raise ValueError(f"ContinualMetrics' rate must be in (0, 1], got {self.rate}")

    def reset(self, key, params=None) -> tuple[Tracked, object]:
        state, obs = self.env.reset(key, params)
        return Tracked(state, initial_metrics(self.env.config)), obs

    def batch_reset(self, keys, params=None) -> tuple[Tracked, object]:
        states, obs = self.env.batch_reset(keys, params)
        return Tracked(states, initial_metrics(self.env.config, states.time.shape)), obs

    def step(self, tracked: Tracked, action):
        compiled = functional._compiled(self.env.config)
        action = checks.step_action(tracked.state, action, compiled.state_layout(), False)
        return _step_jit(tracked, action, compiled.structure, self.rate)

    def batch_step(self, tracked: Tracked, actions):
        compiled = functional._compiled(self.env.config)
        actions = checks.step_action(tracked.state, actions, compiled.state_layout(), True)
        return _batch_step_jit(tracked, actions, compiled.structure, self.rate)
