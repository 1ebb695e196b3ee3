"""How a frame is drawn: whole, or only where sprites changed since the last one.

A frame is the camera's view of the level (upscaled and letterboxed: the canvas) under
the game's UI layer. Most actions change a few cells, so the next canvas is the last
one with a window of ``REDRAW_WINDOW`` view cells drawn again where sprites changed, or
(changes far apart) the cells of the changed sprites' boxes, up to ``REDRAW_CELLS`` of
them; a frame whose camera moved, or whose changes fit neither, is drawn whole (few envs
of a batch: ``cond_rare``).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.batching import cond_rare
from gridax.envs.arc3 import camera as cam
from gridax.envs.arc3.game import Game
from gridax.envs.arc3.types import Arc3State

# A frame whose changes fit in REDRAW_WINDOW x REDRAW_WINDOW view cells is drawn in
# part, in games whose view is at least twice that window's area (smaller views are
# drawn whole for less: measured, benchmarks/RESULTS.md).
REDRAW_WINDOW = 3
# A frame whose changes do not fit that window but lie in boxes of REDRAW_CELLS view
# cells in all (a bar's end and a tile far apart) is drawn again at those cells, in
# games whose largest view is drawn at one pixel a cell (over 32 cells a side).
REDRAW_CELLS = 256


def _draws_in_part(game: Game) -> bool:
    return game.view_size**2 >= 2 * REDRAW_WINDOW**2


def _draws_cells(game: Game) -> bool:
    return cam.SCREEN // game.view_size == 1


def keeps_canvas(game: Game) -> bool:
    """The frame before the UI layer is kept apart from the frame shown (a game without
    a UI shows it as it is)."""
    return _draws_in_part(game) and game.ui is not None


def _show(state: Arc3State, canvas, game: Game) -> tuple[Arc3State, jax.Array]:
    """``(state, frame)``: ``canvas`` kept if the game keeps it, under the UI layer."""
    if keeps_canvas(game):
        state = eqx.tree_at(lambda s: s.canvas, state, canvas)
    return state, canvas if game.ui is None else game.ui(state, canvas, game)


def _canvas(table, camera, game: Game):
    return cam.frame(table, camera, game.max_downscale, game.view_size)


def draw_frame(state: Arc3State, game: Game) -> tuple[Arc3State, jax.Array]:
    """``(state, frame)``: the canvas drawn whole (the camera's view, upscaled and
    letterboxed), and the frame (the canvas under the game's UI layer)."""
    with jax.named_scope("render"):
        return _show(state, _canvas(state.table, state.camera, game), game)


def redraw(before: Arc3State, state: Arc3State, game: Game) -> tuple[Arc3State, jax.Array]:
    """:func:`draw_frame`, drawing again only the view cells where sprites changed since
    ``before`` on ``before``'s canvas (module docstring)."""
    if not _draws_in_part(game):
        return draw_frame(state, game)
    window = REDRAW_WINDOW
    with jax.named_scope("render"):
        changes = cam.changed_boxes(before.table, state.table)
        x0, y0, x1, y1 = cam.changed_area(changes, state.camera)
        # A game without a kept canvas has no UI (keeps_canvas): its frame is the canvas.
        canvas = before.screen if before.canvas is None else before.canvas
        canvas = cam.redraw(canvas, state.table, state.camera, (x0, y0), window, game.max_downscale)
        moved = jax.tree.leaves(jax.tree.map(jnp.not_equal, before.camera, state.camera))
        moved = jnp.any(jnp.stack(moved))
        beyond = (x1 - x0 > window) | (y1 - y0 > window)
        if _draws_cells(game):
            rows, cols, valid, fits = cam.changed_cells(changes, state.camera, REDRAW_CELLS)
            one_to_one = cam.scale_and_offset(state.camera)[0] == 1
            by_cells = beyond & fits & one_to_one & ~moved
            canvas = cond_rare(
                by_cells,
                lambda canvas, table, camera, rows, cols, valid: cam.redraw_cells(
                    canvas, table, camera, rows, cols, valid, game.max_downscale
                ),
                canvas,
                state.table,
                state.camera,
                rows,
                cols,
                valid,
                compact_to=1 / 16,
            )
            beyond = beyond & ~by_cells
        canvas = cond_rare(
            moved | beyond,
            lambda _, table, camera: _canvas(table, camera, game),
            canvas,
            state.table,
            state.camera,
            compact_to=1 / 16,
        )
        return _show(state, canvas, game)
