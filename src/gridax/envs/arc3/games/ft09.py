"""ft09, ARC Prize's public ARC-AGI-3 game (version 0d8bbf25), ported from its rules: a
puzzle of tiles that change colour when clicked, to be matched to goal markers.

The levels, as the official file lays them out (``rules.official.load("ft09")``):

- **Tiles**: 3x3 sprites on a lattice of 4 cells (grid 32x32, seen whole: two screen
  pixels a cell). Two sorts: *plain* tiles (tag ``Hkx``) and *pattern* tiles (tag
  ``NTi``), whose pixels of colour 6 mark, around their centre, which neighbours they
  change. A level cycles its tiles through a list of two or three colours (data
  ``cwU``); when the level starts, every tile is painted the first of them (a plain
  tile all over, a pattern tile everywhere but its 6s).
- **Goals**: 3x3 markers (tag ``bsT``) standing on the lattice among the tiles. A goal's
  centre is a colour; each of its eight border pixels speaks of the tile one lattice
  step that way: 0 says "this tile must show my colour", any other colour says "this
  tile must not". A border pixel where no tile stands asks nothing.
- Everything else is decoration (level 0 draws the rules as a picture). Level 0 also
  has a frame (tag ``Ycb``) that flashes when a click lands on nothing.

A click (ACTION6, the only action) on a screen pixel lands on a grid cell:

1. On a tile (a plain tile first, else a pattern tile, as arcengine's
   ``get_sprite_at`` by tag finds them): the tile changes, with its neighbours. A
   plain tile changes the cells of the level's pattern (data ``elp``, a 3x3 mask around
   the tile: in every level the tile alone); a pattern tile changes itself and the
   neighbours its 6s point at (one lattice step in each of the eight directions). A
   changed tile takes the next colour of the cycle after its centre's (every pixel of
   that colour is repainted, so a pattern tile's 6s stay).
2. On nothing: nothing happens and the click costs nothing, except on level 0, where a
   click that is not on a goal either flashes the frame: four more frames, its pixels
   colours 0, 2, 0, 2 (the action makes five frames).
3. Then (after a click on a tile, or off the grid, which no click on this 32x32 view can
   be) the goals are checked: when every goal is satisfied the level is complete (this
   click costs nothing). Otherwise the click costs one of the level's moves (data
   ``kCv``: 32, 32, 96, 96, 128, 128), and the game is lost when none is left.

The moves left are the bottom screen row: ``round(64 * left / budget)`` pixels of colour
12 from the left (Python's round, halves to even), the rest 11. The screen's
background and letterbox are colour 4.

How this port holds the original's state:

- the tiles' colours are the sprites' pixels, as in the original;
- the moves left are ``memory["moves_left"]`` (the original's display object's
  counter), started from ``kCv`` with each level;
- the flash's countdown is the action's frame number (``rules.frame_number``): the
  flash is the only action that lasts more than one frame of a level;
- the flashing sprite (level 0's four corner brackets, 15x15 cells) is drawn as the
  level starts, and the colour a flash gives it is ``memory["flash"]``, drawn over the
  screen pixels where it shows (:data:`FLASH_PIXELS`: nothing moves or changes order
  in ft09, so those stay the same). The state then holds only the tiles' pixels, 3x3
  a sprite instead of 15x15 (benchmarks/RESULTS.md: the flash's pixel grid made 80 % of
  the state, which every pass of a step reads); the frames are the original's;
- tiles never move, appear or disappear, so which tile sits one lattice step from
  another, and which tiles each goal reads, are fixed per level: they are worked out
  once here (``FLIPS``, ``GOAL_CHECKS``) the way ``get_sprite_at`` would find them.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import CLICK, SCREEN, Game

OFFICIAL = rules.official.load("ft09")
TAGS = OFFICIAL.tags
PLAIN, PATTERN, FLASHING, GOAL = (TAGS.index(t) for t in ("Hkx", "NTi", "Ycb", "bsT"))
TILE_TAGS = ("Hkx", "NTi")  # the order a click or a goal looks tiles up in
POINTER = 6  # a pattern tile's pixels of this colour point at the neighbours it changes
LATTICE = 4  # cells from one tile to the next
FLASH_COLOURS = (2, 0)  # the frame's colour on even and odd frames of the flash
LAST_FLASH = 4  # the flash's last frame (the action's fifth)
BAR_LEFT, BAR_SPENT = 12, 11  # the moves-left bar: moves left, moves spent
# The eight directions a goal reads, as (dx, dy) lattice steps.
AROUND = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0))
MAX_CHECKS = 8 * max(sum("bsT" in s.tags for s in level.sprites) for level in OFFICIAL.levels)


# --- the levels as they start ---------------------------------------------------------


def painted(sprite: rules.Sprite, first: int) -> rules.Sprite:
    """A tile as the level starts: a plain tile's corner colour (all of it) becomes the
    cycle's first colour; a pattern tile's pixels other than its pointers do."""
    pixels = np.asarray(sprite.pixels)
    if "Hkx" in sprite.tags:
        pixels = np.where(pixels == pixels[0, 0], first, pixels)
    elif "NTi" in sprite.tags:
        pixels = np.where(pixels != POINTER, first, pixels)
    return dataclasses.replace(sprite, pixels=tuple(map(tuple, pixels.tolist())))


def starting_sprites(level) -> tuple[rules.Sprite, ...]:
    return tuple(painted(s, level.data["cwU"][0]) for s in level.sprites)


def tile_at(sprites, x: int, y: int) -> int:
    """The index of the tile at cell ``(x, y)``, or -1: arcengine's ``get_sprite_at``
    with tag ``Hkx``, then ``NTi`` (collidable sprites only, highest layer first, then
    the first in the level's list; tiles are drawn unscaled and unturned)."""
    for tag in TILE_TAGS:
        found = [
            i
            for i, s in enumerate(sprites)
            if tag in s.tags
            and s.collidable
            and s.x <= x < s.x + len(s.pixels[0])
            and s.y <= y < s.y + len(s.pixels)
            and (s.blocking != rules.Blocking.PIXEL_PERFECT or s.pixels[y - s.y][x - s.x] != -1)
        ]
        if found:
            return max(found, key=lambda i: (sprites[i].layer, -i))
    return -1


def flips_of(level, sprites) -> np.ndarray:
    """``[num_slots, 9]``: the tiles a click on each tile changes (-1: none), from a
    plain tile's level pattern or a pattern tile's pointers (and its centre)."""
    table = np.full((NUM_SLOTS, 9), -1, np.int32)
    for i, sprite in enumerate(sprites):
        if tile_at(sprites, sprite.x, sprite.y) != i:
            continue
        if "Hkx" in sprite.tags:
            pattern = np.asarray(level.data["elp"]) == 1
        else:
            pattern = np.asarray(sprite.pixels)[:3, :3] == POINTER
            pattern[1, 1] = True
        for row, col in zip(*np.nonzero(pattern), strict=True):
            x, y = sprite.x + LATTICE * (col - 1), sprite.y + LATTICE * (row - 1)
            table[i, 3 * row + col] = tile_at(sprites, x, y)
    return table


def goal_checks_of(sprites) -> np.ndarray:
    """``[MAX_CHECKS, 3]``: per check a tile (-1: none), a colour, and 1 where the tile
    must show it (0: must not); one check per goal and direction with a tile."""
    checks = np.full((MAX_CHECKS, 3), -1, np.int32)
    k = 0
    for goal in (s for s in sprites if "bsT" in s.tags):
        for dx, dy in AROUND:
            tile = tile_at(sprites, goal.x + LATTICE * dx, goal.y + LATTICE * dy)
            if tile >= 0:
                same = goal.pixels[1 + dy][1 + dx] == 0
                checks[k] = tile, goal.pixels[1][1], int(same)
                k += 1
    return checks


def next_colours_of(cycle) -> np.ndarray:
    """``[16]``: the colour after each colour of the cycle (others unchanged)."""
    table = np.arange(16, dtype=np.int32)
    for i, colour in enumerate(cycle):
        table[colour] = cycle[(i + 1) % len(cycle)]
    return table


NUM_SLOTS = max(len(level.sprites) for level in OFFICIAL.levels)
STARTS = tuple(starting_sprites(level) for level in OFFICIAL.levels)
# Per level (indexed by the level number): the fixed layout and the level's numbers.
FLIPS = np.stack([flips_of(lv, s) for lv, s in zip(OFFICIAL.levels, STARTS, strict=True)])
GOAL_CHECKS = np.stack([goal_checks_of(s) for s in STARTS])
NEXT_COLOUR = np.stack([next_colours_of(level.data["cwU"]) for level in OFFICIAL.levels])
BUDGETS = np.asarray([level.data["kCv"] for level in OFFICIAL.levels], np.int32)


def shown_pixels(sprites, width: int, height: int, which) -> np.ndarray:
    """``[64, 64]``: the screen pixels where one of the sprites ``which`` (indices) is
    the top sprite drawn, the level's sprites painted in arcengine's order (layer, then
    list order; unscaled and unturned, as ft09's are) on a view of ``width`` x ``height``
    cells from the world's corner."""
    top = np.full((height, width), -1)
    for i in sorted(range(len(sprites)), key=lambda i: (sprites[i].layer, i)):
        sprite = sprites[i]
        if sprite.scale != 1 or sprite.rotation != 0:
            raise ValueError(f"ft09: sprite {i} ({sprite.kind}) is scaled or turned")
        if not sprite.visible:
            continue
        for row, col in zip(*np.nonzero(np.asarray(sprite.pixels) >= 0), strict=True):
            y, x = sprite.y + row, sprite.x + col
            if 0 <= y < height and 0 <= x < width:
                top[y, x] = i
    scale = min(SCREEN // width, SCREEN // height)
    shown = np.kron(np.isin(top, which), np.ones((scale, scale), bool))
    up, left = ((SCREEN - n) // 2 for n in shown.shape)  # the view centred
    return np.pad(
        shown, ((up, SCREEN - up - shown.shape[0]), (left, SCREEN - left - shown.shape[1]))
    )


# Where level 0's flashing sprite shows: what a flash recolours (the only level it does).
if OFFICIAL.levels[0].grid_size is None:
    raise ValueError("ft09: level 0 sets no grid size (its view), which the flash needs")
_WIDTH, _HEIGHT = OFFICIAL.levels[0].grid_size
FLASH_PIXELS = shown_pixels(
    STARTS[0], _WIDTH, _HEIGHT, [i for i, s in enumerate(STARTS[0]) if TAGS[FLASHING] in s.tags]
)


# --- the rule -------------------------------------------------------------------------


def goals_met(state) -> jnp.ndarray:
    """Every goal's every check holds on the tiles' centre colours."""
    checks = jnp.asarray(GOAL_CHECKS)[state.level]
    tile, colour, same = checks[:, 0], checks[:, 1], checks[:, 2] == 1
    shown = state.table.pixels[jnp.maximum(tile, 0), 1, 1].astype(jnp.int32)
    holds = jnp.where(same, shown == colour, shown != colour)
    return jnp.all(holds | (tile < 0))


def click(state, action, game: Game):
    """The first frame of an action: a click's changes, the goals, the moves."""
    clicking = action.id == CLICK
    x, y, on_view = rules.clicked_cell(state, action)
    plain = rules.sprite_at(state, x, y, game, PLAIN)
    tile = jnp.where(plain >= 0, plain, rules.sprite_at(state, x, y, game, PATTERN))
    on_tile = clicking & on_view & (tile >= 0)
    missed = clicking & on_view & (tile < 0)
    flashes = (
        missed
        & (state.level == 0)
        & jnp.any(rules.tagged(state, FLASHING))
        & (rules.sprite_at(state, x, y, game, GOAL) < 0)
    )
    slots = jnp.arange(game.num_slots)
    targets = jnp.asarray(FLIPS)[state.level, jnp.maximum(tile, 0)]
    changed = jnp.any(slots[:, None] == targets[None, :], axis=1) & on_tile
    centre = state.table.pixels[:, 1, 1].astype(jnp.int32)
    following = jnp.asarray(NEXT_COLOUR)[state.level, centre]
    state = rules.recolour(state, changed, centre, following)
    judged = clicking & ~missed  # on a tile, or off the grid
    won = judged & goals_met(state)
    state = rules.next_level(state, len(game.levels), won)
    spends = judged & ~won
    left = state.memory["moves_left"]
    left = jnp.where(spends, jnp.maximum(left - 1, 0), left)
    state = rules.set_memory(state, "moves_left", left)
    state = rules.lose(state, spends & (left == 0))
    return rules.complete(state, ~flashes)


def flash(state):
    """Frames 1-4 of a flash: the frame's pixels alternate 0, 2, 0, 2; the last
    completes the action."""
    frame = rules.frame_number(state)
    state = rules.set_memory(state, "flash", jnp.asarray(FLASH_COLOURS)[frame % 2])
    return rules.complete(state, frame >= LAST_FLASH)


def finish(state, action, game: Game):
    """A flash in one call, for an agent that sees only its end: its last frame (a
    recolour each frame: the last one's stays), and the action's frames counted."""
    return rules.at_frame(flash(rules.at_frame(state, LAST_FLASH)), LAST_FLASH + 1)


def rule(state, action, game: Game):
    """An action's first frame: a click's."""
    return click(state, action, game)


def animate(state, action, game: Game):
    """An action's later frames: a flash's."""
    return flash(state)


def bar_width(left, budget):
    """``round(64 * left / budget)`` with Python's halves to even, in integers."""
    whole, rest = jnp.divmod(SCREEN * left, budget)
    up = (2 * rest > budget) | ((2 * rest == budget) & (whole % 2 == 1))
    return whole + up.astype(whole.dtype)


def ui(state, frame, game: Game):
    """The flash's colour where the flashing sprite shows; the moves left: the bottom
    row, colour 12 from the left, 11 for the rest."""
    colour = state.memory["flash"]
    flashed = jnp.asarray(FLASH_PIXELS) & (colour >= 0) & (state.level == 0)
    frame = jnp.where(flashed, colour.astype(frame.dtype), frame)
    width = bar_width(state.memory["moves_left"], jnp.asarray(BUDGETS)[state.level])
    frame = rules.draw_rect(frame, 0, SCREEN - 1, SCREEN, 1, BAR_SPENT)
    return rules.draw_rect(frame, 0, SCREEN - 1, width, 1, BAR_LEFT)


def levels() -> tuple[rules.Level, ...]:
    return tuple(
        dataclasses.replace(level, sprites=sprites)
        for level, sprites in zip(
            OFFICIAL.game_levels(memory=lambda number, data: {"moves_left": data["kCv"]}),
            STARTS,
            strict=True,
        )
    )


def tile_click(x: int, y: int) -> tuple[int, int, int]:
    """A click on the centre of the tile at cell ``(x, y)`` (two screen pixels a cell)."""
    return (CLICK, 2 * (x + 1), 2 * (y + 1))


# A winning run of each level, as screen clicks on tile centres: the fewest clicks that
# satisfy every goal, found by solving the goal checks as linear equations in the clicks per
# tile modulo the cycle's length (each tile's colour is its clicks' count around the cycle;
# tests/tools/solve_ft09.py). Human baselines: 17, 19, 15, 21, 65, 26 clicks.
SOLUTIONS = (
    ((6, 38, 38), (6, 38, 46), (6, 54, 46), (6, 38, 54)),
    ((6, 22, 16), (6, 22, 24), (6, 38, 24), (6, 22, 32), (6, 38, 32), (6, 30, 48), (6, 22, 48)),
    (
        (6, 22, 6),
        (6, 22, 14),
        (6, 30, 22),
        (6, 38, 6),
        (6, 30, 6),
        (6, 14, 30),
        (6, 14, 22),
        (6, 30, 38),
        (6, 46, 38),
        (6, 46, 30),
        (6, 22, 46),
        (6, 30, 54),
        (6, 22, 54),
        (6, 38, 54),
    ),
    (
        (6, 22, 16),
        (6, 22, 16),
        (6, 30, 24),
        (6, 30, 32),
        (6, 46, 24),
        (6, 30, 16),
        (6, 22, 32),
        (6, 22, 32),
        (6, 38, 32),
        (6, 46, 16),
        (6, 22, 48),
        (6, 22, 48),
        (6, 30, 48),
        (6, 30, 48),
        (6, 38, 48),
        (6, 38, 48),
    ),
    (
        (6, 16, 14),
        (6, 32, 38),
        (6, 32, 14),
        (6, 24, 6),
        (6, 32, 22),
        (6, 40, 38),
        (6, 48, 46),
        (6, 32, 46),
        (6, 40, 54),
        (6, 32, 54),
        (6, 48, 38),
        (6, 16, 22),
        (6, 32, 6),
        (6, 16, 38),
        (6, 16, 54),
        (6, 16, 30),
        (6, 32, 30),
        (6, 48, 22),
        (6, 24, 14),
        (6, 40, 46),
        (6, 24, 30),
    ),
    (
        (6, 22, 16),
        (6, 38, 16),
        (6, 14, 24),
        (6, 22, 24),
        (6, 38, 32),
        (6, 14, 32),
        (6, 46, 32),
        (6, 30, 32),
        (6, 46, 40),
        (6, 22, 40),
        (6, 54, 40),
        (6, 6, 16),
        (6, 6, 8),
    ),
)

# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = ("Hkx", "NTi", "ZkU")

GAME = Game(
    **OFFICIAL.game_fields(),
    static_kinds=rules.kinds_but(OFFICIAL.kinds, MOVING_KINDS),
    levels=levels(),
    rule=rule,
    animate=animate,
    finish=finish,
    num_slots=NUM_SLOTS,
    pixel_size=0,  # the tiles' (static sprites are larger)
    reach=32,
    memory={"moves_left": rules.Var(), "flash": rules.Var(value=-1)},  # -1: not flashed
    max_frames=5,
    ui=ui,
    solutions=SOLUTIONS,
)
