"""Static configuration of a foraging world, and its lowering into what the step sees.

:class:`ForageConfig` is what a user picks (an id's variant plus overrides). It lowers
in two: :class:`~gridax.envs.forage.structure.Structure` (``config.structure()``), the
few facts that fix shapes and Python branches, and
:class:`~gridax.envs.forage.params.ForageParams` (``config.params()``), every number of
the variant as arrays carried in the state. Variants with the same structure share one
compilation, and a batch may hold envs of different variants.
"""

from __future__ import annotations

import dataclasses
import math

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from gridax.envs.forage.kinds import REGENERATED, SCHEDULES, TIME_VARYING, WAVES, encode_delay
from gridax.envs.forage.objects import WHITE, Biome, ObjectType
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.temperatures import Series, synthetic_temperatures
from gridax.validation import is_integer, require_int, require_options

OBSERVATIONS = ("object", "rgb", "color")
# A regenerating biome keeps the reward curves of this many generations, so objects that
# survive a regeneration keep theirs (see ForageConfig.generations_kept).
MAX_GENERATIONS_KEPT = 64


def _fail(field: str, message: str, value) -> None:
    raise ValueError(f"ForageConfig.{field} {message}; got {value!r}")


class ForageConfig(eqx.Module):
    """A foraging world. Everything here is static; see ``docs/forage.md``.

    Attributes:
        name: the registered id this config came from (for printing and checkpoints).
        width, height: world size in cells (x is the column, y the row).
        wrap: a torus (True) or a world walled at its edges (False).
        aperture: the agent's view, ``(h, w)`` odd sizes (an int means square), or
            ``None`` for the whole world.
        observation: ``"object"`` (one-hot object ids), ``"rgb"`` (colours in [0, 1]) or
            ``"color"`` (one-hot over distinct object colours).
        episode_length: ``None`` for a continuing world (``done`` is always false), or
            the number of steps after which ``done`` turns true.
        objects: the object types; their ids are 1..K in this order.
        biomes: the biomes (see :class:`Biome`).
        deterministic_spawn: place exactly ``ceil(cells * frequency)`` objects per biome
            instead of one independent draw per cell.
        biome_threshold: ``None`` for static biomes; otherwise a biome regenerates when
            its consumption count reaches this int, or this fraction (a float) of the
            objects it spawned.
        biome_spawn_empty: probability that each old fourier/sine object of a
            regenerating biome is removed.
        center_reward: subtract from each reward the mean current reward of all food in
            the world.
        hint: add a one-hot of the best food biome to the observation, shown for
            ``hint_duration`` steps every ``hint_every`` steps.
        random_shift: the reward clock starts at a random offset in ``[0, random_shift]``.
        temperatures: the weather objects' series (values in [-1, 1]); ``None`` uses
            :func:`synthetic_temperatures`.
    """

    name: str
    width: int
    height: int
    objects: tuple[ObjectType, ...]
    biomes: tuple[Biome, ...]
    wrap: bool = True
    aperture: int | tuple[int, int] | None = (5, 5)
    observation: str = "color"
    episode_length: int | None = None
    deterministic_spawn: bool = False
    biome_threshold: int | float | None = None
    biome_spawn_empty: float = 0.0
    center_reward: bool = False
    hint: bool = False
    hint_every: int = 100
    hint_duration: int = 4
    random_shift: int = 0
    temperatures: Series | None = None

    def __check_init__(self):
        for field in ("width", "height"):
            require_int(f"ForageConfig.{field}", getattr(self, field), 1, 4096)
        if not self.objects or not all(isinstance(o, ObjectType) for o in self.objects):
            _fail("objects", "must be a non-empty tuple of ObjectType", self.objects)
        if len(self.objects) > 100:
            _fail("objects", "holds at most 100 object types", len(self.objects))
        if not self.biomes or not all(isinstance(b, Biome) for b in self.biomes):
            _fail("biomes", "must be a non-empty tuple of Biome", self.biomes)
        if len(self.biomes) > 100:  # biome ids are stored as int8
            _fail("biomes", "holds at most 100 biomes", len(self.biomes))
        for i, biome in enumerate(self.biomes):
            if len(biome.frequencies) > len(self.objects):
                _fail(f"biomes[{i}].frequencies", "has more entries than objects", biome)
            x0, y0, x1, y1 = biome.bounds(self.width, self.height)
            if x0 >= x1 or y0 >= y1:
                _fail(f"biomes[{i}]", "covers no cell of the world", biome)
        size = self.aperture_shape
        if size is not None:
            odd = all(isinstance(s, int) and s >= 1 and s % 2 == 1 for s in size)
            if len(size) != 2 or not odd:
                _fail("aperture", "must be None or odd positive sizes (h, w)", self.aperture)
        if self.observation not in OBSERVATIONS:
            _fail(
                "observation",
                f"must be one of {', '.join(map(repr, OBSERVATIONS))}",
                self.observation,
            )
        if self.episode_length is not None and not (
            is_integer(self.episode_length) and self.episode_length >= 1
        ):
            _fail("episode_length", "must be None or an integer >= 1", self.episode_length)
        threshold = self.biome_threshold
        if threshold is not None and (isinstance(threshold, bool) or not threshold > 0):
            _fail(
                "biome_threshold", "must be None, a positive int or a positive fraction", threshold
            )
        if not 0.0 <= self.biome_spawn_empty <= 1.0:
            _fail("biome_spawn_empty", "must be a probability in [0, 1]", self.biome_spawn_empty)
        for field in ("hint_every", "hint_duration"):
            require_int(f"ForageConfig.{field}", getattr(self, field), 1)
        require_int("ForageConfig.random_shift", self.random_shift, 0)
        if self.temperatures is not None and not isinstance(self.temperatures, Series):
            _fail("temperatures", "must be None or a Series", self.temperatures)

    @property
    def aperture_shape(self) -> tuple[int, int] | None:
        if self.aperture is None or isinstance(self.aperture, tuple):
            return self.aperture
        return (self.aperture, self.aperture)

    @property
    def generations_kept(self) -> int:
        """Reward curves kept per biome: 1 for static biomes; else the smallest power of
        two ``R`` with ``(1 - spawn_empty) ** R < 1e-6`` (at most 64), so that an object
        outliving ``R`` regenerations (and losing its curve) is rarer than one in a million.
        """
        if self.biome_threshold is None:
            return 1
        survive = 1.0 - self.biome_spawn_empty
        kept = 2
        while kept < MAX_GENERATIONS_KEPT and survive**kept >= 1e-6:
            kept *= 2
        return kept

    def regrowth_horizon(self) -> int:
        """A power of two above every regrowth delay plus 2: the calendar length of the
        centred reward. Normal delays count up to mean + 8 std (longer draws are cut
        there when the reward is centred)."""
        longest = 0
        for obj in self.objects:
            for delay in (obj.regen, obj.expiry_regen):
                if delay is None:
                    continue
                kind, a, b = delay
                longest = max(longest, b if kind == "uniform" else math.ceil(a + 8 * b))
        horizon = 4
        while horizon < longest + 3:
            horizon *= 2
        return horizon

    def _all_objects(self) -> list[ObjectType]:
        """Ids 0..K+1: empty, the config's objects, padding."""
        empty = ObjectType("empty", colour=WHITE, collectable=False, regen=None)
        padding = ObjectType(
            "padding", colour=(0, 0, 0), blocking=True, collectable=False, regen=None
        )
        return [empty, *self.objects, padding]

    def food_biomes(self) -> list[int]:
        """Biomes that spawn some non-blocking object: the regions of diagnostics and hints."""
        return [
            i
            for i, biome in enumerate(self.biomes)
            if any(f > 0 and not self.objects[j].blocking for j, f in enumerate(biome.frequencies))
        ]

    def colour_channels(self) -> list[int]:
        """Channel of each id 0..K+1 in the colour observation: distinct colours of the
        objects (and of padding, when the aperture can see past a wall) in order of first
        appearance; -1 for empty, and for padding when there is none."""
        seen: dict[tuple[int, int, int], int] = {}
        channels = [-1] + [seen.setdefault(o.colour, len(seen)) for o in self.objects]
        padding = self._all_objects()[-1]
        sees_padding = not self.wrap and self.aperture is not None  # as Structure.padding
        channels.append(seen.setdefault(padding.colour, len(seen)) if sees_padding else -1)
        return channels

    def structure(self) -> Structure:
        objects = self.objects
        schedules = {o.schedule for o in objects}
        channels = self.colour_channels()
        return Structure(
            width=self.width,
            height=self.height,
            wrap=self.wrap,
            aperture=self.aperture_shape,
            observation=self.observation,
            episode_length=self.episode_length,
            num_objects=len(objects),
            num_biomes=len(self.biomes),
            num_food_biomes=len(self.food_biomes()),
            num_colours=max(channels) + 1,
            generations_kept=self.generations_kept,
            fourier="fourier" in schedules,
            waves=bool(schedules & set(WAVES)),
            expiry=any(o.expiry_time is not None for o in objects),
            dynamic_biomes=self.biome_threshold is not None,
            center_reward=self.center_reward,
            horizon=self.regrowth_horizon() if self.center_reward else 0,
            hint=self.hint,
            temperatures=(self.temperatures or synthetic_temperatures())
            if "weather" in schedules
            else None,
        )

    def params(self) -> ForageParams:
        """The variant's numbers as arrays (see :class:`ForageParams`)."""
        return _params(self)


