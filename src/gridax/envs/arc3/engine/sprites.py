"""Sprites: as a game writes them (:class:`Sprite`, Python) and as the engine steps them
(:class:`SpriteTable`, padded arrays, one row per sprite slot).

The semantics are ARC Prize's engine's (`arcengine`, docs/arc3.md):

- pixels are colours 0-15, or -1 for a transparent pixel; other negative values
  (ARC Prize's games use -2) are not drawn but are solid: arcengine draws pixels ``>= 0``
  and collides and clicks on pixels ``!= -1``;
- a sprite is drawn rotated clockwise by ``rotation`` degrees, then mirrored up/down,
  then left/right, then scaled: ``scale`` > 1 repeats each pixel ``scale`` times, ``scale``
  < 0 divides the size by ``1 - scale``, each block becoming its most frequent colour
  (ties to the highest colour; transparent when more of the block is transparent than
  not);
- ``visible`` sprites are drawn, ``collidable`` ones collide (arcengine's interaction
  modes: tangible = both, intangible = visible only, invisible = collidable only,
  removed = neither); ``blocking`` says how: not at all, by bounding box, or pixel by
  pixel.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int8, Int32

from gridax.fields import as_dtype

TRANSPARENT = -1
INVISIBLE_MIN = -128  # any other negative int8 is an invisible, solid pixel
NUM_COLOURS = 16
VALID_ROTATIONS = (0, 90, 180, 270)


class Blocking(IntEnum):
    """How a sprite blocks others (arcengine's ``BlockingMode``)."""

    NOT_BLOCKED = 0
    BOUNDING_BOX = 1
    PIXEL_PERFECT = 2


@dataclass(frozen=True)
class Sprite:
    """A sprite as a level declares it. ``kind`` names what it is to the game's rule
    (``"player"``, ``"wall"``): sprites of one kind are found together, the way arcengine
    games look sprites up by name or tag. ``tags`` are extra labels (``"sys_click"``)."""

    pixels: tuple[tuple[int, ...], ...]
    kind: str
    x: int = 0
    y: int = 0
    layer: int = 0
    scale: int = 1
    rotation: int = 0
    mirror_ud: bool = False
    mirror_lr: bool = False
    blocking: Blocking = Blocking.PIXEL_PERFECT
    visible: bool = True
    collidable: bool = True
    tags: tuple[str, ...] = field(default=())

    def __post_init__(self):
        rows = np.asarray(self.pixels)
        where = f"sprite {self.kind!r}"
        if rows.ndim != 2 or rows.size == 0:
            raise ValueError(f"{where}: pixels must be a non-empty 2-D grid, got {rows.shape}")
        if rows.min() < INVISIBLE_MIN or rows.max() >= NUM_COLOURS:
            raise ValueError(
                f"{where}: pixels must be colours 0-{NUM_COLOURS - 1}, {TRANSPARENT} "
                f"(transparent) or down to {INVISIBLE_MIN} (invisible but solid), got values "
                f"{rows.min()}..{rows.max()}"
            )
        if self.rotation % 360 not in VALID_ROTATIONS:
            raise ValueError(f"{where}: rotation must be one of {VALID_ROTATIONS}: {self.rotation}")
        if self.scale == 0:
            raise ValueError(f"{where}: scale cannot be 0 (1 = as drawn, 2 = double, -1 = half)")
        if self.scale < 0:
            factor = 1 - self.scale
            if rows.shape[0] % factor or rows.shape[1] % factor:
                raise ValueError(
                    f"{where}: scale {self.scale} divides the size by {factor}, which must "
                    f"divide the pixels' shape {rows.shape}"
                )

    @property
    def drawn_shape(self) -> tuple[int, int]:
        """``(height, width)`` as drawn: rotated, then scaled."""
        height, width = len(self.pixels), len(self.pixels[0])
        if self.rotation % 180:
            height, width = width, height
        up, down = max(self.scale, 1), 1 - self.scale if self.scale < 0 else 1
        return height * up // down, width * up // down


class SpriteTable(eqx.Module):
    """Sprite slots ``[N]`` of one level (or a batch of them: leading axes first).

    ``order`` breaks ties between equal layers (lower draws first), as the position in
    arcengine's sprite list does; empty slots have ``exists`` false."""

    pixels: Int8[Array, "*b N P P"] = eqx.field(converter=as_dtype(jnp.int8))
    height: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))  # of pixels
    width: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    x: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    y: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    layer: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    order: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    scale: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    quarter_turns: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))  # clockwise
    mirror_ud: Bool[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.bool_))
    mirror_lr: Bool[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.bool_))
    blocking: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    visible: Bool[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.bool_))
    collidable: Bool[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.bool_))
    exists: Bool[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.bool_))
    kind: Int32[Array, "*b N"] = eqx.field(converter=as_dtype(jnp.int32))
    tags: Bool[Array, "*b N T"] = eqx.field(converter=as_dtype(jnp.bool_))


