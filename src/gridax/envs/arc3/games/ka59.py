"""ka59, ARC Prize's public ARC-AGI-3 game (version 9f096b4a), as JAX rules.

Blocks (3 or 6 cells a side, framed in colour 14) lie in a walled yard with gulches in
it, beside stones (nine-cell crosses and smaller) and bombs. One block is selected (its
centre drawn 0; the others' 4 once they have been selected, 5 before). The level is
won when every block frame (``rktpmjcpkt``) holds a block exactly inside its border,
and every stone frame (``ucjzrlvfkb``) a stone. Each level allows as many actions as
its step counter (a bar along the bottom row: ``round(64 * left / counter)`` pixels of
colour 4 from the left, the rest 0); the action that spends the last loses.

- **ACTION1-4** move the selected block 3 cells, unless it would then touch a wall or
  a gulch. Where it would touch blocks, stones or bombs instead, it stays and *shoves*
  them: each slides 3 cells a frame, pushing what it meets in turn, until a wall stops
  it, or, after 5 frames, as soon as it is off every gulch. A black line (a sprite of
  its own, layer 0) marks the shoving side of the block while the shove lasts.
- **ACTION6** on a block selects it.
- Bombs count down: each move (not a shove; a shove when it ends) paints the first row
  of each bomb that is not yet colour 12 in 12; a bomb whose last row is painted
  explodes: for 3 frames a blast grows from it (catalogue ``explode-<size>-<n>``,
  turned away from the bomb's face) and shoves what it touches 3 cells the bomb's way;
  then the bomb turns all 13 (to count down again) and everything ever shoved that
  lies on a gulch slides on, a frame at a time, until none moves.
- After every action, each block's frame is painted 14 and each side of the selected
  block that touches another block, stone or bomb is painted 0.

The original's structures are memory: the selected block (``selected``), the shoved
sprites (``shoving``, in sprite order) and each sprite's last shove (``heading``,
``shoved``), the exploding bombs (``exploding``), the animation's frame count
(``frame``) and the steps left (``steps``). The levels hold two sprites the original
makes during play: the shoving line (``collider``) and each bomb's three blasts.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.games.ka59_levels import (
    BLAST_FRAMES,
    BLOCK,
    BLOCK_FRAME,
    BOMB,
    COLLIDER,
    DATA,
    DESELECTED,
    FRAMED,
    FRESH,
    GULCH,
    HEADINGS,
    KINDS,
    LEVELS,
    MAX_BOMBS,
    MAX_PUSHABLE,
    MAX_TARGETS,
    NUM_SLOTS,
    PIXELS,
    SELECTED,
    SLIDE_FRAMES,
    SOLUTIONS,
    STEP,
    STONE,
    STONE_FRAME,
    TAGS,
    WALL,
    WALL_CELLS,
    kinds_tagged,
)
from gridax.envs.arc3.games.ka59_painting import (
    edges,
    frame_blocks,
    grid_masks,
    mark,
    tag,
    tick_bombs,
)
from gridax.envs.arc3.games.ka59_shoves import (
    meets,
    on_gulch,
    remember_heading,
    shove_where,
    shoves_into,
    touches,
)
from gridax.envs.arc3.rules import Game, Var


def _select(state, slot, when=True):
    """Block ``slot`` selected: the one selected before marked 4, this one 0."""
    state = mark(state, state.memory["selected"], DESELECTED, when)
    state = mark(state, slot, SELECTED, when)
    return rules.set_memory(state, "selected", slot, when)


def _after_moves(state):
    """The bombs' count after a move or a shove: exploding ones start their blasts."""
    state, exploded = tick_bombs(state)
    state = rules.set_memory(state, "exploding", exploded)
    return rules.set_memory(state, "frame", 0), jnp.any(exploded)


# --- an action's end ------------------------------------------------------------------


def _solved(state):
    """Every target frame holds a block (or a stone) exactly inside its border."""
    m = state.memory
    table = state.table
    height, width = rules.drawn_size(state)
    targets = jnp.maximum(m["targets"], 0)
    inside = (
        (table.x[None, :] == table.x[targets][:, None] + 1)
        & (table.y[None, :] == table.y[targets][:, None] + 1)
        & (height[None, :] == height[targets][:, None] - 2)
        & (width[None, :] == width[targets][:, None] - 2)
    )
    kind = jnp.where(
        m["targets_hold_blocks"][:, None],
        rules.tagged(state, tag(BLOCK))[None, :],
        rules.tagged(state, tag(STONE))[None, :],
    )
    held = jnp.any(inside & kind, axis=1)
    return jnp.all(held | (m["targets"] < 0))


