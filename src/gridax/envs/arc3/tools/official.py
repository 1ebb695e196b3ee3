"""The level data of ARC Prize's public ARC-AGI-3 games, as extracted from the official
game files by ``scripts/extract_arc3_levels.py`` into ``data/<game>.json.gz`` (MIT, ARC
Prize Foundation: ``data/LICENSE``).

A port of a real game (``games/``) builds its :class:`~gridax.envs.arc3.engine.game.Game` from
:func:`load`: the levels' sprites with their arcengine names as kinds, grid sizes and
data values, the game's camera, actions and human baselines. Only data is shipped; the
rules are gridax's own.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from gridax.envs.arc3.engine.game import Level, sprite_from_json
from gridax.envs.arc3.engine.sprites import TRANSPARENT, Sprite

DATA = resources.files("gridax.envs.arc3") / "data"


@dataclass(frozen=True)
class OfficialLevel:
    """One level as the official file declares it: sprites in arcengine's list order
    (their names are their kinds), grid size ``(width, height)``, the level's data values
    (``Level.get_data``) and name."""

    sprites: tuple[Sprite, ...]
    grid_size: tuple[int, int] | None
    data: Mapping[str, Any]
    name: str


@dataclass(frozen=True)
class OfficialGame:
    """An official game's data (``load``)."""

    game_id: str
    version: str
    source_sha256: str
    arcengine: str  # the engine version the data was extracted, and the port is exact, under
    title: str
    baseline_actions: tuple[int, ...]  # human baseline per level (metadata.json)
    # metadata.json's tags ("keyboard", "click"...), frame rate and download date: what
    # ARC Prize's toolkit lists of the game (gridax.wrappers.arc_agi)
    game_tags: tuple[str, ...]
    default_fps: int | None
    date_downloaded: str | None
    available_actions: tuple[int, ...]
    camera: Mapping[str, int]  # as constructed: x, y, width, height, background, letter_box
    levels: tuple[OfficialLevel, ...]
    catalogue: Mapping[str, Sprite]  # the module's sprites, by the module's key

    @property
    def kinds(self) -> tuple[str, ...]:
        """Every sprite name of the levels and the catalogue, sorted: the game's kinds."""
        names = {s.kind for level in self.levels for s in level.sprites}
        return tuple(sorted(names | {s.kind for s in self.catalogue.values()}))

    @property
    def tags(self) -> tuple[str, ...]:
        sprites = [s for level in self.levels for s in level.sprites]
        return tuple(sorted({t for s in [*sprites, *self.catalogue.values()] for t in s.tags}))

    def kind(self, name: str) -> int:
        """The kind number of sprite name ``name``."""
        try:
            return self.kinds.index(name)
        except ValueError:
            raise ValueError(f"{self.game_id}: no sprite is named {name!r}") from None

    def padded_pixels(self, key: str, size: int | tuple[int, int]) -> np.ndarray:
        """The pixels of catalogue sprite ``key``, padded to ``[size, size]`` (or ``size``
        ``(height, width)``) with transparency: a template a rule paints a sprite's slot
        with."""
        pixels = np.asarray(self.catalogue[key].pixels)
        grid = np.full(np.broadcast_to(size, 2), TRANSPARENT, np.int8)
        grid[: pixels.shape[0], : pixels.shape[1]] = pixels
        return grid

    def game_levels(self, memory: Callable[[int, Mapping], dict] | None = None) -> tuple:
        """The levels as a :class:`~gridax.envs.arc3.engine.game.Game` takes them;
        ``memory(number, data)`` gives a level's starting memory from its data values."""
        return tuple(
            Level(
                sprites=level.sprites,
                grid_size=level.grid_size,
                memory=memory(number, level.data) if memory else (),
                name=level.name,
            )
            for number, level in enumerate(self.levels)
        )

    def game_fields(self) -> dict:
        """What a port's :class:`~gridax.envs.arc3.engine.game.Game` takes from the official
        file as it is: name, kinds, tags, actions, camera and colours, human baselines
        (``Game(**data.game_fields(), levels=..., rule=..., ...)``)."""
        c = self.camera
        return {
            "name": self.game_id,
            "kinds": self.kinds,
            "tags": self.tags,
            "available_actions": self.available_actions,
            "camera": (c["x"], c["y"], c["width"], c["height"]),
            "background": c["background"],
            "letterbox": c["letter_box"],
            "baseline_actions": self.baseline_actions,
        }


def padded(values, size: int, where: str, what: str, fill: object = -1) -> list:
    """``values`` padded with ``fill`` to ``size`` entries (a port's memory of static
    shape), or a named error when a level holds more than the port does."""
    values = list(values)
    if len(values) > size:
        raise ValueError(f"{where}: {len(values)} {what}; the port holds {size}")
    return values + [fill] * (size - len(values))


def available() -> tuple[str, ...]:
    """The ids of the games whose data ships with gridax."""
    return tuple(
        sorted(p.name.removesuffix(".json.gz") for p in DATA.iterdir() if p.name.endswith(".gz"))
    )


@functools.cache
def load(game_id: str) -> OfficialGame:
    """The data of official game ``game_id`` (``"ls20"``); a ``ValueError`` names the
    games there are."""
    path = DATA / f"{game_id}.json.gz"
    if not path.is_file():
        raise ValueError(f"no ARC-AGI-3 game data for {game_id!r}; there is {available()}")
    record = json.loads(gzip.decompress(path.read_bytes()))
    return OfficialGame(
        game_id=record["game_id"],
        version=record["version"],
        source_sha256=record["source_sha256"],
        arcengine=record["arcengine"],
        title=record["title"],
        baseline_actions=tuple(record["baseline_actions"]),
        game_tags=tuple(record["tags"]),
        default_fps=record["default_fps"],
        date_downloaded=record["date_downloaded"],
        available_actions=tuple(record["available_actions"]),
        camera=record["camera"],
        levels=tuple(
            OfficialLevel(
                sprites=tuple(sprite_from_json(s) for s in level["sprites"]),
                grid_size=None if level["grid_size"] is None else tuple(level["grid_size"]),
                data=level["data"],
                name=level["name"],
            )
            for level in record["levels"]
        ),
        catalogue={key: sprite_from_json(s) for key, s in record["catalogue"].items()},
    )
