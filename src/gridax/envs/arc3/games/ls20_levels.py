"""LS20's levels: ARC Prize's level data (``rules.official.load("ls20")``) with what the
official game works out when a level starts written into it, as data.

When a level starts the official game paints each lock (the shape a door wants) and the
player's key from the level's data values, makes the player and the springs block by
their bounding boxes, adds the flash sprite (hidden) at the end of the sprite list, and
reads off the geometry its rule then uses: which changers ride which rails, how far each
spring throws, the walls and doors springs stop at. All of it depends only on the
level's declaration, so it is computed here once, in plain Python, into each level's
sprites and starting memory (``games/ls20.py`` describes the game).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gridax.envs.arc3 import rules

OFFICIAL = rules.official.load("ls20")

# Tags (the official file's names) of the sprites the rule tells apart.
PLAYER, KEY, KEY_BOX, KEY_GLOW = "sfqyzhzkij", "wgmbtyhvbc", "eqatonpohu", "ghizzeqtoh"
WALL, DOOR, LOCK = "ihdgageizm", "rjlbuycveu", "kvynsvxbpi"
DOOR_FRAME, CLEARED_FRAME, HINT = "vjotnebuqo", "vfkkzdgxzx", "hoswmpiqkw"
BATTERY, SHAPER, PAINTER, TURNER = "npxgalaybz", "ttfwljgohq", "soyhouuebz", "rhsxkxzdjz"
RAIL, SPRING = "xfmluydglp", "gbvqrjtaqo"
FLASH = "sqpmiygfvh"  # the sprite name of the flash (it has no tag)

# The key's six shapes (3x3, 0 where the key is drawn), four colours and four turns.
SHAPE_NAMES = ("gngifvjddu", "fywfjzkxlm", "mkfbgalsbe", "nnjhdcanjk", "grcpfuizfp", "ubspnhafvq")
SHAPES = np.stack([np.asarray(OFFICIAL.catalogue[n].pixels) == 0 for n in SHAPE_NAMES])
COLOURS = (12, 9, 14, 8)
ROTATIONS = (0, 90, 180, 270)

PUSH_FRAMES, RETURN_FRAMES = 8, 6  # a spring's throw and its way back
SPRING_FRAMES = PUSH_FRAMES + RETURN_FRAMES + 2  # each ends with a frame that settles it
SPRING_REACH = 11  # springs look this many strides ahead for a wall
DIRECTIONS = {"t": (0, -1), "b": (0, 1), "r": (1, 0), "l": (-1, 0)}  # by name's last letter

LEVELS = OFFICIAL.levels
MAX_DOORS = max(len([s for s in lv.sprites if DOOR in s.tags]) for lv in LEVELS)
MAX_SPRINGS = max(len([s for s in lv.sprites if SPRING in s.tags]) for lv in LEVELS)
MAX_WALLS = max(len([s for s in lv.sprites if WALL in s.tags]) for lv in LEVELS)
# The other sprites, the walls drawn as one sprite, and the flash.
NUM_SLOTS = max(len([s for s in lv.sprites if WALL not in s.tags]) for lv in LEVELS) + 2
FAR = 1 << 12  # a padding wall's place: met by no cell


def key_pixels(shape: int, colour: int) -> tuple:
    """The key's (or a lock's) pixels: shape ``shape`` in colour number ``colour``."""
    grid = np.where(SHAPES[shape], COLOURS[colour], -1)
    return tuple(map(tuple, grid.tolist()))


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def touches(a: rules.Sprite, b: rules.Sprite) -> bool:
    """arcengine's ``collides_with(..., ignoreMode=True)``: boxes overlap and, for
    pixel-perfect sprites, a pixel other than -1 of each meets."""
    pa, pb = rules.drawn_grid(a), rules.drawn_grid(b)
    x0, y0 = max(a.x, b.x), max(a.y, b.y)
    x1, y1 = min(a.x + pa.shape[1], b.x + pb.shape[1]), min(a.y + pa.shape[0], b.y + pb.shape[0])
    if x0 >= x1 or y0 >= y1:
        return False
    per_pixel = rules.Blocking.PIXEL_PERFECT
    if a.blocking != per_pixel and b.blocking != per_pixel:
        return True
    ra = pa[y0 - a.y : y1 - a.y, x0 - a.x : x1 - a.x]
    rb = pb[y0 - b.y : y1 - b.y, x0 - b.x : x1 - b.x]
    return bool(np.any((ra != -1) & (rb != -1)))


def ease(t: float) -> float:
    """The springs' easing in and out (cubic)."""
    return 4 * t * t * t if t < 0.5 else 1 - (-2 * t + 2) ** 3 / 2


