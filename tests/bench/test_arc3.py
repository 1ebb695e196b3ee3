"""The ARC-AGI-3 bench's pieces: game names, what arcengine plays for each game (ARC
Prize's file for a port), and the target, from made-up rows; the one timed test plays
the official file under arcengine where it and the files are here (skipped otherwise)."""

import json

import pytest

from gridax.bench import arc3 as arc3_bench
from gridax.bench.arc3 import GameSummary, format_summary, summarize
from gridax.bench.timing import Row


def test_games_are_named_in_any_case_or_by_their_ids():
    assert arc3_bench.game_named("CN04") == "cn04"
    assert arc3_bench.game_named("Arc3-ft09-v0") == "ft09"
    assert arc3_bench.game_named("keys") == "Keys"
    with pytest.raises(ValueError, match="no ARC-AGI-3 game 'nope'; there is Crumble"):
        arc3_bench.game_named("nope")


def test_a_bare_arc3_measures_the_ported_games_too():
    names = arc3_bench.all_games()
    assert {"Keys", "Lights", "cn04", "ft09"} <= set(names)
    assert [arc3_bench.is_ported(name) for name in ("Keys", "cn04", "ft09")] == [
        False,
        True,
        True,
    ]


def test_a_ported_game_is_timed_on_the_official_file_from_level_0(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDAX_ARC3_REFERENCE", str(tmp_path / "reference"))
    episodes = [[[0, 0, 0], [6, 3, 4]], [[1, 0, 0]]]
    command = arc3_bench.arcengine_command("cn04", "py", tmp_path, episodes)
    runner, folder, game, played, flag = command[1:]
    assert runner.endswith("tests/envs/arc3/arcengine/official.py")
    assert (folder, game, flag) == (str(tmp_path / "reference"), "cn04/65d47d14", "--time")
    assert json.loads((tmp_path / "episodes.json").read_text()) == [
        {"start_level": 0, "actions": episodes[0]},
        {"start_level": 0, "actions": episodes[1]},
    ]
    # gridax's own games: their re-implementation, on the levels gridax writes out.
    command = arc3_bench.arcengine_command("Keys", "py", tmp_path, episodes)
    assert command[1].endswith("tests/envs/arc3/arcengine/games.py")
    assert json.loads((tmp_path / "levels.json").read_text())["name"] == "Keys"


def test_a_missing_official_file_is_a_reason_not_a_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDAX_ARC3_REFERENCE", str(tmp_path))
    assert "is not installed" in arc3_bench.missing_reference("cn04", None)
    reason = arc3_bench.missing_reference("cn04", "python")
    assert reason.startswith("ARC Prize's cn04.py (65d47d14) is not in ")
    assert arc3_bench.missing_reference("Keys", "python") is None  # no file needed
    (tmp_path / "cn04" / "65d47d14").mkdir(parents=True)
    (tmp_path / "cn04" / "65d47d14" / "cn04.py").touch()
    assert arc3_bench.missing_reference("cn04", "python") is None


def _summary(fraction: float, arcengine: float | None = 1000.0, compile_seconds: float = 5.0):
    return GameSummary("cn04", 1024, 50_000, arcengine, fraction, compile_seconds)


def test_the_target_is_the_lower_of_two_rates_and_a_short_compile():
    assert _summary(0.5).verdict() is True  # half the roofline, 50x arcengine
    assert _summary(0.1, arcengine=500.0).verdict() is True  # 100x arcengine
    assert _summary(0.1, arcengine=501.0).verdict() is False
    assert _summary(0.9, compile_seconds=10.0).verdict() is False
    assert _summary(0.1, arcengine=None).verdict() is None  # cannot tell without arcengine
    assert _summary(0.6, arcengine=None).verdict() is True


def _row(env: str, variant: str, num_envs: int, steps: float, fraction=None) -> Row:
    return Row(env, variant, "scan", num_envs, 20, steps, 4.0, 100, fraction)


def test_each_game_stands_beside_its_arcengine_rate_and_is_judged_at_1024_envs():
    rows = [_row("roofline", "2 frames", 1024, 400_000)]
    rows += [_row("arc3", "cn04", 8, 2_000, 0.01), _row("arc3", "cn04", 1024, 90_000, 0.3)]
    rows += [_row("arc3", "Keys", 1024, 200_000, 0.55), _row("arcengine", "cn04", 1, 10_000)]
    summaries = summarize(rows)
    assert [(s.game, s.num_envs, s.speedup) for s in summaries] == [
        ("cn04", 8, 0.2),
        ("cn04", 1024, 9.0),
        ("Keys", 1024, None),
    ]
    lines = format_summary(summaries).splitlines()
    assert lines[0].split()[-2:] == ["meets", "target"]
    assert lines[1].split() == ["cn04", "8", "2,000", "10,000", "0.20x", "0.010", "4.00", "-"]
    assert lines[2].split()[-1] == "NO" and lines[3].split()[-1] == "yes"
    assert lines[4].startswith("target: at 1,024 envs, >= 100x arcengine's one-game rate")
    untimed = format_summary(summaries[:1])
    assert untimed.endswith("(no row at 1,024 envs: nothing judged; --num-envs 1024)")


def test_arcengine_plays_the_official_file():
    python = arc3_bench.arcengine_python()
    reason = arc3_bench.missing_reference("cn04", python)
    if reason:
        pytest.skip(reason)
    row = arc3_bench.measure_arcengine("cn04", num_steps=10, python=python, repeats=1)
    assert (row.env, row.variant, row.num_envs) == ("arcengine", "cn04", 1)
    assert row.num_steps == arc3_bench.ARCENGINE_MIN_STEPS and row.steps_per_second > 0
