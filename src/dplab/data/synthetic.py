"""Synthetic logistic-regression data with features in the unit ball (our PNSGD utility experiment; Asoodeh,
Diaz, Calmon 2020 run none).

Features have ‖x‖ ≤ 1, so the logistic loss is 1-Lipschitz and 1/4-smooth in w (:class:`dplab.learning.LogisticLoss`),
which is what Theorems 3–5 of Asoodeh, Diaz, Calmon (2020) assume with L = 1.
"""

from __future__ import annotations

import math

import numpy as np

from dplab.checks import fits_in_memory, non_negative_finite, not_boolean, positive_finite, whole_number

__all__ = ["FEATURE_DISTRIBUTIONS", "ball_logistic_dataset", "logistic_regression_dataset", "linear_regression_dataset"]

FEATURE_DISTRIBUTIONS: tuple[str, ...] = ("gaussian_unit_ball", "uniform_interval")


def _check_dataset_memory(n: int, d: int, copies: int, square: int = 0) -> None:
    """Refuse sizes whose ``copies`` float64 arrays of n x d (and ``square`` of d x d) cannot fit in memory."""
    fits_in_memory(
        {"n": n, "d": d},
        8 * (copies * n * d + square * d * d + 4 * n),
        f"{copies} float64 arrays of {n} x {d}" + (f" and {square} of {d} x {d}" if square else ""),
    )


def _features(rng: np.random.Generator, n: int, d: int, feature_distribution: str) -> np.ndarray:
    """x = g / max(1, ‖g‖) with g ~ N(0, I_d) ("gaussian_unit_ball"), or x ~ U[−1, 1] for d = 1 ("uniform_interval")."""
    if feature_distribution == "gaussian_unit_ball":
        g = rng.standard_normal((n, d))
        return g / np.maximum(1.0, np.linalg.norm(g, axis=1, keepdims=True))
    return rng.uniform(-1.0, 1.0, size=(n, 1))


def logistic_regression_dataset(
    n: int,
    d: int,
    *,
    w_star_norm: float = 2.0,
    seed: int,
    feature_distribution: str = "gaussian_unit_ball",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, w_star): X float64 (n, d) with ‖x_j‖ ≤ 1, labels y ∈ {−1.0, +1.0} (n,), teacher w_star (d,).

    w_star = (w_star_norm/√d)·𝟙 (so ‖w_star‖ = w_star_norm; d = 1 gives w* = w_star_norm), and
    P(y_j = +1 | x_j) = sigmoid(⟨w_star, x_j⟩). "uniform_interval" (x ~ U[−1, 1]) needs d = 1.
    Deterministic from ``seed`` (numpy ``default_rng``; features drawn first, then the label uniforms).
    """
    if not isinstance(not_boolean("n", n), (int, np.integer)) or n < 1:
        raise ValueError(f"n={n!r} must be an integer >= 1")
    if not isinstance(not_boolean("d", d), (int, np.integer)) or d < 1:
        raise ValueError(f"d={d!r} must be an integer >= 1")
    non_negative_finite("w_star_norm", w_star_norm)
    whole_number("seed", seed, minimum=0)
    if feature_distribution not in FEATURE_DISTRIBUTIONS:
        raise ValueError(
            f"feature_distribution={feature_distribution!r} is not allowed; choose one of {FEATURE_DISTRIBUTIONS}"
        )
    if feature_distribution == "uniform_interval" and d != 1:
        raise ValueError(f"d={d} must be 1 when feature_distribution='uniform_interval' (x ~ U[-1, 1])")
    from scipy.special import expit  # here: the pre-processing datasets of dplab.data never import scipy

    _check_dataset_memory(int(n), int(d), copies=2)
    rng = np.random.default_rng(seed)
    X = _features(rng, int(n), int(d), feature_distribution)
    w_star = np.full(int(d), float(w_star_norm) / math.sqrt(d))
    positive = rng.random(int(n)) < expit(X @ w_star)
    y = np.where(positive, 1.0, -1.0)
    return X, y, w_star


def ball_logistic_dataset(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of our logistic-regression design for the DP-ERM experiments of Lin, Wang, Ma, Wang (Table 2 gives
    none): x uniform in the unit ℓ2 ball (direction g/‖g‖, radius U^{1/d}), θ* uniform on the sphere of radius 0.5,
    y = sign(4⟨θ*, x⟩ + 0.5·N(0, 1)) (0 mapped to +1).  Deterministic from ``seed`` (numpy ``default_rng``)."""
    whole_number("n", n)
    whole_number("d", d)
    whole_number("seed", seed, minimum=0)
    _check_dataset_memory(n, d, copies=3)
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n, d))
    x = g / np.linalg.norm(g, axis=1, keepdims=True) * rng.random(n)[:, None] ** (1.0 / d)
    theta = rng.standard_normal(d)
    theta *= 0.5 / np.linalg.norm(theta)
    y = np.sign(4.0 * x @ theta + 0.5 * rng.standard_normal(n))
    y[y == 0] = 1.0
    return x, y


def linear_regression_dataset(
    n: int, d: int, eig_min: float, eig_max: float, noise_sd: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, θ*) of our design for the linear regression of Lin, Wang, Ma, Wang (App. J.4 leaves it open):
    z ~ N(0, Σ), Σ = Q·diag(linspace(eig_min, eig_max, d))·Qᵀ with a random rotation Q; x = z/max(1, ‖z‖₂) (so
    ‖x‖ ≤ 1); θ* uniform on the unit sphere; y = clip(⟨x, θ*⟩ + noise_sd·N(0, 1), −1, 1) (so |y| ≤ 1)."""
    n, d = whole_number("n", n), whole_number("d", d)
    eig_min, eig_max = positive_finite("eig_min", eig_min), positive_finite("eig_max", eig_max)
    noise_sd = non_negative_finite("noise_sd", noise_sd)
    _check_dataset_memory(n, d, copies=3, square=3)
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    root = q * np.sqrt(np.linspace(eig_min, eig_max, d))
    z = rng.standard_normal((n, d)) @ root.T
    x = z / np.maximum(1.0, np.linalg.norm(z, axis=1, keepdims=True))
    theta = rng.standard_normal(d)
    theta /= np.linalg.norm(theta)
    y = np.clip(x @ theta + noise_sd * rng.standard_normal(n), -1.0, 1.0)
    return x, y, theta
