"""su15, ARC Prize's public ARC-AGI-3 game (version 4c352900), as JAX rules.

Fruits of nine sizes (0-8, each its colour) lie on a board below a bar of keys; goal
rings mark where they must go. The level is won when the goals hold, by the fruits' and
enemies' centres, exactly the number of fruits of each size and enemies of each kind
its data asks for. A step bar (row 63) counts the clicks left.

- **ACTION6** on rows 10-62 starts the vacuum: every fruit and enemy whose
  box comes within 8 cells of the click is captured. For four frames a black ring
  shrinks on the click while the captured move toward it: fruits and the second and
  third kinds of enemy up to 4 cells a frame along each axis, enemies of the first kind
  3.4 cells along their line to the click (rounded, halves to even). Then captured
  fruits that overlap merge, group by group, into one of the next size at their mean
  centre (two of size 8 vanish instead); fruits of two sizes overlapping make a bad
  merge. A click spends one step; one that starts no vacuum spends none.
- **Enemies** (free, not cooling down) chase the nearest fruit a cell a frame (the third
  kind two) while the ring shrinks, unless a knocked fruit is flying. One that touches a
  fruit knocks it and rests 9 frames: the fruit shakes 4 frames, then shrinks a size
  and flies 10 cells away from the enemy in 4 frames (floats added up, rounded halves to
  even); a fruit of size 0 goes. Overlapping enemies of one kind merge into the next kind
  (two of the third vanish); of two kinds, a bad merge.
- A **bad merge** flashes the pair (black and back every 2 frames, 16 frames), costs
  2 steps more each time (2, 4, 6...) and undoes the click.
- **ACTION7** undoes the last click (any click, also one that did nothing): fruits and
  enemies as they were; the steps stay spent.
- When the fruits are worth less than the goals ask (size n is worth 2**n), the keys
  and goals turn grey until an undo makes it up. The level is lost when no fruit is left
  or no step. A win paints the keys and goals black for 11 frames, then the next level.

The original's lists are memory (``su15_lists``). The ring is drawn by the UI, over
every sprite but those above it (fruits of sizes 0, 1 and 8, and fruits added after it).
The level's data and the float tables are in ``su15_levels``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games import su15_levels as lv
from gridax.envs.arc3.games import su15_lists as ls
from gridax.envs.arc3.games import su15_vacuum as vac
from gridax.envs.arc3.games.su15_lists import ENEMY_FIELDS, FRUIT_FIELDS, E, F
from gridax.envs.arc3.games.su15_vacuum import FLASH, NONE, VACUUM, WIN
from gridax.envs.arc3.rules import Game, Var

FLASH_FRAMES, WIN_FRAMES = 16, 11
HISTORY = 96  # undo entries kept (the oldest goes first)
ENTRY = 2 + 3 * F + 3 * E  # f_n, sizes, xs, ys, e_n, kinds, xs, ys
HINT = lv.DATA.tags.index(lv.HINT)
FRUIT0, ENEMY0 = lv.NUM_OTHERS, lv.NUM_OTHERS + F  # the pools' first slots
MAX_FRUIT = int(lv.FRUIT_SIZE.max())


# --- the game's state -------------------------------------------------------------------


def _won(m):
    """The goals hold exactly the fruits and enemies the level asks for (by centres)."""
    gx, gy, gw, gh = (m["goal_boxes"][:, i] for i in range(4))

    def held(prefix):
        cx, cy = ls.centres(m, prefix)
        inside = (
            (gx[None, :] <= cx[:, None])
            & (cx[:, None] < gx[None, :] + gw[None, :])
            & (gy[None, :] <= cy[:, None])
            & (cy[:, None] < gy[None, :] + gh[None, :])
        )
        return ls.live(m, prefix) & jnp.any(inside, axis=1)

    def matches(prefix, kinds, goal, n):
        same = kinds[:, None] == jnp.arange(n)[None, :]
        counts = jnp.sum(held(prefix)[:, None] & same, axis=0, dtype=jnp.int32)
        return jnp.all((goal < 0) | (counts == goal))

    fruits = matches("f", m["f_size"], m["goal_fruits"], len(lv.FRUITS))
    return fruits & matches("e", m["e_kind"], m["goal_enemies"], len(lv.ENEMIES))


def _worth_enough(m):
    worth = jnp.sum(jnp.where(ls.live(m, "f"), 2 ** m["f_size"], 0))
    return worth >= m["needed"]


def _entry(m):
    return jnp.concatenate(
        [m["f_n"][None], m["f_size"], m["f_x"], m["f_y"]]
        + [m["e_n"][None], m["e_kind"], m["e_x"], m["e_y"]]
    ).astype(jnp.int8)


def _push(m):
    """The lists kept for undo (a full stack drops its oldest)."""
    m = dict(m)
    history, size = m["history"], m["history_size"]
    full = size >= HISTORY
    history = jnp.where(full, jnp.roll(history, -1, axis=0), history)
    m["history"] = history.at[jnp.minimum(size, HISTORY - 1)].set(_entry(m))
    m["history_size"] = jnp.minimum(size + 1, HISTORY)
    return m


def _undo(m):
    """The last kept lists back (built again: every sprite after the ring); the keys and
    goals their colours again if the fruits are worth enough."""
    size = m["history_size"]
    entry = m["history"][jnp.maximum(size - 1, 0)].astype(jnp.int32)
    parts = np.cumsum([1, F, F, F, 1, E, E])
    f_n, sizes, fx, fy, e_n, kinds, ex, ey = jnp.split(entry, parts)
    restored = dict(m)
    for name, default in {**FRUIT_FIELDS, **ENEMY_FIELDS}.items():
        restored[name] = jnp.full_like(m[name], default)
    for name, value in zip(
        ("f_n", "f_size", "f_x", "f_y", "e_n", "e_kind", "e_x", "e_y"),
        (f_n[0], sizes, fx, fy, e_n[0], kinds, ex, ey),
        strict=True,
    ):
        restored[name] = jnp.asarray(value, m[name].dtype)
    restored["f_layer"] = jnp.asarray(lv.FRUIT_LAYER)[restored["f_size"]]
    restored["history_size"] = size - 1
    repaint = restored["grayed"] & _worth_enough(restored)
    restored["grayed"] = restored["grayed"] & ~repaint
    restored["tint"] = jnp.where(repaint, -1, restored["tint"])
    return jax.tree.map(lambda a, b: jnp.where(size > 0, a, b), restored, dict(m))


# --- the frames of an action ------------------------------------------------------------


def _click(state, action, game: Game, m):
    """A click: the lists kept for undo; level 1's hint hidden when clicked; below the
    bar, the vacuum started (``(memory, started)``)."""
    m = _push(m)
    x, y, on_view = rules.clicked_cell(state, action)
    hint = rules.sprite_at(state, x, y, game, tag=HINT)
    m["hint_hidden"] = m["hint_hidden"] | (on_view & (m["hint"] >= 0) & (hint >= 0))
    started = on_view & (y >= lv.TOP) & (y < lv.SCREEN - 1)
    begun = dict(m)
    for name in ("f_knock", "f_count", "f_shrink", "f_doom", "e_cool"):
        begun[name] = jnp.full_like(m[name], (FRUIT_FIELDS | ENEMY_FIELDS)[name])
    begun["f_sel"] = ls.near(m, "f", x, y, lv.REACH) & ls.live(m, "f")
    caught = ls.near(m, "e", x, y, lv.REACH) & ls.live(m, "e")
    cx, cy = ls.centres(m, "e")
    begun["e_cap"], begun["e_glide"] = caught, caught & (m["e_kind"] == 0)
    begun["e_da"], begun["e_db"] = x - cx, y - cy
    begun["click_x"], begun["click_y"] = x, y
    begun["vac"] = jnp.zeros_like(m["vac"])
    begun["merged"] = jnp.zeros_like(m["merged"])
    begun["mode"] = jnp.full_like(m["mode"], VACUUM)
    return jax.tree.map(lambda a, b: jnp.where(started, a, b), begun, m), started


def _vacuum(m, first_level):
    """A vacuum frame, the merge after the fourth, the win checked: ``(memory, done,
    lost)``."""
    m, animating = vac.vacuum_frame(m)
    early_flash = m["mode"] == FLASH
    merging = ~early_flash & ~m["merged"] & (m["vac"] >= lv.VACUUM_FRAMES)
    merged = vac.merge(m, "e")
    merged = jax.tree.map(
        lambda a, b: jnp.where(merged["mode"] == FLASH, a, b), merged, vac.merge(merged, "f")
    )
    merged["merged"] = jnp.ones_like(m["merged"])
    m = jax.tree.map(lambda a, b: jnp.where(merging, a, b), merged, m)
    late_flash = merging & (m["mode"] == FLASH)
    won = ~late_flash & _won(m)
    m["mode"] = jnp.where(won, WIN, m["mode"])
    ending = ~late_flash & ~won & ~animating
    # The vacuum's end: grey keys, the hint, the step spent.
    m["mode"] = jnp.where(ending, NONE, m["mode"])
    greying = ending & ~_worth_enough(m)
    m["grayed"] = m["grayed"] | greying
    m["tint"] = jnp.where(greying, 2, m["tint"])
    moved = (m["f_x"][0] != lv.HINT_FRUIT[0]) | (m["f_y"][0] != lv.HINT_FRUIT[1])
    m["hint_hidden"] = m["hint_hidden"] | (ending & first_level & moved)
    steps = m["steps"]
    m["steps"] = jnp.where(ending & (steps > 0), steps - 1, steps)
    lost = ending & ((m["f_n"] == 0) | (m["steps"] <= 0))
    return m, ending, lost


def _flash(m):
    """A frame of the bad merge's flash; after the last, the pair as it was, the steps'
    fine and the undo: ``(memory, done, lost)``."""
    m = dict(m)
    n = m["flash_n"]
    m["flash_black"] = (n // 2) % 2 == 0
    m["flash_n"] = n + 1
    done = n + 1 >= FLASH_FRAMES
    ended = dict(m)
    ended["mode"] = jnp.full_like(m["mode"], NONE)
    ended["f_flash"] = jnp.zeros_like(m["f_flash"])
    ended["e_flash"] = jnp.zeros_like(m["e_flash"])
    ended["flash_black"] = jnp.zeros_like(m["flash_black"])
    steps, penalty = ended["steps"], ended["penalty"]
    fined = steps > 0
    ended["steps"] = jnp.where(fined, steps - 2 - 2 * penalty, steps)
    ended["penalty"] = jnp.where(fined, penalty + 1, penalty)
    lost = ~(ended["steps"] > 0)
    ended = jax.tree.map(lambda a, b: jnp.where(lost, a, b), ended, _undo(ended))
    m = jax.tree.map(lambda a, b: jnp.where(done, a, b), ended, m)
    return m, done, done & lost


def _frame(state, action, game: Game, first: bool):
    """A frame: on an action's ``first`` (static), a click or an undo; on a later one, a
    win's, a vacuum's or a flash's (which a click starts: no first frame finds one)."""
    m = dict(state.memory)
    mode = m["mode"]
    idle = mode == NONE
    false = jnp.bool_(False)
    if first:
        clicking = idle & (action.id == rules.CLICK)
        clicked, started = _click(state, action, game, m)
        branches = [(clicking, clicked), (idle & (action.id == rules.UNDO), _undo(m))]
        done, lost, winning_done = idle & ~(clicking & started), false, false
    else:
        # A win's frames: keys and goals black, then the next level.
        won = dict(m)
        won["tint"] = jnp.where(mode == WIN, 0, m["tint"])
        won["win_n"] = m["win_n"] + 1
        winning_done = (mode == WIN) & (won["win_n"] >= WIN_FRAMES)
        vacuumed, vacuum_done, vacuum_lost = _vacuum(m, state.level == 0)
        flashed, flash_done, flash_lost = _flash(m)
        branches = [(mode == WIN, won), (mode == VACUUM, vacuumed), (mode == FLASH, flashed)]
        vacuum_over, flash_over = (mode == VACUUM) & vacuum_done, (mode == FLASH) & flash_done
        done = winning_done | vacuum_over | flash_over | idle
        lost = ((mode == VACUUM) & vacuum_lost) | ((mode == FLASH) & flash_lost)
    chosen = m
    for when, branch in branches:
        chosen = jax.tree.map(lambda a, b, w=when: jnp.where(w, a, b), branch, chosen)
    retint = chosen["tint"] != m["tint"]
    state = rules.update_memory(state, chosen)
    state = rules.rarely(retint, _retint, state)
    state = rules.next_level(state, len(game.levels), winning_done)
    state = rules.lose(state, lost)
    state = rules.complete(state, done)
    return _draw(state)


