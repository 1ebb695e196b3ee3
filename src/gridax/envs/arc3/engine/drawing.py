"""How a frame is drawn: the camera's view painted (:mod:`gridax.envs.arc3.engine.painting`: the
level's static layer, the moving sprites in their boxes), scaled up and letterboxed, under
the game's UI layer. A frame depends on the state alone: the loop draws the frames it
returns (every frame of an action, or only its last) from the states they show.
"""

from __future__ import annotations

import jax

from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine import painting
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.levels import LevelBank, bank_of, static_pixels_in
from gridax.envs.arc3.engine.types import Arc3State


def draw_frame(state: Arc3State, game: Game, bank: LevelBank | None = None) -> jax.Array:
    """The frame ``state`` shows (64x64 colours): the camera's view of the level under
    the game's UI layer. ``bank`` is the game's level bank (its static layers), built
    once per game when not given."""
    bank = bank_of(game) if bank is None else bank
    # Only sprites of held kinds read the bank's pixels, and a moving sprite is of one
    # only where the game declares the kinds its rule repaints: else no second read.
    held = None if game.repainted_kinds is None else static_pixels_in(bank, state.level)
    with jax.named_scope("render"):
        camera = state.camera
        # A letterboxed game's view is painted where it lies in the frame.
        offset = cam.scale_and_offset(camera)[1:] if game.letterboxed else (0, 0)
        packed = painting.paint_view(
            state.table,
            camera,
            bank.backdrop,
            state.level,
            game.painted_size,
            game.paint_runs,
            game.max_downscale,
            held,
            offset,
        )
        colours = painting.colours_of(packed, camera.background)
        if game.letterboxed:
            canvas = cam.letterboxed(colours, camera, *offset)
        else:
            canvas = cam.upscale(colours, camera, game.view_sizes)
        return canvas if game.ui is None else game.ui(state, canvas, game)
