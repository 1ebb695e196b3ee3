"""gridax envs behind Stoa's ``Environment`` (extra ``stoa``), what Stoix trains on.

``StoaEnv("ForagaxTwoBiome-v1")`` has ``reset(rng_key, env_params=None) -> (state,
timestep)`` and ``step(state, action, env_params=None) -> (state, timestep)``, pure and
jittable, and Stoa's spaces (``observation_space``, ``action_space``, ``state_space``,
``environment_space``). ``env_params`` are gridax's params (the ARC task bank, the forage
variant arrays); None means the env's ``default_params``. Stoa's wrappers
(``AutoResetWrapper``, ``VmapWrapper``, ``RecordEpisodeMetrics``) work on top: the
state is Stoa's ``AdapterStateWithKey`` around gridax's state, whose ``rng_key`` they
read.

TimeSteps: ``FIRST`` from ``reset``; ``TERMINATED`` (discount 0) when the episode ends
inside the MDP (ARC: submitted), ``TRUNCATED`` (discount 1) when the time limit cuts it,
``MID`` otherwise. ``extras`` is the step's ``info`` (zeros of its shape from ``reset``,
so that both return one structure, as ``lax.scan`` carries need).

Structured observations and actions are dicts of their fields, as Stoa's ``DictSpace``
describes them (an ARC observation ``{"working_grid": ..., ...}``, a point action
``{"operation": 3, "row": 0, "col": 1}``); gridax's own action classes are accepted too.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from stoa import spaces as stoa_spaces
from stoa.env_adapters.base import AdapterStateWithKey
from stoa.env_types import StepType, TimeStep
from stoa.environment import Environment

from gridax import spaces
from gridax.interface import Env, zero_info
from gridax.registry import as_env


def to_stoa_space(space: spaces.Space, name: str = "") -> stoa_spaces.Space:
    """The Stoa space of a gridax space (a ``Dict`` becomes a ``DictSpace``)."""
    if isinstance(space, spaces.Discrete):
        return stoa_spaces.DiscreteSpace(space.n, dtype=space.dtype, name=name)
    if isinstance(space, spaces.Box):
        if space.dtype == jnp.bool_:
            return stoa_spaces.BoundedArraySpace(space.shape, bool, False, True, name=name)
        return stoa_spaces.BoundedArraySpace(space.shape, space.dtype, space.low, space.high, name)
    if isinstance(space, spaces.Dict):
        children = {k: to_stoa_space(v, k) for k, v in space.spaces.items()}
        return stoa_spaces.DictSpace(children, name=name)
    raise TypeError(f"no Stoa space for {space!r}")


class StoaEnv(Environment):
    """A gridax env as a Stoa ``Environment`` (module docstring). ``env`` is a registered
    id (with config ``overrides``) or a built env."""

    def __init__(self, env: Env | str, **overrides):
        self.env = as_env(env, **overrides)
        # Read once here: an ARC env's spaces read its task bank, which must not happen
        # while a step is being traced.
        self._observation_space = self.env.observation_space
        self._action_space = self.env.action_space
        self._zero_info = zero_info(self.env)  # reset's extras

    def __repr__(self) -> str:
        return f"StoaEnv({self.env!r})"

    def _params(self, env_params):
        return self.env.default_params if env_params is None else env_params

    def _observation(self, obs):
        return spaces.as_dicts(self._observation_space, obs)

    def reset(self, rng_key, env_params=None) -> tuple[AdapterStateWithKey, TimeStep]:
        env_key, wrapper_key = jax.random.split(rng_key)
        state, obs = self.env.reset(env_key, self._params(env_params))
        timestep = TimeStep(
            step_type=StepType.FIRST,
            reward=jnp.zeros((), jnp.float32),
            discount=jnp.ones((), jnp.float32),
            observation=self._observation(obs),
            extras=self._zero_info,
        )
        return AdapterStateWithKey(base_env_state=state, rng_key=wrapper_key), timestep

    def step(self, state: AdapterStateWithKey, action, env_params=None):
        action = spaces.as_structured(self._action_space, action)
        env_state, obs, reward, _, info = self.env.step(state.base_env_state, action)
        terminated = self.env.terminated(env_state)
        truncated = self.env.truncated(env_state)
        step_type = jnp.where(
            terminated, StepType.TERMINATED, jnp.where(truncated, StepType.TRUNCATED, StepType.MID)
        )
        timestep = TimeStep(
            step_type=step_type,
            reward=reward,
            discount=jnp.where(terminated, 0.0, 1.0).astype(jnp.float32),
            observation=self._observation(obs),
            extras=info,
        )
        return state.replace(base_env_state=env_state), timestep

    def observation_space(self, env_params=None) -> stoa_spaces.Space:
        return to_stoa_space(self._observation_space, "observation")

    def action_space(self, env_params=None) -> stoa_spaces.Space:
        return to_stoa_space(self._action_space, "action")

    def state_space(self, env_params=None) -> stoa_spaces.Space:
        raise NotImplementedError(
            f"{self.env.env_id}: gridax states have no Stoa space; use observation_space"
        )

    def render(self, state: AdapterStateWithKey, env_params=None):
        return self.env.render(state.base_env_state)
