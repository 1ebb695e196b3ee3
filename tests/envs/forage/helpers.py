"""Forage worlds drawn as text: ``A`` the agent, ``#`` a wall, ``.`` empty, letters objects."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs import forage
from gridax.envs.forage.objects import Biome, ObjectType, wall

FOOD = ObjectType("food", reward=5.0, colour=(200, 0, 0), regen=("uniform", 3, 3))
POISON = ObjectType("poison", reward=-2.0, colour=(0, 0, 200), regen=("uniform", 2, 2))


def world(text: str, legend: dict[str, ObjectType] | None = None, **overrides):
    """``(config, state)`` for a text map: ids follow ``legend``'s order, ``#`` is last."""
    legend = {"F": FOOD, "P": POISON, **(legend or {})}
    rows = [line.split() for line in text.strip().splitlines()]
    height, width = len(rows), len(rows[0])
    letters = list(legend)
    objects = (*legend.values(), wall())
    settings = {"observation": "object", **overrides}
    config = forage.ForageConfig(
        name="test",
        width=width,
        height=height,
        objects=objects,
        biomes=(Biome(None, None, (0.0,) * len(objects)),),
        **settings,
    )
    ids = np.zeros((height, width), np.int8)
    agent = None
    for y, row in enumerate(rows):
        for x, mark in enumerate(row):
            if mark == "#":
                ids[y, x] = len(objects)
            elif mark == "A":
                agent = (y, x)
            elif mark != ".":
                ids[y, x] = letters.index(mark) + 1
    state, _ = forage.reset(jax.random.key(0), config)
    state = eqx.tree_at(
        lambda s: (s.cells.object, s.position),
        state,
        (jnp.asarray(ids), jnp.asarray(agent, jnp.int32)),
    )
    return config, state


def show(state: forage.ForageState, config: forage.ForageConfig) -> str:
    """The visible world as text, the agent as ``A`` (inverse of :func:`world`'s map)."""
    marks = ".FP" if len(config.objects) > 2 else "."
    ids = np.asarray(state.visible())
    lines = []
    for y, row in enumerate(ids):
        cells = []
        for x, value in enumerate(row):
            if (y, x) == tuple(np.asarray(state.position)):
                cells.append("A")
            elif value == len(config.objects):
                cells.append("#")
            else:
                cells.append(marks[value] if value < len(marks) else str(value))
        lines.append(" ".join(cells))
    return "\n".join(lines)


def rollout(config, keys, actions):
    """``(states, rewards)`` after ``batch_step`` over ``actions[t]`` from ``batch_reset``."""
    states, _ = forage.batch_reset(keys, config)
    rewards = []
    for action in actions:
        states, _, reward, _, _ = forage.batch_step(states, action, config)
        rewards.append(reward)
    return states, jnp.stack(rewards)
