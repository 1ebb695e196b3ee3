"""LS20, ARC Prize's ``ls20`` (ARC-AGI-3 public game, version 9607627b), ported frame for
frame: carry the right key to each door within a step budget.

**The board.** Each level is a 64x64 world seen whole (the camera starts 16x16 and the
level's grid size makes it 64x64, one pixel a cell). The player is a 5x5 block that moves
one stride of its own size per action (ACTION1-4: up, down, left, right). Walls stop it.
The player carries a key, shown enlarged in the box at the bottom left: one of six 3x3
shapes, in one of four colours (12, 9, 14, 8), turned 0, 90, 180 or 270 degrees. Each
door (a grey 5x5 square) shows beside it the lock it wants: shape, colour and turn.

**A move.** On every move, first each changer that rides a rail (an invisible track)
steps one stride along it: straight on if it can, else turning left, right, or back.
Then the player tries the cell ahead: every sprite whose top-left corner lies within the
player's 5x5 target is met in sprite order, stopping at the first wall, which blocks:

- a door whose lock the key does not fit blocks, blacks out the key box and starts a
  warning (5 frames, then the box turns grey again);
- a battery (the ring) is used up: the step budget is full again;
- a shape changer gives the key the next shape, a colour changer the next colour, a
  turner turns it a quarter clockwise. On the first level only, a key that now fits a
  door lights that door's frame and the key box's glow for the 5 frames of a warning.

If the cell is blocked the player stays and the riders step back. A warning ends the
move there. Otherwise the move costs steps (1 or 2 a move, by level; not when a battery
was used): when the budget runs out (below 0) a life is lost. If the budget lasts, a
spring (a coloured edge) the player now overlaps throws it: over 8 frames the spring
glides a stride short of the first wall or door ahead, carrying the player, then glides
back alone over 6 (each glide ends with a settling frame); then the cell the player
landed in is met as above (its walls block nothing now). Otherwise a player standing
on a door whose lock its key fits opens it: door and lock vanish and a door frame marked
to clear does. All doors open completes the level.

**Losing a life** (3 per level): a flash covers the screen for 5 frames; the player goes
back to its start with its starting key, the budget is full, and batteries, doors and
locks used come back (last in sprite order, as arcengine adds them again), riders go back
to their starts. The third loss ends the game.

**The UI** (bottom row): the step budget as a bar (11 for steps left, 3 spent), the lives
as three 2x2 squares (8 left, 3 lost), nothing during a flash. On the last level a fog
covers every pixel farther than 20 from the player's centre, and the key is drawn again
over it in its box.

**Memory.** The official game keeps Python lists and objects; here they are arrays in
``state.memory``: per level constants (slots of the player, key, key box, glow, flash;
the walls, which never change and are drawn as one sprite, by their corners and place
in the sprite order; the doors, their locks and wanted keys; the springs, their glide
as a path of offsets per frame and whether they throw; the riders, their rails and
starts; the step budget, its cost, the fog) and the state of play: the key (shape,
colour, turn), steps and lives left, the flash and warning countdowns, which doors are
open, each rider's heading, the spring in flight and its frame, and the removal rank of
each sprite taken out (the official lists of used batteries, opened doors and locks, in
their order). All are bounded by the levels: 2 doors, 8 springs, 3 riders, 116 walls.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games import ls20_levels as data
from gridax.envs.arc3.rules import Game, Var

TAGS = data.OFFICIAL.tags
DOOR, LOCK, DOOR_FRAME, CLEARED_FRAME, HINT = (
    TAGS.index(t) for t in (data.DOOR, data.LOCK, data.DOOR_FRAME, data.CLEARED_FRAME, data.HINT)
)
BATTERY, SHAPER, PAINTER, TURNER = (
    TAGS.index(t) for t in (data.BATTERY, data.SHAPER, data.PAINTER, data.TURNER)
)
KEY_SIZES = (len(data.SHAPES), len(data.COLOURS), len(data.ROTATIONS))
SHAPES = data.SHAPES.astype(bool)
COLOURS = np.asarray(data.COLOURS, np.int8)
LIVES, FLASH_FRAMES, WARNING_FRAMES = 3, 5, 5
GREY, BLACK, FOG = 5, 0, 5
RAIL_STRIDE = 5
HEADINGS = np.asarray(((0, 1), (1, 0), (0, -1), (-1, 0)), np.int32)  # down, right, up, left
EFFECTS_PER_CELL = 4  # sprites with an effect met in one cell, at most
FAR = jnp.iinfo(jnp.int32).max
DOORS, SPRINGS, RIDERS = data.MAX_DOORS, data.MAX_SPRINGS, data.MAX_RIDERS


def slots_of(state, tag):
    return state.table.exists & state.table.tags[:, tag]


def key_fits(state, key=None):
    """``[DOORS]``: the key (or ``key``) fits each door's lock."""
    key = state.memory["key_state"] if key is None else key
    wanted = state.memory["door_keys"]
    return jnp.all(wanted == key[None, :], axis=1) & (state.memory["doors"] >= 0)


