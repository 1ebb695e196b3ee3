"""Random engine cases answered by ARC Prize's own engine (`arcengine`, Python 3.12+).

Prints JSON: for random sprites (pixels with transparency and invisible solid pixels,
rotations, mirrors, up- and downscaling, layers, blocking and interaction modes) and
random cameras, the rendered
64x64 frame (rows of hex digits), every pairwise ``collides_with``, ``get_sprite_at`` at
random cells (with and without a tag), ``try_move`` of random sprites,
``display_to_grid`` of random screen pixels and ``Sprite.merge`` of the first sprites
two by two. tests/envs/arc3/test_engine.py replays them
in gridax, from the recorded file (tests/fixtures/arc3/engine_cases.json) and, where
arcengine is installed, live:

    python tests/envs/arc3/arcengine/engine_cases.py --seed 0 --cases 40 > engine_cases.json
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from arcengine import ARCBaseGame, BlockingMode, Camera, InteractionMode, Level, Sprite

BLOCKING = [BlockingMode.NOT_BLOCKED, BlockingMode.BOUNDING_BOX, BlockingMode.PIXEL_PERFECT]
INTERACTION = {  # (visible, collidable)
    InteractionMode.TANGIBLE: (True, True),
    InteractionMode.INTANGIBLE: (True, False),
    InteractionMode.INVISIBLE: (False, True),
    InteractionMode.REMOVED: (False, False),
}
TAGS = ["a", "b"]


def random_sprite(rng, index: int) -> dict:
    scale = int(rng.choice([1, 1, 2, 3, -1, -2]))
    factor = 1 - scale if scale < 0 else 1
    height = factor * int(rng.integers(1, 7 if factor == 1 else 4))
    width = factor * int(rng.integers(1, 7 if factor == 1 else 4))
    pixels = rng.integers(0, 16, (height, width))
    pixels[rng.random((height, width)) < 0.3] = -1
    if factor == 1:  # invisible but solid pixels (ARC Prize's games use -2; arcengine
        pixels[rng.random((height, width)) < 0.1] = -2  # cannot scale them down)
    interaction = list(INTERACTION)[int(rng.integers(0, 4))]
    return {
        "pixels": pixels.tolist(),
        "kind": f"s{index}",
        "x": int(rng.integers(-4, 16)),  # crowded, so that sprites overlap
        "y": int(rng.integers(-4, 16)),
        "layer": int(rng.integers(-1, 3)),
        "scale": scale,
        "rotation": int(rng.choice([0, 90, 180, 270])),
        "mirror_ud": bool(rng.random() < 0.3),
        "mirror_lr": bool(rng.random() < 0.3),
        "blocking": int(rng.integers(0, 3)),
        "visible": INTERACTION[interaction][0],
        "collidable": INTERACTION[interaction][1],
        "tags": [tag for tag in TAGS if rng.random() < 0.4],
    }


def engine_sprite(spec: dict) -> Sprite:
    interaction = {v: k for k, v in INTERACTION.items()}[(spec["visible"], spec["collidable"])]
    return Sprite(
        pixels=spec["pixels"],
        name=spec["kind"],
        x=spec["x"],
        y=spec["y"],
        layer=spec["layer"],
        scale=spec["scale"],
        rotation=spec["rotation"],
        mirror_ud=spec["mirror_ud"],
        mirror_lr=spec["mirror_lr"],
        blocking=BLOCKING[spec["blocking"]],
        interaction=interaction,
        tags=list(spec["tags"]),
    )


class _Game(ARCBaseGame):
    """Just enough of a game to call the engine's ``try_move_sprite``."""

    def __init__(self, level: Level):
        super().__init__(game_id="cases", levels=[level])


def one_case(rng) -> dict:
    specs = [random_sprite(rng, i) for i in range(int(rng.integers(1, 9)))]
    camera_spec = {
        "x": int(rng.integers(-5, 12)),
        "y": int(rng.integers(-5, 12)),
        "width": int(rng.choice([7, 8, 10, 15, 16, 21, 30, 32, 40, 64, int(rng.integers(1, 65))])),
        "height": int(rng.choice([7, 8, 10, 15, 16, 21, 30, 32, 40, 64, int(rng.integers(1, 65))])),
        "background": int(rng.integers(0, 16)),
        "letterbox": int(rng.integers(0, 16)),
    }
    camera = Camera(
        x=camera_spec["x"],
        y=camera_spec["y"],
        width=camera_spec["width"],
        height=camera_spec["height"],
        background=camera_spec["background"],
        letter_box=camera_spec["letterbox"],
    )
    sprites = [engine_sprite(spec) for spec in specs]
    frame = camera.render(sprites)
    collide = [[bool(a.collides_with(b)) for b in sprites] for a in sprites]
    level = Level(sprites=sprites)
    probes = []
    for _ in range(12):
        if rng.random() < 0.7:  # a cell of some sprite's box, where sprites may overlap
            target = sprites[int(rng.integers(0, len(sprites)))]
            x = target.x + int(rng.integers(0, target.width))
            y = target.y + int(rng.integers(0, target.height))
        else:
            x, y = int(rng.integers(-6, 40)), int(rng.integers(-6, 40))
        tag = [None, *TAGS][int(rng.integers(0, 3))]
        ignore = bool(rng.random() < 0.3)
        found = level.get_sprite_at(x, y, tag=tag, ignore_collidable=ignore)
        index = -1 if found is None else sprites.index(found)
        probes.append({"x": x, "y": y, "tag": tag, "ignore_collidable": ignore, "slot": index})
    moves = []
    game = _Game(level)
    for _ in range(4):
        index = int(rng.integers(0, len(specs)))
        dx, dy = int(rng.integers(-3, 4)), int(rng.integers(-3, 4))
        moving = game.current_level.get_sprites()[index]
        hit = game.try_move_sprite(moving, dx, dy)
        placed = game.current_level.get_sprites()
        moves.append(
            {
                "slot": index,
                "dx": dx,
                "dy": dy,
                "hit": sorted(placed.index(s) for s in hit),
                "x": [s.x for s in placed],
                "y": [s.y for s in placed],
            }
        )
    clicks = []
    for _ in range(8):
        sx, sy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
        cell = camera.display_to_grid(sx, sy)
        clicks.append({"x": sx, "y": sy, "cell": None if cell is None else list(cell)})
    merges = []
    for a in range(min(len(specs), 4)):
        for b in range(min(len(specs), 4)):
            if a != b:
                merged = engine_sprite(specs[a]).merge(engine_sprite(specs[b]))
                visible, collidable = INTERACTION[merged.interaction]
                merges.append(
                    {
                        "a": a,
                        "b": b,
                        "pixels": merged.render().tolist(),
                        "x": merged.x,
                        "y": merged.y,
                        "layer": merged.layer,
                        "blocking": BLOCKING.index(merged.blocking),
                        "visible": visible,
                        "collidable": collidable,
                        "tags": sorted(merged.tags),
                    }
                )
    return {
        "sprites": specs,
        "camera": camera_spec,
        "frame": ["".join(f"{int(v):x}" for v in row) for row in frame],  # one hex digit a pixel
        "collides": collide,
        "sprite_at": probes,
        "moves": moves,
        "display_to_grid": clicks,
        "merges": merges,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=40)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(json.dumps({"seed": args.seed, "cases": [one_case(rng) for _ in range(args.cases)]}))


if __name__ == "__main__":
    main()
