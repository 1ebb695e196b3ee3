"""A game as data plus a small step rule: :class:`Level` and :class:`Game` (Python); the
levels become arrays in :mod:`gridax.envs.arc3.engine.levels`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3.engine.camera import SCREEN
from gridax.envs.arc3.engine.painting import LAYER_HIGH, LAYER_LOW, box_runs
from gridax.envs.arc3.engine.sprites import Blocking, Sprite, table_columns
from gridax.envs.arc3.engine.types import RESET, UNDO

Value = int | float | bool | tuple  # a number, or nested tuples of numbers


@dataclass(frozen=True)
class Var:
    """One variable of a game's own state (``Game.memory``): its dtype, shape and starting
    value (a number fills the shape; nested tuples give every element). A level starts
    it again from its ``Level.memory`` value, or this one, unless ``kept``: then it is
    set when the game starts and kept from level to level (as an attribute of an
    arcengine game that its ``on_set_level`` does not touch); only the rule changes it."""

    dtype: str = "int32"
    shape: tuple[int, ...] = ()
    value: Value = 0
    kept: bool = False

    def array(self, value: Value | None = None, where: str = "") -> np.ndarray:
        """``value`` (this variable's own when None) as an array of its dtype and shape."""
        given = np.asarray(self.value if value is None else value, self.dtype)
        try:
            return np.broadcast_to(given, self.shape).copy()
        except ValueError:
            raise ValueError(
                f"{where}: a value of shape {given.shape} for a variable of shape {self.shape}"
            ) from None


def _frozen_items(mapping) -> tuple:
    """A mapping as sorted ``(name, value)`` pairs (hashable, as a frozen dataclass's
    fields must be); nested lists become tuples."""

    def frozen(value):
        return tuple(map(frozen, value)) if isinstance(value, list | tuple) else value

    items = mapping.items() if hasattr(mapping, "items") else mapping
    return tuple(sorted((name, frozen(value)) for name, value in items))


@dataclass(frozen=True)
class Level:
    """A level: its sprites (in arcengine's list order), the camera's size in cells
    (``None`` keeps the camera as it is) and the starting values of the game's memory
    variables that differ from their ``Var.value`` (a dict by name)."""

    sprites: tuple[Sprite, ...]
    grid_size: tuple[int, int] | None = None  # (width, height)
    memory: Mapping[str, Value] | tuple[tuple[str, Value], ...] = ()  # kept as sorted pairs
    name: str = "Level"

    def __post_init__(self):
        object.__setattr__(self, "memory", _frozen_items(self.memory))


def list_length(runs: int) -> int:
    """The moving sprites' list for at most ``runs`` runs: a quarter more, in steps of 16
    (what ``Game.paint_runs`` defaults to from the levels' sprites)."""
    return max(16, -(-5 * runs // (4 * 16)) * 16)


@dataclass(frozen=True)
class Game:
    """A game: levels, the kinds and tags its sprites use, the actions it offers and its
    rule, ``rule(state, action, game) -> state``, run once per frame of an action (it must
    call ``rules.complete`` when the action is done).

    The game's own state is ``memory``, a dict of named :class:`Var` (counters, flags,
    per-sprite copies, stacks: any shape and dtype); a rule reads ``state.memory[name]``.

    Static sizes (one compilation for every level): ``num_slots`` sprites per level (by
    default as many as the fullest level has; more when the rule adds sprites),
    sprites of at most ``pixel_size`` squared pixels, or ``(height, width)`` (by default
    the largest sprite whose pixels may change: not of ``static_kinds``, or of
    ``repainted_kinds`` where the game declares them; the others' pixels are held once
    per level, not per game in play, and may be larger) drawn at most ``reach`` cells
    wide,
    ``max_frames`` frames per action, ``undo_depth`` snapshots for ACTION7 (``UNDO``; 0
    when the game does not offer it), or ``undo_in_rule`` for a game whose rule undoes
    in its own way (sk48: ACTION7 reaches the rule as any other action).
    """

    name: str
    levels: tuple[Level, ...]
    kinds: tuple[str, ...]
    rule: Callable
    available_actions: tuple[int, ...] = (1, 2, 3, 4)
    tags: tuple[str, ...] = ()
    num_slots: int = 0  # 0: the most sprites any level declares
    pixel_size: int | tuple[int, int] = 0  # 0: the largest sprite's whose pixels may change
    reach: int = 8
    max_downscale: int = 1
    memory: Mapping[str, Var] | tuple[tuple[str, Var], ...] = ()  # kept as sorted pairs
    max_frames: int = 2
    undo_depth: int = 0
    undo_in_rule: bool = False
    camera: tuple[int, int, int, int] = (0, 0, SCREEN, SCREEN)  # x, y, width, height
    background: int = 5
    letterbox: int = 5
    ui: Callable | None = field(default=None)  # ui(state, frame, game) -> frame
    # on_set_level(state, game) -> state: runs when a level starts (arcengine's hook).
    on_set_level: Callable | None = field(default=None)
    # animate(state, action, game) -> state: the rule of an action's frames after its
    # first (an animation, a solved level's transition), for a game whose later frames
    # do only part of what its first does: compiled and run apart, it spares the batch's
    # animation loop (and the compiler) the rest. None: ``rule`` for every frame.
    animate: Callable | None = field(default=None)
    # finish(state, action, game) -> state: an animation in one call, from the state after
    # its action's first frame (not complete, no level pending) to the state after its
    # last (complete or a level pending), ``state.frame`` the frames it took. For a game
    # whose later frames only show something (a flash): with frames="last" nobody sees
    # them, and the batch's animation loop is not run for it. None: frame by frame.
    finish: Callable | None = field(default=None)
    # Whether ``finish`` always ends the action (complete, a level pending, or
    # ``max_frames`` made): with frames="last" the frame loop then only starts levels,
    # and the game's later-frame rule is not compiled into it.
    finish_completes: bool = False
    # A reference solution of each level: action ids (clicks as (6, x, y) triples).
    solutions: tuple[tuple, ...] = ()
    # The human baseline of each level ARC Prize scores against (a real game's
    # metadata.json; it may list more levels than the game has: each is scored).
    baseline_actions: tuple[int, ...] = ()
    # The camera's largest width and height (None: the largest of the levels' grid sizes,
    # or of the first camera for a level without one). A rule that resizes the camera
    # beyond must declare it; the view is drawn in a square this large.
    max_view: int | None = None
    # Kinds whose sprites never change how they are drawn during a level (walls,
    # decoration, a board): drawn once per level into its static layer, never again
    # (gridax.envs.arc3.engine.painting). A rule must not move, repaint, hide or remove them.
    static_kinds: tuple[str, ...] = ()
    # Kinds whose pixels (or their grid's size) the rule changes: recolour, repaint,
    # set_pixels, resize, a sprite added. Where a game declares them, only their pixels
    # are held per game in play, every other sprite's once per level (a moving sprite
    # the rule never repaints, too); None: every kind not static.
    repainted_kinds: tuple[str, ...] | None = None
    # The most runs of cells the other (moving) sprites' boxes take at once (each row of a
    # box cut into runs of painting.RUN cells: rules.box_runs), the length of the list a
    # frame paints them from (0: a quarter more than any level starts with). A frame
    # whose moving sprites take more is still exact, drawn the slow way.
    moving_runs: int = 0

    def __post_init__(self):
        where = f"game {self.name!r}"
        object.__setattr__(self, "memory", _frozen_items(self.memory))
        if not self.levels:
            raise ValueError(f"{where}: a game needs at least one level")
        if self.num_slots == 0:  # every slot is drawn each frame: no more than needed
            object.__setattr__(self, "num_slots", max(len(level.sprites) for level in self.levels))
        if self.pixel_size == 0:  # the state holds the pixels that may change
            changing = [s for level in self.levels for s in level.sprites]
            changing = [s for s in changing if s.kind not in self.held_kinds]
            size = max((max(np.shape(s.pixels)) for s in changing), default=1)
            object.__setattr__(self, "pixel_size", size)
        bad = [a for a in self.available_actions if a not in range(1, 8)]
        if bad:
            raise ValueError(f"{where}: available actions are 1-7 (ACTION1..ACTION7), got {bad}")
        if self.solutions and len(self.solutions) != len(self.levels):
            raise ValueError(
                f"{where}: {len(self.solutions)} solutions for {len(self.levels)} levels"
            )
        if self.undo_depth > 0 and self.undo_in_rule:
            raise ValueError(f"{where}: undo_depth > 0 and undo_in_rule: undo one way only")
        for name in ("static_kinds", "repainted_kinds"):
            unknown = sorted(set(getattr(self, name) or ()) - set(self.kinds))
            if unknown:
                raise ValueError(f"{where}: {name} {unknown} are not among its kinds")
        if (UNDO in self.available_actions) != (self.undo_depth > 0 or self.undo_in_rule):
            raise ValueError(
                f"{where}: ACTION7 (undo) is offered if and only if undo_depth > 0 or undo_in_rule"
            )
        for number, level in enumerate(self.levels):
            self.level_memory(number)  # named errors for unknown or misshapen values
            if level.grid_size is not None and not all(0 < s <= SCREEN for s in level.grid_size):
                raise ValueError(
                    f"{where}, level {number}: grid_size {level.grid_size} must be 1-{SCREEN}"
                )
            self._check_sprites(level, f"{where}, level {number}")

    def _check_sprites(self, level: Level, where: str) -> None:
        """Every sprite of ``level`` fits the game's static sizes (named errors)."""
        try:
            table_columns(
                level.sprites,
                self.num_slots,
                self.pixel_size,
                self.kinds,
                self.tags,
                self.held_kinds,
            )
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        for sprite in level.sprites:
            if not LAYER_LOW <= sprite.layer <= LAYER_HIGH:
                raise ValueError(
                    f"{where}: sprite {sprite.kind!r} is on layer {sprite.layer}; layers are "
                    f"{LAYER_LOW}..{LAYER_HIGH} (the draw key's bits)"
                )
            factor = 1 - sprite.scale if sprite.scale < 0 else 1
            if factor > self.max_downscale:
                raise ValueError(
                    f"{where}: sprite {sprite.kind!r} scales down by {factor}, "
                    f"max_downscale is {self.max_downscale}"
                )
            if max(sprite.drawn_shape) > self.reach:
                height, width = sprite.drawn_shape
                raise ValueError(
                    f"{where}: sprite {sprite.kind!r} is drawn {height}x{width}; reach is "
                    f"{self.reach}"
                )

    @property
    def variables(self) -> dict[str, Var]:
        """The game's memory variables by name."""
        return dict(self.memory)

    def level_memory(self, number: int) -> dict[str, np.ndarray]:
        """Level ``number``'s starting memory: every variable, as an array."""
        where = f"game {self.name!r}, level {number}"
        declared = self.variables
        given = dict(self.levels[number].memory)
        unknown = sorted(set(given) - set(declared))
        if unknown:
            raise ValueError(
                f"{where}: memory {unknown} not declared in the game's {sorted(declared)}"
            )
        return {
            name: var.array(given.get(name), f"{where}, memory {name!r}")
            for name, var in declared.items()
        }

    @property
    def held_kinds(self) -> tuple[str, ...]:
        """The kinds whose pixels never change during a level: the static ones, or every
        kind but ``repainted_kinds`` where the game declares them."""
        if self.repainted_kinds is None:
            return self.static_kinds
        return tuple(kind for kind in self.kinds if kind not in self.repainted_kinds)

    @property
    def held_pixel_size(self) -> int:
        """The side of the pixel grids the level bank holds the ``held_kinds``' sprites
        at, or 0 where the state holds every sprite's pixels (no ``repainted_kinds``, and
        every static sprite fits ``pixel_size``)."""
        held = [s for level in self.levels for s in level.sprites if s.kind in self.held_kinds]
        grid = np.broadcast_to(self.pixel_size, 2).tolist()  # (height, width)
        if self.repainted_kinds is None and all(
            np.all(np.less_equal(np.shape(s.pixels), grid)) for s in held
        ):
            return 0
        return max(*(max(np.shape(s.pixels)) for s in held), *grid)

    @property
    def view_size(self) -> int:
        """The side of the square the camera's view is drawn in (static)."""
        return self.max_view or max(
            max(level.grid_size or self.camera[2:]) for level in self.levels
        )

    @property
    def view_sizes(self) -> tuple[tuple[int, int], ...]:
        """Every ``(width, height)`` the camera is drawn at: the levels' grid sizes, and
        the first camera's where a level keeps it (a rule moves the camera, never
        resizes it)."""
        grids = [level.grid_size for level in self.levels]
        sizes = {(grid[0], grid[1]) for grid in grids if grid}
        if None in grids:
            sizes.add((self.camera[2], self.camera[3]))
        return tuple(sorted(sizes))

    @property
    def letterboxed(self) -> bool:
        """Whether the view is painted straight into the frame, letterbox and all, not
        painted and then scaled up: a game of several sizes, every one drawn unscaled,
        the largest at least 7/8 of the frame's side. The frame's cells then cost about
        as much as the view's, and the scaling's two gathers go (ka59, 63 of 64: 1.13x;
        tu93, 51, left as it was: 0.87x; benchmarks/RESULTS.md)."""
        sizes = self.view_sizes
        unscaled = all(SCREEN // max(width, height) == 1 for width, height in sizes)
        return len(sizes) > 1 and unscaled and 8 * self.view_size >= 7 * SCREEN

    @property
    def painted_size(self) -> int:
        """The side of the square painted each frame: the view's, or the frame's where
        the game is :attr:`letterboxed`."""
        return SCREEN if self.letterboxed else self.view_size

    @property
    def paint_runs(self) -> int:
        """The length of the list the moving sprites are painted from, in runs of
        ``painting.RUN`` cells (``moving_runs``, or a quarter more than a level's moving
        sprites start with, in steps of 16)."""
        if self.moving_runs:
            return self.moving_runs
        most = max(
            sum(
                box_runs(
                    min(s.drawn_shape[0], self.view_size), min(s.drawn_shape[1], self.view_size)
                )
                for s in level.sprites
                if s.kind not in self.static_kinds and s.visible
            )
            for level in self.levels
        )
        return list_length(most)

    def __repr__(self) -> str:
        # What a checkpoint's header records of the game (gridax.serialization): the
        # generated repr held the rule's address, so no other process could load it.
        return f"Game({self.name!r}, levels_sha256={self.levels_digest()!r})"

    def levels_digest(self) -> str:
        """A SHA-256 of the game's levels and settings as plain data (:func:`to_json`)."""
        return hashlib.sha256(json.dumps(to_json(self), sort_keys=True).encode()).hexdigest()

    def offers(self, action_id) -> jax.Array:
        """Whether the game offers ``action_id`` (RESET always)."""
        offered = np.zeros(8, bool)
        offered[[RESET, *self.available_actions]] = True
        return jnp.asarray(offered)[jnp.clip(action_id, 0, 7)] & (action_id >= 0) & (action_id < 8)


def as_triple(move) -> tuple[int, int, int]:
    """A move of ``Game.solutions`` as ``(action id, x, y)`` (an id alone: no click)."""
    return tuple(move) if isinstance(move, tuple) else (move, 0, 0)


def sprite_to_json(sprite: Sprite) -> dict:
    """A sprite as plain data (:func:`sprite_from_json` reads it back)."""
    fields = asdict(sprite)
    fields["pixels"] = [list(row) for row in sprite.pixels]
    fields["blocking"] = int(sprite.blocking)
    fields["tags"] = list(sprite.tags)
    return fields


def sprite_from_json(fields: dict) -> Sprite:
    return Sprite(
        **{
            **fields,
            "pixels": tuple(map(tuple, fields["pixels"])),
            "blocking": Blocking(fields["blocking"]),
            "tags": tuple(fields["tags"]),
        }
    )


def to_json(game: Game) -> dict:
    """The game's levels as plain data, for a reference implementation to load."""
    return {
        "name": game.name,
        "available_actions": list(game.available_actions),
        "camera": list(game.camera),
        "background": game.background,
        "letterbox": game.letterbox,
        "levels": [
            {
                "name": level.name,
                "grid_size": None if level.grid_size is None else list(level.grid_size),
                "memory": {k: v.tolist() for k, v in game.level_memory(number).items()},
                "sprites": [sprite_to_json(s) for s in level.sprites],
            }
            for number, level in enumerate(game.levels)
        ],
    }
