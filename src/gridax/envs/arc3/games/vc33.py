"""vc33 (ARC Prize's ARC-AGI-3 game "VC33", levels from its official file): communicating
vessels. Click only (ACTION6).

The world (32 to 64 cells a side) holds white **tanks** of liquid (tag ``rDn``). Every
level has one flow direction (its data value ``TiD``: (2, 0), (-2, 0), (0, 2), (0, 3),
(3, 0), (-3, 0) or (0, -2): the axis and the step in cells). Along it each tank is
anchored at its *head* (the end the flow points to) and its liquid surface, the *tail*,
moves; across it, tanks never move. Grey **pipes** (``UXg``) run along the flow beside the
tanks, **stops** (``WuO``) cap some tanks, **floats** (``HQB``, a coloured base under a
dark cap) ride on a tank's surface: a float is on a tank when its across position lies in
the tank's span and its head touches the tank's tail.

- **Pumps** (blue, ``ZGd``): clicking one moves liquid between the two tanks paired with
  it when the level starts (the pairing reads the pump's across position against the
  tanks', below). The *giving* tank's surface moves one step with the flow, the
  *taking* tank's one step against it; their grids lose or gain that many rows (before
  rotation), and the floats on each ride along. A pump does nothing when the giving tank
  is empty, or when the taking tank's surface is not short of its limit: with stops in
  the tank's lane whose head lies behind the tank's, the greatest of their heads (less
  4, or 6 when the flow is -3 in x, while a float rides on the tank); else the furthest
  tail of the pipes beside the tank (the greatest for a positive flow, else the least).
- **Valves** (``zHk``, light grey bars on the pipes): a valve is *open* when a tank on each
  side of it has its surface level with the valve's head end. After every pump that
  moves liquid, and after a valve's swap, open valves turn orange (12) with a bracket
  (``rlV``: ``KEA`` or ``HPB``) drawn beside them, closed ones light grey (1). Clicking an
  open valve plays a swap over several frames, one cell a frame (the brackets hidden):
  the valve slides its own length (against a sideways flow; up for a vertical one), the
  floats on the near tank then those on the far one cross to the other tank's middle
  (across the flow), and the valve slides home.
  Each mover takes one more frame to notice it has arrived.
- **Pairing** (at the level's start): a pump whose across position equals a tank's
  (among tanks whose head is past the pump's tail) feeds that tank, taking from the tank
  that ends one pump-width before it; otherwise a pump strictly inside a tank's span
  feeds that tank, taking from the tank that starts two pump-widths past the pump. Among
  several candidates the one nearest the flow's origin wins (the least along position
  when the flow is positive, the greatest when negative).
- **Marks** (``fZK``, a coloured cell on a pipe; their undrawn -2 pixels are solid) are
  the goal. The level is complete when every float stands at the along position of a
  mark that holds its colour (the float's bottom-right pixel) and whose pipe (the first
  pipe it touches) runs beside the float's tank.
- **Clicks** are budgeted: the level's ``RoA`` (50, 75 or 200). Every click spends one;
  the top row of the screen is a bar, pink for what is left. A click that leaves none and
  does not complete the level (after its swap, if it started one) loses the game.

The official file's Python state, as memory: the click budget (``moves_left`` of
``moves``), the flow step (``flow``), the pump pairs (its dict by pump sprite:
``pump_tanks``), the swap in progress (its list of (sprite, goal) moves: ``queue``, at
most the valve twice and every float; ``queue_length``, ``queue_at``, ``swapping``).
Brackets, clones in the file, have a reserved slot per valve here (``bracket_of``), out
of the level at its start. Facts of the level data: which float colours each mark holds
(``fits``), each mark's pipe (``mark_pipe``, by the engine's collisions at the start).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.vc33_levels import (
    MARK_SIZE,
    MAX_MARKS,
    NUM_SLOTS,
    OFFICIAL,
    QUEUE,
    TAGS,
    level_of,
)
from gridax.envs.arc3.rules import CLICK, SCREEN, Game, Var

TANK, PIPE, PUMP, VALVE, FLOAT, MARK, BRACKET, STOP = (
    TAGS.index(tag) for tag in ("rDn", "UXg", "ZGd", "zHk", "HQB", "fZK", "rlV", "WuO")
)
OPEN, CLOSED = 12, 1  # a valve's colours
LIT, UNLIT = 7, 4  # the budget bar's
FAR = 1 << 20  # beyond any coordinate


# --- geometry along the flow ----------------------------------------------------------


class Axes(NamedTuple):
    """Every slot's place along the flow and across it (one env)."""

    along: jax.Array  # position along the flow axis
    length: jax.Array  # size along it
    across: jax.Array
    breadth: jax.Array  # size across
    head: jax.Array  # the end the flow points to
    tail: jax.Array  # the other end: a tank's surface
    forward: jax.Array  # the flow points to growing coordinates


