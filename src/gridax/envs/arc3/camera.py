"""The camera: which part of the world is seen, and the 64x64 frame it renders.

arcengine's pipeline: the view (``width`` x ``height`` cells from ``(x, y)``, filled with
``background``) gets every visible sprite by layer (lower first; equal layers in sprite
order), transparent pixels skipped; it is scaled up by the largest whole factor that fits
64x64, centred, and the rest filled with ``letterbox``; a UI layer is drawn last.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Int8, Int32

from gridax.envs.arc3.sprites import SpriteTable, all_pixels_at, drawn_size
from gridax.fields import as_dtype

SCREEN = 64


class Camera(eqx.Module):
    """Where the camera looks (world cells) and its colours."""

    x: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    y: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    width: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    height: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    background: Int8[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int8))
    letterbox: Int8[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int8))


def with_colours(camera: Camera, background, letterbox, when: bool | jax.Array = True) -> Camera:
    """``camera`` with new background and letterbox colours where ``when``."""
    colours = (
        jnp.where(when, background, camera.background),
        jnp.where(when, letterbox, camera.letterbox),
    )
    return eqx.tree_at(lambda c: (c.background, c.letterbox), camera, colours)


def scale_and_offset(camera: Camera):
    """``(scale, x_offset, y_offset)`` of the view in the 64x64 frame."""
    scale = jnp.minimum(SCREEN // camera.width, SCREEN // camera.height)
    return (
        scale,
        (SCREEN - camera.width * scale) // 2,
        (SCREEN - camera.height * scale) // 2,
    )


def draw_order(table: SpriteTable) -> Int32[Array, " N"]:
    """Each slot's rank in drawing order: by layer, then by ``order``."""
    return jnp.argsort(jnp.lexsort((table.order, table.layer))).astype(jnp.int32)


def _colours_at(table: SpriteTable, camera: Camera, world_rows, world_cols, max_downscale: int):
    """The colour drawn at each world cell ``(world_rows, world_cols)`` (arrays that
    broadcast together): the top sprite's pixel there, or the camera's background."""
    cells = jnp.broadcast_shapes(world_rows.shape, world_cols.shape)
    shape = (table.x.shape[-1], *cells)
    extra = (1,) * len(cells)
    local_rows = world_rows[None] - table.y.reshape(table.y.shape + extra)
    local_cols = world_cols[None] - table.x.reshape(table.x.shape + extra)
    samples = all_pixels_at(
        table,
        jnp.broadcast_to(local_rows, shape),
        jnp.broadcast_to(local_cols, shape),
        max_downscale,
    )
    shown = (table.visible & table.exists).reshape(table.x.shape + extra)
    drawn = (samples >= 0) & shown
    rank = jnp.where(drawn, draw_order(table).reshape(table.x.shape + extra), -1)
    top = jnp.argmax(rank, axis=0)
    colour = jnp.take_along_axis(samples, top[None], axis=0)[0]
    return jnp.where(jnp.max(rank, axis=0) >= 0, colour, camera.background).astype(jnp.int8)


def view(
    table: SpriteTable, camera: Camera, max_downscale: int = 1, size: int = SCREEN, origin=(0, 0)
) -> Int8[Array, "size size"]:
    """The camera's view at one pixel per cell, in the top-left ``height`` x ``width``
    corner of a ``size`` x ``size`` array (the cells beyond it are sampled too: the
    callers mask them). ``size`` (static) bounds the camera's width and height: a game's
    largest view, so that a small view samples its sprites at few cells. With ``origin``
    ``(x, y)``, the ``size`` x ``size`` cells of the view from that cell."""
    rows = jnp.arange(size, dtype=jnp.int32)[:, None] + origin[1]
    cols = jnp.arange(size, dtype=jnp.int32)[None, :] + origin[0]
    return _colours_at(table, camera, rows + camera.y, cols + camera.x, max_downscale)


