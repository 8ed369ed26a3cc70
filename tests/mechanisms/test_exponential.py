"""Exponential mechanism on a finite set: exact probabilities against the definition, sampling against a chi-square."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dplab.mechanisms.exponential import exponential_mechanism_log_probabilities, sample_exponential_mechanism


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
