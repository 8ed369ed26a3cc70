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
from dplab.checks import as_finite_array, fits_in_memory, probability, whole_number

__all__ = ["AuditResult", "audit_samplers", "checked_audit_samples"]

Sampler = Callable[[int, np.random.Generator], np.ndarray]
_THRESHOLD_LEVELS = np.linspace(0.0005, 0.9995, 400)
#: Peak bytes per sample of one side: both sides' float64 outputs (2 x 8), the pooled half and its sorted copy for the
#: quantiles (2 x 8 / 2), and the boolean event masks of the selection half, 2 x 400 thresholds x 1/2 sample, twice
#: (the two sides' masks and their concatenation): 16 + 8 + 800.
AUDIT_BYTES_PER_SAMPLE = 824


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


def checked_audit_samples(samples: int) -> int:
    """``samples`` as an int after checking it is a whole number >= 20 whose audit fits in memory
    (:data:`AUDIT_BYTES_PER_SAMPLE` bytes per sample, before the samplers' own allocations)."""
    samples = whole_number("samples", samples, minimum=20)
    fits_in_memory(
        {"samples": samples},
        AUDIT_BYTES_PER_SAMPLE * samples,
        f"the audit's outputs and event masks ({AUDIT_BYTES_PER_SAMPLE} bytes per sample)",
    )
    return samples


def _scalars(
    samples: np.ndarray, statistic: Callable[[np.ndarray], np.ndarray] | None, name: str, size: int
) -> np.ndarray:
    """The ``size`` scalar outputs of one side as float64 (booleans read as 0/1); NaN, infinite and complex outputs,
    other shapes and other counts are refused naming the sampler."""
    values = np.asarray(samples if statistic is None else statistic(samples))
    values = as_finite_array(values.astype(np.float64) if values.dtype == bool else values, name)
    if values.shape != (size,):
        raise ValueError(
            f"{name} returned outputs of shape {values.shape}; allowed: {size} scalar outputs, shape ({size},) "
            "(pass statistic= for vector outputs)"
        )
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
    between event selection (both orderings of the pair, thresholds at 400 pooled quantiles) and the bound.

    Each sampler must return ``samples`` finite real outputs (or booleans, read as 0/1): a NaN, infinite or complex
    output is refused (``ValueError``/``TypeError`` naming ``sample_p`` or ``sample_q``), never counted; ``samples``
    must fit in memory (:func:`checked_audit_samples`)."""
    samples = checked_audit_samples(samples)
    probability("delta", delta, allow_zero=True)
    probability("alpha", alpha)
    generator = np.random.default_rng(rng)
    p = _scalars(sample_p(samples, generator), statistic, "sample_p", samples)
    q = _scalars(sample_q(samples, generator), statistic, "sample_q", samples)
    half = samples // 2
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
