"""When an ARC episode ends: terminated by a submit, truncated at the step limit.

``step`` computes ``done`` from :func:`episode_ends` and ``ArcEnv.terminated``/
``truncated`` return its parts, so the two never disagree.
"""

from __future__ import annotations

from typing import NamedTuple

from jaxtyping import Array, Bool

from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.types import ArcState


class Ends(NamedTuple):
    terminated: Bool[Array, "*batch"]  # submitted
    truncated: Bool[Array, "*batch"]  # reached max_episode_steps without a submit

    @property
    def done(self) -> Bool[Array, "*batch"]:
        return self.terminated | self.truncated


def episode_ends(state: ArcState, config: ArcConfig) -> Ends:
    """Whether the episode of ``state`` (or of each state of a batch) has ended, and how."""
    truncated = (state.step_count >= config.max_episode_steps) & ~state.terminated
    return Ends(state.terminated, truncated)
