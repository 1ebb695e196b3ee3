"""What lives in a foraging world: object types and biomes, described in plain Python.

These descriptions are static and hashable (they sit in :class:`ForageConfig`); the env
turns them into arrays (:class:`ForageParams`) once per variant, so that variants of the
same shapes share one compilation.

Rewards follow a *schedule* of the reward clock (the step count plus the reset's random
shift): ``constant``, ``fourier``, ``sine``, ``square`` or ``weather``, defined in
:mod:`~gridax.envs.forage.schedules`. Regrowth delays (:mod:`~gridax.envs.forage.regrowth`):
``("uniform", lo, hi)`` draws an integer in ``[lo, hi)`` (``lo`` when ``lo == hi``);
``("normal", mean, std)`` draws ``max(0, mean + std * N(0, 1))`` rounded down; ``None``
removes the object for good.
"""

from __future__ import annotations

import dataclasses
import math

from gridax.envs.forage.kinds import DELAY_KINDS, SCHEDULES

Colour = tuple[int, int, int]
BROWN: Colour = (63, 30, 25)
MAUVE: Colour = (124, 61, 81)
YELLOW: Colour = (193, 178, 30)
GREEN: Colour = (0, 255, 0)
BLACK: Colour = (0, 0, 0)
WHITE: Colour = (255, 255, 255)
ORANGE: Colour = (218, 145, 0)
OLIVE: Colour = (174, 179, 94)


def _check_delay(name: str, field: str, delay) -> None:
    if delay is None:
        return
    kinds = DELAY_KINDS[1:]  # "never" is written None
    if not (isinstance(delay, tuple) and len(delay) == 3 and delay[0] in kinds):
        raise ValueError(
            f"object {name!r}: {field} must be None, ('uniform', lo, hi) or "
            f"('normal', mean, std); got {delay!r}"
        )
    _, a, b = delay
    if delay[0] == "uniform" and not (0 <= a <= b):
        raise ValueError(f"object {name!r}: {field} ('uniform', lo, hi) needs 0 <= lo <= hi")
    if delay[0] == "normal" and not (a >= 0 and b >= 0):
        raise ValueError(f"object {name!r}: {field} ('normal', mean, std) needs mean, std >= 0")


@dataclasses.dataclass(frozen=True)
class ObjectType:
    """One kind of object. Collectable objects pay their reward when the agent walks on them.

    Attributes:
        name: a label for docs and renderings.
        reward: the constant reward, or the base of a sine, square or weather schedule.
        colour: RGB, 0-255.
        blocking: the agent cannot enter the cell (walls).
        collectable: walking onto it collects it.
        schedule: one of ``constant``, ``fourier``, ``sine``, ``square``, ``weather``.
        amplitude, period, phase: the sine/square wave; ``amplitude`` is also the
            weather multiplier (+1 hot, -1 cold).
        repeat: clock steps per value of a fourier or weather schedule.
        regen: regrowth delay after collection (see the module doc).
        random_respawn: regrow in a random empty cell of the same biome instead of in place.
        expiry_time: an object this many steps old expires and regrows (``None``: never).
        expiry_regen: the regrowth delay after expiry (default: ``regen``).
    """

    name: str
    reward: float = 0.0
    colour: Colour = WHITE
    blocking: bool = False
    collectable: bool = True
    schedule: str = "constant"
    amplitude: float = 0.0
    period: float = 1.0
    phase: float = 0.0
    repeat: int = 1
    regen: tuple | None = ("uniform", 10, 100)
    random_respawn: bool = False
    expiry_time: int | None = None
    expiry_regen: tuple | None = None

    def __post_init__(self):
        if self.schedule not in SCHEDULES:
            allowed = ", ".join(map(repr, SCHEDULES))
            raise ValueError(
                f"object {self.name!r}: schedule must be one of {allowed}; got {self.schedule!r}"
            )
        if len(self.colour) != 3 or not all(0 <= c <= 255 for c in self.colour):
            raise ValueError(f"object {self.name!r}: colour must be 3 values in 0..255")
        if not (isinstance(self.repeat, int) and self.repeat >= 1):
            raise ValueError(f"object {self.name!r}: repeat must be an integer >= 1")
        if not (self.period > 0 and math.isfinite(self.period)):
            raise ValueError(f"object {self.name!r}: period must be positive")
        if self.expiry_time is not None and self.expiry_time < 1:
            raise ValueError(f"object {self.name!r}: expiry_time must be None or >= 1")
        _check_delay(self.name, "regen", self.regen)
        _check_delay(self.name, "expiry_regen", self.expiry_regen)
        if self.blocking and self.collectable:
            raise ValueError(f"object {self.name!r} cannot be both blocking and collectable")


def wall() -> ObjectType:
    return ObjectType("wall", colour=BLACK, blocking=True, collectable=False, regen=None)


def fourier(name: str = "fourier", repeat: int = 100, regen=("uniform", 9, 11)) -> ObjectType:
    """A food whose reward follows a random periodic curve, redrawn per biome generation."""
    return ObjectType(
        name, colour=BLACK, schedule="fourier", repeat=repeat, regen=regen, random_respawn=True
    )


def _fixed(name, reward, colour, regen) -> ObjectType:
    return ObjectType(name, reward=reward, colour=colour, regen=regen)


# The classic mushrooms (same rewards, colours and regrowth as Foragax's constants).
MOREL = _fixed("morel", 10.0, BROWN, ("uniform", 100, 100))
OYSTER = _fixed("oyster", 1.0, MAUVE, ("uniform", 10, 10))
DEATHCAP = _fixed("deathcap", -1.0, YELLOW, ("uniform", 10, 10))
LARGE_MOREL = _fixed("large_morel", 30.0, BROWN, ("normal", 300, 30))
LARGE_OYSTER = _fixed("large_oyster", 1.0, MAUVE, ("normal", 10, 1))
LARGE_DEATHCAP = _fixed("large_deathcap", -1.0, YELLOW, ("normal", 10, 1))
BROWN_MOREL = _fixed("brown_morel", 30.0, BROWN, ("normal", 300, 30))
BROWN_OYSTER = _fixed("brown_oyster", 1.0, BROWN, ("normal", 10, 1))
GREEN_DEATHCAP = _fixed("green_deathcap", -1.0, GREEN, ("uniform", 10, 10))
GREEN_FAKE = _fixed("green_fake", 0.0, GREEN, ("uniform", 10, 10))


@dataclasses.dataclass(frozen=True)
class Biome:
    """A half-open rectangle of columns ``start[0] <= x < stop[0]`` and rows
    ``start[1] <= y < stop[1]`` (``None``: the whole world) and, per object type in the
    config's order, the fraction of its cells that hold that object at reset.

    Overlapping biomes are laid out largest first, so a smaller biome wins its cells.
    """

    start: tuple[int, int] | None
    stop: tuple[int, int] | None
    frequencies: tuple[float, ...]

    def __post_init__(self):
        if any(f < 0 for f in self.frequencies) or sum(self.frequencies) > 1 + 1e-6:
            raise ValueError(
                f"biome frequencies must be >= 0 and sum to at most 1; got {self.frequencies}"
            )

    def bounds(self, width: int, height: int) -> tuple[int, int, int, int]:
        """``(x0, y0, x1, y1)`` clipped to the world."""
        x0, y0 = self.start if self.start is not None else (0, 0)
        x1, y1 = self.stop if self.stop is not None else (width, height)
        return max(0, x0), max(0, y0), min(width, x1), min(height, y1)
