"""Property-based tests of task loading: valid files round-trip; any corruption of one is
either still a valid task (and loads as one) or raises a ValueError naming the file,
never another exception and never a hang.

Whether a corrupted task is still valid is decided by ``is_valid_task`` below, an
independent statement of the ARC format, not by the loader.
"""

import json
import tempfile
from datetime import timedelta
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gridax.envs import arc

SETTINGS = settings(
    max_examples=60,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def grids(draw) -> list[list[int]]:
    height = draw(st.one_of(st.integers(1, 5), st.integers(1, 30)))
    width = draw(st.one_of(st.integers(1, 5), st.integers(1, 30)))
    return draw(hnp.arrays(np.int8, (height, width), elements=st.integers(0, 9))).tolist()


pairs = st.fixed_dictionaries({"input": grids(), "output": grids()})
tasks = st.fixed_dictionaries(
    {
        "train": st.lists(pairs, min_size=1, max_size=4),
        "test": st.lists(pairs, min_size=1, max_size=2),
    }
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(allow_nan=False)
    | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["train", "test", "input", "output", "x"]), children, max_size=4
        )
    ),
    max_leaves=12,
)


def is_valid_grid(grid) -> bool:
    return (
        isinstance(grid, list)
        and 1 <= len(grid) <= 30
        and all(isinstance(row, list) for row in grid)
        and len({len(row) for row in grid}) == 1
        and 1 <= len(grid[0]) <= 30
        and all(type(cell) is int and 0 <= cell <= 9 for row in grid for cell in row)
    )


def is_valid_task(task) -> bool:
    return isinstance(task, dict) and all(
        isinstance(task.get(part), list)
        and len(task[part]) > 0
        and all(
            isinstance(pair, dict)
            and is_valid_grid(pair.get("input"))
            and is_valid_grid(pair.get("output"))
            for pair in task[part]
        )
        for part in ("train", "test")
    )


def assert_bank_holds(bank: arc.TaskBank, index: int, task: dict) -> None:
    for part in ("train", "test"):
        loaded = bank.pairs(part)
        assert int(loaded.count[index]) == len(task[part])
        for p, pair in enumerate(task[part]):
            for side, grids_, shapes in (
                ("input", loaded.inputs, loaded.input_shapes),
                ("output", loaded.outputs, loaded.output_shapes),
            ):
                grid = np.array(pair[side])
                assert tuple(shapes[index, p].tolist()) == grid.shape
                np.testing.assert_array_equal(
                    grids_[index, p, : grid.shape[0], : grid.shape[1]], grid
                )
                assert int(np.abs(grids_[index, p]).sum()) == int(grid.sum())  # zero padding


@settings(SETTINGS, max_examples=20)  # large valid grids are slow to generate
@given(st.lists(tasks, min_size=1, max_size=3))
def test_random_valid_tasks_round_trip_through_a_folder(task_list):
    with tempfile.TemporaryDirectory() as folder:
        for number, task in enumerate(task_list):
            (Path(folder) / f"task{number}.json").write_text(json.dumps(task))
        bank = arc.load_tasks(folder)
    assert bank.task_ids == tuple(f"task{n}" for n in range(len(task_list)))
    for number, task in enumerate(task_list):
        assert_bank_holds(bank, number, task)


def paths(value, prefix=()):
    """Every position in a JSON tree, as a tuple of keys and indices."""
    yield prefix
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in children:
        yield from paths(child, prefix + (key,))


def replaced(value, path, new):
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def load_one(content: bytes):
    """Loads a folder holding ``content`` as its one task file: (bank or None, error or None)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "task.json"
        path.write_bytes(content)
        try:
            return arc.load_tasks(folder), None
        except ValueError as error:
            assert str(path) in str(error), f"the error does not name the file: {error}"
            return None, error


@SETTINGS
@given(task=tasks, data=st.data())
def test_a_structurally_corrupted_task_loads_or_raises_a_named_value_error(task, data):
    where = data.draw(st.sampled_from(list(paths(task))))
    corrupted = replaced(task, where, data.draw(json_values))
    bank, error = load_one(json.dumps(corrupted).encode())
    if is_valid_task(corrupted):
        assert error is None, error
        assert_bank_holds(bank, 0, corrupted)
    else:
        assert bank is None, f"accepted an invalid task: {corrupted}"


@SETTINGS
@given(task=tasks, data=st.data())
def test_a_byte_corrupted_file_loads_or_raises_a_named_value_error(task, data):
    content = bytearray(json.dumps(task).encode())
    position = data.draw(st.integers(0, len(content) - 1))
    damage = data.draw(st.sampled_from(["truncate", "replace", "insert"]))
    if damage == "truncate":
        content = content[:position]
    else:
        byte = data.draw(st.sampled_from([*b'0129[]{},:"- ', 0x00, 0xFF, 0xC3]))
        content[position : position + (damage == "replace")] = bytes([byte])
    try:
        parsed = json.loads(bytes(content).decode())
    except (UnicodeDecodeError, json.JSONDecodeError):
        parsed = None
    bank, error = load_one(bytes(content))
    if parsed is not None and is_valid_task(parsed):
        assert error is None, error
        assert_bank_holds(bank, 0, parsed)
    else:
        assert bank is None


def test_deeply_nested_json_is_a_named_value_error():
    bank, error = load_one(b"[" * 100_000 + b"]" * 100_000)
    assert bank is None and "nested too deeply" in str(error)
