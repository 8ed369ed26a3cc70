"""DP-PCA as used for Fig. 3(b) of Hu, Sanyal, Schölkopf (2024): Gaussian covariance perturbation (SuLQ /
"Analyze Gauss", Blum et al. 2005, Dwork et al. 2014; our choice: the paper only names "DP-PCA").

Σ̂ = (1/n)XᵀX + E, E symmetric with i.i.d. N(0, s²) upper-triangle (and diagonal) entries; release the top-k
eigenvectors of Σ̂. Replace-one sensitivity of (1/n)XᵀX in Frobenius norm: ‖xxᵀ − x'x'ᵀ‖_F ≤ √2 for ‖x‖ ≤ 1,
so Δ = √2/n (conservative for the upper-triangle vector). RDP α Δ²/(2s²) (Lemma C); s is calibrated so that
Lemma M gives exactly the target (ε, δ): with c = Δ²/(2s²), ε = c + 2√(c log(1/δ)), i.e. √c = √(ε+log(1/δ)) −
√(log(1/δ)).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dplab.checks import as_finite_array, not_boolean, positive_finite, probability, require_ndim, size_that_fits
from dplab.numerics import symmetric_from_upper
from dplab.preprocessing.pca import _fix_signs, check_rank, covariance
from dplab.theory.smooth_rdp import linear_rdp_coefficient_for_epsilon

__all__ = ["covariance_sensitivity", "dp_pca_noise_scale", "dp_pca_epsilon", "dp_pca_subspaces"]


def covariance_sensitivity(n: int) -> float:
    """Δ = √2/n: replace-one Frobenius sensitivity of (1/n)XᵀX on the unit ball."""
    if not isinstance(not_boolean("n", n), (int, np.integer)) or n < 1:
        raise ValueError(f"n={n!r} is invalid; allowed: an integer >= 1")
    return math.sqrt(2.0) / n


def dp_pca_noise_scale(n: int, epsilon: float, delta: float) -> float:
    """s such that the Gaussian covariance perturbation is (ε, δ)-DP by Lemma M (RDP αΔ²/(2s²))."""
    positive_finite("epsilon", epsilon)
    probability("delta", delta)
    c = linear_rdp_coefficient_for_epsilon(epsilon, delta)
    return covariance_sensitivity(n) / math.sqrt(2 * c)


def dp_pca_epsilon(n: int, noise_scale: float, delta: float) -> float:
    """The (ε, δ) of noise std s by Lemma M: c + 2√(c log(1/δ)), c = Δ²/(2s²) (the inverse of the calibration)."""
    positive_finite("noise_scale", noise_scale)
    probability("delta", delta)
    c = covariance_sensitivity(n) ** 2 / (2 * noise_scale**2)
    return c + 2 * math.sqrt(c * math.log(1 / delta))


def dp_pca_subspaces(
    X: ArrayLike, k: int, epsilon: float, delta: float, rng: np.random.Generator, runs: int = 1
) -> np.ndarray:
    """``runs`` independent releases of the top-k eigenvectors of (1/n)XᵀX + E: (runs, d, k), sign convention of
    :func:`dplab.preprocessing.pca.top_eigenvectors`."""
    data = require_ndim("X", as_finite_array(X, "X"), 2)
    n, d = data.shape
    check_rank(k, d)
    size_that_fits("runs", runs, 8 * 5 * d * d, "each run's noise, noisy covariance and eigenvectors (d x d float64)")
    s = dp_pca_noise_scale(n, epsilon, delta)
    noisy = covariance(data)[None] + symmetric_from_upper(rng.standard_normal((runs, d, d)) * s)
    values, vectors = np.linalg.eigh(noisy)
    top = vectors[:, :, ::-1][:, :, :k]
    return np.stack([_fix_signs(v) for v in top])
