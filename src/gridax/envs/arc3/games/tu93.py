"""tu93 (ARC Prize's ARC-AGI-3 public game, version 2b534c15), frame for frame.

A maze (tag ``vhlesexlqd``: pixels of colour 2 are corridors) has nodes every 6 cells
from its top-left corner. The player (``albwnmiahg``, 3x3) goes from node to node; the
level is complete when it stands on an exit (``xboyuzuyxv``). Three kinds of enemies
(3x3) stand on nodes, each facing a way:

- **chargers** (``vllvfeggte``): when the player stands one node (6 cells) in front of
  one after a move, it is marked (its pixel (0, 1) turns colour 11) and charges one
  node forward; marked, it is a threat where it stands;
- **patrollers** (``zzuxulcort``): step one node forward after every move of the
  player, and turn back at a node where the corridor ahead ends;
- **followers** (``natiyqayts``): when the player stands two nodes in front of one after
  a move, it is marked; from then on it steps one node a move, turning as the player
  turned two moves before.

ACTION1-4 turn the player up, down, left or right and, where the corridor goes on
(the maze's pixel 3 cells that way is 2), start a turn over several frames:

1. the player slides 6 cells, one a frame; at the node, any enemy centred on it bursts
   (it grows to 5x5, then 7x7 dotted rings of its colour, one a frame, then is gone);
2. then the enemies move: chargers that see the player start their charge, every
   patroller and every marked follower step one cell, then on, one cell a frame, to
   the next node; a moving enemy at a node where the player is centred makes the player
   burst (a stage per such enemy a frame);
3. at the end patrollers facing a dead end turn back, followers are marked and turned,
   and the level is complete if the player is on an exit, or lost if the player is gone
   or no moves are left.

Every ACTION1-4, moving or not, spends one of the level's moves (``StepCounter``); the
bottom row of the screen shows ``round(64 * left / moves)`` pixels of colour 6, the rest
colour 0. A move that cannot start and leaves none loses the game.

The original's Python state, as memory: the phase of a turn (``phase``: 0 waits for an
action, 1 the player slides, 2 the enemies move), the level's moves and the moves left
(``moves``, ``moves_left``), and each marked
follower's queue of turns (its dict by sprite: ``queue``, ``queue_length``,
``followed``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Game, Var

DATA = rules.official.load("tu93")
TAGS = DATA.tags
MAZE, PLAYER, EXIT, CHARGER, PATROLLER, FOLLOWER = (
    TAGS.index(tag)
    for tag in ("vhlesexlqd", "albwnmiahg", "xboyuzuyxv", "vllvfeggte", "zzuxulcort", "natiyqayts")
)
NODE = 6  # cells between nodes
HALF = 3  # where a corridor is read, from a node
SEES, FOLLOWS = NODE, 2 * NODE  # how far chargers and followers see the player
CORRIDOR, MARK = 2, 11
BAR_FULL, BAR_SPENT = 6, 0
WAITING, SLIDING, ENEMIES = 0, 1, 2
QUEUE = 2  # turns a follower's queue holds: 2 when marked, one in and one out a turn
# The largest sprite, a maze 45 cells a side, is static (the level bank holds its
# pixels); the grids the state holds are the bursts' largest, 7x7.
LARGEST = max(max(np.shape(s.pixels)) for level in DATA.levels for s in level.sprites)
BURST_SIZES = (3, 5, 7)  # an enemy or the player, then its two rings; then it is gone
PIXELS = BURST_SIZES[-1]
NUM_SLOTS = max(len(level.sprites) for level in DATA.levels)
# A unit vector per quarter turn: 0 faces up, 1 right, 2 down, 3 left.
FORWARD = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)], np.int32)
ARROW_TURNS = np.array([0, 0, 2, 3, 1, 0, 0, 0], np.int32)  # by action id: ACTION1 up, ...
RING_5, RING_7 = (DATA.padded_pixels(kind, PIXELS) for kind in ("rlkxuujqdr", "qfgklunikd"))


def _level_memory(number: int, data) -> dict:
    return {"moves": data["StepCounter"], "moves_left": data["StepCounter"]}


# --- geometry -------------------------------------------------------------------------


def _maze(state):
    return jnp.argmax(rules.tagged(state, MAZE))


def _forward(state):
    """``(dx, dy)`` of every slot's facing, ``[N]`` each."""
    step = jnp.asarray(FORWARD)[state.table.quarter_turns]
    return step[:, 0], step[:, 1]


