"""gridax.validation: each message names the argument, the value and what is allowed."""

import numpy as np
import pytest

from gridax.validation import (
    close_matches,
    require_batch_shape,
    require_int,
    require_known,
    require_type,
)


def test_close_matches_suggest_the_nearest_names():
    assert close_matches("aperturre", ["aperture", "width"]) == "did you mean 'aperture'?"
    assert close_matches("zzz", ["aperture", "width"]) == ""


def test_require_known_lists_the_choices():
    require_known("field", "width", ["width", "height"])
    with pytest.raises(ValueError, match=r"unknown field 'widht'; did you mean 'width'\? \("):
        require_known("field", "widht", ["width", "height"])


@pytest.mark.parametrize(
    ("value", "minimum", "maximum", "message"),
    [
        (0, 1, None, "n must be an integer >= 1; got 0"),
        (True, 0, None, "n must be an integer >= 0; got True"),
        (2.0, 0, None, "n must be an integer >= 0; got 2.0"),
        (5000, 1, 4096, "n must be an integer in 1..4096; got 5000"),
        ("3", None, None, "n must be an integer; got '3'"),
    ],
)
def test_require_int_names_the_range(value, minimum, maximum, message):
    with pytest.raises(ValueError, match=message):
        require_int("n", value, minimum, maximum)


def test_require_int_takes_its_bounds_and_python_ints_only():
    require_int("n", 3, 1, 3)
    require_int("n", 1, 1)
    with pytest.raises(ValueError, match="got np.int64"):  # config values are Python ints
        require_int("n", np.int64(3), 1, 3)


def test_require_type_and_batch_shape():
    with pytest.raises(TypeError, match="config must be an ArcConfig, got str"):
        require_type("config", "x", int, "an ArcConfig")
    assert require_batch_shape((4,), batched=True) == (4,)
    with pytest.raises(ValueError, match=r"one leading axis\), got \(\)"):
        require_batch_shape((), batched=True)
    with pytest.raises(ValueError, match=r"step takes one state, got a batch of shape \(2,\)"):
        require_batch_shape((2,), batched=False)
