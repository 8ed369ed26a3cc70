"""Monte-Carlo auditor for a user's pair of samplers (outputs of a mechanism on two neighbouring datasets).

Half of the samples of each side select the event (a threshold set {s > t} or {s < t} of a scalar statistic s,
whichever maximises the Clopper–Pearson ε lower bound on that half); the other half, never used for the choice,
gives the reported bound :func:`dplab.audit.montecarlo.epsilon_lower_bound_from_counts`.  Because the event is
fixed before the held-out samples are looked at, the bound holds with probability ≥ 1 − alpha for the chosen
ordering (P, Q) of the pair (eq. (5) of Asoodeh, Diaz, Calmon 2020: (ε, δ)-DP implies P(A) ≤ e^ε Q(A) + δ).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dplab.audit.montecarlo import epsilon_lower_bound_from_counts
from dplab.checks import probability, require

__all__ = ["AuditResult", "audit_samplers"]

Sampler = Callable[[int, np.random.Generator], np.ndarray]
_THRESHOLD_LEVELS = np.linspace(0.0005, 0.9995, 400)


@dataclass(frozen=True)
class AuditResult:
    """ε lower bound at ``delta`` holding with probability ≥ ``confidence``, the held-out event and its counts."""

    epsilon_lower_bound: float
    delta: float
    confidence: float
    event: str
    counts: tuple[int, int, int, int]

    def refutes(self, claimed_epsilon: float) -> bool:
        """True when the bound exceeds ``claimed_epsilon``: the claim (ε, δ) is false with confidence ``confidence``."""
        return self.epsilon_lower_bound > claimed_epsilon


def _scalars(samples: np.ndarray, statistic: Callable[[np.ndarray], np.ndarray] | None, name: str) -> np.ndarray:
    values = np.asarray(samples if statistic is None else statistic(samples), dtype=float)
    require(values.ndim == 1, name, values.shape, "a 1-D array of scalar outputs (pass statistic= for vectors)")
    return values


def _in_event(values: np.ndarray, thresholds: np.ndarray | float, side: str) -> np.ndarray:
    """Membership of ``values`` in {s > t} (side ">") or {s < t} (side "<"), one row per threshold t."""
    values, thresholds = values[None, :], np.atleast_1d(thresholds)[:, None]
    return values > thresholds if side == ">" else values < thresholds


def _event_masks(values: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Boolean (2·len(thresholds), len(values)): rows {s > t} for every t, then {s < t}."""
    return np.concatenate([_in_event(values, thresholds, ">"), _in_event(values, thresholds, "<")])


def _best_event(p: np.ndarray, q: np.ndarray, thresholds: np.ndarray, delta: float, alpha: float) -> tuple[int, float]:
    k_p, k_q = _event_masks(p, thresholds).sum(axis=1), _event_masks(q, thresholds).sum(axis=1)
    bounds = epsilon_lower_bound_from_counts(k_p, p.size, k_q, q.size, delta=delta, alpha=alpha)
    best = int(np.argmax(bounds))
    return best, float(bounds[best])


def audit_samplers(
    sample_p: Sampler,
    sample_q: Sampler,
    *,
    delta: float,
    samples: int = 100_000,
    alpha: float = 0.05,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
    rng: np.random.Generator | int | None = None,
) -> AuditResult:
    """(1 − alpha)-confidence lower bound on ε at ``delta`` for the mechanism whose outputs on two neighbouring
    datasets are drawn by ``sample_p(size, rng)`` and ``sample_q(size, rng)``; ``samples`` per side, split in half
    between event selection (both orderings of the pair, thresholds at 400 pooled quantiles) and the bound."""
    require(int(samples) == samples and samples >= 20, "samples", samples, "an integer >= 20")
    probability("delta", delta, allow_zero=True)
    probability("alpha", alpha)
    generator = np.random.default_rng(rng)
    p = _scalars(sample_p(int(samples), generator), statistic, "sample_p")
    q = _scalars(sample_q(int(samples), generator), statistic, "sample_q")
    half = int(samples) // 2
    thresholds = np.unique(np.quantile(np.concatenate([p[:half], q[:half]]), _THRESHOLD_LEVELS))
    choices = [
        (_best_event(a[:half], b[:half], thresholds, delta, alpha), a, b, order)
        for a, b, order in ((p, q, "P/Q"), (q, p, "Q/P"))
    ]
    (index, _), first, second, order = max(choices, key=lambda choice: choice[0][1])
    threshold, side = thresholds[index % thresholds.size], (">" if index < thresholds.size else "<")
    k_first = int(_in_event(first[half:], threshold, side)[0].sum())
    k_second = int(_in_event(second[half:], threshold, side)[0].sum())
    counts = (k_first, first.size - half, k_second, second.size - half)
    bound = float(epsilon_lower_bound_from_counts(*counts, delta=delta, alpha=alpha))
    return AuditResult(bound, float(delta), 1.0 - alpha, f"{order}: s {side} {threshold:.6g}", counts)