def rule(state, action, game: Game):
    return _frame(state, action, game, first=True)


def animate(state, action, game: Game):
    """An action's later frames: a win's, a vacuum's or a flash's (a click or an undo
    takes place on the first)."""
    return _frame(state, action, game, first=False)


def on_set_level(state, game: Game):
    """The level's start kept for undo, the pools drawn."""
    m = _push(dict(state.memory))
    m["f_fresh"] = jnp.zeros_like(m["f_fresh"])  # the level's fruits come before the ring
    return _draw(rules.update_memory(state, m))


# --- drawing ------------------------------------------------------------------------------

_FRUIT_PIXELS = np.full((len(lv.FRUITS), MAX_FRUIT, MAX_FRUIT), rules.TRANSPARENT, np.int8)
for _n, _size in enumerate(lv.FRUIT_SIZE):
    _FRUIT_PIXELS[_n, :_size, :_size] = lv.FRUIT_COLOUR[_n]


def _retint(state):
    """The keys and goals painted in the tint (grey, or black in a win), or in their
    own colours again."""
    colours = state.memory["colours"]
    tint = jnp.where(state.memory["tint"] >= 0, state.memory["tint"], colours)
    slots = jnp.arange(lv.NUM_SLOTS)
    keys = (slots < FRUIT0) & (rules.per_slot(state, slots[:FRUIT0], colours, -1) >= 0)
    return rules.recolour(state, keys, None, rules.per_slot(state, slots[:FRUIT0], tint))


