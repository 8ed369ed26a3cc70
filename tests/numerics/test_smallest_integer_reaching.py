"""dplab.numerics.smallest_integer_reaching: bisection against a linear scan over every integer."""

from __future__ import annotations

import math

import pytest

from dplab.numerics import smallest_integer_reaching


@pytest.mark.parametrize("level", [-1.0, 0.0, 0.3, 0.5, 0.97, 0.999, 1.0, 1.5])
@pytest.mark.parametrize("upper", [1, 2, 37, 1000])
def test_bisection_equals_a_linear_scan(level, upper):
    def success(g: int) -> float:  # a non-decreasing step function with plateaus
        return min(1.0, math.floor(g / 3) * 3 / 100)

    scan = next((float(g) for g in range(upper + 1) if success(g) >= level), math.nan)
    found = smallest_integer_reaching(success, level, upper)
    assert (math.isnan(found) and math.isnan(scan)) or found == scan
