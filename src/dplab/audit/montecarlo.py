"""Honest Monte-Carlo lower bounds on E_γ and ε from samples (our audit design: the
classic threshold-event audit with exact Clopper–Pearson intervals).

For any event A fixed before sampling, P(A) − γ Q(A) ≤ E_γ(P‖Q) = sup_A [P(A) − γ Q(A)] (eq. (7) of
Asoodeh, Diaz, Calmon 2020).  With m_p samples of P and m_q samples of Q, k_p and k_q of which fall in A,
one-sided Clopper–Pearson bounds P_lo (level 1 − α/2) and Q_hi (level 1 − α/2) hold jointly with probability
≥ 1 − α (union bound), hence

    LB = max(0, P_lo − e^ε Q_hi)  ≤ E_{e^ε}(P‖Q)   with confidence 1 − α.

Equivalently, a mechanism that is (ε, δ)-DP satisfies P(A) ≤ e^ε Q(A) + δ, so
ε_LB = max(0, log((P_lo − δ)/Q_hi)) is a (1 − α)-confidence lower bound on its ε at that δ.
The level is per call (per ε), not simultaneous over a sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.special

from dplab.audit.grid import bin_index
from dplab.checks import as_float_array, as_non_negative_array, probability

__all__ = [
    "HockeyStickLowerBound",
    "bin_index",
    "clopper_pearson",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound_from_counts",
    "event_from_laws",
    "hockey_stick_lower_bound",
    "hockey_stick_lower_bound_from_counts",
]


def _validated_counts(k: np.ndarray, m: np.ndarray, *, k_name: str = "k", m_name: str = "m"):
    """Broadcast counts k, m as float64 arrays after checking 0 <= k <= m, m >= 1, integer-valued."""
    k, m = np.broadcast_arrays(as_float_array(k, k_name), as_float_array(m, m_name))
    bad_m = ~np.isfinite(m) | (m < 1) | (m != np.round(m))
    if np.any(bad_m):
        raise ValueError(f"{m_name}={float(m[bad_m].flat[0]):g} must be integer-valued and >= 1")
    bad_k = (k != np.round(k)) | (k < 0) | (k > m)
    if np.any(bad_k):
        raise ValueError(
            f"{k_name}={float(k[bad_k].flat[0]):g} must be integer-valued with 0 <= {k_name} <= {m_name}"
            f" (here {m_name}={float(m[bad_k].flat[0]):g})"
        )
    return k, m


def clopper_pearson_lower(k: np.ndarray, m: np.ndarray, *, alpha: float) -> np.ndarray:
    """One-sided exact (Clopper–Pearson) lower confidence bound of level 1 − alpha for a binomial rate.

    Beta^{-1}(alpha; k, m − k + 1), and 0 when k = 0.
    """
    alpha = probability("alpha", alpha)
    k, m = _validated_counts(k, m)
    empty = k == 0
    lower = scipy.special.betaincinv(np.where(empty, 1.0, k), m - k + 1.0, alpha)
    return np.where(empty, 0.0, lower)


def clopper_pearson_upper(k: np.ndarray, m: np.ndarray, *, alpha: float) -> np.ndarray:
    """One-sided exact (Clopper–Pearson) upper confidence bound of level 1 − alpha for a binomial rate.

    Beta^{-1}(1 − alpha; k + 1, m − k), and 1 when k = m.
    """
    alpha = probability("alpha", alpha)
    k, m = _validated_counts(k, m)
    full = k == m
    upper = scipy.special.betaincinv(k + 1.0, np.where(full, 1.0, m - k), 1.0 - alpha)
    return np.where(full, 1.0, upper)


def clopper_pearson(k: np.ndarray, m: np.ndarray, *, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided exact (Clopper–Pearson) interval of level 1 − alpha, alpha/2 in each tail (vectorised)."""
    alpha = probability("alpha", alpha)
    return clopper_pearson_lower(k, m, alpha=alpha / 2), clopper_pearson_upper(k, m, alpha=alpha / 2)


def _times_exp(probability: np.ndarray, epsilon: np.ndarray) -> np.ndarray:
    """e^ε · probability computed as exp(ε + log probability): 0 stays 0 even where e^ε overflows to inf."""
    with np.errstate(divide="ignore", over="ignore"):
        return np.exp(epsilon + np.log(probability))


def _validated_epsilon(epsilon: np.ndarray) -> np.ndarray:
    return as_non_negative_array(epsilon, "epsilon")


def event_from_laws(p: np.ndarray, q: np.ndarray, epsilon: np.ndarray) -> np.ndarray:
    """Boolean mask of the optimal event A_ε = {k : p_k > e^ε q_k} of two binned laws (eq. (7)).

    Compared in log space (log p_k > ε + log q_k), so q_k = 0 < p_k is always in the event.  For an array
    of ε the result has shape ε.shape + p.shape.  Choose the event from a reference (e.g. the grid laws of
    ``dplab.audit.grid``) BEFORE drawing the samples that are counted in it.
    """
    p = as_non_negative_array(p, "p")
    q = as_non_negative_array(q, "q")
    if p.shape != q.shape or p.ndim != 1:
        raise ValueError(f"p and q must be 1-D arrays of equal shape; got {p.shape} and {q.shape}")
    epsilon = _validated_epsilon(epsilon)[..., np.newaxis]
    with np.errstate(divide="ignore"):
        return np.log(p) > epsilon + np.log(q)


