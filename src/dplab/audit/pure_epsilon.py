"""Exact pure ε of a pair of laws given by their log-masses (or log-densities) on a common set of outputs.

A mechanism is (ε, 0)-DP on a pair of neighbours D, D′ iff its output laws P, Q satisfy P(o) ≤ e^ε Q(o) and
Q(o) ≤ e^ε P(o) for every output o (Dwork and Roth 2014, Definition 2.4, with δ = 0, for discrete outputs; for
densities the same inequalities hold almost everywhere).  The smallest such ε is the max-divergence in both
directions, ε∞ = max(D∞(P‖Q), D∞(Q‖P)) with D∞(P‖Q) = sup_o log P(o)/Q(o) (the max divergence of Dwork and
Roth 2014).  On log values: an output that neither law charges (both −inf) does not count; an output that
exactly one law charges makes that direction's sup +inf.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dplab.checks import as_float_array, as_real_array, require

__all__ = ["directional_log_ratio_sups", "pure_epsilon_from_log_pmfs"]


def _log_values(name: str, value: ArrayLike) -> np.ndarray:
    """``value`` as a float64 array of log-masses or log-densities: NaN and +inf refused, −inf (mass 0) allowed."""
    array = as_float_array(value, name)
    require(array < np.inf, name, array, "log-masses or log-densities in [-inf, inf) (no NaN, no +inf)")
    return array


def _checked_pair(log_p: ArrayLike, log_q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    lp, lq = _log_values("log_p", log_p), _log_values("log_q", log_q)
    if lp.shape != lq.shape:
        raise ValueError(f"log_p has shape {lp.shape} and log_q has shape {lq.shape}; allowed: the same shape")
    return lp, lq


def directional_log_ratio_sups(log_p: ArrayLike, log_q: ArrayLike) -> tuple[float, float]:
    """(sup_o log p(o)/q(o), sup_o log q(o)/p(o)) over the outputs o that p or q charges (log value > −inf).

    Entries where both are −inf are skipped; where only q (only p) is −inf the first (second) sup is +inf.  With no
    charged output both sups are −inf (the sup of an empty set), so that sums of directional sups over the
    coordinates of a product law stay correct.

    Where every entry of both is finite (the usual case, and then every argument check holds), the sups are
    max(log p − log q) and 0 − min(log p − log q), from one difference array (a − b = −(b − a) exactly in floating
    point, and 0 − 0 = +0): the same numbers in three passes over the data instead of about ten.
    """
    lp, lq = as_real_array(log_p, "log_p"), as_real_array(log_q, "log_q")
    if lp.shape == lq.shape and lp.size:
        with np.errstate(invalid="ignore", over="ignore"):  # −inf − (−inf) is NaN: the general case below
            difference = lp - lq
        largest, smallest = float(difference.max()), float(difference.min())  # NaN if any entry is NaN
        if math.isfinite(largest) and math.isfinite(smallest):
            return largest, 0.0 - smallest
    lp, lq = _checked_pair(lp, lq)
    charged = np.isfinite(lp) | np.isfinite(lq)
    lp, lq = lp[charged], lq[charged]
    if lp.size == 0:
        return -np.inf, -np.inf
    with np.errstate(invalid="ignore"):
        forward = np.where(np.isfinite(lq), lp - lq, np.inf)
        backward = np.where(np.isfinite(lp), lq - lp, np.inf)
    return float(np.max(forward)), float(np.max(backward))


def pure_epsilon_from_log_pmfs(log_p: ArrayLike, log_q: ArrayLike) -> float:
    """ε∞ = max_o |log p(o) − log q(o)| over the outputs either law charges: 0 where both are −inf (no
    contribution), +inf where exactly one is; 0 when neither law charges any output (module docstring)."""
    forward, backward = directional_log_ratio_sups(log_p, log_q)
    return max(0.0, forward, backward)
