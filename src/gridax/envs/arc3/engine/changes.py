"""How a rule changes sprites (re-exported by :mod:`gridax.envs.arc3.rules`, which games
import): arcengine's sprite setters, ``try_move``, ``Sprite.merge`` and ``add_sprite``
on one env's :class:`Arc3State`, and a sprite's pixel grid reassigned (``resize``). A
sprite is named by its slot or, for functions that take ``which``, by a mask over the
slots; conditions (``when``) may be traced."""

from __future__ import annotations

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int32

from gridax.envs.arc3.engine import collision, editing
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.levels import static_pixels
from gridax.envs.arc3.engine.sprites import TRANSPARENT, SpriteTable
from gridax.envs.arc3.engine.types import Arc3State

Flag = bool | jax.Array  # a condition, traced or not


def _write(state: Arc3State, which, when: Flag = True, **columns) -> Arc3State:
    return eqx.tree_at(lambda s: s.table, state, editing.write(state.table, which, when, **columns))


def move(state: Arc3State, which, dx, dy, when: Flag = True) -> Arc3State:
    """Sprites ``which`` moved by ``(dx, dy)`` cells, through anything (arcengine's
    ``Sprite.move``)."""
    table = state.table
    return _write(state, which, when, x=table.x + dx, y=table.y + dy)


def place(state: Arc3State, which, x, y, when: Flag = True) -> Arc3State:
    """Sprites ``which`` put at world cell ``(x, y)`` (arcengine's ``set_position``)."""
    return _write(state, which, when, x=x, y=y)


def try_move(
    state: Arc3State, slot, dx, dy, game: Game, size: int | None = None
) -> tuple[Arc3State, Bool[Array, " N"]]:
    """Moves sprite ``slot`` unless it would collide: ``(state, hit)`` (``hit``: the
    slots it would collide with). ``size`` (static) bounds the moving sprite's drawn
    width and height when the game knows it smaller than ``game.reach`` (a 1x1 player):
    the collision test reads ``size`` squared cells of every sprite instead of
    ``reach`` squared. A sprite drawn larger than ``size`` would miss collisions."""
    reach = game.reach if size is None else size
    static = static_pixels(state, game)
    table, hit = collision.try_move(state.table, slot, dx, dy, reach, game.max_downscale, static)
    return eqx.tree_at(lambda s: s.table, state, table), hit


def collisions(
    state: Arc3State, slot, game: Game, size: int | None = None, among=None
) -> Bool[Array, " N"]:
    """The slots sprite ``slot`` collides with where it stands (arcengine's
    ``collides_with`` against every sprite of the level), for a rule that moves a sprite
    and decides itself which collisions stop it. ``size`` as for :func:`try_move`;
    ``among`` (slot indices ``[k]``, -1 for none): only those slots, ``[k]``."""
    reach = game.reach if size is None else size
    static = static_pixels(state, game)
    return collision.collisions(state.table, slot, reach, game.max_downscale, static, among)


def remove(state: Arc3State, which, when: Flag = True) -> Arc3State:
    """Sprites ``which`` taken out of the level (arcengine's ``remove_sprite``); their
    slots keep them, so :func:`bring_back` can put them in again."""
    return _write(state, which, when, exists=False)


def bring_back(state: Arc3State, which, when: Flag = True) -> Arc3State:
    """Removed sprites ``which`` in the level again, as they were."""
    return _write(state, which, when, exists=True)


def set_visible(state: Arc3State, which, visible: Flag, when: Flag = True) -> Arc3State:
    """Sprites ``which`` shown or hidden (hidden ones still collide if collidable)."""
    return _write(state, which, when, visible=visible)


def set_collidable(state: Arc3State, which, collidable: Flag, when: Flag = True) -> Arc3State:
    """Sprites ``which`` made collidable or not (with :func:`set_visible`, arcengine's
    interaction modes: ``INTANGIBLE`` is visible only, ``REMOVED`` neither)."""
    return _write(state, which, when, collidable=collidable)


def set_layer(state: Arc3State, which, layer, when: Flag = True) -> Arc3State:
    return _write(state, which, when, layer=layer)


def set_scale(state: Arc3State, which, scale, when: Flag = True) -> Arc3State:
    """Sprites ``which`` drawn at ``scale`` (arcengine's ``set_scale``: 2 doubles, -1
    halves; they keep their top-left corner). A scale below 1 must divide the sprite's
    pixel grid, and ``Game.max_downscale`` bound it, as arcengine requires."""
    return _write(state, which, when, scale=scale)


