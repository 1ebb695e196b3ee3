"""gridax envs behind gymnax's ``Environment`` interface (extra ``gymnax``).

``GymnaxEnv(gridax.make(env_id))`` is a gymnax 1.x environment: ``reset(key, params)``
returns ``(obs, state)`` and ``step(key, state, action, params)`` returns ``(obs, state,
reward, terminated, truncated, info)``, resetting finished episodes inside ``step`` and
keeping the last observation in ``info["final_observation"]``. gymnax's wrappers
(``LogWrapper``, ``FlattenObservationWrapper``, ...) work on top. With
``legacy_step=True``, ``step`` returns gymnax 0.x's ``(obs, state, reward, done, info)``
instead, the form PureJaxRL-style code unpacks.

``params`` is the env's ``default_params`` (ARC task bank, forage variant arrays).

Structured actions (a ``Dict`` space of fields, as ARC's) come in two forms. Flat (the
default when the fields are all ``Discrete`` and hold at most :data:`MAX_FLAT_ACTIONS`
combinations, as ARC point actions do): one ``Discrete`` integer, decoded by
:meth:`gridax.spaces.Dict.unflatten` (for ARC point actions ``a`` means operation
``a // 900``, row ``(a // 30) % 30`` and column ``a % 30``), for categorical policies.
Structured (``flat_actions=False``; the only form for ARC bbox and mask actions, whose
flat spaces would be far too large): the action itself, or a dict of its fields as
gymnax's ``Dict`` space samples it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import jax
import jax.numpy as jnp
from gymnax.environments import environment
from gymnax.environments import spaces as gymnax_spaces

from gridax import spaces
from gridax.interface import Env
from gridax.validation import require_type

MAX_FLAT_ACTIONS = 2**20


def to_gymnax_space(space: spaces.Space):
    """The gymnax space equal to a gridax space."""
    if isinstance(space, spaces.Discrete):
        return gymnax_spaces.Discrete(space.n)
    if isinstance(space, spaces.Box):
        if space.dtype == jnp.bool_:  # bool bounds, so that gymnax compares bool with bool
            return gymnax_spaces.Box(False, True, space.shape, space.dtype)
        return gymnax_spaces.Box(space.low, space.high, space.shape, space.dtype)
    if isinstance(space, spaces.Dict):
        return gymnax_spaces.Dict({k: to_gymnax_space(v) for k, v in space.spaces.items()})
    raise TypeError(f"no gymnax equivalent for {space!r}")


def flat_size(space: spaces.Space) -> int | None:
    """The flat action count of a structured space, if it is small enough to flatten."""
    size = space.flat_size if isinstance(space, spaces.Dict) else None
    return size if size is not None and size <= MAX_FLAT_ACTIONS else None


class GymnaxEnv(environment.Environment):
    """A gridax env as a gymnax environment (module docstring)."""

    def __init__(self, env: Env, legacy_step: bool = False, flat_actions: bool | None = None):
        require_type("GymnaxEnv's env", env, Env, "a gridax.Env (gridax.make(...))")
        flattens = flat_size(env.action_space) is not None
        if flat_actions and not flattens:
            raise ValueError(
                "flat_actions=True needs a Dict action space of Discrete fields with at most "
                f"{MAX_FLAT_ACTIONS:,} combinations (ARC point actions; a flat bbox or mask "
                f"space would be enormous); {env.env_id} takes {env.action_space!r}"
            )
        self.env = env
        self.legacy_step = legacy_step
        self.flat_actions = flattens if flat_actions is None else flat_actions

    @property
    def name(self) -> str:
        return self.env.env_id

    @property
    def default_params(self):
        return self.env.default_params

    @property
    def num_actions(self) -> int:
        space = self.action_space(None)
        if not isinstance(space, gymnax_spaces.Discrete):
            raise AttributeError(f"{self.name} with structured actions has no num_actions")
        return space.n

    def action_space(self, params=None):
        size = flat_size(self.env.action_space)
        if self.flat_actions and size is not None:
            return gymnax_spaces.Discrete(size)
        return to_gymnax_space(self.env.action_space)

    def observation_space(self, params=None):
        return to_gymnax_space(self.env.observation_space)

    def gridax_action(self, action):
        """``action`` as gymnax hands it (a flat integer, a dict of fields or the action
        itself) in the form the gridax env takes."""
        space = self.env.action_space
        if not isinstance(space, spaces.Dict):
            return action
        if self.flat_actions:
            return space.unflatten(action)
        if isinstance(action, Mapping) and space.cls:
            return space.cls(**action)  # a sample of the gymnax Dict space
        return action

    def reset_env(self, key, params):
        state, obs = self.env.reset(key, params)
        return obs, state

    def step_env(self, key, state, action, params):
        state, obs, reward, _, info = self.env.step(state, self.gridax_action(action))
        return obs, state, reward, self.is_terminated(state, params), info

    def is_terminated(self, state, params) -> jax.Array:
        return self.env.terminated(state)

    def is_truncated(self, state, params) -> jax.Array:
        return self.env.truncated(state)

    @partial(jax.jit, static_argnames=("self",))
    def step(self, key, state, action, params=None):
        obs, state, reward, terminated, truncated, info = super().step(key, state, action, params)
        if not self.legacy_step:
            return obs, state, reward, terminated, truncated, info
        info = {**info, "discount": 1.0 - terminated.astype(jnp.float32)}
        return obs, state, reward, terminated | truncated, info
