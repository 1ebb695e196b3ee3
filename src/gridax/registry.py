"""``gridax.make(env_id, **overrides)``: the id table of every environment.

Each env package registers its ids and a ``make_env(env_id, **overrides)`` that builds
its :class:`~gridax.Env`; this module only looks ids up. The env object holds no arrays
(see :mod:`gridax.interface`).
"""

from __future__ import annotations

from collections.abc import Callable

from gridax.envs import arc, arc3, forage
from gridax.interface import Env
from gridax.validation import close_matches

# Each package: (its registered ids, its make_env).
_PACKAGES: tuple[tuple[Callable[[], list[str]], Callable[..., Env]], ...] = (
    (arc.registered_ids, arc.make_env),
    (forage.registered_ids, forage.make_env),
    (arc3.registered_ids, arc3.make_env),
)


def registered_ids() -> list[str]:
    """Every id ``make`` accepts."""
    return [env_id for ids, _ in _PACKAGES for env_id in ids()]


def make(env_id: str, **overrides) -> Env:
    """The environment registered as ``env_id``, with config fields overridden.

    ARC ids take any :class:`~gridax.envs.arc.ArcConfig` field, ``split=`` (built-in
    banks: ``"training"``, the default, or ``"evaluation"``) or, for ``ArcFolder-v0``,
    ``path=``; ``ArcGen-*`` ids (generated tasks) take the generator's knobs
    (``min_size``, ``max_size``, ``num_objects``, ``num_colours``, ``num_pairs``).
    Forage ids take any :class:`~gridax.envs.forage.ForageConfig` field; ARC-AGI-3 ids
    (``Arc3-<Game>-v0``) take ``max_episode_steps`` and ``strict``.

    >>> make("ForagaxTwoBiome-v1", aperture=7).observation_space.shape  # colour one-hot
    (7, 7, 2)
    """
    for ids, make_env in _PACKAGES:
        if env_id in ids():
            return make_env(env_id, **overrides)
    every = registered_ids()
    hint = close_matches(env_id, every, cutoff=0.5)
    raise ValueError(
        f"unknown env id {env_id!r}; {hint + ' ' if hint else ''}gridax.registered_ids() "
        f"lists all {len(every)}"
    )


def as_env(env: Env | str, **overrides) -> Env:
    """``env`` itself if it is a built env, else ``make(env, **overrides)``: what the
    adapters (``GymnasiumEnv("ArcAgi1-v0", max_episode_steps=5)``) take."""
    if isinstance(env, str):
        return make(env, **overrides)
    if not isinstance(env, Env):
        raise TypeError(f"expected a registered env id or a gridax.Env; got {type(env).__name__}")
    if overrides:
        raise ValueError(f"overrides {sorted(overrides)} need an env id, not a built env")
    return env
