"""gridax envs behind Gymnasium's API (extra ``gymnasium``), for PyTorch trainers.

- :class:`GymnasiumVectorEnv` (``gymnasium.vector.VectorEnv``): a batch of envs stepped
  in one jitted ``batch_step``; what CleanRL, TorchRL or PufferLib-style loops hold.
- :class:`GymnasiumEnv` (``gymnasium.Env``): one env, what ARCLE users hold; passes
  ``gymnasium.utils.env_checker.check_env``; ``render_mode="rgb_array"``.

Importing this module registers every gridax id with Gymnasium under the namespace
``gridax/`` (as ``ALE/`` or ``MiniGrid-`` ids are kept apart from others)::

    import gymnasium, gridax.wrappers.gymnasium
    env = gymnasium.make("gridax/ArcAgi1-v0", render_mode="rgb_array")
    envs = gymnasium.make_vec("gridax/ForagaxTwoBiome-v1", num_envs=1024,
                              vectorization_mode="vector_entry_point")

Spaces. Observations and actions are NumPy trees: a structured gridax value (an ARC
observation, a :class:`~gridax.envs.arc.PointAction`) is a ``Dict`` space of its
fields, so an ARC point action is ``{"operation": 3, "row": 0, "col": 1}``; a bbox action
has ``r1, c1, r2, c2``, a mask action a boolean ``selection`` of the whole canvas. (A
``Dict`` by default because it names the fields and covers the mask format too.) An
observation's ``Dict`` is one level deep, a nested field named by its path
(``"context/inputs"``), and a scalar field has shape ``(1,)``: the form Stable-Baselines3's
``MultiInputPolicy`` takes. For
PyTorch trainers, ``flat_actions=True`` makes a structured action one ``MultiDiscrete``
with ``action_masks()`` for masked policies, and ``observations="flat"`` (one
``float32`` vector) or ``"image"`` (ARC-AGI-3's frame as RGB) a ``Box`` observation
(:mod:`gridax.wrappers.gymnasium_spaces`). The vector env's spaces are the single spaces
batched (``Discrete`` fields become ``MultiDiscrete``).

Auto-reset (vector env). ``autoreset_mode`` is one of Gymnasium's three, declared in
``metadata["autoreset_mode"]``:

- ``NEXT_STEP`` (the default, as Gymnasium's own vector envs): the step after an episode
  ends starts a new one, ignores that env's action and returns reward 0 and neither flag.
- ``SAME_STEP``: an env whose episode ends is reset in the same step; the observation is
  the new episode's first; ``info["final_obs"]`` and ``info["final_info"]`` hold the
  last observation and info of the old one, for the envs ``info["_final_obs"]`` marks.
- ``DISABLED``: episodes end and stay ended (gridax's envs are absorbing) until
  ``reset(options={"reset_mask": mask})`` restarts the envs ``mask`` marks.

``info`` follows Gymnasium's vector convention: each key holds one value per env and
``"_" + key`` marks the envs where it is set.

Arrays out are NumPy by default. ``array_type="torch"`` hands JAX's buffers to PyTorch
through DLPack without copying (``torch`` is not a dependency of gridax; install it
yourself); ``"jax"`` returns JAX arrays. Actions may be NumPy, JAX or CPU torch arrays.
Returned arrays share memory with the env's state: treat them as read-only.
"""

from __future__ import annotations

from functools import partial

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from gridax import prng
from gridax.batching import select_envs
from gridax.interface import Env
from gridax.registry import as_env, registered_ids
from gridax.validation import require_int, require_known
from gridax.wrappers.gymnasium_spaces import (  # noqa: F401  (the adapters' spaces, here too)
    FlatActions,
    Forms,
    check_action,
    to_gymnasium_observation_space,
    to_gymnasium_space,
)

NAMESPACE = "gridax"
ARRAY_TYPES = ("numpy", "jax", "torch")
RENDER_MODES = ["rgb_array"]


def _to_array_type(array_type: str):
    if array_type == "numpy":
        return np.asarray
    if array_type == "jax":
        return lambda x: x
    import torch  # pyright: ignore[reportMissingImports]  (optional: array_type="torch")

    return torch.from_dlpack  # zero-copy: the tensor shares the JAX buffer


def _check_render_mode(render_mode):
    if render_mode is not None:
        require_known("render_mode", render_mode, RENDER_MODES)


