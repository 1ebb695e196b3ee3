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
    "place",
    "rarely",
    "recolour",
    "screen_cells",
    "remove",
    "set_layer",
    "set_memory",
    "set_pixel",
    "set_collidable",
    "set_pixels",
    "set_visible",
    "slot_of",
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
    return cam.pixel_cells(state.camera)


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


def slot_of(state: Arc3State, kind: int) -> Int32[Array, ""]:
    """The first existing slot of ``kind`` (arcengine's first sprite by name), or 0."""
    return jnp.argmax(of_kind(state, kind)).astype(jnp.int32)


def count(state: Arc3State, kind: int) -> Int32[Array, ""]:
    """How many sprites of ``kind`` exist."""
    return jnp.sum(of_kind(state, kind), dtype=jnp.int32)


def sprite_at(state: Arc3State, x, y, game: Game, tag: int | None = None):
    """The slot of the sprite at world cell ``(x, y)``, or -1 (arcengine's
    ``get_sprite_at``: highest layer first, collidable sprites only)."""
    return collision.sprite_at(state.table, x, y, tag, max_downscale=game.max_downscale)


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


def recolour(state: Arc3State, which, old: int | None, new, when: Flag = True) -> Arc3State:
    """Every pixel of colour ``old`` of sprites ``which`` painted ``new`` (arcengine's
    ``color_remap``); with ``old`` None, every pixel that is not transparent. ``new`` may
    be traced."""
    pixels = state.table.pixels
    chosen = pixels != TRANSPARENT if old is None else pixels == old
    painted = jnp.where(chosen, jnp.asarray(new, jnp.int8), pixels)
    return _write(state, which, when, pixels=painted)


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
