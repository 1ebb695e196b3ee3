"""Reward schedules: what collecting an object pays at a reward clock ``c``.

==========  ===============================================================
constant    ``reward``
fourier     a random periodic curve per biome and generation, in [-1, 1]: period
            ``P`` uniform in 10..1000, ``a_n, b_n ~ N(0, 1)/n`` for n = 1..10,
            evaluated at ``s = 2 pi ((c // repeat) mod P) / P`` and min-max scaled
            over one period
sine        ``reward + amplitude * sin(2 pi c / period + phase)``
square      ``reward + amplitude * sign(sin(2 pi c / period + phase))``
weather     ``reward + amplitude * T[(c // repeat) mod len(T)]``, T a temperature
            series in [-1, 1]
==========  ===============================================================

These are pure functions of the params and the clock; ``reward.py`` reads them into the
state's cache and the step's reward. A schedule is stored per object id as its ordinal
in :data:`~gridax.envs.forage.kinds.SCHEDULES`.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float32, Int32

from gridax.envs.forage.arithmetic import gaussian, ordered_sum, ordered_sum_of
from gridax.envs.forage.kinds import (
    SINE,
    SQUARE,
    WEATHER,
    is_fourier,
)
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.structure import Structure

FOURIER_TERMS = 10


# --- fourier curves --------------------------------------------------------------------

_HARMONICS = np.arange(1, FOURIER_TERMS + 1, dtype=np.float32)
# A curve's min and max are taken over 1,000 points of one period, endpoint included;
# the basis turns coefficients into those samples.
_PHASES = np.linspace(0.0, 2 * np.pi, 1000, dtype=np.float64)
_SAMPLE_BASIS = np.concatenate(
    [np.cos(np.outer(_PHASES, _HARMONICS)), np.sin(np.outer(_PHASES, _HARMONICS))], axis=1
).astype(np.float32)
CURVE_DRAWS = 1 + 4 * FOURIER_TERMS  # uniforms per curve: period, then 2 per coefficient


def draw_curve(u: Float32[Array, " D"]) -> Float32[Array, " C"]:
    """A fourier reward curve from ``CURVE_DRAWS`` uniforms:
    [period, min, max, a_1, b_1, ..., a_10, b_10]."""
    period = jnp.floor(10.0 + u[0] * 991.0)  # uniform in 10..1000
    pairs = u[1:].reshape(2, 2, FOURIER_TERMS)
    coefficients = gaussian(pairs[0], pairs[1]) / _HARMONICS[None]
    # Term by term: the (1000, 20) product and its halvings took 2.4 MB per env at reset
    # on ForagaxBig-v5 (36 curves); the fused sum keeps only the 1,000 samples.
    flat = coefficients.reshape(-1)
    samples = ordered_sum_of([_SAMPLE_BASIS[:, k] * flat[k] for k in range(flat.shape[0])])
    interleaved = coefficients.T.reshape(-1)  # a_1, b_1, a_2, b_2, ...
    return jnp.concatenate([jnp.stack([period, samples.min(), samples.max()]), interleaved])


def curve_value(curve: Float32[Array, "... C"], step: Int32[Array, "..."]) -> Float32[Array, "..."]:
    """A fourier curve's reward after ``step`` slow-clock ticks, scaled to [-1, 1]."""
    period, low, high = curve[..., 0], curve[..., 1], curve[..., 2]
    phase = jnp.mod(step.astype(jnp.float32), period)
    s = (2 * math.pi) * phase / period
    angles = s[..., None] * jnp.asarray(_HARMONICS).reshape((1,) * s.ndim + (-1,))
    a, b = curve[..., 3::2], curve[..., 4::2]
    y = ordered_sum(a * jnp.cos(angles) + b * jnp.sin(angles))
    spread = high - low
    scaled = 2 * (y - low) / jnp.where(spread < 1e-8, 1.0, spread) - 1
    return jnp.where(spread < 1e-8, 0.0, scaled)


def curve_values(curves, params: ForageParams, clock) -> Float32[Array, "B R K2"]:
    """Every curve's value at ``clock`` (zeros when the world has no fourier objects)."""
    if curves.shape[-1] == 0:
        return jnp.zeros(curves.shape[:-1], jnp.float32)
    ticks = jnp.broadcast_to(clock // params.repeat, curves.shape[:-1])
    return curve_value(curves, ticks)


def fourier_ticks(params: ForageParams, clock) -> Bool[Array, ""]:
    """Whether some fourier curve's slow clock ticks between ``clock`` and ``clock + 1``."""
    ticks = is_fourier(params.schedule) & (
        ((clock + 1) // params.repeat) != (clock // params.repeat)
    )
    return jnp.any(ticks)


# --- every type's reward ---------------------------------------------------------------


def type_rewards(
    params: ForageParams, clock: Int32[Array, ""], structure: Structure
) -> Float32[Array, " K2"]:
    """Every object type's reward at ``clock``, except fourier types (see curve_value)."""
    angle = (2 * math.pi) * clock.astype(jnp.float32) / params.period + params.phase
    wave = jnp.sin(angle)
    value = jnp.select(
        [params.schedule == SINE, params.schedule == SQUARE],
        [params.amplitude * wave, params.amplitude * jnp.sign(wave)],
        0.0,
    )
    if structure.temperatures is not None:
        series = jnp.asarray(structure.temperatures.values)
        day = jnp.mod(clock // params.repeat, series.shape[0])
        value = jnp.where(params.schedule == WEATHER, params.amplitude * series[day], value)
    return params.reward + value


# --- a biome generation ----------------------------------------------------------------


def draw_generation(draws, params: ForageParams, structure: Structure):
    """Fourier curves and random colours for every object id of one biome generation,
    from uniforms ``draws[num_ids, generation_draws(structure)]``."""
    num_ids = structure.num_objects + 2
    width = CURVE_DRAWS if structure.fourier else 0
    if structure.fourier:
        curves = jax.vmap(draw_curve)(draws[:, :width])
    else:
        curves = jnp.zeros((num_ids, 0), jnp.float32)
    random_colours = jnp.floor(draws[:, width:] * 256.0).astype(jnp.uint8)
    colours = jnp.where(params.regenerated[:, None], random_colours, params.colour)
    return curves, colours


def generation_draws(structure: Structure) -> int:
    """Uniforms per object id that :func:`draw_generation` needs."""
    return (CURVE_DRAWS if structure.fourier else 0) + 3