def _keys(np_random: np.random.Generator, count: int, seed) -> jax.Array:
    """``count`` JAX keys: ``PRNGKey(seed + i)`` for an int seed (the seeds Gymnasium's
    ``SyncVectorEnv`` hands its envs), ``PRNGKey(seed[i])`` for a list, else drawn from
    ``np_random``. Seeds are 32-bit."""
    if seed is None:
        seeds = np_random.integers(2**32, size=count, dtype=np.uint32)
    else:
        seeds = np.asarray(seed, np.int64) + (np.arange(count) if np.ndim(seed) == 0 else 0)
        if seeds.shape != (count,) or np.any((seeds < 0) | (seeds >= 2**32)):
            raise ValueError(f"seed must be an int or {count} ints in 0..2**32 - 1; got {seed!r}")
    return jax.vmap(jax.random.PRNGKey)(jnp.asarray(seeds.astype(np.uint32)))


# The jitted functions take the env as a static argument: gridax envs are hashable and
# equal when built alike, so every adapter of one env shares one compilation (a
# SyncVectorEnv of 1,024 GymnasiumEnv compiles once, not 1,024 times).


@partial(jax.jit, static_argnums=0)
def _reset(env: Env, key, params):
    return env.reset(key, params)


@partial(jax.jit, static_argnums=0)
def _step(env: Env, state, action):
    state, obs, reward, _, info = env.step(state, action)
    return state, obs, reward, env.terminated(state), env.truncated(state), info


# --- one env ---------------------------------------------------------------------------