def axes(state) -> Axes:
    dx, dy = state.memory["flow"][0], state.memory["flow"][1]
    table = state.table
    height, width = rules.drawn_size(state)
    sideways = dx != 0
    along = jnp.where(sideways, table.x, table.y)
    length = jnp.where(sideways, width, height)
    forward = (dx > 0) | (dy > 0)
    return Axes(
        along=along,
        length=length,
        across=jnp.where(sideways, table.y, table.x),
        breadth=jnp.where(sideways, height, width),
        head=jnp.where(forward, along + length, along),
        tail=jnp.where(forward, along, along + length),
        forward=forward,
    )


def reaches(g: Axes) -> jax.Array:
    """``[a, b]``: sprite ``a``'s head is at or past ``b``'s tail, along the flow."""
    head, tail = g.head[:, None], g.tail[None, :]
    return jnp.where(g.forward, head >= tail, head <= tail)


def riding(state, g: Axes) -> jax.Array:
    """``[f, k]``: float ``f`` rides on tank ``k`` (in its span, on its surface)."""
    within = (g.across[:, None] >= g.across[None, :]) & (
        g.across[:, None] < g.across[None, :] + g.breadth[None, :]
    )
    touching = g.head[:, None] == g.tail[None, :]
    return (
        rules.tagged(state, FLOAT)[:, None] & rules.tagged(state, TANK)[None, :] & within & touching
    )


def beside(g: Axes) -> jax.Array:
    """``[a, b]``: ``a``'s span ends where ``b``'s starts, or starts where it ends."""
    return (g.across[:, None] + g.breadth[:, None] == g.across[None, :]) | (
        g.across[:, None] == g.across[None, :] + g.breadth[None, :]
    )


def first(mask) -> jax.Array:
    """The first slot of ``mask`` (arcengine's list order), -1 if none."""
    return jnp.where(jnp.any(mask), jnp.argmax(mask), -1).astype(jnp.int32)


def nearest_origin(mask, g: Axes) -> jax.Array:
    """The slot of ``mask`` whose along position is least (greatest when the flow is
    negative): Python's ``min``/``max`` by it, the first on ties."""
    key = jnp.where(g.forward, g.along, -g.along)
    return jnp.argmin(jnp.where(mask, key, FAR)).astype(jnp.int32)


# --- the level's start: pump pairs and mark pipes --------------------------------------


def on_set_level(state, game: Game):
    state = rules.remove(state, rules.tagged(state, BRACKET))
    g = axes(state)
    tanks = rules.tagged(state, TANK)[None, :]
    reach = reaches(g).T  # [pump, tank]: the tank's head reaches the pump's tail
    across, breadth = g.across[:, None], g.breadth[:, None]  # the pump's
    lane = tanks & reach & (g.across[None, :] == across)
    before = tanks & reach & (g.across[None, :] + g.breadth[None, :] == across - breadth)
    spanning = tanks & reach & (g.across[None, :] < across)
    spanning = spanning & (across < g.across[None, :] + g.breadth[None, :])
    beyond = tanks & reach & (g.across[None, :] == across + 2 * breadth)
    pick = jax.vmap(nearest_origin, in_axes=(0, None))
    in_lane, inside = jnp.any(lane, axis=1), jnp.any(spanning, axis=1)
    giving = jnp.where(in_lane, pick(before, g), pick(beyond, g))
    taking = jnp.where(in_lane, pick(lane, g), pick(spanning, g))
    paired = rules.tagged(state, PUMP) & (in_lane | inside)
    pairs = jnp.where(paired[:, None], jnp.stack([giving, taking], axis=1), -1)
    state = rules.set_memory(state, "pump_tanks", pairs)
    # Only the marks' collisions (every slot's took vc33's level starts 13 of 53 ms).
    none = game.num_slots  # past the table: dropped
    (marks,) = jnp.nonzero(rules.tagged(state, MARK), size=MAX_MARKS, fill_value=none)
    touching = jax.vmap(
        lambda mark: rules.collisions(state, jnp.minimum(mark, none - 1), game, size=MARK_SIZE)
    )(marks)
    pipes = jax.vmap(lambda row: first(row & rules.tagged(state, PIPE)))(touching)
    mark_pipe = jnp.full(none, -1, jnp.int32).at[marks].set(pipes, mode="drop")
    return rules.set_memory(state, "mark_pipe", mark_pipe)


