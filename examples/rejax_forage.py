"""rejax's PPO, unmodified, on ForagaxTwoBiome-v1 through gridax's gymnax adapter.

rejax (PyPI ``rejax``) trains gymnax environments with pure-JAX algorithms; gridax's
``GymnaxEnv`` is one, so the only gridax-specific lines are building the env and the
evaluation callback (a Two Biome world never ends, so rejax's default evaluation, which
reads ``max_steps_in_episode`` from gymnax params, is replaced through rejax's own
``algo.replace(eval_callback=...)``). The evaluation is rejax's ``evaluate``: 64 fresh
worlds, ``EVAL_STEPS`` steps each, mean reward per step.

    python examples/rejax_forage.py --total-steps 2000000 --seeds 3 --out docs

writes ``rejax-forage.png`` (the learning curve against the random policy) and
``rejax-forage.json``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import time
from pathlib import Path

import jax
import numpy as np
import rejax
from rejax.evaluate import evaluate

import gridax
from gridax import compile_cache
from gridax.wrappers import GymnaxEnv

ENV_ID = "ForagaxTwoBiome-v1"
EVAL_STEPS = 500
EVAL_WORLDS = 64


def mean_reward(env, act, key, params) -> jax.Array:
    """Mean reward per step of ``act`` over EVAL_WORLDS fresh worlds (rejax's evaluate)."""
    _, returns = evaluate(act, key, env, params, EVAL_WORLDS, EVAL_STEPS)
    return returns.mean() / EVAL_STEPS


def random_act(obs, key):
    return jax.random.randint(key, (), 0, 4)


def make_ppo(total_steps: int, evaluations: int = 16):
    """rejax's PPO on the env, with settings chosen once for this env (not tuned)."""
    env = GymnaxEnv(gridax.make(ENV_ID), legacy_step=True)  # rejax unpacks 5 outputs
    algo = rejax.PPO.create(
        env=env,
        total_timesteps=total_steps,
        eval_freq=max(total_steps // evaluations, 2048),
        num_envs=16,
        num_steps=128,
        num_epochs=4,
        num_minibatches=8,
        learning_rate=3e-4,
    )

    def eval_callback(algo, train_state, key):
        return mean_reward(algo.env, algo.make_act(train_state), key, algo.env_params)

    return algo.replace(eval_callback=eval_callback)


def run(total_steps: int, seeds: int = 3, evaluations: int = 16) -> dict:
    """Trains ``seeds`` runs at once (rejax's ``train`` vmapped over keys)."""
    algo = make_ppo(total_steps, evaluations)
    keys = jax.random.split(jax.random.key(0), seeds)
    start = time.perf_counter()
    _, curves = jax.block_until_ready(jax.jit(jax.vmap(algo.train))(keys))
    seconds = time.perf_counter() - start
    baseline = mean_reward(algo.env, random_act, jax.random.key(seeds), algo.env_params)
    return {
        "env": ENV_ID,
        "total_steps": total_steps,
        "seeds": seeds,
        "eval_steps": (np.arange(curves.shape[1]) * algo.eval_freq).tolist(),
        "mean_reward": np.asarray(curves).round(4).tolist(),  # one curve per seed
        "random_mean_reward": round(float(baseline), 4),
        "seconds_with_compile": round(seconds, 1),
        "rejax": importlib.metadata.version("rejax"),
    }


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    curves = np.asarray(result["mean_reward"])
    for curve in curves:
        ax.plot(result["eval_steps"], curve, color="C0", alpha=0.35, lw=1)
    ax.plot(result["eval_steps"], curves.mean(0), color="C0", marker="o", label="rejax PPO")
    ax.axhline(result["random_mean_reward"], color="grey", linestyle="--", label="random")
    ax.set_xlabel("training steps")
    ax.set_ylabel(f"mean reward per step ({EVAL_STEPS}-step eval)")
    ax.set_title(f"rejax PPO on {result['env']} through gridax's GymnaxEnv")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total-steps", type=int, default=2_000_000)
    parser.add_argument("--seeds", type=int, default=3, help="runs trained at once (vmap)")
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    result = run(args.total_steps, args.seeds)
    args.out.mkdir(parents=True, exist_ok=True)
    plot(result, args.out / "rejax-forage.png")
    (args.out / "rejax-forage.json").write_text(json.dumps(result, indent=1) + "\n")
    final = np.asarray(result["mean_reward"])[:, -1]
    print(
        f"{ENV_ID}: random {result['random_mean_reward']:.3f}, rejax PPO after "
        f"{args.total_steps:,} steps {final.mean():.3f} (seeds {np.round(final, 3).tolist()}; "
        f"{result['seconds_with_compile']} s with compile)"
    )
    return result


if __name__ == "__main__":
    compile_cache.enable()  # a rerun loads the compiled code (docs/performance.md)
    main()
