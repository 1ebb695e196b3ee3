"""Reward schedules against their formulas, fourier curves against NumPy, temperatures."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs import forage
from gridax.envs.forage import schedules


def test_reward_schedules_against_formulas():
    config = forage.make_config("ForagaxSquareWaveTwoBiome-v11", period=1000.0)
    params = config.params()
    structure = config.structure()
    for clock in (0, 1, 250, 499, 501, 999, 1000, 123_456):
        values = np.asarray(schedules.type_rewards(params, jnp.int32(clock), structure))
        sign = np.sign(np.sin(np.float32(2 * np.pi * clock / 1000)))
        np.testing.assert_allclose(values[1:5], -5 + np.array([9, 3, -3, -9]) * sign, atol=1e-4)
    config = forage.make_config("ForagaxSineTwoBiome-v1")
    for clock in (0, 250_000, 600_000):
        values = np.asarray(
            schedules.type_rewards(config.params(), jnp.int32(clock), config.structure())
        )
        s = math.sin(2 * math.pi * clock / 1e6)
        np.testing.assert_allclose(
            values[1:5], [10 + 10 * s, -10 + 10 * s, -10 - 10 * s, 10 - 10 * s], atol=1e-3
        )
    config = forage.make_config("ForagaxWeather-v5")
    series = config.structure().temperatures.values
    for clock in (0, 499, 500, 10**7):
        values = np.asarray(
            schedules.type_rewards(config.params(), jnp.int32(clock), config.structure())
        )
        day = (clock // 500) % len(series)
        np.testing.assert_allclose(values[1:3], [series[day], -series[day]], rtol=1e-6)


def test_weather_takes_a_users_temperature_record():
    record = forage.Series([0.5, -0.25, 1.0])
    config = forage.make_config("ForagaxWeather-v5", temperatures=record, repeat=10)
    assert config.structure().temperatures == record
    for clock, expected in ((0, 0.5), (9, 0.5), (10, -0.25), (25, 1.0), (30, 0.5)):
        values = schedules.type_rewards(config.params(), jnp.int32(clock), config.structure())
        np.testing.assert_allclose(np.asarray(values)[1:3], [expected, -expected])
    with pytest.raises(ValueError, match="finite"):
        forage.Series([0.0, float("nan")])


def test_fourier_curve_against_numpy():
    curve = np.asarray(
        schedules.draw_curve(jax.random.uniform(jax.random.key(7), (schedules.CURVE_DRAWS,)))
    )
    period, low, high = curve[:3]
    assert 10 <= period <= 1000 and period == int(period)
    a, b = curve[3::2], curve[4::2]
    n = np.arange(1, 11)

    def y(s):
        return np.sum(a * np.cos(n * s) + b * np.sin(n * s))

    samples = [y(s) for s in np.linspace(0, 2 * np.pi, 1000)]
    np.testing.assert_allclose([low, high], [min(samples), max(samples)], rtol=1e-4, atol=1e-5)
    for step in (0, 3, 57, 2000):
        s = 2 * np.pi * (step % period) / period
        expected = 2 * (y(s) - low) / (high - low) - 1
        got = float(schedules.curve_value(jnp.asarray(curve), jnp.int32(step)))
        assert abs(got - expected) < 1e-4


def test_synthetic_temperatures_are_seasonal_and_in_range():
    series = forage.synthetic_temperatures().values
    assert len(series) == round(135 * 365.25) and series.min() == -1 and series.max() == 1
    years = series[: 100 * 365].reshape(100, 365)
    assert years[:, 180:200].mean() > 0.3 > -0.3 > years[:, 0:30].mean()  # July warm, January cold