class StaticPixels(eqx.Module):
    """The pixels the level bank holds once per level, not the table: those of the
    sprites whose pixels never change (:class:`gridax.envs.arc3.engine.levels.LevelBank`):
    every level's, ``[L, N, S, S]``, which slots of the level in play they are, and its
    number. What reads any sprite's pixels takes them from here for those slots."""

    pixels: Int8[Array, "L N S S"]
    slots: Bool[Array, " N"]
    level: Int32[Array, ""]
    # Every slot of every level is held (a game whose rule repaints nothing): what reads
    # pixels reads only here, not the table's too (one gather a pixel, not two).
    every: bool = eqx.field(static=True, default=False)

    def base(self, slot):
        """The flat index of the first pixel of ``slot`` (any shape) on this level."""
        num_slots, size = self.pixels.shape[1], self.pixels.shape[-1]
        return (self.level * num_slots + slot) * size * size


def build_table(
    sprites: Sequence[Sprite],
    num_slots: int,
    pixel_size: int | tuple[int, int],
    kinds: Sequence[str],
    tags: Sequence[str] = (),
) -> SpriteTable:
    """The table of ``sprites`` in ``num_slots`` slots of ``pixel_size`` squared pixels,
    or ``(height, width)``; ``kinds`` and ``tags`` list every kind and tag of the game."""
    return SpriteTable(**table_columns(sprites, num_slots, pixel_size, kinds, tags))


def table_columns(
    sprites: Sequence[Sprite],
    num_slots: int,
    pixel_size: int | tuple[int, int],
    kinds: Sequence[str],
    tags: Sequence[str] = (),
    held_kinds: Sequence[str] = (),
) -> dict[str, np.ndarray]:
    """:func:`build_table`'s columns as NumPy arrays (checking every sprite fits, with
    named errors), without starting JAX. A sprite of ``held_kinds`` that does not fit
    the grids is left transparent (its height and width kept): the level bank holds
    its pixels (:class:`StaticPixels`)."""
    if len(sprites) > num_slots:
        raise ValueError(f"{len(sprites)} sprites do not fit in {num_slots} slots")
    n, (most_rows, most_cols) = num_slots, np.broadcast_to(pixel_size, 2).tolist()
    pixels = np.full((n, most_rows, most_cols), TRANSPARENT, np.int8)
    columns = {name: np.zeros(n, np.int32) for name in ("height", "width", "x", "y", "layer")}
    flag_names = ("mirror_ud", "mirror_lr", "visible", "collidable")
    flags = {name: np.zeros(n, bool) for name in flag_names}
    scale, turns, blocking, kind = (np.zeros(n, np.int32) for _ in range(4))
    scale[:] = 1
    tag_rows = np.zeros((n, len(tags)), bool)
    for i, sprite in enumerate(sprites):
        rows = np.asarray(sprite.pixels, np.int8)
        fits = rows.shape[0] <= most_rows and rows.shape[1] <= most_cols
        if not fits and sprite.kind not in held_kinds:
            raise ValueError(
                f"sprite {sprite.kind!r} is {rows.shape[0]}x{rows.shape[1]} pixels; "
                f"the table holds at most {most_rows}x{most_cols}"
            )
        if sprite.kind not in kinds:
            raise ValueError(f"sprite kind {sprite.kind!r} is not one of the game's {list(kinds)}")
        unknown = set(sprite.tags) - set(tags)
        if unknown:
            raise ValueError(f"sprite {sprite.kind!r}: tags {sorted(unknown)} not in {list(tags)}")
        if fits:  # else held by the level bank
            pixels[i, : rows.shape[0], : rows.shape[1]] = rows
        columns["height"][i], columns["width"][i] = rows.shape
        columns["x"][i], columns["y"][i], columns["layer"][i] = sprite.x, sprite.y, sprite.layer
        flags["mirror_ud"][i], flags["mirror_lr"][i] = sprite.mirror_ud, sprite.mirror_lr
        flags["visible"][i], flags["collidable"][i] = sprite.visible, sprite.collidable
        scale[i], turns[i] = sprite.scale, (sprite.rotation % 360) // 90
        blocking[i], kind[i] = int(sprite.blocking), kinds.index(sprite.kind)
        tag_rows[i] = [tag in sprite.tags for tag in tags]
    exists, order = np.arange(n) < len(sprites), np.arange(n, dtype=np.int32)
    return dict(pixels=pixels, order=order, scale=scale, quarter_turns=turns, kind=kind,
                blocking=blocking, exists=exists, tags=tag_rows, **columns, **flags)  # fmt: skip