def paint_key(state, when: rules.Flag = True):
    """The key sprite drawn from the key's shape, colour and turn."""
    memory = state.memory
    shape, colour, turn = memory["key_state"]
    pixels = jnp.where(jnp.asarray(SHAPES)[shape], jnp.asarray(COLOURS)[colour], -1)
    state = rules.set_pixels(state, memory["key"], pixels, when)
    return rules.set_rotation(state, memory["key"], turn * 90, when)


def show_hints(state, when):
    """First level only: each door's hint frame lit while the key fits it (and it is not
    open), the glow while any is."""
    memory, table = state.memory, state.table
    lit = key_fits(state) & ~memory["doors_open"]
    for g in range(DOORS):
        door = memory["doors"][g]
        hint = rules.sprite_at(state, table.x[door] - 1, table.y[door] - 1, GAME, tag=HINT)
        state = rules.set_visible(state, hint, lit[g], when & (door >= 0) & (hint >= 0))
    return rules.set_visible(state, memory["key_glow"], jnp.any(lit), when)


def take_out(state, slot, when):
    """Sprite ``slot`` removed, its removal ranked after every earlier one."""
    removals = state.memory["removals"]
    ranks = state.memory["removed_rank"].at[slot].set(removals)
    state = rules.set_memory(state, "removed_rank", ranks, when)
    state = rules.set_memory(state, "removals", removals + 1, when)
    return rules.remove(state, slot, when)


def enter_cell(state, x, y):
    """The player meets the player-sized cell at ``(x, y)``: ``(state, blocked,
    refilled)`` (module docstring)."""
    table, memory = state.table, state.memory
    player = memory["player"]
    width, height = table.width[player], table.height[player]
    inside = table.exists & (table.x >= x) & (table.x < x + width)
    inside = inside & (table.y >= y) & (table.y < y + height)
    wall_x, wall_y, others_before = memory["walls"].T  # the walls (ls20_levels.walls_apart)
    walls = (wall_x >= x) & (wall_x < x + width) & (wall_y >= y) & (wall_y < y + height)
    first_wall = jnp.min(jnp.where(walls, others_before, FAR))
    effects = table.tags[:, DOOR] | table.tags[:, BATTERY] | table.tags[:, SHAPER]
    effects = effects | table.tags[:, PAINTER] | table.tags[:, TURNER]
    acting = inside & effects & (table.order < first_wall)
    blocked, refilled, warned, changed, darkened = jnp.any(walls), False, False, False, False
    slots = jnp.arange(acting.shape[0])
    first_level = state.level == 0
    for _ in range(EFFECTS_PER_CELL):
        memory = state.memory
        slot = jnp.argmin(jnp.where(acting, table.order, FAR))
        here, tags = jnp.any(acting), table.tags[slot]
        acting = acting & (slots != slot)
        # The first of its tags that has an effect decides (a door, a battery, changers).
        door = here & tags[DOOR]
        battery = here & ~tags[DOOR] & tags[BATTERY]
        other = here & ~tags[DOOR] & ~tags[BATTERY]
        shaper = other & tags[SHAPER]
        painter = other & ~tags[SHAPER] & tags[PAINTER]
        turner = other & ~tags[SHAPER] & ~tags[PAINTER] & tags[TURNER]
        turns = jnp.stack([shaper, painter, turner]).astype(jnp.int32)
        refused = door & ~key_fits(state)[jnp.argmax(memory["doors"] == slot)]
        warned, blocked, darkened = warned | refused, blocked | refused, darkened | refused
        state = take_out(state, slot, battery)
        state = rules.set_memory(state, "steps", memory["steps_max"], battery)
        refilled = refilled | battery
        key = (memory["key_state"] + turns) % jnp.asarray(KEY_SIZES)
        state = rules.set_memory(state, "key_state", key)
        changing = jnp.any(turns)
        fits_open = jnp.any(key_fits(state) & ~memory["doors_open"])
        warned = warned | (changing & first_level & fits_open)
        changed = changed | changing
    state = rules.recolour(state, state.memory["key_box"], None, BLACK, darkened)
    state = paint_key(state, changed)
    state = show_hints(state, changed & first_level)
    state = rules.set_memory(state, "warning", WARNING_FRAMES, warned)
    return state, blocked, refilled


