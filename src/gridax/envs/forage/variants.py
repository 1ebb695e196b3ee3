"""Registered foraging worlds, with Foragax's ids and meanings (see ``docs/forage.md``).

Each id maps to a :class:`ForageConfig`; :func:`make_config` applies overrides (any
config field) on top. Sizes are (width, height); biomes are half-open rectangles of
columns x and rows y.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable

from gridax.envs.forage.config import ForageConfig, replace
from gridax.envs.forage.objects import (
    BROWN,
    BROWN_MOREL,
    BROWN_OYSTER,
    GREEN_DEATHCAP,
    GREEN_FAKE,
    LARGE_DEATHCAP,
    LARGE_MOREL,
    LARGE_OYSTER,
    MAUVE,
    OLIVE,
    ORANGE,
    Biome,
    ObjectType,
    fourier,
    wall,
)
from gridax.validation import close_matches

ALL = (None, None)


def _band(x0: int, x1: int, height: int, frequencies) -> Biome:
    return Biome((x0, 0), (x1, height), tuple(frequencies))


def two_biome_v1() -> ForageConfig:
    """Morels (+30, slow regrowth) beside deathcaps, oysters (+1) beside look-alike fakes."""
    return ForageConfig(
        name="ForagaxTwoBiome-v1",
        width=15,
        height=15,
        objects=(BROWN_MOREL, BROWN_OYSTER, GREEN_DEATHCAP, GREEN_FAKE),
        biomes=(_band(3, 5, 15, (0.5, 0, 0.25, 0)), _band(10, 12, 15, (0, 0.5, 0, 0.25))),
    )


def two_biome_large_v1() -> ForageConfig:
    return ForageConfig(
        name="ForagaxTwoBiomeLarge-v1",
        width=15,
        height=15,
        objects=(LARGE_DEATHCAP, LARGE_MOREL, LARGE_OYSTER),
        biomes=(_band(3, 5, 15, (0, 0.5, 0)), _band(10, 12, 15, (0.25, 0, 0.5))),
    )


def diwali_v5() -> ForageConfig:
    """One fourier food over the whole map; the map regenerates every 1,000 collections."""
    return ForageConfig(
        name="ForagaxDiwali-v5",
        width=15,
        height=15,
        objects=(fourier("hot_fourier", repeat=100),),
        biomes=(Biome(*ALL, (0.4,)),),
        deterministic_spawn=True,
        biome_threshold=1000,
        biome_spawn_empty=0.4,
    )


def big_v5() -> ForageConfig:
    """Four 9x9 fourier food biomes with a wall block each, on a 28x28 map of scattered walls."""
    food, walls = [], []
    for y in (3, 17):
        for x in (3, 17):
            food.append(Biome((x, y), (x + 9, y + 9), (0.2, 0)))
    for x in (6, 20):
        for y in (6, 20):
            walls.append(Biome((x, y), (x + 3, y + 3), (0, 0.6)))
    return ForageConfig(
        name="ForagaxBig-v5",
        width=28,
        height=28,
        objects=(fourier("hot_fourier", repeat=1000), wall()),
        biomes=(*food, *walls, Biome(*ALL, (0, 0.1))),
        deterministic_spawn=True,
        biome_threshold=10_000,
        biome_spawn_empty=1.0,
        center_reward=True,
        hint=True,
        hint_duration=10,
    )


def _wave(name, reward, amplitude, colour, schedule, period, phase=0.0) -> ObjectType:
    return ObjectType(
        name,
        reward=reward,
        colour=colour,
        schedule=schedule,
        amplitude=amplitude,
        period=period,
        phase=phase,
        regen=("uniform", 9, 11),
        random_respawn=True,
        expiry_time=500,
    )


def square_wave_two_biome_v11(period: float = 500_000) -> ForageConfig:
    """Two biomes whose best food swaps every half period (a square wave)."""
    objects = (
        _wave("oyster_1", -5.0, 9.0, MAUVE, "square", period),
        _wave("chanterelle_1", -5.0, 3.0, ORANGE, "square", period),
        _wave("oyster_2", -5.0, -3.0, MAUVE, "square", period),
        _wave("chanterelle_2", -5.0, -9.0, ORANGE, "square", period),
        wall(),
    )
    return ForageConfig(
        name="ForagaxSquareWaveTwoBiome-v11",
        width=24,
        height=15,
        objects=objects,
        biomes=(
            Biome(*ALL, (0, 0, 0, 0, 4 / 60)),
            _band(4, 8, 15, (15 / 60, 15 / 60, 0, 0, 4 / 60)),
            _band(16, 20, 15, (0, 0, 15 / 60, 15 / 60, 4 / 60)),
        ),
        deterministic_spawn=True,
    )


def sine_two_biome_v1() -> ForageConfig:
    """Oysters and deathcaps whose rewards follow anti-phased sines in the two biomes."""
    period, pi = 1_000_000, math.pi
    objects = (
        _wave("oyster_1", 10.0, 10.0, MAUVE, "sine", period),
        _wave("deathcap_1", -10.0, 10.0, OLIVE, "sine", period),
        _wave("oyster_2", -10.0, 10.0, MAUVE, "sine", period, phase=pi),
        _wave("deathcap_2", 10.0, 10.0, OLIVE, "sine", period, phase=pi),
    )
    return ForageConfig(
        name="ForagaxSineTwoBiome-v1",
        width=15,
        height=15,
        objects=objects,
        biomes=(_band(3, 5, 15, (8 / 30, 8 / 30, 0, 0)), _band(10, 12, 15, (0, 0, 8 / 30, 8 / 30))),
        deterministic_spawn=True,
    )


def weather_v5(repeat: int = 500) -> ForageConfig:
    """Hot food paying the temperature and cold food paying its negative, same colour."""

    def weather(name, sign):
        return ObjectType(
            name,
            colour=BROWN,
            schedule="weather",
            amplitude=sign,
            repeat=repeat,
            regen=("normal", 10, 1),
            random_respawn=True,
        )

    return ForageConfig(
        name="ForagaxWeather-v5",
        width=15,
        height=15,
        objects=(weather("hot", 1.0), weather("cold", -1.0)),
        biomes=(Biome((0, 3), (15, 5), (0.5, 0)), Biome((0, 10), (15, 12), (0, 0.5))),
        deterministic_spawn=True,
    )


VARIANTS: dict[str, Callable[[], ForageConfig]] = {
    "ForagaxTwoBiome-v1": two_biome_v1,
    "ForagaxTwoBiomeLarge-v1": two_biome_large_v1,
    "ForagaxDiwali-v5": diwali_v5,
    "ForagaxBig-v5": big_v5,
    "ForagaxSquareWaveTwoBiome-v11": square_wave_two_biome_v11,
    "ForagaxSineTwoBiome-v1": sine_two_biome_v1,
    "ForagaxWeather-v5": weather_v5,
}
ALIASES = {
    "ForagaxNeverEndingRelearning-v1": "ForagaxSquareWaveTwoBiome-v11",
    "ForagaxUnendingTasks-v1": "ForagaxBig-v5",
}


def registered_ids() -> list[str]:
    """Every forage id, aliases included."""
    return sorted([*VARIANTS, *ALIASES])


def make_config(env_id: str, **overrides) -> ForageConfig:
    """The config of a registered forage id, with any :class:`ForageConfig` field overridden.

    ``ForagaxSquareWaveTwoBiome-v11`` also takes ``period`` and ``ForagaxWeather-v5``
    ``repeat``, as Foragax's ``make`` does.

    >>> make_config("ForagaxDiwali-v5", aperture=9).aperture
    9
    """
    canonical = ALIASES.get(env_id, env_id)
    if canonical not in VARIANTS:
        hint = close_matches(env_id, registered_ids(), cutoff=0.5)
        hint = f"; {hint}" if hint else ""
        raise ValueError(
            f"unknown forage id {env_id!r}{hint} Registered: {', '.join(registered_ids())}"
        )
    builder = VARIANTS[canonical]
    # Some variants take their own knobs (the square wave's period, the weather's repeat).
    knobs = set(inspect.signature(builder).parameters)
    config = builder(**{k: v for k, v in overrides.items() if k in knobs})
    return replace(config, name=env_id, **{k: v for k, v in overrides.items() if k not in knobs})
