"""m0r0 (ARC Prize's ARC-AGI-3 game "M0R0"): steer two mirrored twins into each other.

The rules, as ARC Prize's official file plays them (its level data ships with gridax;
the rules here are written anew):

- **Twins.** Each level has two one-cell twins (``qzfkx-ubwff-idtiq`` and
  ``qzfkx-ubwff-crkfz``, colour 10, layer 2). An arrow (ACTION1-4: up, down, left,
  right) moves the first twin that way and the second mirrored left to right (up and
  down alike, left and right swapped). The file knows two more twins, mirrored up to
  down and both ways (``qzfkx-kncqr-*``), that no level uses; they move the same way
  here. ACTION5 and RESET move nothing but are otherwise a turn like an arrow.
- **A twin's step** is refused when it would leave the grid, or land on a wall pixel
  (the ``jggua`` sprite, colour 0), a stone (``cvcer``) or a closed door (``dfnuk``).
  Twins pass through each other, hazards and switches.
- **Hazards** (``wyiex``, colour 8, drawn checkered): when a turn leaves any twin on one,
  the turn makes eight frames: the step, then the twins on hazards flash (colour 11,
  10, 11, 10, 11, 10, 10), and on the last frame every clickable sprite (twins and
  stones) goes back where the level started it. Nothing else happens that turn.
- **Meeting.** Otherwise twins that stood side by side (one column apart, same row) and
  crossed (one now stands where the other stood) both move to the cell between them
  (the left one's, rounding down); then any twins that share a cell pair up: the first
  two (in the order above) become intangible (visible, no longer collide or move) and
  any others there step back. When no twin is left unpaired the level is complete.
- **Doors.** After a turn of moves, each colour's doors (``dfnuk-<colour>``: raixb,
  ujcze, qeazm) are open (removed: not drawn, not colliding) while an unpaired twin
  stands on a switch of that colour (``hnutp-<colour>``), and closed otherwise.
- **Stones** (``cvcer``, colour 9, tag ``nhiae``): a click (ACTION6) on a stone selects
  it (colour 11; the unpaired twins turn 1, the stone selected before turns 9 again);
  then the arrows push the stone instead of the twins, one cell unless that would leave
  the grid or collide with anything collidable, and the doors are updated. A click on
  the grid that is not on a stone (a twin, or nothing clickable) gives the arrows back
  to the twins (colour 10; the stone turns 9). A click off the grid does nothing.
- **Budget.** A level allows 150 actions (clicks included; the level's action count,
  which RESET and a new level start again): the 151st loses the game.
- **The screen** (UI): every pixel of colour 0 (walls and the letterbox) shows the
  level's two colours (its data value ``npwxa``), the left half the first and the right
  half the second (in quadrants, the first top-left and bottom-right, when four twins
  are unpaired); each stone's cell gets an outline of colour 5; each hazard's cell with
  no collidable twin on it is checkered with 5 (screen pixels whose x + y is odd); the
  top row shows the actions left as a bar of 5 from the left, the bottom row the same
  from the right (``round(64 * left / 150)`` pixels, the rest 0).

What the original keeps in Python attributes: the selected stone (a sprite or None)
is ``selected``, its slot or -1; the set of paired twins is the twins' ``collidable``
column (a paired twin is intangible, an unpaired one tangible); the twins' positions
before the turn are read again within the turn; the dying twins and the flash counter
are the twins on hazards and the action's frame number; the clickable sprites' start
positions are ``home_x``/``home_y`` (one per slot); the bar is the level's action count.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import CLICK, SCREEN, Game, Var

OFFICIAL = rules.official.load("m0r0")
KIND, TAG = OFFICIAL.kind, OFFICIAL.tags.index
# Each twin's kind and how it mirrors an arrow's (dx, dy), in the file's order.
TWINS = (
    (KIND("qzfkx-ubwff-idtiq"), 1, 1),
    (KIND("qzfkx-ubwff-crkfz"), -1, 1),
    (KIND("qzfkx-kncqr-idtiq"), 1, -1),
    (KIND("qzfkx-kncqr-crkfz"), -1, -1),
)
STONE, HAZARD = KIND("cvcer"), KIND("wyiex")
# (switch kind, door kind) per colour, in the file's order.
DOORS = tuple((KIND(f"hnutp-{c}"), KIND(f"dfnuk-{c}")) for c in ("raixb", "ujcze", "qeazm"))
WALL, STOPS, CLICKABLE, COVERS, HAZARDS = map(
    TAG, ("jggua", "nhiae", "sys_click", "pxwnx", "wyiex")
)
TWIN, TWIN_WAITING, FLASH, STONE_COLOUR, SELECTED, LIGHT = 10, 1, 11, 9, 11, 5
MOVES = 150  # actions a level allows
FLASH_FRAMES = 7  # frames after the step of a turn that ends on a hazard
NUM_SLOTS = max(len(level.sprites) for level in OFFICIAL.levels)
# A winning run of each level (keys as digit strings, clicks as (6, x, y) on a stone to
# select it or on a wall to give the arrows back to the twins), checked on the official
# file: shortest by breadth-first search over the twins', stones' and selection's states,
# but for the third level (three stones), searched in two parts, the stones' pushes
# first, then the twins' walk (53 actions; the human baseline took 83).
RUNS = (
    ("113131111141444",),
    ("23332224414422222244413",),
    (
        (6, 12, 20),
        "141",
        (6, 32, 16),
        "414444222331",
        (6, 40, 32),
        "444",
        (6, 8, 8),
        "1331114441133331111144442442224",
    ),
    (
        "1",
        (6, 31, 31),
        "332",
        (6, 6, 6),
        "42244",
    ),
    ("331111314414413333111331111144111113333",),
    (
        "11",
        (6, 32, 44),
        "311311113",
        (6, 8, 8),
        "222",
        (6, 20, 20),
        "22",
        (6, 8, 8),
        "232224444442421111",
    ),
)
# Bar pixels for each number of actions left, as the file rounds them (half to even).
BAR = np.asarray([min(round(64 * (left / MOVES)), 64) for left in range(MOVES + 1)], np.int32)


def twins(state):
    """``(slots, active)``: each twin's slot and whether it is in the level and unpaired."""
    slots = jnp.stack([rules.slot_of(state, kind) for kind, _, _ in TWINS])
    present = jnp.stack([rules.count(state, kind) > 0 for kind, _, _ in TWINS])
    return slots, present & state.table.collidable[slots]


