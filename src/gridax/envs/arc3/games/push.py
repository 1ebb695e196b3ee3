"""Push: walk (ACTION1-4: up, down, left, right) and push boxes onto every target.

Walking into a box pushes it one cell if nothing is behind it (one box at a time); the
level is complete when every target has a box on it. Targets lie under the boxes and do
not block (intangible sprites).
"""

from __future__ import annotations

import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Game, Level, maps

KINDS = ("wall", "target", "box", "player")
WALL, TARGET, BOX, PLAYER = range(len(KINDS))
COLOURS = {"wall": 4, "target": 8, "box": 12, "player": 9}

# "#" wall, "P" player, "B" box, "T" target, "*" a box on a target.
MAPS = (
    (
        "#######",
        "#.....#",
        "#.PB.T#",
        "#.....#",
        "#######",
    ),
    (
        "########",
        "#..T...#",
        "#..B...#",
        "#.P##B.#",
        "#....T.#",
        "########",
    ),
    (
        "#########",
        "#.T.#...#",
        "#.B.#.B.#",
        "#...P...#",
        "###.#.###",
        "#T....B.#",
        "#.....T.#",
        "#########",
    ),
)

# A shortest solution of each level (gridax.envs.arc3.tools.search).
SOLUTIONS = ("44", "11442421331332241314", "422244133114413132222324133341131")


def level_of(rows: tuple[str, ...]) -> Level:
    """A level from a map; the camera frames the whole map."""
    layers = {"target": 0, "box": 1, "player": 1}
    targets = maps.dots(rows, {"T": "target", "*": "target"}, COLOURS, layers, collidable=False)
    movers = maps.dots(rows, {"P": "player", "B": "box", "*": "box"}, COLOURS, layers)
    sprites = (maps.wall(rows, COLOURS["wall"]), *targets, *movers)
    return Level(sprites, grid_size=maps.size(rows))


def rule(state, action, game: Game):
    """One frame of an action: every action completes in one frame."""
    table = state.table
    player = rules.slot_of(state, PLAYER)
    step = rules.arrow_step(action)
    state, hit = rules.try_move(state, player, step[0], step[1], game, size=1)
    # Into a lone box: the box moves if it can, then the player follows.
    box = jnp.argmax(hit).astype(jnp.int32)
    lone_box = (jnp.sum(hit) == 1) & (table.kind[box] == BOX)
    pushed, box_hit = rules.try_move(state, box, step[0], step[1], game, size=1)
    follows = lone_box & ~jnp.any(box_hit)
    pushed = rules.move(pushed, player, step[0], step[1])
    state = rules.where(follows, pushed, state)
    state = rules.next_level(state, len(game.levels), rules.covered(state, TARGET, BOX))
    return rules.complete(state)


GAME = Game(
    name="Push",
    levels=tuple(level_of(rows) for rows in MAPS),
    kinds=KINDS,
    static_kinds=("wall", "target"),  # never change during a level: drawn once per level
    rule=rule,
    available_actions=(1, 2, 3, 4),
    pixel_size=9,
    reach=9,
    solutions=maps.actions(SOLUTIONS),
)
