"""Synthetic logistic data: feature law (chi-square / uniform references), label law (CLT and the MLE of w*)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import minimize
from scipy.special import expit

from dplab.data.synthetic import ball_logistic_dataset, logistic_regression_dataset


def test_shapes_norms_teacher_and_labels() -> None:
    X, y, w_star = logistic_regression_dataset(500, 10, seed=0)
    assert X.shape == (500, 10) and y.shape == (500,) and w_star.shape == (10,)
    assert X.dtype == np.float64 and y.dtype == np.float64
    assert np.all(np.linalg.norm(X, axis=1) <= 1.0 + 1e-12)
    assert set(np.unique(y)) == {-1.0, 1.0}
    np.testing.assert_allclose(w_star, np.full(10, 2 / math.sqrt(10)), rtol=1e-15)
    assert np.linalg.norm(w_star) == pytest.approx(2.0, rel=1e-14)


def test_deterministic_from_seed() -> None:
    first, again, other = (logistic_regression_dataset(50, 3, seed=s) for s in (1, 1, 2))
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_fraction_inside_the_ball_is_the_chi_square_cdf() -> None:
    """‖g‖ ≤ 1 has probability P(χ²_d ≤ 1); those points are unchanged, the others land on the sphere."""
    n, d = 40_000, 3
    X, _, _ = logistic_regression_dataset(n, d, seed=3)
    norms = np.linalg.norm(X, axis=1)
    p = stats.chi2(d).cdf(1.0)
    inside = np.mean(norms < 1.0 - 1e-12)
    assert abs(inside - p) <= 5 * math.sqrt(p * (1 - p) / n)
    np.testing.assert_allclose(norms[norms >= 1.0 - 1e-12], 1.0, rtol=1e-14)
    assert np.all(np.abs(X.mean(axis=0)) <= 5 * X.std(axis=0) / math.sqrt(n))  # symmetric directions


def test_label_frequency_matches_sigmoid_mean() -> None:
    n = 40_000
    X, y, w_star = logistic_regression_dataset(n, 4, seed=4)
    p = expit(X @ w_star)
    positives = np.sum(y == 1.0)
    assert abs(positives - p.sum()) <= 5 * math.sqrt(np.sum(p * (1 - p)))


def test_maximum_likelihood_recovers_the_teacher() -> None:
    """Labels follow P(y=1|x) = sigmoid(⟨w*, x⟩): the MLE is within 5 standard errors (inverse Fisher information)."""
    n, d = 40_000, 2
    X, y, w_star = logistic_regression_dataset(n, d, seed=5)

    def negative_log_likelihood(w: np.ndarray) -> float:
        return float(np.sum(np.logaddexp(0.0, -y * (X @ w))))

    def gradient(w: np.ndarray) -> np.ndarray:
        return -(X * (y * expit(-y * (X @ w)))[:, None]).sum(axis=0)

    w_hat = minimize(negative_log_likelihood, np.zeros(d), jac=gradient, method="BFGS", options={"gtol": 1e-8}).x
    p = expit(X @ w_hat)
    covariance = np.linalg.inv((X * (p * (1 - p))[:, None]).T @ X)
    assert np.all(np.abs(w_hat - w_star) <= 5 * np.sqrt(np.diag(covariance)))
    assert np.all(np.sqrt(np.diag(covariance)) < 0.1)  # the test has power against a wrong teacher


def test_uniform_interval_features_for_d_equal_one() -> None:
    X, y, w_star = logistic_regression_dataset(20_000, 1, seed=6, feature_distribution="uniform_interval")
    assert X.shape == (20_000, 1) and w_star.tolist() == [2.0]
    assert stats.kstest(X[:, 0], stats.uniform(-1.0, 2.0).cdf).pvalue > 1e-4
    p = expit(2.0 * X[:, 0])
    assert abs(np.sum(y == 1.0) - p.sum()) <= 5 * math.sqrt(np.sum(p * (1 - p)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0, "d": 2}, "n=0"),
        ({"n": 10, "d": 0}, "d=0"),
        ({"n": 10, "d": 2.0}, "d=2.0"),
        ({"n": 10, "d": 2, "w_star_norm": -1.0}, "w_star_norm=-1.0"),
        ({"n": 10, "d": 2, "feature_distribution": "normal"}, "feature_distribution='normal'.*gaussian_unit_ball"),
        ({"n": 10, "d": 2, "feature_distribution": "uniform_interval"}, "d=2 must be 1"),
    ],
)
def test_rejects_bad_arguments(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        logistic_regression_dataset(**kwargs, seed=0)


def test_ball_logistic_dataset_radius_law_and_labels():
    """‖x‖ has CDF r^d on [0, 1] (uniform in the ball; Kolmogorov-Smirnov), directions are isotropic (mean near 0),
    labels are ±1 and deterministic in the seed."""
    x, y = ball_logistic_dataset(20_000, 3, seed=11)
    radii = np.linalg.norm(x, axis=1)
    assert stats.kstest(radii, lambda r: np.clip(r, 0, 1) ** 3).pvalue > 1e-3
    assert np.abs((x / radii[:, None]).mean(axis=0)).max() < 0.03
    assert set(np.unique(y)) == {-1.0, 1.0}
    x2, y2 = ball_logistic_dataset(20_000, 3, seed=11)
    assert np.array_equal(x, x2) and np.array_equal(y, y2)
