"""``gridax.wrappers.arc_agi`` live beside ARC Prize's toolkit (arc-agi 0.9.9 and
arcengine 0.9.3 on the official files): needs Python 3.12+ with gridax and the toolkit,
so ``make arc3-parity`` (CI) runs it under ``.venv-arcengine``; elsewhere it is skipped,
and test_arc_agi.py replays the toolkit's recorded answers.

The comparison itself is ``tests/tools/arc_agi_toolkit.py``: the same episodes through
both arcades, every answer, recording and scorecard equal but for uuids and times.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("arc_agi", reason="ARC Prize's toolkit needs Python 3.12+")

from arc_agi import Arcade as ToolkitArcade  # noqa: E402
from arc_agi import OperationMode  # noqa: E402
from arcengine import FrameDataRaw, GameAction, GameState  # noqa: E402

from gridax.bench.arc3 import official_games_folder  # noqa: E402
from gridax.envs.arc3.games import GAMES, PORTED  # noqa: E402
from gridax.wrappers.arc_agi import Arcade, make  # noqa: E402
from tests.tools.arc3_sample import sampled  # noqa: E402
from tests.tools.arc_agi_toolkit import answer_record, both, differences  # noqa: E402

PORTS = sorted(module.GAME.name for module in PORTED)


@pytest.fixture
def quiet_logger():
    logger = logging.getLogger("gridax.tests.arc_agi")
    logger.setLevel(logging.WARNING)
    return logger


@pytest.mark.parametrize("name", PORTS)
def test_live_toolkit_and_gridax_answer_alike(name):
    if not sampled(name):
        pytest.skip("GRIDAX_ARC3_ALL_GAMES=1 compares every game (tests/tools/arc3_sample.py)")
    assert differences(both(name)) == []


def test_live_the_arcade_lists_each_port_as_the_toolkit_lists_its_official_file(quiet_logger):
    ours = {e.game_id: e for e in Arcade(logger=quiet_logger).get_environments()}
    toolkit = ToolkitArcade(
        operation_mode=OperationMode.OFFLINE,
        environments_dir=str(official_games_folder()),
        logger=quiet_logger,
    )
    theirs = {e.game_id: e for e in toolkit.get_environments()}
    ported = {g for g in ours if "-" in g}
    assert len(ported) == len(PORTS) and ported <= set(theirs)
    for game_id in ported:
        assert ours[game_id].model_dump() == theirs[game_id].model_dump(), game_id
    invented = {g: e.title for g, e in ours.items() if "-" not in g}
    assert invented == {name.lower(): name for name in GAMES if name not in PORTS}


def test_live_bad_input_is_logged_by_name_and_changes_nothing(quiet_logger, caplog):
    env = make("ls20", logger=quiet_logger)
    first = env.observation_space
    with caplog.at_level(logging.ERROR, logger=quiet_logger.name):
        assert env.step(GameAction.ACTION6, data={"x": 1, "y": 1}) is None
        assert env.step("ACTION1") is None  # pyright: ignore[reportArgumentType]
    assert "ls20-9607627b: ls20 offers RESET, ACTION1, ACTION2, ACTION3, ACTION4; got ACTION6" in (
        caplog.text
    )
    assert "an action is an arcengine GameAction; got 'ACTION1'" in caplog.text
    assert env.observation_space is first  # nothing answered, nothing recorded
    clicks = make("ft09", logger=quiet_logger)
    for data in ({"x": 64, "y": 0}, None, {"x": "3", "y": 3}, {"x": True, "y": 3}):
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger=quiet_logger.name):
            assert clicks.step(GameAction.ACTION6, data=data) is None
        assert "ACTION6 takes data {'x': 0-63, 'y': 0-63}; got" in caplog.text
    moved = clicks.step(GameAction.ACTION6, data={"x": 0, "y": 0})
    assert isinstance(moved, FrameDataRaw) and moved.state is GameState.NOT_FINISHED
    with pytest.raises(
        ValueError, match=r"no gridax ARC-AGI-3 game 'zz99'; there are \[.*'cd82'.*'wa30'"
    ):
        make("zz99")
    with pytest.raises(ValueError, match="gridax has ls20-9607627b, not 'ls20-00000000'"):
        make("ls20-00000000")
    # The toolkit's own answer to an unknown id: None, and an error naming the games.
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger=quiet_logger.name):
        assert Arcade(logger=quiet_logger).make("zz99") is None
    assert "Game zz99 not found" in caplog.text and "'ls20'" in caplog.text


def test_live_a_batch_answers_as_each_play_alone(quiet_logger, tmp_path):
    """Three plays of tu93 at once, each equal to its own wrapper, and on the scorecard
    as three plays."""
    arcade = Arcade(recordings_dir=str(tmp_path), logger=quiet_logger)
    batch = arcade.make_batch("tu93", 3, save_recording=True)
    alone = [make("tu93", logger=quiet_logger) for _ in range(3)]
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = [GameAction.from_id(int(a)) for a in rng.choice([0, 1, 2, 3, 4], 3)]
        answers = batch.step(actions)
        assert answers is not None
        for answer, env, action in zip(answers, alone, actions, strict=True):
            assert answer_record(answer, hashed=False) == answer_record(
                env.step(action), hashed=False
            )
    assert len(set(batch.guids)) == 3
    assert len(list(tmp_path.rglob("*.jsonl"))) == 3
    card = arcade.get_scorecard()
    assert card is not None  # each play's runs (a RESET of the whole game begins one)
    assert {run.guid for run in card.environments[0].runs} == set(batch.guids)
    assert batch.step([GameAction.ACTION1] * 2) is None  # three plays take three actions


def test_live_an_invented_game_plays_and_scores_through_the_toolkit(quiet_logger):
    """gridax's own Keys: its reference solution wins at its baselines, and a renderer
    given to ``make`` sees every answer, as the toolkit calls it."""
    arcade = Arcade(logger=quiet_logger)
    shown = []
    env = arcade.make("keys", renderer=lambda steps, frame_data: shown.append(steps))
    game = GAMES["Keys"]
    for moves in game.solutions:
        for move in moves:
            assert isinstance(move, int)  # Keys has no click
            last = env.step(GameAction.from_id(move))
    assert last.state is GameState.WIN and last.levels_completed == len(game.levels)
    assert shown == list(range(1, 2 + sum(map(len, game.solutions))))  # reset, then each
    card = arcade.get_scorecard()
    assert card is not None and card.score == 100.0
    assert make(game, logger=quiet_logger).info.game_id == "keys"


def test_live_the_toolkits_agents_score_alike_on_both(capsys):
    """examples/arc3/toolkit_agents.py: its two agents, seeded, on the official file and
    on gridax: equal scorecards."""
    path = Path(__file__).parents[2] / "examples" / "arc3" / "toolkit_agents.py"
    spec = importlib.util.spec_from_file_location("toolkit_agents", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    results = example.main(
        ["--game", "tu93", "--official", str(official_games_folder()), "--max-actions", "60"]
    )
    for agent in ("RandomAgent", "FrameChangeExplorer"):
        assert results[(agent, "ARC Prize's engine")] == results[(agent, "gridax")]
        assert results[(agent, "gridax")]["actions"] > 0
    assert "FrameChangeExplorer  on gridax" in capsys.readouterr().out
