"""ARC Prize's ARC-AGI-3 score (gridax.envs.arc3.tools.scoring) against the ``arc-agi`` toolkit's
scorecard, version 0.9.9.

Hand-made cases with known numbers; cases answered by the toolkit
(``tests/tools/arc_agi_scores.py``), recorded for seed 0 in
tests/fixtures/arc3/scoring_cases.json so that they need nothing installed; and, where
arc-agi is installed (Python 3.12+: set ``GRIDAX_ARCAGI_PYTHON``, or have arc-agi in
``.venv-arcengine``), a few hundred fresh cases of another seed and the hand-made ones,
asked live.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jax
import numpy as np
import pytest

from gridax.envs.arc3.tools import scoring

ROOT = Path(__file__).resolve().parents[3]
RECORDED = ROOT / "tests" / "fixtures" / "arc3" / "scoring_cases.json"
ASKER = ROOT / "tests" / "tools" / "arc_agi_scores.py"
CN04_BASELINES = (16, 54, 69, 318, 208, 114)  # cn04 65d47d14's metadata: 6 for its 5 levels

# (level_actions, levels_completed, baseline_actions, the play's score by hand)
HAND_MADE = {
    "one level in its baseline": ([7], 1, [7], 100.0),
    "one level in twice its baseline": ([14], 1, [7], 25.0),
    "the 115 ceiling, under the cap of 100": ([5], 1, [10], 100.0),
    "two of three levels at the ceiling: 345 / 6 capped at 3 / 6": ([1, 1, 9], 2, [9, 9, 9], 50.0),
    "100 and 25 weighted 1 and 2, level 3 not done: 150 / 6": ([10, 20, 5], 2, [10, 10, 10], 25.0),
    "all three levels: (100 + 2 * 25 + 3 * 100 / 9) / 6": (
        [10, 20, 30],
        3,
        [10, 10, 10],
        (100 + 2 * 25 + 3 * 100 / 9) / 6,
    ),
    "a completed level without actions scores 0 and is out of the cap": (
        [0, 10],
        2,
        [10, 10],
        200 / 3,
    ),
    "a completed level of baseline 0 scores 0": ([4, 10], 2, [0, 10], 200 / 3),
    "nothing completed": ([50, 0, 0], 0, [10, 10, 10], 0.0),
    "more levels completed than baselines": ([1, 1, 1], 3, [1, 1], 0.0),
    "no baselines": ([1, 1], 2, [], 0.0),
    "cn04 won at its baselines: 6 levels scored, the 6th never done": (
        [16, 54, 69, 318, 208],
        5,
        CN04_BASELINES,
        100 * 15 / 21,
    ),
    "cn04 won in 1 action a level: 115 each, capped at 15 / 21": (
        [1, 1, 1, 1, 1],
        5,
        CN04_BASELINES,
        100 * 15 / 21,
    ),
}


def padded(values, length: int) -> np.ndarray:
    row = np.zeros(length, np.int64)
    row[: len(values)] = values
    return row


def hand_made_arrays():
    """The hand-made plays as one batch, padded to the longest: level_actions,
    levels_completed, baselines, level_count and the expected scores."""
    cases = list(HAND_MADE.values())
    length = max(max(len(actions), len(baselines)) for actions, _, baselines, _ in cases)
    return (
        np.stack([padded(actions, length) for actions, _, _, _ in cases]),
        np.array([completed for _, completed, _, _ in cases]),
        np.stack([padded(baselines, length) for _, _, baselines, _ in cases]),
        np.array([len(baselines) for _, _, baselines, _ in cases]),
        np.array([score for *_, score in cases]),
    )


@pytest.mark.parametrize("name", list(HAND_MADE))
def test_hand_made_play(name):
    actions, completed, baselines, expected = HAND_MADE[name]
    length = max(len(actions), len(baselines), 1)
    got = scoring.game_score(
        padded(actions, length), completed, padded(baselines, length), len(baselines)
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=name)


def test_level_scores_by_hand():
    np.testing.assert_array_equal(
        scoring.level_scores([10, 20, 5, 1], 3, [10, 10, 10, 10]),
        [100.0, 25.0, 115.0, 0.0],
    )
    np.testing.assert_array_equal(scoring.level_scores([3, 3], 2, [1, 2]), [100 / 9, 400 / 9])
    # Padding past level_count scores 0 and weighs nothing.
    np.testing.assert_array_equal(scoring.level_scores([7, 7, 7], 3, [7, 7, 7], 2), [0.0] * 3)
    assert scoring.game_score([7, 7, 0, 0], 2, [7, 7, 9, 9], 2) == scoring.game_score(
        [7, 7], 2, [7, 7]
    )


def test_levels_not_completed_ignore_their_actions():
    base = scoring.game_score([10, 30, 0], 1, [10, 10, 10])
    assert base == pytest.approx(100 / 6)
    assert scoring.game_score([10, 3, 999], 1, [10, 10, 10]) == base


def test_best_play_and_overall_by_hand():
    assert scoring.best_play_score([12.5, 71.0, 3.0]) == 71.0
    np.testing.assert_array_equal(scoring.best_play_score([[1.0, 2.0], [5.0, 4.0]]), [2.0, 5.0])
    # Games not played are left out of the mean, not counted as 0.
    assert scoring.overall_score([40.0, 10.0, 0.0], [True, True, False]) == 25.0
    assert scoring.overall_score([40.0, 10.0, 0.0]) == pytest.approx(50 / 3)
    assert scoring.overall_score([0.0, 0.0], [False, False]) == 0.0
    assert scoring.overall_score(np.zeros(0)) == 0.0
    # Python 3.12's compensated sum: 0.1 + 0.2 + 0.3 is 0.6, not 0.6000000000000001.
    assert scoring.overall_score([0.1, 0.2, 0.3]) == 0.6 / 3


def test_pad_baselines():
    table, counts = scoring.pad_baselines([(1, 2), CN04_BASELINES, ()])
    np.testing.assert_array_equal(counts, [2, 6, 0])
    np.testing.assert_array_equal(table[0], [1, 2, 0, 0, 0, 0])
    np.testing.assert_array_equal(table[1], CN04_BASELINES)
    np.testing.assert_array_equal(table[2], np.zeros(6))


def test_jax_matches_numpy_batched_and_under_vmap():
    actions, completed, baselines, counts, expected = hand_made_arrays()
    np.testing.assert_allclose(
        scoring.game_score(actions, completed, baselines, counts), expected, rtol=1e-12
    )
    got = scoring.game_score_jax(actions, completed, baselines, counts)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(
        scoring.level_scores_jax(actions, completed, baselines, counts),
        scoring.level_scores(actions, completed, baselines, counts),
        rtol=1e-5,
        atol=1e-4,
    )
    # Two leading axes, and vmap over the first.
    stacked = [np.stack([x, x[::-1]]) for x in (actions, completed, baselines, counts)]
    twice = scoring.game_score_jax(*stacked)
    assert twice.shape == (2, len(expected))
    np.testing.assert_allclose(twice[1], got[::-1], rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(scoring.game_score_jax)(*stacked), twice, rtol=1e-6)
    # One game's baselines broadcast over a batch of plays.
    one_game = scoring.game_score_jax(np.array([[7, 0], [14, 0]]), np.array([1, 1]), [7, 7], 1)
    np.testing.assert_allclose(one_game, [100.0, 25.0], rtol=1e-6)
    scores = np.array([[40.0, 10.0, 3.0], [1.0, 2.0, 3.0]])
    played = np.array([[True, True, False], [False, False, False]])
    np.testing.assert_allclose(scoring.overall_score_jax(scores, played), [25.0, 0.0])
    np.testing.assert_allclose(scoring.best_play_score_jax(scores), [40.0, 3.0])


# --- Against the toolkit -------------------------------------------------------------------


def plays_of(case: dict):
    """Every play of the case's games as arrays padded to the longest: level_actions,
    levels_completed, baselines, level_count, and the game index of each play."""
    games = case["games"]
    rows = [(g, play) for g, game in enumerate(games) for play in game["plays"]]
    length = max(
        [len(game["baseline_actions"] or ()) for game in games]
        + [len(play["level_actions"]) for _, play in rows]
        + [play["levels_completed"] for _, play in rows]
        + [1]
    )
    baselines = [games[g]["baseline_actions"] or [] for g, _ in rows]
    return (
        np.array([padded(play["level_actions"], length) for _, play in rows]).reshape(-1, length),
        np.array([play["levels_completed"] for _, play in rows], np.int64),
        np.array([padded(b, length) for b in baselines]).reshape(-1, length),
        np.array([len(b) for b in baselines], np.int64),
        np.array([g for g, _ in rows], np.int64),
    )


def check_case(case: dict, output: dict, where: str) -> int:
    """The case scored by gridax, NumPy bit for bit and JAX to float32, against the
    toolkit's ``output``; returns the number of plays checked."""
    actions, completed, baselines, counts, game_of_play = plays_of(case)
    play_scores = scoring.game_score(actions, completed, baselines, counts)
    levels = scoring.level_scores(actions, completed, baselines, counts)
    if len(play_scores):
        np.testing.assert_allclose(
            scoring.game_score_jax(actions, completed, baselines, counts),
            play_scores,
            rtol=1e-5,
            atol=1e-4,
            err_msg=f"{where}: JAX",
        )
    game_scores, played = [], []
    for g, game in enumerate(case["games"]):
        mine = play_scores[game_of_play == g]
        played.append(len(mine) > 0)
        if not len(mine):
            assert game["game_id"] not in output["games"], where
            game_scores.append(0.0)
            continue
        theirs = output["games"][game["game_id"]]
        expected = [run["score"] for run in theirs["plays"]]
        assert mine.tolist() == expected, f"{where}, {game['game_id']}: {mine} != {expected}"
        for row, run in zip(np.flatnonzero(game_of_play == g), theirs["plays"], strict=True):
            level_scores = run["level_scores"]
            if len(level_scores) == counts[row] and completed[row] <= counts[row]:
                assert levels[row, : counts[row]].tolist() == level_scores, where
            else:  # the toolkit's "not scored" answer: zeros, as many as it counted levels
                assert not levels[row].any() and not any(level_scores), where
        game_scores.append(float(scoring.best_play_score(mine)))
        assert game_scores[-1] == theirs["score"], where
    overall = scoring.overall_score(np.array(game_scores), np.array(played))
    assert float(overall) == output["score"], f"{where}: {overall} != {output['score']}"
    np.testing.assert_allclose(
        scoring.overall_score_jax(np.array(game_scores), np.array(played)),
        overall,
        rtol=1e-6,
        err_msg=where,
    )
    return len(play_scores)


