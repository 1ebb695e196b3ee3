"""The engine's sprites, camera and collisions against ARC Prize's engine (`arcengine`).

``tests/envs/arc3/arcengine/engine_cases.py`` asks arcengine about random sprites and cameras; its
answers for seed 0 are recorded in tests/fixtures/arc3/engine_cases.json, so these tests
need nothing installed. Where arcengine is (it needs Python 3.12+: ``make parity`` sets up
``.venv-arcengine``, or set ``GRIDAX_ARCENGINE_PYTHON``), fresh cases of another seed are
asked live as well.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs.arc3 import camera as cam
from gridax.envs.arc3 import collision, sprites
from gridax.envs.arc3.game import sprite_from_json
from gridax.envs.arc3.sprites import Sprite, build_table

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


_frame = jax.jit(lambda t, c: cam.frame(t, c, MAX_DOWNSCALE))
_collisions = jax.jit(lambda t, i: collision.collisions(t, i, REACH, MAX_DOWNSCALE))
_try_move = jax.jit(lambda t, i, dx, dy: collision.try_move(t, i, dx, dy, REACH, MAX_DOWNSCALE))
_changed_cells = jax.jit(
    lambda old, new, c: cam.changed_cells(cam.changed_boxes(old, new), c, 1024)
)
_redraw_cells = jax.jit(
    lambda canvas, t, c, rows, cols, valid: cam.redraw_cells(
        canvas, t, c, rows, cols, valid, MAX_DOWNSCALE
    )
)
_sprite_at = jax.jit(
    lambda t, x, y, tag, ignore: collision.sprite_at(t, x, y, tag, ignore, MAX_DOWNSCALE),
    static_argnums=(3, 4),
)
_to_world = jax.jit(cam.screen_to_world)
MERGE_PIXELS = 40  # the largest joint box of two random sprites is 38 cells wide
_merge = jax.jit(lambda t, a, b: sprites.merge(t, a, b, MAX_DOWNSCALE))


def check_case(case: dict, where: str) -> None:
    table, camera = table_of(case), camera_of(case)
    n = len(case["sprites"])
    np.testing.assert_array_equal(
        _frame(table, camera), hex_frame(case["frame"]), err_msg=f"{where}: frame"
    )
    for i in range(n):
        got = np.asarray(_collisions(table, i))[:n]
        np.testing.assert_array_equal(got, case["collides"][i], err_msg=f"{where}: collides {i}")
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
    for number, case in enumerate(cases):
        check_case(case, f"recorded case {number}")


WINDOW = 6
_redraw = jax.jit(
    lambda canvas, t, c, origin: cam.redraw(canvas, t, c, origin, WINDOW, MAX_DOWNSCALE)
)
_changed_area = jax.jit(lambda old, new, c: cam.changed_area(cam.changed_boxes(old, new), c))


def changed_copy(table, rng):
    """``table`` with one or two of its slots changed the way rules change them: moved,
    a pixel repainted, hidden or shown, removed or restored, turned or mirrored, put on
    another layer or last in order."""
    names = ("x", "y", "visible", "exists", "layer", "order", "quarter_turns", "mirror_lr")
    columns = {name: np.array(getattr(table, name)) for name in names}
    pixels = np.array(table.pixels)
    sizes = (np.array(table.height), np.array(table.width))
    for _ in range(rng.integers(1, 3)):
        slot, change = rng.integers(0, table.x.shape[0]), rng.integers(0, 7)
        if change == 0:
            columns["x"][slot] += rng.integers(-2, 3)
            columns["y"][slot] += rng.integers(-2, 3)
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
        else:  # last in sprite order
            columns["order"][slot] = columns["order"].max() + 1
    names = (*columns, "pixels")
    return eqx.tree_at(
        lambda t: tuple(getattr(t, n) for n in names), table, (*columns.values(), pixels)
    )


def test_a_frame_redrawn_where_sprites_changed_equals_the_whole_frame():
    """``camera.redraw`` of the area ``changed_area`` names, on the old frame, is the
    new frame, for random changes of the recorded cases' sprites (transforms, scales,
    downscales, layers) under their cameras."""
    cases = json.loads(RECORDED.read_text())["cases"]
    rng = np.random.default_rng(0)
    checked = 0
    for number, case in enumerate(cases):
        table, camera = table_of(case), camera_of(case)
        before = _frame(table, camera)
        for _ in range(4):
            changed = changed_copy(table, rng)
            x0, y0, x1, y1 = (int(v) for v in _changed_area(table, changed, camera))
            if x1 - x0 > WINDOW or y1 - y0 > WINDOW:
                continue
            checked += 1
            np.testing.assert_array_equal(
                _redraw(before, changed, camera, (x0, y0)),
                _frame(changed, camera),
                err_msg=f"case {number}: area {(x0, y0, x1, y1)}",
            )
    assert checked > 60


def test_the_cells_of_the_changed_boxes_redrawn_equal_the_whole_frame():
    """``camera.redraw_cells`` of the cells ``changed_cells`` lists, on the old frame, is
    the new frame, for the random changes of the cases viewed one pixel a cell, whatever
    the joint box of the changes; a list too short says it does not fit."""
    cases = json.loads(RECORDED.read_text())["cases"]
    rng = np.random.default_rng(1)
    checked = 0
    for number, case in enumerate(cases):
        table, camera = table_of(case), camera_of(case)
        if int(cam.scale_and_offset(camera)[0]) != 1:
            continue
        before = _frame(table, camera)
        for _ in range(4):
            changed = changed_copy(table, rng)
            rows, cols, valid, fits = _changed_cells(table, changed, camera)
            if not bool(fits):
                continue
            checked += 1
            np.testing.assert_array_equal(
                _redraw_cells(before, changed, camera, rows, cols, valid),
                _frame(changed, camera),
                err_msg=f"case {number}",
            )
    assert checked > 20
    # Every sprite of a case moved: more cells than a short list holds.
    one_to_one = [c for c in cases if int(cam.scale_and_offset(camera_of(c))[0]) == 1]
    table, camera = table_of(one_to_one[0]), camera_of(one_to_one[0])
    moved = eqx.tree_at(lambda t: t.x, table, table.x + 3)
    assert bool(_changed_cells(table, moved, camera)[2][1])  # two cells or more
    changes = cam.changed_boxes(table, moved)
    assert not bool(cam.changed_cells(changes, camera, 1)[3])


def test_live_engine_cases(tmp_path):
    python = arcengine_python()
    result = subprocess.run(
        [python, str(ASKER), "--seed", "1", "--cases", "20"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for number, case in enumerate(json.loads(result.stdout)["cases"]):
        check_case(case, f"live case {number} (seed 1)")


def test_sprite_declaration_errors_name_the_sprite_and_the_rule():
    with pytest.raises(ValueError, match="sprite 'wall': pixels must be colours 0-15, -1"):
        Sprite(((0, 16),), kind="wall")
    with pytest.raises(ValueError, match="sprite 'wall': rotation must be one of"):
        Sprite(((0,),), kind="wall", rotation=45)
    with pytest.raises(ValueError, match=r"scale -1 divides the size by 2, which must divide"):
        Sprite(((0, 1, 2),), kind="wall", scale=-1)
    with pytest.raises(ValueError, match="scale cannot be 0"):
        Sprite(((0,),), kind="wall", scale=0)
