"""Wrappers over gridax envs: automatic resets, episode metrics, and gymnax's interface
(extra ``gymnax``)."""

from typing import TYPE_CHECKING

from gridax.wrappers.autoreset import STRATEGIES, AutoReset, AutoResetState
from gridax.wrappers.metrics import EpisodeMetrics, EpisodeMetricsState

if TYPE_CHECKING:  # imported on use below: gymnax is an optional extra
    from gridax.wrappers.gymnax import GymnaxEnv

__all__ = [
    "STRATEGIES",
    "AutoReset",
    "AutoResetState",
    "EpisodeMetrics",
    "EpisodeMetricsState",
    "GymnaxEnv",
]


def __getattr__(name: str):
    if name == "GymnaxEnv":  # imported on use: gymnax is an optional extra
        from gridax.wrappers.gymnax import GymnaxEnv

        return GymnaxEnv
    raise AttributeError(f"module 'gridax.wrappers' has no attribute {name!r}")
