"""Private logistic regression after pre-processing, as in Hu, Sanyal, Schölkopf, *Provable Privacy with Non-Private
Pre-Processing*, Sec. 5 and Figure 3: the learners and the calibration of their privacy parameter ε₀ to an overall
(ε, δ) for three methods, (a) non-private PCA rank reduction with the Table-2 budget adjustment, (b) DP-PCA with
half the budget, (c) no pre-processing.

Learner: full-batch DP-GD of :mod:`dplab.learning.engine` (clip C = L = 1, never binding on the unit ball; noise
σ = L√T/(ε₀n) on the mean gradient; projection onto ‖θ‖ ≤ R; average iterate; θ₀ = 0), accounted with Table 1's
DP-GD row (RDP 2αε₀²). Calibration to the overall (ε, δ) (our reading of Sec. 5; the paper gives no formula):
(c) min_α 2αε₀² + log(1/δ)/(α−1) = ε; (a) min_{α≥11} 1.05αε₀²(4 + 12.2²/δ_k²) + log(1/δ)/(α−1) = ε, δ_k the
dataset's eigen-gap (a conditional guarantee); (b) DP-PCA at (ε/2, δ/2) and DP-GD calibrated like (c) at (ε/2, δ/2).
Variants of (a) (our extensions): ``nonprivate_pca_unconstrained``, the unconstrained DP-GD of Song et al. (2021)
that Prop. 8 invokes (θ₀ = 0, no projection), with the (a) budget; ``nonprivate_pca_dim``, the dimension-reduction
ablation (DP-GD in ℝ^k on A_kᵀx, projected onto ‖θ‖ ≤ R) with τ_dim = 2τ_rank, i.e. 24.4/δ_k in the Table-2 form.

Protocols:

- ``dp_gd_full_batch``: everything above (Table 1's DP-GD row; Algorithm 1 and Prop. 8 use this learner).
- ``dp_sgd_poisson``: Poisson-subsampled noisy SGD at rate q = B/n (the clipped gradient sum plus N(0, z²) divided
  by the expected batch B, projection and average iterate as above), accounted with the paper's
  DP-SGD-with-subsampling rows: (c) Table 1's RDP α²ε₀²/2 (Theorem 13), (a) Table 2's SGD-samp + PCA cell
  1.05αε₀²(2α + 12.2²/δ_k²) over α ≥ 11 (Theorem 16, γ = 1), (b) DP-PCA at (ε/2, δ/2) and (c)'s calibration at
  (ε/2, δ/2); each converted by Lemma M to the overall (ε, δ).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from dplab.checks import (
    as_finite_array,
    labels_in,
    matching_length,
    positive_finite,
    probability,
    require_ndim,
    size_that_fits,
    whole_number,
)
from dplab.learning.engine import NoisyGradientConfig, dp_sgd_noise_scale, run_noisy_gradient
from dplab.learning.losses import LogisticLoss
from dplab.learning.projections import Ball, NoProjection
from dplab.theory import smooth_rdp as s

__all__ = ["METHODS", "VARIANTS", "DP_GD", "DP_SGD", "PROTOCOLS", "sgd_budget", "calibrate_eps0", "dp_gd", "dp_sgd"]

METHODS = ("nonprivate_pca", "dp_pca", "no_preprocessing")
VARIANTS = ("nonprivate_pca_unconstrained", "nonprivate_pca_dim")
DP_GD, DP_SGD = "dp_gd_full_batch", "dp_sgd_poisson"
PROTOCOLS = (DP_GD, DP_SGD)


def _checked_budget(epsilon: float, delta: float, gap: float | None) -> None:
    """Refuse a target (ε, δ) or an eigen-gap outside 0 < ε < ∞, 0 < δ < 1, 0 < gap < ∞ (``None``: no gap)."""
    positive_finite("epsilon", epsilon)
    probability("delta", delta)
    if gap is not None:
        positive_finite("gap", gap)


def _tau_factor(method: str) -> float:
    """τ / τ_rank of a non-private PCA method: 2 for the dimension-reduction ablation (τ_dim = 2τ_rank), else 1."""
    return 2.0 if method == "nonprivate_pca_dim" else 1.0


def sgd_budget(method: str, epsilon: float, delta: float, gap: float | None = None) -> tuple[float, float]:
    """(ε₀, α*) of the DP-SGD protocol (module docstring): the Theorem-13 privacy parameter ε₀ whose RDP, converted by
    Lemma M, is the overall (ε, δ) of ``method``, and the optimal Rényi order there.

    (c) α²ε₀²/2 (Table 1, DP-SGD with subsampling); (b) the same at (ε/2, δ/2); (a) and its variants the Table 2
    SGD-samp + PCA cell 1.05αε₀²(2α + τ²), τ = 12.2/δ_k (24.4/δ_k for dimension reduction), over α ≥ 11."""
    _checked_budget(epsilon, delta, gap)
    if method == "no_preprocessing":
        return s.parameter_for_epsilon(lambda e: s.dp_sgd_sampling_mechanism(e).rdp, epsilon, delta)
    if method == "dp_pca":
        return s.parameter_for_epsilon(lambda e: s.dp_sgd_sampling_mechanism(e).rdp, epsilon / 2, delta / 2)
    if method in ("nonprivate_pca", "nonprivate_pca_unconstrained", "nonprivate_pca_dim"):
        cell_gap = float(gap) / _tau_factor(method)  # table2_cell's τ = 12.2/gap

        def rdp_of(eps0: float):
            return lambda alpha: s.table2_cell("dp_sgd_sampling", "pca_rank", alpha, eps0, gap=cell_gap)

        return s.parameter_for_epsilon(rdp_of, epsilon, delta, alpha_min=11.0)
    raise ValueError(f"method={method!r} must be one of {METHODS + VARIANTS}")


def calibrate_eps0(method: str, epsilon: float, delta: float, gap: float | None = None, protocol: str = DP_GD) -> float:
    """The privacy parameter ε₀ for the overall (ε, δ) of ``method`` under ``protocol`` (module docstring)."""
    _checked_budget(epsilon, delta, gap)
    if protocol == DP_SGD:
        return sgd_budget(method, epsilon, delta, gap)[0]
    if protocol != DP_GD:
        raise ValueError(f"protocol={protocol!r} must be one of {PROTOCOLS}")
    if method == "no_preprocessing":
        return math.sqrt(s.linear_rdp_coefficient_for_epsilon(epsilon, delta) / 2)
    if method == "dp_pca":
        return math.sqrt(s.linear_rdp_coefficient_for_epsilon(epsilon / 2, delta / 2) / 2)
    if method in ("nonprivate_pca", "nonprivate_pca_unconstrained", "nonprivate_pca_dim"):
        tau = _tau_factor(method) * s.PCA_TAU_CONSTANT / float(gap)
        factor = 1.05 * (4 + tau**2)
        return math.sqrt(s.linear_rdp_coefficient_for_epsilon(epsilon, delta, alpha_min=11.0) / factor)
    raise ValueError(f"method={method!r} must be one of {METHODS + VARIANTS}")


def _noisy_descent(
    X: np.ndarray,
    y: np.ndarray,
    noise_scale: float,
    steps: int,
    lr: float,
    radius: float | None,
    sampling: str,
    batch_size: int | None,
    runs: int,
    generator: torch.Generator,
) -> np.ndarray:
    """``runs`` outputs (runs, d) of the engine's clipped (C = 1) noisy gradient descent from θ₀ = 0 with noise std
    ``noise_scale`` on the normalised gradient, projected onto ‖θ‖ ≤ radius (``None``: unconstrained), average
    iterate."""
    n, d = require_ndim("X", as_finite_array(X, "X"), 2).shape
    matching_length("X", X, "y", labels_in("y", y))
    size_that_fits("runs", runs, 8 * (3 * n + 6 * d), "each run's margins (n) and iterates (d) in the engine")
    if radius is not None:
        positive_finite("radius", radius)
    config = NoisyGradientConfig(
        lr=lr,
        noise="gaussian",
        noise_scale=noise_scale,
        clip_norm=1.0,
        projection=NoProjection() if radius is None else Ball(radius),
        sampling=sampling,
        batch_size=batch_size,
        steps=steps,
        stopping="average",
    )
    return run_noisy_gradient(
        config, LogisticLoss(), X, y, np.zeros(X.shape[1]), runs=runs, generator=generator, progress=False
    ).numpy()


def dp_gd(
    X: np.ndarray,
    y: np.ndarray,
    eps0: float,
    steps: int,
    lr: float,
    radius: float | None,
    runs: int,
    generator: torch.Generator,
) -> np.ndarray:
    """``runs`` DP-GD outputs (runs, d) with σ = √T/(ε₀n) (Table 1 DP-GD row, L = 1), projected onto ‖θ‖ ≤ radius
    (``radius=None``: unconstrained)."""
    steps, eps0 = whole_number("steps", steps), positive_finite("eps0", eps0)
    sigma = math.sqrt(steps) / (eps0 * X.shape[0])
    return _noisy_descent(X, y, sigma, steps, lr, radius, "full_batch", None, runs, generator)


def dp_sgd(
    X: np.ndarray,
    y: np.ndarray,
    noise_multiplier: float,
    steps: int,
    lr: float,
    radius: float | None,
    batch_size: int,
    runs: int,
    generator: torch.Generator,
) -> np.ndarray:
    """``runs`` outputs (runs, d) of Poisson-subsampled DP-SGD at rate batch_size/n: (Σ_batch clip₁(∇ℓ) + N(0, z²I))
    divided by the expected batch size, projected onto ‖θ‖ ≤ radius (``None``: unconstrained), average iterate."""
    whole_number("steps", steps), whole_number("batch_size", batch_size)
    noise = dp_sgd_noise_scale(positive_finite("noise_multiplier", noise_multiplier), 1.0, batch_size)
    return _noisy_descent(X, y, noise, steps, lr, radius, "poisson", batch_size, runs, generator)
