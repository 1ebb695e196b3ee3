"""``gridax bench --compare``: the anchors' drivers, and the message when they are missing."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax import cli
from gridax.bench import arc as arc_bench
from gridax.bench import compare
from gridax.envs import arc
from gridax.envs.arc import operations as ops
from gridax.envs.arc.grid import GRID_SIZE, live_mask


def test_missing_anchors_are_named_with_the_install_command(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(compare, "missing_anchors", lambda: list(compare.ANCHORS))
    assert cli.main(["bench", "--compare", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "JaxARC (PyPI jaxarc) is not installed" in out
    assert "ARCLE (PyPI arcle) is not installed" in out
    assert "Foragax (PyPI continual-foragax) is not installed" in out
    assert "pip install 'gridax[compare]'" in out


def test_working_shape_of_reads_the_live_rectangle():
    shapes = jnp.array([[3, 7], [30, 30], [1, 1]], jnp.int32)
    np.testing.assert_array_equal(compare.working_shape_of(live_mask(shapes)), shapes)


@pytest.mark.parametrize("fmt", ["point", "bbox", "mask"])
def test_arcle_gets_the_actions_gridax_steps(fmt):
    draws = arc_bench.draw_rollout_actions(1, 500)
    shapes = jnp.tile(jnp.array([[4, 6]], jnp.int32), (500, 1))
    ours = arc.actions_from_draws(jax.tree.map(lambda x: x[0], draws), shapes, fmt)
    masks = np.asarray(ours.to_selection_mask())
    numbers = compare._drawn_numbers(1, 500)[0]  # the same draws, as ARCLE gets them
    actions = [compare._arcle_action(*each, fmt, (4, 6)) for each in numbers]
    assert {a["operation"] for a in actions} == set(range(ops.SUBMIT))
    assert [a["operation"] for a in actions] == np.asarray(ours.operation).tolist()
    np.testing.assert_array_equal(np.stack([a["selection"] for a in actions]), masks)
    for action in actions:
        rows, cols = np.nonzero(action["selection"])
        limit = (GRID_SIZE, GRID_SIZE) if action["operation"] == ops.RESIZE else (4, 6)
        assert rows.size >= 1 and rows.max() < limit[0] and cols.max() < limit[1]


def test_compare_runs_every_installed_anchor(tmp_path):
    pytest.importorskip("jaxarc")
    pytest.importorskip("arcle")
    args = ["bench", "--compare", "--num-envs", "2", "--steps", "3", "--repeats", "1"]
    plan = ["--formats", "bbox", "--forage", "--per-call", "1", "--out", str(tmp_path)]
    assert cli.main(args + plan) == 0
    written = json.loads((tmp_path / "compare.json").read_text())
    rows = written["rows"]
    assert [r["env"] for r in rows] == ["arc", "jaxarc", "arcle"]
    assert all(r["steps_per_second"] > 0 for r in rows)
    reset, step = written["per_call"]
    assert (step["function"], step["num_envs"]) == ("step", 1)
    assert reset["arcle_us"] is None and step["arcle_us"] > 0


def test_compare_runs_foragax_on_the_ids_its_release_has(tmp_path, capsys):
    pytest.importorskip("foragax")
    args = ["bench", "--compare", "--num-envs", "2", "--steps", "3", "--repeats", "1"]
    plan = ["--formats", "--per-call", "--forage", "ForagaxTwoBiome-v1", "ForagaxTwoBiomeLarge-v1"]
    # Foragax's own code needs JAX's default promotion rules (the suite's are strict).
    with jax.numpy_dtype_promotion("standard"), jax.numpy_rank_promotion("allow"):
        assert cli.main(args + plan + ["--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "compare.json").read_text())["rows"]
    # Foragax 0.54.1 has TwoBiome-v1 but not TwoBiomeLarge-v1 (added in 0.55).
    assert [(r["env"], r["variant"]) for r in rows] == [
        ("forage", "TwoBiome-v1"),
        ("foragax", "TwoBiome-v1"),
        ("forage", "TwoBiomeLarge-v1"),
    ]
    assert "gridax/foragax" in capsys.readouterr().out
