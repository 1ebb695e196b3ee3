"""The 35 O2ARC grid operations as small pure functions.

Exact semantics are written in ``docs/arc-operations.md``. Under ``vmap`` every env
runs every branch of a ``lax.switch``, so instead of 35 branches the operations are
grouped into families that share one computation each:

* paint: fill, flood fill, clear and cut write one colour into a region;
* transform: move, rotate, flip and paste read their source cells through an affine
  coordinate map looked up per operation in a small table (two row gathers);
* shape: copy-input and resize change the live rectangle;
* clipboard: copy and cut store the selected cells.

An invalid action is turned into :data:`NO_OP` before it gets here, and every family
leaves the grid unchanged for it. The two data-dependent parts, flood fill and the
transform gather, have custom batching rules that do their work once per batch.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int, Int8, Int32, UInt32

from gridax.batching import whole_batch_rule
from gridax.envs.arc.grid import GRID_SIZE, live_mask, pack_rows, unpack_rows

FILL = 0  # 0-9: fill colour c
FLOOD_FILL = 10  # 10-19: flood fill colour c
MOVE_UP, MOVE_DOWN, MOVE_LEFT, MOVE_RIGHT = 20, 21, 22, 23
ROTATE_CW, ROTATE_CCW = 24, 25
FLIP_HORIZONTAL, FLIP_VERTICAL = 26, 27
COPY, PASTE, CUT, CLEAR = 28, 29, 30, 31
COPY_INPUT, RESIZE, SUBMIT = 32, 33, 34
NUM_OPERATIONS = 35
NO_OP = 35  # internal: what an invalid action becomes; changes nothing

OPERATION_NAMES = (
    tuple(f"fill_{c}" for c in range(10))
    + tuple(f"flood_fill_{c}" for c in range(10))
    + (
        "move_up",
        "move_down",
        "move_left",
        "move_right",
        "rotate_cw",
        "rotate_ccw",
        "flip_horizontal",
        "flip_vertical",
        "copy",
        "paste",
        "cut",
        "clear",
        "copy_input",
        "resize",
        "submit",
    )
)


def _coordinate_tables() -> tuple[np.ndarray, np.ndarray]:
    """Per operation, the map from a destination cell (i, j) to its source cell.

    ``source_row = a*i + b*j + offset_row . v`` and ``source_col = c*i + d*j +
    offset_col . v`` with ``v = (top, left, bottom, right, clip_top, clip_left, 1)``:
    the selection's bounding box, the clipboard's origin and a constant.
    """
    linear = np.tile(np.array([1, 0, 0, 1], dtype=np.int32), (NO_OP + 1, 1))
    offset = np.zeros((NO_OP + 1, 2, 7), dtype=np.int32)
    one, top, left, bottom, right, clip_top, clip_left = 6, 0, 1, 2, 3, 4, 5
    offset[MOVE_UP, 0, one] = 1  # the cell below moves up into (i, j)
    offset[MOVE_DOWN, 0, one] = -1
    offset[MOVE_LEFT, 1, one] = 1
    offset[MOVE_RIGHT, 1, one] = -1
    # Rotations keep the bounding box's top-left corner fixed.
    linear[ROTATE_CW] = (0, -1, 1, 0)  # source = (bottom + left - j, left - top + i)
    offset[ROTATE_CW, 0, [bottom, left]] = 1
    offset[ROTATE_CW, 1, [left, top]] = (1, -1)
    linear[ROTATE_CCW] = (0, 1, -1, 0)  # source = (top - left + j, right + top - i)
    offset[ROTATE_CCW, 0, [top, left]] = (1, -1)
    offset[ROTATE_CCW, 1, [right, top]] = 1
    linear[FLIP_HORIZONTAL] = (1, 0, 0, -1)  # source = (i, left + right - j)
    offset[FLIP_HORIZONTAL, 1, [left, right]] = 1
    linear[FLIP_VERTICAL] = (-1, 0, 0, 1)  # source = (top + bottom - i, j)
    offset[FLIP_VERTICAL, 0, [top, bottom]] = 1
    # Paste aligns the clipboard's origin with the selection's top-left.
    offset[PASTE, 0, [top, clip_top]] = (-1, 1)
    offset[PASTE, 1, [left, clip_left]] = (-1, 1)
    return linear, offset


_LINEAR, _OFFSET = _coordinate_tables()


class Bounds(NamedTuple):
    """Inclusive bounding box of a selection; an empty one has top > bottom."""

    top: Int32[Array, ""]
    left: Int32[Array, ""]
    bottom: Int32[Array, ""]
    right: Int32[Array, ""]


class Selection(NamedTuple):
    """An action's selected cells: anywhere on the canvas (what resize reads) and on the
    live grid (what every other operation reads)."""

    canvas: Bool[Array, "30 30"]
    live: Bool[Array, "30 30"]


class Workspace(NamedTuple):
    """The parts of the state an operation reads and may change."""

    grid: Int8[Array, "30 30"]
    shape: Int32[Array, 2]
    clipboard: Int8[Array, "30 30"]
    clipboard_mask: Bool[Array, "30 30"]
    clipboard_origin: Int32[Array, 2]


def selection_bounds(selection: Bool[Array, "H W"]) -> Bounds:
    """Bounding box of the selected cells."""
    index = jnp.arange(selection.shape[0], dtype=jnp.int32)
    rows = jnp.any(selection, axis=1)
    cols = jnp.any(selection, axis=0)
    size = selection.shape[0]
    return Bounds(
        top=jnp.min(jnp.where(rows, index, size)),
        left=jnp.min(jnp.where(cols, index, size)),
        bottom=jnp.max(jnp.where(rows, index, -1)),
        right=jnp.max(jnp.where(cols, index, -1)),
    )


def _fill_along_rows(seeds: UInt32[Array, "*B"], links: UInt32[Array, "*B"]) -> UInt32[Array, "*B"]:
    """Cells of a bit-row reachable from ``seeds`` through ``links`` (bit c: c ~ c+1).

    Towards higher columns an addition does it in one go: the carry started at a seed
    runs through consecutive linked cells and stops at the first unlinked one. Towards
    lower columns five doubling steps (1, 2, 4, 8, 16 cells) cover the 30 columns.
    """
    passable = (links << 1) | seeds
    upward = (((passable + seeds) ^ passable) | seeds) & passable
    downward, reach = seeds, links
    for distance in (1, 2, 4, 8, 16):
        downward = downward | (reach & (downward >> distance))
        reach = reach & (reach >> distance)
    return upward | downward


def _flood_bit_rows(
    start: UInt32[Array, "H B"], across: UInt32[Array, "H B"], down: UInt32[Array, "H B"]
) -> UInt32[Array, "H B"]:
    """Flood fill on bit-rows laid out row-major across the batch.

    One sweep goes down the rows and back up, extending the region by whole runs of a
    row at a time; sweeps repeat while any env of the batch can still grow (on 1,024 real
    ARC grids with random seeds, the slowest env needed three sweeps, against 36 rounds of
    growing all rows at once).
    """
    nothing = jnp.zeros_like(start[0])
    down_from_above = jnp.concatenate([nothing[None], down[:-1]])

    def extend(previous_row, row_links):
        row, across_links, vertical_links = row_links
        row = _fill_along_rows(row | (previous_row & vertical_links), across_links)
        return row, row

    def sweep(region):
        _, region = jax.lax.scan(extend, nothing, (region, across, down_from_above))
        _, region = jax.lax.scan(extend, nothing, (region, across, down), reverse=True)
        return region

    def leaks_down(region):
        # After a down-and-up sweep every row is closed along itself and under the row
        # below it; only growth from a row into the row below can still be missing.
        return jnp.any(region[:-1] & down[:-1] & ~region[1:])

    def iterate(carry):
        region, _ = carry
        region = sweep(region)
        return region, leaks_down(region)

    region, _ = jax.lax.while_loop(lambda carry: carry[1], iterate, (start, jnp.any(start != 0)))
    return region


@jax.custom_batching.custom_vmap
def flood_fill_region(
    grid: Int8[Array, "*B H W"], seeds: Bool[Array, "*B H W"], live: Bool[Array, "*B H W"]
) -> Bool[Array, "*B H W"]:
    """Cells 4-connected to a seed through live cells of that seed's colour.

    Under ``vmap`` the whole batch is filled at once (a custom batching rule) so that
    the sweeps run on contiguous rows of the batch and stop as soon as every env is done.
    """
    shape = grid.shape
    grid, seeds, live = (x.reshape((-1,) + shape[-2:]) for x in (grid, seeds, live))
    links_across = (grid[..., :, 1:] == grid[..., :, :-1]) & live[..., :, 1:] & live[..., :, :-1]
    links_down = (grid[..., 1:, :] == grid[..., :-1, :]) & live[..., 1:, :] & live[..., :-1, :]
    no_col = jnp.zeros(grid.shape[:-1] + (1,), dtype=bool)
    no_row = jnp.zeros(grid.shape[:-2] + (1, grid.shape[-1]), dtype=bool)
    region = _flood_flooding_envs(
        pack_rows(seeds & live),
        pack_rows(jnp.concatenate([links_across, no_col], axis=-1)),
        pack_rows(jnp.concatenate([links_down, no_row], axis=-2)),
    )
    return unpack_rows(region, shape[-1]).reshape(shape)


# Batch sizes from which the batching rules take their big-batch paths (measured:
# benchmarks/RESULTS.md): flood fill sweeps only its flooding envs; the transform's
# gathers skip their bounds checks.
_COMPACT_FROM = 64
_UNCHECKED_GATHERS_FROM = 1024


def _flood_flooding_envs(start, across, down):
    """:func:`_flood_bit_rows` of bit-rows ``[N, H]``, swept over the envs that flood.

    Flooding envs are compacted to the front and the sweeps run on the smallest of
    N/4, N/2 or N envs that holds them all (a ``lax.switch``: one compiled sweep per
    size), so a batch where few envs flood sweeps shorter rows with as many launches.
    Envs without seeds come out empty either way.
    """
    n = start.shape[0]
    if n < _COMPACT_FROM:
        return _flood_bit_rows(start.T, across.T, down.T).T
    flooding = jnp.any(start != 0, axis=1)
    order = jnp.nonzero(flooding, size=n, fill_value=n)[0]

    def sweep_first(size: int):
        def run(start, across, down):
            if size == n:
                return _flood_bit_rows(start.T, across.T, down.T).T
            ids = order[:size]
            pick = [x.at[ids].get(mode="fill", fill_value=0).T for x in (start, across, down)]
            region = _flood_bit_rows(*pick).T
            return jnp.zeros_like(start).at[ids].set(region, mode="drop")

        return run

    sizes = (n // 4, n // 2, n)
    count = jnp.sum(flooding, dtype=jnp.int32)
    branch = (count > sizes[0]).astype(jnp.int32) + (count > sizes[1]).astype(jnp.int32)
    return jax.lax.switch(branch, [sweep_first(s) for s in sizes], start, across, down)


flood_fill_region.def_vmap(whole_batch_rule(flood_fill_region))


def source_maps(
    operation: Int[Array, ""], bounds: Bounds, clipboard_origin: Int32[Array, "2"]
) -> tuple[Int32[Array, " H"], Int32[Array, " W"], Bool[Array, ""]]:
    """Row and column maps of the transform family's gather (see :func:`transform_cells`).

    Every transform reads source cell ``(a*i + b*j + o_r, c*i + d*j + o_c)`` for
    destination ``(i, j)``, where either ``b = c = 0`` (moves, flips, paste) or
    ``a = d = 0`` (rotations). So the gather is separable: destination ``(i, j)`` reads
    ``base[row_map[i], col_map[j]]``, with ``base`` the source, or its transpose for a
    rotation. Indices off the canvas are mapped to ``GRID_SIZE``, a padding row/column.
    Returns ``(row_map, col_map, rotates)``.
    """
    a, b, c, d = (jnp.asarray(_LINEAR)[operation, k] for k in range(4))
    v = jnp.stack([*bounds, clipboard_origin[0], clipboard_origin[1], jnp.int32(1)])
    offset_row, offset_col = jnp.asarray(_OFFSET)[operation] @ v
    rotates = a == 0
    index = jnp.arange(GRID_SIZE, dtype=jnp.int32)
    row_map = (a + c) * index + jnp.where(rotates, offset_col, offset_row)
    col_map = (b + d) * index + jnp.where(rotates, offset_row, offset_col)

    def on_canvas(m):
        return jnp.where((m >= 0) & (m < GRID_SIZE), m, GRID_SIZE)

    return on_canvas(row_map), on_canvas(col_map), rotates


@jax.custom_batching.custom_vmap
def transform_cells(
    source: Int8[Array, "*B H W"],
    active: Bool[Array, "*B"],
    rotates: Bool[Array, "*B"],
    row_map: Int32[Array, "*B H"],
    col_map: Int32[Array, "*B W"],
) -> Int8[Array, "*B H W"]:
    """``base[row_map[i], col_map[j]]`` with ``base = source.T if rotates else source``.

    ``source`` holds -1 where there is nothing to move, and the padding row/column reads
    -1 too. The gather is two gathers of whole rows, far cheaper on a CPU than a gather
    of single cells. It sits behind a batch-level ``lax.cond`` (a custom batching rule
    keeps ``vmap`` from turning it into a select): it is skipped when no env is
    ``active``, and it stays a kernel of its own, so XLA does not fuse the gathers into
    (and slow down) the grid-wide kernel of the step.
    """

    def gather(source, rotates, row_map, col_map):
        base = jnp.where(rotates[..., None, None], jnp.swapaxes(source, -1, -2), source)
        padding = [(0, 0)] * (base.ndim - 2) + [(0, 1), (0, 1)]
        padded = jnp.pad(base, padding, constant_values=-1)
        # The maps never leave the padded grid (source_maps clamps them), so the gathers
        # need no bounds check; skipping it made 1,024-4,096-env steps 5-9 % faster but
        # 64-env steps 7-12 % slower (benchmarks/RESULTS.md), hence only for big batches.
        unchecked = base.ndim > 2 and base.shape[0] >= _UNCHECKED_GATHERS_FROM
        mode = "promise_in_bounds" if unchecked else None
        rows = jnp.take_along_axis(padded, row_map[..., :, None], axis=-2, mode=mode)
        return jnp.take_along_axis(rows, col_map[..., None, :], axis=-1, mode=mode)

    def nothing(source, rotates, row_map, col_map):
        return jnp.full_like(source, -1)

    return jax.lax.cond(jnp.any(active), gather, nothing, source, rotates, row_map, col_map)


transform_cells.def_vmap(whole_batch_rule(transform_cells))


class OperationFlags(NamedTuple):
    """What an operation does (which family it belongs to, its colour), decoded once per
    env."""

    paints_selection: Bool[Array, ""]  # fill, clear, cut write `colour` into the selection
    flood: Bool[Array, ""]
    colour: Int8[Array, ""]
    moves_selection: Bool[Array, ""]  # move, rotate, flip
    pastes: Bool[Array, ""]
    copies_input: Bool[Array, ""]
    resizes: Bool[Array, ""]
    stores: Bool[Array, ""]  # copy, cut fill the clipboard


def decode(operation: Int[Array, ""]) -> OperationFlags:
    """The flags of an operation id (0-34 or ``NO_OP``)."""
    return OperationFlags(
        paints_selection=(operation < FLOOD_FILL) | (operation == CLEAR) | (operation == CUT),
        flood=(operation >= FLOOD_FILL) & (operation < MOVE_UP),
        colour=jnp.where(operation < MOVE_UP, operation % 10, 0).astype(jnp.int8),
        moves_selection=(operation >= MOVE_UP) & (operation <= FLIP_VERTICAL),
        pastes=operation == PASTE,
        copies_input=operation == COPY_INPUT,
        resizes=operation == RESIZE,
        stores=(operation == COPY) | (operation == CUT),
    )


def apply_operation(
    operation: Int[Array, ""],
    selection: Selection,
    workspace: Workspace,
    *,
    input_grid: Int8[Array, "30 30"],
    input_shape: Int32[Array, 2],
) -> Workspace:
    """The workspace after a valid operation (0-34) or :data:`NO_OP`; copy-input reads
    the episode's input."""
    flags = decode(operation)
    grid, shape, clipboard, clipboard_mask, clipboard_origin = workspace
    selected = selection.live  # every operation but resize reads the live cells
    live = live_mask(shape)
    bounds = selection_bounds(selected)

    with jax.named_scope("paint"):  # fill, flood fill, clear, cut
        with jax.named_scope("flood_fill"):
            flooded = flood_fill_region(grid, selected & flags.flood, live)
        painted = (selected & flags.paints_selection) | flooded
        new_grid = jnp.where(painted, flags.colour, grid)

    with jax.named_scope("transform"):  # move, rotate, flip read the grid; paste the clipboard
        absent = jnp.int8(-1)
        source = jnp.where(
            flags.pastes,
            jnp.where(clipboard_mask, clipboard, absent),
            jnp.where(selected, grid, absent),
        )
        row_map, col_map, rotates = source_maps(operation, bounds, clipboard_origin)
        moved = transform_cells(
            source, flags.moves_selection | flags.pastes, rotates, row_map, col_map
        )
        vacated = jnp.where(selected & flags.moves_selection, jnp.int8(0), grid)
        transformed = jnp.where((moved >= 0) & live, moved, vacated)
        new_grid = jnp.where(flags.moves_selection | flags.pastes, transformed, new_grid)

    with jax.named_scope("shape"):  # copy input, resize
        new_grid = jnp.where(flags.copies_input, input_grid, new_grid)
        resize_bounds = selection_bounds(selection.canvas)
        resized_shape = jnp.stack([resize_bounds.bottom + 1, resize_bounds.right + 1])
        new_shape = jnp.where(flags.copies_input, input_shape, shape)
        new_shape = jnp.where(flags.resizes, resized_shape, new_shape)
        new_grid = jnp.where(live_mask(new_shape), new_grid, jnp.int8(0))

    with jax.named_scope("clipboard"):  # copy, cut
        stores = flags.stores
        return Workspace(
            grid=new_grid,
            shape=new_shape,
            clipboard=jnp.where(stores, jnp.where(selected, grid, jnp.int8(0)), clipboard),
            clipboard_mask=jnp.where(stores, selected, clipboard_mask),
            clipboard_origin=jnp.where(
                stores, jnp.stack([bounds.top, bounds.left]), clipboard_origin
            ),
        )


def needs_live_selection(operation: Int[Array, "*batch"]) -> Bool[Array, "*batch"]:
    """Operations 0-31 act on selected live cells and are invalid without one."""
    return (operation >= 0) & (operation <= CLEAR)


def ignores_selection(operation: Int[Array, "*batch"]) -> Bool[Array, "*batch"]:
    """Copy-input and submit accept any selection, even one off the canvas."""
    return (operation == COPY_INPUT) | (operation == SUBMIT)


__all__ = [
    "NUM_OPERATIONS",
    "OPERATION_NAMES",
    "Selection",
    "Workspace",
    "apply_operation",
    "flood_fill_region",
    "selection_bounds",
    "source_maps",
    "transform_cells",
]
