"""Pictures of ARC-AGI-3 frames: each of the 64x64 pixels a ``cell`` x ``cell`` square in
ARC-AGI-3's 16-colour palette (5 is black, the engine's default background), and
animated GIFs (:func:`frames_gif`, :func:`solution_gif` of a game's reference solution);
``Arc3Env.render(state, path=...)`` writes one frame as PNG/SVG."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, UInt8

from gridax import pictures as shared
from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.game import Game, as_triple
from gridax.envs.arc3.engine.types import Action

# ARC-AGI-3's colours 0-15 (the palette its viewers draw frames with).
PALETTE = np.array(
    [
        [255, 255, 255], [204, 204, 204], [153, 153, 153], [102, 102, 102],
        [51, 51, 51], [0, 0, 0], [229, 58, 163], [255, 123, 204],
        [249, 60, 49], [30, 147, 255], [136, 216, 241], [255, 220, 0],
        [255, 133, 27], [146, 18, 49], [79, 204, 48], [163, 86, 214],
    ],
    np.uint8,
)  # fmt: skip


def colours(frames) -> UInt8[Array, "... 64 64 3"]:
    """Frames (any batch shape) in RGB, one pixel per frame pixel. Jittable."""
    return jnp.asarray(PALETTE)[jnp.clip(jnp.asarray(frames), 0, 15)]


def picture(frame, cell: int = 8) -> UInt8[Array, "h w 3"]:
    """One 64x64 frame as an RGB ``uint8`` array, ``cell`` pixels per frame pixel.
    Jittable."""
    if cell < 1:
        raise ValueError(f"cell must be a positive number of pixels; got {cell}")
    rgb = colours(frame)
    return jnp.repeat(jnp.repeat(rgb, cell, axis=0), cell, axis=1)


def frames_gif(
    frames: Sequence, path: str | Path, *, cell: int = 4, milliseconds: int = 120
) -> Path:
    """An animated GIF of 64x64 frames."""
    return shared.write_gif(
        [np.asarray(picture(f, cell)) for f in frames], path, milliseconds=milliseconds
    )


def solution_frames(game: Game, level: int) -> list:
    """Every frame of the game's reference solution of ``level``, played after the
    earlier levels' solutions: the level's first frame, then each action's frames."""
    if not 0 <= level < len(game.solutions):
        raise ValueError(
            f"game {game.name!r} has reference solutions of levels 0-{len(game.solutions) - 1}; "
            f"got level {level}"
        )

    def play(state, move):
        state, frames, info = env.step(state, Action(*as_triple(move)), game)
        return state, list(frames[: int(info["frame_count"])])

    state, first = env.reset(game)
    for move in (m for moves in game.solutions[:level] for m in moves):
        state, made = play(state, move)
        first = made[-1]  # after a level's last action: the next level's first frame
    shown = [first]
    for move in game.solutions[level]:
        state, made = play(state, move)
        shown += made
    return shown


def solution_gif(game: Game, level: int, path: str | Path, *, cell: int = 4) -> Path:
    """An animated GIF of :func:`solution_frames`."""
    return frames_gif(solution_frames(game, level), path, cell=cell)
