"""Everything a game takes from the engine, in one place: how to declare a game, and what
its rule calls on one env's :class:`Arc3State` (arcengine's ``complete_action``,
``next_level``, ``win``, ``lose``, ``try_move``, ``get_sprite_at``,
``display_to_grid``, ``Sprite.merge``, ``add_sprite``, ``remove_sprite`` and the
sprite's setters).

A rule is written for one env; the engine batches it. Conditions (``when``) may be
traced: a change applies where they hold. A sprite is named by its slot (an index) or,
for functions that take ``which``, by a mask over the slots (``rules.of_kind``). Sprite
slots, the redraw and batching are the engine's business: a game never writes the
sprite table or the state's fields itself (a game that keeps its sprites in memory lays
them out with :func:`lay_out`).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Int32

from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine import collision, maps, sprites
from gridax.envs.arc3.engine.boxes import boxes_at, boxes_meet, drawn_grid, in_boxes, solid_boxes
from gridax.envs.arc3.engine.branches import (
    drawn_rarely,
    either,
    rarely,
    repeat,
    when_any,
    where,
)
from gridax.envs.arc3.engine.camera import SCREEN, draw_rect, draw_square
from gridax.envs.arc3.engine.changes import (
    Flag,
    add,
    add_again,
    bring_back,
    collisions,
    lay_out,
    merge,
    move,
    place,
    put_last,
    recolour,
    remove,
    repaint,
    resize,
    rotate,
    set_collidable,
    set_grid,
    set_layer,
    set_pixel,
    set_pixels,
    set_rotation,
    set_scale,
    set_visible,
    try_move,
)
from gridax.envs.arc3.engine.game import Game, Level, Var, list_length
from gridax.envs.arc3.engine.levels import static_pixels
from gridax.envs.arc3.engine.packed import Packed
from gridax.envs.arc3.engine.painting import box_runs
from gridax.envs.arc3.engine.sprites import TRANSPARENT, Blocking, Sprite
from gridax.envs.arc3.engine.types import (
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
    at_frame,
    frame_number,
)
from gridax.envs.arc3.tools import official

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
    "Flag",
    "Game",
    "Level",
    "Packed",
    "Sprite",
    "Var",
    "add",
    "add_again",
    "arrow_step",
    "at_frame",
    "box_runs",
    "boxes_at",
    "boxes_meet",
    "bring_back",
    "cells_on_screen",
    "clicked_cell",
    "collisions",
    "complete",
    "count",
    "covered",
    "draw_rect",
    "draw_sprite",
    "draw_square",
    "drawn_grid",
    "drawn_pixel",
    "drawn_rarely",
    "drawn_size",
    "either",
    "frame_number",
    "in_boxes",
    "kinds_but",
    "lay_out",
    "list_length",
    "lose",
    "maps",
    "mask_of",
    "merge",
    "merge_all",
    "move",
    "move_camera",
    "next_level",
    "no_later_frames",
    "of_kind",
    "official",
    "per_slot",
    "pixel_cells",
    "place",
    "put_last",
    "rarely",
    "recolour",
    "remove",
    "repaint",
    "repeat",
    "resize",
    "rounded_share",
    "rotate",
    "set_camera_colours",
    "set_layer",
    "set_memory",
    "set_pixel",
    "set_collidable",
    "set_grid",
    "set_pixels",
    "set_rotation",
    "set_scale",
    "set_visible",
    "slot_of",
    "solid_boxes",
    "tagged",
    "update_memory",
    "when_any",
    "sprite_at",
    "try_move",
    "source_pixel",
    "where",
    "win",
]


# --- the action and the game's progress ----------------------------------------------


def kinds_but(kinds, moving: str | tuple[str, ...]) -> tuple[str, ...]:
    """Every kind of ``kinds`` but the ``moving`` ones (a tuple, or names separated by
    spaces): a game's ``static_kinds`` declared by naming what moves (a named error for
    a kind it does not have)."""
    moving = tuple(moving.split()) if isinstance(moving, str) else moving
    unknown = sorted(set(moving) - set(kinds))
    if unknown:
        raise ValueError(f"moving kinds {unknown} are not among the game's kinds")
    return tuple(kind for kind in kinds if kind not in moving)


def complete(state: Arc3State, done: Flag = True) -> Arc3State:
    """Marks the action complete (where ``done``): no more frames after this one. An
    action whose rule does not complete it runs the rule again on the next frame (an
    animation; ``frame_number`` says which), up to ``Game.max_frames`` frames."""
    return eqx.tree_at(lambda s: s.complete, state, state.complete | done)


def win(state: Arc3State, when: Flag = True) -> Arc3State:
    return eqx.tree_at(lambda s: s.status, state, jnp.where(when, WIN, state.status))


def lose(state: Arc3State, when: Flag = True) -> Arc3State:
    return eqx.tree_at(lambda s: s.status, state, jnp.where(when, GAME_OVER, state.status))


def no_later_frames(state: Arc3State, action: Action, game: Game) -> Arc3State:
    """``Game.animate`` for a game whose rule completes every action: its only later
    frames start a level (the engine's), so the animation loop never runs the rule."""
    return complete(state)


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


def cells_on_screen(state: Arc3State, game: Game, cells):
    """``(shown, on_edge)``, each ``[64, 64]``: ``cells`` (``[view, view]`` int8 from the
    camera's corner) at every screen pixel (0 on the letterbox), and the pixels on the
    edge of their cell's square, for a UI that draws over cells (:func:`cam.cells_on_screen`)."""
    return cam.cells_on_screen(cells, state.camera, game.view_sizes)


# --- the game's memory ----------------------------------------------------------------


def set_memory(state: Arc3State, name: str, value, when: Flag = True) -> Arc3State:
    """Memory variable ``name`` set to ``value`` (where ``when``), in its own dtype."""
    old = state.memory[name]
    new = jnp.where(when, jnp.asarray(value, old.dtype), old)
    return eqx.tree_at(lambda s: s.memory[name], state, new)


def update_memory(state: Arc3State, values) -> Arc3State:
    """The memory variables named in ``values`` (a dict: some of them or all) set, each in
    its own dtype: for a rule that computes its memory as a whole."""
    memory = dict(state.memory)
    memory.update({name: jnp.asarray(v, memory[name].dtype) for name, v in values.items()})
    return eqx.tree_at(lambda s: s.memory, state, memory)


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


def mask_of(state: Arc3State, slots, chosen: Flag = True) -> Bool[Array, " N"]:
    """The slots ``slots`` (any shape; -1 names none) where ``chosen`` (broadcast to
    their shape), as a mask over the table: a game that keeps its sprites' slots in
    memory changes them together."""
    slots = jnp.asarray(slots, jnp.int32)
    chosen = jnp.broadcast_to(chosen, slots.shape) & (slots >= 0)
    none = state.table.exists.shape[-1]  # out of range: dropped
    at = jnp.where(chosen, slots, none)
    return jnp.zeros_like(state.table.exists).at[at].set(True, mode="drop")


def per_slot(state: Arc3State, slots, values, fill=0) -> Array:
    """``[N]``: ``values[i]`` at slot ``slots[i]`` (-1 names none), ``fill`` elsewhere; in
    the values' dtype. One value per slot for a change that takes them (``recolour``'s
    colours, ``set_visible``'s flags)."""
    values = jnp.asarray(values)
    slots = jnp.asarray(slots, jnp.int32)
    none = state.table.exists.shape[-1]
    filled = jnp.full(none, fill, values.dtype)
    return filled.at[jnp.where(slots >= 0, slots, none)].set(values, mode="drop")


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
    table, static = state.table, static_pixels(state, game)
    if layers is not None:
        table = eqx.tree_at(lambda t: t.layer, table, jnp.asarray(layers, jnp.int32))
    return collision.sprite_at(table, x, y, tag, ignore_collidable, game.max_downscale, static)


def drawn_size(state: Arc3State) -> tuple[Int32[Array, " N"], Int32[Array, " N"]]:
    """``(height, width)`` of every sprite as drawn (rotated, scaled): arcengine's
    ``Sprite.height`` and ``Sprite.width``."""
    return sprites.drawn_size(state.table)


def pixel_cells(state: Arc3State) -> tuple[Int32[Array, "N P P"], Int32[Array, "N P P"]]:
    """``(x, y)``: the world cell each source pixel ``[slot, row, col]`` of every sprite
    is drawn at (:func:`gridax.envs.arc3.engine.sprites.world_cells`). For games that compare
    sprites pixel by pixel in the world (what overlaps what), with masks over the source
    pixels."""
    return sprites.world_cells(state.table)


def drawn_pixel(state: Arc3State, slot, x, y, game: Game) -> jax.Array:
    """The pixel sprite ``slot`` draws at world cell ``(x, y)`` (any shape: rotated,
    mirrored and scaled as drawn; ``TRANSPARENT`` off its box), static sprites' included
    wherever the engine keeps them: what a rule tests a cell against, as arcengine's
    ``collides_with`` does with a sprite of its own making (any pixel but -1 is solid)."""
    table = state.table
    static = static_pixels(state, game)
    return sprites.pixel_at(
        table, slot, y - table.y[slot], x - table.x[slot], game.max_downscale, static
    )


def source_pixel(state: Arc3State, slot, row, col, game: Game) -> jax.Array:
    """Pixel ``(row, col)`` of sprite ``slot``'s own grid (not rotated or scaled;
    transparent off it), static sprites' included wherever the engine keeps them."""
    table = state.table
    inside = (row >= 0) & (col >= 0) & (row < table.height[slot]) & (col < table.width[slot])
    pixel = sprites.grid_pixel(table, slot, row, col, static_pixels(state, game))
    return jnp.where(inside, pixel, TRANSPARENT).astype(jnp.int8)


def covered(state: Arc3State, under: int, over: int) -> jax.Array:
    """Every existing sprite of kind ``under`` has one of kind ``over`` on its cell."""
    table = state.table
    overs, unders = of_kind(state, over), of_kind(state, under)
    same_cell = (table.x[:, None] == table.x[None, :]) & (table.y[:, None] == table.y[None, :])
    return jnp.all(jnp.any(same_cell & overs[None, :], axis=1) | ~unders)


# --- changing sprites (gridax.envs.arc3.engine.changes) ---------------------------------------


def merge_all(state: Arc3State, into, which: Bool[Array, " N"], game: Game) -> Arc3State:
    """Every sprite of the mask ``which`` merged into sprite ``into``, in slot order
    (rare in a batch: run only on the envs that merge)."""

    def merge_each(state, into, which):
        def one(slot, state):
            return where(which[slot], merge(state, into, slot, game), state)

        return jax.lax.fori_loop(0, game.num_slots, one, state)

    return rarely(jnp.any(which), merge_each, state, into, which)


# --- the camera -----------------------------------------------------------------------


def rounded_share(part, whole, length: int) -> Int32[Array, ""]:
    """``round(length * part / whole)`` in integers, as Python rounds the exact ratio
    (halves to even): how many pixels of a ``length``-pixel bar show ``part`` of
    ``whole`` (a UI's budget bar)."""
    twice = 2 * length * jnp.asarray(part, jnp.int32) + whole
    rounded = twice // (2 * whole)
    half = twice % (2 * whole) == 0  # the ratio was a half: Python's round goes to even
    return jnp.where(half & (rounded % 2 == 1), rounded - 1, rounded)


def draw_sprite(screen, state: Arc3State, slot, x, y, game: Game, when: Flag = True):
    """``screen`` with sprite ``slot`` as drawn (rotated, mirrored, scaled; its colours
    only) with its top-left corner at screen pixel ``(x, y)``, where ``when``: a UI that
    shows a sprite over what it drew (a fog), or outside the camera's view."""
    rows, cols = jnp.mgrid[0:SCREEN, 0:SCREEN].astype(jnp.int32)
    static = static_pixels(state, game)
    pixels = sprites.pixel_at(state.table, slot, rows - y, cols - x, game.max_downscale, static)
    return jnp.where((pixels >= 0) & when, pixels, screen).astype(jnp.int8)


def move_camera(state: Arc3State, x, y) -> Arc3State:
    """The camera's top-left corner put at world cell ``(x, y)``."""
    return eqx.tree_at(lambda s: (s.camera.x, s.camera.y), state, (x, y))


def set_camera_colours(state: Arc3State, background, letterbox, when: Flag = True) -> Arc3State:
    """The camera's background (cells no sprite covers) and letterbox (the screen
    around the view) colours (arcengine's ``camera.background`` and ``letter_box``)."""
    camera = cam.with_colours(state.camera, background, letterbox, when)
    return eqx.tree_at(lambda s: s.camera, state, camera)
