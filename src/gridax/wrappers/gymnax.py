"""gridax envs behind gymnax's ``Environment`` interface (extra ``gymnax``).

``GymnaxEnv(gridax.make(env_id))`` is a gymnax 1.x environment: ``reset(key, params)``
returns ``(obs, state)`` and ``step(key, state, action, params)`` returns ``(obs, state,
reward, terminated, truncated, info)``, resetting finished episodes inside ``step`` and
keeping the last observation in ``info["final_observation"]``. gymnax's wrappers
(``LogWrapper``, ``FlattenObservationWrapper``, ...) work on top. With
``legacy_step=True``, ``step`` returns gymnax 0.x's ``(obs, state, reward, done, info)``
instead, the form PureJaxRL-style code unpacks.

``params`` is the env's ``default_params`` (ARC task bank, forage variant arrays).

ARC actions come in two forms. Flat (the default for point actions): one
``Discrete(35 * 30 * 30)`` integer ``a`` meaning operation ``a // 900``, row
``(a // 30) % 30`` and column ``a % 30``, for categorical policies. Structured
(``flat_actions=False``; the only form for bbox and mask actions, whose flat spaces
would be far too large): a ``PointAction``/``BboxAction``/``MaskAction``, or a dict of
its fields as gymnax's ``Dict`` space samples it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import jax
import jax.numpy as jnp
from gymnax.environments import environment
from gymnax.environments import spaces as gymnax_spaces

from gridax import spaces
from gridax.actions.selection import ACTION_TYPES, PointAction
from gridax.envs.arc.operations import NUM_OPERATIONS
from gridax.grid import GRID_SHAPE
from gridax.registry import ArcEnv, Env

FLAT_POINT_ACTIONS = NUM_OPERATIONS * GRID_SHAPE[0] * GRID_SHAPE[1]


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


def flat_to_point_action(action) -> PointAction:
    """A flat ARC action index (module docstring) as a :class:`PointAction`."""
    action = jnp.asarray(action, jnp.int32)
    height, width = GRID_SHAPE
    return PointAction(action // (height * width), (action // width) % height, action % width)


class GymnaxEnv(environment.Environment):
    """A gridax env as a gymnax environment (module docstring)."""

    def __init__(self, env: Env, legacy_step: bool = False, flat_actions: bool | None = None):
        if not isinstance(env, Env):
            raise TypeError(f"GymnaxEnv wraps a gridax.make env, got {type(env).__name__}")
        point = isinstance(env, ArcEnv) and env.config.selection_format == "point"
        if flat_actions and not point:
            raise ValueError(
                "flat_actions=True needs an ARC env with selection_format='point' (a flat "
                f"bbox or mask space would be enormous); {env.env_id} takes "
                + (f"{env.config.selection_format} actions" if isinstance(env, ArcEnv) else "ints")
            )
        self.env = env
        self.legacy_step = legacy_step
        self.flat_actions = point if flat_actions is None else flat_actions

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
        if self.flat_actions:
            return gymnax_spaces.Discrete(FLAT_POINT_ACTIONS)
        return to_gymnax_space(self.env.action_space)

    def observation_space(self, params=None):
        return to_gymnax_space(self.env.observation_space)

    def _action(self, action):
        if self.flat_actions:
            return flat_to_point_action(action)
        if isinstance(action, Mapping):  # a sample of the gymnax Dict space
            return ACTION_TYPES[self.env.config.selection_format](**action)
        return action

    def reset_env(self, key, params):
        state, obs = self.env.reset(key, params)
        return obs, state

    def step_env(self, key, state, action, params):
        state, obs, reward, _, info = self.env.step(state, self._action(action))
        return obs, state, reward, self.is_terminated(state, params), info

    def is_terminated(self, state, params) -> jax.Array:
        if isinstance(self.env, ArcEnv):
            return state.terminated  # submitted
        return jnp.bool_(False)  # forage worlds never terminate

    def is_truncated(self, state, params) -> jax.Array:
        if isinstance(self.env, ArcEnv):
            return (state.step_count >= self.env.config.max_episode_steps) & ~state.terminated
        length = self.env.config.episode_length
        return jnp.bool_(False) if length is None else state.time >= length

    @partial(jax.jit, static_argnames=("self",))
    def step(self, key, state, action, params=None):
        obs, state, reward, terminated, truncated, info = super().step(key, state, action, params)
        if not self.legacy_step:
            return obs, state, reward, terminated, truncated, info
        info = {**info, "discount": 1.0 - terminated.astype(jnp.float32)}
        return obs, state, reward, terminated | truncated, info
