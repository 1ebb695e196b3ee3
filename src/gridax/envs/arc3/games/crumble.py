"""Crumble: walk (ACTION1-4: up, down, left, right) over every floor cell once; each
cell crumbles into a hole as you leave it, and holes cannot be crossed.

A wrong turn leaves the player walled in by holes with floor still to cover, and a move
cannot be walked back: ACTION7 (undo) takes back the last actions (up to 32), RESET
restarts the level. The level is complete when the player stands on the last floor cell.
"""

from __future__ import annotations

import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import UNDO, Game, Level, Var, maps

KINDS = ("wall", "holes", "player")
WALL, HOLES, PLAYER = range(len(KINDS))
COLOURS = {"wall": 2, "hole": 0, "player": 9}

# "#" wall, "P" player (on floor), "." floor, "o" a hole already.
MAPS = (
    (
        "######",
        "#P...#",
        "#....#",
        "######",
    ),
    (
        "#######",
        "#P....#",
        "#.#o#.#",
        "#.....#",
        "#######",
    ),
    (
        "########",
        "#.....##",
        "#..P...#",
        "#......#",
        "#.....##",
        "#..#...#",
        "########",
    ),
)

# A solution of each level: the first path over every floor cell in action order, by
# depth-first search (every solution is that long: one move per floor cell but the first).
SOLUTIONS = ("2414241", "22444411333", "13324232241414114242323244")


def level_of(rows: tuple[str, ...]) -> Level:
    """A level from a map: walls and holes are one sprite each, over the whole map."""
    holes = maps.wall(rows, COLOURS["hole"], kind="holes", symbol="o")
    player = maps.dots(rows, {"P": "player"}, COLOURS, {"player": 1})
    floor = len(maps.cells(rows, ".P"))
    return Level(
        (maps.wall(rows, COLOURS["wall"]), holes, *player),
        grid_size=maps.size(rows),
        memory={"floor_left": floor},
    )


def rule(state, action, game: Game):
    """One frame of an action: every action completes in one frame."""
    player, holes = rules.slot_of(state, PLAYER), rules.slot_of(state, HOLES)
    x, y = state.table.x[player], state.table.y[player]
    step = rules.arrow_step(action)
    state, hit = rules.try_move(state, player, step[0], step[1], game, size=1)
    moved = jnp.any(step != 0) & ~jnp.any(hit)
    state = rules.set_pixel(state, holes, y, x, COLOURS["hole"], moved)  # holes at (0, 0)
    left = state.memory["floor_left"] - jnp.where(moved, 1, 0)
    state = rules.set_memory(state, "floor_left", left)
    state = rules.next_level(state, len(game.levels), moved & (left == 1))
    return rules.complete(state)


GAME = Game(
    name="Crumble",
    levels=tuple(level_of(rows) for rows in MAPS),
    kinds=KINDS,
    static_kinds=("wall",),  # never change during a level: drawn once per level
    rule=rule,
    available_actions=(1, 2, 3, 4, UNDO),
    pixel_size=8,
    reach=8,
    # Floor cells not crumbled yet, the player's own included.
    memory={"floor_left": Var()},
    undo_depth=32,
    solutions=maps.actions(SOLUTIONS),
)
