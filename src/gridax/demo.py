"""``gridax demo``: a solved ARC episode and a forage rollout, written as pictures."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from gridax.actions import MaskAction
from gridax.envs import arc, forage
from gridax.envs.arc import operations as ops
from gridax.envs.arc import render as arc_render
from gridax.envs.forage import render as forage_render
from gridax.grid import GRID_SHAPE

DEMO_TASK = "007bbfb7"  # ARC-AGI-1 training: a 3x3 input tiled into a 9x9 output


def paint_target(state: arc.ArcState) -> list[MaskAction]:
    """Actions that solve one env's episode by painting its target: resize to the
    target's shape, fill each of its colours where the target has it, then submit."""
    target = np.asarray(state.target_grid)
    height, width = (int(v) for v in state.target_shape)
    corner = np.zeros(GRID_SHAPE, bool)
    corner[height - 1, width - 1] = True  # resize takes the selection's bottom-right cell
    actions = [MaskAction(ops.RESIZE, corner)]
    live = np.zeros(GRID_SHAPE, bool)
    live[:height, :width] = True
    for colour in np.unique(target[:height, :width]):
        actions.append(MaskAction(ops.FILL + int(colour), live & (target == colour)))
    actions.append(MaskAction(ops.SUBMIT, live))
    return actions


def solved_arc_episode(out: Path, track: Callable[[Iterable], Iterable] = iter) -> dict:
    """Plays the demo task with :func:`paint_target`; writes the task sheet, the final
    state and the episode GIF."""
    tasks = arc.load_tasks("arc-agi-1")
    config = arc.ArcConfig(selection_format="mask", max_episode_steps=20)
    state, _ = arc.reset(jax.random.key(0), config, tasks, task_index=tasks.index_of(DEMO_TASK))
    states, operations, rewards = [state], [], []
    for action in track(paint_target(state)):
        state, _, reward, done, info = arc.step(state, action, config)
        states.append(state)
        operations.append(int(action.operation))
        rewards.append(float(reward))
    files = {
        "task": arc_render.render_task(tasks, DEMO_TASK, out / f"arc-task-{DEMO_TASK}.png"),
        "final": arc_render.render(state, out / "arc-solved.png", show_target=True),
    }
    arc_render.episode_gif(states, out / "arc-episode.gif", operations, rewards)
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
    config = forage.make_config(env_id)
    state, _ = forage.reset(jax.random.key(0), config)
    moves = jax.random.randint(jax.random.key(1), (steps,), 0, forage.NUM_ACTIONS)
    states, rewards = [state], []
    for move in track(moves):
        state, _, reward, _, _ = forage.step(state, move.astype(jnp.int32), config)
        states.append(state)
        rewards.append(float(reward))
    name = env_id.removeprefix("Foragax")
    forage_render.render(states[0], config, path=out / f"forage-{name}.png")
    aperture = out / f"forage-{name}-aperture.png"
    forage_render.render(states[0], config, "aperture", cell=24, path=aperture)
    forage_render.episode_gif(states, config, out / f"forage-{name}.gif", rewards)
    return {
        "steps": steps,
        "return": sum(rewards),
        "files": [f"forage-{name}.png", f"forage-{name}-aperture.png", f"forage-{name}.gif"],
    }
