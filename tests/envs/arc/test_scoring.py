"""ARC Prize scoring: the protocol on a small bank, and every malformed submission named."""

import json

import numpy as np
import pytest

from gridax import cli
from gridax.envs import arc
from gridax.envs.arc.tools.scoring import parse_submission, score_attempts, score_submission

TASKS = {
    "one": {
        "train": [{"input": [[1]], "output": [[2]]}],
        "test": [{"input": [[1, 1]], "output": [[2, 2]]}],
    },
    "two": {
        "train": [{"input": [[1]], "output": [[3]]}],
        "test": [
            {"input": [[1]], "output": [[3]]},
            {"input": [[1], [1]], "output": [[3], [3]]},
        ],
    },
}


@pytest.fixture
def bank():
    return arc.tasks_from_dict(TASKS, source="two tasks")


def write(tmp_path, submission):
    path = tmp_path / "submission.json"
    path.write_text(json.dumps(submission))
    return path


def test_either_attempt_counts_and_tasks_average_their_outputs(bank, tmp_path):
    submission = {
        "one": [{"attempt_1": [[9]], "attempt_2": [[2, 2]]}],  # the second attempt is right
        "two": [{"attempt_1": [[3]]}, {"attempt_1": [[3, 3]], "attempt_2": [[3]]}],
    }
    score = score_submission(write(tmp_path, submission), bank)
    assert score.tasks == {"one": 1.0, "two": 0.5}  # [[3, 3]] is not [[3], [3]]: shape counts
    assert score.score == 0.75 and score.solved["two"] == [True, False] and not score.missing


def test_missing_tasks_score_zero_and_are_listed(bank, tmp_path):
    score = score_submission(write(tmp_path, {"one": [{"attempt_1": [[2, 2]]}]}), bank)
    assert score.score == 0.5 and score.missing == ("two",) and score.tasks["two"] == 0.0
    assert "1 tasks missing" in str(score)


def test_the_answers_score_one(bank):
    answers = {
        task_id: [[np.array(pair["output"], np.int8)] for pair in task["test"]]
        for task_id, task in TASKS.items()
    }
    assert score_attempts(bank, answers).score == 1.0


@pytest.mark.parametrize(
    ("submission", "message"),
    [
        ({"onf": []}, r"unknown task id 'onf' \(not in two tasks, 2 tasks\); did you mean 'one'"),
        ({"two": [{"attempt_1": [[3]]}]}, "task two has 2 test output.s.; the submission gives 1"),
        ({"one": [{"attempt_1": [[1, 2], [3]]}]}, r"task one, test output 0, attempt_1: ragged"),
        ({"one": [{"attempt_1": [[1, 12]]}]}, "attempt_1: colour 12 at row 0, col 1 is outside"),
        (
            {"one": [{"attempt_1": [[1]], "attempt_2": [[1]], "attempt_3": [[1]]}]},
            "task one, test output 0: at most 2 attempts .attempt_1, attempt_2.; got 'attempt_3'",
        ),
        ({"one": [[[1]]]}, r"test output 0: expected \{'attempt_1': grid"),
        ([1, 2], "a submission is a JSON object of task id -> list of attempts, got list"),
    ],
)
def test_malformed_submissions_are_named(bank, tmp_path, submission, message):
    with pytest.raises(ValueError, match=message):
        score_submission(write(tmp_path, submission), bank)


def test_files_that_are_not_json_are_named(bank, tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="bad.json' is not valid JSON"):
        score_submission(tmp_path / "bad.json", bank)
    with pytest.raises(ValueError, match="cannot read submission .*absent.json"):
        score_submission(tmp_path / "absent.json", bank)


def test_gridax_score_prints_three_decimals_and_exits_nonzero_only_on_errors(capsys, tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    for task_id, task in TASKS.items():
        (folder / f"{task_id}.json").write_text(json.dumps(task))
    path = write(tmp_path, {"two": [{"attempt_1": [[3]]}, {"attempt_1": [[3], [3]]}]})
    assert cli.main(["score", str(path), "--tasks", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "score 0.500 (1 of 2 tasks fully solved)" in out and "missing (scored 0): one" in out
    bad = write(tmp_path, {"two": []})
    assert cli.main(["score", str(bad), "--tasks", str(folder)]) == 2
    assert "gridax score: submission" in capsys.readouterr().err
    assert parse_submission({}, arc.load_tasks(folder)) == {}
