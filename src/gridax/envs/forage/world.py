"""The pieces of a foraging step: spawning, reward schedules, regrowth delays.

All functions act on one env (``vmap`` adds the batch) and take the variant's numbers
from :class:`ForageParams`; shapes and branches come from :class:`Structure`.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float32, Int8, Int32

from gridax.envs.forage.config import ForageParams, Structure
from gridax.envs.forage.objects import FOURIER_TERMS, SCHEDULES

CONSTANT, FOURIER, SINE, SQUARE, WEATHER = range(len(SCHEDULES))
CURVE_WIDTH = 3 + 2 * FOURIER_TERMS  # period, min, max, then a_n and b_n
_HARMONICS = np.arange(1, FOURIER_TERMS + 1, dtype=np.float32)
# A curve's min and max are taken over 1,000 points of one period, endpoint included;
# the basis turns coefficients into those samples.
_PHASES = np.linspace(0.0, 2 * np.pi, 1000, dtype=np.float64)
_SAMPLE_BASIS = np.concatenate(
    [np.cos(np.outer(_PHASES, _HARMONICS)), np.sin(np.outer(_PHASES, _HARMONICS))], axis=1
).astype(np.float32)


def cell_grid(structure: Structure) -> tuple[Int32[Array, "H W"], Int32[Array, "H W"]]:
    """Row (y) and column (x) index of every cell."""
    shape = (structure.height, structure.width)
    return jax.lax.broadcasted_iota(jnp.int32, shape, 0), jax.lax.broadcasted_iota(
        jnp.int32, shape, 1
    )


def biome_cells(params: ForageParams, biome, structure: Structure) -> Bool[Array, "H W"]:
    """The cells of a biome's rectangle."""
    x0, y0, x1, y1 = (params.biome_bounds[biome, i] for i in range(4))
    rows, cols = cell_grid(structure)
    return (cols >= x0) & (cols < x1) & (rows >= y0) & (rows < y1)


def spawn(
    draw: Float32[Array, "H W"],
    params: ForageParams,
    biome,
    free: Bool[Array, "H W"],
    structure: Structure,
) -> Int8[Array, "H W"]:
    """New object ids on the free cells of a biome's rectangle (0 where none spawns),
    from one uniform per cell (``draw``).

    Bernoulli spawn: each cell independently, empty with probability ``1 - sum(f)``,
    else object ``j`` with probability ``f_j``. Deterministic spawn: exactly
    ``ceil(N * (f_j + ... + f_K)) - ceil(N * (f_{j+1} + ... + f_K))`` objects of id ``j``
    (N the rectangle's cells), the highest ids on the cells of highest random priority;
    cells that are not free rank last and receive nothing.
    """
    inside = biome_cells(params, biome, structure)
    frequencies = params.frequencies[biome, 1:]  # ids 1..K

    starts = 1.0 - jnp.sum(frequencies) + jnp.cumsum(frequencies) - frequencies
    bernoulli = jnp.sum(draw[..., None] >= starts[None, None], axis=-1, dtype=jnp.int32)

    cells = jnp.sum(inside, dtype=jnp.int32).astype(jnp.float32)
    from_last = jnp.cumsum(frequencies[::-1])[::-1]  # f_j + ... + f_K
    # ids >= j take ranks < quota_j; the tolerance keeps float32 rounding (360 * 4/60 =
    # 24.000002) from adding an object.
    quota = jnp.ceil(cells * from_last - 1e-3).astype(jnp.int32)
    priority = jnp.where(inside & free, draw, jnp.where(inside, -10.0, -jnp.inf)).reshape(-1)
    order = jnp.argsort(-priority)
    rank = jnp.zeros_like(order).at[order].set(jnp.arange(order.size, dtype=order.dtype))
    rank = rank.reshape(inside.shape).astype(jnp.int32)
    exact = jnp.sum(rank[..., None] < quota[None, None], axis=-1, dtype=jnp.int32)

    ids = jnp.where(params.deterministic_spawn, exact, bernoulli)
    return jnp.where(inside & free, ids, 0).astype(jnp.int8)


def gaussian(u1, u2):
    """Standard normal draws from two uniforms in [0, 1) (Box-Muller). Cheaper to compile
    than ``jax.random.normal``, and lets one uniform draw feed a whole step."""
    return jnp.sqrt(-2.0 * jnp.log1p(-u1)) * jnp.cos((2 * math.pi) * u2)


def ordered_sum(terms: Float32[Array, "... n"]) -> Float32[Array, "..."]:
    """The sum over the last axis, added pairwise in a fixed order.

    ``jnp.sum`` (and a matmul) may add in an order that depends on the batch size XLA
    vectorises over, which changes the last bit. Elementwise additions of halves (zeros
    pad to a power of two) give the same bits batched or not, on any number of devices.
    """
    size = terms.shape[-1]
    padded = 1 << max(size - 1, 0).bit_length()
    if padded != size:
        zeros = jnp.zeros(terms.shape[:-1] + (padded - size,), terms.dtype)
        terms = jnp.concatenate([terms, zeros], axis=-1)
    while terms.shape[-1] > 1:
        half = terms.shape[-1] // 2
        terms = terms[..., :half] + terms[..., half:]
    return terms[..., 0]


def ordered_sum_of(terms: list[Float32[Array, "..."]]) -> Float32[Array, "..."]:
    """:func:`ordered_sum` of ``jnp.stack(terms, -1)``, bit for bit, without stacking:
    XLA fuses the additions of a few separate terms into one pass, where the stacked
    form keeps every halving in memory."""
    padded = 1 << max(len(terms) - 1, 0).bit_length()
    terms = list(terms) + [jnp.zeros_like(terms[0])] * (padded - len(terms))
    while len(terms) > 1:
        half = len(terms) // 2
        terms = [terms[k] + terms[k + half] for k in range(half)]
    return terms[0]


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


DELAY_DRAWS = 3


def draw_delay(u: Float32[Array, "3"], rule: Float32[Array, "3"]):
    """``(delay, permanent)`` from three uniforms and a regrowth rule ``(kind, a, b)``:
    kind 1 draws an integer in ``[a, b)`` (``a`` when equal), kind 2
    ``max(0, floor(a + b * N(0, 1)))``, kind 0 is permanent removal."""
    kind, a, b = rule[0], rule[1], rule[2]
    uniform = jnp.floor(a + u[0] * (b - a))
    normal = jnp.maximum(0.0, jnp.floor(a + b * gaussian(u[1], u[2])))
    delay = jnp.where(kind == 2, normal, uniform).astype(jnp.int32)
    return delay, kind == 0


def choose_cell(u: Float32[Array, ""], candidates: Bool[Array, "H W"]) -> Int32[Array, ""]:
    """A uniformly random candidate cell as a flat index, from one uniform (0 when there
    is no candidate)."""
    flat = candidates.reshape(-1)
    count = jnp.sum(flat, dtype=jnp.int32)
    pick = jnp.floor(u * count.astype(jnp.float32)).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(flat, dtype=jnp.int32) > pick).astype(jnp.int32)
