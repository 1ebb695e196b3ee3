"""The ARC Prize scoring protocol, and ARC Prize submission files.

ARC Prize allows 2 attempts per test output. A test output is solved when either
attempt equals it exactly (same shape, every cell); a task scores the fraction of its
test outputs solved, and the score is the mean over the tasks. A submission file is
JSON: ``{task_id: [{"attempt_1": grid, "attempt_2": grid}, ...]}``, one entry per test
input of the task, in order; a task missing from the file scores 0.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from gridax.envs.arc.tasks.bank import TaskBank
from gridax.envs.arc.tasks.loading import parse_grid
from gridax.validation import close_matches

MAX_ATTEMPTS = 2
ATTEMPT_KEYS = tuple(f"attempt_{k + 1}" for k in range(MAX_ATTEMPTS))

Grid = np.ndarray  # int8, (height, width)


@dataclasses.dataclass(frozen=True)
class Score:
    """An ARC Prize score and where it came from.

    Attributes:
        score: the mean over tasks of the fraction of each task's test outputs solved.
        tasks: per task id, the fraction of its test outputs solved.
        solved: per task id, which of its test outputs either attempt solved.
        missing: task ids of the bank that the submission left out (scored 0).
    """

    score: float
    tasks: dict[str, float]
    solved: dict[str, list[bool]]
    missing: tuple[str, ...] = ()

    def __str__(self) -> str:
        perfect = sum(fraction == 1.0 for fraction in self.tasks.values())
        line = f"score {self.score:.3f} ({perfect} of {len(self.tasks)} tasks fully solved)"
        return line + (f"; {len(self.missing)} tasks missing" if self.missing else "")


def answers(tasks: TaskBank) -> dict[str, list[Grid]]:
    """Every task's test outputs as NumPy grids (their live part), by task id."""
    pairs = tasks.pairs("test")
    outputs, shapes, counts = (
        np.asarray(x) for x in (pairs.outputs, pairs.output_shapes, pairs.count)
    )
    return {
        task_id: [
            outputs[i, j, : shapes[i, j, 0], : shapes[i, j, 1]] for j in range(int(counts[i]))
        ]
        for i, task_id in enumerate(tasks.task_ids)
    }


def score_attempts(tasks: TaskBank, attempts: Mapping[str, list[list[Grid]]]) -> Score:
    """Scores ``attempts`` (per task id, per test output, up to 2 grids) against the
    bank's test outputs; tasks without attempts count as unsolved."""
    solved, fractions = {}, {}
    for task_id, outputs in answers(tasks).items():
        tries = attempts.get(task_id)
        per_output = [
            tries is not None
            and any(a.shape == output.shape and np.array_equal(a, output) for a in tries[j])
            for j, output in enumerate(outputs)
        ]
        solved[task_id] = per_output
        fractions[task_id] = sum(per_output) / len(per_output)
    missing = tuple(t for t in tasks.task_ids if t not in attempts)
    score = float(np.mean(list(fractions.values()))) if fractions else 0.0
    return Score(score, fractions, solved, missing)


def parse_submission(submission, tasks: TaskBank, where: str = "submission"):
    """A submission's attempts as NumPy grids, per task id and test output; a malformed
    entry raises ``ValueError`` naming the task and what is wrong."""
    if not isinstance(submission, Mapping):
        raise ValueError(
            f"{where}: a submission is a JSON object of task id -> list of attempts, "
            f"got {type(submission).__name__}"
        )
    outputs = answers(tasks)
    parsed: dict[str, list[list[Grid]]] = {}
    for task_id, entries in submission.items():
        if task_id not in outputs:
            hint = close_matches(str(task_id), outputs)
            raise ValueError(
                f"{where}: unknown task id {task_id!r} (not in {tasks.source}, "
                f"{len(tasks)} tasks){'; ' + hint if hint else ''}"
            )
        expected = len(outputs[task_id])
        if not isinstance(entries, list) or len(entries) != expected:
            count = len(entries) if isinstance(entries, list) else type(entries).__name__
            raise ValueError(
                f"{where}: task {task_id} has {expected} test output(s); the submission "
                f"gives {count}"
            )
        parsed[task_id] = [
            _attempts(entry, f"{where}: task {task_id}, test output {j}")
            for j, entry in enumerate(entries)
        ]
    return parsed


def _attempts(entry, where: str) -> list[Grid]:
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: expected {{'attempt_1': grid, 'attempt_2': grid}}")
    extra = sorted(set(entry) - set(ATTEMPT_KEYS))
    if extra:
        raise ValueError(
            f"{where}: at most {MAX_ATTEMPTS} attempts ({', '.join(ATTEMPT_KEYS)}); "
            f"got {', '.join(map(repr, extra))}"
        )
    return [parse_grid(entry[key], f"{where}, {key}") for key in ATTEMPT_KEYS if key in entry]


def load_submission(path) -> object:
    """The JSON of a submission file; an unreadable or invalid file names itself."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except OSError as error:
        raise ValueError(f"cannot read submission {str(path)!r}: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"submission {str(path)!r} is not valid JSON ({error})") from None


def score_submission(path, tasks: TaskBank) -> Score:
    """Scores the ARC Prize submission file ``path`` against ``tasks`` (module doc)."""
    where = f"submission {str(path)!r}"
    return score_attempts(tasks, parse_submission(load_submission(path), tasks, where))


def to_submission(attempts: Mapping[str, list[list[Grid]]]) -> dict:
    """Attempts in ARC Prize's submission format (JSON-ready lists of ints)."""
    return {
        task_id: [
            {
                key: grid.tolist()
                for key, grid in zip(ATTEMPT_KEYS[: len(tries)], tries, strict=True)
            }
            for tries in per_task
        ]
        for task_id, per_task in attempts.items()
    }