def test_recorded_cases():
    recorded = json.loads(RECORDED.read_text())
    assert recorded["arc_agi"] == scoring.ARC_AGI_VERSION
    checked = sum(
        check_case(case["input"], case["output"], f"recorded case {number}")
        for number, case in enumerate(recorded["cases"])
    )
    assert len(recorded["cases"]) >= 100 and checked > 150


def arc_agi_python() -> str:
    named = os.environ.get("GRIDAX_ARCAGI_PYTHON")
    if named:
        return named
    local = ROOT / ".venv-arcengine" / "bin" / "python"
    if local.exists():
        has_it = subprocess.run([str(local), "-c", "import arc_agi"], capture_output=True)
        if has_it.returncode == 0:
            return str(local)
    pytest.skip(
        "arc-agi 0.9.9 is not installed: it needs Python 3.12; install it in "
        ".venv-arcengine or set GRIDAX_ARCAGI_PYTHON to a Python that has it"
    )


def ask_arc_agi(*arguments: str, cases: list | None = None) -> dict:
    stdin = None if cases is None else json.dumps({"cases": cases})
    result = subprocess.run(
        [arc_agi_python(), str(ASKER), *arguments], input=stdin, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout)
    assert answer["arc_agi"] == scoring.ARC_AGI_VERSION
    return answer


def test_live_random_cases():
    answer = ask_arc_agi("--seed", "1", "--cases", "300")
    checked = sum(
        check_case(case["input"], case["output"], f"live case {number} (seed 1)")
        for number, case in enumerate(answer["cases"])
    )
    assert checked > 400


def test_live_hand_made_cases():
    cases = [
        {
            "games": [
                {
                    "game_id": "hand",
                    "baseline_actions": list(baselines),
                    "plays": [{"level_actions": list(actions), "levels_completed": completed}],
                }
            ]
        }
        for actions, completed, baselines, _ in HAND_MADE.values()
    ]
    answer = ask_arc_agi(cases=cases)
    for (name, (*_, expected)), case in zip(HAND_MADE.items(), answer["cases"], strict=True):
        assert case["output"]["score"] == pytest.approx(expected, rel=1e-12), name
        check_case(case["input"], case["output"], name)
