"""The kind vocabularies of a foraging world: regrowth delays and reward schedules.

Each kind has a name (what :class:`~gridax.envs.forage.ObjectType` writes) and an
ordinal (what :class:`~gridax.envs.forage.ForageParams` stores per object id). Code
asks the named constants and predicates here, never compares ordinals with ``>=``. This
module imports nothing of the package, so the config, the objects and the rules can all
import it.
"""

from __future__ import annotations

from jaxtyping import Array, Bool

# --- regrowth delays (the rules are in regrowth.py) ------------------------------------

DELAY_KINDS = ("never", "uniform", "normal")
NEVER, UNIFORM, NORMAL = range(len(DELAY_KINDS))


def encode_delay(delay: tuple | None) -> tuple[float, float, float]:
    """A delay as :class:`~gridax.envs.forage.ObjectType` writes it (``None``,
    ``("uniform", lo, hi)`` or ``("normal", mean, std)``) as a rule row ``(kind, a, b)``."""
    if delay is None:
        return (float(NEVER), 0.0, 0.0)
    kind, a, b = delay
    return (float(DELAY_KINDS.index(kind)), float(a), float(b))


# --- reward schedules (their formulas are in schedules.py) -----------------------------

SCHEDULES = ("constant", "fourier", "sine", "square", "weather")
CONSTANT, FOURIER, SINE, SQUARE, WEATHER = range(len(SCHEDULES))
# Types whose objects a biome spawns after its static objects (walls, fixed food).
TIME_VARYING = ("fourier", "sine", "square", "weather")
# Types a dynamic biome replaces when it regenerates; every other object stays.
REGENERATED = ("fourier", "sine")
# Types whose reward changes every step (not cached per cell).
WAVES = ("sine", "square", "weather")


def is_constant(schedule: Array) -> Bool[Array, "..."]:
    return schedule == CONSTANT


def is_fourier(schedule: Array) -> Bool[Array, "..."]:
    return schedule == FOURIER


def changes_every_step(schedule: Array) -> Bool[Array, "..."]:
    """Sine, square and weather schedules (:data:`WAVES`)."""
    return (schedule == SINE) | (schedule == SQUARE) | (schedule == WEATHER)
