"""Plays episodes on ARC Prize's own game files under `arcengine` (Python 3.12+), the
truth gridax's ports of the real games are held to.

    python tests/envs/arc3/arcengine/official.py REFERENCE_DIR GAME[/VERSION] EPISODES.json

REFERENCE_DIR holds the official games (``<game>/<version>/<game>.py``; the version may
be left out where a game has one). EPISODES.json is
a list of episodes ``{"start_level": n, "actions": [[id, x, y], ...]}``: each is played on
a fresh game put on level ``n`` by arcengine's ``set_level``. Prints JSON as ``games.py``
does: per episode, per action, the frames, game state, levels completed, level index and
full-reset flag. With ``--time``, the seconds each episode's actions took instead.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
from pathlib import Path

import numpy as np
from arcengine import ARCBaseGame
from games import play, seconds_to_play  # beside this script, which Python runs from here


def game_class(reference: Path, game: str) -> type[ARCBaseGame]:
    name, _, version = game.partition("/")
    versions = sorted(p.name for p in (reference / name).iterdir() if p.is_dir())
    if not version and len(versions) != 1:
        raise SystemExit(f"{name} has versions {versions}: name one as {name}/VERSION")
    path = reference / name / (version or versions[0]) / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (cls,) = [
        c
        for c in vars(module).values()
        if inspect.isclass(c) and issubclass(c, ARCBaseGame) and c is not ARCBaseGame
    ]
    return cls


def fresh(cls: type[ARCBaseGame], start_level: int) -> ARCBaseGame:
    np.random.seed(0)  # pins any game that draws from NumPy's global generator
    game = cls()
    if start_level:
        game.set_level(start_level)
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", type=Path, help="the folder of official games")
    parser.add_argument("game", help="the game's id and version, e.g. ls20/9607627b")
    parser.add_argument("episodes", type=Path, help="a JSON list of episodes")
    parser.add_argument("--time", action="store_true", help="print seconds per episode instead")
    args = parser.parse_args()
    cls = game_class(args.reference, args.game)
    episodes = json.loads(args.episodes.read_text())
    if args.time:
        seconds = [seconds_to_play(fresh(cls, e["start_level"]), e["actions"]) for e in episodes]
        print(json.dumps({"seconds": seconds}))
        return
    played = [play(fresh(cls, e["start_level"]), e["actions"]) for e in episodes]
    print(json.dumps({"game": args.game.partition("/")[0], "episodes": played}))


if __name__ == "__main__":
    main()
