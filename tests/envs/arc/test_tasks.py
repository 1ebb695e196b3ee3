"""Task loading: real bundled data, folders, and clear errors for bad files."""

import json

import numpy as np
import pytest

from gridax.envs import arc


@pytest.mark.parametrize(
    ("source", "split", "count"),
    [
        ("arc-agi-1", "training", 400),
        ("arc-agi-1", "evaluation", 400),
        ("arc-agi-2", "training", 1000),
        ("arc-agi-2", "evaluation", 120),
    ],
)
def test_builtin_sources_load_every_task(source, split, count):
    bank = arc.load_tasks(source, split=split)
    assert len(bank) == count == len(set(bank.task_ids))
    assert list(bank.task_ids) == sorted(bank.task_ids)
    assert bank.train_inputs.dtype == np.int8 and bank.train_inputs.shape[-2:] == (30, 30)
    # No task is truncated: the pair axis fits the largest task.
    assert bank.train_inputs.shape[1] == int(bank.num_train.max())
    assert bank.test_inputs.shape[1] == int(bank.num_test.max())
    assert int(bank.num_train.min()) >= 1 and int(bank.num_test.min()) >= 1
    shapes = np.asarray(bank.train_output_shapes)
    live = shapes[..., 0] > 0
    assert (shapes[live] >= 1).all() and (shapes[live] <= 30).all()


def test_a_known_task_is_exact():
    bank = arc.load_tasks("arc-agi-1")
    i = bank.index_of("007bbfb7")
    assert bank.train_input_shapes[i, 0].tolist() == [3, 3]
    assert bank.train_output_shapes[i, 0].tolist() == [9, 9]
    assert np.asarray(bank.train_inputs[i, 0, :3, :3]).tolist() == [[0, 7, 7], [7, 7, 7], [0, 7, 7]]
    # Padding is zero.
    assert not np.asarray(bank.train_inputs[i, 0, 3:, :]).any()


def test_index_of_suggests_close_ids():
    bank = arc.load_tasks("arc-agi-1")
    with pytest.raises(ValueError, match="did you mean '007bbfb7'"):
        bank.index_of("007bbfb8")


def write_task(folder, name, task):
    path = folder / f"{name}.json"
    path.write_text(json.dumps(task) if not isinstance(task, str) else task)
    return path


GOOD = {
    "train": [{"input": [[1, 2]], "output": [[3]]}],
    "test": [{"input": [[0]], "output": [[4]]}],
}


def test_folder_loads_recursively_with_relative_ids(tmp_path):
    write_task(tmp_path, "b", GOOD)
    (tmp_path / "concept").mkdir()
    write_task(tmp_path / "concept", "a", GOOD)
    bank = arc.load_tasks(tmp_path)
    assert bank.task_ids == ("b", "concept/a")
    assert bank.train_input_shapes[0, 0].tolist() == [1, 2]
    assert bank.test_outputs[1, 0, 0, 0] == 4


def grid(h, w, value=0):
    return [[value] * w for _ in range(h)]


BAD = [
    ("not json", "{oops", "not valid JSON"),
    ("no train", {"test": GOOD["test"]}, "missing or empty 'train'"),
    (
        "pair without output",
        {"train": [{"input": [[1]]}], "test": GOOD["test"]},
        "needs 'input' and 'output'",
    ),
    ("too big", {"train": [{"input": grid(31, 2), "output": [[1]]}], "test": GOOD["test"]}, "31x2"),
    (
        "ragged",
        {"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": GOOD["test"]},
        "ragged",
    ),
    (
        "colour 10",
        {"train": [{"input": [[1, 10]], "output": [[1]]}], "test": GOOD["test"]},
        "colour 10 at row 0, col 1",
    ),
    (
        "float cell",
        {"train": [{"input": [[1.5]], "output": [[1]]}], "test": GOOD["test"]},
        "integers 0-9",
    ),
    ("empty grid", {"train": [{"input": [], "output": [[1]]}], "test": GOOD["test"]}, "non-empty"),
]


@pytest.mark.parametrize(("name", "task", "message"), BAD, ids=[b[0] for b in BAD])
def test_malformed_task_names_file_and_problem(tmp_path, name, task, message):
    write_task(tmp_path, "fine", GOOD)
    path = write_task(tmp_path, "broken", task)
    with pytest.raises(ValueError, match=message) as error:
        arc.load_tasks(tmp_path)
    assert str(path) in str(error.value)


def test_source_and_split_errors(tmp_path):
    with pytest.raises(ValueError, match="valid splits: 'training', 'evaluation'"):
        arc.load_tasks("arc-agi-1", split="test")
    with pytest.raises(ValueError, match="'arc-agi-1', 'arc-agi-2' or a path"):
        arc.load_tasks("arc-agi-3")
    with pytest.raises(ValueError, match="contains no .json files"):
        arc.load_tasks(tmp_path)
    with pytest.raises(ValueError, match="built-in sources"):
        arc.load_tasks(tmp_path, split="training")


def test_tasks_from_dict_and_demonstrations():
    bank = arc.tasks_from_dict({"one": GOOD, "two": GOOD})
    demos = bank.demonstrations(np.array([0, 1]))
    assert demos.inputs.shape == (2, 1, 30, 30) and demos.count.tolist() == [1, 1]
    assert bank.arrays_only().task_ids == () and len(bank) == 2
    with pytest.raises(ValueError, match="at least one task"):
        arc.tasks_from_dict({})
