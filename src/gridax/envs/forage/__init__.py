"""A foraging gridworld family for continual RL, with Foragax's ids (see docs/forage.md).

Public submodules: ``render`` (pictures).
"""

from gridax.envs.forage import render
from gridax.envs.forage.config import ForageConfig
from gridax.envs.forage.diagnostics import diagnostics
from gridax.envs.forage.env import batch_reset, batch_step, observe, reset, step
from gridax.envs.forage.interface import ForageEnv, make_env
from gridax.envs.forage.metrics import ContinualMetrics, initial_metrics
from gridax.envs.forage.movement import DOWN, LEFT, NUM_ACTIONS, RIGHT, UP
from gridax.envs.forage.objects import Biome, ObjectType
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.temperatures import Series, synthetic_temperatures
from gridax.envs.forage.types import ForageState, Metrics, Tracked, invariant_violations
from gridax.envs.forage.variants import make_config, registered_ids

__all__ = [
    "DOWN",
    "LEFT",
    "NUM_ACTIONS",
    "RIGHT",
    "UP",
    "Biome",
    "ContinualMetrics",
    "ForageConfig",
    "ForageEnv",
    "ForageParams",
    "ForageState",
    "Metrics",
    "ObjectType",
    "Series",
    "Tracked",
    "batch_reset",
    "batch_step",
    "diagnostics",
    "initial_metrics",
    "invariant_violations",
    "make_config",
    "make_env",
    "observe",
    "registered_ids",
    "render",
    "reset",
    "step",
    "synthetic_temperatures",
]
