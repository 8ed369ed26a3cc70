"""The baselines of Section 7 of Lin, Wang, Ma, Wang (mean estimation on the cube {±1/√d}^d, n records, replace-one):
releases of the data mean D̄ next to the purified Gaussian, each as the ℓ2 errors of ``draws`` releases, its noise
scale and its expected error (:mod:`dplab.mechanisms.noise_norms`).

- ``laplace``: D̄ + Lap(Δ₁/ε)^{⊗d}, Δ₁ = 2√d/n (pure ε-DP);
- ``l2_knorm``: D̄ + z with density ∝ exp(−ε‖z‖₂/Δ₂), Δ₂ = 2/n (pure ε-DP), E‖z‖₂ = dΔ₂/ε;
- ``gaussian``: the analytic Gaussian mechanism at (ε, δ), ℓ2 sensitivity Δ₂ (not pure), E‖z‖₂ = σ·χ̄_d.
"""

from __future__ import annotations

import math

import numpy as np

from dplab.checks import (
    as_finite_array,
    choice,
    log_probability,
    positive_finite,
    require_ndim,
    size_that_fits,
    whole_number,
)
from dplab.mechanisms.gaussian import agm_sigma
from dplab.mechanisms.knorm import sample_l2_knorm
from dplab.mechanisms.noise_norms import chi_mean, laplace_l2_norm_mean

__all__ = ["MEAN_BASELINES", "mean_baseline_errors"]

MEAN_BASELINES = ("laplace", "l2_knorm", "gaussian")


def mean_baseline_errors(
    method: str, mean: np.ndarray, n: int, epsilon: float, log_delta: float, draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, float, float]:
    """(ℓ2 errors of ``draws`` releases of ``mean``, noise scale, expected error) of a baseline of
    :data:`MEAN_BASELINES` at ε (and δ = e^{log_delta} for the Gaussian; the pure baselines ignore it)."""
    choice("method", method, MEAN_BASELINES)
    mean = require_ndim("mean", as_finite_array(mean, "mean"), 1)
    n = whole_number("n", n)
    draws = size_that_fits(
        "draws", draws, 8 * (3 * mean.shape[0] + 1), "the noise, the releases and their errors (draws x d)"
    )
    positive_finite("epsilon", epsilon)
    log_probability("log_delta", log_delta)
    d = mean.shape[0]
    if method == "laplace":
        scale = 2.0 * math.sqrt(d) / n / epsilon
        errors = np.linalg.norm(mean + rng.laplace(scale=scale, size=(draws, d)) - mean, axis=1)
        return errors, scale, laplace_l2_norm_mean(d, scale)
    if method == "l2_knorm":
        sens2 = 2.0 / n
        errors = np.linalg.norm(sample_l2_knorm(d, sens2, epsilon, draws, rng), axis=1)
        return errors, sens2 / epsilon, d * sens2 / epsilon
    sigma = float(agm_sigma(epsilon, log_delta, 2.0 / n))
    errors = np.linalg.norm(sigma * rng.standard_normal((draws, d)), axis=1)
    return errors, sigma, sigma * float(chi_mean(d))
