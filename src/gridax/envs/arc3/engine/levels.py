"""A game's levels as padded arrays (one compilation serves every level), and starting
one: arcengine's ``set_level``."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Int8, Int32

from gridax.dispatch import per_config
from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine.camera import Camera
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.painting import Backdrop, build_backdrop
from gridax.envs.arc3.engine.sprites import TRANSPARENT, SpriteTable, StaticPixels, table_columns
from gridax.envs.arc3.engine.types import NOT_PLAYED, Arc3State, Snapshot, select
from gridax.fields import as_dtype


class LevelBank(eqx.Module):
    """Every level of a game, stacked: ``[L, ...]``, and their static layers.

    ``table`` is what a level starts with in the state. The pixels of the sprites whose
    pixels never change during a level (``Game.held_kinds``: the static ones, or all but
    the repainted ones) are held in ``static_pixels`` (``[L, N, S, S]``, those slots
    ``static`` of each level, ``[L, N]``) where a game's ``held_pixel_size`` says so (a
    wall layer the size of the world, boards a rule only moves): per level, not per game
    in play, so that the state, and every pass a batched step makes over it, is the size
    of what changes. ``None`` where the state holds every sprite's pixels."""

    table: SpriteTable
    grid_size: Int32[Array, "L 2"] = eqx.field(converter=as_dtype(jnp.int32))  # 0: keep
    memory: dict[str, Array]  # each variable's starting value per level, [L, ...]
    backdrop: Backdrop
    static: Bool[Array, "L N"] | None = None
    static_pixels: Int8[Array, "L N S S"] | None = None
    # The game repaints nothing (``repainted_kinds=()``): the bank holds every sprite's
    # pixels, the state none.
    every_held: bool = eqx.field(static=True, default=False)


def _stacked_columns(
    game: Game, pixel_size: int | tuple[int, int], held_kinds=()
) -> dict[str, np.ndarray]:
    columns = [
        table_columns(level.sprites, game.num_slots, pixel_size, game.kinds, game.tags, held_kinds)
        for level in game.levels
    ]
    return {name: np.stack([c[name] for c in columns]) for name in columns[0]}


def build_bank(game: Game) -> LevelBank:
    """The game's levels as arrays (:func:`bank_of` builds it once per game)."""
    stacked = _stacked_columns(game, game.pixel_size, game.held_kinds)
    starts = [game.level_memory(number) for number in range(len(game.levels))]
    memory = {name: jnp.asarray(np.stack([s[name] for s in starts])) for name in game.variables}
    sizes = [level.grid_size or (0, 0) for level in game.levels]
    corners = [_view_corner(game, level.grid_size) for level in game.levels]
    table = SpriteTable(**stacked)
    static_kinds = [game.kinds.index(kind) for kind in game.static_kinds]
    static = np.isin(stacked["kind"], static_kinds)
    held_kinds = [game.kinds.index(kind) for kind in game.held_kinds]
    held = np.isin(stacked["kind"], held_kinds) & stacked["exists"]
    static_pixels, whole = None, table
    if game.held_pixel_size:
        pixels = _stacked_columns(game, game.held_pixel_size)["pixels"]
        static_pixels = np.where(held[:, :, None, None], pixels, TRANSPARENT).astype(np.int8)
        whole = eqx.tree_at(lambda t: t.pixels, table, pixels)
    return LevelBank(
        table=table,
        grid_size=np.asarray(sizes, np.int32),
        memory=memory,
        backdrop=build_backdrop(
            whole, static, game.painted_size, game.max_downscale, np.asarray(corners)
        ),
        static=None if static_pixels is None else jnp.asarray(held),
        static_pixels=None if static_pixels is None else jnp.asarray(static_pixels),
        every_held=game.repainted_kinds == (),
    )


def _view_corner(game: Game, grid_size) -> tuple[int, int]:
    """The world cell a level's static view is cut from as its camera starts: the
    camera's corner, less the view's place in the frame where the game is letterboxed
    (a level without a grid size keeps the size it had: taken as the first camera's; a
    frame whose view lies elsewhere cuts it afresh)."""
    x, y, width, height = game.camera
    if not game.letterboxed:
        return x, y
    _, left, top = cam.fit(*(grid_size or (width, height)))
    return x - left, y - top


