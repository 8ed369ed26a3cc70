"""Neighbouring-histogram transitions of the mode release and the exact pure ε over them.

The mode release of Lin, Wang, Ma, Wang (*Purifying Approximate DP with Randomized Post-processing*, Algorithm 12,
Theorem 6) sees a histogram D only through its mode f(D) (ties to the smallest index) and its distance to
instability 𝒟₀(D) = ⌈(occ₁ − occ₂)/2⌉ (occ₁ ≥ occ₂ the two largest counts).  Its pure ε over replace-one neighbours
D, D′ (one record moved from item i to item j ≠ i) is therefore the largest max-divergence between the output laws
at (f(D), 𝒟₀(D)) and (f(D′), 𝒟₀(D′)) over the transitions that neighbours realise.  This module enumerates those
transitions exhaustively (all histograms of n records), gives a superset valid for every n (:func:`reduced_transitions`),
and takes the maximum of the exact pure ε over a set of transitions (:func:`max_pure_epsilon_over_transitions`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dplab.audit.pure_epsilon import pure_epsilon_from_log_pmfs
from dplab.checks import as_integer_array, positive_finite, require_ndim, whole_number
from dplab.mechanisms.stability import (
    code_bits,
    distance_to_instability_pmf,
    mode_release_log_delta,
    pure_mode_release_pmf,
    stability_threshold,
    uniform_bottom_log_delta,
    uniform_bottom_pure_epsilon,
)

__all__ = [
    "TIE_ATOL",
    "TIE_RTOL",
    "AuditedModeRelease",
    "alg12_audited_releases",
    "all_histograms",
    "max_pure_epsilon_over_transitions",
    "mode_and_distance_rows",
    "neighbour_transitions",
    "reduced_max_distance",
    "reduced_transitions",
    "uniform_calibrated_release",
]

Transition = tuple[int, int, int, int]

TIE_RTOL = 1e-9  # values this close to the maximum (relative) are ties (rounding of mathematically equal ε)
#: ... and values this close in absolute terms: an ε computed as a log ratio of probabilities carries an absolute
#: rounding error (at most 4e-15 where ε < 1e-3, against a 60-digit evaluation of the laws audited here), which the
#: relative tolerance misses where ε is near 0 (ε ≈ 5e-10 for Algorithm 12 at d = 4).
TIE_ATOL = 3e-14


def all_histograms(universe_size: int, n_records: int) -> np.ndarray:
    """All histograms of ``n_records`` records over ``universe_size`` items, shape (C(u + n − 1, n), u), in the
    order of ``itertools.combinations_with_replacement`` (multisets of items)."""
    whole_number("universe_size", universe_size)
    whole_number("n_records", n_records)
    combos = np.array(list(itertools.combinations_with_replacement(range(universe_size), n_records)), dtype=np.int64)
    return np.stack([np.bincount(c, minlength=universe_size) for c in combos])


def mode_and_distance_rows(histograms: np.ndarray) -> np.ndarray:
    """(f(D), 𝒟₀(D)) of each row D of ``histograms`` (mode ties to the smallest index, 𝒟₀ = ⌈(occ₁ − occ₂)/2⌉ as in
    Algorithm 12 of Lin, Wang, Ma, Wang), shape (H, 2)."""
    hist = require_ndim("histograms", as_integer_array(histograms, "histograms", minimum=0), 2)
    mode = np.argmax(hist, axis=1)
    top2 = np.sort(hist, axis=1)[:, -2:]
    return np.stack([mode, -((top2[:, 0] - top2[:, 1]) // 2)], axis=1)


def neighbour_transitions(universe_size: int, n_records: int) -> set[Transition]:
    """Every (f(D), 𝒟₀(D), f(D′), 𝒟₀(D′)) over all histograms D of ``n_records`` records and all replace-one
    neighbours D′ (one record moved from item i to item j ≠ i): exhaustive enumeration."""
    hist = all_histograms(universe_size, n_records)
    here = mode_and_distance_rows(hist)
    found: set[Transition] = set()
    for i in range(universe_size):
        has = hist[:, i] > 0
        for j in range(universe_size):
            if i == j or not has.any():
                continue
            moved = hist[has].copy()
            moved[:, i] -= 1
            moved[:, j] += 1
            pairs = np.concatenate([here[has], mode_and_distance_rows(moved)], axis=1)
            found |= set(map(tuple, np.unique(pairs, axis=0).tolist()))
    return found


def reduced_transitions(universe_size: int, max_distance: int) -> set[Transition]:
    """Same mode with |𝒟₀ − 𝒟₀′| ≤ 1 (0 ≤ 𝒟₀ ≤ max_distance), and mode changes with 𝒟₀, 𝒟₀′ ∈ {0, 1}: a superset
    of the replace-one transitions of :func:`neighbour_transitions` restricted to 𝒟₀ ≤ max_distance, for any number
    of records (moving one record changes occ₁ − occ₂ by at most 2, and the mode only where occ₁ − occ₂ ≤ 2)."""
    whole_number("universe_size", universe_size)
    whole_number("max_distance", max_distance, minimum=0)
    out = {
        (m, k, m, k2)
        for m in range(universe_size)
        for k in range(max_distance + 1)
        for k2 in (k - 1, k, k + 1)
        if 0 <= k2 <= max_distance
    }
    out |= {
        (a, k, b, k2)
        for a in range(universe_size)
        for b in range(universe_size)
        if a != b
        for k in (0, 1)
        for k2 in (0, 1)
    }
    return out


def max_pure_epsilon_over_transitions(
    transitions: set[Transition], pmf: Callable[[int, int], np.ndarray]
) -> tuple[float, tuple]:
    """max over transitions (m, k, m′, k′) of the exact pure ε between the output laws pmf(m, k) and pmf(m′, k′)
    (:func:`~dplab.audit.pure_epsilon.pure_epsilon_from_log_pmfs`: ∞ if one side is 0 and the other not), and the
    transition attaining it: the first in sorted order among those within TIE_RTOL·max + TIE_ATOL of the maximum,
    so that symmetric transitions whose values differ only by rounding name the same transition on every machine.
    (0, ()) when every ε is 0 or there is no transition."""
    cache: dict[tuple[int, int], np.ndarray] = {}

    def law(m: int, k: int) -> np.ndarray:
        if (m, k) not in cache:
            with np.errstate(divide="ignore"):
                cache[(m, k)] = np.log(pmf(m, k))
        return cache[(m, k)]

    ordered = sorted(transitions)
    values = [pure_epsilon_from_log_pmfs(law(t[0], t[1]), law(t[2], t[3])) for t in ordered]
    worst = max([0.0, *values])
    if worst == 0.0:
        return worst, ()
    return worst, next(t for t, v in zip(ordered, values) if v >= worst * (1.0 - TIE_RTOL) - TIE_ATOL)


# ------------------------------------------------------------------------------------ the audited output laws


@dataclass(frozen=True)
class AuditedModeRelease:
    """One audited output law of the mode release: its treatment, δ rule and ⊥ encoding, code length, log δ, bound on
    the pure ε, the law pmf(f(D), 𝒟₀) over the outputs, the reduced transitions it is checked on, and the largest
    𝒟₀ of that enumeration (NaN for the uniform-calibrated reference, which reports none)."""

    treatment: str
    delta_rule: str
    bottom: str
    code_bits: int
    log_delta: float
    bound: float
    pmf: Callable[[int, int], np.ndarray]
    reduced: set[Transition]
    max_distance: float


def reduced_max_distance(epsilon: float, log_delta: float, extra_distance: int) -> int:
    """The largest 𝒟₀ of the reduced enumeration: ⌈T⌉ + 1 + extra, T = log(1/δ)/ε Algorithm 12's stability threshold
    (beyond it the pass probability only grows towards 1, so the log ratios of neighbours shrink)."""
    extra_distance = whole_number("extra_distance", extra_distance, minimum=0)
    return math.ceil(stability_threshold(epsilon, log_delta)) + 1 + extra_distance


def alg12_audited_releases(
    epsilon: float, universe_size: int, delta_rule: str, bottom: str, geometries: Sequence[str], extra_distance: int
) -> list[AuditedModeRelease]:
    """Algorithm 12 + Algorithm 2 in each geometry (``alg12_geometry_<g>``, bound 2ε by Theorem 6 of Lin, Wang, Ma,
    Wang) and the unpurified u_apx (``unpurified``, pure only with the uniform ⊥, bound
    :func:`~dplab.mechanisms.stability.uniform_bottom_pure_epsilon`, else inf), at one δ rule and ⊥ encoding."""
    positive_finite("epsilon", epsilon)
    size = whole_number("universe_size", universe_size, minimum=2)
    cbits = code_bits(size, bottom)
    log_delta = mode_release_log_delta(cbits, epsilon, delta_rule)
    max_k = reduced_max_distance(epsilon, log_delta, extra_distance)
    reduced = reduced_transitions(size, max_k)

    def purified(geometry: str) -> Callable[[int, int], np.ndarray]:
        return lambda m, k: pure_mode_release_pmf(
            m, k, size, epsilon, bottom=bottom, geometry=geometry, log_delta=log_delta
        )

    laws = [(f"alg12_geometry_{g}", 2 * epsilon, purified(g)) for g in geometries]
    unpurified_bound = uniform_bottom_pure_epsilon(epsilon, log_delta, size) if bottom == "uniform" else math.inf
    laws.append(
        (
            "unpurified",
            unpurified_bound,
            lambda m, k: distance_to_instability_pmf(m, k, size, epsilon, log_delta, bottom),
        )
    )
    return [
        AuditedModeRelease(treatment, delta_rule, bottom, cbits, log_delta, bound, pmf, reduced, max_k)
        for treatment, bound, pmf in laws
    ]


def uniform_calibrated_release(
    epsilon: float, universe_size: int, n_bits: int, extra_distance: int
) -> AuditedModeRelease:
    """The unpurified u_apx with the uniform ⊥ and δ calibrated so that it is ε-DP
    (:func:`~dplab.mechanisms.stability.uniform_bottom_log_delta`), bound ε."""
    positive_finite("epsilon", epsilon)
    size = whole_number("universe_size", universe_size, minimum=2)
    log_delta = uniform_bottom_log_delta(epsilon, size)
    reduced = reduced_transitions(size, reduced_max_distance(epsilon, log_delta, extra_distance))
    return AuditedModeRelease(
        "unpurified",
        "uniform_calibrated",
        "uniform",
        whole_number("n_bits", n_bits),
        log_delta,
        epsilon,
        lambda m, k: distance_to_instability_pmf(m, k, size, epsilon, log_delta, "uniform"),
        reduced,
        math.nan,
    )