def _at_node(state):
    """``[N]``: each slot stands on a node of the maze."""
    table, maze = state.table, _maze(state)
    dx, dy = table.x - table.x[maze], table.y - table.y[maze]
    return (dx % NODE == 0) & (dy % NODE == 0)


def _open(state, x, y):
    """The maze's pixel at world cell ``(x, y)`` is a corridor (off the maze: no)."""
    table, maze = state.table, _maze(state)
    pixel = rules.source_pixel(state, maze, y - table.y[maze], x - table.x[maze], GAME)
    return pixel == CORRIDOR


def _player(state):
    """``(slot, exists)`` of the player."""
    mask = rules.tagged(state, PLAYER)
    return jnp.argmax(mask), jnp.any(mask)


def _enemies(state):
    chargers = rules.tagged(state, CHARGER)
    return chargers | rules.tagged(state, PATROLLER) | rules.tagged(state, FOLLOWER)


def _centred_on(state, slot):
    """``[N]``: the slots whose centre (of their pixel grid) is ``slot``'s."""
    table = state.table
    x, y = table.x + table.width // 2, table.y + table.height // 2
    return (x == x[slot]) & (y == y[slot])


def _facing(state, slot, distance):
    """``[N]``: the slots facing ``slot`` from ``distance`` cells away."""
    table = state.table
    dx, dy = _forward(state)
    return (table.x + distance * dx == table.x[slot]) & (table.y + distance * dy == table.y[slot])


def _marked(state):
    return state.table.pixels[:, 0, 1] == MARK


def _mark(state, which):
    return rules.set_pixel(state, jnp.arange(NUM_SLOTS), 0, 1, MARK, which)


def _step_forward(state, which):
    """Sprites ``which`` one cell forward, each its own way."""
    dx, dy = _forward(state)
    return rules.move(state, which, jnp.where(which, dx, 0), jnp.where(which, dy, 0))


# --- bursts ---------------------------------------------------------------------------


def _burst(state, stages):
    """Each sprite ``stages`` (``[N]``) stages further in its burst: a 3x3 sprite becomes
    a 5x5 dotted ring of its colour (its pixel (0, 0)), a 5x5 one a 7x7 ring, a cell up
    and left each time; past 7x7 it is taken out. ``(state, gone)``: the sprites taken
    out."""
    table = state.table
    size = table.height + 2 * stages
    bursting = stages > 0
    growing, gone = bursting & (size <= BURST_SIZES[-1]), bursting & (size > BURST_SIZES[-1])
    state = rules.move(state, growing, -stages, -stages)
    state = rules.resize(state, growing, size, size)
    ring = jnp.where((size == 5)[:, None, None], RING_5, RING_7)
    colour = table.pixels[:, 0, 0][:, None, None]
    state = rules.repaint(state, growing, jnp.where(ring >= 0, colour, ring))
    return rules.remove(state, gone), gone


# --- a turn ---------------------------------------------------------------------------


def _start(state, action):
    """Phase 0: an arrow spends a move, and where the corridor goes on, turns the player,
    steps it a cell and starts the turn; else the action is complete, and the game lost
    if no moves are left."""
    arrow = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION4)
    left = state.memory["moves_left"]
    state = rules.set_memory(state, "moves_left", jnp.maximum(left - 1, 0), arrow)
    player, _ = _player(state)
    turns = jnp.asarray(ARROW_TURNS)[action.id]
    dx, dy = jnp.asarray(FORWARD)[turns]
    table = state.table
    goes = arrow & _open(state, table.x[player] + HALF * dx, table.y[player] + HALF * dy)
    state = rules.set_rotation(state, player, 90 * turns, goes)
    state = rules.move(state, player, dx, dy, goes)
    state = _queue_turn(state, turns, goes)
    state = rules.set_memory(state, "phase", SLIDING, goes)
    state = rules.lose(state, ~goes & (state.memory["moves_left"] == 0))
    return rules.complete(state, ~goes)


