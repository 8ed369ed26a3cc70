"""Tests of dplab.numerics against mpmath at 800 digits."""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest

from dplab.numerics import log1mexp, logsubexp, symmetric_from_upper

_POINTS = np.concatenate(
    [
        -np.logspace(-300, 3, 400),
        [
            -1e-320,
            -5e-324,
            -math.log(2.0),
            -np.nextafter(math.log(2.0), 0),
            -np.nextafter(math.log(2.0), 1),
            -745.0,
            -800.0,
        ],
    ]
)


def _reference_log1mexp(x: float) -> float:
    """log(1 − eˣ) at 800 digits, enough for 1 − eˣ to keep eˣ down to x ≈ −1800; expm1 keeps it near 0."""
    with mpmath.workdps(800):
        return float(mpmath.log(-mpmath.expm1(mpmath.mpf(x))))


@pytest.mark.parametrize("x", _POINTS)
def test_log1mexp_matches_mpmath_to_a_few_ulp(x):
    expected = _reference_log1mexp(float(x))
    assert log1mexp(float(x)) == pytest.approx(expected, rel=4e-16, abs=1e-300)


def test_log1mexp_beats_each_single_branch_where_that_branch_fails():
    near_zero, far = -1e-20, -50.0
    assert log1mexp(near_zero) == pytest.approx(_reference_log1mexp(near_zero), rel=1e-15)
    with np.errstate(divide="ignore"):
        assert np.log1p(-np.exp(near_zero)) == -math.inf  # the naive form loses everything near 0
    assert log1mexp(far) == pytest.approx(_reference_log1mexp(far), rel=1e-15)
    assert math.log(-math.expm1(far)) == 0.0  # and the other naive form loses everything far from 0


def test_log1mexp_edges_and_shapes():
    assert log1mexp(0.0) == -math.inf
    assert log1mexp(-math.inf) == 0.0
    assert math.isnan(log1mexp(1e-3)) and math.isnan(log1mexp(math.nan))


def test_log1mexp_is_nan_without_a_warning_for_large_positive_x():
    """exp(1000) overflows; x > 0 is outside the domain and gives NaN quietly, like a masked np.where branch."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(log1mexp(np.array([1000.0, 1e-3]))).all()
    values = np.array([[-1.0, -2.0], [-1e-10, -700.0]])
    out = log1mexp(values)
    assert isinstance(out, np.ndarray) and out.shape == (2, 2)
    assert isinstance(log1mexp(-1.0), float)


@pytest.mark.parametrize(
    "big,small",
    [(0.0, -1e-17), (3.0, 2.999999), (-700.0, -800.0), (10.0, -1e5), (1e3, 1e3 - 1)],
)
def test_logsubexp_matches_mpmath(big, small):
    with mpmath.workdps(800):
        expected = float(mpmath.log(mpmath.exp(mpmath.mpf(big)) - mpmath.exp(mpmath.mpf(small))))
    assert logsubexp(big, small) == pytest.approx(expected, rel=4e-16)


def test_logsubexp_edges_and_broadcasting():
    assert logsubexp(1.0, 1.0) == -math.inf
    assert logsubexp(1.0, -math.inf) == 1.0
    assert math.isnan(logsubexp(0.0, 1.0))
    out = logsubexp(np.array([1.0, 2.0]), 0.0)
    np.testing.assert_allclose(out, np.log(np.exp([1.0, 2.0]) - 1.0), rtol=1e-15)


def test_symmetric_from_upper_keeps_the_upper_triangle_and_mirrors_it():
    draws = np.random.default_rng(0).normal(size=(4, 5, 5))
    out = symmetric_from_upper(draws)
    np.testing.assert_array_equal(out, np.swapaxes(out, -1, -2))
    rows, cols = np.triu_indices(5)
    np.testing.assert_array_equal(out[:, rows, cols], draws[:, rows, cols])
    for matrix, draw in zip(out, draws):  # element by element, against the definition
        for i in range(5):
            for j in range(5):
                assert matrix[i, j] == draw[min(i, j), max(i, j)]
