"""Automatic resets for batches of environments, with three strategies.

``AutoReset(env, strategy)`` steps a batch and starts a new episode in every env whose
episode ended, returning the new episode's first observation and keeping the last
observation of the old one in ``info["final_observation"]``. For ARC a reset samples a
new task (and pair) from the bank.

- ``"always"`` computes a reset for the whole batch on every step and keeps it where an
  env is done (gymnax's way): no branch, a full reset's cost per step.
- ``"any_done"`` computes that batch reset only on steps where some env is done (one
  ``lax.cond`` on the whole batch). Same results as ``"always"``, bit for bit; cheaper
  when episodes end rarely or in step, the same when some env ends nearly every step.
- ``"pool"`` draws new episodes from ``pool_size`` reset states computed up front and
  recomputed every ``refresh_every`` steps; an env that is done takes the next pooled
  state and a fresh PRNG key of its own. The cheapest when resets are expensive and
  frequent; episodes start from at most ``pool_size`` distinct states per refresh.

Resets draw their keys from a per-env key stream kept in :class:`AutoResetState`, so a
run is a function of the key given to ``reset`` and of the actions.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Int32, UInt32

from gridax import prng
from gridax.batching import select_envs
from gridax.interface import Env
from gridax.validation import require_int, require_type

STRATEGIES = ("always", "any_done", "pool")


class AutoResetState(eqx.Module):
    """The batch's env states and the wrapper's own bookkeeping."""

    env_state: Any
    reset_keys: UInt32[Array, "batch 2"]  # each env's stream of reset keys
    pool: Any  # pool_size reset states (a batch); None unless strategy is "pool"
    pool_key: UInt32[Array, "2"]
    cursor: Int32[Array, ""]  # the next pooled state to hand out
    steps: Int32[Array, ""]


class AutoReset(eqx.Module):
    """A batch of ``env`` that starts a new episode wherever one ends (module docstring).

    ``reset(key, num_envs, params=None) -> (state, obs)`` and
    ``step(state, actions, params=None) -> (state, obs, reward, done, info)``; ``params``
    defaults to ``env.default_params`` (pass it explicitly inside jit, see
    :mod:`gridax.interface`).
    """

    env: Env
    strategy: str = eqx.field(static=True, default="always")
    pool_size: int = eqx.field(static=True, default=256)
    refresh_every: int = eqx.field(static=True, default=100)

    def __check_init__(self):
        require_type("AutoReset's env", self.env, Env, "a gridax.Env (gridax.make(...))")
        if self.strategy not in STRATEGIES:
            raise ValueError(
                f"AutoReset strategy must be one of {', '.join(map(repr, STRATEGIES))}; "
                f"got {self.strategy!r}"
            )
        for name in ("pool_size", "refresh_every"):
            require_int(f"AutoReset {name}", getattr(self, name), 1)

    def _params(self, params):
        return self.env.default_params if params is None else params

    def _fill_pool(self, pool_key, params):
        keys = prng.split(pool_key, self.pool_size + 1)
        return keys[0], self.env.batch_reset(keys[1:], params)[0]

    def reset(self, key, num_envs: int, params=None) -> tuple[AutoResetState, Any]:
        require_int("num_envs", num_envs, 1)
        params = self._params(params)
        keys = prng.split(prng.key_data(key), 2 * num_envs + 1)
        states, obs = self.env.batch_reset(keys[:num_envs], params)
        pool_key, pool = keys[-1], None
        if self.strategy == "pool":
            pool_key, pool = self._fill_pool(pool_key, params)
        zero = jnp.zeros((), jnp.int32)
        return AutoResetState(states, keys[num_envs:-1], pool, pool_key, zero, zero), obs

    def step(self, state: AutoResetState, actions, params=None):
        params = self._params(params)
        env_state, final_obs, reward, done, info = self.env.batch_step(state.env_state, actions)
        # Each env's next reset key, and the key after it; used only where done.
        pairs = jax.vmap(lambda k: prng.split(k, 2))(state.reset_keys)
        fresh, later = pairs[:, 0], pairs[:, 1]
        pool_key, pool, cursor = state.pool_key, state.pool, state.cursor

        def restart(env_state, cursor):
            if self.strategy == "pool":
                new_state, cursor = self._from_pool(pool, cursor, done, fresh)
            else:
                new_state, _ = self.env.batch_reset(fresh, params)
            return select_envs(done, new_state, env_state), cursor

        if self.strategy == "always":
            env_state, cursor = restart(env_state, cursor)
        else:
            env_state, cursor = jax.lax.cond(
                jnp.any(done), restart, lambda *a: a, env_state, cursor
            )
        steps = state.steps + 1
        if self.strategy == "pool":
            pool_key, pool = jax.lax.cond(
                steps % self.refresh_every == 0,
                lambda key, pool: self._fill_pool(key, params),
                lambda key, pool: (key, pool),
                pool_key,
                pool,
            )
        reset_keys = select_envs(done, later, state.reset_keys)
        next_state = AutoResetState(env_state, reset_keys, pool, pool_key, cursor, steps)
        # Observed from the selected states: one select per state leaf, none for the
        # observation (an ARC observation is the state's own arrays).
        obs = self.env.observe(env_state)
        return next_state, obs, reward, done, {**info, "final_observation": final_obs}

    def _from_pool(self, pool, cursor, done, keys):
        """The next pooled states in turn for the envs that are done, each with a fresh
        key, and the cursor moved past them."""
        order = jnp.cumsum(done, dtype=jnp.int32) - 1
        index = (cursor + order) % self.pool_size
        states = jax.tree.map(lambda leaf: leaf[index], pool)
        states = eqx.tree_at(lambda s: s.key, states, keys)
        return states, (cursor + jnp.sum(done, dtype=jnp.int32)) % self.pool_size