@per_config
def bank_of(game: Game) -> LevelBank:
    """The game's level bank, built once. It outlives the call that builds it, which may
    be inside a caller's jit: its arrays must be concrete, not that trace's values."""
    with jax.ensure_compile_time_eval():
        return build_bank(game)


def initial_camera(game: Game) -> Camera:
    x, y, width, height = game.camera
    return Camera(x, y, width, height, game.background, game.letterbox)


def static_pixels(state: Arc3State, game: Game) -> StaticPixels | None:
    """Where the level bank holds the pixels of the state's sprites whose pixels never
    change (:class:`LevelBank`), for what reads any sprite's pixels (collisions, what a
    click lands on, drawing); ``None`` where the table holds them all."""
    return static_pixels_in(bank_of(game), state.level)


def static_pixels_in(bank: LevelBank, level) -> StaticPixels | None:
    """:func:`static_pixels` of level ``level`` of ``bank``."""
    if bank.static_pixels is None:
        return None
    held = jnp.asarray(bank.static)[level]
    return StaticPixels(jnp.asarray(bank.static_pixels), held, level, bank.every_held)


def _level_of(bank: LevelBank, index) -> tuple[SpriteTable, Array, dict[str, Array]]:
    """Level ``index`` of the bank: ``(table, grid_size, memory)``."""
    parts = (bank.table, bank.grid_size, bank.memory)
    return jax.tree.map(lambda leaf: jnp.asarray(leaf)[index], parts)


def set_level(state: Arc3State, bank: LevelBank, index, game: Game) -> Arc3State:
    """Level ``index`` from its declaration, with the camera resized to its grid, then
    the game's ``on_set_level`` (arcengine's ``set_level``). Kept memory variables keep
    their values."""
    table, size, starts = _level_of(bank, index)
    memory = {n: state.memory[n] if v.kept else starts[n] for n, v in game.variables.items()}
    resize = size[0] > 0
    camera = eqx.tree_at(
        lambda c: (c.width, c.height),
        state.camera,
        (
            jnp.where(resize, size[0], state.camera.width),
            jnp.where(resize, size[1], state.camera.height),
        ),
    )
    state = eqx.tree_at(
        lambda s: (s.table, s.memory, s.camera, s.level, s.action_count, s.history_size),
        state,
        (table, memory, camera, jnp.int32(index), jnp.int32(0), jnp.int32(0)),
    )
    return state if game.on_set_level is None else game.on_set_level(state, game)


def initial_state(game: Game, bank: LevelBank, start_level=0) -> Arc3State:
    """The game before its first action: on its first level, or
    on ``start_level`` as arcengine's ``set_level`` puts a new game there (the first
    level's ``on_set_level`` has run, no level counts as completed, and a RESET before
    any action restarts the whole game from the first level)."""
    first_table, _, first_memory = _level_of(bank, 0)
    # A ring of undo_depth + 1 snapshots; none for a game without undo (it would double
    # the state for nothing: the table is most of it).
    ring = game.undo_depth + 1 if game.undo_depth else 0
    history = jax.tree.map(
        lambda leaf: jnp.broadcast_to(leaf, (ring,) + jnp.shape(leaf)),
        Snapshot(first_table, initial_camera(game), first_memory),
    )
    zero = jnp.int32(0)
    state = Arc3State(
        table=first_table,
        camera=initial_camera(game),
        memory=first_memory,
        level=zero,
        score=zero,
        status=jnp.int32(NOT_PLAYED),
        action_count=zero,
        complete=jnp.bool_(False),
        pending_level=jnp.bool_(False),
        frame=zero,
        history=history,
        history_size=zero,
        history_start=zero,
    )
    state = set_level(state, bank, 0, game)
    start_level = jnp.asarray(start_level, jnp.int32)
    return select(start_level > 0, set_level(state, bank, start_level, game), state)
