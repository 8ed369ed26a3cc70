"""Exact laws of MWEM's transcript and of Algorithm 16's sampled records (Lin, Wang, Ma, Wang, Algorithms 14-16):
a single-query case in closed form and the record law against Monte Carlo of the real pipeline (mwem +
proportional_sampling)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dplab.audit.mwem_audit import algorithm16_sample_log_pmf, pure_mwem_transcript_epsilon
from dplab.mechanisms.mwem import half_subset_queries, mwem, proportional_sampling


def test_transcript_epsilon_single_query_is_exact():
    """K = 1 query containing the added cell, T = 2: the EM is trivial and the sup Laplace ratio is exactly ε₀."""
    queries = np.array([[1.0, 1.0, 0.0, 0.0]])
    counts = np.array([[2.0, 1.0, 1.0, 2.0]])
    neighbour = counts + np.array([[1.0, 0, 0, 0]])
    assert pure_mwem_transcript_epsilon(counts, neighbour, queries, 6, 2, 0.25, 1001, 8.0) == pytest.approx(0.25)
    neighbour = counts + np.array([[0, 0, 1.0, 0]])  # outside the query: nothing changes
    assert pure_mwem_transcript_epsilon(counts, neighbour, queries, 6, 3, 0.25, 1001, 8.0) == pytest.approx(0.0)


def test_sample_pmf_matches_monte_carlo_of_the_pipeline():
    """Exact law of Y (T = 2 MWEM, m = 2 records from D̂) against 200000 runs of mwem + proportional_sampling."""
    rng = np.random.default_rng(3)
    queries = half_subset_queries(2, 3, rng)
    counts = np.array([[3.0, 0.0, 2.0, 1.0]])
    eps0 = 0.4
    log_pmf = algorithm16_sample_log_pmf(counts, queries, 6, eps0, 2, 20001)
    assert np.exp(log_pmf).sum() == pytest.approx(1.0, abs=1e-9)
    runs = 200000
    run = mwem(np.repeat(counts, runs, axis=0), queries, 6, 2, eps0, rng)
    y = proportional_sampling(run.synthetic, 2, rng)
    observed = np.bincount(y[:, 0] * 4 + y[:, 1], minlength=16)
    assert stats.chisquare(observed, np.exp(log_pmf) * runs).pvalue > 1e-3
