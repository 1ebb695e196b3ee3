"""Glue: walk (ACTION1-4: up, down, left, right) into parts to glue them on, carry them,
and let go (ACTION5) with a part on every socket.

Walking into a part merges it with the player (arcengine's ``Sprite.merge``: one sprite,
the player's, over both); the merged sprite moves and collides as one, and grabs any
part it runs into. ACTION5 detaches every part where it stands and leaves the player
alone on its own cell. The level is complete when a part (not carried) lies on every
socket; sockets lie under everything and do not block.
"""

from __future__ import annotations

import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import ACTION5, Game, Level, Var, maps

KINDS = ("wall", "socket", "part", "player")
WALL, SOCKET, PART, PLAYER = range(len(KINDS))
COLOURS = {"wall": 2, "socket": 8, "part": 6, "player": 9}

# "#" wall, "P" player, "p" part, "s" socket.
MAPS = (
    (
        "#######",
        "#.....#",
        "#P.p.s#",
        "#.....#",
        "#######",
    ),
    (
        "########",
        "#s....##",
        "#.##p..#",
        "#.##...#",
        "#P.....#",
        "########",
    ),
    (
        "#########",
        "#P..#...#",
        "#.p.#.s.#",
        "#.......#",
        "#.p.#.s.#",
        "#########",
    ),
)

# The player with every part of a level glued on is at most this many cells across.
CARRY_SIZE = 1 + max(sum(row.count("p") for row in rows) for rows in MAPS)

# A shortest solution of each level (gridax.envs.arc3.tools.search).
SOLUTIONS = ("44445", "444141313335", "242444415233231444245")


def level_of(rows: tuple[str, ...]) -> Level:
    """A level from a map; the camera frames the whole map."""
    layers = {"socket": 0, "part": 1, "player": 1}
    sockets = maps.dots(rows, {"s": "socket"}, COLOURS, layers, collidable=False)
    movers = maps.dots(rows, {"P": "player", "p": "part"}, COLOURS, layers)
    ((_, x, y),) = maps.cells(rows, "P")
    return Level(
        (maps.wall(rows, COLOURS["wall"]), *sockets, *movers),
        grid_size=maps.size(rows),
        memory={"player_x": x, "player_y": y},
    )


def rule(state, action, game: Game):
    """One frame of an action: every action completes in one frame."""
    player = rules.slot_of(state, PLAYER)
    step = rules.arrow_step(action)
    state, hit = rules.try_move(state, player, step[0], step[1], game, size=CARRY_SIZE)
    state = _carry(state, jnp.where(jnp.any(hit), 0, step))
    grabbed = hit & (state.table.kind == PART)

    state = rules.merge_all(state, player, grabbed, game)
    state = rules.rarely(action.id == ACTION5, _detach, state, player)
    state = rules.next_level(state, len(game.levels), rules.covered(state, SOCKET, PART))
    return rules.complete(state)


def _carried(table):
    """Parts merged into the player (gone from the level until detached)."""
    return ~table.exists & (table.kind == PART)


def _carry(state, step):
    """The player's cell and the parts it carries follow its move ``step``."""
    state = rules.move(state, _carried(state.table), step[0], step[1])
    state = rules.set_memory(state, "player_x", state.memory["player_x"] + step[0])
    return rules.set_memory(state, "player_y", state.memory["player_y"] + step[1])


def _detach(state, player):
    """Every carried part back in the level where it stands; the player alone again."""
    carried = _carried(state.table)
    state = rules.set_pixels(state, player, ((COLOURS["player"],),))
    state = rules.place(state, player, state.memory["player_x"], state.memory["player_y"])
    return rules.bring_back(state, carried)


GAME = Game(
    name="Glue",
    levels=tuple(level_of(rows) for rows in MAPS),
    kinds=KINDS,
    static_kinds=("wall", "socket"),  # never change during a level: drawn once per level
    rule=rule,
    available_actions=(1, 2, 3, 4, 5),
    pixel_size=9,
    reach=9,
    # The player's own cell (what is left of it when it lets go).
    memory={"player_x": Var(), "player_y": Var()},
    solutions=maps.actions(SOLUTIONS),
)