# --- pumps ----------------------------------------------------------------------------


def limit_of(state, g: Axes, tank) -> jax.Array:
    """How far the taking tank's surface may go (the official ``mud``)."""
    stops = rules.tagged(state, STOP) & (g.across == g.across[tank])
    stops = stops & jnp.where(g.forward, g.head < g.head[tank], g.head > g.head[tank])
    carrying = jnp.any(riding(state, g)[:, tank])
    margin = jnp.where(state.memory["flow"][0] == -3, 6, 4)
    by_stop = jnp.max(jnp.where(stops, g.head, -FAR)) - jnp.where(carrying, margin, 0)
    pipes = rules.tagged(state, PIPE) & beside(g)[:, tank]
    by_pipe = jnp.where(
        g.forward, jnp.max(jnp.where(pipes, g.tail, -FAR)), jnp.min(jnp.where(pipes, g.tail, FAR))
    )
    return jnp.where(jnp.any(stops), by_stop, by_pipe)


def pump(state, slot, when):
    """A click on pump ``slot``: one step of liquid from its giving tank to its taking
    one, unless the giver is empty or the taker is at its limit."""
    giving, taking = state.memory["pump_tanks"][slot, 0], state.memory["pump_tanks"][slot, 1]
    g = axes(state)
    dx, dy = state.memory["flow"][0], state.memory["flow"][1]
    limit = limit_of(state, g, taking)
    room = jnp.where(g.forward, g.tail[taking] > limit, g.tail[taking] < limit)
    flows = when & (giving >= 0) & (g.length[giving] > 0) & room
    state = rules.move(state, riding(state, g)[:, giving], dx, dy, flows)
    state = rules.move(state, riding(state, axes(state))[:, taking], -dx, -dy, flows)
    ahead_x, ahead_y = jnp.maximum(dx, 0), jnp.maximum(dy, 0)
    state = rules.move(state, giving, ahead_x, ahead_y, flows)
    state = rules.move(state, taking, -ahead_x, -ahead_y, flows)
    step = jnp.where(dx != 0, jnp.abs(dx), jnp.abs(dy))
    rows, columns = state.table.height, state.table.width
    emptied = jnp.maximum(rows[giving] - step, 0)  # Python's slice [:-step] stops at empty
    state = rules.resize(state, giving, emptied, columns[giving], when=flows)
    state = rules.resize(state, taking, rows[taking] + step, columns[taking], 0, flows)
    return refresh_valves(state, flows)


# --- valves, and the goal ------------------------------------------------------------


def valve_sides(state, g: Axes, valve):
    """The tanks level with ``valve``'s head on its near and far side (masks)."""
    level = rules.tagged(state, TANK) & (g.tail == g.head[valve])
    near = level & (g.across + g.breadth == g.across[valve])
    far = level & (g.across == g.across[valve] + g.breadth[valve])
    return near, far


def is_open(state, g: Axes, valve) -> jax.Array:
    return jnp.all(jnp.stack([jnp.any(side) for side in valve_sides(state, g, valve)]))


def refresh_valves(state, when):
    """Every bracket taken out; each open valve painted orange and its bracket added
    again (in valve order), each closed one painted grey (the official ``jcy``)."""
    g = axes(state)
    valves = rules.tagged(state, VALVE)
    opened = valves & jax.vmap(lambda v: is_open(state, g, v))(jnp.arange(valves.shape[0]))
    state = rules.remove(state, rules.tagged(state, BRACKET), when)
    state = rules.recolour(state, opened, None, OPEN, when)
    state = rules.recolour(state, valves & ~opened, None, CLOSED, when)
    slots = state.memory["bracket_of"]
    slots = jnp.where(slots >= 0, slots, valves.shape[0])  # no bracket: dropped below
    brackets = jnp.zeros_like(valves).at[slots].max(opened, mode="drop")
    state = rules.set_visible(state, brackets, True, when)  # a fresh clone in the file
    return rules.add_again(state, brackets, when)