def glide(start: tuple[int, int], end: tuple[int, int], frames: int) -> list[tuple[int, int]]:
    """Where a spring stands after each frame of a glide from ``start`` to ``end``: eased,
    whole cells a frame with the fractions carried over (in the official game's float
    arithmetic, from its absolute coordinates), then one frame that settles on ``end``."""
    x, y = start
    carry_x = carry_y = 0.0
    path = []
    for frame in range(1, frames + 1):
        eased = ease(frame / frames)
        want_x = float(start[0]) + (end[0] - float(start[0])) * eased - float(x) + carry_x
        want_y = float(start[1]) + (end[1] - float(start[1])) * eased - float(y) + carry_y
        step_x, step_y = int(want_x), int(want_y)
        carry_x, carry_y = want_x - step_x, want_y - step_y
        x, y = x + step_x, y + step_y
        path.append((x, y))
    path.append(end)
    return path


def spring_throw(spring: rules.Sprite, stops: set) -> tuple[tuple[int, int], int]:
    """A spring's direction and how many strides it throws the player: it stops a stride
    short of the first wall or door ahead (within ``SPRING_REACH``), 0 if none."""
    dx, dy = DIRECTIONS.get(spring.kind[-1], (0, 0))
    height, width = rules.drawn_grid(spring).shape
    for stride in range(1, SPRING_REACH + 1):
        ahead = (spring.x + dx + dx * width * stride, spring.y + dy + dy * height * stride)
        if ahead in stops:
            return (dx, dy), stride - 1
    return (dx, dy), 0


def walls_apart(sprites: list) -> tuple[list, rules.Sprite, list]:
    """``(others, drawn, walls)``: the sprites but the walls, in order; the walls drawn as
    one sprite; each wall's top-left corner and how many of the others come before it.

    Walls never change: drawing them as one sprite on their layer (they alone are on it,
    all one colour) draws the same frames with a fraction of the slots, and a cell's
    walls are found by their corners. Counting the others before a wall keeps its place
    in the sprite order: another sprite came before it if and only if its order (its
    place among the others) is less than that count."""
    others, walls = [], []
    canvas = np.full((64, 64), -1)
    for sprite in sprites:
        if WALL not in sprite.tags:
            others.append(sprite)
            continue
        walls.append((sprite.x, sprite.y, len(others)))
        pixels = rules.drawn_grid(sprite)
        height, width = pixels.shape
        area = canvas[sprite.y : sprite.y + height, sprite.x : sprite.x + width]
        area[...] = np.where(pixels >= 0, pixels, area)
    below = [s for s in sprites if WALL in s.tags or s.layer <= WALL_LAYER]
    assert {s.layer for s in below} == {WALL_LAYER} and all(WALL in s.tags for s in below)
    assert len(set(canvas[canvas >= 0].tolist())) <= 1, "walls are all one colour"
    picture = rules.Sprite(
        tuple(map(tuple, canvas.tolist())), "ihdgageizm", layer=WALL_LAYER, collidable=False
    )
    return others, picture, walls


WALL_LAYER = -5


