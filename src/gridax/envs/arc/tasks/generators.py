"""Procedural ARC-style tasks, generated inside jit from a seed.

A :class:`Generator` is a family of simple tasks (recolour, flip, translate, ...) with
difficulty knobs. ``generator.task(seed)`` builds one task, its demonstration pairs and
one test pair, as a one-task :class:`~gridax.envs.arc.TaskBank`, so every env feature
works on it unchanged; passed as ``tasks`` to ``reset``, a generator draws a fresh task
every episode and records its seed as ``task_index`` (the task is a pure function of the
seed, so demonstrations, checkpoints and renders regenerate it from there).

Every task of a family shares its task parameters over all pairs (the colours ``a``,
``b``, ``c``, the move, the scale factor); each pair draws its own grid size and objects.
Grids are 0 (black) outside their objects. The rules, for an input grid ``x`` of
``h x w`` cells (``docs/arc-generators.md`` has pictures):

==================  ===============================================================
family              output
==================  ===============================================================
copy                ``x``
recolour            ``x`` with colour ``a`` replaced by ``b``
fill_background     ``x`` with its 0 cells set to ``c``
flip_horizontal     ``x`` mirrored left-right
flip_vertical       ``x`` mirrored top-bottom
rotate              ``x`` (square) turned 90 degrees clockwise
flip_object         ``x`` with its one object mirrored left-right inside its bounding box
rotate_object       ``x`` with its one object (square bounding box) turned clockwise in it
translate           ``x`` with its one object moved ``distance`` cells towards ``direction``
draw_box            ``x`` with a ``c`` outline one cell around its one object's bounding box
scale               ``x`` with every cell scaled up to ``factor x factor`` (2 or 3)
flip_recolour       flip_horizontal, then recolour
translate_recolour  translate, then recolour
rotate_fill         rotate, then fill_background
==================  ===============================================================

``Generator("mixture")`` draws the family of each task uniformly from all of them.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import ClassVar, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float32, Int, Int8, Int32, UInt32

from gridax import prng
from gridax.envs.arc.grid import GRID_SIZE, canvas_box, canvas_coordinates
from gridax.envs.arc.tasks.bank import TaskBank, TaskSource
from gridax.envs.arc.tasks.families import FAMILIES as FAMILY_RECORDS
from gridax.envs.arc.tasks.families import MAX_DISTANCE, MOVES, TaskParameters
from gridax.validation import require_int

FAMILIES = tuple(FAMILY_RECORDS)  # the family names, in the order task parameters number them
MIXTURE = "mixture"
RULES = {name: family.rule for name, family in FAMILY_RECORDS.items()}
MAX_OBJECT_SIZE = 5


class Pair(NamedTuple):
    input: Int8[Array, "30 30"]
    input_shape: Int32[Array, " 2"]
    output: Int8[Array, "30 30"]
    output_shape: Int32[Array, " 2"]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(f"Generator: {message}")


def seed_key(seed: Int[Array, ""]) -> UInt32[Array, " 2"]:
    """Raw key data of a task seed (as ``jax.random.PRNGKey(seed)`` for seeds < 2^31)."""
    return jnp.stack([jnp.uint32(0), jnp.asarray(seed).astype(jnp.uint32)])


class Generator(TaskSource):
    """A family of generated tasks and its difficulty knobs (static: no arrays).

    Attributes:
        family: one of :data:`FAMILIES`, or ``"mixture"``.
        min_size, max_size: the range of input grid heights and widths (a rotate
            task's grids are square; a scale task's inputs are at most ``30 // factor``).
        num_objects: objects in each input (1 for the one-object families).
        num_colours: distinct object colours in a task (1-8; one more is kept for
            ``b``/``c``).
        num_pairs: demonstration pairs per task (each task also has one test pair).

    >>> Generator("recolour", max_size=6).task(7).num_train.tolist()
    [3]
    """

    # Static fields: a generator passed as params through jax.jit (as the adapters pass
    # default_params) is part of the compiled function's identity, not a traced argument.
    family: str = eqx.field(default="copy", static=True)
    min_size: int = eqx.field(default=3, static=True)
    max_size: int = eqx.field(default=10, static=True)
    num_objects: int = eqx.field(default=2, static=True)
    num_colours: int = eqx.field(default=3, static=True)
    num_pairs: int = eqx.field(default=3, static=True)

    extra_keys: ClassVar[int] = 1

    def __check_init__(self):
        allowed = ", ".join(map(repr, FAMILIES + (MIXTURE,)))
        _require(
            self.family in FAMILIES + (MIXTURE,),
            f"family must be one of {allowed}; got {self.family!r}",
        )
        for name, low, high in (
            ("min_size", 3, GRID_SIZE),
            ("max_size", 3, GRID_SIZE),
            ("num_objects", 1, 9),
            ("num_colours", 1, 8),
            ("num_pairs", 1, 10),
        ):
            require_int(f"Generator: {name}", getattr(self, name), low, high)
        _require(
            self.min_size <= self.max_size,
            f"min_size ({self.min_size}) must not exceed max_size ({self.max_size})",
        )

    @property
    def source(self) -> str:
        """Names the generator and its knobs, as a bank's ``source`` names its data."""
        return (
            f"generator:{self.family}(sizes {self.min_size}-{self.max_size}, "
            f"{self.num_objects} objects, {self.num_colours} colours, {self.num_pairs} pairs)"
        )

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()

    # --- TaskSource: a fresh task every episode; its seed is what task_index records ---

    def identity(self) -> tuple[str, int, str]:
        return self.source, 0, self.digest

    def episode_task(self, keys, draw, task_index):
        del draw
        seed = (keys[0][0] >> 1).astype(jnp.int32) if task_index is None else task_index
        return self.task(seed), jnp.int32(0), seed.astype(jnp.int32)

    def tasks_of(self, task_index):
        task_index = np.asarray(task_index)
        bank = self.bank(task_index.reshape(-1))
        return bank, jnp.arange(len(bank), dtype=jnp.int32).reshape(task_index.shape)

    def max_pairs(self, part: str) -> int:
        return self.num_pairs if part == "train" else 1

    @property
    def task_index_limit(self) -> None:
        return None  # any int32 seed

    def for_jit(self) -> Generator:
        return self

    def parameters(self, seed: Int[Array, ""]) -> TaskParameters:
        """The parameters that the pairs of task ``seed`` share."""
        (_, pairs_key), uniforms = prng.split_uniform(seed_key(seed), 2, 13)
        draws = _Draws(uniforms)
        if self.family == MIXTURE:
            family = draws.integer(0, len(FAMILIES) - 1)
        else:
            family = jnp.int32(FAMILIES.index(self.family))
        palette = jnp.argsort(draws.take(9)).astype(jnp.int32) + 1  # a random order of 1-9
        return TaskParameters(
            family=family,
            palette=palette,
            source_colour=palette[0],
            new_colour=palette[self.num_colours],
            direction=draws.integer(0, 3),
            distance=draws.integer(1, min(MAX_DISTANCE, self.min_size - 1)),
            factor=draws.integer(2, 3),
            pairs_key=pairs_key,
        )

    def pair(self, key, parameters: TaskParameters) -> Pair:
        """One input-output pair of a task with these parameters."""
        if self.family != MIXTURE:
            return _FAMILY_PAIRS[self.family](key, parameters, self)
        branches = [lambda k, p, f=f: _FAMILY_PAIRS[f](k, p, self) for f in FAMILIES]
        return jax.lax.switch(parameters.family, branches, key, parameters)

    def task(self, seed: Int[Array, ""] | int) -> TaskBank:
        """Task ``seed`` as a one-task bank: ``num_pairs`` demonstrations, one test pair."""
        parameters = self.parameters(jnp.asarray(seed, jnp.int32))
        pair_keys = prng.split(parameters.pairs_key, self.num_pairs + 1)
        pairs = jax.vmap(lambda k: self.pair(k, parameters))(pair_keys)

        def part(index: slice):
            return jax.tree.map(lambda x: x[None, index], pairs)

        train, test = part(slice(0, self.num_pairs)), part(slice(self.num_pairs, None))
        return TaskBank(
            train_inputs=train.input,
            train_outputs=train.output,
            train_input_shapes=train.input_shape,
            train_output_shapes=train.output_shape,
            num_train=jnp.full((1,), self.num_pairs, jnp.int32),
            test_inputs=test.input,
            test_outputs=test.output,
            test_input_shapes=test.input_shape,
            test_output_shapes=test.output_shape,
            num_test=jnp.ones((1,), jnp.int32),
            task_ids=(),
            source=self.source,
        )

    def bank(self, seeds) -> TaskBank:
        """The tasks of ``seeds`` (concrete ints) as one bank, generated in one jitted
        call; task ``i`` is ``task(seeds[i])`` and its id is the seed, so a fixed set of
        generated tasks can be saved, rendered and listed like a loaded bank."""
        seeds = np.asarray(seeds)
        if seeds.ndim != 1 or not np.issubdtype(seeds.dtype, np.integer):
            raise TypeError(f"seeds must be a 1-D array of integers, got {seeds!r:.60}")
        tasks = _stacked_tasks(self, jnp.asarray(seeds, jnp.int32))
        return dataclasses.replace(tasks, task_ids=tuple(str(s) for s in seeds.tolist()))


@eqx.filter_jit
def _stacked_tasks(generator: Generator, seeds: Int32[Array, " N"]) -> TaskBank:
    return jax.vmap(lambda seed: jax.tree.map(lambda x: x[0], generator.task(seed)))(seeds)


# --- drawing ----------------------------------------------------------------------------


class _Draws:
    """Hands out the uniforms of one fused draw in order (the count is static)."""

    def __init__(self, uniforms: Float32[Array, " n"]):
        self.uniforms, self.used = uniforms, 0

    def take(self, count: int) -> Float32[Array, " count"]:
        self.used += count
        if self.used > self.uniforms.shape[0]:
            raise ValueError("generator drew more uniforms than it reserved")  # a gridax bug
        return self.uniforms[self.used - count : self.used]

    def integer(self, low, high) -> Int32[Array, ""]:
        """Uniform over ``low..high`` (bounds may be traced; ``high >= low``)."""
        low, high = jnp.asarray(low, jnp.int32), jnp.asarray(high, jnp.int32)
        span = (high - low + 1).astype(jnp.float32)
        step = jnp.floor(self.take(1)[0] * span).astype(jnp.int32)
        return low + jnp.minimum(step, high - low)  # float rounding can reach span


SPRITE_CELLS = MAX_OBJECT_SIZE * MAX_OBJECT_SIZE
UNIFORMS_PER_OBJECT = 7 + SPRITE_CELLS


def _object(draws: _Draws, height, width, margin, room, square=False) -> Bool[Array, "30 30"]:
    """A random sprite (a non-empty random subset of a rectangle of up to 5x5 cells)
    placed ``margin`` cells from the grid's edges, leaving ``room = (up, down, left,
    right)`` free cells beyond it on each side for a later move. A ``square`` sprite
    fills two opposite corners of its square, so that it is its bounding box."""
    up, down, left, right = room
    rows_free = height - 2 * margin - up - down
    cols_free = width - 2 * margin - left - right
    largest = jnp.minimum(MAX_OBJECT_SIZE, rows_free)
    if square:
        largest = jnp.minimum(largest, cols_free)
    object_height = draws.integer(1, largest)
    object_width = draws.integer(1, jnp.minimum(MAX_OBJECT_SIZE, cols_free))
    if square:
        object_width = object_height
    top = margin + up + draws.integer(0, rows_free - object_height)
    left_edge = margin + left + draws.integer(0, cols_free - object_width)
    anchor = (draws.integer(0, object_height - 1), draws.integer(0, object_width - 1))
    bits = draws.take(SPRITE_CELLS).reshape(MAX_OBJECT_SIZE, MAX_OBJECT_SIZE) < 0.7
    # One cell of the rectangle always belongs to the sprite, so it is never empty.
    bits = bits.at[anchor].set(True)
    if square:
        bits = bits.at[0, 0].set(True).at[object_height - 1, object_height - 1].set(True)
    rows, cols = canvas_coordinates()
    inside = canvas_box(top, left_edge, top + object_height - 1, left_edge + object_width - 1)
    sprite_rows = jnp.clip(rows - top, 0, MAX_OBJECT_SIZE - 1)
    sprite_cols = jnp.clip(cols - left_edge, 0, MAX_OBJECT_SIZE - 1)
    return inside & bits[sprite_rows, sprite_cols]


def _scene(
    draws: _Draws,
    parameters: TaskParameters,
    count: int,
    num_colours: int,
    height,
    width,
    margin=0,
    room=(0, 0, 0, 0),
    square=False,
) -> Int8[Array, "30 30"]:
    """``count`` objects of the task's palette on a 0 grid; the first object, painted
    last so that no other covers it, has colour ``a``."""
    grid = jnp.zeros((GRID_SIZE, GRID_SIZE), jnp.int8)
    for index in reversed(range(count)):
        mask = _object(draws, height, width, margin, room, square)
        pick = draws.integer(0, num_colours - 1)
        colour = parameters.source_colour if index == 0 else parameters.palette[pick]
        grid = jnp.where(mask, colour.astype(jnp.int8), grid)
    return grid


def _shape(height, width) -> Int32[Array, " 2"]:
    return jnp.stack([height, width]).astype(jnp.int32)


def _make_pair(name: str):
    """How a family draws an input (grid size, objects, margins) before its rule."""
    family = FAMILY_RECORDS[name]

    def pair(key, parameters: TaskParameters, generator: Generator) -> Pair:
        count = 1 if family.one_object else generator.num_objects
        _, uniforms = prng.split_uniform(key, 0, 2 + count * UNIFORMS_PER_OBJECT)
        draws = _Draws(uniforms)
        high = min(generator.max_size, family.max_size)
        low = min(generator.min_size, high)
        height = draws.integer(low, high)
        width = height if family.square_grid else draws.integer(low, high)
        options = {"margin": family.margin, "square": family.square_object}
        if family.room_for_move:
            move = jnp.asarray(MOVES)[parameters.direction] * parameters.distance
            options["room"] = (
                jnp.maximum(-move[0], 0),
                jnp.maximum(move[0], 0),
                jnp.maximum(-move[1], 0),
                jnp.maximum(move[1], 0),
            )
        grid = _scene(draws, parameters, count, generator.num_colours, height, width, **options)
        if family.keep_background:
            grid = grid.at[height - 1, width - 1].set(0)  # at least one background cell
        shape = _shape(height, width)
        output, output_shape = family.rule(grid, shape, parameters)
        return Pair(grid, shape, output.astype(jnp.int8), output_shape.astype(jnp.int32))

    return pair


_FAMILY_PAIRS = {family: _make_pair(family) for family in FAMILIES}


__all__ = ["FAMILIES", "MIXTURE", "RULES", "Generator", "Pair", "TaskParameters", "seed_key"]
