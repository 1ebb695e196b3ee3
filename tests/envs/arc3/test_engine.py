"""The engine's sprites, camera and collisions against ARC Prize's engine (`arcengine`).

``tests/envs/arc3/arcengine/engine_cases.py`` asks arcengine about random sprites and cameras; its
answers for seed 0 are recorded in tests/fixtures/arc3/engine_cases.json, so these tests
need nothing installed. Where arcengine is (it needs Python 3.12+: ``make parity`` sets up
``.venv-arcengine``, or set ``GRIDAX_ARCENGINE_PYTHON``), fresh cases of another seed are
asked live as well.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs.arc3.engine import camera as cam
from gridax.envs.arc3.engine import collision, editing, painting
from gridax.envs.arc3.engine.game import sprite_from_json
from gridax.envs.arc3.engine.sprites import Sprite, build_table

ROOT = Path(__file__).resolve().parents[3]
RECORDED = ROOT / "tests" / "fixtures" / "arc3" / "engine_cases.json"
ASKER = Path(__file__).parent / "arcengine" / "engine_cases.py"
TAGS = ("a", "b")
SLOTS, PIXELS, REACH, MAX_DOWNSCALE = 10, 9, 24, 3


def arcengine_python() -> str:
    named = os.environ.get("GRIDAX_ARCENGINE_PYTHON")
    local = ROOT / ".venv-arcengine" / "bin" / "python"
    if named:
        return named
    if local.exists():
        return str(local)
    pytest.skip(
        "arcengine is not installed: `make parity` sets up .venv-arcengine with Python "
        "3.12 (or set GRIDAX_ARCENGINE_PYTHON to a Python that has arcengine)"
    )


def table_of(case: dict):
    sprites = [sprite_from_json(spec) for spec in case["sprites"]]
    return build_table(sprites, SLOTS, PIXELS, [s.kind for s in sprites], TAGS)


def camera_of(case: dict) -> cam.Camera:
    return cam.Camera(**case["camera"])


def hex_frame(rows) -> np.ndarray:
    return np.array([[int(c, 16) for c in row] for row in rows], np.int8)


@functools.partial(jax.jit, static_argnums=4)
@functools.partial(jax.vmap, in_axes=(0, 0, None, 0, None))
def _paint(table, camera, backdrop, level, runs):
    packed = painting.paint_view(table, camera, backdrop, level, cam.SCREEN, runs, MAX_DOWNSCALE)
    return cam.upscale(painting.colours_of(packed, camera.background), camera)


def painted_frames(tables, cameras, static=None, runs: int = 4096):
    """The frames of ``tables`` under ``cameras`` (stacked: a batch of cases) as the
    engine paints them: the slots ``static`` (a mask; none by default) drawn once into a
    static layer, the others from a list of ``runs`` runs of view cells (too short a
    list: every moving slot at every cell). One static layer per case, built as the levels of a game
    are, and one compiled painting for all. Every other case's static view is built for
    a camera one cell off, so that it is cut afresh, not picked (a camera that moved)."""
    static = np.zeros(tables.x.shape, bool) if static is None else np.asarray(static)
    corners = np.stack([np.asarray(cameras.x), np.asarray(cameras.y)], axis=1)
    corners[1::2, 0] += 1
    backdrop = painting.build_backdrop(tables, static, cam.SCREEN, MAX_DOWNSCALE, corners)
    return np.asarray(_paint(tables, cameras, backdrop, np.arange(len(static)), runs))


def stacked(trees):
    """Trees of one structure stacked leaf by leaf: a batch of cases."""
    return jax.tree.map(lambda *leaves: np.stack([np.asarray(leaf) for leaf in leaves]), *trees)


_collisions = jax.jit(lambda t, i: collision.collisions(t, i, REACH, MAX_DOWNSCALE))
AMONG = 4
_collisions_among = jax.jit(
    lambda t, i, among: collision.collisions(t, i, REACH, MAX_DOWNSCALE, among=among)
)
_try_move = jax.jit(lambda t, i, dx, dy: collision.try_move(t, i, dx, dy, REACH, MAX_DOWNSCALE))
_sprite_at = jax.jit(
    lambda t, x, y, tag, ignore: collision.sprite_at(t, x, y, tag, ignore, MAX_DOWNSCALE),
    static_argnums=(3, 4),
)
_to_world = jax.jit(cam.screen_to_world)
MERGE_PIXELS = 40  # the largest joint box of two random sprites is 38 cells wide
_merge = jax.jit(lambda t, a, b: editing.merge(t, a, b, MAX_DOWNSCALE))


def check_cases(cases: list, where: str) -> None:
    """Each case's frame (every sprite moving, listed cell by cell; a random half of
    them static; a list too short for the moving ones, each sampled at every cell),
    collisions, clicks, moves and merges against arcengine's answers."""
    tables, cameras = stacked(map(table_of, cases)), stacked(map(camera_of, cases))
    expected = np.stack([hex_frame(case["frame"]) for case in cases])
    static = np.stack(
        [np.random.default_rng(len(case["sprites"])).random(SLOTS) < 0.5 for case in cases]
    )
    for label, frames in (
        ("moving", painted_frames(tables, cameras)),
        ("half static", painted_frames(tables, cameras, static)),
        ("a short list", painted_frames(tables, cameras, static, runs=1)),
    ):
        for number, (frame, answer) in enumerate(zip(frames, expected, strict=True)):
            np.testing.assert_array_equal(
                frame, answer, err_msg=f"{where} {number}: frame, {label}"
            )
    for number, case in enumerate(cases):
        check_case(case, f"{where} {number}")


