"""Episode metrics, as gymnax's ``LogWrapper`` reports them, for batches that auto-reset.

``EpisodeMetrics(AutoReset(env))`` steps like the ``AutoReset`` it wraps and adds to
``info``, per env:

=================================  ===============================================
``returned_episode_returns``       the return of the env's last finished episode
``returned_episode_lengths``       its length in steps
``returned_episode``               whether an episode finished at this step
``timestep``                       steps taken by the batch (a scalar)
``returned_episode_<name>``        the env's own metrics of that episode
                                   (``env.episode_metrics``; ARC: ``solved``,
                                   ``steps_to_solve`` (-1 if not solved),
                                   ``similarity`` of its final grid)
=================================  ===============================================

The ``returned_*`` values hold until the env's next episode finishes, as in PureJaxRL,
whose logging averages ``returned_episode_returns`` where ``returned_episode`` is true.
Everything is arrays in :class:`EpisodeMetricsState`, so it works under ``jit``,
``vmap`` (over seeds) and ``lax.scan``.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32, Int32

from gridax.batching import select_envs
from gridax.interface import Env
from gridax.validation import require_type


class EpisodeMetricsState(eqx.Module):
    """The wrapped state and the running and last finished episodes' figures."""

    inner: Any
    episode_return: Float32[Array, " batch"]
    episode_length: Int32[Array, " batch"]
    returned_return: Float32[Array, " batch"]
    returned_length: Int32[Array, " batch"]
    returned_metrics: dict[str, Array]
    timestep: Int32[Array, ""]


class EpisodeMetrics(eqx.Module):
    """Episode returns, lengths and the env's own episode metrics in ``info`` (module
    docstring). ``inner`` is an :class:`~gridax.wrappers.AutoReset` (anything with its
    ``reset(key, num_envs, params)``, ``step(state, actions, params)`` and ``env``)."""

    inner: Any

    def __check_init__(self):
        require_type(
            "EpisodeMetrics' inner.env", getattr(self.inner, "env", None), Env, "a gridax.Env"
        )

    @property
    def env(self) -> Env:
        return self.inner.env

    def reset(self, key, num_envs: int, params=None) -> tuple[EpisodeMetricsState, Any]:
        inner, obs = self.inner.reset(key, num_envs, params)
        zeros_f, zeros_i = jnp.zeros(num_envs, jnp.float32), jnp.zeros(num_envs, jnp.int32)
        metrics = self._empty_metrics(num_envs)
        state = EpisodeMetricsState(
            inner, zeros_f, zeros_i, zeros_f, zeros_i, metrics, jnp.int32(0)
        )
        return state, obs

    def _empty_metrics(self, num_envs: int) -> dict[str, Array]:
        """Zeros of each metric's dtype: what ``returned_*`` reads before any episode ends."""
        _, _, _, _, info = jax.eval_shape(lambda: self.env.batch_step(*self._sample_step(num_envs)))
        length = jax.ShapeDtypeStruct((num_envs,), jnp.int32)
        shapes = jax.eval_shape(self.env.episode_metrics, info, length)
        return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)

    def _sample_step(self, num_envs: int):
        keys = jax.random.split(jax.random.key(0), num_envs)
        states, _ = self.env.batch_reset(keys)
        actions = jax.vmap(self.env.action_space.sample)(keys)
        return states, actions

    def step(self, state: EpisodeMetricsState, actions, params=None):
        inner, obs, reward, done, info = self.inner.step(state.inner, actions, params)
        episode_return = state.episode_return + reward.astype(jnp.float32)
        episode_length = state.episode_length + 1
        finished = self.env.episode_metrics(info, episode_length)
        finished = jax.tree.map(
            lambda new, old: new.astype(old.dtype), finished, state.returned_metrics
        )
        returned_metrics = select_envs(done, finished, state.returned_metrics)
        next_state = EpisodeMetricsState(
            inner=inner,
            episode_return=jnp.where(done, 0.0, episode_return),
            episode_length=jnp.where(done, 0, episode_length),
            returned_return=jnp.where(done, episode_return, state.returned_return),
            returned_length=jnp.where(done, episode_length, state.returned_length),
            returned_metrics=returned_metrics,
            timestep=state.timestep + 1,
        )
        info = {
            **info,
            "returned_episode_returns": next_state.returned_return,
            "returned_episode_lengths": next_state.returned_length,
            "returned_episode": done,
            "timestep": next_state.timestep,
            **{f"returned_episode_{name}": v for name, v in returned_metrics.items()},
        }
        return next_state, obs, reward, done, info