def set_rotation(state: Arc3State, which, degrees, when: Flag = True) -> Arc3State:
    """Sprites ``which`` turned to ``degrees`` clockwise (0, 90, 180, 270; arcengine's
    ``set_rotation``): they keep their top-left corner, not their centre."""
    return _write(state, which, when, quarter_turns=(jnp.asarray(degrees) // 90) % 4)


def rotate(state: Arc3State, which, degrees, when: Flag = True) -> Arc3State:
    """Sprites ``which`` turned ``degrees`` further clockwise (arcengine's ``rotate``)."""
    turns = state.table.quarter_turns + jnp.asarray(degrees) // 90
    return _write(state, which, when, quarter_turns=turns % 4)


def repaint(state: Arc3State, which, pixels, when: Flag = True) -> Arc3State:
    """Sprites ``which`` given the pixels ``pixels`` in the table's padded shape
    (``[P, P]`` for all of them, or ``[N, P, P]``, one per slot), keeping their size:
    arcengine's ``sprite.pixels = ...`` of a grid of the same shape."""
    return _write(state, which, when, pixels=pixels)


def set_pixel(state: Arc3State, slot, row, col, colour, when: Flag = True) -> Arc3State:
    """Pixel ``(row, col)`` of sprite ``slot`` set to ``colour`` (where ``when``);
    ``slot`` may be a vector of slots, each with its own ``colour``."""
    pixels = state.table.pixels
    new = jnp.where(when, jnp.asarray(colour, jnp.int8), pixels[slot, row, col])
    return eqx.tree_at(lambda s: s.table.pixels, state, pixels.at[slot, row, col].set(new))


def set_pixels(state: Arc3State, slot, pixels, when: Flag = True) -> Arc3State:
    """Sprite ``slot`` given new pixels (a grid of static shape, at most
    ``Game.pixel_size``; arcengine's ``set_pixels``): its height and width
    become the grid's."""
    height, width = np.shape(pixels)  # static
    grid = _padded(jnp.asarray(pixels, jnp.int8), state.table.pixels.shape[-2:])
    return _write(state, slot, when, pixels=grid, height=height, width=width)


def set_grid(state: Arc3State, slot, grid, height, width, when: Flag = True) -> Arc3State:
    """Sprite ``slot`` given the grid ``grid`` (the table's padded shape, transparent
    beyond) of ``height`` x ``width`` pixels, both traced: arcengine's ``sprite.pixels
    = ...`` of a grid the rule works out, of another shape. One slot, written in place."""
    return _write(state, slot, when, pixels=grid, height=height, width=width)


def _padded(grids, shape: tuple[int, ...]):
    """Pixel grids (``[..., h, w]``, static shape) padded transparent to the table's
    grid ``shape`` (height, width)."""
    spread = [(0, 0)] * (grids.ndim - 2)
    spread += [(0, most - n) for most, n in zip(shape, grids.shape[-2:], strict=True)]
    return jnp.pad(grids, spread, constant_values=TRANSPARENT)


def lay_out(state: Arc3State, slots, **columns) -> Arc3State:
    """Sprites ``slots`` given the named columns, one value per slot: ``slots`` is one
    slot (values one sprite's), a static ``slice`` of slots or an array of slot indices
    (values ``[k]``, ``[k, h, w]`` for pixels; indices past the table are skipped). For
    a game that keeps its sprites in memory and lays them out in their slots each frame
    (sk48's arms, su15's fruits and enemies). The columns: ``x``, ``y``, ``exists``,
    ``visible``, ``layer``, ``quarter_turns``, ``height``, ``width`` and ``pixels`` (at
    most ``Game.pixel_size`` on a side, padded transparent)."""
    unknown = set(columns) - set(_LAID_OUT)
    if unknown:
        raise ValueError(f"rules.lay_out: no column {sorted(unknown)}; the columns: {_LAID_OUT}")
    table = state.table

    def laid(name):
        column = getattr(table, name)
        value = jnp.asarray(columns[name], column.dtype)
        if name == "pixels":
            value = _padded(value, column.shape[-2:])
        return column.at[slots].set(value, mode="drop")

    names = tuple(columns)
    table = eqx.tree_at(
        lambda t: tuple(getattr(t, n) for n in names), table, tuple(laid(n) for n in names)
    )
    return eqx.tree_at(lambda s: s.table, state, table)


def recolour(state: Arc3State, which, old, new, when: Flag = True) -> Arc3State:
    """Every pixel of colour ``old`` of sprites ``which`` painted ``new`` (arcengine's
    ``color_remap``); ``old`` None paints every pixel that is drawn, ``>= 0`` (its
    ``color_remap(None, new)``). ``old`` and ``new`` may be one colour per slot (``[N]``:
    each sprite its own, as a loop of ``color_remap`` calls over sprites)."""
    colours = [jnp.asarray(c, jnp.int8) for c in ((new,) if old is None else (new, old))]
    pixels = state.table.pixels
    if editing.one_slot(which):  # that slot's grid alone is worked out and written
        slot = jnp.clip(jnp.asarray(which), 0, pixels.shape[0] - 1)
        pixels, colours = pixels[slot], [c[slot] if c.ndim == 1 else c for c in colours]
    else:  # one colour per slot: [N] -> [N, 1, 1], against the pixels [N, P, P]
        colours = [c.reshape(c.shape + (1, 1)) if c.ndim == 1 else c for c in colours]
    painted = pixels >= 0 if old is None else pixels == colours[1]  # not -1, nor -2
    return _write(state, which, when, pixels=jnp.where(painted, colours[0], pixels))


def resize(
    state: Arc3State, which, height, width, fill: int = TRANSPARENT, when: Flag = True
) -> Arc3State:
    """Sprites ``which`` given a pixel grid of ``height`` x ``width`` (before rotation;
    traced, one for all or one per slot; at most ``Game.pixel_size``): the pixels they
    had are kept where the new grid has them, the others are ``fill`` (arcengine's
    ``sprite.pixels = sprite.pixels[:height]``, or rows stacked below). Every slot's
    grid is worked out and one select keeps the chosen ones' (written one slot in place
    instead, vc33's two resizes of a pump ran 0.81x: benchmarks/RESULTS.md)."""
    table = state.table
    which = editing.selected_slots(table, which)  # a mask: one select (the docstring)
    most_rows, most_cols = table.pixels.shape[-2:]
    height = jnp.broadcast_to(height, table.height.shape)[:, None, None]
    width = jnp.broadcast_to(width, table.width.shape)[:, None, None]
    rows = jnp.arange(most_rows, dtype=jnp.int32)[None, :, None]
    cols = jnp.arange(most_cols, dtype=jnp.int32)[None, None, :]
    had = (rows < table.height[:, None, None]) & (cols < table.width[:, None, None])
    kept = jnp.where(had, table.pixels, jnp.int8(fill))
    pixels = jnp.where((rows < height) & (cols < width), kept, jnp.int8(TRANSPARENT))
    return _write(state, which, when, pixels=pixels, height=height[:, 0, 0], width=width[:, 0, 0])


def put_last(state: Arc3State, rank) -> Arc3State:
    """Sprites with ``rank`` >= 0 (``[N]``, distinct ranks) moved to the end of the sprite
    order, in increasing rank; the others keep their place: arcengine's ``add_sprite`` of
    sprites taken out earlier (``remove_sprite``), one by one in rank order. Draw order
    among equal layers and ``sprite_at``'s ties follow it."""
    rank = jnp.asarray(rank, jnp.int32)
    order = jnp.max(state.table.order) + 1 + rank
    return _write(state, rank >= 0, True, order=order)


def merge(state: Arc3State, a, b, game: Game) -> Arc3State:
    """Sprite ``b`` merged into sprite ``a`` (:func:`gridax.envs.arc3.engine.editing.merge`)."""
    table = editing.merge(state.table, a, b, game.max_downscale)
    return eqx.tree_at(lambda s: s.table, state, table)


def add(state: Arc3State, like, x, y, when: Flag = True) -> tuple[Arc3State, Int32[Array, ""]]:
    """A copy of sprite ``like`` added at ``(x, y)`` (arcengine's ``add_sprite`` of a
    clone, last in sprite order) in the first slot no sprite of the level has used:
    ``(state, slot)``, ``slot`` -1 where none is free (nothing is added) or not
    ``when``. Declare ``Game.num_slots`` for the most sprites a level can hold."""
    table = state.table
    free = table.height == 0  # slots a level declares no sprite in, nor a rule adds to
    slot = jnp.where(jnp.any(free) & when, jnp.argmax(free), -1).astype(jnp.int32)
    columns = {name: getattr(table, name)[like] for name in _COPIED}
    order = jnp.max(table.order) + 1
    state = _write(state, slot, True, **columns, x=x, y=y, order=order, exists=True)
    return state, slot


def add_again(state: Arc3State, which, when: Flag = True) -> Arc3State:
    """Removed sprites ``which`` in the level again, as they are, last in sprite order
    (in slot order among themselves): arcengine's ``add_sprite`` of a sprite that
    ``remove_sprite`` took out before (:func:`put_last`, in slot order)."""
    chosen = editing.selected_slots(state.table, which) & when
    state = _write(state, chosen, True, exists=True)
    return put_last(state, jnp.where(chosen, jnp.cumsum(chosen, dtype=jnp.int32) - 1, -1))


# Every column of a sprite but its place, its order and whether it exists.
_COPIED = tuple(
    f.name for f in dataclasses.fields(SpriteTable) if f.name not in {"x", "y", "order", "exists"}
)
# The columns a game lays out from its memory (:func:`lay_out`).
_LAID_OUT = ("x", "y", "exists", "visible", "layer", "quarter_turns", "height", "width", "pixels")
