"""su15's vacuum: the frames after a click, as the original's lists change on them
(``games/su15.py`` describes the game): the captured fruits and enemies pulled toward
the click, knocked fruits shaking and flying, the enemies' chase and knocks, and the
merges of overlapping fruits and enemies (or a bad merge's flash). Each function takes
and returns the game's memory (a dict) of one env."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gridax.envs.arc3.games import su15_levels as lv
from gridax.envs.arc3.games import su15_lists as ls
from gridax.envs.arc3.games.su15_lists import E, F

NONE, VACUUM, FLASH, WIN = range(4)  # what the frames of an action are doing
SHAKE = (0, -1, 0, 1)  # a knocked fruit's rows off its place, frame by frame
KNOCK_REST = 2 * lv.FLIGHT_FRAMES + 1  # frames an enemy rests after a knock
MAX_FRUIT_INDEX = len(lv.FRUITS) - 1


def tables():
    return (
        jnp.asarray(lv.FLIGHT, jnp.int32),
        jnp.asarray(lv.GLIDE, jnp.int32),
        jnp.asarray(lv.RING_CELLS),
    )


# --- the vacuum ---------------------------------------------------------------------------


def in_flight(m):
    """A knocked fruit (not one that goes) is in its flight."""
    count = m["f_count"]
    return jnp.any(m["f_knock"] & ~m["f_doom"] & (count >= 4) & (count < 4 + lv.FLIGHT_FRAMES))


def _pulled(m, prefix, moving):
    """Entries ``moving`` stepped toward the click by their centres, at most PULL cells
    an axis, and clamped."""
    cx, cy = ls.centres(m, prefix)
    step_x = jnp.clip(m["click_x"] - cx, -lv.PULL, lv.PULL)
    step_y = jnp.clip(m["click_y"] - cy, -lv.PULL, lv.PULL)
    x, y, w, h = ls.boxes(m, prefix)
    nx, ny = ls.clamped(x + step_x, y + step_y, w, h)
    return jnp.where(moving, nx, x), jnp.where(moving, ny, y)


def _capture_moves(m):
    """The captured fruits and enemies moved a frame toward the click."""
    m = dict(m)
    fruits = m["f_sel"] & ~m["f_knock"] & ls.live(m, "f")
    m["f_x"], m["f_y"] = _pulled(m, "f", fruits)
    enemies = m["e_cap"] & ls.live(m, "e") & ~in_flight(m)
    x, y = _pulled(m, "e", enemies & ~m["e_glide"])
    _, glide, _ = tables()
    a, b = m["e_da"] + lv.SPAN, m["e_db"] + lv.SPAN
    gx = m["e_x"] + glide[a, b, m["e_x"] % 2]
    gy = m["e_y"] + glide[b, a, m["e_y"] % 2]
    gx, gy = ls.clamped(gx, gy, lv.ENEMY_WIDTH, lv.ENEMY_HEIGHT)
    gliding = enemies & m["e_glide"]
    m["e_x"], m["e_y"] = jnp.where(gliding, gx, x), jnp.where(gliding, gy, y)
    return m


def _knocked_frame(m):
    """A frame of every knocked fruit: shaking, then shrunk and flying; those done are
    let go, and those of size 0 removed."""
    m = dict(m)
    knocked, count = m["f_knock"], m["f_count"]
    flying = knocked & (count >= 4)
    shrinking = flying & (m["f_shrink"] >= 0)
    m["f_size"] = jnp.where(shrinking, m["f_shrink"], m["f_size"])
    m["f_shrink"] = jnp.where(shrinking, -1, m["f_shrink"])
    flight, _, _ = tables()
    a, b = m["f_da"] + lv.SPAN, m["f_db"] + lv.SPAN
    k = jnp.clip(count - 4, 0, lv.FLIGHT_FRAMES - 1)
    ox, oy = m["f_ox"], m["f_oy"]
    fx = ox + flight[a, b, k, ox % 2]
    fy = oy + flight[b, a, k, oy % 2]
    shake = jnp.asarray(SHAKE)[count % 4]
    x, y = jnp.where(flying, fx, ox), jnp.where(flying, fy, oy + shake)
    size = ls.fruit_size(m)
    x, y = ls.clamped(x, y, size, size)
    m["f_x"], m["f_y"] = jnp.where(knocked, x, m["f_x"]), jnp.where(knocked, y, m["f_y"])
    count = jnp.where(knocked, count + 1, count)
    done = knocked & (count >= jnp.where(m["f_doom"], 4, 4 + lv.FLIGHT_FRAMES))
    m["f_count"] = jnp.where(done, 0, count)
    m["f_knock"] = knocked & ~done
    m["f_shrink"] = jnp.where(done, -1, m["f_shrink"])
    gone = done & m["f_doom"]
    m["f_doom"] = m["f_doom"] & ~done
    return ls.rebuild(m, "f", ~gone, {}, jnp.zeros(F, bool))


def _chase(m):
    """Free enemies step toward the nearest fruit not knocked; then each, in list order,
    knocks every such fruit it touches."""
    m = dict(m)
    free = ls.live(m, "e") & ~m["e_cap"] & (m["e_cool"] == 0)
    targets = ls.live(m, "f") & ~m["f_knock"]
    ex, ey = ls.centres(m, "e")
    fx, fy = ls.centres(m, "f")
    far = (fx[None, :] - ex[:, None]) ** 2 + (fy[None, :] - ey[:, None]) ** 2
    nearest = jnp.argmin(jnp.where(targets[None, :], far, jnp.iinfo(jnp.int32).max), axis=1)
    speed = jnp.where(m["e_kind"] == 2, 2, 1)
    step_x = jnp.sign(fx[nearest] - ex) * speed
    step_y = jnp.sign(fy[nearest] - ey) * speed
    x, y = ls.clamped(m["e_x"] + step_x, m["e_y"] + step_y, lv.ENEMY_WIDTH, lv.ENEMY_HEIGHT)
    chasing = free & jnp.any(targets)
    m["e_x"], m["e_y"] = jnp.where(chasing, x, m["e_x"]), jnp.where(chasing, y, m["e_y"])
    return _knocks(m, free)


def _knocks(m, free):
    """Each free enemy, in list order, knocks every fruit not yet knocked it touches."""
    m = dict(m)
    ex, ey = ls.centres(m, "e")
    fx, fy = ls.centres(m, "f")
    touching = ls.meeting(ls.boxes(m, "e"), ls.boxes(m, "f"))
    for e in range(E):
        hit = free[e] & touching[e] & ls.live(m, "f") & ~m["f_knock"]
        da, db = fx - ex[e], fy - ey[e]
        still = (da == 0) & (db == 0)  # no way to fly: straight up
        size = m["f_size"]
        fields = {
            "f_knock": True,
            "f_count": 0,
            "f_ox": m["f_x"],
            "f_oy": m["f_y"],
            "f_da": da,
            "f_db": jnp.where(still, -1, db),
            "f_shrink": jnp.where(size > 0, size - 1, -1),
            "f_doom": size <= 0,
        }
        for name, value in fields.items():
            m[name] = jnp.where(hit, jnp.asarray(value, m[name].dtype), m[name])
        m["e_cool"] = m["e_cool"].at[e].set(jnp.where(jnp.any(hit), KNOCK_REST, m["e_cool"][e]))
    return m


def _enemy_turn(m):
    """The original's enemy frame: knocked fruits moved, cooldowns ticked; while the ring
    shrinks and no knocked fruit flies, the chase, the knocks and the enemies' merge."""
    flying = in_flight(m)
    m = jax.tree.map(
        lambda a, b: jnp.where(jnp.any(m["f_knock"]), a, b), _knocked_frame(m), dict(m)
    )
    m["e_cool"] = jnp.maximum(m["e_cool"] - 1, 0)
    acting = (m["vac"] < lv.VACUUM_FRAMES) & (m["e_n"] > 0) & (m["f_n"] > 0) & ~flying
    acted = merge(_chase(m), "e")
    return jax.tree.map(lambda a, b: jnp.where(acting, a, b), acted, m)