def check_case(case: dict, where: str) -> None:
    table, camera = table_of(case), camera_of(case)
    n = len(case["sprites"])
    # Four slots, in any order, -1 for none: a rule's own list of what to test against
    # (one length for every case: one compilation).
    among = np.random.default_rng(n).choice(np.arange(-1, n), AMONG)
    for i in range(n):
        got = np.asarray(_collisions(table, i))[:n]
        np.testing.assert_array_equal(got, case["collides"][i], err_msg=f"{where}: collides {i}")
        listed = np.asarray(_collisions_among(table, i, among))
        answer = np.where(among >= 0, np.asarray(case["collides"][i])[among], False)
        np.testing.assert_array_equal(listed, answer, err_msg=f"{where}: collides {i} among")
    for probe in case["sprite_at"]:
        tag = None if probe["tag"] is None else TAGS.index(probe["tag"])
        slot = _sprite_at(table, probe["x"], probe["y"], tag, probe["ignore_collidable"])
        assert int(slot) == probe["slot"], f"{where}: sprite_at {probe}"
    for move in case["moves"]:
        table, hit = _try_move(table, move["slot"], move["dx"], move["dy"])
        assert np.flatnonzero(np.asarray(hit)).tolist() == move["hit"], f"{where}: {move}"
        np.testing.assert_array_equal(table.x[:n], move["x"], err_msg=f"{where}: x after {move}")
        np.testing.assert_array_equal(table.y[:n], move["y"], err_msg=f"{where}: y after {move}")
    for click in case["display_to_grid"]:
        x, y, on_view = _to_world(camera, jnp.int32(click["x"]), jnp.int32(click["y"]))
        expected = click["cell"]
        assert bool(on_view) == (expected is not None), f"{where}: {click}"
        if expected is not None:
            assert [int(x), int(y)] == expected, f"{where}: {click}"
    check_merges(case, where)


def check_merges(case: dict, where: str) -> None:
    specs = [sprite_from_json(spec) for spec in case["sprites"]]
    table = build_table(specs, SLOTS, MERGE_PIXELS, [s.kind for s in specs], TAGS)
    for merge in case["merges"]:
        at = f"{where}: merge {merge['a']} <- {merge['b']}"
        merged = _merge(table, merge["a"], merge["b"])
        row = jax.tree.map(lambda column, a=merge["a"]: np.asarray(column)[a], merged)
        expected = np.asarray(merge["pixels"], np.int8)
        height, width = expected.shape
        assert (int(row.height), int(row.width)) == (height, width), at
        np.testing.assert_array_equal(row.pixels[:height, :width], expected, err_msg=at)
        assert (int(row.x), int(row.y), int(row.layer)) == (merge["x"], merge["y"], merge["layer"])
        assert int(row.blocking) == merge["blocking"], at
        assert (bool(row.visible), bool(row.collidable)) == (merge["visible"], merge["collidable"])
        assert [t for t, on in zip(TAGS, row.tags, strict=True) if on] == merge["tags"], at
        assert not merged.exists[merge["b"]] and int(row.order) > int(np.max(table.order)), at


def test_recorded_engine_cases():
    cases = json.loads(RECORDED.read_text())["cases"]
    assert len(cases) == 40 and sum(len(case["merges"]) for case in cases) > 200
    check_cases(cases, "recorded case")


