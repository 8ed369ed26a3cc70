"""The exponential mechanism on a finite set (McSherry and Talwar 2007, Theorem 6; Dwork and Roth 2014,
Definition 3.4): P(i) ∝ exp(ε·u_i/(2Δu)).  Every function is batched: the candidates run along the last axis of
``utility`` and any leading axes are independent instances (rows)."""

from __future__ import annotations

import numpy as np

from dplab.checks import as_finite_array, positive_finite, size_that_fits

__all__ = [
    "exponential_mechanism_log_probabilities",
    "exponential_mechanism_logits",
    "sample_exponential_mechanism",
    "sample_exponential_mechanism_gumbel",
]


def exponential_mechanism_logits(utility: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """The unnormalised log-weights ε u_i/(2Δu), elementwise."""
    as_finite_array(utility, "utility")
    epsilon = positive_finite("epsilon", epsilon)
    sensitivity = positive_finite("sensitivity", sensitivity)
    return epsilon * np.asarray(utility, float) / (2.0 * sensitivity)


def exponential_mechanism_log_probabilities(utility: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """log P(i) = ε u_i/(2Δu) − log Σ_j exp(ε u_j/(2Δu)) along the last axis, computed stably (each row shifted by
    its maximum)."""
    logits = exponential_mechanism_logits(utility, epsilon, sensitivity)
    logits = logits - logits.max(axis=-1, keepdims=True)
    return logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))


def sample_exponential_mechanism(
    utility: np.ndarray, epsilon: float, sensitivity: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """``size`` independent indices drawn from the exponential mechanism (inverse CDF of the exact probabilities);
    ``size`` is refused before drawing when its uniforms and indices (24 bytes each) cannot fit in memory."""
    size_that_fits("size", size, 24, "exponential-mechanism draws")
    cdf = np.cumsum(np.exp(exponential_mechanism_log_probabilities(utility, epsilon, sensitivity)))
    return np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), cdf.size - 1)


def sample_exponential_mechanism_gumbel(
    utility: np.ndarray, epsilon: float, sensitivity: float, rng: np.random.Generator
) -> np.ndarray:
    """One index per row of ``utility`` (…, K): argmax_k (ε u_k/(2Δu) + G_k) with G_k i.i.d. standard Gumbel, which
    has exactly the exponential mechanism's law (the Gumbel-max trick)."""
    logits = exponential_mechanism_logits(utility, epsilon, sensitivity)
    return np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1)