class GymnasiumEnv(gymnasium.Env):
    """One gridax env as a ``gymnasium.Env`` (module docstring). ``env`` is a registered
    id (with config ``overrides``) or a built env; seeds give JAX keys, so the same seed
    gives the same episode."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(
        self,
        env: Env | str,
        render_mode: str | None = None,
        flat_actions: bool = False,
        observations: str = "native",
        **overrides,
    ):
        self.env = as_env(env, **overrides)
        _check_render_mode(render_mode)
        self.render_mode = render_mode
        self._forms = Forms(self.env, flat_actions, observations)
        self.observation_space = self._forms.gym_obs_space
        self.action_space = self._forms.gym_action_space
        self._params = self.env.default_params
        self._state = None

    def _observation(self, obs):
        return self._forms.observation(obs, np.asarray)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)  # seeds self.np_random, which draws the unseeded keys
        (key,) = _keys(self.np_random, 1, seed)
        self._state, obs = _reset(self.env, key, self._params)
        return self._observation(obs), {}

    def step(self, action):
        if self._state is None:
            raise RuntimeError(f"{self.env.env_id}: call reset() before step()")
        action = self._forms.action(action, ())
        self._state, obs, reward, terminated, truncated, info = _step(self.env, self._state, action)
        info = {k: np.asarray(v) for k, v in info.items()}
        return self._observation(obs), float(reward), bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """Which values of each entry of the flat action the current state allows, one
        bool vector over every entry's values (``MaskablePPO``'s form): ARC-AGI-3's
        available action ids; every action elsewhere."""
        if self._state is None:
            raise RuntimeError(f"{self.env.env_id}: call reset() before action_masks()")
        return self._forms.action_masks(self._state, ())

    def render(self):
        if self.render_mode is None or self._state is None:
            return None
        return np.asarray(self.env.render(self._state))


# --- a batch of envs -------------------------------------------------------------------


@partial(jax.jit, static_argnums=0)
def _reset_batch(env: Env, keys, params):
    return env.batch_reset(keys, params)


@partial(jax.jit, static_argnums=0)
def _restart_where(env: Env, params, states, mask, key):
    """``states`` with a new episode wherever ``mask``, and the next key. The batch reset
    runs only when some env needs it."""

    def restart(states, key):
        keys = prng.split(key, mask.shape[0] + 1)
        fresh, _ = env.batch_reset(keys[1:], params)
        return select_envs(mask, fresh, states), keys[0]

    return jax.lax.cond(jnp.any(mask), restart, lambda s, k: (s, k), states, key)


@partial(jax.jit, static_argnums=(0, 1))
def _vector_step(env: Env, mode: AutoresetMode, params, states, key, pending, actions):
    """One step of the batch in ``mode``; ``pending`` marks the envs whose episode ended
    on the previous step (used by NEXT_STEP). The observation is read from the selected
    states (an ARC observation is the state's own arrays): selecting the reset's
    observations as well cost ARC 16 % (RESULTS.md)."""
    states, last_obs, reward, _, info = env.batch_step(states, actions)
    terminated, truncated = env.terminated(states), env.truncated(states)
    if mode == AutoresetMode.NEXT_STEP:
        states, key = _restart_where(env, params, states, pending, key)
        reward = jnp.where(pending, 0, reward)
        terminated, truncated = terminated & ~pending, truncated & ~pending
    elif mode == AutoresetMode.SAME_STEP:
        info = {**info, "final_obs": last_obs, "final_info": dict(info)}
        states, key = _restart_where(env, params, states, terminated | truncated, key)
    return (
        states,
        key,
        terminated | truncated,
        env.observe(states),
        reward,
        terminated,
        truncated,
        info,
    )


class GymnasiumVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` gridax envs as one ``gymnasium.vector.VectorEnv`` (module docstring),
    stepped by one jitted call per step."""

    def __init__(
        self,
        env: Env | str,
        num_envs: int,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        array_type: str = "numpy",
        render_mode: str | None = None,
        flat_actions: bool = False,
        observations: str = "native",
        **overrides,
    ):
        self.env = as_env(env, **overrides)
        require_int("num_envs", num_envs, 1)
        require_known("array_type", array_type, ARRAY_TYPES)
        modes = [m.value for m in AutoresetMode]
        mode_value = (
            autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
        )
        require_known("autoreset_mode", mode_value, modes)
        _check_render_mode(render_mode)
        self.num_envs = num_envs
        self.autoreset_mode = AutoresetMode(mode_value)
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": RENDER_MODES}
        self.render_mode = render_mode
        self.array_type = array_type
        self._forms = Forms(self.env, flat_actions, observations)
        self.single_observation_space = self._forms.gym_obs_space
        self.single_action_space = self._forms.gym_action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._out = _to_array_type(array_type)
        self._params = self.env.default_params
        self._states = None

    def _observation(self, obs):
        return self._forms.observation(obs, self._out)

    def _vector_info(self, info: dict, marks) -> dict:
        """``info`` in Gymnasium's vector convention: each value beside a ``"_" + key``
        mask of the envs it holds for (``marks``)."""
        out = {}
        for name, value in info.items():
            out[name], out["_" + name] = self._out(value), marks
        return out

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        super().reset(seed=seed if isinstance(seed, int) else None)  # seeds self.np_random
        mask = (options or {}).get("reset_mask")
        if mask is not None and self._states is not None:
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(
                    f"reset_mask must be a bool array of shape ({self.num_envs},); "
                    f"got {mask.dtype} {mask.shape}"
                )
            (self._key,) = _keys(self.np_random, 1, None)  # the stream of auto-reset keys
            self._states, self._key = _restart_where(
                self.env, self._params, self._states, mask, self._key
            )
            obs = self.env.observe(self._states)
        else:
            keys = _keys(self.np_random, self.num_envs, seed)
            self._states, obs = _reset_batch(self.env, keys, self._params)
            (self._key,) = _keys(self.np_random, 1, None)  # the stream of auto-reset keys
        self._pending = jnp.zeros(self.num_envs, bool)
        return self._observation(obs), {}

    def step(self, actions):
        if self._states is None:
            raise RuntimeError(f"{self.env.env_id}: call reset() before step()")
        actions = self._forms.action(actions, (self.num_envs,))
        self._states, self._key, self._pending, obs, reward, terminated, truncated, info = (
            _vector_step(
                self.env,
                self.autoreset_mode,
                self._params,
                self._states,
                self._key,
                self._pending,
                actions,
            )
        )
        final_obs, final_info = info.pop("final_obs", None), info.pop("final_info", None)
        info = self._vector_info(info, np.ones(self.num_envs, bool))
        if final_info is not None:  # SAME_STEP: the ended episodes' last observation and info
            ended = np.asarray(terminated | truncated)
            info["final_obs"], info["_final_obs"] = self._observation(final_obs), ended
            info["final_info"], info["_final_info"] = self._vector_info(final_info, ended), ended
        return (
            self._observation(obs),
            self._out(reward),
            self._out(terminated),
            self._out(truncated),
            info,
        )

    def action_masks(self):
        """Each env's mask of the flat action (``GymnasiumEnv.action_masks``), stacked:
        ``[num_envs, sum(nvec)]`` in the env's ``array_type``."""
        if self._states is None:
            raise RuntimeError(f"{self.env.env_id}: call reset() before action_masks()")
        return self._out(jnp.asarray(self._forms.action_masks(self._states, (self.num_envs,))))

    def render(self):
        if self.render_mode is None or self._states is None:
            return None
        return tuple(np.asarray(self.env.render(self._states, env=i)) for i in range(self.num_envs))


# --- registration ----------------------------------------------------------------------


def register_envs(namespace: str = NAMESPACE) -> list[str]:
    """Registers every gridax id with Gymnasium as ``namespace/<id>`` (``gymnasium.make``
    builds a :class:`GymnasiumEnv`, ``gymnasium.make_vec`` with
    ``vectorization_mode="vector_entry_point"`` a :class:`GymnasiumVectorEnv`); returns
    the Gymnasium ids. Already registered ids are left as they are."""
    ids = []
    for env_id in registered_ids():
        gym_id = f"{namespace}/{env_id}"
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point=f"{__name__}:GymnasiumEnv",
                vector_entry_point=f"{__name__}:GymnasiumVectorEnv",
                kwargs={"env": env_id},
            )
        ids.append(gym_id)
    return ids


register_envs()
