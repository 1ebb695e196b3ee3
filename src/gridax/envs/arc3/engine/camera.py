"""The camera: which part of the world is seen, and how its view becomes the 64x64 frame.

arcengine's pipeline: the view (``width`` x ``height`` cells from ``(x, y)``, filled with
``background``) gets every visible sprite by layer (lower first; equal layers in sprite
order), transparent pixels skipped (:mod:`gridax.envs.arc3.engine.painting`); it is scaled up by
the largest whole factor that fits 64x64, centred, and the rest filled with
``letterbox`` (:func:`upscale`); a UI layer is drawn last.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Int8, Int32

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


def fit(width: int, height: int) -> tuple[int, int, int]:
    """``(scale, left, top)`` of a view of ``width`` x ``height`` cells (static) in the
    frame: :func:`scale_and_offset` of a size known when tracing."""
    scale = min(SCREEN // width, SCREEN // height)
    return scale, (SCREEN - width * scale) // 2, (SCREEN - height * scale) // 2


def _sources(width: int, height: int, edge: int) -> tuple[np.ndarray, np.ndarray]:
    """``(columns, rows)``: the view column and row each screen column and row of a view
    of ``width`` x ``height`` cells (static) shows, scaled up by the largest whole factor
    that fits and centred; ``edge`` where the letterbox shows."""
    scale, left, top = fit(width, height)
    pixels = np.arange(SCREEN)
    in_cols = (pixels >= left) & (pixels < left + width * scale)
    in_rows = (pixels >= top) & (pixels < top + height * scale)
    return (
        np.where(in_cols, (pixels - left) // scale, edge),
        np.where(in_rows, (pixels - top) // scale, edge),
    )


def upscale(
    seen: Int8[Array, "size size"],
    camera: Camera,
    sizes: tuple[tuple[int, int], ...] | None = None,
) -> Int8[Array, "64 64"]:
    """The 64x64 frame of the view ``seen`` (its top-left ``height`` x ``width`` cells):
    scaled up by the largest whole factor that fits, centred, letterboxed. ``sizes`` are
    the camera's possible ``(width, height)`` (static: a game's levels'); None (any
    size) picks every pixel's cell by one-hot products instead.

    A game of one size repeats each cell, pads and letterboxes, in one pass that the
    game's UI joins. A game of several sizes takes each screen column's view column,
    then each screen row's row of those (the letterbox a column and a row more): two
    gathers by index tables of 64 that the camera's size picks, so that one frame is
    drawn, not one per size and one of them picked (tu93, five sizes: 1.51-1.64x; ar25,
    one size, drawn so ran at 0.75x: benchmarks/RESULTS.md)."""
    if sizes is None:
        return _upscaled_any(seen, camera)
    if len(sizes) == 1:
        return _upscaled(seen, *sizes[0], camera.letterbox)
    size = seen.shape[-1]
    tables = [_sources(width, height, size) for width, height in sizes]
    columns, rows = (jnp.asarray(np.stack(t), jnp.int32) for t in zip(*tables, strict=True))
    which = _size_index(camera, sizes)
    # The tables index within the view and its edge: no bounds' select (jnp.take's
    # default fills past the end: tu93 1.09x, m0r0 1.06x without it).
    letterbox = camera.letterbox.astype(jnp.int8)
    with_edge = jnp.concatenate([seen, jnp.broadcast_to(letterbox, (size, 1))], axis=1)
    by_column = jnp.take(with_edge, columns[which], axis=1, mode="clip")
    with_edge = jnp.concatenate([by_column, jnp.broadcast_to(letterbox, (1, SCREEN))])
    return jnp.take(with_edge, rows[which], axis=0, mode="clip").astype(jnp.int8)


def letterboxed(frame, camera: Camera, left, top) -> Int8[Array, "64 64"]:
    """A ``frame`` painted whole, its view (drawn unscaled) from screen ``(left,
    top)``, with the letterbox around the view."""
    rows = jnp.arange(SCREEN, dtype=jnp.int32)[:, None] - top
    cols = jnp.arange(SCREEN, dtype=jnp.int32)[None, :] - left
    inside = (rows >= 0) & (rows < camera.height) & (cols >= 0) & (cols < camera.width)
    return jnp.where(inside, frame, camera.letterbox).astype(jnp.int8)


def _size_index(camera: Camera, sizes: tuple[tuple[int, int], ...]) -> jax.Array:
    """The index in ``sizes`` (static ``(width, height)`` pairs) of the camera's size."""
    which = jnp.zeros((), jnp.int32)
    for k, (width, height) in enumerate(sizes[1:], start=1):
        which = jnp.where((camera.width == width) & (camera.height == height), k, which)
    return which


def cells_on_screen(cells, camera: Camera, sizes: tuple[tuple[int, int], ...]):
    """``(shown, on_edge)``, each ``[64, 64]``: the value of ``cells`` (``[size, size]``,
    one per view cell) at the view cell every screen pixel shows (0 on the letterbox),
    and whether the pixel lies on the edge of that cell's square. For a UI that draws
    over view cells: one gather by an index table the camera's size picks, not each
    pixel's cell worked out from the camera (m0r0's outlines and hatching took 40 of its
    57 ms at 1,024 envs that way; by the frame's two gathers, which XLA fused into the
    UI's pass, 16: benchmarks/RESULTS.md)."""
    size = cells.shape[-1]
    tables = [_cell_table(width, height, size) for width, height in sizes]
    which = _size_index(camera, sizes)
    index, edges = (jnp.asarray(np.stack(t))[which] for t in zip(*tables, strict=True))
    flat = jnp.concatenate([cells.reshape(-1), jnp.zeros(1, cells.dtype)])  # last: letterbox
    return flat[index], edges