def merge(m, prefix):
    """Overlapping entries merged, group by group (the enemies all, the fruits those
    captured): into one of the next size or kind at the group's mean centre, or gone
    after the last; a pair of two sizes or kinds starts the flash instead."""
    kind_name = "f_size" if prefix == "f" else "e_kind"
    chosen = ls.live(m, prefix) & (m["f_sel"] if prefix == "f" else True)
    clash, pair, root, members = ls.groups(ls.overlaps(m, prefix), m[kind_name], chosen)
    count, sum_x, sum_y = ls.merged_centres(m, prefix, root, members)
    kinds = m[kind_name]
    last = MAX_FRUIT_INDEX if prefix == "f" else len(lv.ENEMIES) - 1
    roots = members & (root == jnp.arange(root.shape[0]))
    adding = roots & (kinds < last)
    grown = kinds + 1
    if prefix == "f":
        width = height = jnp.asarray(lv.FRUIT_SIZE)[jnp.minimum(grown, last)]
    else:
        width, height = lv.ENEMY_WIDTH, lv.ENEMY_HEIGHT
    count = jnp.maximum(count, 1)
    x, y = ls.clamped(sum_x // count - width // 2, sum_y // count - height // 2, width, height)
    new = {kind_name: grown, f"{prefix}_x": x, f"{prefix}_y": y}
    if prefix == "f":
        new["f_layer"] = jnp.asarray(lv.FRUIT_LAYER)[jnp.minimum(grown, last)]
    else:
        new["e_cool"] = lv.VACUUM_FRAMES
    merged = ls.rebuild(m, prefix, ~members, new, adding)
    flashed = _start_flash(m, prefix, pair)
    return jax.tree.map(lambda a, b: jnp.where(clash, a, b), flashed, merged)


def _start_flash(m, prefix, pair):
    """The bad merge's pair (entries ``pair`` of list ``prefix``) flashing, black first."""
    m = dict(m)
    flag = f"{prefix}_flash"
    m[flag] = jnp.zeros_like(m[flag]).at[pair].set(True)
    m["flash_n"] = jnp.zeros_like(m["flash_n"])
    m["flash_black"] = jnp.ones_like(m["flash_black"])
    m["mode"] = jnp.full_like(m["mode"], FLASH)
    return m


def vacuum_frame(m):
    """A frame of the vacuum after the click's: ``(memory, animating)``."""
    m = _enemy_turn(_capture_moves(m))
    flashed = m["mode"] == FLASH
    m["vac"] = jnp.where(flashed, m["vac"], m["vac"] + 1)
    animating = flashed | (m["vac"] < lv.VACUUM_FRAMES) | jnp.any(m["f_knock"])
    return m, animating
