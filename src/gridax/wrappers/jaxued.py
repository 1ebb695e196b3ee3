"""gridax envs with levels as jaxued ``UnderspecifiedEnv``s (extra ``ued``), for
unsupervised environment design: domain randomisation, prioritised level replay (PLR),
ACCEL and PAIRED as jaxued writes them.

jaxued's algorithms need three things of an env, all jittable and vmappable:

- ``reset_to_level(rng, level, params) -> (obs, state)`` and ``step(rng, state, action,
  params) -> (obs, state, reward, done, info)``: :class:`JaxuedEnv`, over the env's own
  :meth:`gridax.Env.reset_to_level` and ``step``;
- a level generator ``rng -> level``: :meth:`JaxuedEnv.sample_level` (the level ``reset``
  would play from the key: an ARC task of the env's bank or generator, an ARC-AGI-3
  game's start level);
- for ACCEL, a mutator ``(rng, level, num_edits) -> level``: :meth:`JaxuedEnv.mutate_level`
  (ARC: the task under a symmetry of the square and a colour permutation; ARC-AGI-3: a
  neighbouring level).

Actions are gymnax's, as :class:`~gridax.wrappers.GymnaxEnv` takes them: one integer for
ARC point actions, the move for forage, ``Action`` fields for ARC-AGI-3. jaxued's
``step`` does not reset a finished episode (its ``AutoReplayWrapper`` does, to the same
level). Levels are gridax values (``ArcLevel``, an int32 level of a game), so jaxued's
``LevelSampler`` keeps them in its buffer as they are.

jaxued 0.0.1 calls ``jax.tree_map``, which JAX removed in 0.6; importing this module
puts the alias back (as ``jax.tree.map``) if it is missing, so that jaxued runs
unchanged.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jaxued.environments import (  # pyright: ignore[reportMissingImports]
    UnderspecifiedEnv,  # (the extra ued: `pip install 'gridax[ued]'`)
)

from gridax.interface import Env
from gridax.registry import as_env
from gridax.wrappers.gymnax import GymnaxEnv

if not hasattr(jax, "tree_map"):  # jaxued 0.0.1 needs it (module docstring)
    jax.tree_map = jax.tree.map  # pyright: ignore[reportAttributeAccessIssue]


class JaxuedEnv(UnderspecifiedEnv):
    """A gridax env with levels (``env.has_levels``) as a jaxued ``UnderspecifiedEnv``
    (module docstring). ``env`` is a registered id (with config ``overrides``) or a built
    env."""

    def __init__(self, env: Env | str, flat_actions: bool | None = None, **overrides):
        self.env = as_env(env, **overrides)
        if not self.env.has_levels:
            raise ValueError(
                f"{self.env.env_id} has no levels: jaxued needs reset_to_level (ARC and "
                "ARC-AGI-3 envs have them)"
            )
        self.gymnax = GymnaxEnv(self.env, flat_actions=flat_actions)

    def __hash__(self) -> int:  # jaxued jits its methods with the env static
        return hash((JaxuedEnv, self.env, self.gymnax.flat_actions))

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, JaxuedEnv)
            and other.env == self.env
            and other.gymnax.flat_actions == self.gymnax.flat_actions
        )

    @property
    def default_params(self) -> Any:
        return self.env.default_params

    def action_space(self, params=None):
        return self.gymnax.action_space(params)

    def observation_space(self, params=None):
        return self.gymnax.observation_space(params)

    def reset_env_to_level(self, rng, level, params):
        state, obs = self.env.reset_to_level(rng, level, params)
        return obs, state

    def step_env(self, rng, state, action, params):
        state, obs, reward, done, info = self.env.step(state, self.gymnax.gridax_action(action))
        return obs, state, reward, done, info

    def sample_level(self, rng, params=None) -> Any:
        """A level from ``rng``: jaxued's level generator."""
        return self.env.sample_level(rng, self._params(params))

    def mutate_level(self, rng, level, num_edits: int = 1, params=None) -> Any:
        """``num_edits`` random edits of ``level``: jaxued's ACCEL mutator."""
        params = self._params(params)

        def edit(_, carry):
            rng, level = carry
            rng, key = jax.random.split(rng)
            return rng, self.env.mutate_level(key, level, params)

        return jax.lax.fori_loop(0, num_edits, edit, (jnp.asarray(rng), level))[1]

    def _params(self, params):
        return self.default_params if params is None else params
