"""Everything a game takes from the engine, in one place: how to declare a game, and what
its rule calls on one env's :class:`Arc3State` (arcengine's ``complete_action``,
``next_level``, ``win``, ``lose``, ``try_move``, ``get_sprite_at``,
``display_to_grid``, ``Sprite.merge``, ``add_sprite``, ``remove_sprite`` and the
sprite's setters).

A rule is written for one env; the engine batches it. Conditions (``when``) may be
traced: a change applies where they hold. A sprite is named by its slot (an index) or,
for functions that take ``which``, by a mask over the slots (``rules.of_kind``). Sprite
slots, the redraw and batching are the engine's business: a game never writes the
sprite table or the state's fields itself.
"""

from __future__ import annotations

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax import core as jax_core
from jaxtyping import Array, Bool, Int32

from gridax.batching import cond_rare
from gridax.envs.arc3 import camera as cam
from gridax.envs.arc3 import collision, maps, official, sprites
from gridax.envs.arc3.camera import SCREEN, draw_rect, draw_square
from gridax.envs.arc3.game import Game, Level, Var
from gridax.envs.arc3.sprites import TRANSPARENT, Blocking, Sprite, SpriteTable
from gridax.envs.arc3.types import (
    ACTION1,
    ACTION2,
    ACTION3,
    ACTION4,
    ACTION5,
    CLICK,
    GAME_OVER,
    RESET,
    UNDO,
    WIN,
    Action,
    Arc3State,
    select,
)

__all__ = [
    "ACTION1",
    "ACTION2",
    "ACTION3",
    "ACTION4",
    "ACTION5",
    "CLICK",
    "RESET",
    "SCREEN",
    "TRANSPARENT",
    "UNDO",
    "Action",
    "Arc3State",
    "Blocking",
    "Game",
    "Level",
    "Sprite",
    "Var",
    "add",
    "arrow_step",
    "bring_back",
    "clicked_cell",
    "collisions",
    "complete",
    "count",
    "covered",
    "draw_rect",
    "draw_square",
    "drawn_size",
    "frame_number",
    "lose",
    "maps",
    "merge",
    "merge_all",
    "move",
    "move_camera",
    "next_level",
    "of_kind",
    "official",
    "pixel_cells",
    "place",
    "rarely",
    "recolour",
    "screen_cells",
    "remove",
    "repaint",
    "rotate",
    "set_camera_colours",
    "set_layer",
    "set_memory",
    "set_pixel",
    "set_collidable",
    "set_pixels",
    "set_rotation",
    "set_visible",
    "slot_of",
    "tagged",
    "sprite_at",
    "try_move",
    "where",
    "win",
]

Flag = bool | jax.Array  # a condition, traced or not


# --- the action and the game's progress ----------------------------------------------


def complete(state: Arc3State, done: Flag = True) -> Arc3State:
    """Marks the action complete (where ``done``): no more frames after this one. An
    action whose rule does not complete it runs the rule again on the next frame (an
    animation; ``frame_number`` says which), up to ``Game.max_frames`` frames."""
    return eqx.tree_at(lambda s: s.complete, state, state.complete | done)


def frame_number(state: Arc3State) -> Int32[Array, ""]:
    """Which frame of the action the rule is making: 0 for the first."""
    return state.frame


def win(state: Arc3State, when: Flag = True) -> Arc3State:
    return eqx.tree_at(lambda s: s.status, state, jnp.where(when, WIN, state.status))


def lose(state: Arc3State, when: Flag = True) -> Arc3State:
    return eqx.tree_at(lambda s: s.status, state, jnp.where(when, GAME_OVER, state.status))


def next_level(state: Arc3State, num_levels: int, when: Flag = True) -> Arc3State:
    """arcengine's ``next_level`` (where ``when``): one more level completed; the next
    level starts on the next frame, or the game is won after the last."""
    last = state.level == num_levels - 1
    state = eqx.tree_at(
        lambda s: (s.score, s.pending_level),
        state,
        (state.score + jnp.where(when, 1, 0), state.pending_level | (when & ~last)),
    )
    return win(state, when & last)


# (dx, dy) of each action id: ACTION1-4 are up, down, left and right (arcengine's
# convention), every other action moves nothing.
_ARROWS = tuple(
    {ACTION1: (0, -1), ACTION2: (0, 1), ACTION3: (-1, 0), ACTION4: (1, 0)}.get(a, (0, 0))
    for a in range(8)
)


def arrow_step(action: Action) -> Int32[Array, "2"]:
    """``(dx, dy)`` of an arrow action (ACTION1-4: up, down, left, right), else zeros."""
    return jnp.asarray(_ARROWS, jnp.int32)[action.id]


def clicked_cell(state: Arc3State, action: Action):
    """``(x, y, on_view)``: the world cell under a click (arcengine's
    ``display_to_grid``; ``on_view`` false where it answers None)."""
    return cam.screen_to_world(state.camera, action.x, action.y)