def floor_divide(a, b) -> Int32[Array, "..."]:
    """``a // b`` for integers ``|a| < 2**20`` and ``b >= 1`` (pixel, cell and list
    counts), by a float32 division: XLA's integer division on CPU is not vectorised, and
    the renderer's took more time than its gathers (benchmarks/RESULTS.md). Exact on that
    domain: the float quotient's error stays below the ``0.5 / b`` added to it."""
    quotient = (jnp.asarray(a, jnp.float32) + 0.5) / jnp.asarray(b, jnp.float32)
    return jnp.floor(quotient).astype(jnp.int32)


def downscale_factor(scale):
    """How many pixels of a side one drawn pixel stands for (1 when not scaled down)."""
    return jnp.where(scale < 0, 1 - scale, 1)


def _turned_size(sprites):
    """``(height, width)`` after rotation, of a table's sprites or of one sprite."""
    odd = sprites.quarter_turns % 2 == 1
    return (
        jnp.where(odd, sprites.width, sprites.height),
        jnp.where(odd, sprites.height, sprites.width),
    )


def drawn_size(sprites) -> tuple[Int32[Array, "*b N"], Int32[Array, "*b N"]]:
    """``(height, width)`` as drawn (rotated, then scaled), of a table's sprites or of
    one sprite."""
    height, width = _turned_size(sprites)
    up = jnp.maximum(sprites.scale, 1)
    down = downscale_factor(sprites.scale)
    return floor_divide(height * up, down), floor_divide(width * up, down)


def _source_pixel(sprite: SpriteTable, row, col, read):
    """The pixel of ``sprite`` (one row of a table, or columns one per index) that lands
    at ``(row, col)`` of it rotated and mirrored (before scaling); any shape of indices.
    ``read(source_row, source_col)`` reads the pixel grid (:func:`_reader`)."""
    height, width = sprite.height, sprite.width
    turned_height, turned_width = _turned_size(sprite)
    row = jnp.where(sprite.mirror_ud, turned_height - 1 - row, row)
    col = jnp.where(sprite.mirror_lr, turned_width - 1 - col, col)
    # Cell (row, col) of the image turned clockwise by q quarters reads the original at:
    q = sprite.quarter_turns % 4
    cases = [q == 0, q == 1, q == 2]
    source_row = jnp.select(cases, [row, height - 1 - col, height - 1 - row], col)
    source_col = jnp.select(cases, [col, row, width - 1 - col], width - 1 - row)
    return read(source_row, source_col)


def source_map(sprites, size: int) -> tuple[Int32[Array, "..."], ...]:
    """``(start, along_rows, along_cols)`` of sprites (a table's, or one) whose pixels
    lie in grids ``size`` wide: the pixel of its grid (flat, ``row * size + col``)
    that drawn cell ``(row, col)`` of it (rotated, mirrored, before scaling) reads is
    ``start + along_rows * row + along_cols * col``: :func:`_source_pixel` as one affine
    map per sprite: painting a cell costs two products, not its rotation's selects."""
    turned_height, turned_width = _turned_size(sprites)
    # Mirrored: turned row r1 = row_start + row_sign * row, and so for columns.
    row_start = jnp.where(sprites.mirror_ud, turned_height - 1, 0)
    row_sign = jnp.where(sprites.mirror_ud, -1, 1)
    col_start = jnp.where(sprites.mirror_lr, turned_width - 1, 0)
    col_sign = jnp.where(sprites.mirror_lr, -1, 1)
    last_row, last_col = sprites.height - 1, sprites.width - 1
    q = sprites.quarter_turns % 4

    def by_turns(*options):  # the option of each sprite's quarter turns, 0 to 3
        return jnp.select([q == 0, q == 1, q == 2], options[:3], options[3])

    # (source row, source column) as (start, per row, per column), by quarter turns:
    # q0 (r1, c1), q1 (H-1-c1, r1), q2 (H-1-r1, W-1-c1), q3 (c1, W-1-r1).
    zero = jnp.zeros_like(row_sign)
    source_row = (
        by_turns(row_start, last_row - col_start, last_row - row_start, col_start),
        by_turns(row_sign, zero, -row_sign, zero),
        by_turns(zero, -col_sign, zero, col_sign),
    )
    source_col = (
        by_turns(col_start, row_start, last_col - col_start, last_col - row_start),
        by_turns(zero, row_sign, zero, -row_sign),
        by_turns(col_sign, zero, -col_sign, zero),
    )
    return tuple(r * size + c for r, c in zip(source_row, source_col, strict=True))


