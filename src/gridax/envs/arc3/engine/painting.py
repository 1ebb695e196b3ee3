"""How the camera's view is painted: a static layer drawn once per level, the moving
sprites painted over it in their boxes.

arcengine draws every visible sprite in order (layer, then sprite order), each over its
own box, transparent pixels skipped: the top sprite's pixel shows. Here every pixel a
sprite draws is a *packed* int32, its sprite's draw key above its colour
(:func:`draw_keys`), so the pixel that shows at a cell is the largest one drawn there:
overlaps resolve by a max, in any order, deterministically.

- The **static layer** (:class:`Backdrop`): the sprites of the kinds a game declares
  static (``Game.static_kinds``: walls, decoration, boards, which never change during a
  level) drawn once per level when the level bank is built, packed, over the world
  cells the camera may see; and its view where the level's camera starts, taken whole
  by level in a frame whose camera is still there.
- The **moving sprites** (every other slot) are listed run by run: each one's box,
  clipped to the view, its rows cut into runs of :data:`RUN` cells, in a list of
  ``Game.paint_runs`` runs (static); every cell of a run reads its sprite's pixel, and
  the packed pixels are scattered onto the static layer with a max. A frame whose
  moving boxes do not fit the list (rare) samples the moving sprites at every view
  cell instead.
"""

from __future__ import annotations

import functools

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Int32

from gridax.batching import cond_rare, loop_to_largest
from gridax.envs.arc3.engine.sprites import (
    SpriteTable,
    StaticPixels,
    all_pixels_at,
    drawn_size,
    floor_divide,
    grid_area,
    rows_of,
    source_map,
    sprite_pixel,
)

# A draw key packs (layer, order) above the 4 bits of a colour: layers -128..127 in the
# top 8 bits, orders 0..2^19-1 in the next 19 (one level's slots and the sprites a
# rule adds after them: far more than any level reaches), so keys compare as arcengine
# sorts its sprites. Packed pixels are >= 0; NOTHING is no pixel.
LAYER_LOW, LAYER_HIGH = -128, 127
ORDER_BITS = 19
NOTHING = -1

# What a slot's drawing depends on besides its pixels (not blocking, collidability,
# kind or tags).
DRAWN_FIELDS = (
    "height", "width", "x", "y", "layer", "order", "scale", "quarter_turns", "mirror_ud",
    "mirror_lr", "visible", "exists",
)  # fmt: skip


def draw_keys(layer, order) -> Int32[Array, "..."]:
    """The packed draw key of sprites at ``layer`` with ``order`` (colour bits 0)."""
    layer = jnp.clip(layer, LAYER_LOW, LAYER_HIGH) - LAYER_LOW
    order = jnp.clip(order, 0, (1 << ORDER_BITS) - 1)
    return (layer << (ORDER_BITS + 4)) | (order << 4)


def colours_of(packed, background) -> jax.Array:
    """The colour of packed pixels, ``background`` where there is none."""
    return jnp.where(packed >= 0, packed & 15, background.astype(jnp.int32)).astype(jnp.int8)


def packed_at(
    table: SpriteTable,
    shown,
    world_rows,
    world_cols,
    max_downscale: int,
    static: StaticPixels | None = None,
    slots=None,
):
    """The top packed pixel of the slots ``shown`` at each world cell ``(world_rows,
    world_cols)`` (arrays that broadcast together), ``NOTHING`` where none draws: every
    slot sampled at every cell (``static``, ``slots``: as for ``all_pixels_at``)."""
    cells = jnp.broadcast_shapes(world_rows.shape, world_cols.shape)
    extra = (1,) * len(cells)
    shape = (table.x.shape[-1], *cells)
    local_rows = world_rows[None] - table.y.reshape(table.y.shape + extra)
    local_cols = world_cols[None] - table.x.reshape(table.x.shape + extra)
    samples = all_pixels_at(
        table,
        jnp.broadcast_to(local_rows, shape),
        jnp.broadcast_to(local_cols, shape),
        max_downscale,
        static,
        slots,
    )
    keys = draw_keys(table.layer, table.order).reshape(table.x.shape + extra)
    drawn = (samples >= 0) & (shown & table.visible & table.exists).reshape(table.x.shape + extra)
    return jnp.max(jnp.where(drawn, keys | samples.astype(jnp.int32), NOTHING), axis=0)


