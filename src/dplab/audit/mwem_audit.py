"""Exact output laws of MWEM and of Algorithm 16's sampled records on tiny instances, for an exact pure-ε audit.

Lin, Wang, Ma, Wang (*Purifying Approximate DP with Randomized Post-processing*, App. K.2): Algorithm 14 (MWEM with
per-step ε₀: exponential-mechanism query choice with score sensitivity 1/n, Laplace(1/(nε₀)) measurement, the
corrected multiplicative-weights update of :func:`dplab.mechanisms.mwem.multiplicative_weights_update`) and
Algorithm 15 (m records drawn from D̂/n), whose output Algorithm 16 purifies (Theorem 8).  Counts are histograms
over N cells normalised by a public n; ``queries`` is the (K, N) 0/1 workload.
"""

from __future__ import annotations

import math

import numpy as np

from dplab.checks import (
    as_finite_array,
    as_non_negative_array,
    not_boolean,
    positive_finite,
    require_ndim,
    whole_number,
)
from dplab.distributions import Laplace
from dplab.mechanisms.exponential import exponential_mechanism_log_probabilities
from dplab.mechanisms.mwem import multiplicative_weights_update, query_answers

__all__ = ["algorithm16_sample_log_pmf", "pure_mwem_transcript_epsilon"]


def _check_instance(queries: np.ndarray, n: float, epsilon0: float, grid_points: int, **counts: np.ndarray) -> None:
    """Refuse a workload that is not a finite (K, N) matrix, non-negative or wrongly sized counts, n or ε₀ ≤ 0."""
    n_cells = require_ndim("queries", as_finite_array(queries, "queries"), 2).shape[1]
    for name, value in counts.items():
        if np.shape(as_non_negative_array(value, name))[-1:] != (n_cells,):
            raise ValueError(f"{name} has shape {np.shape(value)}; allowed: (..., {n_cells}) like the queries' cells")
    whole_number("n", n)
    positive_finite("epsilon0", epsilon0)
    whole_number("grid_points", grid_points)


def _laplace_quantiles(points: int, scale: float) -> np.ndarray:
    """Laplace(scale) quantiles at the midpoints u = (i + ½)/points (midpoint rule in the CDF variable)."""
    return Laplace(scale).quantile((np.arange(points) + 0.5) / points)


def pure_mwem_transcript_epsilon(
    counts_a: np.ndarray,
    counts_b: np.ndarray,
    queries: np.ndarray,
    n: float,
    rounds: int,
    epsilon0: float,
    grid_points: int,
    halfwidth: float,
) -> float:
    """sup over transcripts τ = (q_1, m_1, …, q_{T−1}, m_{T−1}) of log p_a(τ)/p_b(τ) for MWEM (Algorithm 14) with
    per-step ε₀ (T ∈ {2, 3}).  The printed output (1/T)Σ_{t<T} p_t is a function of τ (round T's draws are never
    used), so this upper-bounds the output's D∞(a‖b), with equality where that map is injective.  Exact except for
    the sup over m_1 (T = 3), taken on a grid of ``grid_points`` within ±``halfwidth`` Laplace scales of the true
    answer plus the two true answers; the last measurement's sup over m is closed-form, n ε₀ |a_k − b_k|."""
    _check_instance(queries, n, epsilon0, grid_points, counts_a=counts_a, counts_b=counts_b)
    positive_finite("halfwidth", halfwidth)
    if not_boolean("rounds", rounds) not in (2, 3):
        raise ValueError(f"rounds={rounds!r} must be 2 or 3 for the exact transcript audit")
    a = query_answers(queries, counts_a / n)[0]
    b = query_answers(queries, counts_b / n)[0]
    n_cells = queries.shape[1]
    log_p0 = np.full(n_cells, -math.log(n_cells))
    last = n * epsilon0 * np.abs(a - b)

    def em_ratio(log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        current = np.exp(log_p) @ queries.T
        return (
            exponential_mechanism_log_probabilities(np.abs(current - a), epsilon0, 1.0 / n)
            - exponential_mechanism_log_probabilities(np.abs(current - b), epsilon0, 1.0 / n)
        ), current

    first, current0 = em_ratio(log_p0)
    if rounds == 2:
        return float(np.max(first + last))
    best = -math.inf
    scale = 1.0 / (n * epsilon0)
    for k in range(queries.shape[0]):
        m = np.concatenate([a[k] + scale * np.linspace(-halfwidth, halfwidth, grid_points), [a[k], b[k]]])
        lap = n * epsilon0 * (np.abs(m - b[k]) - np.abs(m - a[k]))
        log_p1 = multiplicative_weights_update(np.broadcast_to(log_p0, (m.size, n_cells)), queries[k], m, current0[k])
        second, _ = em_ratio(log_p1)
        best = max(best, float(np.max(first[k] + lap + np.max(second + last, axis=-1))))
    return best


def algorithm16_sample_log_pmf(
    counts: np.ndarray, queries: np.ndarray, n: float, epsilon0: float, m_records: int, grid_points: int
) -> np.ndarray:
    """log P(Y = y) for Algorithm 16 with T = 2 rounds (so D̂/n = (p₀ + p₁)/2 depends on (q₁, m₁) only) followed by
    Algorithm 15 with m records; y indexes 𝒳^m as Σ_i y_i N^{m−1−i}, i.e. the m·d-bit code of
    :func:`dplab.mechanisms.mwem.purify_records`.  P(y) = Σ_k P_EM(k) E_{m₁}[Π_i D̂(y_i)/n], the expectation over
    m₁ = a_k + Lap(1/(nε₀)) by the midpoint rule in the CDF variable (``grid_points`` nodes)."""
    _check_instance(queries, n, epsilon0, grid_points, counts=counts)
    whole_number("m_records", m_records)
    a = query_answers(queries, counts / n)[0]
    n_cells = queries.shape[1]
    p0 = np.full(n_cells, 1.0 / n_cells)
    current0 = queries @ p0
    log_em = exponential_mechanism_log_probabilities(np.abs(current0 - a), epsilon0, 1.0 / n)
    noise = _laplace_quantiles(grid_points, 1.0 / (n * epsilon0))
    total = np.zeros(n_cells**m_records)
    for k in range(queries.shape[0]):
        log_p1 = multiplicative_weights_update(
            np.broadcast_to(np.log(p0), (grid_points, n_cells)), queries[k], a[k] + noise, current0[k]
        )
        synthetic = (p0 + np.exp(log_p1)) / 2.0
        tuples = synthetic
        for _ in range(m_records - 1):
            tuples = (tuples[:, :, None] * synthetic[:, None, :]).reshape(grid_points, -1)
        total += math.exp(log_em[k]) * tuples.mean(axis=0)
    return np.log(total)
