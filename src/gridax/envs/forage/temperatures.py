"""The weather objects' temperature record: a hashable series, and a synthetic stand-in
for Foragax's ECA&D files."""

from __future__ import annotations

import functools
import hashlib

import numpy as np


class Series:
    """A hashable, immutable float32 series (a temperature record) for static config."""

    def __init__(self, values):
        array = np.asarray(values, dtype=np.float32).reshape(-1)
        if array.size == 0 or not np.all(np.isfinite(array)):
            raise ValueError("a temperature series must be a non-empty array of finite numbers")
        array.setflags(write=False)
        self.values = array
        self._digest = hashlib.sha1(array.tobytes()).hexdigest()

    def __hash__(self):
        return hash(self._digest)

    def __eq__(self, other):
        return isinstance(other, Series) and self._digest == other._digest

    def __len__(self):
        return self.values.size

    def __repr__(self):
        return f"Series(len={self.values.size}, sha1={self._digest[:10]})"


@functools.cache
def synthetic_temperatures(years: int = 135, seed: int = 0) -> Series:
    """A daily temperature record in [-1, 1] that stands in for Foragax's ECA&D data.

    An annual cosine (coldest in mid January, warmest in mid July) plus day-to-day
    weather as an AR(1) anomaly (correlation 0.7 from one day to the next), then
    min-max scaled to [-1, 1] over the whole record, as Foragax scales its files.
    135 years of days by default, close to the 49,317 days of its first file.
    """
    days = np.arange(round(years * 365.25))
    seasonal = -np.cos(2 * np.pi * (days - 15) / 365.25)
    noise = np.random.default_rng(seed).normal(0.0, 0.35, days.size)
    anomaly = np.zeros(days.size)
    for i in range(1, days.size):
        anomaly[i] = 0.7 * anomaly[i - 1] + noise[i]
    series = seasonal + anomaly
    low, high = series.min(), series.max()
    return Series(2 * (series - low) / (high - low) - 1)