def _queue_turn(state, turns, when):
    """The player's turn queued for every follower ever marked (the original's dict)."""
    memory = state.memory
    length = memory["queue_length"]
    adding = memory["followed"] & when
    at = jnp.arange(QUEUE)[None, :] == jnp.minimum(length, QUEUE - 1)[:, None]
    queue = jnp.where(adding[:, None] & at, turns, memory["queue"])
    state = rules.set_memory(state, "queue", queue)
    # (a follower burst and gone is never turned again: its length stops at QUEUE)
    return rules.set_memory(
        state, "queue_length", jnp.where(adding, jnp.minimum(length + 1, QUEUE), length)
    )


def _slide(state):
    """Phase 1: the player slides a cell; at the node, enemies centred on it burst, and
    once none is left, the enemies start their move."""
    player, _ = _player(state)
    at_node = _at_node(state)[player]
    hit = _enemies(state) & _centred_on(state, player) & at_node
    state, gone = _burst(state, hit.astype(jnp.int32))
    cleared = at_node & jnp.all(gone | ~hit)
    state = _step_forward(state, (jnp.arange(NUM_SLOTS) == player) & ~at_node)
    chargers = rules.tagged(state, CHARGER) & _facing(state, player, SEES) & cleared
    state = _mark(state, chargers)
    followers = rules.tagged(state, FOLLOWER) & _marked(state) & cleared
    state = _step_forward(state, chargers | (rules.tagged(state, PATROLLER) & cleared) | followers)
    return rules.set_memory(state, "phase", ENEMIES, cleared)


def _enemies_move(state, game: Game):
    """Phase 2: the moving enemies (marked chargers and followers, patrollers) step a
    cell each; those at a node where the player is centred make it burst; when all are
    at nodes and the player is untouched or gone, the turn ends."""
    marked = _marked(state)
    movers = (rules.tagged(state, CHARGER) & marked) | rules.tagged(state, PATROLLER)
    movers = movers | (rules.tagged(state, FOLLOWER) & marked)
    at_node = _at_node(state)
    player, alive = _player(state)
    touching = movers & at_node & _centred_on(state, player) & alive
    hits = jnp.sum(touching)
    # Each touching enemy bursts the player a stage further; the turn goes on unless the
    # first of them found it a 7x7 ring (taken out: the later ones find no player).
    last_stage = state.table.height[player] >= BURST_SIZES[-1]
    state, _ = _burst(state, jnp.where(jnp.arange(NUM_SLOTS) == player, hits, 0))
    state = _step_forward(state, movers & ~at_node)
    done = jnp.all(~movers | at_node) & ((hits == 0) | last_stage)
    return rules.where(done, _end_turn(state, game), state)


def _end_turn(state, game: Game):
    """Patrollers at a dead end turn back; followers that see the player are marked;
    followers turn as queued; the level is complete, lost or waits for an action."""
    table = state.table
    dx, dy = _forward(state)
    blocked = ~_open(state, table.x + HALF * dx, table.y + HALF * dy)
    state = rules.rotate(state, rules.tagged(state, PATROLLER) & blocked, 180)
    player, alive = _player(state)
    followers = rules.tagged(state, FOLLOWER)
    seen = followers & ~_marked(state) & _facing(state, player, FOLLOWS) & alive
    state = _mark(state, seen)
    memory = state.memory
    own = state.table.quarter_turns
    queue = jnp.where(seen[:, None], own[:, None], memory["queue"])
    length = jnp.where(seen, 2, memory["queue_length"])
    turning = ((followers & memory["followed"]) | seen) & (length > 0)
    state = rules.set_rotation(state, turning, 90 * queue[:, 0])
    popped = jnp.where(turning[:, None], jnp.roll(queue, -1, 1), queue)
    state = rules.set_memory(state, "queue", popped)
    state = rules.set_memory(state, "queue_length", jnp.where(turning, length - 1, length))
    state = rules.set_memory(state, "followed", memory["followed"] | seen)
    table = state.table
    exits = rules.tagged(state, EXIT)
    on_exit = jnp.any(exits & (table.x == table.x[player]) & (table.y == table.y[player]))
    won = alive & on_exit
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, ~won & (~alive | (state.memory["moves_left"] == 0)))
    state = rules.set_memory(state, "phase", WAITING)
    return rules.complete(state)