def frame(
    table: SpriteTable, camera: Camera, max_downscale: int = 1, size: int = SCREEN
) -> Int8[Array, "64 64"]:
    """The 64x64 frame before the UI layer: the view (:func:`view`) scaled up and
    letterboxed."""
    seen = view(table, camera, max_downscale, size)
    scale, x_offset, y_offset = scale_and_offset(camera)
    rows = jnp.arange(SCREEN, dtype=jnp.int32)[:, None] - y_offset
    cols = jnp.arange(SCREEN, dtype=jnp.int32)[None, :] - x_offset
    inside = (rows >= 0) & (cols >= 0)
    inside = inside & (rows < camera.height * scale) & (cols < camera.width * scale)
    # Upscaling as two one-hot products (screen row <- view row, view column <- screen
    # column): exact for colours, and far cheaper on a CPU than a gather per pixel.
    cells = jnp.arange(size, dtype=jnp.int32)
    pick_rows = (rows // scale == cells[None, :]).astype(jnp.float32)  # [64, size]
    pick_cols = (cols.T // scale == cells[None, :]).astype(jnp.float32)  # [64, size]
    scaled = pick_rows @ seen.astype(jnp.float32) @ pick_cols.T
    return jnp.where(inside, scaled.astype(jnp.int8), camera.letterbox).astype(jnp.int8)


# What a slot's drawing depends on besides its pixels (not blocking, collidability,
# kind or tags).
DRAWN_FIELDS = (
    "height", "width", "x", "y", "layer", "order", "scale", "quarter_turns", "mirror_ud",
    "mirror_lr", "visible", "exists",
)  # fmt: skip


def _span(marked):
    """``(first, last + 1)`` of the true entries along the last axis (``(0, 0)`` if none)."""
    size = marked.shape[-1]
    first = jnp.argmax(marked, axis=-1)
    end = size - jnp.argmax(marked[..., ::-1], axis=-1)
    some = jnp.any(marked, axis=-1)
    return jnp.where(some, first, 0), jnp.where(some, end, 0)


def changed_boxes(old: SpriteTable, new: SpriteTable):
    """Per slot, ``((old x, y, width, height), (new ...), in_place, changed)``: the boxes
    a slot drawn in either table covers, where its drawing changed; for an untransformed
    sprite that changed only pixels (``in_place``), the new box is the changed pixels'
    box alone. :func:`changed_area` and :func:`changed_cells` read them (worked out once
    a frame)."""
    moved = jnp.zeros(old.x.shape, bool)
    for name in DRAWN_FIELDS:
        moved = moved | (getattr(old, name) != getattr(new, name))
    repainted = old.pixels != new.pixels  # [N, P, P]
    rows0, rows1 = _span(jnp.any(repainted, axis=2))
    cols0, cols1 = _span(jnp.any(repainted, axis=1))
    plain = (new.scale == 1) & (new.quarter_turns % 4 == 0) & ~new.mirror_ud & ~new.mirror_lr
    in_place = plain & ~moved  # the changed pixels' box is enough
    changed = moved | (rows1 > rows0)
    changed = changed & ((old.visible & old.exists) | (new.visible & new.exists))
    (old_h, old_w), (new_h, new_w) = drawn_size(old), drawn_size(new)
    new_box = (
        jnp.where(in_place, new.x + cols0, new.x),
        jnp.where(in_place, new.y + rows0, new.y),
        jnp.where(in_place, cols1 - cols0, new_w),
        jnp.where(in_place, rows1 - rows0, new_h),
    )
    return ((old.x, old.y, old_w, old_h), new_box), in_place, changed


def changed_area(changes, camera: Camera):
    """``(x0, y0, x1, y1)``: the view cells (half-open, clipped to the view) that may be
    drawn differently, from :func:`changed_boxes`: for every slot drawn in either table
    whose drawing changed, its old and new boxes, or only the box of the changed pixels
    of an untransformed sprite that changed nothing else. Empty (``x0 >= x1``) when
    nothing changed."""
    ((old_x, old_y, old_w, old_h), (new_x, new_y, new_w, new_h)), in_place, changed = changes
    far = jnp.int32(1 << 20)

    def bounds(old_at, new_at, old_size, new_size, camera_at, extent):
        low = jnp.where(in_place, new_at, jnp.minimum(old_at, new_at))
        high = jnp.where(
            in_place, new_at + new_size, jnp.maximum(old_at + old_size, new_at + new_size)
        )
        low, high = jnp.min(jnp.where(changed, low, far)), jnp.max(jnp.where(changed, high, -far))
        return jnp.clip(low - camera_at, 0, extent), jnp.clip(high - camera_at, 0, extent)

    x0, x1 = bounds(old_x, new_x, old_w, new_w, camera.x, camera.width)
    y0, y1 = bounds(old_y, new_y, old_h, new_h, camera.y, camera.height)
    return x0, y0, x1, y1


def changed_cells(changes, camera: Camera, limit: int):
    """``(rows, cols, valid, fits)``: a list of ``limit`` (static) view cells that holds
    every cell that may be drawn differently, from :func:`changed_boxes` (as
    :func:`changed_area`, but box by box: a slot's old box, its new box, or its changed
    pixels' box; cells of overlapping boxes listed twice), the entries past the last
    not ``valid``, and whether they ``fit`` in ``limit``. Two small changes far apart
    (a bar's end and a tile) list a few cells where their joint box holds thousands."""
    ((old_x, old_y, old_w, old_h), (new_x, new_y, new_w, new_h)), in_place, changed = changes
    left = jnp.concatenate([old_x, new_x]) - camera.x
    top = jnp.concatenate([old_y, new_y]) - camera.y
    right = left + jnp.concatenate([old_w, new_w])
    bottom = top + jnp.concatenate([old_h, new_h])
    used = jnp.concatenate([changed & ~in_place, changed])
    left, right = jnp.clip(left, 0, camera.width), jnp.clip(right, 0, camera.width)
    top, bottom = jnp.clip(top, 0, camera.height), jnp.clip(bottom, 0, camera.height)
    width = right - left
    area = jnp.where(used, width * (bottom - top), 0)
    ends = jnp.cumsum(area)
    cells = jnp.arange(limit, dtype=jnp.int32)
    box = jnp.clip(jnp.searchsorted(ends, cells, side="right"), 0, area.shape[0] - 1)
    offset = cells - (ends[box] - area[box])
    safe = jnp.maximum(width[box], 1)
    rows, cols = top[box] + offset // safe, left[box] + offset % safe
    return rows, cols, cells < ends[-1], ends[-1] <= limit


def redraw_cells(canvas, table: SpriteTable, camera: Camera, rows, cols, valid, max_downscale=1):
    """``canvas`` with the view cells ``(rows, cols)`` (where ``valid``) drawn again, for
    a view at one screen pixel per cell (scale 1): what :func:`frame` draws there."""
    colours = _colours_at(table, camera, rows + camera.y, cols + camera.x, max_downscale)
    _, x_offset, y_offset = scale_and_offset(camera)
    at = jnp.where(valid, (rows + y_offset) * SCREEN + cols + x_offset, SCREEN * SCREEN)
    return canvas.reshape(-1).at[at].set(colours, mode="drop").reshape(SCREEN, SCREEN)


def redraw(
    canvas: Int8[Array, "64 64"],
    table: SpriteTable,
    camera: Camera,
    origin,
    window: int,
    max_downscale: int = 1,
) -> Int8[Array, "64 64"]:
    """``canvas`` (a :func:`frame`) with the ``window`` x ``window`` view cells from
    ``origin`` (``(x, y)``, static ``window``) drawn again: what :func:`frame` draws
    there, the rest of the canvas kept. Cells off the view are left alone."""
    patch = view(table, camera, max_downscale, window, origin)
    scale, x_offset, y_offset = scale_and_offset(camera)
    pixels = jnp.arange(SCREEN, dtype=jnp.int32)
    # Window cell of every screen row and column (negative or >= window: outside).
    rows = (pixels - y_offset) // scale - origin[1]
    cols = (pixels - x_offset) // scale - origin[0]
    row_in = (rows >= 0) & (rows < window) & (rows + origin[1] < camera.height)
    col_in = (cols >= 0) & (cols < window) & (cols + origin[0] < camera.width)
    # Upscaling by selects over the window's few cells, first across, then down.
    across = patch[:, 0:1]
    for j in range(1, window):
        across = jnp.where(cols[None, :] == j, patch[:, j : j + 1], across)  # [window, 64]
    drawn = across[0:1]
    for k in range(1, window):
        drawn = jnp.where(rows[:, None] == k, across[k : k + 1], drawn)  # [64, 64]
    return jnp.where(row_in[:, None] & col_in[None, :], drawn, canvas).astype(jnp.int8)


def screen_to_world(camera: Camera, screen_x, screen_y):
    """``(x, y, on_view)``: the world cell under a screen pixel (arcengine's
    ``display_to_grid``); ``on_view`` is false on the letterbox."""
    scale, x_offset, y_offset = scale_and_offset(camera)
    dx, dy = screen_x - x_offset, screen_y - y_offset
    cell_x, cell_y = dx // scale, dy // scale
    on_view = (dx >= 0) & (dy >= 0) & (cell_x < camera.width) & (cell_y < camera.height)
    return cell_x + camera.x, cell_y + camera.y, on_view


def screen_cells(camera: Camera):
    """``(x, y, column, row, on_view)``, each ``[64, 64]``: the world cell under every
    screen pixel, where the pixel lies inside that cell's ``scale`` x ``scale`` square
    (0 at its top-left), and whether it is on the view (not the letterbox). For UIs that
    draw over world cells, as arcengine games do from ``grid * scale + offset``."""
    scale, x_offset, y_offset = scale_and_offset(camera)
    pixels = jnp.arange(SCREEN, dtype=jnp.int32)
    dy, dx = (pixels - y_offset)[:, None], (pixels - x_offset)[None, :]
    dy, dx = jnp.broadcast_to(dy, (SCREEN, SCREEN)), jnp.broadcast_to(dx, (SCREEN, SCREEN))
    on_view = (dx >= 0) & (dy >= 0) & (dx < camera.width * scale) & (dy < camera.height * scale)
    return dx // scale + camera.x, dy // scale + camera.y, dx % scale, dy % scale, on_view


def draw_rect(screen, x, y, width, height, colour: int, when: bool | jax.Array = True):
    """``screen`` with a ``width`` x ``height`` rectangle of ``colour`` from screen
    ``(x, y)`` where ``when`` (a UI element); the sizes may be traced (a bar that grows).
    A rectangle given as Python ints is a constant mask, so that a few of them fuse into
    one cheap pass over the screen."""
    if all(isinstance(v, int) for v in (x, y, width, height)):
        inside = np.zeros((SCREEN, SCREEN), bool)
        inside[max(y, 0) : max(y + height, 0), max(x, 0) : max(x + width, 0)] = True
    else:
        rows = jnp.arange(SCREEN, dtype=jnp.int32)[:, None] - y
        cols = jnp.arange(SCREEN, dtype=jnp.int32)[None, :] - x
        inside = (rows >= 0) & (cols >= 0) & (rows < height) & (cols < width)
    return jnp.where(inside & when, jnp.int8(colour), screen).astype(jnp.int8)


def draw_square(screen, x, y, size: int, colour: int, when: bool | jax.Array = True):
    """:func:`draw_rect` of a ``size`` x ``size`` square."""
    return draw_rect(screen, x, y, size, size, colour, when)
