"""The command line runs (smoke-sized) and writes what it says."""

import json

import pytest

from gridax import cli


def test_bench_smoke(capsys, tmp_path):
    args = ["bench", "--num-envs", "2", "--steps", "3", "--repeats", "1", "--out", str(tmp_path),
            "--compile-cache", "off"]  # fmt: skip
    plan = ["--formats", "point", "--rollouts", "scan", "loop", "--forage", "ForagaxTwoBiome-v1",
            "--per-call", "1"]  # fmt: skip
    assert cli.main(args + plan) == 0
    out = capsys.readouterr().out
    assert "of roofline" in out and "submit left out" in out
    assert "per call from Python, us" in out
    bench = json.loads((tmp_path / "bench.json").read_text())
    calls = [(c["env"], c["function"], c["num_envs"]) for c in bench["per_call"]]
    assert calls == [
        ("arc point", "reset", 1),
        ("arc point", "step", 1),
        ("TwoBiome-v1", "reset", 1),
        ("TwoBiome-v1", "step", 1),
    ]
    for call in bench["per_call"]:
        assert call["floor_us"] > 0 and call["jit_us"] > 0 and call["gridax_us"] > 0
    rows = bench["rows"]
    assert [(r["env"], r["rollout"]) for r in rows] == [
        ("roofline", "scan"),
        ("arc", "scan"),
        ("arc", "loop"),
        ("forage", "scan"),
    ]
    assert rows[3]["variant"] == "TwoBiome-v1" and rows[3]["bytes_per_state"] > 0
    assert all(r["steps_per_second"] > 0 for r in rows)
    assert rows[1]["roofline_fraction"] > 0 and rows[3]["roofline_fraction"] > 0
    assert (tmp_path / "bench.csv").read_text().startswith("env,variant")
    assert (tmp_path / "bench.png").stat().st_size > 1000


def test_demo_writes_a_solved_arc_episode_and_a_forage_rollout(capsys, tmp_path):
    from PIL import Image

    assert cli.main(["demo", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "solved=True" in out and f"pictures written to {tmp_path}" in out
    with Image.open(tmp_path / "arc-episode.gif") as gif:
        assert gif.n_frames == 1 + 4  # reset, resize, two fills, submit
    with Image.open(tmp_path / "forage-TwoBiome-v1.gif") as gif:
        assert gif.n_frames == 1 + 20
    assert (tmp_path / "arc-task-007bbfb7.png").stat().st_size > 0


def test_render_and_list(capsys, tmp_path):
    assert (
        cli.main(["render", "ForagaxDiwali-v5", "--seed", "3", "--out", str(tmp_path / "d.png")])
        == 0
    )
    assert cli.main(["render", "ArcAgi2-v0", "--out", str(tmp_path / "a.svg")]) == 0
    assert (tmp_path / "d.png").stat().st_size > 0 and (tmp_path / "a.svg").exists()
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "ForagaxDiwali-v5\n  observation float32[5, 5, " in out
    assert "action      PointAction(operation Discrete(35), row Discrete(30)" in out


def test_bench_devices_runs_sharded_rollouts(tmp_path):
    import subprocess
    import sys

    # A new process: --devices must set the simulated device count before JAX starts.
    command = [sys.executable, "-m", "gridax.cli", "bench", "--formats", "--forage", "--per-call",
               "--platform", "cpu",
               "--devices", "2", "--num-envs", "4", "--steps", "3", "--repeats", "1",
               "--out", str(tmp_path), "--compile-cache", str(tmp_path / "cache")]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert any((tmp_path / "cache").iterdir())  # the executables went to the cache
    bench = json.loads((tmp_path / "bench.json").read_text())
    assert bench["metadata"]["compile_cache"] == str(tmp_path / "cache")
    rows = bench["rows"]
    labels = [r["variant"] for r in rows if r["env"] == "sharded"]
    assert labels == ["point, 1 device", "point, 2 devices"]


def test_bench_on_a_platform_this_machine_lacks_says_so():
    import subprocess
    import sys

    import jax

    if any(d.platform == "gpu" for d in jax.devices()):
        return  # a machine with a GPU runs the bench there instead
    command = [sys.executable, "-m", "gridax.cli", "bench", "--platform", "gpu", "--quick"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert "gridax bench --platform gpu: JAX sees no such device here" in result.stdout


def test_version_has_one_source(capsys):
    from importlib.metadata import version

    import gridax

    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"gridax {gridax.__version__}"
    assert version("gridax") == gridax.__version__  # pyproject reads it from the package


def test_bench_arc3_games(tmp_path, monkeypatch, capsys):
    """``--arc3``: the roofline, then gridax rows per game and batch size, each a fraction
    of the roofline at its size; without arcengine, a message and no reference rows."""
    monkeypatch.delenv("GRIDAX_ARCENGINE_PYTHON", raising=False)
    monkeypatch.chdir(tmp_path)  # no .venv-arcengine here
    args = ["bench", "--arc3", "Lights", "--num-envs", "2", "--steps", "2", "--repeats", "1"]
    assert cli.main([*args, "--out", str(tmp_path), "--compile-cache", "off"]) == 0
    out = capsys.readouterr().out
    assert "arcengine is not installed" in out
    rows = json.loads((tmp_path / "arc3.json").read_text())["rows"]
    assert [(r["env"], r["variant"], r["num_envs"]) for r in rows] == [
        ("roofline", "1 frames", 2),
        ("arc3", "Lights", 2),
    ]
    roofline, game = rows
    assert game["steps_per_second"] > 0
    # One round: the fraction is that round's ratio.
    ratio = game["steps_per_second"] / roofline["steps_per_second"]
    assert game["roofline_fraction"] == pytest.approx(ratio)


def test_bench_arc3_ported_game(tmp_path, monkeypatch, capsys):
    """``--arc3`` on a port of an ARC Prize game (tiny sizes): its row beside the
    roofline and, where arcengine and ARC Prize's files are here, arcengine playing the
    official file in the same run (its reason printed otherwise); the summary says
    whether the game meets the target."""
    from gridax.bench import arc3 as arc3_bench

    monkeypatch.setattr(arc3_bench, "ARCENGINE_MIN_STEPS", 50)  # the row, not the figure
    args = ["bench", "--arc3", "Arc3-cn04-v0", "--num-envs", "1", "--steps", "1"]
    args += ["--repeats", "1", "--out", str(tmp_path), "--compile-cache", "off"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    bench = json.loads((tmp_path / "arc3.json").read_text())
    rows = [(r["env"], r["variant"], r["num_envs"]) for r in bench["rows"]]
    assert rows[:2] == [("roofline", "1 frames", 1), ("arc3", "cn04", 1)]
    assert "meets target" in out and "target: at 1,024 envs" in out
    reason = arc3_bench.missing_reference("cn04", arc3_bench.arcengine_python())
    if reason:
        assert f"arcengine: no row for cn04: {reason}" in out and len(rows) == 2
        pytest.skip(f"the official timing: {reason}")
    assert rows[2] == ("arcengine", "cn04", 1)
    assert "arcengine plays cn04: ARC Prize's cn04.py, version 65d47d14" in out
    assert bench["metadata"]["arcengine"]["cn04"].startswith("ARC Prize's cn04.py")


def test_bench_arc3_unknown_game_is_bad_input(capsys):
    assert cli.main(["bench", "--arc3", "nope", "--compile-cache", "off"]) == 2
    assert "gridax bench: no ARC-AGI-3 game 'nope'" in capsys.readouterr().err