def on_rail(state, rail, x, y):
    """Cell ``(x, y)`` is on rail ``rail``: on a drawn pixel of it."""
    table = state.table
    pixel = rules.source_pixel(state, rail, y - table.y[rail], x - table.x[rail], GAME)
    return pixel >= 0


def ride_rails(state):
    """Each rider one stride along its rail: ahead, else left, right or back."""
    for r in range(RIDERS):
        table, memory = state.table, state.memory
        rider, rail, heading = memory["riders"][r], memory["rails"][r], memory["rider_dirs"][r]
        options = (heading + jnp.asarray((0, -1, 1, 2))) % 4
        steps = jnp.asarray(HEADINGS)[options] * RAIL_STRIDE
        x, y = table.x[rider] + steps[:, 0], table.y[rider] + steps[:, 1]
        free = on_rail(state, rail, x, y) & (rider >= 0)
        pick = jnp.argmax(free)
        moves = jnp.any(free)
        state = rules.place(state, rider, x[pick], y[pick], moves)
        headings = memory["rider_dirs"].at[r].set(options[pick])
        state = rules.set_memory(state, "rider_dirs", headings, moves)
    return state


def rails_back(state, before, when):
    """The riders where they stood in ``before`` (a blocked move)."""
    riders = before.memory["riders"]
    for r in range(RIDERS):
        rider = riders[r]
        x, y = before.table.x[rider], before.table.y[rider]
        state = rules.place(state, rider, x, y, when & (rider >= 0))
    return rules.set_memory(state, "rider_dirs", before.memory["rider_dirs"], when)


def spring_ready(state):
    """``(ready, spring)``: the first spring that overlaps the player and throws."""
    table, memory = state.table, state.memory
    player, springs = memory["player"], memory["springs"]
    px, py, pw, ph = table.x[player], table.y[player], table.width[player], table.height[player]
    sx, sy, sw, sh = table.x[springs], table.y[springs], table.width[springs], table.height[springs]
    overlap = (px < sx + sw) & (sx < px + pw) & (py < sy + sh) & (sy < py + ph)
    solid = table.exists[springs] & table.collidable[springs] & table.collidable[player]
    ready = overlap & solid & memory["spring_throws"] & (springs >= 0)
    return jnp.any(ready), jnp.argmax(ready)


def open_doors(state):
    """Doors the player stands on with a fitting key opened: ``(state, all_open)``."""
    fits = key_fits(state)
    for g in range(DOORS):
        table, memory = state.table, state.memory
        door, player = memory["doors"][g], memory["player"]
        here = (table.x[player] == table.x[door]) & (table.y[player] == table.y[door])
        opening = (door >= 0) & ~memory["doors_open"][g] & here & fits[g]
        state = rules.set_memory(state, "doors_open", memory["doors_open"].at[g].set(True), opening)
        state = take_out(state, door, opening)
        state = take_out(state, memory["locks"][g], opening)
        corner_x, corner_y = table.x[door] - 1, table.y[door] - 1
        frame = rules.sprite_at(state, corner_x, corner_y, GAME, tag=DOOR_FRAME)
        clears = opening & (frame >= 0) & state.table.tags[frame, CLEARED_FRAME]
        state = rules.set_visible(state, frame, False, clears)
        hint = rules.sprite_at(state, corner_x, corner_y, GAME, tag=HINT)
        state = rules.set_visible(state, hint, False, clears & (hint >= 0))
        state = rules.set_visible(state, state.memory["key_glow"], False, clears)
    memory = state.memory
    return state, jnp.all(memory["doors_open"] | (memory["doors"] < 0))


def lose_life(state):
    """A life lost: the game over, or the level's run started again under a flash."""
    memory = state.memory
    lives = memory["lives"] - 1
    state = rules.set_memory(state, "lives", lives)
    again = lives > 0
    state = rules.lose(state, ~again)
    state = rules.set_visible(state, memory["flash_slot"], True, again)
    state = rules.set_visible(state, memory["key"], False, again)
    state = rules.set_memory(state, "flash", FLASH_FRAMES, again)
    state = rules.set_memory(state, "doors_open", False, again)
    start_x, start_y = memory["player_start"]
    state = rules.place(state, memory["player"], start_x, start_y, again)
    state = rules.set_memory(state, "key_state", memory["start_key"], again)
    state = paint_key(state, again)
    # Used batteries, then opened doors, then their locks, each in the order used.
    table, ranks = state.table, memory["removed_rank"]
    group = jnp.where(table.tags[:, BATTERY], 0, jnp.where(table.tags[:, DOOR], 1, 2))
    taken = (ranks >= 0) & again
    state = rules.put_last(state, jnp.where(taken, group * (1 << 20) + ranks, -1))
    state = rules.bring_back(state, taken)
    state = rules.set_memory(state, "removed_rank", -1, again)
    state = rules.set_memory(state, "steps", memory["steps_max"], again)
    state = rules.set_visible(state, memory["key_glow"], False, again)
    state = rules.set_visible(state, slots_of(state, HINT), False, again)
    state = rules.set_visible(state, slots_of(state, DOOR_FRAME), True, again)
    for r in range(RIDERS):
        rider = memory["riders"][r]
        rider_x, rider_y = memory["rider_starts"][r]
        state = rules.place(state, rider, rider_x, rider_y, again & (rider >= 0))
    state = rules.set_memory(state, "rider_dirs", 0, again)
    return rules.complete(state, ~again)