@dataclass(frozen=True)
class HockeyStickLowerBound:
    """Monte-Carlo lower bound on E_{e^ε}(P‖Q) for one fixed event (arrays broadcast over ε).

    lower = max(0, p_lower − e^ε q_upper); estimate = k_p/m_p − e^ε k_q/m_q (may be negative).
    """

    lower: np.ndarray
    estimate: np.ndarray
    p_lower: np.ndarray
    q_upper: np.ndarray
    k_p: np.ndarray
    k_q: np.ndarray
    m_p: np.ndarray
    m_q: np.ndarray


def hockey_stick_lower_bound_from_counts(
    k_p: np.ndarray,
    m_p: np.ndarray,
    k_q: np.ndarray,
    m_q: np.ndarray,
    *,
    epsilon: np.ndarray,
    alpha: float = 0.01,
) -> HockeyStickLowerBound:
    """(1 − alpha)-confidence lower bound max(0, P_lo − e^ε Q_hi) on E_{e^ε}(P‖Q) from event counts.

    k_p of m_p samples of P and k_q of m_q samples of Q fell in one fixed event; P_lo and Q_hi are
    one-sided Clopper–Pearson bounds of level 1 − alpha/2 each (union bound).  An empty event (k_p = 0)
    gives P_lo = 0 and so LB = 0.
    """
    alpha = probability("alpha", alpha)
    epsilon = _validated_epsilon(epsilon)
    k_p, m_p = _validated_counts(k_p, m_p, k_name="k_p", m_name="m_p")
    k_q, m_q = _validated_counts(k_q, m_q, k_name="k_q", m_name="m_q")
    p_lower = clopper_pearson_lower(k_p, m_p, alpha=alpha / 2)
    q_upper = clopper_pearson_upper(k_q, m_q, alpha=alpha / 2)
    return HockeyStickLowerBound(
        lower=np.maximum(0.0, p_lower - _times_exp(q_upper, epsilon)),
        estimate=k_p / m_p - _times_exp(k_q / m_q, epsilon),
        p_lower=p_lower,
        q_upper=q_upper,
        k_p=k_p.astype(np.int64),
        k_q=k_q.astype(np.int64),
        m_p=m_p.astype(np.int64),
        m_q=m_q.astype(np.int64),
    )


def _event_counts(in_event: np.ndarray, name: str) -> tuple[np.ndarray, int]:
    """Number of samples in the event (last axis) and the number of samples."""
    in_event = np.asarray(in_event)
    if in_event.ndim < 1 or in_event.shape[-1] < 1:
        raise ValueError(f"{name} must hold at least one sample along its last axis; got shape {in_event.shape}")
    if in_event.dtype != bool and not np.all((in_event == 0) | (in_event == 1)):
        raise ValueError(f"{name} must be boolean (or 0/1) event membership of each sample")
    return np.count_nonzero(in_event, axis=-1), in_event.shape[-1]


def hockey_stick_lower_bound(
    in_event_p: np.ndarray,
    in_event_q: np.ndarray,
    *,
    epsilon: np.ndarray,
    alpha: float = 0.01,
) -> HockeyStickLowerBound:
    """Lower bound on E_{e^ε}(P‖Q) from event membership of samples of P and of Q.

    ``in_event_p[..., j]`` says whether the j-th sample of P lies in the fixed event (leading axes, e.g. one
    event per ε, broadcast with ``epsilon``); likewise for Q.  See hockey_stick_lower_bound_from_counts.
    """
    k_p, m_p = _event_counts(in_event_p, "in_event_p")
    k_q, m_q = _event_counts(in_event_q, "in_event_q")
    return hockey_stick_lower_bound_from_counts(k_p, m_p, k_q, m_q, epsilon=epsilon, alpha=alpha)


def epsilon_lower_bound_from_counts(
    k_p: np.ndarray,
    m_p: np.ndarray,
    k_q: np.ndarray,
    m_q: np.ndarray,
    *,
    delta: float,
    alpha: float = 0.01,
) -> np.ndarray:
    """(1 − alpha)-confidence lower bound on ε at a given δ: max(0, log((P_lo − δ)/Q_hi)), 0 if P_lo <= δ.

    (ε, δ)-DP implies P(A) ≤ e^ε Q(A) + δ for the fixed event A (eq. (5)); P_lo and Q_hi are one-sided
    Clopper–Pearson bounds of level 1 − alpha/2 each, combined by a union bound.
    """
    alpha = probability("alpha", alpha)
    delta = probability("delta", delta, allow_zero=True)
    k_p, m_p = _validated_counts(k_p, m_p, k_name="k_p", m_name="m_p")
    k_q, m_q = _validated_counts(k_q, m_q, k_name="k_q", m_name="m_q")
    excess = clopper_pearson_lower(k_p, m_p, alpha=alpha / 2) - delta
    q_upper = clopper_pearson_upper(k_q, m_q, alpha=alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(excess) - np.log(q_upper)
    return np.where(excess > 0, np.maximum(0.0, log_ratio), 0.0)
