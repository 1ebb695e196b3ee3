"""Pictures of forage worlds: RGB arrays computed under jit, PNGs and GIFs outside it.

``render(state, config, view="world")`` draws every cell in its object's colour (white
for empty, black for walls), the agent as a magenta square with a dark rim, and the
agent's aperture outlined in red; ``view="aperture"`` draws what the agent sees (padding
beyond a walled edge in black). ``reward_overlay=True`` tints each object by its current
reward (green positive, red negative). Batched states render env ``env``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, UInt8

from gridax import pictures
from gridax.envs.forage.arithmetic import cell_grid
from gridax.envs.forage.config import ForageConfig
from gridax.envs.forage.observation import colours, window
from gridax.envs.forage.reward import reward_map
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import ForageState
from gridax.geometry import box_mask

AGENT = (230, 0, 230)
AGENT_RIM = (60, 0, 60)
APERTURE = (220, 0, 0)
VIEWS = ("world", "aperture")


def _cells_to_pixels(colours, cell: int):
    return jnp.repeat(jnp.repeat(colours, cell, axis=0), cell, axis=1)


def _edges(inside: Bool[Array, "H W"]) -> Bool[Array, "H W"]:
    """Pixels of ``inside`` with a 4-neighbour outside it (or at the picture's edge)."""
    padded = jnp.pad(inside, 1)
    interior = padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    return inside & ~interior


def _paint(image, where, colour):
    return jnp.where(where[..., None], jnp.asarray(colour, jnp.uint8), image)


def _agent_square(shape: tuple[int, ...], row, col, cell: int):
    """Pixel masks of the agent's square (a margin inside its cell) and of its rim."""
    margin = max(cell // 6, 1)
    top, left = row * cell + margin, col * cell + margin
    bottom, right = (row + 1) * cell - margin - 1, (col + 1) * cell - margin - 1
    square = box_mask(top, left, bottom, right, (shape[0], shape[1]))
    return square, _edges(square)


def _world(state: ForageState, structure: Structure, cell: int, reward_overlay: bool):
    ids = state.visible().astype(jnp.int32)
    rgb = (
        colours(state, ids, cell_grid(structure.height, structure.width), structure) * 255
    ).round()
    if reward_overlay:
        values, _ = reward_map(state, state.clock, structure)
        scale = jnp.maximum(jnp.max(jnp.abs(values)), 1e-6)
        strength = (jnp.abs(values) / scale)[..., None] * 0.7
        tint = jnp.where(values[..., None] > 0, jnp.array([0.0, 200, 0]), jnp.array([220.0, 0, 0]))
        rgb = rgb * (1 - strength) + tint * strength
    image = _cells_to_pixels(rgb.astype(jnp.uint8), cell)
    if structure.aperture is not None:
        height, width = structure.aperture
        rows = (state.position[0] - height // 2 + jnp.arange(height)) % structure.height
        cols = (state.position[1] - width // 2 + jnp.arange(width)) % structure.width
        seen = jnp.zeros((structure.height, structure.width), bool)
        seen = seen.at[rows[:, None], cols[None, :]].set(True)
        image = _paint(image, _edges(_cells_to_pixels(seen, cell)), APERTURE)
    square, rim = _agent_square(image.shape[:2], state.position[0], state.position[1], cell)
    return _paint(_paint(image, square, AGENT), rim, AGENT_RIM)


def _aperture(state: ForageState, structure: Structure, cell: int):
    ids, cells = window(state, structure)
    rgb = colours(state, jnp.minimum(ids, structure.num_objects + 1), cells, structure) * 255
    image = _cells_to_pixels(rgb.round().astype(jnp.uint8), cell)
    height, width = structure.aperture_size
    square, rim = _agent_square(image.shape[:2], height // 2, width // 2, cell)
    return _paint(_paint(image, square, AGENT), rim, AGENT_RIM)


@eqx.filter_jit
def _render(state, structure: Structure, view: str, cell: int, reward_overlay: bool):
    if view == "aperture":
        return _aperture(state, structure, cell)
    return _world(state, structure, cell, reward_overlay)


def render(
    state: ForageState,
    config: ForageConfig,
    view: str = "world",
    *,
    env: int = 0,
    cell: int = 12,
    reward_overlay: bool = False,
    path: str | Path | None = None,
) -> UInt8[Array, "h w 3"]:
    """The world or the agent's aperture as an RGB ``uint8`` array (module docstring),
    written to ``path`` (``.png``/``.svg``) when given. Jittable for one env state."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(map(repr, VIEWS))}; got {view!r}")
    structure = config.structure()
    if view == "aperture" and structure.aperture is None:
        raise ValueError("view='aperture' needs a config with an aperture (it has aperture=None)")
    if state.time.ndim:
        state = jax.tree.map(lambda x: x[env], state)
    image = _render(state, structure, view, cell, reward_overlay)
    if path is not None:
        pictures.write(image, path)
    return image


def episode_gif(
    states: Sequence[ForageState] | ForageState,
    config: ForageConfig,
    path: str | Path,
    rewards: Sequence[float] | None = None,
    *,
    view: str = "world",
    env: int = 0,
    cell: int = 12,
    milliseconds: int = 150,
) -> Path:
    """An animated GIF with one frame per state (a list, or states stacked on a leading
    time axis), captioned with the step and, when given, the reward that led to it."""
    if isinstance(states, ForageState):
        states = [jax.tree.map(lambda x, t=t: x[t], states) for t in range(states.time.shape[0])]
    frames = [render(s, config, view, env=env, cell=cell) for s in states]
    captions = [
        f"t={int(jnp.ravel(s.time)[env])}"
        + ("" if rewards is None or t == 0 else f", reward {float(rewards[t - 1]):+.2f}")
        for t, s in enumerate(states)
    ]
    return pictures.write_gif(frames, path, captions, milliseconds)