def on_hazard(state, slots, game):
    """Which twins stand on a hazard."""
    table = state.table
    hits = [
        rules.sprite_at(state, table.x[slots[i]], table.y[slots[i]], game, HAZARDS)
        for i in range(len(TWINS))
    ]
    return jnp.stack(hits) >= 0


def inside_grid(state, x, y):
    return (x >= 0) & (y >= 0) & (x < state.camera.width) & (y < state.camera.height)


def update_doors(state, slots, active):
    """Each colour's doors open while an unpaired twin stands on one of its switches."""
    table = state.table
    for switch, door in DOORS:
        switches, doors = rules.of_kind(state, switch), rules.of_kind(state, door)
        on = (table.x[None] == table.x[slots][:, None]) & (table.y[None] == table.y[slots][:, None])
        pressed = jnp.any(on & switches[None] & active[:, None])
        both = jnp.any(switches) & jnp.any(doors)
        state = rules.set_visible(state, doors, ~pressed, both)
        state = rules.set_collidable(state, doors, ~pressed, both)
    return state


def step_twin(state, slot, dx, dy, when, game):
    """One twin's step, refused off the grid or into a wall, a stone or a closed door."""
    table = state.table
    when = (
        when & ((dx != 0) | (dy != 0)) & inside_grid(state, table.x[slot] + dx, table.y[slot] + dy)
    )
    moved = rules.move(state, slot, dx, dy, when)
    table = moved.table
    stops = table.tags[:, WALL] | table.tags[:, STOPS]
    for _, door in DOORS:
        stops = stops | (table.kind == door)
    blocked = jnp.any(rules.collisions(moved, slot, game, size=1) & stops)
    return rules.where(blocked, state, moved)