def screen_cells(state: Arc3State):
    """``(x, y, column, row, on_view)``, each ``[64, 64]``: the world cell under every
    screen pixel, the pixel's place inside that cell's square (0 to scale - 1) and
    whether it is on the view, for a UI that draws over world cells."""
    return cam.screen_cells(state.camera)


# --- the game's memory ----------------------------------------------------------------


def set_memory(state: Arc3State, name: str, value, when: Flag = True) -> Arc3State:
    """Memory variable ``name`` set to ``value`` (where ``when``), in its own dtype."""
    old = state.memory[name]
    new = jnp.where(when, jnp.asarray(value, old.dtype), old)
    return eqx.tree_at(lambda s: s.memory[name], state, new)


# --- finding sprites ------------------------------------------------------------------


def of_kind(state: Arc3State, kind: int) -> Bool[Array, " N"]:
    """The existing sprites of ``kind``, as a mask over the slots."""
    return state.table.exists & (state.table.kind == kind)


def tagged(state: Arc3State, tag: int) -> Bool[Array, " N"]:
    """The existing sprites with tag ``tag`` (its index in ``Game.tags``), as a mask over
    the slots (arcengine's ``get_sprites_by_tag``)."""
    return state.table.exists & state.table.tags[:, tag]


def slot_of(state: Arc3State, kind: int) -> Int32[Array, ""]:
    """The first existing slot of ``kind`` (arcengine's first sprite by name), or 0."""
    return jnp.argmax(of_kind(state, kind)).astype(jnp.int32)


def count(state: Arc3State, kind: int) -> Int32[Array, ""]:
    """How many sprites of ``kind`` exist."""
    return jnp.sum(of_kind(state, kind), dtype=jnp.int32)


def sprite_at(
    state: Arc3State,
    x,
    y,
    game: Game,
    tag: int | None = None,
    ignore_collidable: bool = False,
    layers=None,
):
    """The slot of the sprite at world cell ``(x, y)``, or -1 (arcengine's
    ``get_sprite_at``: highest layer first, collidable sprites only unless
    ``ignore_collidable``). ``layers`` (``[N]``) orders the sprites instead of their
    layers now: arcengine sorts a level's sprites by layer at its first
    ``get_sprite_at`` and sorts again only when a sprite is added or removed, so a game
    that changes layers afterwards is searched in the old order (keep the layers of
    that first call in memory and pass them here)."""
    table = state.table
    if layers is not None:
        table = eqx.tree_at(lambda t: t.layer, table, jnp.asarray(layers, jnp.int32))
    return collision.sprite_at(table, x, y, tag, ignore_collidable, game.max_downscale)


def drawn_size(state: Arc3State) -> tuple[Int32[Array, " N"], Int32[Array, " N"]]:
    """``(height, width)`` of every sprite as drawn (rotated, scaled): arcengine's
    ``Sprite.height`` and ``Sprite.width``."""
    return sprites.drawn_size(state.table)


def pixel_cells(state: Arc3State) -> tuple[Int32[Array, "N P P"], Int32[Array, "N P P"]]:
    """``(x, y)``: the world cell each source pixel ``[slot, row, col]`` of every sprite
    is drawn at (its rotation, mirrors and position applied; the top-left cell of its
    block when scaled up). For games that compare sprites pixel by pixel in the world
    (what overlaps what), with masks over the source pixels."""
    table = state.table
    size = table.pixels.shape[-1]
    rows = jnp.arange(size, dtype=jnp.int32)[:, None]
    cols = jnp.arange(size, dtype=jnp.int32)[None, :]
    drawn_row, drawn_col = jax.vmap(lambda sprite: sprites.drawn_cell(sprite, rows, cols))(table)
    return drawn_col + table.x[:, None, None], drawn_row + table.y[:, None, None]


def covered(state: Arc3State, under: int, over: int) -> jax.Array:
    """Every existing sprite of kind ``under`` has one of kind ``over`` on its cell."""
    table = state.table
    overs, unders = of_kind(state, over), of_kind(state, under)
    same_cell = (table.x[:, None] == table.x[None, :]) & (table.y[:, None] == table.y[None, :])
    return jnp.all(jnp.any(same_cell & overs[None, :], axis=1) | ~unders)


# --- changing sprites -----------------------------------------------------------------


def _write(state: Arc3State, which, when: Flag = True, **columns) -> Arc3State:
    return eqx.tree_at(lambda s: s.table, state, sprites.write(state.table, which, when, **columns))


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
    table, hit = collision.try_move(state.table, slot, dx, dy, reach, game.max_downscale)
    return eqx.tree_at(lambda s: s.table, state, table), hit