def changed_copy(table, movable, rng):
    """``table`` with one or two of its ``movable`` slots changed the way rules change
    them: moved, a pixel repainted, hidden or shown, removed or restored, turned or
    mirrored, scaled, put on another layer or last in order."""
    names = ("x", "y", "visible", "exists", "layer", "order", "quarter_turns", "mirror_lr", "scale")
    columns = {name: np.array(getattr(table, name)) for name in names}
    pixels = np.array(table.pixels)
    sizes = (np.array(table.height), np.array(table.width))
    for _ in range(rng.integers(1, 3)):
        slot, change = rng.choice(np.flatnonzero(movable)), rng.integers(0, 8)
        if change == 0:
            columns["x"][slot] += rng.integers(-9, 10)
            columns["y"][slot] += rng.integers(-9, 10)
        elif change == 1:  # another colour, or transparent (17 values: -1 to 15)
            row, col = (rng.integers(0, max(int(size[slot]), 1)) for size in sizes)
            pixels[slot, row, col] = (pixels[slot, row, col] + 1 + rng.integers(1, 17)) % 17 - 1
        elif change in (2, 3):
            flag = ("visible", "exists")[change - 2]
            columns[flag][slot] = ~columns[flag][slot]
        elif change == 4:
            columns["quarter_turns"][slot] = (columns["quarter_turns"][slot] + 1) % 4
            columns["mirror_lr"][slot] = rng.random() < 0.5
        elif change == 5:
            columns["layer"][slot] += rng.integers(-1, 2)
        elif change == 6 and columns["scale"][slot] > 0:
            columns["scale"][slot] = rng.integers(1, 4)
        else:  # last in sprite order
            columns["order"][slot] = columns["order"].max() + 1
    names = (*columns, "pixels")
    return eqx.tree_at(
        lambda t: tuple(getattr(t, n) for n in names), table, (*columns.values(), pixels)
    )


def test_moving_sprites_painted_over_the_static_layer_equal_everything_painted_moving():
    """The recorded cases' sprites, half of them static, the rest changed at random
    (moved, repainted, hidden, removed, turned, scaled, layered, reordered): the frame
    painted over the static layer, from a list long enough and from one too short,
    equals the frame with every sprite moving (held against arcengine above)."""
    cases = json.loads(RECORDED.read_text())["cases"]
    rng = np.random.default_rng(0)
    changed, cameras, statics, labels = [], [], [], []
    for number, case in enumerate(cases):
        table = table_of(case)
        static = rng.random(table.x.shape) < 0.5
        if static.all():
            continue
        for turn in range(3):
            changed.append(changed_copy(table, ~static, rng))
            cameras.append(camera_of(case))
            statics.append(static)
            labels.append(f"case {number}, change {turn}")
    tables, cameras = stacked(changed), stacked(cameras)
    expected = painted_frames(tables, cameras)
    for runs in (4096, 2):
        frames = painted_frames(tables, cameras, np.stack(statics), runs)
        for label, frame, answer in zip(labels, frames, expected, strict=True):
            np.testing.assert_array_equal(frame, answer, err_msg=f"{label}, a list of {runs}")


def test_a_view_upscaled_by_repeats_equals_any_size_upscaled():
    """``camera.upscale`` with the camera's sizes known (repeats, a select among them)
    equals it for any size (one-hot products, held against arcengine above)."""
    rng = np.random.default_rng(0)
    sizes = ((64, 64), (32, 32), (20, 20), (7, 5), (39, 38), (1, 64))
    upscale = jax.jit(cam.upscale, static_argnums=2)
    for width, height in sizes:
        seen = jnp.asarray(rng.integers(0, 16, (64, 64)), jnp.int8)
        camera = cam.Camera(0, 0, width, height, 0, 3)
        np.testing.assert_array_equal(
            upscale(seen, camera, sizes), upscale(seen, camera, None), err_msg=str((width, height))
        )


def test_live_engine_cases(tmp_path):
    python = arcengine_python()
    result = subprocess.run(
        [python, str(ASKER), "--seed", "1", "--cases", "20"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    check_cases(json.loads(result.stdout)["cases"], "live case (seed 1)")


def test_sprite_declaration_errors_name_the_sprite_and_the_rule():
    with pytest.raises(ValueError, match="sprite 'wall': pixels must be colours 0-15, -1"):
        Sprite(((0, 16),), kind="wall")
    with pytest.raises(ValueError, match="sprite 'wall': rotation must be one of"):
        Sprite(((0,),), kind="wall", rotation=45)
    with pytest.raises(ValueError, match=r"scale -1 divides the size by 2, which must divide"):
        Sprite(((0, 1, 2),), kind="wall", scale=-1)
    with pytest.raises(ValueError, match="scale cannot be 0"):
        Sprite(((0,),), kind="wall", scale=0)


def test_floor_divide_is_integer_floor_division_on_its_domain():
    """The renderer divides in float32 (XLA's integer division is not vectorised on
    CPU): every quotient of |a| < 2**20 by 1 <= b <= 128 the engine meets is exact; the
    whole domain's corners and a dense sample are checked here."""
    from gridax.envs.arc3.engine.sprites import floor_divide

    edge = 2**20 - 1
    a = np.concatenate([np.arange(-5000, 70000), np.arange(edge - 70000, edge + 1), [-edge]])
    for b in (1, 2, 3, 4, 5, 7, 16, 33, 64, 127, 128):
        np.testing.assert_array_equal(floor_divide(a, b), a // b, err_msg=f"b={b}")
