"""What the three PyTorch examples share: the tasks they learn, a learning curve that
any trainer's loop can feed, a uniform random policy beside it, and the plot.

The tasks, through the Gymnasium adapter (``import gridax.wrappers.gymnasium``):

- ``arc-copy``: ``ArcGen-Copy-v0`` from an empty working grid, so copy-input then submit
  solves a task (the easiest ARC family; ten steps at most). Point actions as
  ``MultiDiscrete([35, 30, 30])``, observations as one flat vector.
- ``ForagaxTwoBiome-v1``: continual foraging, one episode without end; the curve is
  the reward per step.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

# The form PyTorch trainers take: MultiDiscrete actions, a Box observation.
TORCH_FORMS = {"flat_actions": True, "observations": "flat"}

TASKS = {
    "arc-copy": ("ArcGen-Copy-v0", {"initial_grid": "empty", "max_episode_steps": 10}),
    "ForagaxTwoBiome-v1": ("ForagaxTwoBiome-v1", {}),
}


def task(name: str) -> tuple[str, dict]:
    """``(gymnasium id, keyword arguments of gymnasium.make)`` of a task or a gridax id."""
    env_id, options = TASKS.get(name, (name, {}))
    return f"gridax/{env_id}", {**TORCH_FORMS, **options}


@dataclass
class Curve:
    """A learning curve: per window of ``window`` env steps, the mean reward per step and
    the success rate of the episodes that ended in it (ARC's ``info["success"]``)."""

    window: int
    steps: list[int] = field(default_factory=list)
    reward_per_step: list[float] = field(default_factory=list)
    success_rate: list[float | None] = field(default_factory=list)

    def __post_init__(self):  # the window being filled, and the steps seen
        self._rewards: list[float] = []
        self._successes: list[bool] = []
        self.count = 0

    def add(self, rewards, dones, successes=None) -> None:
        """One step of a batch of envs: their rewards, which episodes ended, and whether
        each was a success (``None`` where the env has no such notion)."""
        rewards, dones = np.asarray(rewards, float).ravel(), np.asarray(dones, bool).ravel()
        self._rewards.extend(rewards)
        if successes is not None:
            self._successes.extend(np.asarray(successes, bool).ravel()[dones])
        self.count += rewards.size
        if len(self._rewards) >= self.window:
            self.steps.append(self.count)
            self.reward_per_step.append(float(np.mean(self._rewards)))
            rate = float(np.mean(self._successes)) if self._successes else None
            self.success_rate.append(rate)
            self._rewards, self._successes = [], []

    def final(self, last: int = 3) -> dict:
        """The mean of the last ``last`` windows."""
        rates = [r for r in self.success_rate[-last:] if r is not None]
        return {
            "reward_per_step": float(np.mean(self.reward_per_step[-last:])),
            "success_rate": float(np.mean(rates)) if rates else None,
        }


def random_curve(envs, steps: int, window: int, seed: int = 0) -> Curve:
    """A uniform random policy on a Gymnasium vector env (``num_envs`` at once)."""
    curve = Curve(window)
    envs.action_space.seed(seed)
    envs.reset(seed=seed)
    while curve.count < steps:
        _, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
        done = np.asarray(terminated) | np.asarray(truncated)
        curve.add(reward, done, info.get("success"))
    return curve


class Stopwatch:
    """Seconds spent in named parts of a loop (``with watch("env"): ...``)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def __call__(self, part: str):
        return _Timed(self, part)


class _Timed:
    def __init__(self, watch: Stopwatch, part: str):
        self.watch, self.part = watch, part

    def __enter__(self):
        self.start = time.perf_counter()

    def __exit__(self, *exc):
        elapsed = time.perf_counter() - self.start
        self.watch.seconds[self.part] = self.watch.seconds.get(self.part, 0.0) + elapsed


def save(results: dict, path: Path) -> None:
    """Results as JSON (curves as lists) and, beside it, the curves as PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    plain = {
        name: {**result, "curve": asdict(result["curve"]), "random": asdict(result["random"])}
        for name, result in results.items()
    }
    path.with_suffix(".json").write_text(json.dumps(plain, indent=1))
    plot(results, path.with_suffix(".png"))


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(5 * len(results), 3.6), squeeze=False)
    for ax, (name, result) in zip(axes[0], results.items(), strict=True):
        curve, baseline = result["curve"], result["random"]
        arc = any(r is not None for r in curve.success_rate)
        values = curve.success_rate if arc else curve.reward_per_step
        ax.plot(curve.steps, [np.nan if v is None else v for v in values], label=result["trainer"])
        level = baseline.final()["success_rate" if arc else "reward_per_step"] or 0.0
        ax.axhline(level, color="grey", linestyle="--", label="random policy")
        ax.set_title(f"{name} ({result['wall_seconds']:.0f} s)")
        ax.set_xlabel("env steps")
        ax.set_ylabel("success rate of episodes" if arc else "reward per step")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
