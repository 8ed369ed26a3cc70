"""dplab.checks: bad values are named with what is allowed."""

import math

import pytest

from dplab.checks import positive_finite


@pytest.mark.parametrize("value", [0.0, -1.0, math.inf, math.nan])
def test_positive_finite_rejects(value):
    with pytest.raises(ValueError, match=r"sigma=.* is invalid; allowed: a finite number > 0"):
        positive_finite("sigma", value)


def test_positive_finite_returns_a_float():
    assert positive_finite("sigma", 2) == 2.0 and isinstance(positive_finite("sigma", 2), float)
