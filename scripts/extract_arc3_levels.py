"""Extracts the level data of ARC Prize's public ARC-AGI-3 games into gridax's package.

    python scripts/extract_arc3_levels.py REFERENCE_DIR GAME[/VERSION] [GAME ...]

REFERENCE_DIR holds the official games as ARC Prize's toolkit downloads them
(``<game>/<version>/<game>.py`` and ``metadata.json``; name the version where a game has
several). Run it with Python 3.12+ and
``arcengine==0.9.3`` (``make arc3-parity`` sets up ``.venv-arcengine``). For each game it
loads the official file, walks every level as ``arcengine`` builds it (after the level's
own merge of static sprites) and writes
``src/gridax/envs/arc3/data/<game>.json.gz``: the game's id, version, the sha256 of the
source file, the title, tags, frame rate, download date and human baselines of
``metadata.json``, the actions it offers, its camera
as constructed, every level's sprites (pixels, position, layer, scale, rotation,
mirrors, blocking, visibility, collidability, tags, in the level's list order), grid
size, data values and name, and the module's sprite catalogue (the sprites a game clones
during play). No code of the game is kept: only what its levels hold.

gridax reads these files at run time (``gridax.envs.arc3.tools.official``); it never needs the
official files or Python 3.12.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import inspect
import json
import sys
from pathlib import Path

import numpy as np
from arcengine import ARCBaseGame, Camera, Level, Sprite

OUT = Path(__file__).resolve().parent.parent / "src" / "gridax" / "envs" / "arc3" / "data"


# gridax's Blocking values (gridax.envs.arc3.engine.sprites): the records are in the format of
# gridax.envs.arc3.engine.game.sprite_to_json, with arcengine's sprite name as the kind.
BLOCKING = {"NOT_BLOCKED": 0, "BOUNDING_BOX": 1, "PIXEL_PERFECT": 2}


def sprite_record(sprite: Sprite) -> dict:
    return {
        "kind": sprite.name,
        "pixels": np.asarray(sprite.pixels).tolist(),
        "x": sprite.x,
        "y": sprite.y,
        "layer": sprite.layer,
        "scale": sprite.scale,
        "rotation": sprite.rotation,
        "mirror_ud": bool(sprite.mirror_ud),
        "mirror_lr": bool(sprite.mirror_lr),
        "blocking": BLOCKING[sprite.blocking.name],
        "visible": bool(sprite.is_visible),
        "collidable": bool(sprite.is_collidable),
        "tags": list(sprite.tags),
    }


def plain(value):
    """A level data value as JSON (NumPy arrays and tuples become lists)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def camera_record(camera: Camera) -> dict:
    return {
        "x": camera.x,
        "y": camera.y,
        "width": camera.width,
        "height": camera.height,
        "background": camera.background,
        "letter_box": camera.letter_box,
    }


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    classes = [
        c
        for c in vars(module).values()
        if inspect.isclass(c) and issubclass(c, ARCBaseGame) and c is not ARCBaseGame
    ]
    if len(classes) != 1:
        raise SystemExit(f"{path}: expected one ARCBaseGame subclass, found {len(classes)}")
    return module, classes[0]


def constructed_camera(cls) -> dict:
    """The camera a game is constructed with, before its first ``set_level`` runs the
    game's ``on_set_level`` on it."""
    seen = {}
    original = ARCBaseGame.set_level

    def spy(self, index):
        seen.setdefault("camera", camera_record(self.camera))
        return original(self, index)

    ARCBaseGame.set_level = spy
    try:
        cls()
    finally:
        ARCBaseGame.set_level = original
    return seen["camera"]


def catalogue(module) -> dict:
    """The module's sprites by the name the module gives them (dicts of sprites, or
    sprites at module level)."""
    found = {}
    for value in vars(module).values():
        if isinstance(value, dict) and value and all(isinstance(v, Sprite) for v in value.values()):
            found.update({str(k): sprite_record(v) for k, v in value.items()})
        elif isinstance(value, Sprite):
            found[value.name] = sprite_record(value)
    return found


def level_record(level: Level, game: ARCBaseGame, index: int) -> dict:
    fresh = type(game)()
    fresh.set_level(index)
    return {
        "name": level.name,
        "grid_size": None if level.grid_size is None else list(level.grid_size),
        "data": plain(dict(level._data)),
        "sprites": [sprite_record(s) for s in level.get_sprites()],
        # What arcengine shows when the level starts (after the game's on_set_level).
        "camera_at_start": camera_record(fresh.camera),
    }


def extract(reference: Path, game: str) -> Path:
    name, _, version = game.partition("/")
    versions = sorted(p.name for p in (reference / name).iterdir() if p.is_dir())
    if not version and len(versions) != 1:
        raise SystemExit(f"{name} has versions {versions}: name one as {name}/VERSION")
    folder = reference / name / (version or versions[0])
    source = folder / f"{name}.py"
    metadata = json.loads((folder / "metadata.json").read_text())
    module, cls = load(source)
    game = cls()
    clean = game._clean_levels  # the levels as declared: never played
    record = {
        "game_id": name,
        "version": folder.name,
        "source": f"{name}/{folder.name}/{name}.py",
        "source_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        "arcengine": "0.9.3",
        "title": metadata.get("title", name.upper()),
        "tags": metadata.get("tags", []),
        "default_fps": metadata.get("default_fps"),  # the toolkit's EnvironmentInfo
        "date_downloaded": metadata.get("date_downloaded"),
        "baseline_actions": metadata["baseline_actions"],
        "available_actions": list(game._available_actions),
        "camera": constructed_camera(cls),
        "levels": [level_record(level, game, i) for i, level in enumerate(clean)],
        "catalogue": catalogue(module),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"{name}.json.gz"
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    out.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    return out


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    for game_name in sys.argv[2:]:
        print(extract(Path(sys.argv[1]), game_name))