def _draw(state):
    """The pools from the lists, the hint moved away once hidden."""
    m = state.memory
    black_f = m["f_flash"] & m["flash_black"]
    black_e = m["e_flash"] & m["flash_black"]
    fruit = jnp.asarray(_FRUIT_PIXELS)[m["f_size"]]
    fruit = jnp.where(black_f[:, None, None] & (fruit >= 0), 0, fruit)
    enemy = jnp.asarray(lv.ENEMY_PIXELS)[m["e_kind"]]
    enemy = jnp.where(black_e[:, None, None] & (enemy > -1), 0, enemy)
    size = ls.fruit_size(m)
    state = rules.lay_out(
        state,
        slice(FRUIT0, ENEMY0),
        pixels=fruit,
        x=m["f_x"],
        y=m["f_y"],
        exists=ls.live(m, "f"),
        height=size,
        width=size,
        layer=m["f_layer"],
    )
    state = rules.lay_out(
        state, slice(ENEMY0, None), pixels=enemy, x=m["e_x"], y=m["e_y"], exists=ls.live(m, "e")
    )
    slots = jnp.arange(lv.NUM_SLOTS)
    hint = (slots == m["hint"]) & (slots < FRUIT0)
    return rules.place(state, hint, 500, state.table.y, when=m["hint_hidden"])


