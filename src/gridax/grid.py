"""ARC's 30x30 canvas helpers, kept here for imports written before they moved to
:mod:`gridax.envs.arc.grid`."""

from gridax.envs.arc import grid

GRID_SIZE, GRID_SHAPE, NUM_COLOURS = grid.GRID_SIZE, grid.GRID_SHAPE, grid.NUM_COLOURS
canvas_coordinates, live_mask = grid.canvas_coordinates, grid.live_mask
pack_rows, unpack_rows = grid.pack_rows, grid.unpack_rows

__all__ = [
    "GRID_SHAPE",
    "GRID_SIZE",
    "NUM_COLOURS",
    "canvas_coordinates",
    "live_mask",
    "pack_rows",
    "unpack_rows",
]
