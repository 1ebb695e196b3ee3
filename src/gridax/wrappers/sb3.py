"""A batch of gridax envs as one Stable-Baselines3 ``VecEnv`` (extra ``torch``).

SB3's own route, ``make_vec_env("gridax/<id>", n_envs)``, steps each env by itself in a
``DummyVecEnv``: about a millisecond per env step from Python, three quarters of a PPO
run's time on 2 cores (docs/interop.md). :class:`SB3VecEnv` steps all of them in one
jitted ``batch_step`` (through :class:`~gridax.wrappers.gymnasium.GymnasiumVectorEnv`)
and speaks SB3's vector protocol, so SB3's algorithms train on it unchanged::

    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor
    from gridax.wrappers.sb3 import SB3VecEnv

    envs = VecMonitor(SB3VecEnv("ArcGen-Copy-v0", 64, initial_grid="empty"))
    PPO("MlpPolicy", envs).learn(100_000)

Its forms are the ones PyTorch trainers take (``flat_actions=True`` and
``observations="flat"`` by default; ``"image"`` for ``CnnPolicy`` on ARC-AGI-3;
``"native"``, gridax's fields as one-level ``Dict``, for ``MultiInputPolicy``). As SB3
expects, an env whose episode ends restarts in the same step, and its ``info`` holds the
old episode's ``terminal_observation`` and ``TimeLimit.truncated``; ``env_method(
"action_masks")`` gives each env's mask, which sb3-contrib's ``MaskablePPO`` reads.
``reset`` takes the seeds of ``seed(s)`` (env ``i`` gets ``s + i``, the same keys as
``make_vec_env``'s envs seeded alike).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import (  # pyright: ignore[reportMissingImports]
    VecEnv,  # (the extra torch: installed by `make torch`, not by dev)
)

from gridax.interface import Env
from gridax.wrappers.gymnasium import GymnasiumVectorEnv


def _copied(obs):
    """``obs`` (an array, or the Dict form's dict of arrays) as NumPy copies."""
    return {k: np.array(v) for k, v in obs.items()} if isinstance(obs, dict) else np.array(obs)


def _per_env(obs, i: int):
    """Env ``i``'s part of a batch of observations (an array or a dict of arrays)."""
    if isinstance(obs, dict):
        return {k: np.asarray(v)[i] for k, v in obs.items()}
    return np.asarray(obs)[i]


class SB3VecEnv(VecEnv):
    """``num_envs`` gridax envs as one SB3 ``VecEnv`` (module docstring)."""

    def __init__(
        self,
        env: Env | str,
        num_envs: int,
        *,
        flat_actions: bool = True,
        observations: str = "flat",
        **overrides,
    ):
        self.vector = GymnasiumVectorEnv(
            env,
            num_envs,
            autoreset_mode="SameStep",
            flat_actions=flat_actions,
            observations=observations,
            **overrides,
        )
        self.env = self.vector.env
        self.render_mode = None
        super().__init__(
            num_envs, self.vector.single_observation_space, self.vector.single_action_space
        )

    def reset(self):
        seeds = [s for s in self._seeds if s is not None]  # seed(s) sets all, or none
        obs, _ = self.vector.reset(seed=seeds or None)
        self._reset_seeds()
        self._reset_options()
        return _copied(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.vector.step(self._actions)
        dones = np.asarray(terminated) | np.asarray(truncated)
        infos = self._infos(info, np.asarray(terminated), np.asarray(truncated))
        # Copies: SB3 writes into what a VecEnv returns (the rewards, when it bootstraps a
        # truncated episode), and the adapter's arrays are read-only views of JAX's.
        return _copied(obs), np.array(reward, np.float32), dones, infos

    def _infos(self, info: dict, terminated, truncated) -> list[dict[str, Any]]:
        """Gymnasium's dict of per-env arrays as SB3's list of per-env dicts."""
        names = [k for k in info if not k.startswith(("_", "final_"))]
        values = {name: np.asarray(info[name]) for name in names}
        infos = [{name: values[name][i] for name in names} for i in range(self.num_envs)]
        for i in np.flatnonzero(terminated | truncated):  # the flags of the ended episodes
            infos[i]["terminal_observation"] = _per_env(info["final_obs"], int(i))
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return infos

    def action_masks(self) -> np.ndarray:
        """Each env's mask of the flat action, ``[num_envs, sum(nvec)]``."""
        return np.asarray(self.vector.action_masks())

    def close(self) -> None:
        self.vector.close()

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The attribute of the adapter (the same for every env)."""
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        """``action_masks``: each env's own mask; any other method of the vector env is
        called once and its result given for every env."""
        chosen = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in chosen]
        result = getattr(self.vector, method_name)(*method_args, **method_kwargs)
        return [result] * len(chosen)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))
