"""The exponential mechanism on a finite set (McSherry and Talwar 2007): P(i) ∝ exp(ε·u_i/(2Δu))."""

from __future__ import annotations

import numpy as np

from dplab.checks import as_finite_array, positive_finite, whole_number

__all__ = ["exponential_mechanism_log_probabilities", "sample_exponential_mechanism"]


def exponential_mechanism_log_probabilities(utility: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """log P(i) = ε u_i/(2Δu) − log Σ_j exp(ε u_j/(2Δu)), computed stably (shifted by the maximum)."""
    as_finite_array(utility, "utility")
    epsilon = positive_finite("epsilon", epsilon)
    sensitivity = positive_finite("sensitivity", sensitivity)
    logits = epsilon * np.asarray(utility, float) / (2.0 * sensitivity)
    logits -= logits.max()
    return logits - np.log(np.sum(np.exp(logits)))


def sample_exponential_mechanism(utility: np.ndarray, epsilon: float, sensitivity: float, size: int,
                                 rng: np.random.Generator) -> np.ndarray:
    """``size`` independent indices drawn from the exponential mechanism (inverse CDF of the exact probabilities)."""
    whole_number("size", size)
    cdf = np.cumsum(np.exp(exponential_mechanism_log_probabilities(utility, epsilon, sensitivity)))
    return np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), cdf.size - 1)