def grid_area(table: SpriteTable) -> int:  # slot i's pixels start at flat pixel i * this
    return math.prod(table.pixels.shape[-2:])


def _grid_read(pixels, base, row, col):
    """Pixel ``(row, col)`` (clipped to the grid) of the grid at flat pixel ``base`` of
    ``pixels`` (``[..., H, W]``)."""
    height, width = pixels.shape[-2:]
    flat = jnp.clip(row, 0, height - 1) * width + jnp.clip(col, 0, width - 1)
    return pixels.reshape(-1)[base + flat]


def _reader(pixels, base, static: StaticPixels | None, slot):
    """How :func:`_source_pixel` reads: the grid at flat pixel ``base`` of ``pixels``,
    or, for a slot whose pixels ``static`` holds, its grid there."""

    def read(row, col):
        if static is None:
            return _grid_read(pixels, base, row, col)
        held = _grid_read(static.pixels, static.base(slot), row, col)
        if static.every:
            return held
        return jnp.where(static.slots[slot], held, _grid_read(pixels, base, row, col))

    return read


def grid_pixel(table: SpriteTable, slot, row, col, static: StaticPixels | None = None):
    """Pixel ``(row, col)`` of sprite ``slot``'s own grid, not rotated or scaled
    (clipped to the grid), from ``static`` where it holds the slot's pixels."""
    return _reader(table.pixels, slot * grid_area(table), static, slot)(row, col)


def drawn_cell(sprite: SpriteTable, row, col):
    """``(row, col)`` of the drawn sprite (rotated, mirrored, scaled up: the top-left
    of its block) where source pixel ``(row, col)`` of ``sprite`` (one row of a table)
    lands: :func:`_source_pixel`'s inverse. Not for sprites scaled down, whose source
    pixels share drawn cells."""
    height, width = sprite.height, sprite.width
    turned_height, turned_width = _turned_size(sprite)
    q = sprite.quarter_turns % 4
    cases = [q == 0, q == 1, q == 2]
    turned_row = jnp.select(cases, [row, col, height - 1 - row], width - 1 - col)
    turned_col = jnp.select(cases, [col, height - 1 - row, width - 1 - col], row)
    turned_row = jnp.where(sprite.mirror_ud, turned_height - 1 - turned_row, turned_row)
    turned_col = jnp.where(sprite.mirror_lr, turned_width - 1 - turned_col, turned_col)
    up = jnp.maximum(sprite.scale, 1)
    return turned_row * up, turned_col * up


def world_cells(table: SpriteTable) -> tuple[Int32[Array, "N P P"], Int32[Array, "N P P"]]:
    """``(x, y)``: the world cell each source pixel ``[slot, row, col]`` of every sprite
    of ``table`` is drawn at (:func:`drawn_cell` from the sprite's position)."""
    height, width = table.pixels.shape[-2:]
    rows = jnp.arange(height, dtype=jnp.int32)[:, None]
    cols = jnp.arange(width, dtype=jnp.int32)[None, :]
    drawn_row, drawn_col = jax.vmap(lambda sprite: drawn_cell(sprite, rows, cols))(table)
    return drawn_col + table.x[:, None, None], drawn_row + table.y[:, None, None]


def _most_frequent(block: Int8[Array, "... K"], counted: Bool[Array, "... K"]):
    """arcengine's downscaling of one block: transparent if more of it is transparent
    than not, else its most frequent colour (ties to the highest)."""
    transparent = jnp.sum(counted & (block < 0), axis=-1)
    opaque = jnp.sum(counted & (block >= 0), axis=-1)
    colours = jnp.arange(NUM_COLOURS, dtype=jnp.int8)
    is_colour = block[..., None] == colours.reshape((1,) * block.ndim + (-1,))
    counts = jnp.sum(counted[..., None] & is_colour, axis=-2)
    # argmax picks the first maximum: search from the highest colour down.
    highest = NUM_COLOURS - 1 - jnp.argmax(counts[..., ::-1], axis=-1)
    return jnp.where(transparent > opaque, TRANSPARENT, highest).astype(jnp.int8)


