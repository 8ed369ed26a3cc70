"""Exponential mechanism on a finite set: exact probabilities against the definition, sampling against a chi-square."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dplab.mechanisms.exponential import (
    exponential_mechanism_log_probabilities,
    sample_exponential_mechanism,
    sample_exponential_mechanism_gumbel,
)


def test_probabilities_match_definition_and_privacy_ratio():
    u = np.array([0.0, -1.0, -3.0, 2.0])
    logp = exponential_mechanism_log_probabilities(u, 2.0, 0.5)
    direct = np.exp(2.0 * u / 1.0) / np.exp(2.0 * u / 1.0).sum()
    np.testing.assert_allclose(np.exp(logp), direct, rtol=1e-12)
    shifted = exponential_mechanism_log_probabilities(u + np.array([0.5, -0.5, 0.5, -0.5]), 2.0, 0.5)
    assert np.max(np.abs(logp - shifted)) <= 2.0 + 1e-12  # neighbours (|Δu| <= Δu) differ by at most e^ε


def test_sampling_frequencies():
    u = np.array([0.0, -0.5, -1.0])
    rng = np.random.default_rng(0)
    draws = sample_exponential_mechanism(u, 1.0, 0.5, 60_000, rng)
    expected = np.exp(exponential_mechanism_log_probabilities(u, 1.0, 0.5)) * draws.size
    assert stats.chisquare(np.bincount(draws, minlength=3), expected).pvalue > 1e-3


def test_huge_utilities_do_not_overflow_and_bad_input():
    assert np.isfinite(exponential_mechanism_log_probabilities(np.array([1e6, 0.0]), 10.0, 0.5)).all()
    with pytest.raises(ValueError, match="epsilon"):
        exponential_mechanism_log_probabilities(np.zeros(2), 0.0, 1.0)
    with pytest.raises(ValueError, match="sensitivity"):
        exponential_mechanism_log_probabilities(np.zeros(2), 1.0, -1.0)


def test_log_probabilities_are_batched_over_rows_and_match_the_definition():
    utility = np.array([[0.0, 0.1, 0.4], [0.2, 0.2, 0.0], [-700.0, 0.0, 3.0]])
    batched = exponential_mechanism_log_probabilities(utility, 0.3, 1 / 50)
    for row, log_p in zip(utility, batched):
        np.testing.assert_array_equal(log_p, exponential_mechanism_log_probabilities(row, 0.3, 1 / 50))
        weights = [math.exp(0.3 * u * 50 / 2 - 0.3 * row.max() * 50 / 2) for u in row]  # shifted definition
        np.testing.assert_allclose(np.exp(log_p), np.array(weights) / sum(weights), rtol=1e-12, atol=1e-300)


def test_gumbel_sampler_has_the_exponential_mechanism_law_per_row():
    rng = np.random.default_rng(1)
    utility = np.array([[0.0, 0.1, 0.25, 0.3], [0.3, 0.0, 0.0, 0.1]])
    draws = sample_exponential_mechanism_gumbel(np.repeat(utility, 100000, axis=0), 4.0, 0.1, rng)
    for row, row_draws in zip(utility, draws.reshape(2, 100000)):
        expected = np.exp(exponential_mechanism_log_probabilities(row, 4.0, 0.1)) * row_draws.size
        assert stats.chisquare(np.bincount(row_draws, minlength=4), expected).pvalue > 1e-3
