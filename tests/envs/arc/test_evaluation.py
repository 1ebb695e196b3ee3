"""arc.evaluate: the oracle scores 1 on every built-in split, random about 0, the
answers score the same as a submission file, and gridax evaluate writes its report."""

import json

import jax
import pytest

from gridax import cli
from gridax.envs import arc
from gridax.envs.arc.tools.scoring import parse_submission, score_attempts, to_submission


@pytest.mark.parametrize("source", ["arc-agi-1", "arc-agi-2"])
@pytest.mark.parametrize("split", ["training", "evaluation"])
def test_the_oracle_solves_every_test_output(source, split):
    tasks = arc.load_tasks(source, split)
    evaluation = arc.evaluate(arc.Oracle(tasks), tasks, attempts=1)
    assert evaluation.score.score == 1.0 and all(evaluation.score.tasks.values())


def test_random_scores_about_zero_and_its_answers_score_the_same_as_a_file():
    tasks = arc.load_tasks("arc-agi-1", "evaluation")
    config = arc.ArcConfig(mode="eval", selection_format="point", max_episode_steps=20)
    evaluation = arc.evaluate(arc.random_policy(config), tasks, config, seed=3)
    assert evaluation.score.score < 0.02
    assert all(len(tries) == 2 for per_task in evaluation.attempts.values() for tries in per_task)
    parsed = parse_submission(json.loads(json.dumps(to_submission(evaluation.attempts))), tasks)
    assert score_attempts(tasks, parsed) == evaluation.score


def always_submit(obs, key):
    """A policy for the command line test: submit the input as it is."""
    return arc.MaskAction(arc.SUBMIT, jax.numpy.ones((30, 30), bool))


def test_gridax_evaluate_writes_a_report_and_failures(capsys, tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    pair = {"input": [[1, 0]], "output": [[1, 0]]}
    (folder / "same.json").write_text(json.dumps({"train": [pair], "test": [pair]}))
    other = {"input": [[1]], "output": [[2]]}
    (folder / "other.json").write_text(json.dumps({"train": [other], "test": [other]}))
    policy = "tests.envs.arc.test_evaluation:always_submit"
    out = tmp_path / "out"
    assert (
        cli.main(["evaluate", "--tasks", str(folder), "--policy", policy, "--out", str(out)]) == 0
    )
    assert "score 0.500 (1 of 2 tasks fully solved)" in capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    assert report["task_scores"] == {"other": 0.0, "same": 1.0}
    assert report["submission"]["same"] == [{"attempt_1": [[1, 0]], "attempt_2": [[1, 0]]}]
    assert (out / "failures.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--policy", "nowhere:policy"], "cannot import 'nowhere'"),
        (["--policy", "json:missing"], "json has no callable 'missing'"),
        (["--policy", "greedy"], "--policy is 'random', 'oracle' or 'module:function'"),
        (["--tasks", "arc-agi-3:evaluation"], "unknown task source 'arc-agi-3:evaluation'"),
    ],
)
def test_gridax_evaluate_names_bad_arguments(capsys, tmp_path, arguments, message):
    assert cli.main(["evaluate", "--out", str(tmp_path), *arguments]) == 2
    assert message in capsys.readouterr().err


def test_evaluate_needs_eval_mode_and_at_most_two_attempts():
    tasks = arc.load_tasks("arc-agi-1", "evaluation")
    with pytest.raises(ValueError, match="config.mode must be 'eval'"):
        arc.evaluate(arc.Oracle(tasks), tasks, arc.ArcConfig())
    with pytest.raises(ValueError, match="attempts must be an integer in 1..2; got 3"):
        arc.evaluate(arc.Oracle(tasks), tasks, attempts=3)