def sprite_pixel(
    sprite: SpriteTable,
    row,
    col,
    max_downscale: int = 1,
    base: int | Array = 0,
    static: StaticPixels | None = None,
    slot: int | Array = 0,
) -> Int8[Array, "..."]:
    """Colour of ``sprite`` (one row of a table) as drawn at ``(row, col)`` relative to its
    top-left corner (``TRANSPARENT`` off the sprite); any shape of ``row``/``col``.
    ``max_downscale`` is the largest downscaling factor the game uses (static: 1 skips
    that path). With ``base``, the sprite's columns may be one per index and
    ``sprite.pixels`` the whole table's: the pixels read start at flat pixel ``base``
    (``slot * P * P``). ``static``: where the level bank holds the pixels of static
    slots, ``slot`` the sprite's (one per index, with ``base``)."""
    height, width = drawn_size(sprite)
    inside = (row >= 0) & (col >= 0) & (row < height) & (col < width)
    up = jnp.maximum(sprite.scale, 1)
    read = _reader(sprite.pixels, base, static, slot)
    value = _source_pixel(sprite, floor_divide(row, up), floor_divide(col, up), read)
    if max_downscale > 1:
        factor = downscale_factor(sprite.scale)
        k = max_downscale
        lead = (1,) * jnp.ndim(row)
        down = jnp.arange(k, dtype=jnp.int32).reshape(lead + (k, 1))
        across = jnp.arange(k, dtype=jnp.int32).reshape(lead + (1, k))
        block_rows = (row * factor)[..., None, None] + down
        block_cols = (col * factor)[..., None, None] + across
        block_of = sprite
        if jnp.ndim(base):  # one sprite per index: its columns along the block's axes too
            block_of = jax.tree.map(lambda column: column[..., None, None], sprite)
            block_of = eqx.tree_at(lambda s: s.pixels, block_of, sprite.pixels)
            base, factor = jnp.asarray(base)[..., None, None], factor[..., None, None]
            slot = jnp.asarray(slot)[..., None, None] if jnp.ndim(slot) else slot
        read = _reader(sprite.pixels, base, static, slot)
        block = _source_pixel(block_of, block_rows, block_cols, read)
        counted = jnp.broadcast_to((down < factor) & (across < factor), block.shape)
        shape = block.shape[:-2] + (k * k,)
        mode = _most_frequent(block.reshape(shape), counted.reshape(shape))
        value = jnp.where(sprite.scale < 0, mode, value)
    return jnp.where(inside, value, TRANSPARENT).astype(jnp.int8)


def rows_of(table: SpriteTable, index) -> SpriteTable:
    """The columns of ``table`` at slots ``index`` (any shape), its pixels left whole
    (read by :func:`sprite_pixel`'s ``base``)."""
    return SpriteTable(
        **{
            field.name: getattr(table, field.name)
            if field.name == "pixels"
            else getattr(table, field.name)[index]
            for field in dataclasses.fields(SpriteTable)
        }
    )


def pixel_at(
    table: SpriteTable, i, row, col, max_downscale: int = 1, static: StaticPixels | None = None
) -> Int8[Array, "..."]:
    """:func:`sprite_pixel` of slot ``i`` (its pixels from ``static`` if it is one of
    them)."""
    sprite = jax.tree.map(lambda column: column[i], table)
    return sprite_pixel(sprite, row, col, max_downscale, static=static, slot=i)


def all_pixels_at(
    table: SpriteTable,
    rows,
    cols,
    max_downscale: int = 1,
    static: StaticPixels | None = None,
    slots=None,
):
    """:func:`sprite_pixel` of every slot: ``rows``/``cols`` ``[N, ...]``, one per slot
    (static slots' pixels from ``static`` where given; ``slots``: the slots ``table``'s
    rows are, where it is some of a table's)."""
    slots = jnp.arange(table.x.shape[-1]) if slots is None else slots
    return jax.vmap(
        lambda sprite, r, c, slot: sprite_pixel(
            sprite, r, c, max_downscale, static=static, slot=slot
        )
    )(table, rows, cols, slots)