def ui(state, frame, game: Game):
    """The vacuum's ring (black), under the fruits drawn above it; the step bar."""
    m = state.memory
    _, _, ring_cells = vac.tables()
    cells = ring_cells[jnp.minimum(m["vac"], lv.VACUUM_FRAMES)]
    px, py = m["click_x"] + cells[:, 0], m["click_y"] + cells[:, 1]  # [K]
    x, y, w, h = ls.boxes(m, "f")
    above = ls.live(m, "f") & ((m["f_layer"] > 0) | m["f_fresh"])
    covered = jnp.any(
        above[None, :]
        & (px[:, None] >= x[None, :])
        & (px[:, None] < (x + w)[None, :])
        & (py[:, None] >= y[None, :])
        & (py[:, None] < (y + h)[None, :]),
        axis=1,
    )
    on_screen = (px >= 0) & (px < rules.SCREEN) & (py >= 0) & (py < rules.SCREEN)
    shown = (m["mode"] == VACUUM) & on_screen & ~covered
    off = rules.SCREEN  # out of the frame: dropped (a negative index would wrap)
    frame = frame.at[jnp.where(shown, py, off), jnp.where(shown, px, off)].set(
        jnp.int8(0), mode="drop"
    )
    # ceil(64 * steps / max) black pixels of the bottom row; a negative count is a
    # Python slice's end (all but that many).
    shown = -((-rules.SCREEN * m["steps"]) // m["steps_max"])
    shown = jnp.where(shown >= 0, shown, jnp.maximum(rules.SCREEN + shown, 0))
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, shown, 1, 0)


