"""How well the agent is placed: per-region mean rewards, regret and rank, on demand.

Nothing here runs inside ``step``; ``diagnostics(state, config)`` computes it when asked
from ``reward.reward_map`` and ``reward.region_means`` (which the hint reads too).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32

from gridax.envs.forage.config import ForageConfig
from gridax.envs.forage.reward import region_means, reward_map
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import ForageState


def standing(means: Float32[Array, " R"], region) -> dict:
    """Where region ``region`` stands among the regions' ``means``, under Foragax's names:
    ``current_biome_mean``, ``max_biome_mean``, ``biome_regret`` (best mean minus its
    mean) and ``biome_rank`` (1 = the best; a tie ranks the lower region first)."""
    order = jnp.argsort(-means, stable=True)
    return {
        "current_biome_mean": means[region],
        "max_biome_mean": jnp.max(means),
        "biome_regret": jnp.max(means) - means[region],
        "biome_rank": (1 + jnp.argmax(order == region)).astype(jnp.int32),
    }


def diagnostics(state: ForageState, config: ForageConfig) -> dict:
    """For a state (or a batch): ``reward_map`` (the reward of every visible object at the
    state's clock, 0 for empty cells and walls), ``region_means`` (mean food reward per
    food biome, then the rest of the world), ``region`` (the agent's), ``best_region``,
    ``regret`` (best mean minus the agent's region's) and ``rank`` (1 = the best region).
    """
    return _diagnostics_jit(state, config.structure())


def _diagnostics(state: ForageState, structure: Structure) -> dict:
    if state.time.ndim:
        return jax.vmap(lambda s: _diagnostics(s, structure))(state)
    clock = state.clock
    values, _ = reward_map(state, clock, structure)
    means = region_means(state, clock, structure)
    region = state.params.region_map[state.position[0], state.position[1]].astype(jnp.int32)
    place = standing(means, region)
    return {
        "reward_map": values,
        "region_means": means,
        "region": region,
        "best_region": jnp.argmax(means),
        "regret": place["biome_regret"],
        "rank": place["biome_rank"],
    }


_diagnostics_jit = eqx.filter_jit(_diagnostics)