def _cell_table(width: int, height: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(index, on_edge)``, each ``[64, 64]``, for a view of ``width`` x ``height``
    cells (static) drawn from a grid of ``size`` x ``size``: the flat grid cell each
    screen pixel shows (``size * size`` on the letterbox), and the pixels on the edge
    of their cell's square."""
    columns, rows = _sources(width, height, size)
    on_view = (rows[:, None] < size) & (columns[None, :] < size)
    index = np.where(on_view, rows[:, None] * size + columns[None, :], size * size)
    scale, left, top = fit(width, height)
    pixels = np.arange(SCREEN)
    column, row = (pixels - left) % scale, (pixels - top) % scale
    edges = np.isin(row, (0, scale - 1))[:, None] | np.isin(column, (0, scale - 1))[None, :]
    return index, edges


def _upscaled(seen, width: int, height: int, letterbox) -> Int8[Array, "64 64"]:
    """The frame of a view of ``width`` x ``height`` cells (static): each cell repeated
    into a square of the scale, centred, letterboxed."""
    scale, left, top = fit(width, height)
    block = jnp.repeat(jnp.repeat(seen[:height, :width], scale, axis=0), scale, axis=1)
    rows, cols = SCREEN - height * scale - top, SCREEN - width * scale - left
    inside = np.zeros((SCREEN, SCREEN), bool)
    inside[top : top + height * scale, left : left + width * scale] = True
    padded = jnp.pad(block, ((top, rows), (left, cols)))
    return jnp.where(inside, padded, letterbox).astype(jnp.int8)


def _upscaled_any(seen, camera: Camera) -> Int8[Array, "64 64"]:
    """:func:`upscale` of a camera of any size (traced)."""
    size = seen.shape[-1]
    scale, x_offset, y_offset = scale_and_offset(camera)
    rows = jnp.arange(SCREEN, dtype=jnp.int32)[:, None] - y_offset
    cols = jnp.arange(SCREEN, dtype=jnp.int32)[None, :] - x_offset
    inside = (rows >= 0) & (cols >= 0)
    inside = inside & (rows < camera.height * scale) & (cols < camera.width * scale)
    # Two one-hot products (screen row <- view row, view column <- screen column): exact
    # for colours.
    cells = jnp.arange(size, dtype=jnp.int32)
    pick_rows = (rows // scale == cells[None, :]).astype(jnp.float32)  # [64, size]
    pick_cols = (cols.T // scale == cells[None, :]).astype(jnp.float32)  # [64, size]
    scaled = pick_rows @ seen.astype(jnp.float32) @ pick_cols.T
    return jnp.where(inside, scaled.astype(jnp.int8), camera.letterbox).astype(jnp.int8)


def screen_to_world(camera: Camera, screen_x, screen_y):
    """``(x, y, on_view)``: the world cell under a screen pixel (arcengine's
    ``display_to_grid``); ``on_view`` is false on the letterbox."""
    scale, x_offset, y_offset = scale_and_offset(camera)
    dx, dy = screen_x - x_offset, screen_y - y_offset
    cell_x, cell_y = dx // scale, dy // scale
    on_view = (dx >= 0) & (dy >= 0) & (cell_x < camera.width) & (cell_y < camera.height)
    return cell_x + camera.x, cell_y + camera.y, on_view


def _span(start: int, length: int) -> slice:
    """The screen pixels ``[start, start + length)`` along one axis, clipped."""
    return slice(min(max(start, 0), SCREEN), min(max(start + length, 0), SCREEN))


def draw_rect(screen, x, y, width, height, colour: int, when: bool | jax.Array = True):
    """``screen`` with a ``width`` x ``height`` rectangle of ``colour`` from screen
    ``(x, y)`` where ``when`` (a UI element); the sizes may be traced (a bar that grows).

    Only the band of rows the rectangle may cover is rewritten where its top and height
    are given as Python ints, as a UI's bars and dots are (a band of columns, written
    batched, is a scatter: no quicker than the whole frame for r11l's bar): XLA
    fuses the per-env numbers of a rectangle (a bar's length, ``when``) into the pass
    over the pixels it rewrites and computes them again at every one (over the whole
    64x64 frame, 45 % of cn04's step: benchmarks/RESULTS.md)."""
    colour = jnp.int8(colour)
    if isinstance(y, int) and isinstance(height, int):
        rows = _span(y, height)
        cols = jnp.arange(SCREEN, dtype=jnp.int32)[None, :] - x
        inside = (cols >= 0) & (cols < width)
        band = screen[..., rows, :]
        return screen.at[..., rows, :].set(jnp.where(inside & when, colour, band))
    rows = jnp.arange(SCREEN, dtype=jnp.int32)[:, None] - y
    cols = jnp.arange(SCREEN, dtype=jnp.int32)[None, :] - x
    inside = (rows >= 0) & (cols >= 0) & (rows < height) & (cols < width)
    return jnp.where(inside & when, colour, screen).astype(jnp.int8)


def draw_square(screen, x, y, size: int, colour: int, when: bool | jax.Array = True):
    """:func:`draw_rect` of a ``size`` x ``size`` square."""
    return draw_rect(screen, x, y, size, size, colour, when)
