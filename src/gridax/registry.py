"""``gridax.make(env_id, **overrides)``: every environment behind one small object.

An :class:`Env` holds only its static config (and, for ARC, where its tasks come from),
never arrays, so ``jax.jit(env.step)`` and ``jax.vmap(env.step)`` work on its methods
directly. The variant data (ARC task bank, forage variant arrays) is
``env.default_params``; ``reset`` uses it unless given other params of the same shape.
Pass it explicitly inside a jitted function (``env.reset(key, params)``), as gymnax
code does: a closed-over bank would be baked into the compiled code as a constant.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp

from gridax import spaces
from gridax.actions.selection import ACTION_TYPES, PointAction
from gridax.envs import arc, forage
from gridax.envs.arc import generators
from gridax.envs.arc.operations import NUM_OPERATIONS
from gridax.grid import GRID_SHAPE


class Env(eqx.Module):
    """The functional API of one registered environment, bound to its config."""

    env_id: str = eqx.field(static=True)

    @property
    def default_params(self) -> Any:
        raise NotImplementedError

    def reset(self, key, params=None):
        """``reset(key, params=None) -> (state, obs)``."""
        raise NotImplementedError

    def step(self, state, action):
        """``step(state, action) -> (state, obs, reward, done, info)``."""
        raise NotImplementedError

    def batch_reset(self, keys, params=None):
        raise NotImplementedError

    def batch_step(self, states, actions):
        raise NotImplementedError

    def observe(self, state):
        """The observation of a state (or a batch), as ``reset`` and ``step`` return it."""
        raise NotImplementedError

    def render(self, state, **options):
        """A picture of ``state`` (env ``env=0`` of a batch) as an RGB ``uint8`` array;
        ``path=`` also writes it (``.png``/``.svg``). Options: docs/rendering.md."""
        raise NotImplementedError

    def invariant_violations(self, states) -> dict[str, jax.Array]:
        """For each invariant of the env's state, how many envs of ``states`` (one state
        or a batch) break it; all zero for a healthy state. Jittable. An env without
        invariants of its own returns ``{}``; :func:`gridax.testing.check_env` and
        ``benchmarks/soak.py`` check these."""
        return {}

    @property
    def observation_space(self) -> spaces.Space:
        raise NotImplementedError

    @property
    def action_space(self) -> spaces.Space:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"gridax.make({self.env_id!r})"


# ARC ------------------------------------------------------------------------------------

ARC_SOURCES = {"ArcAgi1-v0": "arc-agi-1", "ArcAgi2-v0": "arc-agi-2", "ArcFolder-v0": None}
# ArcGen-Recolour-v0, ArcGen-FlipHorizontal-v0, ..., ArcGen-Mixture-v0: generated tasks.
GENERATOR_IDS = {
    f"ArcGen-{family.title().replace('_', '')}-v0": family
    for family in generators.FAMILIES + (generators.MIXTURE,)
}
GENERATOR_OPTIONS = ("min_size", "max_size", "num_objects", "num_colours", "num_pairs")


@functools.cache
def _folder_bank(path: str) -> arc.TaskBank:
    return arc.load_tasks(Path(path))


class ArcEnv(Env):
    """An ARC env: ``reset`` samples a task of the bank (or generates one), ``step`` takes
    the structured action of ``config.selection_format`` (``env.action_space.sample(key)``
    makes one)."""

    config: arc.ArcConfig
    source: str = eqx.field(static=True)  # "arc-agi-1", "arc-agi-2", a folder, a generator
    split: str | None = eqx.field(static=True)
    generator: generators.Generator | None = None

    @property
    def default_params(self) -> arc.TaskBank | generators.Generator:
        if self.generator is not None:
            return self.generator
        if self.split is None:
            return _folder_bank(self.source)
        return arc.load_tasks(self.source, self.split)

    def _bank(self, params) -> arc.TaskBank:
        return self.default_params if params is None else params

    def reset(self, key, params=None):
        return arc.reset(key, self.config, self._bank(params))

    def step(self, state, action):
        return arc.step(state, action, self.config)

    def batch_reset(self, keys, params=None):
        return arc.batch_reset(keys, self.config, self._bank(params))

    def batch_step(self, states, actions):
        return arc.batch_step(states, actions, self.config)

    def observe(self, state):
        return arc.observe(state)

    def invariant_violations(self, states):
        return arc.invariant_violations(states, self.config)

    def render(self, state, **options):
        from gridax.envs.arc import render

        return render.render(state, **options)

    @property
    def observation_space(self) -> spaces.Dict:
        tasks, train = self.default_params, self.config.mode == "train"
        if isinstance(tasks, generators.Generator):  # task_index is a task seed
            num_tasks, num_pairs = 2**31, tasks.num_pairs if train else 1
        else:
            num_tasks = len(tasks)
            num_pairs = int(tasks.pairs("train" if train else "test").count.max())
        height, width = GRID_SHAPE

        def grid():
            return spaces.Box(0, 9, GRID_SHAPE, jnp.int8)

        def shape():
            return spaces.Box(1, max(height, width), (2,), jnp.int32)

        return spaces.Dict(
            {
                "working_grid": grid(),
                "working_shape": shape(),
                "input_grid": grid(),
                "input_shape": shape(),
                "clipboard": grid(),
                "clipboard_mask": spaces.Box(0, 1, GRID_SHAPE, jnp.bool_),
                "step_count": spaces.Box(0, self.config.max_episode_steps, (), jnp.int32),
                "task_index": spaces.Box(0, num_tasks - 1, (), jnp.int32),
                "pair_index": spaces.Box(0, num_pairs - 1, (), jnp.int32),
            },
            cls=arc.ArcObservation,
        )

    @property
    def action_space(self) -> spaces.Dict:
        height, width = GRID_SHAPE
        action_type = ACTION_TYPES[self.config.selection_format]
        fields: dict[str, spaces.Space] = {"operation": spaces.Discrete(NUM_OPERATIONS)}
        if action_type is PointAction:
            fields |= {"row": spaces.Discrete(height), "col": spaces.Discrete(width)}
        elif self.config.selection_format == "bbox":
            for name, size in (("r1", height), ("c1", width), ("r2", height), ("c2", width)):
                fields[name] = spaces.Discrete(size)
        else:
            fields["selection"] = spaces.Box(0, 1, GRID_SHAPE, jnp.bool_)
        return spaces.Dict(fields, cls=action_type)


def _make_arc_generator(env_id: str, overrides: dict) -> ArcEnv:
    fields = {f.name for f in dataclasses.fields(arc.ArcConfig)}
    _reject_unknown(env_id, overrides, fields | set(GENERATOR_OPTIONS))
    knobs = {k: v for k, v in overrides.items() if k in GENERATOR_OPTIONS}
    config = arc.ArcConfig(**{k: v for k, v in overrides.items() if k not in knobs})
    generator = generators.Generator(GENERATOR_IDS[env_id], **knobs)
    return ArcEnv(env_id, config, generator.source, None, generator)


def _make_arc(env_id: str, overrides: dict) -> ArcEnv:
    overrides = dict(overrides)
    folder = ARC_SOURCES[env_id] is None
    option = "path" if folder else "split"
    fields = {f.name for f in dataclasses.fields(arc.ArcConfig)}
    _reject_unknown(env_id, overrides, fields | {option})
    if folder:
        if "path" not in overrides:
            raise ValueError("ArcFolder-v0 needs path=, a folder of ARC task JSON files")
        source, split = str(Path(overrides.pop("path")).resolve()), None
        _folder_bank(source)  # a missing, empty or malformed folder fails here
    else:
        source, split = ARC_SOURCES[env_id], overrides.pop("split", "training")
        arc.load_tasks(source, split)  # an unknown split fails here
    return ArcEnv(env_id, arc.ArcConfig(**overrides), source, split)


# Forage ---------------------------------------------------------------------------------


class ForageEnv(Env):
    """A forage env: actions are ints 0-3 (DOWN, RIGHT, UP, LEFT)."""

    config: forage.ForageConfig

    @property
    def default_params(self) -> forage.ForageParams:
        return self.config.params()

    def reset(self, key, params=None):
        return forage.reset(key, self.config, params)

    def step(self, state, action):
        return forage.step(state, action, self.config)

    def batch_reset(self, keys, params=None):
        return forage.batch_reset(keys, self.config, params)

    def batch_step(self, states, actions):
        return forage.batch_step(states, actions, self.config)

    def observe(self, state):
        return forage.observe(state, self.config)

    def invariant_violations(self, states):
        return forage.invariant_violations(states)

    def render(self, state, **options):
        from gridax.envs.forage import render

        return render.render(state, self.config, **options)

    @property
    def num_actions(self) -> int:
        return forage.NUM_ACTIONS

    @property
    def observation_space(self) -> spaces.Space:
        # Every forage observation is a one-hot or a colour in [0, 1].
        _, obs = jax.eval_shape(self.reset, jax.random.key(0))
        boxes = jax.tree.map(lambda x: spaces.Box(0.0, 1.0, x.shape, x.dtype), obs)
        return spaces.Dict(boxes) if isinstance(boxes, dict) else boxes

    @property
    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(forage.NUM_ACTIONS)


# The registry ---------------------------------------------------------------------------


def registered_ids() -> list[str]:
    """Every id ``make`` accepts."""
    return sorted(ARC_SOURCES) + list(GENERATOR_IDS) + forage.registered_ids()


def _reject_unknown(env_id: str, overrides: dict, allowed: set[str]) -> None:
    for name in overrides:
        if name not in allowed:
            close = difflib.get_close_matches(name, sorted(allowed), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ValueError(
                f"{env_id} has no option {name!r}{hint} (options: {', '.join(sorted(allowed))})"
            )


def make(env_id: str, **overrides) -> Env:
    """The environment registered as ``env_id``, with config fields overridden.

    ARC ids take any :class:`~gridax.envs.arc.ArcConfig` field, ``split=`` (built-in
    banks: ``"training"``, the default, or ``"evaluation"``) or, for ``ArcFolder-v0``,
    ``path=``; ``ArcGen-*`` ids (generated tasks) take the generator's knobs
    (``min_size``, ``max_size``, ``num_objects``, ``num_colours``, ``num_pairs``).
    Forage ids take any :class:`~gridax.envs.forage.ForageConfig` field.

    >>> make("ForagaxTwoBiome-v1", aperture=7).observation_space.shape  # colour one-hot
    (7, 7, 2)
    """
    if env_id in ARC_SOURCES:
        return _make_arc(env_id, overrides)
    if env_id in GENERATOR_IDS:
        return _make_arc_generator(env_id, overrides)
    if env_id in forage.registered_ids():
        return ForageEnv(env_id, forage.make_config(env_id, **overrides))
    close = difflib.get_close_matches(env_id, registered_ids(), n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(map(repr, close))}? " if close else ""
    raise ValueError(
        f"unknown env id {env_id!r}; {hint}gridax.registered_ids() lists all "
        f"{len(registered_ids())}"
    )