def rule(state, action, game: Game):
    """An action's first frame (a slide and the enemies' move come after it: animate)."""
    return _start(state, action)


def animate(state, action, game: Game):
    """An action's later frames: a slide's or the enemies' move."""
    phase = state.memory["phase"]
    return rules.where(phase == SLIDING, _slide(state), _enemies_move(state, game))


def ui(state, frame, game: Game):
    """The bottom row: the moves left, ``round(64 * left / moves)`` pixels of colour 6."""
    full = rules.rounded_share(state.memory["moves_left"], state.memory["moves"], rules.SCREEN)
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, full, 1, BAR_FULL)


# The shortest winning run of each level (arc3.search.solve_game over the arrows, states
# that differ only in the moves left merged), checked on the official file (the
# recorded trace's last episode).
SOLUTIONS = (
    (4, 2, 2, 4, 1, 4, 2, 2, 3, 3, 2, 4, 4, 2, 4, 1, 4, 2),
    (1, 4, 4, 2, 4, 4, 1, 4, 4, 1),
    (1, 1, 4, 1, 3, 3, 1, 3, 3, 2, 4, 2, 3, 3, 3, 2, 4, 2, 4),
    (4, 3, 4, 3, 4, 4, 4, 4, 1, 1, 3, 1, 1, 3, 3, 2, 3),
    (3, 3, 3, 4, 3, 3, 3, 3, 3, 2, 1, 2, 1, 2, 1, 2, 1, 2, 2, 2, 4, 2, 2, 4, 4, 4, 1, 1, 3),
    (3, 3, 2, 1, 2, 1, 2, 2, 3, 3, 4, 4, 4, 2, 2, 3, 2, 3, 1, 2, 3, 1, 1, 3, 1, 1, 1, 3),
    (4, 4, 4, 2, 2, 4, 1, 4, 1, 1, 1, 4, 2, 2),
    (4, 4, 1, 1, 4, 4, 3, 3, 3, 2, 2, 4, 1, 1, 4, 4, 1, 1, 1, 3, 3),
    (3, 3, 1, 1, 4, 2, 2, 3, 1, 1, 4, 1, 1, 4, 4, 4, 2, 2, 4, 2, 3, 2, 3, 2, 2, 3, 3, 1, 4),
)


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "bddyedlpub cgxpypzvev cjplklyfag cvcykawwvn fifgqtcmkj hfobzpnztv hgvhiprods imoxtwqezq "
    "iyplkijgol kndyleqrkw kxiutgppmt mcrwthchct mivgxwpflv nittvfnhzg ntmztjafro psrdkitxxm "
    "ptunqyictb qfbnkdxpdo qgamkwcgto sbarnmpjpm sjwurrpact tciltoqihp uqxhtswcue vxqrqqcnyf "
    "woawzicyis wsaxbozuoh zdorjsnggl"
)

GAME = Game(
    **DATA.game_fields(),
    static_kinds=rules.kinds_but(DATA.kinds, MOVING_KINDS),
    levels=DATA.game_levels(_level_memory),
    rule=rule,
    animate=animate,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    reach=LARGEST,
    memory={
        "phase": Var(value=WAITING),
        "moves": Var(value=1),  # the level's StepCounter (1: never a zero divisor)
        "moves_left": Var(),
        "queue": Var(shape=(NUM_SLOTS, QUEUE)),
        "queue_length": Var(shape=(NUM_SLOTS,)),
        "followed": Var("bool", (NUM_SLOTS,)),
    },
    # The longest turn: its start, 5 slide frames, 3 of enemies bursting at the node
    # (the last also their first step), 5 enemy steps, 3 of the player bursting.
    max_frames=17,
    ui=ui,
    solutions=SOLUTIONS,
)
