"""The command line runs (smoke-sized) and writes what it says."""

import json

from gridax import cli


def test_bench_smoke(capsys, tmp_path):
    args = ["bench", "--num-envs", "2", "--steps", "3", "--repeats", "1", "--out", str(tmp_path)]
    plan = ["--formats", "point", "--rollouts", "scan", "loop", "--forage", "ForagaxTwoBiome-v1"]
    assert cli.main(args + plan) == 0
    out = capsys.readouterr().out
    assert "of roofline" in out and "submit left out" in out
    rows = json.loads((tmp_path / "bench.json").read_text())["rows"]
    assert [(r["env"], r["rollout"]) for r in rows] == [
        ("roofline", "scan"),
        ("arc", "scan"),
        ("arc", "loop"),
        ("forage", "scan"),
    ]
    assert rows[3]["selection_format"] == "TwoBiome-v1" and rows[3]["bytes_per_state"] > 0
    assert all(r["steps_per_second"] > 0 for r in rows)
    assert rows[1]["roofline_fraction"] > 0
    assert (tmp_path / "bench.csv").read_text().startswith("env,selection_format")
    assert (tmp_path / "bench.png").stat().st_size > 1000