def move_frame(state, action):
    """The first frame of a move (module docstring)."""
    step = rules.arrow_step(action)
    moving = jnp.any(step != 0)
    before = state
    state = ride_rails(state)
    table, memory = state.table, state.memory
    player = memory["player"]
    x = table.x[player] + step[0] * table.width[player]
    y = table.y[player] + step[1] * table.height[player]
    state, blocked, refilled = enter_cell(state, x, y)
    state = rules.place(state, player, x, y, ~blocked)
    state = rails_back(state, before, blocked)
    going = state.memory["warning"] == 0
    steps = state.memory["steps"]
    spent = jnp.where(steps >= 0, steps - memory["step_cost"], steps)
    spending = going & ~refilled
    state = rules.set_memory(state, "steps", spent, spending)
    out_of_steps = spending & (spent < 0)
    ready, spring = spring_ready(state)
    thrown = going & ~out_of_steps & ready
    state = rules.set_memory(state, "pushing", spring, thrown)
    state = rules.set_memory(state, "push_frame", 0, thrown)
    checking = going & ~thrown
    opened, all_open = open_doors(state)
    state = rules.where(checking, opened, state)
    won = checking & all_open
    state = rules.next_level(state, len(GAME.levels), won)
    dying = checking & ~all_open & out_of_steps
    state = rules.where(dying, lose_life(state), state)
    state = rules.where(moving, state, before)  # any other action changes nothing
    return rules.complete(state, ~moving | won | (checking & ~out_of_steps))


def spring_frame(state):
    """A frame of a spring's throw: the spring (and, while it pushes, the player) moved
    along its path; the last frame meets the player's cell."""
    memory = state.memory
    spring, frame = memory["pushing"], memory["push_frame"]
    path = memory["spring_paths"][spring]
    step = path[frame] - jnp.where(frame > 0, path[jnp.maximum(frame - 1, 0)], 0)
    state = rules.move(state, memory["springs"][spring], step[0], step[1])
    state = rules.move(state, memory["player"], step[0], step[1], frame <= data.PUSH_FRAMES)
    state = rules.set_memory(state, "push_frame", frame + 1)
    last = frame == data.SPRING_FRAMES - 1
    state = rules.set_memory(state, "pushing", -1, last)
    table, player = state.table, memory["player"]
    landed, _, _ = enter_cell(state, table.x[player], table.y[player])
    return rules.complete(rules.where(last, landed, state), last)


def countdown_frame(state):
    """A frame of the flash or of the warning; the last one ends it."""
    memory = state.memory
    flashing = memory["flash"] > 0
    flash, warning = memory["flash"] - 1, memory["warning"] - jnp.where(flashing, 0, 1)
    state = rules.set_memory(state, "flash", flash, flashing)
    state = rules.set_memory(state, "warning", warning, ~flashing)
    flash_over, warning_over = flashing & (flash == 0), ~flashing & (warning == 0)
    state = rules.set_visible(state, memory["flash_slot"], False, flash_over)
    state = rules.set_visible(state, memory["key"], True, flash_over)
    state = rules.recolour(state, memory["key_box"], None, GREY, warning_over)
    state = rules.set_visible(state, memory["key_glow"], False, warning_over)
    state = rules.set_visible(state, slots_of(state, HINT), False, warning_over)
    return rules.complete(state, flash_over | warning_over)


def rule(state, action, game):
    """An action's first frame: a move (a spring's throw and a countdown come after it,
    in its later frames: animate)."""
    return move_frame(state, action)


def animate(state, action, game):
    """An action's later frames: a spring's throw or a countdown (a move takes one frame
    unless it starts one of them)."""
    return rules.where(state.memory["pushing"] >= 0, spring_frame(state), countdown_frame(state))