def start_swap(state, valve, when):
    """A click on an open valve: the queue of moves of its swap (the official ``teu``)."""
    g = axes(state)
    height, width = rules.drawn_size(state)
    x, y = state.table.x, state.table.y
    near, far = valve_sides(state, g, valve)
    near, far = first(near), first(far)
    on = riding(state, g)
    from_near, from_far = on[:, near], on[:, far]
    # Each float crosses to the other tank's centre, across the flow.
    other = jnp.where(from_near, far, near)
    sideways = state.memory["flow"][0] != 0
    target_x = jnp.where(sideways, x, x[other] + width[other] // 2 - width // 2)
    target_y = jnp.where(sideways, y[other] + height[other] // 2 - height // 2, y)
    # The riders in slot order, the near side's first: each one's place counted, not
    # sorted (XLA's CPU sort of a row a env cost vc33 more than its whole click).
    slots = jnp.arange(x.shape[0])
    from_far = from_far & ~from_near
    place = jnp.where(
        from_near,
        jnp.cumsum(from_near) - 1,
        jnp.where(from_far, jnp.sum(from_near) + jnp.cumsum(from_far) - 1, QUEUE),
    )
    floats = jnp.zeros(QUEUE - 2, slots.dtype).at[place].set(slots, mode="drop")
    crossing = jnp.sum(from_near | from_far)
    dx = state.memory["flow"][0]
    out_x = x[valve] - jnp.sign(dx) * width[valve]
    out_y = jnp.where(dx == 0, y[valve] - height[valve], y[valve])
    steps = jnp.arange(QUEUE)
    mover = jnp.where((steps >= 1) & (steps <= crossing), floats[jnp.clip(steps - 1, 0)], valve)
    goal_x = jnp.where(steps == 0, out_x, jnp.where(steps <= crossing, target_x[mover], x[valve]))
    goal_y = jnp.where(steps == 0, out_y, jnp.where(steps <= crossing, target_y[mover], y[valve]))
    queue = jnp.stack([mover, goal_x, goal_y], axis=1)
    started = {"queue": queue, "queue_length": crossing + 2, "queue_at": 0, "swapping": True}
    for name, value in started.items():
        state = rules.set_memory(state, name, value, when)
    return rules.set_visible(state, rules.tagged(state, BRACKET), False, when)


def swap_frame(state):
    """One frame of a swap, whatever the action: ``(state, done)``, the current mover a
    cell nearer its goal (along the axis it is furthest on), or there, handing over."""
    at = state.memory["queue_at"]
    mover, goal_x, goal_y = (state.memory["queue"][at, i] for i in range(3))
    off_x, off_y = goal_x - state.table.x[mover], goal_y - state.table.y[mover]
    arrived = (off_x == 0) & (off_y == 0)
    on_x = jnp.abs(off_x) >= jnp.abs(off_y)
    step_x, step_y = jnp.where(on_x, jnp.sign(off_x), 0), jnp.where(on_x, 0, jnp.sign(off_y))
    state = rules.move(state, mover, step_x, step_y, ~arrived)
    at = at + jnp.where(arrived, 1, 0)
    done = at == state.memory["queue_length"]
    state = rules.set_memory(state, "queue_at", at)
    state = rules.set_memory(state, "swapping", ~done)
    return refresh_valves(state, done), done


def floats_on_marks(state) -> jax.Array:
    """Every float stands at a mark of its colour whose pipe runs beside its tank."""
    g = axes(state)
    tank_of = jnp.argmax(riding(state, g), axis=1)  # the first tank it rides on
    pipe = state.memory["mark_pipe"]  # [mark]
    pipe_beside = beside(g)[jnp.clip(pipe, 0)][:, tank_of].T  # [float, mark]
    at_mark = g.along[:, None] == g.along[None, :]
    placed = state.memory["fits"] & at_mark & pipe_beside & (pipe >= 0)[None, :]
    return jnp.all(
        ~rules.tagged(state, FLOAT) | jnp.any(placed & rules.tagged(state, MARK)[None, :], axis=1)
    )


def click(state, action, game: Game):
    """The first frame of a click: ``(state, done)``; not done when a swap starts."""
    clicking = action.id == CLICK
    left = state.memory["moves_left"]
    state = rules.set_memory(state, "moves_left", jnp.maximum(left - 1, 0), clicking)
    x, y, on_view = rules.clicked_cell(state, action)
    hit = rules.sprite_at(state, x, y, game)
    tags = state.table.tags[jnp.clip(hit, 0)]
    hit_some = clicking & on_view & (hit >= 0)
    on_pump = hit_some & tags[PUMP]
    on_open_valve = hit_some & ~tags[PUMP] & tags[VALVE] & is_open(state, axes(state), hit)
    state = pump(state, hit, on_pump)
    return start_swap(state, hit, on_open_valve), ~on_open_valve


def _settled(state, done, game: Game):
    """After a frame (``done``: the action's last): the level won when every float
    stands on its mark, else the game lost when no move is left."""
    won = done & floats_on_marks(state)
    state = rules.next_level(state, len(game.levels), won)
    state = rules.lose(state, done & ~won & (state.memory["moves_left"] == 0))
    return rules.complete(state, done)


def rule(state, action, game: Game):
    """An action's first frame: a click (a swap comes after it: animate)."""
    return _settled(*click(state, action, game), game)


def animate(state, action, game: Game):
    """An action's later frames: a swap's."""
    return _settled(*swap_frame(state), game)


def ui(state, frame, game: Game):
    """The click budget: the top row, pink for the share left (Python's ``round``)."""
    left, full = state.memory["moves_left"], jnp.maximum(state.memory["moves"], 1)
    whole, rest = jnp.divmod(SCREEN * left, full)
    up = (2 * rest > full) | ((2 * rest == full) & (whole % 2 == 1))
    frame = rules.draw_rect(frame, 0, 0, SCREEN, 1, UNLIT)
    return rules.draw_rect(frame, 0, 0, whole + up.astype(whole.dtype), 1, LIT)


# A shortest winning run of each level, by breadth-first search over the tanks' surfaces
# and the floats' tanks (levels 1-4 and 6 also over this rule's own batched step, with
# the same lengths): letters name screen points (x, y) of the level's pumps and valves.
# fmt: off
POINTS = (
    ((60, 26), (60, 34)),
    ((0, 18), (0, 26), (0, 38), (0, 46)),
    ((12, 57), (16, 57), (28, 57), (24, 57), (38, 57), (34, 57), (50, 57), (46, 57)),
    ((27, 40), (12, 49), (16, 62), (58, 62), (10, 62), (52, 62), (46, 62), (40, 62)),
    ((34, 15), (31, 50), (46, 33), (62, 30), (62, 36), (62, 18), (62, 47), (62, 12), (62, 53)),
    ((36, 31), (12, 31), (1, 28), (1, 34), (25, 34), (25, 28)),
    ((22, 42), (40, 20), (40, 42), (24, 9), (20, 9), (24, 33),
     (20, 33), (42, 33), (38, 33), (42, 9), (38, 9)),
)
# fmt: on
RUNS = (
    "bbb",
    "bbddddd",
    "adadafdafdafdahhhhhhhhh",
    "ccffffffhhhbcccahhhhh",
    "eefefefefiibdddiicffffahhhhceeeggbdhhiiiiiii",
    "cfffbddeeeeeeaffffff",
    "ddddddddddfaeeeeeeeeeejbddddddddddiagicgggggjjjjj",
)
SOLUTIONS = tuple(
    tuple((CLICK, *points[ord(letter) - ord("a")]) for letter in run)
    for points, run in zip(POINTS, RUNS, strict=True)
)


# What moves during a level (tests/tools/moving_kinds.py); the rest is drawn once a level.
MOVING_KINDS = (
    "AEF BfR ChX HMp HPB HfU JHJ JYf KEA KLo Oqo PPS RmM SnP TKb Tif UWO Ubu VAJ WfE Xfy bUo "
    "cGJ cni dBq dkk egw fCG mZh nDF qAd rVy sro uUB uct wmR"
)

GAME = Game(
    **OFFICIAL.game_fields(),
    static_kinds=rules.kinds_but(OFFICIAL.kinds, MOVING_KINDS),
    levels=tuple(level_of(n) for n in range(len(OFFICIAL.levels))),
    rule=rule,
    animate=animate,
    num_slots=NUM_SLOTS,
    pixel_size=0,  # the moving sprites' (static ones are larger)
    reach=64,
    memory={
        "moves_left": Var(),
        "moves": Var(),
        "flow": Var("int32", (2,)),
        "bracket_of": Var("int32", (NUM_SLOTS,), -1),
        "fits": Var("bool", (NUM_SLOTS, NUM_SLOTS)),
        "pump_tanks": Var("int32", (NUM_SLOTS, 2), -1),
        "mark_pipe": Var("int32", (NUM_SLOTS,), -1),
        "queue": Var("int32", (QUEUE, 3)),
        "queue_length": Var(),
        "queue_at": Var(),
        "swapping": Var("bool"),
    },
    # A swap takes at most 97 frames (level 7: the click, 2 x 9 for the valve, up to
    # three floats crossing), and completing a level one more.
    max_frames=100,
    ui=ui,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
