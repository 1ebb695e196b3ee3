"""Glue: walk (ACTION1-4: up, down, left, right) into parts to glue them on, carry them,
and let go (ACTION5) with a part on every socket.

Walking into a part merges it with the player (arcengine's ``Sprite.merge``: one sprite,
the player's, over both); the merged sprite moves and collides as one, and grabs any
part it runs into. ACTION5 detaches every part where it stands and leaves the player
alone on its own cell. The level is complete when a part (not carried) lies on every
socket; sockets lie under everything and do not block.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax.batching import cond_rare
from gridax.envs.arc3 import rules
from gridax.envs.arc3.game import Game, Level
from gridax.envs.arc3.games import maps
from gridax.envs.arc3.sprites import TRANSPARENT
from gridax.envs.arc3.types import ACTION5

KINDS = ("wall", "socket", "part", "player")
WALL, SOCKET, PART, PLAYER = range(len(KINDS))
COLOURS = {"wall": 2, "socket": 8, "part": 6, "player": 9}
PLAYER_X, PLAYER_Y = 0, 1  # memory: the player's own cell

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

# A shortest solution of each level (gridax.envs.arc3.search).
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
        memory=(x, y),
    )


def rule(state, action, game: Game):
    """One frame of an action: every action completes in one frame."""
    player = rules.slot_of(state, PLAYER)
    step = rules.arrow_step(action)
    state, hit = rules.try_move(state, player, step[0], step[1], game, size=CARRY_SIZE)
    state = _carry(state, jnp.where(jnp.any(hit), 0, step))
    grabbed = hit & (state.table.kind == PART)

    def grab_all(state, player, grabbed):
        def grab(slot, state):
            merged = rules.merge(state, player, slot, game)
            return jax.tree.map(lambda a, b: jnp.where(grabbed[slot], a, b), merged, state)

        return jax.lax.fori_loop(0, game.num_slots, grab, state)

    # Grabbing and letting go are rare in a batch: done only where some env does them.
    state = cond_rare(
        jnp.any(grabbed), grab_all, state, player, grabbed, compact_to=1 / 16, chunks=True
    )
    state = cond_rare(action.id == ACTION5, _detach, state, player)
    state = rules.next_level(state, len(game.levels), rules.covered(state, SOCKET, PART))
    return rules.complete(state)


def _carried(table):
    """Parts merged into the player (gone from the level until detached)."""
    return ~table.exists & (table.kind == PART)


def _carry(state, step):
    """The player's cell and the parts it carries follow its move ``step``."""
    shift = _carried(state.table)
    return eqx.tree_at(
        lambda s: (s.table.x, s.table.y, s.memory),
        state,
        (
            state.table.x + jnp.where(shift, step[0], 0),
            state.table.y + jnp.where(shift, step[1], 0),
            state.memory.at[PLAYER_X].add(step[0]).at[PLAYER_Y].add(step[1]),
        ),
    )


def _detach(state, player):
    """Every carried part back in the level where it stands; the player alone again."""
    table = state.table
    alone = jnp.full(table.pixels.shape[1:], TRANSPARENT, jnp.int8)
    alone = alone.at[0, 0].set(COLOURS["player"])
    return eqx.tree_at(
        lambda s: (
            s.table.pixels,
            s.table.height,
            s.table.width,
            s.table.x,
            s.table.y,
            s.table.exists,
        ),
        state,
        (
            table.pixels.at[player].set(alone),
            table.height.at[player].set(1),
            table.width.at[player].set(1),
            table.x.at[player].set(state.memory[PLAYER_X]),
            table.y.at[player].set(state.memory[PLAYER_Y]),
            table.exists | _carried(table),
        ),
    )


GAME = Game(
    name="Glue",
    levels=tuple(level_of(rows) for rows in MAPS),
    kinds=KINDS,
    rule=rule,
    available_actions=(1, 2, 3, 4, 5),
    pixel_size=9,
    reach=9,
    memory_size=2,
    solutions=maps.actions(SOLUTIONS),
)