def prepare(number: int) -> rules.Level:
    """Level ``number`` as the official game sets it up (module docstring)."""
    level = LEVELS[number]
    data = level.data
    sprites, wall_picture, walls = walls_apart(list(level.sprites))

    def tagged(tag):
        return [i for i, s in enumerate(sprites) if tag in s.tags]

    doors, locks = tagged(DOOR), tagged(LOCK)
    door_keys = [
        (shape, COLOURS.index(colour), ROTATIONS.index(turn))
        for shape, colour, turn in zip(
            as_list(data["kvynsvxbpi"]),
            as_list(data["GoalColor"]),
            as_list(data["GoalRotation"]),
            strict=False,
        )
    ][: len(doors)]
    for lock, (shape, colour, turn) in zip(locks, door_keys, strict=False):
        sprites[lock] = dataclasses.replace(
            sprites[lock], pixels=key_pixels(shape, colour), rotation=ROTATIONS[turn]
        )
    start_key = (data["StartShape"], COLOURS.index(data["StartColor"]))
    start_key += (ROTATIONS.index(data["StartRotation"]),)
    (key,) = tagged(KEY)[:1]
    sprites[key] = dataclasses.replace(
        sprites[key], pixels=key_pixels(*start_key[:2]), rotation=ROTATIONS[start_key[2]]
    )
    box = rules.Blocking.BOUNDING_BOX
    player = tagged(PLAYER)[0]
    springs = tagged(SPRING)
    for slot in [player, *springs]:
        sprites[slot] = dataclasses.replace(sprites[slot], blocking=box)
    flash = dataclasses.replace(OFFICIAL.catalogue[FLASH], x=0, y=0, scale=64, visible=False)
    sprites += [wall_picture, flash]

    # Changers that ride rails, in the official order: by rail, then changer kind.
    riders = [
        (changer, rail)
        for rail in tagged(RAIL)
        for tag in (SHAPER, PAINTER, TURNER)
        for changer in tagged(tag)
        if touches(sprites[rail], sprites[changer])
    ]
    stops = {(x, y) for x, y, _ in walls} | {(sprites[i].x, sprites[i].y) for i in doors}
    throws, paths = [], []
    for slot in springs:
        (dx, dy), strides = spring_throw(sprites[slot], stops)
        height, width = rules.drawn_grid(sprites[slot]).shape
        start = (sprites[slot].x, sprites[slot].y)
        end = (start[0] + dx * width * strides, start[1] + dy * height * strides)
        path = glide(start, end, PUSH_FRAMES) + glide(end, start, RETURN_FRAMES)
        paths.append([(x - start[0], y - start[1]) for x, y in path])
        throws.append(strides > 0)

    def padded(values, size, fill: object = -1):
        return tuple(values) + (fill,) * (size - len(values))

    steps = data["StepCounter"]
    memory = {
        "player": player,
        "key": key,
        "key_box": tagged(KEY_BOX)[0],
        "key_glow": tagged(KEY_GLOW)[0],
        "flash_slot": len(sprites) - 1,
        "player_start": (sprites[player].x, sprites[player].y),
        "start_key": start_key,
        "key_state": start_key,
        "doors": padded(doors, MAX_DOORS),
        "locks": padded(locks[: len(doors)], MAX_DOORS),
        "door_keys": padded(door_keys, MAX_DOORS, (-1, -1, -1)),
        "springs": padded(springs, MAX_SPRINGS),
        "spring_throws": padded(throws, MAX_SPRINGS, False),
        "spring_paths": padded(paths, MAX_SPRINGS, ((0, 0),) * SPRING_FRAMES),
        "riders": padded([c for c, _ in riders], MAX_RIDERS),
        "rails": padded([r for _, r in riders], MAX_RIDERS),
        "rider_starts": padded(
            [(sprites[c].x, sprites[c].y) for c, _ in riders], MAX_RIDERS, (-1, -1)
        ),
        "steps_max": steps,
        "steps": steps,
        "step_cost": 2 if data.get("StepsDecrement") is None else data["StepsDecrement"],
        "fog": bool(data["Fog"]),
        "walls": padded(walls, MAX_WALLS, (FAR, FAR, 0)),
    }
    return rules.Level(tuple(sprites), level.grid_size, memory, level.name)


MAX_RIDERS = 3  # changers riding rails in one level (checked by levels())


def levels() -> tuple[rules.Level, ...]:
    built = tuple(prepare(number) for number in range(len(LEVELS)))
    for level in built:
        riders = dict(level.memory)["riders"]
        assert isinstance(riders, tuple), f"{level.name}: riders {riders!r}"
        assert len(riders) == MAX_RIDERS, f"{level.name}: {len(riders)} riders"
    return built
