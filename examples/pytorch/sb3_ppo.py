"""Stable-Baselines3's PPO on gridax, unchanged.

    python examples/pytorch/sb3_ppo.py                       # arc-copy and ForagaxTwoBiome-v1
    python examples/pytorch/sb3_ppo.py --steps 20000 --tasks arc-copy --make-vec-env

Two ways in, both giving SB3 a ``MultiDiscrete`` action and a ``Box`` observation, so that
``MlpPolicy`` takes every gridax env (``observations="image"`` and ``CnnPolicy`` for
ARC-AGI-3's frames; ``MaskablePPO`` reads the games' available actions):

- ``SB3VecEnv(id, n_envs)`` (the default here): every env stepped in one jitted call;
- ``make_vec_env("gridax/<id>", env_kwargs={"flat_actions": True, "observations":
  "flat"})`` (``--make-vec-env``): SB3's own ``DummyVecEnv``, one env at a time.

Each run is printed and saved (curve, wall time, and how the time splits between the
env's steps and torch: the policy's forward passes and the updates) beside a uniform
random policy playing as many steps. Measured results: docs/interop.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecEnvWrapper

import gridax.wrappers.gymnasium  # noqa: F401  (registers the gridax/ ids)
from gridax.wrappers.sb3 import SB3VecEnv

sys.path.insert(0, str(Path(__file__).parent))
from common import Curve, Stopwatch, random_curve, save, task  # noqa: E402

# The settings of each task's run (PPO's defaults elsewhere).
SETTINGS = {
    "arc-copy": {"n_steps": 256, "batch_size": 256, "n_epochs": 4, "ent_coef": 0.01},
    "ForagaxTwoBiome-v1": {"n_steps": 256, "batch_size": 256, "n_epochs": 4},
}


class Measured(VecEnvWrapper):
    """Times the env's steps and feeds the learning curve, leaving the env as it is."""

    def __init__(self, venv, curve: Curve, watch: Stopwatch):
        super().__init__(venv)
        self.curve, self.watch = curve, watch

    def reset(self):
        with self.watch("env"):
            return self.venv.reset()

    def step_wait(self):
        with self.watch("env"):
            obs, rewards, dones, infos = self.venv.step_wait()
        successes = [info["success"] for info in infos] if "success" in infos[0] else None
        self.curve.add(rewards, dones, successes)
        return obs, rewards, dones, infos


def train(
    name: str,
    steps: int,
    *,
    seed: int = 0,
    n_envs: int = 8,
    algorithm=PPO,
    policy: str = "MlpPolicy",
    window: int = 2048,
    forms: dict | None = None,
    dummy: bool = False,
    **settings,
) -> dict:
    """``algorithm`` (``PPO``, or sb3-contrib's ``MaskablePPO``) for ``steps`` env steps
    on a task of :mod:`common` or a gridax id, on :class:`SB3VecEnv` or (``dummy``) SB3's
    ``make_vec_env``; ``forms`` overrides the adapter's options (``{"observations":
    "image"}``). Returns the curve, the wall time, the time in env steps and in torch."""
    gym_id, options = task(name)
    options = {**options, **(forms or {})}
    if dummy:
        envs = make_vec_env(gym_id, n_envs=n_envs, seed=seed, env_kwargs=options)
    else:
        envs = SB3VecEnv(gym_id.removeprefix("gridax/"), n_envs, **options)
    curve, watch = Curve(window), Stopwatch()
    envs = Measured(envs, curve, watch)
    start = time.perf_counter()
    model = algorithm(policy, envs, seed=seed, verbose=0, **{**SETTINGS.get(name, {}), **settings})
    model.learn(steps)
    wall = time.perf_counter() - start
    envs.close()
    return {
        "trainer": f"SB3 {algorithm.__name__}" + (" (make_vec_env)" if dummy else ""),
        "steps": steps,
        "seed": seed,
        "num_envs": n_envs,
        "wall_seconds": wall,
        "env_seconds": watch.seconds["env"],
        "torch_seconds": wall - watch.seconds["env"],
        "curve": curve,
        "model": model,
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", nargs="+", default=["arc-copy", "ForagaxTwoBiome-v1"])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--make-vec-env", action="store_true", help="SB3's DummyVecEnv")
    parser.add_argument("--out", type=Path, default=Path("docs/torch/sb3"))
    args = parser.parse_args(argv)
    import gymnasium

    results = {}
    for name in args.tasks:
        result = train(name, args.steps, seed=args.seed, dummy=args.make_vec_env)
        result.pop("model")
        gym_id, options = task(name)
        envs = gymnasium.make_vec(
            gym_id, num_envs=8, vectorization_mode="vector_entry_point", **options
        )
        result["random"] = random_curve(envs, args.steps, result["curve"].window, args.seed)
        results[name] = result
        learnt, chance = result["curve"].final(), result["random"].final()
        print(
            f"{name}: {result['trainer']} {learnt} vs random {chance}; "
            f"{result['wall_seconds']:.0f} s, env {result['env_seconds']:.0f} s, "
            f"torch {result['torch_seconds']:.0f} s"
        )
    save(results, args.out)
    return results


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
