"""``ForageEnv``: the forage family behind :class:`gridax.Env` (ids in ``variants.py``)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax

from gridax import spaces
from gridax.envs.forage import env as functional
from gridax.envs.forage import render
from gridax.envs.forage.config import ForageConfig
from gridax.envs.forage.movement import NUM_ACTIONS
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.types import ForageState, Tracked, invariant_violations
from gridax.envs.forage.variants import make_config
from gridax.interface import Env
from gridax.validation import require_type


class ForageEnv(Env):
    """A forage env: actions are ints 0-3 (DOWN, RIGHT, UP, LEFT)."""

    env_id: str = eqx.field(static=True)
    config: ForageConfig

    kind: ClassVar[str] = "forage"

    @property
    def default_params(self) -> ForageParams:
        return self.config.params()

    def reset(self, key, params=None):
        return functional.reset(key, self.config, params)

    def step(self, state, action):
        return functional.step(state, action, self.config)

    def batch_reset(self, keys, params=None):
        return functional.batch_reset(keys, self.config, params)

    def batch_step(self, states, actions):
        return functional.batch_step(states, actions, self.config)

    def observe(self, state):
        return functional.observe(state, self.config)

    def terminated(self, state):
        return functional.termination(state, self.config.episode_length)[0]

    def truncated(self, state):
        return functional.termination(state, self.config.episode_length)[1]

    def episode_metrics(self, info, length):
        return {}

    def invariant_violations(self, states):
        return invariant_violations(states, self.config)

    def render(self, state, **options):
        return render.render(state, self.config, **options)

    def checkpoint_filter(self, state):
        # A state, or one with its continual-RL metrics (``ContinualMetrics``): all kept,
        # since the params travel in the state.
        require_type("state", state, (ForageState, Tracked), "a ForageState or a Tracked")
        return jax.tree.map(lambda _: True, state)

    def restore_task_data(self, state, params=None):
        return state

    def params_identity(self, params=None) -> dict:
        return {}

    @property
    def observation_space(self) -> spaces.Space:
        # Every forage observation is a one-hot or a colour in [0, 1].
        _, obs = jax.eval_shape(self.reset, jax.random.key(0))
        boxes = jax.tree.map(lambda x: spaces.Box(0.0, 1.0, x.shape, x.dtype), obs)
        return spaces.Dict(boxes) if isinstance(boxes, dict) else boxes

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(NUM_ACTIONS)


def make_env(env_id: str, **overrides) -> ForageEnv:
    """The forage env registered as ``env_id``, with :class:`ForageConfig` fields
    overridden."""
    return ForageEnv(env_id, make_config(env_id, **overrides))
