"""Rényi divergences D_α(P‖Q) = (1/(α−1)) log E_Q[(dP/dQ)^α] (Mironov 2017, "Rényi differential privacy",
Definition 3) of the Laplace law in closed form and of laws on finite sets by enumeration, with the order α = ∞
(the max-divergence, Mironov 2017 eq. (2)) included."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from dplab.accounting._arrays import scalar_or_array
from dplab.checks import as_float_array, as_positive_array, require

__all__ = ["discrete_renyi", "laplace_renyi"]


def _orders(order: ArrayLike) -> np.ndarray:
    alpha = as_float_array(order, "order")
    require(alpha > 1, "order", order, "> 1 (math.inf for the max-divergence)")
    return alpha


def laplace_renyi(order: ArrayLike, *, shift: ArrayLike, scale: ArrayLike) -> float | np.ndarray:
    """D_α(Lap(m, b) ‖ Lap(0, b)) with t = |m|/b (Mironov 2017, Proposition 6 / Table II):
    (1/(α−1)) log[ α/(2α−1)·e^{(α−1)t} + (α−1)/(2α−1)·e^{−αt} ], and t at α = ∞. Increasing in α and in t, always
    ≤ t. Summed in log space; broadcasts all three arguments."""
    alpha = _orders(order)
    t = np.abs(as_float_array(shift, "shift")) / as_positive_array(scale, "scale")
    require(np.isfinite(t), "shift", shift, "a finite number")
    alpha, t = np.broadcast_arrays(alpha, t)
    finite = np.isfinite(alpha)
    a = np.where(finite, alpha, 2.0)
    log_sum = np.logaddexp(np.log(a / (2 * a - 1)) + (a - 1) * t, np.log((a - 1) / (2 * a - 1)) - a * t)
    return scalar_or_array(np.where(finite, np.maximum(log_sum / (a - 1), 0.0), t))  # round-off below 0 lifted


def discrete_renyi(log_p: ArrayLike, log_q: ArrayLike, order: float) -> float | np.ndarray:
    """D_α(p‖q) = (1/(α−1)) log Σ_k p_k^α q_k^{1−α} for laws on common atoms given by their log-masses along the last
    axis (leading axes broadcast: one divergence per instance); α = ∞ gives max_{p_k > 0} log(p_k/q_k). Atoms with
    p_k = 0 contribute nothing; an atom with p_k > 0 = q_k gives +∞."""
    alpha = float(_orders(order))
    lp, lq = as_float_array(log_p, "log_p"), as_float_array(log_q, "log_q")
    require(lp <= 0, "log_p", log_p, "log-masses in [-inf, 0]")
    require(lq <= 0, "log_q", log_q, "log-masses in [-inf, 0]")
    require(np.asarray(lp.ndim >= 1 and lq.ndim >= 1 and lp.shape[-1] == lq.shape[-1]), "log_q", np.shape(log_q),
            f"atoms along the last axis, as many as log_p's {lp.shape[-1:]}")  # fmt: skip
    lp, lq = np.broadcast_arrays(lp, lq)
    support = lp > -np.inf
    with np.errstate(invalid="ignore"):
        ratio = np.where(support, lp - lq, -np.inf)
    if math.isinf(alpha):
        return scalar_or_array(np.max(ratio, axis=-1))
    terms = np.where(support, lp + (alpha - 1) * ratio, -np.inf)
    return scalar_or_array(logsumexp(terms, axis=-1) / (alpha - 1))
