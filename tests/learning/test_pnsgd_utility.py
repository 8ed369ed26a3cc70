"""PNSGD utility runs (dplab.learning.pnsgd_utility): the noise-free pass against projected SGD written out in numpy,
the run summary against numpy reductions, and 64-bit seeds used exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting import get_epsilon_gaussian

from dplab.learning.erm import constrained_minimiser, logistic_risk
from dplab.learning.pnsgd_utility import (
    logistic_certified_epsilons,
    pnsgd_config,
    pnsgd_domain,
    pnsgd_utility_runs,
    reported_users,
    run_summary,
)
from dplab.learning.projections import Ball, Interval


def _data(d: int, n: int = 25, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2 * n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(X @ np.ones(d) + 0.3 * rng.normal(size=2 * n) > 0, 1.0, -1.0)
    return {"X": X[:n], "y": y[:n], "X_test": X[n:], "y_test": y[n:]}


def _projected_sgd_one_pass(X: np.ndarray, y: np.ndarray, lr: float, radius: float) -> np.ndarray:
    """w <- Pi_ball(w - lr * grad l(w; x_t, y_t)) for t = 1..n, grad l = -y x sigmoid(-y <w, x>)."""
    w = np.zeros(X.shape[1])
    for x, label in zip(X, y):
        w = w + lr * label * x / (1 + np.exp(label * (w @ x)))
        w = w * min(1.0, radius / np.linalg.norm(w)) if np.linalg.norm(w) > 0 else w
    return w


def test_domain_and_config():
    assert isinstance(pnsgd_domain("gaussian", 2.0), Ball)
    assert isinstance(pnsgd_domain("laplace", 2.0), Interval)
    assert pnsgd_config("gaussian", 0.1, 0.0, Ball(1.0)).noise == "none"
    assert pnsgd_config("laplace", 0.1, 0.5, Interval(-1.0, 1.0)).noise == "laplace"
    with pytest.raises(ValueError, match="noise"):
        pnsgd_domain("cauchy", 1.0)


def test_run_summary_against_numpy():
    data = _data(3)
    W = np.random.default_rng(1).normal(size=(5, 3)) / 2
    best = 0.1
    out = run_summary(W, data, best)
    excess = np.array([logistic_risk(w, data["X"], data["y"])[0] - best for w in W])
    accuracy = np.array([np.mean(np.sign(data["X_test"] @ w) == data["y_test"]) for w in W])
    assert out["excess_risk_mean"] == pytest.approx(excess.mean(), rel=1e-12)
    assert out["excess_risk_se"] == pytest.approx(np.std(excess, ddof=1) / np.sqrt(5), rel=1e-12)
    assert out["test_accuracy_mean"] == pytest.approx(accuracy.mean(), rel=1e-12)


def test_noise_free_runs_are_projected_sgd_written_out():
    data, radius, lr = _data(3), 0.5, 0.3
    (row,) = pnsgd_utility_runs("gaussian", data, radius=radius, lrs=[lr], noise_scales=[0.0], runs=2, seed=0)
    w = _projected_sgd_one_pass(data["X"], data["y"], lr, radius)
    best = float(logistic_risk(constrained_minimiser(data["X"], data["y"], radius).theta, data["X"], data["y"])[0])
    assert row["min_risk"] == best
    assert row["excess_risk_mean"] == pytest.approx(logistic_risk(w, data["X"], data["y"])[0] - best, abs=1e-12)
    assert row["excess_risk_sd"] == pytest.approx(0.0, abs=1e-12)
    assert (row["noise"], row["n"], row["d"], row["radius"], row["lr"], row["runs"]) == ("gaussian", 25, 3, 0.5, lr, 2)


def test_seeds_are_used_exactly_up_to_64_bits():
    data = _data(1)
    seeds = (881241464297920556, 881241464297920557)  # equal once converted to float64
    assert float(seeds[0]) == float(seeds[1])
    rows = [
        pnsgd_utility_runs("laplace", data, radius=1.0, lrs=[0.1], noise_scales=[1.0], runs=4, seed=s)[0] for s in seeds
    ]
    assert rows[0]["excess_risk_mean"] != rows[1]["excess_risk_mean"]
    with pytest.raises(ValueError, match="seed"):
        pnsgd_utility_runs("laplace", data, radius=1.0, lrs=[0.1], noise_scales=[1.0], runs=4, seed=-1)


@pytest.mark.parametrize(("lr", "sigma"), [(0.1, 0.1), (0.5, 0.1), (0.1, 0.3)])
def test_small_noise_epsilons_are_finite_and_match_the_first_step_gaussian(lr: float, sigma: float) -> None:
    """At sigma = 0.1 Theorem 4 certifies about 284 (above the old cap of 100, once reported inf): its first-step
    factor theta(2L/sigma) alone is the Gaussian mechanism of sensitivity 2L = 2, and the contraction factor is ~1."""
    eps = logistic_certified_epsilons("gaussian", n=1000, radius=2.0, lr=lr, scale=sigma, delta=1e-5)
    assert all(math.isfinite(v) for v in eps.values()), eps
    assert eps["epsilon_thm_first"] == pytest.approx(get_epsilon_gaussian(sigma / 2.0, 1e-5), rel=1e-8)
    assert eps["epsilon_thm5"] >= eps["epsilon_thm_last"]


def test_no_noise_is_infinite() -> None:
    eps = logistic_certified_epsilons("gaussian", n=1000, radius=2.0, lr=0.1, scale=0.0, delta=1e-5)
    assert all(v == math.inf for v in eps.values())


def test_reported_users():
    assert reported_users(9) == {"first": 1, "middle": 4, "second_last": 8, "last": 9}
