"""The logistic empirical risk and its non-private minimiser over an ℓ2 ball: the reference point of every
excess-risk curve (purification's DP-ERM, pre-processing's Fig. 3 and PTR, our PNSGD utility experiment).

ℒ(θ) = (1/n)·Σᵢ log(1 + exp(−yᵢ⟨θ, xᵢ⟩)) + (λ/2)‖θ‖², labels yᵢ ∈ {−1, +1}, λ ≥ 0;
∇ℒ(θ) = −(1/n)·Σᵢ yᵢ·sigmoid(−yᵢ⟨θ, xᵢ⟩)·xᵢ + λθ, and ∇²ℒ = (1/n)·Σᵢ s_i(1 − s_i)xᵢxᵢᵀ + λI with s_i ∈ (0, 1),
so ℒ is β-smooth with β = λ_max(XᵀX/n)/4 + λ.

numpy, not the torch engine: the reference minimiser is one deterministic float64 run on the full data (no
per-sample gradients, no noise), and the studies evaluate ℒ on numpy arrays of many runs at once. The per-sample
torch loss that the engine trains with is :class:`dplab.learning.losses.LogisticLoss`; tests check that both agree.
"""

# No `from __future__ import annotations` here: pdoc resolves ConstrainedMinimum's field annotations outside this
# module, where a string 'np.ndarray' cannot be evaluated.
import math
from typing import Any, NamedTuple

import numpy as np

from dplab.checks import as_finite_array, labels_in, matching_length, non_negative_finite, positive_finite, whole_number
from dplab.numerics import project_l2_ball, projected_onto_l2_ball

__all__ = [
    "ConstrainedMinimum",
    "logistic_risk",
    "logistic_risk_gradient",
    "logistic_smoothness",
    "constrained_minimiser",
]


class ConstrainedMinimum(NamedTuple):
    """argmin_{‖θ‖ ≤ R} ℒ(θ) and the KKT residual ‖θ − Π(θ − ∇ℒ(θ)/β)‖·β (zero exactly at the minimiser)."""

    theta: np.ndarray
    kkt_residual: float


def _features(X: Any, name: str = "X") -> np.ndarray:
    """``X`` as a finite float64 (n, d) array with n ≥ 1 (errors name the argument ``name``)."""
    features = as_finite_array(X, name)
    if features.ndim != 2 or features.shape[0] == 0:
        raise ValueError(f"{name} has shape {features.shape}; it must be (n, d) with n >= 1")
    return features


def _data(X: Any, y: Any, name: str = "X") -> tuple[np.ndarray, np.ndarray]:
    """``X`` (n, d) finite with n ≥ 1 and ``y`` (n,) labels in {−1, +1}, as float64 arrays (errors name the
    features' argument ``name``)."""
    features = _features(X, name)
    labels = labels_in("y", y)
    matching_length(name, features, "y", labels)
    if labels.shape != (features.shape[0],):
        raise ValueError(f"y has shape {labels.shape}; it must be (n,) = ({features.shape[0]},)")
    return features, labels


def _parameters(theta: Any, d: int) -> np.ndarray:
    """``theta`` as a finite (R, d) array (a single (d,) vector becomes one row)."""
    rows = np.atleast_2d(as_finite_array(theta, "theta"))
    if rows.ndim != 2 or rows.shape[1] != d:
        raise ValueError(f"theta has shape {np.shape(theta)}; it must be (d,) or (runs, d) with d = {d}")
    return rows


def logistic_risk(theta: Any, X: Any, y: Any, lam: float = 0.0) -> np.ndarray:
    """ℒ(θ_r) = (1/n)Σᵢ log(1 + exp(−yᵢ⟨θ_r, xᵢ⟩)) + (λ/2)‖θ_r‖² for every row θ_r of ``theta`` (R, d) → (R,)
    (a (d,) vector gives shape (1,)); log(1 + exp(·)) evaluated as logaddexp(0, ·), which does not overflow."""
    features, labels = _data(X, y)
    rows = _parameters(theta, features.shape[1])
    lam = non_negative_finite("lam", lam)
    margins = (features @ rows.T) * labels[:, None]
    return np.logaddexp(0.0, -margins).mean(axis=0) + 0.5 * lam * np.sum(rows**2, axis=1)


def _gradient(theta: np.ndarray, X: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """∇ℒ(θ) = Xᵀs/n + λθ with s_i = −y_i/(1 + exp(y_i⟨θ, x_i⟩)) (no argument checks: the minimiser's inner loop)."""
    s = -y / (1.0 + np.exp(y * (X @ theta)))
    return X.T @ s / X.shape[0] + lam * theta


def logistic_risk_gradient(theta: Any, X: Any, y: Any, lam: float = 0.0) -> np.ndarray:
    """∇ℒ(θ) = −(1/n)Σᵢ yᵢ·sigmoid(−yᵢ⟨θ, xᵢ⟩)·xᵢ + λθ for one θ of shape (d,)."""
    features, labels = _data(X, y)
    vector = as_finite_array(theta, "theta")
    if vector.shape != (features.shape[1],):
        raise ValueError(f"theta has shape {vector.shape}; it must be (d,) = ({features.shape[1]},)")
    return _gradient(vector, features, labels, non_negative_finite("lam", lam))


def logistic_smoothness(X: Any, lam: float = 0.0) -> float:
    """β = λ_max(XᵀX/n)/4 + λ, a smoothness constant of ℒ (since s(1 − s) ≤ 1/4 in its Hessian)."""
    features = _features(X)
    return float(np.linalg.eigvalsh(features.T @ features / features.shape[0]).max() / 4.0) + non_negative_finite(
        "lam", lam
    )


def constrained_minimiser(X: Any, y: Any, radius: float, lam: float = 0.0, steps: int = 3000) -> ConstrainedMinimum:
    """argmin_{‖θ‖₂ ≤ radius} ℒ(θ) by ``steps`` steps of accelerated projected gradient descent from θ = 0 (FISTA,
    Beck and Teboulle 2009, with step 1/β, β of :func:`logistic_smoothness`):
    θ_k = Π(z_k − ∇ℒ(z_k)/β), t_{k+1} = (1 + √(1 + 4t_k²))/2, z_{k+1} = θ_k + ((t_k − 1)/t_{k+1})(θ_k − θ_{k−1}),
    t_1 = 1, whose error in ℒ after k steps is ≤ 2β‖θ* ‖²/(k + 1)² (their Theorem 4.4).
    Returns the minimiser and its KKT residual (:class:`ConstrainedMinimum`)."""
    features, labels = _data(X, y)
    radius = positive_finite("radius", radius)
    steps = whole_number("steps", steps)
    lam = non_negative_finite("lam", lam)
    beta = logistic_smoothness(features, lam)
    theta = z = np.zeros(features.shape[1])
    t = 1.0
    for _ in range(steps):
        new = projected_onto_l2_ball(z - _gradient(z, features, labels, lam) / beta, radius)
        t_next = (1 + math.sqrt(1 + 4 * t * t)) / 2
        z = new + (t - 1) / t_next * (new - theta)
        theta, t = new, t_next
    step = theta - _gradient(theta, features, labels, lam) / beta
    return ConstrainedMinimum(theta, float(np.linalg.norm(theta - project_l2_ball(step, radius)) * beta))
