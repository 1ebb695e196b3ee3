"""``gridax demo | render | list``: pictures of the envs and a listing of their spaces.

Everything goes through :func:`gridax.make` and the env packages' public names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import jax
import numpy as np

import gridax
from gridax import spaces
from gridax.envs import arc, forage

DEMO_TASK = "007bbfb7"  # ARC-AGI-1 training: a 3x3 input tiled into a 9x9 output


def solved_arc_episode(out: Path, track: Callable[[Iterable], Iterable] = iter) -> dict:
    """Plays the demo task with :func:`gridax.envs.arc.tools.demonstrations.paint` (resize, a
    fill per colour, submit); writes the task sheet, the final state and the episode GIF."""
    env = gridax.make("ArcAgi1-v0", selection_format="mask", max_episode_steps=20)
    tasks = env.default_params
    state, _ = arc.reset(jax.random.key(0), env.config, tasks, task_index=tasks.index_of(DEMO_TASK))
    demonstration = arc.demonstrations.paint(state, env.config)
    steps = int(demonstration.length)
    states, operations, rewards = [state], [], []
    for t in track(range(steps)):
        action = jax.tree.map(lambda x, t=t: x[t], demonstration.actions)
        state, _, reward, done, info = env.step(state, action)
        states.append(state)
        operations.append(int(action.operation))
        rewards.append(float(reward))
    files = {
        "task": arc.render.render_task(tasks, DEMO_TASK, out / f"arc-task-{DEMO_TASK}.png"),
        "final": env.render(state, path=out / "arc-solved.png", show_target=True),
    }
    arc.render.episode_gif(states, out / "arc-episode.gif", operations, rewards)
    return {
        "success": bool(info["success"]),
        "steps": len(operations),
        "return": sum(rewards),
        "files": [f"arc-task-{DEMO_TASK}.png", "arc-solved.png", "arc-episode.gif"],
        "shapes": {name: image.shape for name, image in files.items()},
    }


def forage_rollout(
    out: Path, env_id: str = "ForagaxTwoBiome-v1", steps: int = 60, track=iter
) -> dict:
    """Random moves in a forage world; writes the first frame and the rollout GIF."""
    env = gridax.make(env_id)
    state, _ = env.reset(jax.random.key(0))
    moves = jax.random.randint(jax.random.key(1), (steps,), 0, forage.NUM_ACTIONS)
    states, rewards = [state], []
    for move in track(moves):
        state, _, reward, _, _ = env.step(state, move)
        states.append(state)
        rewards.append(float(reward))
    name = env_id.removeprefix("Foragax")
    env.render(states[0], path=out / f"forage-{name}.png")
    aperture = out / f"forage-{name}-aperture.png"
    env.render(states[0], view="aperture", cell=24, path=aperture)
    forage.render.episode_gif(states, env.config, out / f"forage-{name}.gif", rewards)
    return {
        "steps": steps,
        "return": sum(rewards),
        "files": [f"forage-{name}.png", f"forage-{name}-aperture.png", f"forage-{name}.gif"],
    }


def run(out: str | Path, quick: bool = False) -> int:
    """``gridax demo``: both pictures, and what they show."""
    from rich.progress import track

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    arc_result = solved_arc_episode(out, lambda xs: track(xs, "ARC episode", transient=True))
    print(
        f"ARC task {DEMO_TASK}: solved={arc_result['success']} in {arc_result['steps']} "
        f"steps (resize, one fill per colour, submit), return {arc_result['return']:+.2f}"
    )
    steps = 20 if quick else 200
    forage_result = forage_rollout(
        out, steps=steps, track=lambda xs: track(xs, "forage rollout", transient=True)
    )
    print(f"ForagaxTwoBiome-v1: {steps} random moves, return {forage_result['return']:+.1f}")
    for name in arc_result["files"] + forage_result["files"]:
        print(f"  {out / name}")
    print(f"pictures written to {out}")
    return 0


def render_reset(env_id: str, seed: int, out: str, **options) -> int:
    """``gridax render``: a picture of an env's reset state; ``options`` go to
    ``env.render`` (docs/rendering.md)."""
    env = gridax.make(env_id)
    state, _ = env.reset(jax.random.key(seed))
    image = np.asarray(env.render(state, path=out, **options))
    print(f"{env_id} seed {seed}: {image.shape[1]}x{image.shape[0]} pixels -> {out}")
    return 0


def describe(space: spaces.Space) -> str:
    """A space in one line: ``Discrete(4)``, ``float32[5, 5, 2]``, ``PointAction(...)``."""
    if isinstance(space, spaces.Discrete):
        return f"Discrete({space.n})"
    if isinstance(space, spaces.Box):
        return f"{space.dtype.name}{list(space.shape)}"
    assert isinstance(space, spaces.Dict)
    fields = ", ".join(f"{name} {describe(s)}" for name, s in space.spaces.items())
    return f"{space.cls.__name__ if space.cls else 'dict'}({fields})"


def list_envs() -> int:
    """``gridax list``: every registered id with its observation and action spaces."""
    for env_id in gridax.registered_ids():
        if env_id == "ArcFolder-v0":
            print(f"{env_id}\n  needs path= (a folder of ARC JSON files); spaces as ArcAgi1-v0")
            continue
        env = gridax.make(env_id)
        print(f"{env_id}\n  observation {describe(env.observation_space)}")
        print(f"  action      {describe(env.action_space)}")
    return 0