def _end_action(state, game: Game):
    """Every action's end: the blocks framed, the level won or the last step lost."""
    state = frame_blocks(state)
    solved = _solved(state)
    state = rules.next_level(state, len(game.levels), solved)
    state = rules.lose(state, ~solved & (state.memory["steps"] == 0))
    return rules.complete(state)


# --- the first frame of an action -----------------------------------------------------


def _collider_grid(side, height, width):
    """The shoving line's pixels: 0 along ``side`` (0-3: top, bottom, left, right) of a
    block of ``height x width`` cells, one cell out, in a grid from its corner less one:
    that edge of the grid around the block, without the corners."""
    around = edges(height + 2, width + 2)
    corners = (around[0] | around[1]) & (around[2] | around[3])
    return jnp.where(around[side] & ~corners, jnp.int8(0), jnp.int8(rules.TRANSPARENT))


def _start_shove(state, touching, heading, side, when):
    """The shove of the sprites ``touching`` (``[MAX_PUSHABLE]``) begins: the line on
    the selected block's ``side`` added, that side of its frame painted 14."""
    m = state.memory
    table = state.table
    a, collider = m["selected"], m["collider"]
    height, width = table.height[a], table.width[a]
    state = rules.set_memory(state, "shoving", touching, when)
    state = rules.set_memory(state, "frame", 0, when)
    state = remember_heading(state, rules.mask_of(state, m["shovable"], touching), heading, when)
    state = rules.repaint(state, collider, _collider_grid(side, height, width), when)
    state = rules.place(state, collider, table.x[a] - 1, table.y[a] - 1, when)
    state = rules.add_again(state, collider, when)
    grid = state.table.pixels[a]
    edge = edges(height, width)[side]
    return rules.repaint(state, a, jnp.where(edge, jnp.int8(FRAMED), grid), when)


# ACTION1-4's side of the block that shoves: up, down, left, right.
SIDES = np.array([0, 0, 1, 2, 3, 0, 0, 0], np.int32)


def rule(state, action, game: Game):
    """An action's first frame (no animation is running when an action starts)."""
    m = state.memory
    acting = jnp.isin(action.id, jnp.asarray(game.available_actions))
    state = rules.set_memory(state, "steps", jnp.maximum(m["steps"] - 1, 0), acting)
    arrow = (action.id >= rules.ACTION1) & (action.id <= rules.ACTION4)
    heading = STEP * rules.arrow_step(action)
    a = m["selected"]
    moved = rules.move(state, a, heading[0], heading[1])
    barred = meets(moved, a, WALL_CELLS) | on_gulch(moved, a)
    touching = shoves_into(moved, a, m["shovable"]) & ~barred
    shoving = arrow & jnp.any(touching)
    state = rules.where(arrow & ~barred & ~shoving, moved, state)
    state = _start_shove(state, touching, heading, jnp.asarray(SIDES)[action.id], shoving)
    ticked, exploding = _after_moves(state)
    state = rules.where(arrow & ~shoving, ticked, state)
    x, y, on_view = rules.clicked_cell(state, action)
    hit = rules.sprite_at(state, x, y, game, tag(BLOCK))
    state = _select(state, hit, (action.id == rules.CLICK) & on_view & (hit >= 0))
    waiting = shoving | (arrow & exploding)
    return rules.where(waiting, state, _end_action(state, game))


# --- the frames after it: shoves and explosions ---------------------------------------


