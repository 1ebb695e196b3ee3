"""The fraction of the roofline, computed from made-up timings (no test here is timed)."""

import pytest

from gridax.bench import roofline, timing
from gridax.bench.roofline import roofline_fraction
from gridax.bench.timing import Benchmark


def test_a_slow_first_round_does_not_move_the_fraction():
    # The roofline ran first in the process and its first round was three times slow: that
    # round alone reads 1.2 "of roofline", the steady rounds 0.4.
    row_seconds = [0.25, 0.25, 0.25, 0.25, 0.25]
    roofline_seconds = [0.30, 0.10, 0.10, 0.10, 0.10]
    assert roofline_fraction(row_seconds, roofline_seconds) == pytest.approx(0.4)
    # A slow stretch over the first two rounds, timed back to back, slows both sides alike.
    assert roofline_fraction([0.5, 0.5, 0.25, 0.25, 0.25], [0.2, 0.2, 0.1, 0.1, 0.1]) == (
        pytest.approx(0.4)
    )
    # The median of the rounds' ratios (0.5, 0.25, 1.5): not the ratio of the medians
    # (0.25), nor the mean of the ratios (0.75).
    assert roofline_fraction([0.2, 0.4, 0.4], [0.1, 0.1, 0.6]) == pytest.approx(0.5)


def _benchmark(name: str) -> Benchmark:
    return Benchmark(name, "-", "scan", 10, 10, lambda: name, 0.0, 0)  # run() names itself


def test_each_row_is_timed_in_turns_with_its_roofline(monkeypatch):
    # The first round is slow for everything; each run's seconds by round.
    seconds = {
        "roofline": [0.30, 0.10, 0.10],
        "arc": [0.50, 0.40, 0.40],
        "forage": [0.50, 0.20, 0.20],
        "autoreset": [1.00, 1.00, 1.00],
    }
    timed_together = []

    def time_in_turns(runs, rounds):
        names = [run() for run in runs]
        timed_together.append(names)
        return [[seconds[name][i] for name in names] for i in range(rounds)]

    monkeypatch.setattr(roofline, "time_in_turns", time_in_turns)
    monkeypatch.setattr(timing, "time_in_turns", time_in_turns)
    compiled = []

    def ceiling(key):
        compiled.append(key)
        return _benchmark("roofline")

    plan = [(lambda: _benchmark("arc"), 1024), (lambda: _benchmark("forage"), 1024)]
    plan += [(lambda: _benchmark("autoreset"), None)]
    rows = roofline.measure_beside_rooflines(plan, ceiling, repeats=3)
    assert compiled == [1024]
    assert timed_together == [["arc", "roofline"], ["forage", "roofline"], ["autoreset"]]
    assert [r.env for r in rows] == ["roofline", "arc", "forage", "autoreset"]
    assert rows[0].roofline_fraction is None and rows[3].roofline_fraction is None
    assert rows[1].roofline_fraction == pytest.approx(0.25)  # rounds: 0.6, 0.25, 0.25
    assert rows[2].roofline_fraction == pytest.approx(0.5)
    # The roofline's own figure: the median of its rounds beside every row.
    assert rows[0].steps_per_second == pytest.approx(10 * 10 / 0.10)
    assert rows[1].steps_per_second == pytest.approx(10 * 10 / 0.40)