def _biome_maps(config: ForageConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Processing order (largest first), the biome id per cell and the region per cell."""
    bounds = [b.bounds(config.width, config.height) for b in config.biomes]
    areas = np.array([(x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in bounds])
    order = np.argsort(areas, kind="stable")[::-1]  # ties: the later biome first
    biome_map = np.full((config.height, config.width), -1, np.int8)
    for i in order:
        x0, y0, x1, y1 = bounds[i]
        biome_map[y0:y1, x0:x1] = i
    food = config.food_biomes()
    region_map = np.full((config.height, config.width), len(food), np.int8)
    for region, i in enumerate(food):
        x0, y0, x1, y1 = bounds[i]
        region_map[y0:y1, x0:x1] = region
    return order.astype(np.int32), biome_map, region_map


def _params(config: ForageConfig) -> ForageParams:
    objects = config._all_objects()
    never = np.iinfo(np.int32).max
    order, biome_map, region_map = _biome_maps(config)
    frequencies = np.zeros((len(config.biomes), len(objects) - 1), np.float32)
    for i, biome in enumerate(config.biomes):
        frequencies[i, 1 : 1 + len(biome.frequencies)] = biome.frequencies
    time_varying = np.array([o.schedule in TIME_VARYING for o in objects])
    threshold = config.biome_threshold

    def column(get, dtype):
        return jnp.asarray(np.array([get(o) for o in objects], dtype=dtype))

    return ForageParams(
        colour=column(lambda o: o.colour, np.uint8),
        colour_channel=jnp.asarray(np.array(config.colour_channels(), np.int8)),
        blocking=column(lambda o: o.blocking, bool),
        collectable=column(lambda o: o.collectable, bool),
        schedule=column(lambda o: SCHEDULES.index(o.schedule), np.int8),
        reward=column(lambda o: o.reward, np.float32),
        amplitude=column(lambda o: o.amplitude, np.float32),
        period=column(lambda o: o.period, np.float32),
        phase=column(lambda o: o.phase, np.float32),
        repeat=column(lambda o: o.repeat, np.int32),
        regen=column(lambda o: encode_delay(o.regen), np.float32),
        expiry_regen=column(
            lambda o: encode_delay(o.expiry_regen if o.expiry_regen is not None else o.regen),
            np.float32,
        ),
        expiry_time=column(lambda o: never if o.expiry_time is None else o.expiry_time, np.int32),
        random_respawn=column(lambda o: o.random_respawn, bool),
        regenerated=column(lambda o: o.schedule in REGENERATED, bool),
        biome_bounds=jnp.asarray(
            np.array([b.bounds(config.width, config.height) for b in config.biomes], np.int32)
        ),
        frequencies=jnp.asarray(frequencies),
        biome_order=jnp.asarray(order),
        biome_time_varying=jnp.asarray((frequencies[:, 1:] > 0).__and__(time_varying[1:-1]).any(1)),
        biome_map=jnp.asarray(biome_map),
        region_map=jnp.asarray(region_map),
        deterministic_spawn=jnp.asarray(config.deterministic_spawn),
        threshold=jnp.asarray(0.0 if threshold is None else threshold, jnp.float32),
        threshold_is_fraction=jnp.asarray(isinstance(threshold, float)),
        spawn_empty=jnp.asarray(config.biome_spawn_empty, jnp.float32),
        random_shift=jnp.asarray(config.random_shift, jnp.int32),
        hint_every=jnp.asarray(config.hint_every, jnp.int32),
        hint_duration=jnp.asarray(config.hint_duration, jnp.int32),
    )


def replace(config: ForageConfig, **overrides) -> ForageConfig:
    """``config`` with fields replaced, validated again; unknown fields are named."""
    require_options(config.name, overrides, {f.name for f in dataclasses.fields(config)})
    return dataclasses.replace(config, **overrides)
