"""The threshold auditor against a slow obvious reference (counts by comparison, every event and direction), its
coverage on the Laplace mechanism of known pure ε, and its power on a mechanism that mis-claims its noise."""

import numpy as np
import pytest
import scipy.stats

from dplab.audit.montecarlo import clopper_pearson_lower, clopper_pearson_upper
from dplab.audit.threshold import pure_epsilon_lower_bound, threshold_event_counts


def _slow_counts(samples, thresholds, atoms):
    return np.array(
        [np.sum(samples < t) for t in thresholds]
        + [np.sum(samples > t) for t in thresholds]
        + [np.sum(samples == a) for a in atoms]
    )


def _slow_lower_bound(x, y, thresholds, atoms, alpha):
    """max over events and both directions of log(P_lo / Q_hi), each Clopper–Pearson side at α / (2 n_events)."""
    n_events = 2 * (2 * len(thresholds) + len(atoms))
    best = 0.0
    for a, b in ((x, y), (y, x)):
        for k_a, k_b in zip(_slow_counts(a, thresholds, atoms), _slow_counts(b, thresholds, atoms), strict=True):
            p_lo = clopper_pearson_lower(np.array([k_a]), np.array([a.size]), alpha=alpha / n_events)[0]
            q_hi = clopper_pearson_upper(np.array([k_b]), np.array([b.size]), alpha=alpha / n_events)[0]
            if p_lo > 0:
                best = max(best, float(np.log(p_lo / q_hi)))
    return best, n_events


def test_counts_match_the_slow_reference_with_ties_and_atoms():
    rng = np.random.default_rng(3)
    samples = np.concatenate([rng.integers(-3, 4, 200).astype(float), rng.normal(size=100)])
    thresholds, atoms = np.array([-2.0, -0.5, 0.0, 1.0, 3.0]), np.array([-3.0, 0.0, 2.0, 7.0])
    assert np.array_equal(threshold_event_counts(samples, thresholds, atoms), _slow_counts(samples, thresholds, atoms))


def test_lower_bound_matches_the_slow_reference():
    rng = np.random.default_rng(4)
    x, y = rng.laplace(0.0, 1.0, 3000), rng.laplace(1.0, 1.0, 3000)
    thresholds, atoms = np.linspace(-3, 4, 15), np.array([0.0])
    result = pure_epsilon_lower_bound(x, y, thresholds, atoms, alpha=0.05)
    expected, n_events = _slow_lower_bound(x, y, thresholds, atoms, 0.05)
    assert result.n_events == n_events == 62
    assert result.epsilon_lb == pytest.approx(expected, rel=1e-12)


def test_coverage_on_the_laplace_mechanism_of_known_epsilon():
    """Laplace with sensitivity 1 and scale 1 is exactly 1-DP: at α = 0.1 at most 10 % of the bounds may exceed 1;
    the count of exceedances over 100 repetitions must stay below the binomial(100, 0.1) 99.9 % quantile."""
    rng = np.random.default_rng(5)
    thresholds = np.linspace(-2.0, 3.0, 11)
    bounds = [
        pure_epsilon_lower_bound(rng.laplace(0, 1, 4000), rng.laplace(1, 1, 4000), thresholds, alpha=0.1).epsilon_lb
        for _ in range(100)
    ]
    exceed = sum(b > 1.0 for b in bounds)
    assert exceed <= scipy.stats.binom.ppf(0.999, 100, 0.1)
    assert np.median(bounds) > 0.5  # not vacuous: most bounds sit well above 0


def test_power_against_a_mechanism_with_a_third_of_its_claimed_noise():
    """A Laplace release claimed 1-DP but run at scale 1/3 is 3-DP: the auditor must refute the claim."""
    rng = np.random.default_rng(6)
    x, y = rng.laplace(0, 1 / 3, 20000), rng.laplace(1, 1 / 3, 20000)
    assert pure_epsilon_lower_bound(x, y, np.linspace(-1.0, 2.0, 31), alpha=0.05).epsilon_lb > 1.0


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match=r"samples_p=\[nan\] is invalid; allowed: a number \(not NaN\)"):
        pure_epsilon_lower_bound(np.array([np.nan]), np.array([0.0]), np.array([0.0]), alpha=0.05)
    with pytest.raises(ValueError, match="thresholds has shape"):
        threshold_event_counts(np.zeros(3), np.zeros((2, 2)))
