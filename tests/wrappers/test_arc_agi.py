"""ARC Prize's toolkit on gridax, where the toolkit is absent: the plays behind
``gridax.wrappers.arc_agi`` (``arc3.tools.plays``) against the toolkit's answers on the
official files, recorded by ``tests/tools/arc_agi_toolkit.py record`` (Python 3.12+).

The wrapper itself, live beside the toolkit, is tested by test_arc_agi_toolkit.py under
Python 3.12 (``make arc3-parity``, CI).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gridax.envs.arc3 import CLICK, RESET, frame
from gridax.envs.arc3.games import GAMES
from gridax.envs.arc3.tools import scoring
from gridax.envs.arc3.tools.plays import Plays
from tests.tools.arc3_sample import EVERY_GAME

FIXTURE = Path(__file__).parents[1] / "fixtures" / "arc3" / "toolkit_answers.json.gz"
RECORDED = json.loads(gzip.decompress(FIXTURE.read_bytes()))
# make test replays two ports (each compiles a program of its own): tu93's animations
# and a won game's refusals, cn04's one frame an action; make arc3-parity replays all.
REPLAYED = ("cn04", "tu93")


def digest(frame: np.ndarray) -> str:
    """As the fixture keeps a frame (tests/tools/arc_agi_toolkit.py: 64 bits of sha256)."""
    return hashlib.sha256(np.asarray(frame, np.int8).tobytes()).hexdigest()[:16]


def as_recorded(answer, available: list[int]) -> dict:
    """gridax's answer in the form the fixture keeps the toolkit's (its JSON fields)."""
    return {
        "type": "FrameData" if answer.refused else "FrameDataRaw",
        "state": answer.state,
        "levels_completed": answer.levels_completed,
        "win_levels": answer.win_levels,
        "full_reset": answer.full_reset,
        "available_actions": available,
        "frames": [digest(f) for f in answer.frames],
        "frame_dtypes": sorted({str(f.dtype) for f in answer.frames}),
    }


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_plays_answer_as_the_toolkit_recorded_official(name):
    """Every episode of the fixture, played as one batch of plays (one play an episode;
    a play past its episode's end gets RESETs, and its answers are not read): each
    answer equal to the toolkit's on the official file, field for field and frame for
    frame (frames by digest); the action the toolkit echoed is the episode's."""
    if not (EVERY_GAME or name in REPLAYED):
        pytest.skip("make arc3-parity replays every game (GRIDAX_ARC3_ALL_GAMES)")
    recorded = RECORDED[name]
    game = GAMES[name]
    episodes = recorded["episodes"]
    plays = Plays(game, len(episodes))
    available = list(game.available_actions)
    answers = [[a] for a in plays.act(RESET)]  # the toolkit's wrapper resets on make
    for i in range(max(map(len, episodes))):
        moves = [e[i] if i < len(e) else [RESET, 0, 0] for e in episodes]
        ids, xs, ys = np.asarray(moves).T
        for play, answer in zip(answers, plays.act(ids, xs, ys), strict=True):
            play.append(answer)
    for e, (episode, theirs) in enumerate(zip(episodes, recorded["answers"], strict=True)):
        assert len(theirs) == len(episode) + 1
        for i, record in enumerate(theirs):
            expected = {key: record[key] for key in as_recorded(answers[e][i], available)}
            assert as_recorded(answers[e][i], available) == expected, (name, e, i)
            action_id, x, y = [RESET, 0, 0] if i == 0 else episode[i - 1]
            echoed = {"x": x, "y": y} if action_id == CLICK else {}
            assert record["action_input"]["data"] == echoed


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_the_recorded_scorecards_are_gridaxs_scores(name):
    """The toolkit's scorecard of the fixture's plays, each play (run) scored again by
    gridax's ``scoring`` from its level actions: every level's score, the play's, and
    the game's (the play with the most levels completed)."""
    (environment,) = RECORDED[name]["scorecard"]["environments"]
    baselines = GAMES[name].baseline_actions
    best = max(environment["runs"], key=lambda run: run["levels_completed"])
    for run in environment["runs"]:
        assert run["level_baseline_actions"] == list(baselines)
        args = (run["level_actions"], run["levels_completed"], baselines)
        assert scoring.level_scores(*args).tolist() == run["level_scores"]
        assert float(scoring.game_score(*args)) == run["score"]
    assert environment["score"] == best["score"]
    assert environment["levels_completed"] == best["levels_completed"]


def test_a_won_game_refuses_all_but_reset_and_reset_starts_it_again():
    """arcengine's answer to an action on a won game: no frame, nothing changed, counts
    0 (``refused``); RESET then restarts the whole game."""
    game = GAMES["Keys"]
    plays = Plays(game, 2)
    plays.act(RESET)
    solution = [m if isinstance(m, tuple) else (m, 0, 0) for s in game.solutions for m in s]
    for action in solution:
        *_, last = plays.act(*action)
    assert last.state == "WIN" and last.levels_completed == len(game.levels)
    before = np.asarray(frame(plays.states, game))
    refused = plays.act(game.available_actions[0])
    assert all(a.refused and not a.frames and a.levels_completed == 0 for a in refused)
    assert [a.state for a in refused] == ["WIN", "WIN"]
    np.testing.assert_array_equal(np.asarray(frame(plays.states, game)), before)
    again = plays.act(RESET)
    assert all(a.full_reset and a.state == "NOT_FINISHED" and len(a.frames) == 1 for a in again)


def test_bad_actions_are_named_and_move_no_play():
    plays = Plays(GAMES["Keys"], 2)
    before = np.asarray(plays.states.level)
    with pytest.raises(ValueError, match=r"offers RESET and \[1, 2, 3, 4\]; got action id 6"):
        plays.act(np.array([1, CLICK]), 3, 3)
    with pytest.raises(ValueError, match="num_plays must be at least 1"):
        Plays(GAMES["Keys"], 0)
    np.testing.assert_array_equal(np.asarray(plays.states.level), before)


@pytest.mark.skipif(
    importlib.util.find_spec("arc_agi") is not None, reason="the toolkit is installed here"
)
def test_without_the_toolkit_the_module_names_its_extra():
    sys.modules.pop("gridax.wrappers.arc_agi", None)
    with pytest.raises(ImportError, match=r"pip install 'gridax\[arc-agi\]' \(Python 3.12"):
        importlib.import_module("gridax.wrappers.arc_agi")
