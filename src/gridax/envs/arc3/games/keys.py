"""Keys: walk a maze (ACTION1-4: up, down, left, right) to the exit; a key opens one door.

Walking into a key picks it up, into a door with a key in hand opens it (the key is
spent), into the exit completes the level. The UI shows the keys held as yellow squares
along the top edge of the screen.
"""

from __future__ import annotations

import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Game, Level, Var, maps

KINDS = ("wall", "player", "key", "door", "exit")
WALL, PLAYER, KEY, DOOR, EXIT = range(len(KINDS))
COLOURS = {"wall": 3, "player": 9, "key": 11, "door": 12, "exit": 14}

MAPS = (
    (
        "########",
        "#P..k..#",
        "#.####.#",
        "#.#..#.#",
        "#.#E.D.#",
        "#.####.#",
        "#......#",
        "########",
    ),
    (
        "##########",
        "#P...#..k#",
        "#.##.#.###",
        "#.#..D...#",
        "#.#.####.#",
        "#k#....#.#",
        "#.####.#D#",
        "#......#.#",
        "########E#",
        "##########",
    ),
    (
        "##########",
        "#P..#...k#",
        "#.#.#.####",
        "#.#...D..#",
        "#k######.#",
        "#..D...#.#",
        "###.##.#.#",
        "#E.D...#.#",
        "##########",
    ),
)

# A shortest solution of each level (breadth-first search over position, keys and doors).
SOLUTIONS = (
    "44444222333",
    "222211114442244114433224422222",
    "44224411444333223311332222442233",
)


def level_of(rows: tuple[str, ...]) -> Level:
    """A level from a map: ``#`` walls (one pixel-perfect sprite), ``P`` the player,
    ``k`` keys, ``D`` doors, ``E`` the exit; the camera frames the whole map."""
    symbols = {"P": "player", "k": "key", "D": "door", "E": "exit"}
    layers = dict.fromkeys(symbols.values(), 1)
    sprites = [maps.wall(rows, COLOURS["wall"]), *maps.dots(rows, symbols, COLOURS, layers)]
    return Level(tuple(sprites), grid_size=maps.size(rows))


def rule(state, action, game: Game):
    """One frame of an action: every action completes in one frame."""
    player = rules.slot_of(state, PLAYER)
    step = rules.arrow_step(action)
    moving = jnp.any(step != 0)
    state, hit = rules.try_move(state, player, step[0], step[1], game, size=1)
    kind = state.table.kind
    keys = hit & (kind == KEY)
    held = state.memory["keys_held"] + jnp.sum(keys, dtype=jnp.int32)
    door = hit & (kind == DOOR)
    opens = door & (jnp.cumsum(door) <= held)  # one key per door
    held = held - jnp.sum(opens, dtype=jnp.int32)
    exits = jnp.any(hit & (kind == EXIT))
    cleared = keys | opens
    # Through what was picked up or opened, if nothing else was in the way.
    passes = moving & jnp.any(cleared) & ~jnp.any(hit & ~cleared & (kind != EXIT))
    state = rules.remove(state, cleared)
    state = rules.move(state, player, step[0], step[1], passes)
    state = rules.set_memory(state, "keys_held", held)
    state = rules.next_level(state, len(game.levels), moving & exits)
    return rules.complete(state)


def ui(state, frame, game: Game):
    """Keys held: 2x2 yellow squares from the top-left corner, 3 pixels apart."""
    for k in range(4):
        held = state.memory["keys_held"] > k
        frame = rules.draw_square(frame, 1 + 3 * k, 1, 2, COLOURS["key"], held)
    return frame


GAME = Game(
    name="Keys",
    levels=tuple(level_of(rows) for rows in MAPS),
    kinds=KINDS,
    static_kinds=("wall", "exit"),  # never change during a level: drawn once per level
    rule=rule,
    available_actions=(1, 2, 3, 4),
    pixel_size=12,
    reach=12,
    memory={"keys_held": Var()},
    ui=ui,
    solutions=maps.actions(SOLUTIONS),
)
