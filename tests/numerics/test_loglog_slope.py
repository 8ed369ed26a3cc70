"""The log-log rate fit against exact power laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dplab.numerics import loglog_slope


def test_loglog_slope():
    n = np.array([1e3, 1e4, 1e5])
    assert loglog_slope(n, 3 * n**-2.0) == pytest.approx(-2.0)
    assert math.isnan(loglog_slope([1.0, 1.0], [1.0, 2.0]))


def test_loglog_slope_drops_points_that_have_no_logarithm():
    n = np.array([1e3, 1e4, 1e5, 1e6])
    assert loglog_slope(n, np.array([3e-6, 3e-8, 0.0, np.nan])) == pytest.approx(-2.0)
