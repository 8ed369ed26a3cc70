"""Monte-Carlo lower bound on the pure ε of a real-valued mechanism from samples on two neighbouring datasets.

The events are fixed before sampling: {x < t} and {x > t} for every threshold t, and {x = a} for every atom a (the
points where a mechanism's law has point masses). For each event A and each direction (P‖Q and Q‖P), pure ε-DP
implies P(A) ≤ e^ε Q(A), so ε_LB(A) = max(0, log(P_lo(A)/Q_hi(A))) with one-sided Clopper–Pearson bounds
(:func:`dplab.audit.montecarlo.epsilon_lower_bound_from_counts` at δ = 0). The maximum over the
``n_events = 2 (2 · #thresholds + #atoms)`` candidates is a (1 − α)-confidence lower bound when each candidate is
taken at level α / n_events (Bonferroni).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplab.audit.montecarlo import epsilon_lower_bound_from_counts
from dplab.checks import as_float_array, probability

__all__ = ["PureEpsilonLowerBound", "pure_epsilon_lower_bound", "threshold_event_counts"]


def _one_dimensional(name: str, values: np.ndarray) -> np.ndarray:
    """``values`` as a 1-D float64 array of numbers (±inf allowed; NaN, booleans and complex values refused)."""
    values = as_float_array(values, name)
    if values.ndim != 1:
        raise ValueError(f"{name} has shape {values.shape}; allowed: a 1-D array")
    return values


def threshold_event_counts(samples: np.ndarray, thresholds: np.ndarray, atoms: np.ndarray = ()) -> np.ndarray:
    """Counts of {x < t} and {x > t} for every threshold, then {x = a} for every atom: one vector of length
    2 · #thresholds + #atoms (one sort, then binary searches)."""
    samples = _one_dimensional("samples", samples)
    thresholds = _one_dimensional("thresholds", thresholds)
    atoms = _one_dimensional("atoms", as_float_array(atoms, "atoms").reshape(-1))
    ordered = np.sort(samples)
    below = np.searchsorted(ordered, thresholds, side="left")
    above = samples.size - np.searchsorted(ordered, thresholds, side="right")
    equal = np.searchsorted(ordered, atoms, side="right") - np.searchsorted(ordered, atoms, side="left")
    return np.concatenate([below, above, equal])


@dataclass(frozen=True)
class PureEpsilonLowerBound:
    """``epsilon_lb`` holds with confidence 1 − ``alpha`` jointly over the ``n_events`` candidate events."""

    epsilon_lb: float
    n_events: int
    alpha: float


def pure_epsilon_lower_bound(
    samples_p: np.ndarray,
    samples_q: np.ndarray,
    thresholds: np.ndarray,
    atoms: np.ndarray = (),
    *,
    alpha: float,
) -> PureEpsilonLowerBound:
    """(1 − α)-confidence lower bound on the pure ε of a mechanism whose outputs on two neighbouring datasets are
    ``samples_p`` and ``samples_q``: the largest ε_LB over the threshold and atom events in both directions, each
    at level α / n_events (module docstring)."""
    alpha = probability("alpha", alpha)
    samples_p, samples_q = _one_dimensional("samples_p", samples_p), _one_dimensional("samples_q", samples_q)
    counts_p = threshold_event_counts(samples_p, thresholds, atoms)
    counts_q = threshold_event_counts(samples_q, thresholds, atoms)
    n_events = 2 * counts_p.size
    m_p, m_q = samples_p.size, samples_q.size
    bounds = [
        epsilon_lower_bound_from_counts(k_a, m_a, k_b, m_b, delta=0.0, alpha=2 * (alpha / n_events))
        for k_a, m_a, k_b, m_b in ((counts_p, m_p, counts_q, m_q), (counts_q, m_q, counts_p, m_p))
    ]
    return PureEpsilonLowerBound(float(max(np.max(bounds[0]), np.max(bounds[1]))), n_events, alpha)
