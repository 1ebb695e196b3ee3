"""``gridax evaluate --arc3``: a policy on ARC-AGI-3 games, scored as ARC Prize scores it."""

from __future__ import annotations

import json

import jax.numpy as jnp

from gridax import cli
from gridax.envs import arc3
from gridax.envs.arc3.tools import evaluation


def stay_still(obs, key):
    """A policy that never completes anything: ACTION1 forever."""
    del obs, key
    return arc3.Action(jnp.int32(arc3.ACTION1), jnp.int32(0), jnp.int32(0))


def test_the_reference_runs_score_what_the_scorecard_gives(tmp_path, capsys):
    """cn04's reference runs win its 5 levels; the scorecard scores its 6 baselines, so
    the game scores 100 * 15 / 21; the report says so."""
    arguments = ["evaluate", "--arc3", "cn04", "--policy", "solutions", "--episodes", "2"]
    assert cli.main([*arguments, "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "arc3_report.json").read_text())
    (game,) = report["games"]
    assert abs(game["score"] - 100 * 15 / 21) < 1e-3 and game["won"] == 1.0
    assert abs(report["score"] - game["score"]) < 1e-9
    assert "cn04: score 71.43" in capsys.readouterr().out


def test_an_imported_policy_and_the_overall_mean(tmp_path):
    still = evaluation.evaluate_game("cn04", stay_still, episodes=2, max_steps=20)
    assert still.score == 0.0 and still.levels_completed == 0.0 and still.actions == 20
    spec = f"{__name__}:stay_still"
    assert cli.main(["evaluate", "--arc3", "cn04", "--policy", spec, "--episodes", "1",
                     "--max-steps", "5", "--out", str(tmp_path)]) == 0  # fmt: skip
    assert evaluation.overall_score([still, still]) == 0.0


def test_bad_games_and_policies_are_named(capsys, tmp_path):
    assert cli.main(["evaluate", "--arc3", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown games ['nope']" in capsys.readouterr().err
    assert cli.main(["evaluate", "--arc3", "cn04", "--policy", "x", "--out", str(tmp_path)]) == 2
    assert "--policy is 'random', 'solutions'" in capsys.readouterr().err