def meet(state, slots, active, before_x, before_y):
    """Crossed neighbours move between them, then twins sharing a cell pair up:
    ``(state, paired)``."""
    x, y = state.table.x[slots], state.table.y[slots]
    count = len(TWINS)
    for i in range(count):
        for j in range(i + 1, count):
            beside = (jnp.abs(before_x[i] - before_x[j]) == 1) & (before_y[i] == before_y[j])
            crossed = ((x[i] == before_x[j]) & (y[i] == before_y[j])) | (
                (x[j] == before_x[i]) & (y[j] == before_y[i])
            )
            meeting = active[i] & active[j] & beside & crossed
            middle_x, middle_y = (x[i] + x[j]) // 2, (y[i] + y[j]) // 2
            x = x.at[jnp.array([i, j])].set(jnp.where(meeting, middle_x, x[jnp.array([i, j])]))
            y = y.at[jnp.array([i, j])].set(jnp.where(meeting, middle_y, y[jnp.array([i, j])]))
    order = jnp.arange(count)
    together = (x[:, None] == x[None]) & (y[:, None] == y[None]) & active[:, None] & active[None]
    crowd = jnp.sum(together, axis=1)
    rank = jnp.sum(together & (order[None] < order[:, None]), axis=1)
    paired = active & (crowd >= 2) & (rank < 2)
    back = active & (crowd >= 2) & (rank >= 2)
    x, y = jnp.where(back, before_x, x), jnp.where(back, before_y, y)
    for i in range(count):
        state = rules.place(state, slots[i], x[i], y[i], active[i])
    return rules.set_collidable(state, rules.mask_of(state, slots, paired), False), paired


def twins_turn(state, action, game):
    """The twins' turn: their steps, then a fall onto a hazard, or meetings, doors and
    the level's end."""
    slots, active = twins(state)
    step = rules.arrow_step(action)
    before_x, before_y = state.table.x[slots], state.table.y[slots]
    for i, (_, mirror_x, mirror_y) in enumerate(TWINS):
        state = step_twin(state, slots[i], mirror_x * step[0], mirror_y * step[1], active[i], game)
    falling = jnp.any(active & on_hazard(state, slots, game))
    met, paired = meet(state, slots, active, before_x, before_y)
    met = update_doors(met, slots, active & ~paired)
    met = rules.next_level(met, len(game.levels), ~jnp.any(active & ~paired))
    return rules.complete(rules.where(falling, state, met), ~falling)


def stone_turn(state, action, game):
    """The selected stone's push, then the doors."""
    stone = state.memory["selected"]
    step = rules.arrow_step(action)
    table = state.table
    inside = inside_grid(state, table.x[stone] + step[0], table.y[stone] + step[1])
    pushed, _ = rules.try_move(state, stone, step[0], step[1], game, size=1)
    state = rules.where(inside, pushed, state)
    state = rules.where(inside, update_doors(state, *twins(state)), state)
    return rules.complete(state)


def click(state, action, game):
    """A click on a stone selects it; elsewhere on the grid gives the arrows back."""
    x, y, on_view = rules.clicked_cell(state, action)
    hit = rules.sprite_at(state, x, y, game, CLICKABLE)
    on_stone = on_view & (hit >= 0) & (state.table.kind[hit] == STONE)
    slots, active = twins(state)
    selected = state.memory["selected"]
    colour = jnp.where(on_stone, TWIN_WAITING, TWIN)
    state = rules.recolour(state, rules.mask_of(state, slots, active), None, colour, on_view)
    state = rules.recolour(state, selected, None, STONE_COLOUR, on_view & (selected >= 0))
    state = rules.recolour(state, hit, None, SELECTED, on_stone)
    state = rules.set_memory(state, "selected", jnp.where(on_stone, hit, -1), on_view)
    return rules.complete(state)


def flash(state, game):
    """Frames 1-7 of a turn that ended on a hazard: the twins there flash, and on the
    last frame every clickable sprite goes home."""
    flash_frame = rules.frame_number(state) - 1
    slots, active = twins(state)
    dying = active & on_hazard(state, slots, game)
    colour = jnp.where((flash_frame % 2 == 0) & (flash_frame < 5), FLASH, TWIN)
    state = rules.recolour(state, rules.mask_of(state, slots, dying), None, colour)
    last = flash_frame == FLASH_FRAMES - 1
    clickable = state.table.tags[:, CLICKABLE]
    state = rules.place(state, clickable, state.memory["home_x"], state.memory["home_y"], last)
    return rules.complete(state, last)


