"""Explore: walk (ACTION1-4: up, down, left, right) a world larger than the screen and
collect every gem; the camera follows the player.

The camera shows 10x10 cells around the player, kept inside the world; walking onto a
gem collects it (gems do not block). The gems left are the dots along the screen's top
row; the level is complete when none is left.
"""

from __future__ import annotations

import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Game, Level, Var, maps

KINDS = ("wall", "gem", "player")
WALL, GEM, PLAYER = range(len(KINDS))
COLOURS = {"wall": 1, "gem": 11, "player": 9}
VIEW = 10  # cells the camera shows across and down

# "#" wall, "P" player, "g" gem.
MAPS = (
    (
        "################",
        "#P.....#.......#",
        "#.####.#.####..#",
        "#.#g...#....#..#",
        "#.#.####.##.#..#",
        "#.#.....g#..#..#",
        "#.######.#.##..#",
        "#........#...g.#",
        "#..#######.....#",
        "#..............#",
        "################",
    ),
    (
        "####################",
        "#P.......#.........#",
        "#.######.#.#######.#",
        "#.#....#.#.#.....#.#",
        "#.#.##.#...#.###.#.#",
        "#.#.#..#####.#g#.#.#",
        "#.#.####.....#.#...#",
        "#.#......###.#.###.#",
        "#.########.#.#.....#",
        "#..........#.#####.#",
        "#.########.#.....#.#",
        "#..g.....#.#####.#.#",
        "#.######.#.......#g#",
        "####################",
    ),
    (
        "########################",
        "#P.........#...........#",
        "#.########.#.#########.#",
        "#.#........#.#.......#.#",
        "#.#.####.#.#.#.#####.#.#",
        "#.#.#g.#.#...#.#g..#.#.#",
        "#.#.#..#.#####.#.#.#.#.#",
        "#.#.##.#.........#.....#",
        "#......#########.#####.#",
        "#.######...............#",
        "#........#####.#######.#",
        "#.######.#...#.......#.#",
        "#.#......#.#.#######.#.#",
        "#.########.#.........#.#",
        "#..........#############",
        "########################",
    ),
)

# A shortest solution of each level (gridax.envs.arc3.tools.search).
SOLUTIONS = (
    "444442233322444441144422322444",
    "222222222244331111111111444444422244111444444442222222222211113333111",
    "22222224444411132422333111114444422224444444411",
)


def level_of(rows: tuple[str, ...]) -> Level:
    """A level from a map: the world is the whole map, the camera a 10x10 view of it."""
    layers = {"gem": 0, "player": 1}
    gems = maps.dots(rows, {"g": "gem"}, COLOURS, layers, collidable=False)
    player = maps.dots(rows, {"P": "player"}, COLOURS, layers)
    return Level(
        (maps.wall(rows, COLOURS["wall"]), *gems, *player),
        grid_size=(VIEW, VIEW),
        memory=dict(zip(("world_width", "world_height"), maps.size(rows), strict=True)),
    )


def follow(state, game: Game):
    """The camera centred on the player, kept inside the world."""
    player = rules.slot_of(state, PLAYER)
    x = jnp.clip(state.table.x[player] - VIEW // 2, 0, state.memory["world_width"] - VIEW)
    y = jnp.clip(state.table.y[player] - VIEW // 2, 0, state.memory["world_height"] - VIEW)
    return rules.move_camera(state, x, y)


def rule(state, action, game: Game):
    """One frame of an action: every action completes in one frame."""
    player = rules.slot_of(state, PLAYER)
    step = rules.arrow_step(action)
    state, _ = rules.try_move(state, player, step[0], step[1], game, size=1)
    table = state.table
    on_player = (table.x == table.x[player]) & (table.y == table.y[player])
    state = rules.remove(state, rules.of_kind(state, GEM) & on_player)
    state = follow(state, game)
    left = rules.count(state, GEM)
    state = rules.next_level(state, len(game.levels), left == 0)
    return rules.complete(state)


def ui(state, frame, game: Game):
    """Gems left: one dot every two pixels along the top row."""
    left = rules.count(state, GEM)
    for k in range(8):
        frame = rules.draw_square(frame, 1 + 2 * k, 0, 1, COLOURS["gem"], left > k)
    return frame


GAME = Game(
    name="Explore",
    levels=tuple(level_of(rows) for rows in MAPS),
    kinds=KINDS,
    static_kinds=("wall",),  # never change during a level: drawn once per level
    rule=rule,
    available_actions=(1, 2, 3, 4),
    pixel_size=24,
    reach=24,
    # The world's size, for the camera's bounds.
    memory={"world_width": Var(), "world_height": Var()},
    ui=ui,
    on_set_level=follow,
    solutions=maps.actions(SOLUTIONS),
)
