"""The ℓ2 K-norm mechanism: noise with density ∝ exp(−ε‖z‖₂/Δ₂) on ℝ^d (Hardt and Talwar 2010), pure ε-DP for a
query of ℓ2 sensitivity Δ₂.  ‖z‖ ~ Gamma(d, Δ₂/ε) and z/‖z‖ is uniform on the sphere; this is the output
perturbation noise of Chaudhuri, Monteleoni, Sarwate (2011) with Δ₂ = L/(nλ)."""

from __future__ import annotations

import numpy as np

from dplab.checks import positive_finite, size_that_fits, whole_number

__all__ = ["sample_l2_knorm"]


def sample_l2_knorm(d: int, sensitivity: float, epsilon: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws (shape (size, d)) of density ∝ exp(−ε‖z‖₂/Δ₂): uniform direction × Gamma(d, Δ₂/ε) radius."""
    whole_number("d", d)
    size_that_fits("size", size, 8 * (2 * d + 2), "the directions and radii (size x d float64)")
    epsilon = positive_finite("epsilon", epsilon)
    sensitivity = positive_finite("sensitivity", sensitivity)
    direction = rng.standard_normal((size, d))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    return direction * rng.gamma(d, sensitivity / epsilon, size)[:, None]