class Backdrop(eqx.Module):
    """A game's static layers, one per level (built with the level bank): the packed
    top pixel of each level's static sprites at every world cell of a window from world
    cell ``corner`` (``(x, y)``), nothing beyond them (the window holds a view's width of
    nothing around them, so that a view never leaves it), and each level's moving slots
    (``moving[L, D]``, ``NOTHING``-padded past the last).

    ``views`` holds each level's static view cut from world cell ``corners[L]`` (``(x,
    y)``: where the level's camera starts, less the view's place in a letterboxed
    frame): what every frame paints over in a game whose camera stays there, taken by
    level, not cut from the window per env (where the camera has moved, it is)."""

    packed: Int32[Array, "L H W"]
    moving: Int32[Array, "L D"]
    corner: Int32[Array, "2"]
    views: Int32[Array, "L V V"]
    corners: Int32[Array, "L 2"]


def _static_window(table: SpriteTable, static: np.ndarray, view_size: int):
    """``(x0, y0, width, height)``: the world cells a static layer covers: every static
    sprite (by its pixel grid's larger side times its scale: the most it is drawn at) and
    the view from the world's corner, with a view's width of nothing around; the sizes in
    steps of 32, so that games and tests share compilations."""
    x, y = np.asarray(table.x)[static], np.asarray(table.y)[static]
    side = np.maximum(np.asarray(table.height), np.asarray(table.width))
    side = (side * np.maximum(np.asarray(table.scale), 1))[static]
    x0 = min(0, int(x.min(initial=0))) - view_size
    y0 = min(0, int(y.min(initial=0))) - view_size
    x1 = max(view_size, int((x + side).max(initial=0))) + view_size
    y1 = max(view_size, int((y + side).max(initial=0))) + view_size
    return x0, y0, -(-(x1 - x0) // 32) * 32, -(-(y1 - y0) // 32) * 32


@functools.partial(jax.jit, static_argnums=(3, 4))
def _static_layers(table: SpriteTable, static, corner, size, max_downscale: int):
    """Each level's static layer over the ``size`` (height, width) cells from
    ``corner``."""
    rows = jnp.arange(size[0], dtype=jnp.int32)[:, None] + corner[1]
    cols = jnp.arange(size[1], dtype=jnp.int32)[None, :] + corner[0]
    return jax.vmap(lambda t, s: packed_at(t, s, rows, cols, max_downscale))(table, static)


def build_backdrop(
    table: SpriteTable,
    static: np.ndarray,
    view_size: int,
    max_downscale: int,
    corners: np.ndarray,
) -> Backdrop:
    """The static layer and the moving slots of each level of ``table`` (stacked
    ``[L, N]``, concrete) whose slots ``static`` (``[L, N]``) never change, and each
    level's static view from world cell ``corners[L]`` (:class:`Backdrop`). Runs once
    per game, when its level bank is built."""
    static = np.asarray(static, bool) & np.asarray(table.exists)
    slots = np.arange(static.shape[1])
    moving = np.full((static.shape[0], max(int((~static).sum(axis=1).max()), 1)), NOTHING)
    for level, still in enumerate(static):
        moving[level, : int((~still).sum())] = slots[~still]
    x0, y0, width, height = _static_window(table, static, view_size)
    corner = jnp.asarray((x0, y0), jnp.int32)
    packed = _static_layers(table, static, corner, (height, width), max_downscale)
    corners = np.asarray(corners, np.int32)
    views = [
        _static_cells(packed, corner, level, x, y, view_size)
        for level, (x, y) in enumerate(corners)
    ]
    moving = jnp.asarray(moving, jnp.int32)
    return Backdrop(packed, moving, corner, jnp.stack(views), jnp.asarray(corners))


def _static_cells(packed, corner, level, x, y, size: int) -> Int32[Array, "size size"]:
    """The ``size`` x ``size`` cells of level ``level``'s static layer (``packed``, from
    world cell ``corner``) from world cell ``(x, y)`` (beyond the layer's window:
    nothing, as the window's edges hold)."""
    height, width = packed.shape[1:]
    top = jnp.clip(y - corner[1], 0, height - size)
    left = jnp.clip(x - corner[0], 0, width - size)
    return jax.lax.dynamic_slice(packed, (level, top, left), (1, size, size))[0]


def _static_view(backdrop: Backdrop, level, camera, size: int, offset) -> Int32[Array, "size size"]:
    """The ``size`` x ``size`` cells of level ``level``'s static layer from the
    camera's corner less ``offset`` (``(left, top)``): the level's view, taken whole
    where that is the level's ``corners`` (its camera has not moved: a gather of one
    index an env, not three; alone, 1.3-2.3x cheaper at 64x64 cells, about the same at
    21x21; a select a level was dearer on small views and at 9 levels:
    benchmarks/RESULTS.md), cut from the layer where it is not."""
    x, y = camera.x - offset[0], camera.y - offset[1]
    moved = (x != backdrop.corners[level, 0]) | (y != backdrop.corners[level, 1])

    def cut(under, packed, corner, level, x, y):
        return _static_cells(packed, corner, level, x, y, size)

    args = (backdrop.packed, backdrop.corner, level, x, y)
    return cond_rare(moved, cut, backdrop.views[level], *args)


RUN = 8  # the view cells a list entry paints: up to 8 of one row of a moving sprite's box


def box_runs(height, width):
    """How many list entries a box of ``height`` x ``width`` view cells takes: each of
    its rows cut into runs of :data:`RUN` cells."""
    return height * (-(-width // RUN))


def _boxes_on_view(table: SpriteTable, moving, camera):
    """The ``moving`` slots' rows of the table, their boxes clipped to the view (``top,
    left, right``), their runs a row and their runs (0 for a slot not shown)."""
    sprites = rows_of(table, jnp.maximum(moving, 0))
    height, width = drawn_size(sprites)
    left = jnp.clip(sprites.x - camera.x, 0, camera.width)
    right = jnp.clip(sprites.x + width - camera.x, 0, camera.width)
    top = jnp.clip(sprites.y - camera.y, 0, camera.height)
    bottom = jnp.clip(sprites.y + height - camera.y, 0, camera.height)
    runs_a_row = box_runs(1, right - left)
    shown = sprites.visible & sprites.exists & (moving >= 0)
    return sprites, (top, left, right), runs_a_row, jnp.where(shown, runs_a_row * (bottom - top), 0)


def runs_needed(table: SpriteTable, moving, camera) -> Int32[Array, ""]:
    """How many runs the ``moving`` slots' boxes on the view take (what a frame's list
    must hold for them: ``Game.moving_runs``; tests/tools/moving_runs.py)."""
    return jnp.sum(_boxes_on_view(table, moving, camera)[3])


def moving_cells(table: SpriteTable, moving, camera, runs: int, max_downscale: int, static=None):
    """``(rows, cols, packed, fits)``: a list of ``runs`` (static) runs of :data:`RUN`
    view cells (``[runs, 1]`` rows, ``[runs, RUN]`` columns) holding every cell of the
    moving slots' boxes on the view, row by row, each with the packed pixel its slot
    draws there (``NOTHING`` for a transparent pixel, past its row's end or the
    list's end), and whether the boxes ``fit`` in the list. A run's slot, row and place
    are found once for its cells (a list of single cells paid that per cell: 1.2-1.3x
    on the ports with the longest lists, benchmarks/RESULTS.md). ``static``: where the
    level bank holds the pixels of moving slots the rule never repaints. For a game
    that scales sprites down (``max_downscale`` > 1); the others' lists are painted in
    chunks from :func:`_mapped_list`."""
    run = jnp.arange(runs, dtype=jnp.int32)
    sprites, (top, left, right), runs_a_row, slot_runs = _boxes_on_view(table, moving, camera)
    keys = draw_keys(sprites.layer, sprites.order)  # per slot, gathered per run below
    ends = jnp.cumsum(slot_runs)
    which = _slots_of_runs(ends, runs)
    offset = run - (ends[which] - slot_runs[which])
    safe_runs = jnp.maximum(runs_a_row[which], 1)
    down = floor_divide(offset, safe_runs)
    first = (offset - down * safe_runs) * RUN  # the run's first cell along its row
    row = top[which] + down
    cols = (left[which] + first)[:, None] + jnp.arange(RUN, dtype=jnp.int32)[None, :]
    in_row = cols < right[which][:, None]
    sprite = jax.tree.map(lambda column: column[:, None], rows_of(sprites, which))
    sprite = eqx.tree_at(lambda s: s.pixels, sprite, table.pixels)
    slot = jnp.maximum(moving[which], 0)[:, None]
    local_rows = (row + camera.y)[:, None] - sprite.y
    local_cols = cols + camera.x - sprite.x
    colour = sprite_pixel(
        sprite, local_rows, local_cols, max_downscale, slot * grid_area(table), static, slot
    )
    drawn = (run < ends[-1])[:, None] & in_row & (colour >= 0)
    packed = jnp.where(drawn, keys[which][:, None] | colour.astype(jnp.int32), NOTHING)
    return row[:, None], cols, packed, ends[-1] <= runs


def _slots_of_runs(ends, runs: int):
    """Each of ``runs`` runs' slot, from where each slot's runs ``ends``: how many slots'
    runs end at or before it (a count of ends, summed)."""
    ended = jnp.zeros(runs + 1, jnp.int32).at[jnp.minimum(ends, runs)].add(1)
    return jnp.minimum(jnp.cumsum(ended[:runs]), ends.shape[0] - 1)


def _mapped_list(table: SpriteTable, moving, camera, runs: int, static=None):
    """``(numbers, which, total)``: the moving slots' list for sprites not scaled down
    (:func:`moving_cells` is the scaled-down games'), as each moving slot's numbers
    (its box's runs, its draw key, its pixels' affine map: :func:`source_map`) stacked
    into one row (``[D, 13]``), each of the ``runs`` runs' slot, and how many runs the
    boxes take. A run gathers its slot's row once (a gather a number a run: the nine
    largest cost ar25 1.35 ms of 9.5: benchmarks/RESULTS.md); its cells are
    :func:`_mapped_cells`, painted by :func:`_painted_by_chunks`."""
    sprites, (top, left, right), runs_a_row, slot_runs = _boxes_on_view(table, moving, camera)
    keys = draw_keys(sprites.layer, sprites.order)
    ends = jnp.cumsum(slot_runs)
    slot = jnp.maximum(moving, 0)
    start, along_rows, along_cols = source_map(sprites, table.pixels.shape[-1])
    start = start + slot * grid_area(table)
    held = jnp.zeros_like(slot, dtype=bool)
    if static is not None:
        held = jnp.ones_like(held) if static.every else static.slots[slot]
        held_map = source_map(sprites, static.pixels.shape[-1])
        start = jnp.where(held, held_map[0] + static.base(slot), start)
        along_rows = jnp.where(held, held_map[1], along_rows)
        along_cols = jnp.where(held, held_map[2], along_cols)
    up = jnp.maximum(sprites.scale, 1)
    numbers = (ends - slot_runs, runs_a_row, top, left, right, keys, camera.y - sprites.y)
    numbers = (*numbers, camera.x - sprites.x, up, start, along_rows, along_cols)
    numbers = jnp.stack((*numbers, held.astype(jnp.int32)), axis=-1)
    return numbers, _slots_of_runs(ends, runs), ends[-1]


def _mapped_cells(table: SpriteTable, numbers, run, total, static):
    """``(rows, cols, packed)`` of the runs ``run`` (``[R]``), each with its slot's
    numbers (``[R, 13]``, :func:`_mapped_list`), up to run ``total``: a cell reads its
    pixel at ``start + along_rows * row + along_cols * column``."""
    first_run, runs_a_row, top, left, right, key, below, beside, up, start, along_rows, \
        along_cols, held = jnp.moveaxis(numbers, -1, 0)  # fmt: skip
    offset = run - first_run
    safe_runs = jnp.maximum(runs_a_row, 1)
    down = floor_divide(offset, safe_runs)
    row = top + down
    cols = (left + (offset - down * safe_runs) * RUN)[:, None]
    cols = cols + jnp.arange(RUN, dtype=jnp.int32)[None, :]
    source_row = floor_divide(row + below, up)
    source_cols = floor_divide(cols + beside[:, None], up[:, None])
    flat = (start + along_rows * source_row)[:, None] + along_cols[:, None] * source_cols
    own = table.pixels.reshape(-1)
    colour = own[jnp.clip(flat, 0, own.size - 1)]
    if static is not None:
        kept = static.pixels.reshape(-1)
        kept = kept[jnp.clip(flat, 0, kept.size - 1)]
        colour = kept if static.every else jnp.where(held[:, None] > 0, kept, colour)
    drawn = (run < total)[:, None] & (cols < right[:, None]) & (colour >= 0)
    packed = jnp.where(drawn, key[:, None] | colour.astype(jnp.int32), NOTHING)
    return row[:, None], cols, packed


def moving_everywhere(
    table: SpriteTable, moving, camera, size: int, max_downscale: int, static=None, offset=(0, 0)
):
    """The moving slots' top packed pixel at every one of the ``size`` x ``size`` cells
    from the camera's corner less ``offset`` (every moving slot sampled at every cell:
    for boxes that overflow the list)."""
    slots = jnp.maximum(moving, 0)
    sprites = jax.tree.map(lambda column: column[slots], table)
    rows = jnp.arange(size, dtype=jnp.int32)[:, None] + camera.y - offset[1]
    cols = jnp.arange(size, dtype=jnp.int32)[None, :] + camera.x - offset[0]
    return packed_at(sprites, moving >= 0, rows, cols, max_downscale, static, slots)


def _paint_runs(layer, size: int, rows, first_cols, packed):
    """``layer`` (the flat ``size`` x ``size`` view cells) with each run's :data:`RUN`
    packed pixels laid over it by a max from view cell ``(rows[r], first_cols[r])``
    on: one index a run, not one a cell (a scatter of single cells, and its indices,
    took ls20 2.8 ms of 20: benchmarks/RESULTS.md). A run that starts within a run of
    its row's end is laid from there back (its pixels shifted, ``NOTHING`` before them,
    which a max leaves as is), so that every run stays within its row."""
    if size < RUN:
        cols = first_cols[:, None] + jnp.arange(RUN, dtype=jnp.int32)[None, :]
        flat = jnp.where(cols < size, rows[:, None] * size + cols, size * size)
        return layer.at[flat].max(packed, mode="drop")
    start = jnp.minimum(first_cols, size - RUN)
    shift = (first_cols - start)[:, None]
    place = jnp.arange(RUN, dtype=jnp.int32)[None, :] - shift
    shifted = jnp.take_along_axis(packed, jnp.maximum(place, 0), axis=1)
    shifted = jnp.where(place >= 0, shifted, NOTHING)
    windows = jax.lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,)
    )
    starts = (rows * size + start)[:, None]
    mode = jax.lax.GatherScatterMode.FILL_OR_DROP
    return jax.lax.scatter_max(layer, starts, shifted, windows, mode=mode)


CHUNK = 32  # the runs of the list painted at a time (at most)


def _painted_by_chunks(
    layer, size: int, table: SpriteTable, moving, camera, runs: int, static, offset
):
    """``(layer, fits)``: the flat ``layer`` (``size`` x ``size`` cells, the view's from
    ``offset``) with the moving slots' list of ``runs`` runs (of sprites not scaled
    down) painted over it :data:`CHUNK` runs at a time, only as many chunks as its
    boxes take (batched: as the batch's fullest view takes), not the whole list: the
    list is sized for a game's fullest level, and in the bench's play a frame's boxes
    took a sixteenth (tu93) to three quarters (cd82) of it (benchmarks/RESULTS.md)."""
    numbers, which, total = _mapped_list(table, moving, camera, runs, static)
    listed = jnp.minimum(total, runs)
    chunk = min(CHUNK, runs)
    which = jnp.pad(which, (0, -(-runs // chunk) * chunk - runs))

    def paint_chunk(k, layer, numbers, which, listed, table, static, offset):
        run = k * chunk + jnp.arange(chunk, dtype=jnp.int32)
        slots = jax.lax.dynamic_slice(which, (k * chunk,), (chunk,))
        rows, cols, packed = _mapped_cells(table, numbers[slots], run, listed, static)
        return _paint_runs(layer, size, rows[:, 0] + offset[1], cols[:, 0] + offset[0], packed)

    count = -(-listed // chunk)
    operands = (numbers, which, listed, table, static, offset)
    return loop_to_largest(count, paint_chunk, layer, *operands), total <= runs


def paint_view(
    table: SpriteTable,
    camera,
    backdrop: Backdrop,
    level,
    size: int,
    runs: int,
    max_downscale: int,
    static: StaticPixels | None = None,
    offset=(0, 0),
) -> Int32[Array, "size size"]:
    """The packed top pixel at each of the ``size`` x ``size`` cells from the camera's
    corner less ``offset`` (``(left, top)``: where the view lies in a letterboxed frame)
    (module docstring): the level's static layer under the moving sprites, painted in
    their boxes on the view, or sampled at every cell in the envs of a batch whose boxes
    do not fit in ``runs`` runs. ``static``: where the level bank holds the pixels of
    moving sprites the rule never repaints."""
    offset = tuple(jnp.asarray(value, jnp.int32) for value in offset)
    under = _static_view(backdrop, level, camera, size, offset)
    moving = backdrop.moving[level]
    if max_downscale == 1:
        layer = under.reshape(-1)
        painted, fits = _painted_by_chunks(layer, size, table, moving, camera, runs, static, offset)
    else:
        rows, cols, packed, fits = moving_cells(table, moving, camera, runs, max_downscale, static)
        rows, cols = rows[:, 0] + offset[1], cols[:, 0] + offset[0]
        painted = _paint_runs(under.reshape(-1), size, rows, cols, packed)

    def everywhere(painted, table, camera, moving, static, offset):
        # Over what the list painted (the static layer and some moving pixels), not the
        # static layer: the same, as a max, and the static view is not kept for it.
        sprites = moving_everywhere(table, moving, camera, size, max_downscale, static, offset)
        return jnp.maximum(painted, sprites)

    painted = painted.reshape(size, size)
    args = (table, camera, moving, static, offset)
    return cond_rare(~fits, everywhere, painted, *args, compact_to=1 / 64, chunks=True)