def _fog(frame, state, game):
    """The fog around the player and, over it, the key it holds (the last level)."""
    memory, table = state.memory, state.table
    player = memory["player"]
    rows, cols = np.mgrid[0:64, 0:64]
    far = (2 * rows - 2 * table.y[player] - 3) ** 2 + (2 * cols - 2 * table.x[player] - 3) ** 2
    frame = jnp.where(far > 1600, jnp.int8(FOG), frame)
    key = memory["key"]
    return rules.draw_sprite(frame, state, key, 3, 55, game, table.visible[key])


def ui(state, frame, game):
    """The fog (last level), the step bar and the lives; nothing during a flash."""
    memory = state.memory
    shown = memory["flash"] == 0
    fog = functools.partial(_fog, game=game)
    frame = rules.drawn_rarely(shown & memory["fog"], fog, frame, state)
    most = memory["steps_max"]
    left = jnp.clip(memory["steps"], 0, most)
    frame = rules.draw_rect(frame, 13, 61, most, 2, 3, shown)
    frame = rules.draw_rect(frame, 13 + most - left, 61, left, 2, 11, shown)
    for k in range(LIVES):
        frame = rules.draw_rect(frame, 56 + 3 * k, 61, 2, 2, 8, shown & (memory["lives"] > k))
        frame = rules.draw_rect(frame, 56 + 3 * k, 61, 2, 2, 3, shown & (memory["lives"] <= k))
    return frame


MEMORY = {
    # Per level constants (ls20_levels.prepare).
    **{name: Var() for name in ("player", "key", "key_box", "key_glow", "flash_slot")},
    "player_start": Var("int32", (2,)),
    "start_key": Var("int32", (3,)),
    "doors": Var("int32", (DOORS,), -1),
    "locks": Var("int32", (DOORS,), -1),
    "door_keys": Var("int32", (DOORS, 3), -1),
    "springs": Var("int32", (SPRINGS,), -1),
    "spring_throws": Var("bool", (SPRINGS,), False),
    "spring_paths": Var("int32", (SPRINGS, data.SPRING_FRAMES, 2)),
    "riders": Var("int32", (RIDERS,), -1),
    "rails": Var("int32", (RIDERS,), -1),
    "rider_starts": Var("int32", (RIDERS, 2), -1),
    "steps_max": Var(),
    "step_cost": Var(),
    "fog": Var("bool"),
    "walls": Var("int32", (data.MAX_WALLS, 3)),  # x, y, others before it in sprite order
    # The state of play.
    "key_state": Var("int32", (3,)),  # shape, colour, turn
    "steps": Var(),
    "lives": Var(value=LIVES),
    "flash": Var(),  # frames of the flash left
    "warning": Var(),  # frames of the warning left
    "doors_open": Var("bool", (DOORS,), False),
    "rider_dirs": Var("int32", (RIDERS,)),
    "pushing": Var(value=-1),  # the spring in flight, or -1
    "push_frame": Var(),
    "removals": Var(),
    "removed_rank": Var("int32", (data.NUM_SLOTS,), -1),
}

# A winning run of each level (ACTION1-4 as digits): shortest without losing a life, by
# breadth-first search over these rules rewritten in plain Python on the level data (the
# human baselines are 21, 123, 39, 92, 54, 108, 109 actions).
SOLUTIONS = (
    "3331111444111",
    "141111144242222221223341411111113333332322222",
    "111111113222222221113314444444111312142",
    "3332223223312121211331233111224111141411333",
    "13113334343411333313334422222443224244444441",
    "112124414111334411441142211312333312332222144433311111144444424411422222",
    "11223322222124214121212123311144441441441142233312222",
)

# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "eqatonpohu ghizzeqtoh hoswmpiqkw kapcaakvb_b kvynsvxbpi lujfinsby_t mkjdaccuuf "
    "njpewhmtfd npxgalaybz rhsxkxzdjz rjlbuycveu sfqyzhzkij soyhouuebz sqpmiygfvh tihiodtoj_l "
    "wgmbtyhvbc yjgargdic_r"
)

GAME = Game(
    **data.OFFICIAL.game_fields(),
    static_kinds=rules.kinds_but(data.OFFICIAL.kinds, MOVING_KINDS),
    levels=data.levels(),
    rule=rule,
    animate=animate,
    num_slots=data.NUM_SLOTS,
    pixel_size=0,  # the moving sprites' (the 64x64 walls are static)
    reach=64,
    memory=MEMORY,
    max_frames=data.SPRING_FRAMES + 1,
    ui=ui,
    solutions=rules.maps.actions(SOLUTIONS),
)