# A winning run of each level, as clicked points (tests/tools/solve_su15.py: a beam search
# over clicks on gridax's game; level 8 planned by hand, level 9 searched after a
# 6-click opening planned by hand), checked on the official file by the recorded
# trace's last episode.
# fmt: off
POINTS = (
    ((10, 53), (16, 47), (22, 41), (28, 35), (34, 29), (40, 23), (46, 17)),
    ((43, 44), (43, 53), (19, 44), (19, 53), (25, 47), (37, 47), (31, 41), (31, 32), (31, 23)),
    ((31, 23), (25, 29), (13, 29), (55, 26), (16, 23), (49, 29), (22, 29), (43, 35), (37, 41),
     (31, 47), (22, 38), (22, 47)),
    ((10, 32), (10, 41), (31, 35), (31, 44), (25, 38), (13, 38), (19, 44), (10, 47), (4, 53)),
    ((7, 56), (7, 32), (46, 29), (55, 53), (49, 50), (7, 50), (40, 50), (40, 32), (1, 38),
     (40, 38), (34, 44), (25, 44), (13, 44), (19, 38), (22, 29), (25, 20), (28, 11)),
    ((28, 29), (1, 11), (31, 23), (28, 17), (19, 14), (10, 11)),
    ((10, 29), (25, 32), (19, 29), (19, 20), (46, 20)),
    ((10, 43), (36, 48), (8, 53), (60, 12), (60, 12), (60, 12), (8, 19), (9, 56)),
    ((21, 50), (16, 19), (12, 54), (60, 12), (40, 39), (30, 37), (19, 59), (13, 47), (13, 53)),
)
# fmt: on
SOLUTIONS = tuple(tuple((rules.CLICK, x, y) for x, y in run) for run in POINTS)


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "0 1 2 3 5 avvxfurrqu eifgovhtsm enemy ezepymlzep jpjwahlikp nyvfnpgcbv pzqkrtozkk "
    "recfijsnol tltqnwoiek"
)

GAME = Game(
    **lv.DATA.game_fields(),
    static_kinds=rules.kinds_but(lv.DATA.kinds, MOVING_KINDS),
    levels=lv.LEVELS,
    rule=rule,
    animate=animate,
    num_slots=lv.NUM_SLOTS,
    # The pools' pixels the rule writes (the static sprites, up to 64x64, are larger).
    pixel_size=max(MAX_FRUIT, lv.ENEMY_HEIGHT, lv.ENEMY_WIDTH),
    reach=lv.PIXEL_SIZE,
    memory={
        **lv.LEVEL_MEMORY,
        **{
            name: Var("bool" if isinstance(v, bool) else "int32", (F,), v)
            for name, v in FRUIT_FIELDS.items()
            if name not in lv.LEVEL_MEMORY
        },
        **{
            name: Var("bool" if isinstance(v, bool) else "int32", (E,), v)
            for name, v in ENEMY_FIELDS.items()
            if name not in lv.LEVEL_MEMORY
        },
        "flash_black": Var("bool"),
        "click_x": Var(),
        "click_y": Var(),
        "vac": Var(),
        "merged": Var("bool"),
        "mode": Var(),
        "flash_n": Var(),
        "win_n": Var(),
        "grayed": Var("bool"),
        "tint": Var(value=-1),
        "penalty": Var(),
        "hint_hidden": Var("bool"),
        "history": Var("int8", (HISTORY, ENTRY)),
        "history_size": Var(),
    },
    # The longest action: the click's frame, 12 more while a fruit knocked on the
    # vacuum's fourth frame shakes and flies, a win's 11 frames and the next level's (a
    # bad merge's flash ends sooner: 5 + 16).
    max_frames=25,
    ui=ui,
    on_set_level=on_set_level,
    undo_in_rule=True,
    solutions=SOLUTIONS,
)