def _slide(state, game: Game):
    """A shove's slides of one frame: each shoved sprite in turn slides on, unless it has
    settled (``SLIDE_FRAMES`` on, off every gulch) or is stopped. ``(state, settled)``:
    whether all have."""
    m = state.memory
    # Only the sprites being shoved (one, mostly) are gone through, in sprite order.
    shoving = jnp.nonzero(m["shoving"], size=MAX_PUSHABLE, fill_value=0)[0]
    count = jnp.sum(m["shoving"], dtype=jnp.int32)

    def one(i, carry, shoving, count):
        state, settled_all = carry
        slot = state.memory["shovable"][shoving[i]]
        settled = (state.memory["frame"] >= SLIDE_FRAMES) & ~on_gulch(state, slot)
        heading = state.memory["heading"][slot]
        go = (i < count) & ~settled
        state, stopped = shove_where(state, slot, heading, game, go)
        return state, settled_all & ((i >= count) | settled | stopped)

    return rules.repeat(count, one, (state, jnp.bool_(True)), shoving, count)


def _end_shove(state, game: Game):
    """The shove's last frame: the line goes, the bombs count; the action ends unless one
    explodes."""
    state = rules.remove(state, state.memory["collider"])
    state = rules.set_memory(state, "shoving", False)
    state, exploding = _after_moves(state)
    return rules.where(exploding, state, _end_action(state, game)), exploding


def _shove_frame(state, game: Game):
    """A frame of a shove: the slides, the blocks framed again; when all have settled,
    its end."""
    state, settled = _slide(state, game)
    going = rules.set_memory(state, "frame", state.memory["frame"] + 1)
    going = rules.complete(frame_blocks(going), False)
    return rules.where(settled, _end_shove(state, game)[0], going)


def _shoved(state, game: Game):
    """A shove's later frames in one call (``Game.finish``): the slides frame by frame,
    the blocks framed once at the end (each frame frames them afresh from where they
    lie). A shove that ends in an explosion, or runs past ``Game.max_frames``, is left
    to the frame loop."""

    def sliding(carry):
        _, settled, frames = carry
        return ~settled & (frames < game.max_frames)

    def one(carry):
        state, _, frames = carry
        state, settled = _slide(state, game)
        state = rules.set_memory(state, "frame", state.memory["frame"] + jnp.where(settled, 0, 1))
        return state, settled, frames + 1

    slid, settled, frames = jax.lax.while_loop(sliding, one, (state, False, state.frame))
    ended, exploding = _end_shove(slid, game)
    return rules.where(settled & ~exploding, rules.at_frame(ended, frames), state)


def finish(state, action, game: Game):
    """``Game.finish``: a shove in one call (:func:`_shoved`), run on the envs that
    shove."""
    shoving = ~state.complete & jnp.any(state.memory["shoving"])
    return rules.rarely(shoving, functools.partial(_shoved, game=game), state)


def _blast_frame(state, game: Game):
    """Frames 1-3 of an explosion: each exploding bomb's next blast added, shoving every
    stone, bomb and block it touches the bomb's way."""
    m = state.memory
    frame = m["frame"]
    by_kind = m["by_kind"]

    def one_bomb(j, state):
        bomb = jnp.maximum(m["bombs"][j], 0)
        blast = m["blasts"][j, jnp.minimum(frame, BLAST_FRAMES - 1)]
        exploding = m["exploding"][j]
        table = state.table
        turn = table.quarter_turns[bomb]
        out = STEP * (frame + 1)
        state = rules.place(state, blast, table.x[bomb] - out, table.y[bomb] - out, exploding)
        state = rules.set_rotation(state, blast, ((turn + 2) % 4) * 90, exploding)
        state = rules.add_again(state, blast, exploding)
        heading = jnp.asarray(HEADINGS)[turn]

        def one_sprite(i, state):
            slot = jnp.maximum(by_kind[i], 0)
            hit = exploding & (by_kind[i] >= 0) & touches(state, slot, blast[None], game)
            state, _ = shove_where(state, slot, heading, game, hit)
            return remember_heading(state, rules.mask_of(state, slot), heading, hit)

        return jax.lax.fori_loop(0, by_kind.shape[0], one_sprite, state)

    state = jax.lax.fori_loop(0, m["bombs"].shape[0], one_bomb, state)
    state = frame_blocks(state)
    state = rules.set_memory(state, "frame", frame + 1)
    return rules.complete(state, False)


