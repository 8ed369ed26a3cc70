"""Empirical risk against numpy formulas; the PGD minimiser against KKT, scipy's SLSQP and random feasible points."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

from dplab.learning.erm import empirical_risk, projected_gradient_descent_minimiser
from dplab.learning.losses import LinearLoss, LogisticLoss
from dplab.learning.projections import Ball, Interval


@pytest.fixture(autouse=True, scope="module")
def _single_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def _logistic_risk_numpy(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.logaddexp(0.0, -y * (X @ w))))


def _logistic_gradient_numpy(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return -(X * (y / (1.0 + np.exp(y * (X @ w))))[:, None]).mean(axis=0)


def _data(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-X @ np.full(d, 1.5))), 1.0, -1.0)
    return X, y


def test_empirical_risk_matches_numpy_per_run_including_chunked_runs() -> None:
    X, y = _data(1000, 3, seed=0)
    W = np.random.default_rng(1).normal(size=(5000, 3))  # 5000 × 1000 > one chunk of 2^22 evaluations
    risks = empirical_risk(LogisticLoss(), W, X, y).numpy()
    expected = np.array([_logistic_risk_numpy(w, X, y) for w in W])
    np.testing.assert_allclose(risks, expected, rtol=1e-13)
    single = empirical_risk(LogisticLoss(), W[7], X, y)
    assert single.ndim == 0 and float(single) == pytest.approx(expected[7], rel=1e-13)


def test_empirical_risk_of_linear_loss_is_mean_feature_inner_product() -> None:
    X, _ = _data(50, 2, seed=2)
    W = np.array([[1.0, 2.0], [-0.5, 0.0]])
    np.testing.assert_allclose(
        empirical_risk(LinearLoss(offset=3.0), W, X).numpy(), W @ X.mean(axis=0) + 3.0, rtol=1e-13
    )


def test_empirical_risk_rejects_bad_shapes() -> None:
    X, y = _data(10, 2, seed=3)
    with pytest.raises(ValueError, match=r"W has shape \(2, 2, 2\)"):
        empirical_risk(LogisticLoss(), np.zeros((2, 2, 2)), X, y)
    with pytest.raises(ValueError, match=r"Y has shape \(9,\)"):
        empirical_risk(LogisticLoss(), np.zeros((2, 2)), X, y[:9])


@pytest.mark.parametrize("radius", [0.3, 50.0])  # the constraint binds / is slack
def test_minimiser_satisfies_kkt_and_matches_slsqp(radius: float) -> None:
    X, y = _data(300, 3, seed=4)
    w = projected_gradient_descent_minimiser(LogisticLoss(), X, y, Ball(radius), steps=1500).numpy()
    gradient = _logistic_gradient_numpy(w, X, y)
    # KKT for min over a ball: the gradient mapping w − Π(w − ∇F(w)) vanishes.
    step = w - gradient
    gradient_mapping = w - step * min(1.0, radius / np.linalg.norm(step))
    assert np.linalg.norm(gradient_mapping) < 1e-9
    reference = minimize(
        _logistic_risk_numpy,
        np.zeros(3),
        args=(X, y),
        jac=_logistic_gradient_numpy,
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda v: radius**2 - v @ v, "jac": lambda v: -2 * v}],
        options={"ftol": 1e-15, "maxiter": 500},
    )
    assert reference.success
    assert _logistic_risk_numpy(w, X, y) <= reference.fun + 1e-12
    np.testing.assert_allclose(w, reference.x, atol=1e-5)
    assert (np.linalg.norm(w) == pytest.approx(radius, rel=1e-12)) == (radius < 1.0)


def test_minimiser_beats_random_feasible_points_in_an_interval() -> None:
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, size=(200, 1))
    y = np.where(rng.random(200) < 1 / (1 + np.exp(-2 * x[:, 0])), 1.0, -1.0)
    w = projected_gradient_descent_minimiser(LogisticLoss(), x, y, Interval(-2.0, 2.0), steps=500)
    candidates = rng.uniform(-2.0, 2.0, size=(2000, 1))
    best_random = empirical_risk(LogisticLoss(), candidates, x, y).min()
    assert float(empirical_risk(LogisticLoss(), w, x, y)) <= float(best_random) + 1e-14
    grid = np.linspace(-2.0, 2.0, 40001).reshape(-1, 1)
    grid_risk = empirical_risk(LogisticLoss(), grid, x, y).numpy()
    assert float(w[0]) == pytest.approx(float(grid[np.argmin(grid_risk), 0]), abs=2e-4)
