"""The analytic Gaussian mechanism (Balle and Wang 2018, Theorem 8), computed in log-space.

For a query of ℓ2-sensitivity Δ released with N(0, σ²I) noise, the tight (ε, δ) curve is

    δ(σ; ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)                      (Balle–Wang 2018, Thm 8)

and the analytic Gaussian mechanism uses the smallest σ with δ(σ; ε) ≤ δ (δ(σ; ε) is decreasing in σ).  Both terms
are evaluated with ``log_ndtr`` so that δ down to 1e-300 and far below (purification asks for log δ ≈ −250 and
smaller) stays exact: log δ = log Φ(a) + log1p(−exp(ε + log Φ(b) − log Φ(a))).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from dplab.checks import (
    as_float_array,
    as_non_negative_array,
    as_positive_array,
    as_real_array,
    log_probability,
    non_negative_finite,
    positive_finite,
    require,
)
from dplab.numerics import log1mexp

__all__ = [
    "HISTOGRAM_SENSITIVITIES",
    "agm_log_delta",
    "agm_sigma",
    "classical_gaussian_sigma",
    "histogram_noise_variances",
    "laplace_crossing_delta",
]

#: (ℓ1, ℓ2) sensitivity of a histogram per adjacency: one count moves by 1 (add/remove), or one count down and one up
#: (replace-one).
HISTOGRAM_SENSITIVITIES = {"add_remove": (1.0, 1.0), "replace_one": (2.0, math.sqrt(2.0))}


def agm_log_delta(sigma: np.ndarray, epsilon: np.ndarray, sensitivity: float = 1.0) -> np.ndarray:
    """log δ(σ; ε) of the Gaussian mechanism (Balle–Wang 2018, Theorem 8), broadcast over σ and ε.

    log[Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)], exactly −inf where the difference is 0 (never from underflow:
    both terms are kept as logs).
    """
    sens = positive_finite("sensitivity", sensitivity)
    sigma, epsilon = np.broadcast_arrays(as_positive_array(sigma, "sigma"), as_non_negative_array(epsilon, "epsilon"))
    half, stretch = sens / (2.0 * sigma), epsilon * sigma / sens
    log_first = log_ndtr(half - stretch)
    log_second = epsilon + log_ndtr(-half - stretch)
    positive = log_second < log_first
    with np.errstate(divide="ignore", invalid="ignore"):
        value = log_first + log1mexp(np.where(positive, log_second - log_first, -1.0))
    return np.where(positive, value, -np.inf)


def _agm_sigma_scalar(epsilon: float, log_delta: float, sensitivity: float) -> float:
    non_negative_finite("epsilon", epsilon)
    log_probability("log_delta", log_delta)

    def excess(log_sigma: float) -> float:
        return float(agm_log_delta(math.exp(log_sigma), epsilon, sensitivity)) - log_delta

    lo, hi = math.log(sensitivity) - 3.0, math.log(sensitivity) + 3.0
    while excess(lo) < 0:
        lo -= 3.0
    while excess(hi) > 0:
        hi += 3.0
    return math.exp(brentq(excess, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps))


def agm_sigma(epsilon: np.ndarray, log_delta: np.ndarray, sensitivity: float = 1.0) -> np.ndarray:
    """Smallest σ with δ(σ; ε) ≤ δ (analytic Gaussian mechanism, Balle–Wang 2018, Algorithm 1), broadcast.

    Brent's method on log σ against log δ, so δ far below 1e-300 is handled (e.g. log_delta = −2000).
    """
    sens = positive_finite("sensitivity", sensitivity)
    epsilon, log_delta = np.broadcast_arrays(as_real_array(epsilon, "epsilon"), as_real_array(log_delta, "log_delta"))
    out = np.array([_agm_sigma_scalar(float(e), float(ld), sens) for e, ld in zip(epsilon.flat, log_delta.flat)])
    return out.reshape(epsilon.shape)


def classical_gaussian_sigma(epsilon: np.ndarray, log_delta: np.ndarray, sensitivity: float = 1.0) -> np.ndarray:
    """The classical calibration σ = Δ·√(2 ln(1.25/δ))/ε (Dwork and Roth 2014, Thm A.1; valid for ε < 1)."""
    sens = positive_finite("sensitivity", sensitivity)
    epsilon, log_delta = as_positive_array(epsilon, "epsilon"), as_float_array(log_delta, "log_delta")
    require((log_delta < 0) & (log_delta > -np.inf), "log_delta", log_delta, "-inf < log_delta < 0 (0 < delta < 1)")
    return sens * np.sqrt(2.0 * (np.log(1.25) - log_delta)) / epsilon


def laplace_crossing_delta(epsilon: float, l1_sensitivity: float, l2_sensitivity: float) -> float:
    """δ* at which the analytic Gaussian mechanism's variance σ(ε, δ; Δ₂)² equals the Laplace mechanism's 2(Δ₁/ε)²
    (the crossing of Figure 1 of Lin, Wang, Ma, Wang: below δ* the Gaussian is noisier), by Brent's method on log δ
    over [−60, log 0.999]."""
    epsilon = positive_finite("epsilon", epsilon)
    l1 = positive_finite("l1_sensitivity", l1_sensitivity)
    l2 = positive_finite("l2_sensitivity", l2_sensitivity)
    target = 2.0 * (l1 / epsilon) ** 2
    return math.exp(
        brentq(lambda ld: float(agm_sigma(epsilon, ld, l2)) ** 2 - target, -60.0, math.log(0.999), xtol=1e-13)
    )


def histogram_noise_variances(epsilon: float, deltas: np.ndarray, adjacency: str) -> dict[str, np.ndarray | float]:
    """Per-coordinate noise variance of a histogram release at ε under ``adjacency`` (:data:`HISTOGRAM_SENSITIVITIES`):
    the Laplace mechanism's 2(Δ₁/ε)² (pure ε-DP, the same at every δ) and the analytic Gaussian mechanism's σ(ε, δ)²
    at every δ of ``deltas`` (Balle-Wang 2018, Algorithm 1, at ℓ2 sensitivity Δ₂); Figure 1 of Lin, Wang, Ma, Wang."""
    if adjacency not in HISTOGRAM_SENSITIVITIES:
        raise ValueError(f"adjacency={adjacency!r} is not allowed; choose one of {tuple(HISTOGRAM_SENSITIVITIES)}")
    positive_finite("epsilon", epsilon)
    deltas = as_positive_array(deltas, "deltas")
    require(deltas < 1, "deltas", deltas, "probabilities in (0, 1)")
    l1, l2 = HISTOGRAM_SENSITIVITIES[adjacency]
    return {"laplace": 2.0 * (l1 / epsilon) ** 2, "analytic_gaussian": agm_sigma(epsilon, np.log(deltas), l2) ** 2}