def rule(state, action, game: Game):
    """An action's first frame: past the budget the game is lost; else a click, the
    selected stone's push or the twins' turn (later frames are a fall's: animate)."""
    out_of_moves = state.action_count > MOVES
    clicking = action.id == CLICK
    choosing = state.memory["selected"] >= 0
    played = rules.where(
        clicking,
        click(state, action, game),
        rules.where(choosing, stone_turn(state, action, game), twins_turn(state, action, game)),
    )
    return rules.where(out_of_moves, rules.complete(rules.lose(state)), played)


def animate(state, action, game: Game):
    """An action's later frames: a fall's flash."""
    return flash(state, game)


def start_level(state, game: Game):
    """Where each sprite starts: the clickable ones go back there after a fall."""
    state = rules.set_memory(state, "home_x", state.table.x)
    return rules.set_memory(state, "home_y", state.table.y)


def cells_marked(state, which, size: int):
    """A ``[size, size]`` grid of the view's cells where a sprite of mask ``which`` stands
    (its position: the file draws over that one cell whatever the sprite's size)."""
    table, camera = state.table, state.camera
    x, y = table.x - camera.x, table.y - camera.y
    fits = which & (x >= 0) & (y >= 0) & (x < size) & (y < size)
    index = jnp.where(fits, y * size + x, size * size)  # one past the grid: dropped
    grid = jnp.zeros(size * size, bool).at[index].set(True, mode="drop")
    return grid.reshape(size, size)


def ui(state, frame, game: Game):
    """The level's colours over colour 0, outlined stones, checkered hazards and the
    actions left (module docstring)."""
    table = state.table
    rows = jnp.arange(SCREEN)[:, None]
    cols = jnp.arange(SCREEN)[None, :]
    left, right = state.memory["colours"][0], state.memory["colours"][1]
    _, active = twins(state)
    quarters = jnp.sum(active) == len(TWINS)
    first = jnp.where(quarters, (rows < 32) == (cols < 32), cols < 32)
    frame = jnp.where(frame == 0, jnp.where(first, left, right), frame)
    size = game.view_size
    stones = cells_marked(state, rules.of_kind(state, STONE) & table.visible, size)
    covered = table.exists & table.collidable & table.tags[:, COVERS]
    open_hazards = cells_marked(state, rules.of_kind(state, HAZARD), size) & ~cells_marked(
        state, covered, size
    )
    marks = stones.astype(jnp.int8) | (open_hazards.astype(jnp.int8) << 1)
    shown, on_edge = rules.cells_on_screen(state, game, marks)
    outlined = on_edge & (shown & 1 != 0)  # a stone's cell: its square's edge
    checkered = (shown & 2 != 0) & ((rows + cols) % 2 == 1)  # an open hazard's: hatched
    frame = jnp.where(outlined | checkered, LIGHT, frame)
    filled = jnp.asarray(BAR)[jnp.clip(MOVES - state.action_count, 0, MOVES)]
    frame = frame.at[0].set(jnp.where(cols[0] < filled, LIGHT, 0))
    frame = frame.at[SCREEN - 1].set(jnp.where(SCREEN - 1 - cols[0] < filled, LIGHT, 0))
    return frame.astype(jnp.int8)


def solution(run) -> tuple:
    """A run's parts as one sequence of actions (digit strings become action ids)."""
    return tuple(a for part in run for a in (map(int, part) if isinstance(part, str) else [part]))


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = "cvcer dfnuk-qeazm dfnuk-raixb dfnuk-ujcze qzfkx-ubwff-crkfz qzfkx-ubwff-idtiq"

GAME = Game(
    **OFFICIAL.game_fields(),
    static_kinds=rules.kinds_but(OFFICIAL.kinds, MOVING_KINDS),
    levels=OFFICIAL.game_levels(memory=lambda number, data: {"colours": tuple(data["npwxa"])}),
    rule=rule,
    animate=animate,
    pixel_size=0,  # the moving sprites' (static ones are larger)
    reach=15,
    max_frames=1 + FLASH_FRAMES,
    memory={
        "selected": Var(value=-1),  # the selected stone's slot, or -1
        "home_x": Var("int32", (NUM_SLOTS,)),  # each sprite's start, for a fall
        "home_y": Var("int32", (NUM_SLOTS,)),
        "colours": Var("int8", (2,)),  # the level's two colours (npwxa)
    },
    ui=ui,
    on_set_level=start_level,
    solutions=tuple(solution(run) for run in RUNS),
)