def collisions(state: Arc3State, slot, game: Game, size: int | None = None) -> Bool[Array, " N"]:
    """The slots sprite ``slot`` collides with where it stands (arcengine's
    ``collides_with`` against every sprite of the level), for a rule that moves a sprite
    and decides itself which collisions stop it. ``size`` as for :func:`try_move`."""
    reach = game.reach if size is None else size
    return collision.collisions(state.table, slot, reach, game.max_downscale)


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
    ``Game.pixel_size`` on a side; arcengine's ``set_pixels``): its height and width
    become the grid's."""
    height, width = np.shape(pixels)  # static
    size = state.table.pixels.shape[-1]
    grid = jnp.pad(
        jnp.asarray(pixels, jnp.int8),
        ((0, size - height), (0, size - width)),
        constant_values=TRANSPARENT,
    )
    return _write(state, slot, when, pixels=grid, height=height, width=width)


def recolour(state: Arc3State, which, old, new, when: Flag = True) -> Arc3State:
    """Every pixel of colour ``old`` of sprites ``which`` painted ``new`` (arcengine's
    ``color_remap``); ``old`` None paints every pixel that is drawn, ``>= 0`` (its
    ``color_remap(None, new)``). ``old`` and ``new`` may be one colour per slot (``[N]``:
    each sprite its own, as a loop of ``color_remap`` calls over sprites)."""
    pixels = state.table.pixels

    def per_slot(colour):  # [N] -> [N, 1, 1], against the pixels [N, P, P]
        colour = jnp.asarray(colour, jnp.int8)
        return colour.reshape(colour.shape + (1, 1)) if colour.ndim == 1 else colour

    painted = pixels >= 0 if old is None else pixels == per_slot(old)  # not -1, nor -2
    new = per_slot(new)
    return _write(state, which, when, pixels=jnp.where(painted, new, pixels))


def merge(state: Arc3State, a, b, game: Game) -> Arc3State:
    """Sprite ``b`` merged into sprite ``a`` (:func:`gridax.envs.arc3.sprites.merge`)."""
    table = sprites.merge(state.table, a, b, game.max_downscale)
    return eqx.tree_at(lambda s: s.table, state, table)


def merge_all(state: Arc3State, into, which: Bool[Array, " N"], game: Game) -> Arc3State:
    """Every sprite of the mask ``which`` merged into sprite ``into``, in slot order
    (rare in a batch: run only on the envs that merge)."""

    def merge_each(state, into, which):
        def one(slot, state):
            return where(which[slot], merge(state, into, slot, game), state)

        return jax.lax.fori_loop(0, game.num_slots, one, state)

    return rarely(jnp.any(which), merge_each, state, into, which)


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


# Every column of a sprite but its place, its order and whether it exists.
_COPIED = tuple(
    f.name for f in dataclasses.fields(SpriteTable) if f.name not in {"x", "y", "order", "exists"}
)


# --- the camera -----------------------------------------------------------------------


def move_camera(state: Arc3State, x, y) -> Arc3State:
    """The camera's top-left corner put at world cell ``(x, y)``."""
    return eqx.tree_at(lambda s: (s.camera.x, s.camera.y), state, (x, y))


def set_camera_colours(state: Arc3State, background, letterbox, when: Flag = True) -> Arc3State:
    """The camera's background (cells no sprite covers) and letterbox (the screen
    around the view) colours (arcengine's ``camera.background`` and
    ``camera.letter_box``)."""
    camera = state.camera
    colours = (
        jnp.where(when, background, camera.background),
        jnp.where(when, letterbox, camera.letterbox),
    )
    return eqx.tree_at(lambda s: (s.camera.background, s.camera.letterbox), state, colours)


# --- batching -------------------------------------------------------------------------


def where(pred: Flag, new: Arc3State, old: Arc3State) -> Arc3State:
    """``new`` where ``pred``, else ``old``: a whole state chosen (one env)."""
    return select(pred, new, old)


def rarely(pred: Flag, fn, state: Arc3State, *args) -> Arc3State:
    """``fn(state, *args)`` where ``pred``, else ``state``, for events that few envs of a
    batch meet at a time (grabbing, detaching, a merge): the engine runs ``fn`` only on
    the envs that need it. Pass what ``fn`` reads of one env through ``args``, not a
    closure (a batching rule cannot see batched values a closure holds)."""
    # The arrays fn makes from constants (a pixel grid, a lookup table) are passed in as
    # arguments too: inside a batched loop (the frames of an animation) JAX counts such
    # constants of a custom batching rule's function as batched, and refuses them.
    closed, shape = jax.make_jaxpr(fn, return_shape=True)(state, *args)

    def replayed(state, consts, *args):
        out = jax_core.eval_jaxpr(closed.jaxpr, consts, *jax.tree.leaves((state, args)))
        return jax.tree.unflatten(jax.tree.structure(shape), out)

    consts = list(closed.consts)
    return cond_rare(pred, replayed, state, consts, *args, compact_to=1 / 16, chunks=True)
