"""gridax envs behind Jumanji's ``Environment`` (extra ``jumanji``), for Mava and other
codebases built on Jumanji's ``TimeStep``.

``JumanjiEnv("ArcAgi1-v0")`` has ``reset(key) -> (state, timestep)`` and
``step(state, action) -> (state, timestep)``, both pure and jittable, and the specs
(``observation_spec``, ``action_spec``, ``reward_spec``, ``discount_spec``). The state is
gridax's own (its ``key`` field is what Jumanji's ``AutoResetWrapper`` reads), so Jumanji's
wrappers (``AutoResetWrapper``, ``VmapAutoResetWrapper``, ...) work on top.

TimeSteps: ``FIRST`` from ``reset``; ``LAST`` when the episode ends, with discount 0 if it
terminated inside the MDP (ARC: submitted) and 1 if it was cut by the time limit;
``MID`` otherwise. ``extras`` is the step's ``info`` (zeros of its shape from ``reset``,
so that both return one structure, as ``lax.scan`` carries need).

Observations are NamedTuples of the observation's fields (``timestep.observation.
working_grid``), one class per observation space, because Jumanji's nested specs
validate exactly those fields. Actions are gridax's (a ``PointAction`` for ARC, an
``int`` for forage) or any NamedTuple or dict with their fields.
"""

from __future__ import annotations

from collections import namedtuple
from functools import cache, cached_property

import jax
import jax.numpy as jnp
from jumanji import specs
from jumanji.env import Environment
from jumanji.types import StepType, TimeStep

from gridax import spaces
from gridax.interface import Env, zero_info
from gridax.registry import as_env


@cache
def _record(name: str, fields: tuple[str, ...]) -> type:
    """One NamedTuple class per field list, so equal spaces give equal PyTree types."""
    return namedtuple(name, fields)


def _record_type(space: spaces.Dict) -> type:
    name = space.cls.__name__ if space.cls else "Observation"
    return _record(name, tuple(space.spaces))


def to_jumanji_spec(space: spaces.Space, name: str = "") -> specs.Spec:
    """The Jumanji spec of a gridax space; a ``Dict`` describes a NamedTuple of its
    fields (:func:`as_records`)."""
    if isinstance(space, spaces.Discrete):
        return specs.DiscreteArray(space.n, dtype=space.dtype, name=name)
    if isinstance(space, spaces.Box):
        if space.dtype == jnp.bool_:
            return specs.BoundedArray(space.shape, bool, False, True, name=name)
        return specs.BoundedArray(space.shape, space.dtype, space.low, space.high, name=name)
    if isinstance(space, spaces.Dict):
        children = {k: to_jumanji_spec(v, k) for k, v in space.spaces.items()}
        return specs.Spec(_record_type(space), name, **children)
    raise TypeError(f"no Jumanji spec for {space!r}")


def as_records(space: spaces.Space, value):
    """A value of ``space`` as nested NamedTuples of its fields (the form the specs of
    :func:`to_jumanji_spec` validate)."""
    if not isinstance(space, spaces.Dict):
        return value
    fields = {
        name: as_records(sub, spaces.field(value, name)) for name, sub in space.spaces.items()
    }
    return _record_type(space)(**fields)


def _as_action(space: spaces.Space, action):
    """A NamedTuple action (as the spec generates and validates) read by its fields."""
    if isinstance(action, tuple) and hasattr(action, "_asdict"):
        action = getattr(action, "_asdict")()  # noqa: B009 (a NamedTuple, by duck typing)
    return spaces.as_structured(space, action) if isinstance(space, spaces.Dict) else action


class JumanjiEnv(Environment):
    """A gridax env as a Jumanji ``Environment`` (module docstring). ``env`` is a
    registered id (with config ``overrides``) or a built env; ``params`` defaults to the
    env's ``default_params``."""

    def __init__(self, env: Env | str, params=None, **overrides):
        self.env = as_env(env, **overrides)
        self.params = self.env.default_params if params is None else params
        # Read once here: an ARC env's spaces read its task bank, which must not happen
        # while a step is being traced.
        self._observation_space = self.env.observation_space
        self._action_space = self.env.action_space
        self._zero_info = zero_info(self.env)  # reset's extras
        super().__init__()  # builds the specs once

    def __repr__(self) -> str:
        return f"JumanjiEnv({self.env!r})"

    def reset(self, key) -> tuple[object, TimeStep]:
        state, obs = self.env.reset(key, self.params)
        timestep = TimeStep(
            step_type=StepType.FIRST,
            reward=jnp.zeros((), jnp.float32),
            discount=jnp.ones((), jnp.float32),
            observation=as_records(self._observation_space, obs),
            extras=self._zero_info,
        )
        return state, timestep

    def step(self, state, action) -> tuple[object, TimeStep]:
        action = _as_action(self._action_space, action)
        state, obs, reward, done, info = self.env.step(state, action)
        terminated = self.env.terminated(state)
        timestep = TimeStep(
            step_type=jnp.where(done, StepType.LAST, StepType.MID),
            reward=reward,
            discount=jnp.where(terminated, 0.0, 1.0).astype(jnp.float32),
            observation=as_records(self._observation_space, obs),
            extras=info,
        )
        return state, timestep

    @cached_property
    def observation_spec(self) -> specs.Spec:
        return to_jumanji_spec(self._observation_space, "observation")

    @cached_property
    def action_spec(self) -> specs.Spec:
        return to_jumanji_spec(self._action_space, "action")

    @cached_property
    def reward_spec(self) -> specs.Array:
        return specs.Array((), jnp.float32, "reward")

    @cached_property
    def discount_spec(self) -> specs.BoundedArray:
        return specs.BoundedArray((), jnp.float32, 0.0, 1.0, "discount")

    def render(self, state):
        return self.env.render(state)

    def sample_action(self, key: jax.Array):
        """A uniformly random action (Jumanji's own sampler covers only flat specs)."""
        return self._action_space.sample(key)