def _settle_frame(state, game: Game):
    """An explosion's frames after its blasts: the blasts go, the exploded bombs turn
    all 13, and every sprite ever shoved that lies on a gulch slides on its way; when
    none moves, the action ends."""
    m = state.memory
    blasts = rules.mask_of(state, m["blasts"])
    state = rules.remove(state, blasts)
    exploded = rules.mask_of(state, m["bombs"], m["exploding"])
    _, _, inside = grid_masks(state)
    fresh = jnp.where(inside & exploded[:, None, None], jnp.int8(FRESH), state.table.pixels)
    state = rules.repaint(state, exploded, fresh)
    by_kind = m["by_kind"]

    def one(i, carry):
        state, slid = carry
        slot = jnp.maximum(by_kind[i], 0)
        go = (by_kind[i] >= 0) & state.memory["shoved"][slot] & on_gulch(state, slot)
        state, stopped = shove_where(state, slot, state.memory["heading"][slot], game, go)
        return state, slid | (go & ~stopped)

    state, slid = jax.lax.fori_loop(0, by_kind.shape[0], one, (state, jnp.bool_(False)))
    ended = _end_action(rules.set_memory(state, "exploding", False), game)
    return rules.where(slid, rules.complete(state, False), ended)


def animate(state, action, game: Game):
    """The frames after an action's first: a shove's, or an explosion's (rarer: run on
    the envs in one only)."""
    m = state.memory
    shoving = jnp.any(m["shoving"])
    blasting = ~shoving & (m["frame"] < BLAST_FRAMES)
    state = rules.when_any(shoving, functools.partial(_shove_frame, game=game), state)
    state = rules.rarely(blasting, functools.partial(_blast_frame, game=game), state)
    settling = ~shoving & ~blasting
    return rules.rarely(settling, functools.partial(_settle_frame, game=game), state)


def on_set_level(state, game: Game):
    """The sprites the original makes during play taken out; the first block selected
    and every block framed."""
    m = state.memory
    reserved = rules.mask_of(state, m["blasts"]) | rules.mask_of(state, m["collider"])
    state = rules.remove(state, reserved)
    state = mark(state, m["first_block"], SELECTED)
    state = rules.set_memory(state, "selected", m["first_block"])
    return frame_blocks(state)


def ui(state, frame, game: Game):
    """The steps left: ``round(64 * left / counter)`` pixels of colour 4 along the bottom
    row from the left, the rest 0."""
    m = state.memory
    left = rules.rounded_share(m["steps"], m["budget"], rules.SCREEN)
    frame = rules.draw_rect(frame, 0, rules.SCREEN - 1, rules.SCREEN, 1, 0)
    return rules.draw_rect(frame, 0, rules.SCREEN - 1, left, 1, 4)


GAME = Game(
    **{**DATA.game_fields(), "kinds": KINDS, "tags": (*TAGS, "Collider")},
    static_kinds=kinds_tagged(WALL, GULCH, BLOCK_FRAME, STONE_FRAME),
    repainted_kinds=(*kinds_tagged(BLOCK, BOMB), COLLIDER),
    levels=LEVELS,
    rule=rule,
    animate=animate,
    finish=finish,
    num_slots=NUM_SLOTS,
    pixel_size=PIXELS,
    # The blocks, stones, bombs and line in view take at most 39 runs in the bench's play
    # from every level (tests/tools/moving_runs.py); the blasts' large boxes, drawn in
    # three frames an explosion and never in its last, are drawn the slow way.
    moving_runs=64,
    reach=72,  # the largest sprite (a gulch); collisions pass their own size
    memory={
        "steps": Var(),
        "budget": Var(value=1),
        "first_block": Var(),
        "selected": Var(),
        "collider": Var(),
        "shovable": Var(shape=(MAX_PUSHABLE,), value=-1),
        "by_kind": Var(shape=(MAX_PUSHABLE,), value=-1),
        "bombs": Var(shape=(MAX_BOMBS,), value=-1),
        "blasts": Var(shape=(MAX_BOMBS, BLAST_FRAMES), value=-1),
        "targets": Var(shape=(MAX_TARGETS,), value=-1),
        "targets_hold_blocks": Var("bool", (MAX_TARGETS,)),
        "shoving": Var("bool", (MAX_PUSHABLE,)),
        "heading": Var(shape=(NUM_SLOTS, 2)),
        "shoved": Var("bool", (NUM_SLOTS,)),
        "exploding": Var("bool", (MAX_BOMBS,)),
        "frame": Var(),
    },
    max_frames=64,
    ui=ui,
    on_set_level=on_set_level,
    solutions=SOLUTIONS,
)
