"""The logistic risk against a per-sample loop and the torch loss; the constrained minimiser against a closed form
(1-D, two distinct samples), scipy's SLSQP, explicit KKT conditions and a grid search in 1-D."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

from dplab.learning.erm import (
    constrained_minimiser,
    logistic_risk,
    logistic_risk_gradient,
    logistic_smoothness,
)
from dplab.learning.losses import LogisticLoss


def _data(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-X @ np.full(d, 1.5))), 1.0, -1.0)
    return X, y


def _risk_by_loop(w: np.ndarray, X: np.ndarray, y: np.ndarray, lam: float) -> float:
    losses = [math.log1p(math.exp(-b * float(a @ w))) for a, b in zip(X, y)]
    return math.fsum(losses) / len(losses) + 0.5 * lam * math.fsum(w**2)


@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_risk_of_every_run_matches_a_per_sample_loop(lam: float) -> None:
    X, y = _data(40, 3, seed=0)
    W = np.random.default_rng(1).normal(size=(7, 3))
    expected = [_risk_by_loop(w, X, y, lam) for w in W]
    np.testing.assert_allclose(logistic_risk(W, X, y, lam), expected, rtol=1e-13)
    assert logistic_risk(W[2], X, y, lam).shape == (1,)
    assert logistic_risk(np.zeros(3), X, y)[0] == pytest.approx(math.log(2.0), rel=1e-15)


def test_risk_equals_the_engine_loss_mean_and_does_not_overflow() -> None:
    X, y = _data(30, 2, seed=2)
    w = np.array([0.7, -1.1])
    torch_mean = np.mean(
        [float(LogisticLoss()(torch.tensor(w), torch.tensor(a), torch.tensor(b))) for a, b in zip(X, y)]
    )
    assert logistic_risk(w, X, y)[0] == pytest.approx(torch_mean, rel=1e-13)
    huge = np.array([[1000.0]])  # margins ±1000: log(1 + e^1000) = 1000 to double precision
    assert logistic_risk(huge, np.array([[1.0], [1.0]]), np.array([1.0, -1.0]))[0] == pytest.approx(500.0, rel=1e-15)


@pytest.mark.parametrize("lam", [0.0, 0.2])
def test_gradient_matches_central_differences(lam: float) -> None:
    X, y = _data(50, 3, seed=3)
    w, h = np.array([0.2, -0.4, 0.9]), 1e-6
    numeric = [
        (logistic_risk(w + h * e, X, y, lam) - logistic_risk(w - h * e, X, y, lam))[0] / (2 * h) for e in np.eye(3)
    ]
    np.testing.assert_allclose(logistic_risk_gradient(w, X, y, lam), numeric, rtol=1e-7, atol=1e-10)


def test_smoothness_bounds_the_largest_hessian_eigenvalue() -> None:
    X, y = _data(60, 3, seed=4)
    beta = logistic_smoothness(X, 0.1)
    assert beta == pytest.approx(np.linalg.eigvalsh(X.T @ X / 60).max() / 4 + 0.1, rel=1e-14)
    for w in np.random.default_rng(5).normal(size=(20, 3)):
        s = 1 / (1 + np.exp(-(X @ w)))
        hessian = (X.T * (s * (1 - s))) @ X / 60 + 0.1 * np.eye(3)
        assert np.linalg.eigvalsh(hessian).max() <= beta


@pytest.mark.parametrize(("positives", "radius"), [(3, 10.0), (3, 0.5), (1, 10.0), (1, 0.2)])
def test_minimiser_matches_the_closed_form_of_one_repeated_feature(positives: int, radius: float) -> None:
    """x = a for all n = 4 samples, ``positives`` labelled +1: ℒ'(θ) = a(sigmoid(aθ) − p/n) vanishes at
    θ = logit(p/n)/a; over [−R, R] the minimiser is that point clipped to the interval (ℒ is convex)."""
    a, n = 0.8, 4
    X, y = np.full((n, 1), a), np.array([1.0] * positives + [-1.0] * (n - positives))
    unconstrained = math.log(positives / (n - positives)) / a
    result = constrained_minimiser(X, y, radius, steps=2000)
    assert result.theta[0] == pytest.approx(max(-radius, min(radius, unconstrained)), abs=1e-12)
    assert result.kkt_residual < 1e-12


def _slsqp(X: np.ndarray, y: np.ndarray, radius: float, lam: float) -> np.ndarray:
    reference = minimize(
        lambda v: logistic_risk(v, X, y, lam)[0],
        np.zeros(X.shape[1]),
        jac=lambda v: logistic_risk_gradient(v, X, y, lam),
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda v: radius**2 - v @ v, "jac": lambda v: -2 * v}],
        options={"ftol": 1e-15, "maxiter": 500},
    )
    assert reference.success
    return reference.x


@pytest.mark.parametrize(("radius", "lam"), [(0.1, 0.0), (50.0, 0.0), (0.1, 0.5), (50.0, 0.5)])
def test_minimiser_satisfies_kkt_and_matches_slsqp(radius: float, lam: float) -> None:
    """KKT on the ball: ∇ℒ(θ) = 0 inside, or ∇ℒ(θ) = −μθ with μ ≥ 0 on the sphere; and SLSQP's optimum."""
    X, y = _data(300, 3, seed=6)
    theta, residual = constrained_minimiser(X, y, radius, lam, steps=3000)
    gradient = logistic_risk_gradient(theta, X, y, lam)
    on_sphere = radius < 0.2  # the unconstrained minimiser's norm is 2.7 at lam = 0, 0.27 at lam = 0.5
    assert (np.linalg.norm(theta) == pytest.approx(radius, rel=1e-12)) == on_sphere
    multiplier = -gradient @ theta / radius**2 if on_sphere else 0.0
    assert multiplier >= 0
    np.testing.assert_allclose(gradient + multiplier * theta, 0.0, atol=1e-10)
    beta = logistic_smoothness(X, lam)
    step = theta - gradient / beta
    assert residual == pytest.approx(beta * np.linalg.norm(theta - step * min(1, radius / np.linalg.norm(step))))
    assert residual < 1e-10
    reference = _slsqp(X, y, radius, lam)
    assert logistic_risk(theta, X, y, lam)[0] <= logistic_risk(reference, X, y, lam)[0] + 1e-12
    np.testing.assert_allclose(theta, reference, atol=1e-5)


def test_minimiser_in_one_dimension_matches_a_grid_search_on_the_interval() -> None:
    """In 1-D the ball of radius R is [−R, R] (the contraction study's Laplace domain)."""
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, size=(200, 1))
    y = np.where(rng.random(200) < 1 / (1 + np.exp(-2 * x[:, 0])), 1.0, -1.0)
    theta = constrained_minimiser(x, y, 2.0, steps=500).theta
    grid = np.linspace(-2.0, 2.0, 40001).reshape(-1, 1)
    grid_risk = logistic_risk(grid, x, y)
    assert logistic_risk(theta, x, y)[0] <= grid_risk.min() + 1e-14
    assert float(theta[0]) == pytest.approx(float(grid[np.argmin(grid_risk), 0]), abs=2e-4)


def test_bad_shapes_are_refused_with_the_argument_named() -> None:
    X, y = _data(10, 2, seed=8)
    with pytest.raises(ValueError, match="theta has shape"):
        logistic_risk(np.zeros((2, 3)), X, y)
    with pytest.raises(ValueError, match=r"y has shape \(9,\)"):
        logistic_risk(np.zeros(2), X, y[:9])
    with pytest.raises(ValueError, match="X has shape"):
        constrained_minimiser(np.zeros(4), y[:4], 1.0)
