"""Tests of dplab.audit.montecarlo: Clopper–Pearson intervals and Monte-Carlo lower bounds on E_γ and ε.

References: scipy.stats.binomtest's exact interval and scipy.stats.beta quantiles; simulated coverage of
binomial draws; the Gaussian hockey-stick closed form θ_γ (eq. (10)) and the Laplace closed form (Lemma 1,
cross-checked with dp_accounting's LaplacePrivacyLoss); grid laws of a small PNSGD instance simulated in
plain numpy (conftest).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from dp_accounting.pld.privacy_loss_mechanism import LaplacePrivacyLoss

from dplab.audit import grid as grid_module
from dplab.audit.grid import UniformGrid, linear_loss_psi, pnsgd_output_laws
from dplab.audit.instances import audit_instance
from dplab.audit.montecarlo import (
    bin_index,
    clopper_pearson,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound_from_counts,
    event_from_laws,
    hockey_stick_lower_bound,
    hockey_stick_lower_bound_from_counts,
)

# ----------------------------------------------------------------------------------- Clopper–Pearson


@pytest.mark.parametrize("m", [1, 7, 100, 2500])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.3])
def test_clopper_pearson_matches_scipy_binomtest(m, alpha):
    ks = np.unique(np.linspace(0, m, 12).round().astype(int))
    lower, upper = clopper_pearson(ks, m, alpha=alpha)
    for k, lo, hi in zip(ks, lower, upper):
        reference = scipy.stats.binomtest(int(k), m).proportion_ci(confidence_level=1 - alpha, method="exact")
        assert lo == pytest.approx(reference.low, rel=1e-9, abs=1e-15)
        assert hi == pytest.approx(reference.high, rel=1e-9, abs=1e-15)


def test_one_sided_bounds_match_beta_quantiles_and_edges():
    k, m, alpha = np.array([0, 1, 40, 99, 100]), 100, 0.02
    lower = clopper_pearson_lower(k, m, alpha=alpha)
    upper = clopper_pearson_upper(k, m, alpha=alpha)
    assert lower[0] == 0.0 and upper[-1] == 1.0
    np.testing.assert_allclose(lower[1:], scipy.stats.beta.ppf(alpha, k[1:], m - k[1:] + 1), rtol=1e-10)
    np.testing.assert_allclose(upper[:-1], scipy.stats.beta.ppf(1 - alpha, k[:-1] + 1, m - k[:-1]), rtol=1e-10)
    # k = 0: the upper bound solves (1 − p)^m = alpha; k = m: the lower bound solves p^m = alpha
    assert upper[0] == pytest.approx(1 - alpha ** (1 / m), rel=1e-10)
    assert lower[-1] == pytest.approx(alpha ** (1 / m), rel=1e-10)


def test_clopper_pearson_broadcasts():
    lower, upper = clopper_pearson(np.array([[0], [5]]), np.array([10, 20, 40]), alpha=0.1)
    assert lower.shape == upper.shape == (2, 3)
    assert np.all(lower <= upper)


@pytest.mark.parametrize("m, p", [(30, 0.1), (400, 0.01), (200, 0.5), (1000, 0.97)])
def test_clopper_pearson_coverage_by_simulation(m, p):
    alpha, draws = 0.1, 2000
    k = np.random.default_rng(7).binomial(m, p, size=draws)
    lower, upper = clopper_pearson(k, m, alpha=alpha)
    coverage = np.mean((lower <= p) & (p <= upper))
    slack = 3 * np.sqrt(alpha * (1 - alpha) / draws)
    assert coverage >= 1 - alpha - slack


@pytest.mark.parametrize(
    "k, m, alpha, message",
    [
        (5, 4, 0.05, "k=5"),
        (-1, 4, 0.05, "k=-1"),
        (1.5, 4, 0.05, "k=1.5"),
        (0, 0, 0.05, "m=0"),
        (1, 4, 0.0, "alpha"),
        (1, 4, 1.0, "alpha"),
    ],
)
def test_clopper_pearson_rejects_bad_input(k, m, alpha, message):
    with pytest.raises(ValueError, match=message):
        clopper_pearson(k, m, alpha=alpha)


# ----------------------------------------------------------------------------------- binning / event


def test_bin_index_is_the_grid_layout():
    assert bin_index is grid_module.bin_index
    grid = UniformGrid(-1.0, 1.0, 4)
    np.testing.assert_array_equal(bin_index(np.array([-1.0, -0.75, -0.5, 0.1, 0.99, 1.0]), grid), [0, 1, 2, 3, 4, 5])


def test_event_from_laws():
    p = np.array([0.5, 0.3, 0.2, 0.0])
    q = np.array([0.1, 0.3, 0.0, 0.6])
    np.testing.assert_array_equal(event_from_laws(p, q, 0.0), [True, False, True, False])
    np.testing.assert_array_equal(event_from_laws(p, q, np.log(5.0) + 1e-9), [False, False, True, False])
    stacked = event_from_laws(p, q, np.array([0.0, 1.0, 800.0]))
    assert stacked.shape == (3, 4)
    np.testing.assert_array_equal(stacked[2], [False, False, True, False])
    with pytest.raises(ValueError, match="epsilon"):
        event_from_laws(p, q, -0.1)


# --------------------------------------------------------------------------- hockey-stick lower bound


def test_lower_bound_from_counts_formula_and_edges():
    result = hockey_stick_lower_bound_from_counts(500, 1000, 100, 1000, epsilon=np.array([0.0, 0.5]), alpha=0.02)
    p_lo = scipy.stats.beta.ppf(0.01, 500, 501)
    q_hi = scipy.stats.beta.ppf(0.99, 101, 900)
    np.testing.assert_allclose(result.p_lower, p_lo, rtol=1e-10)
    np.testing.assert_allclose(result.q_upper, q_hi, rtol=1e-10)
    np.testing.assert_allclose(result.lower, p_lo - np.exp([0.0, 0.5]) * q_hi, rtol=1e-10)
    np.testing.assert_allclose(result.estimate, 0.5 - np.exp([0.0, 0.5]) * 0.1, rtol=1e-12)
    assert (result.k_p, result.m_p, result.k_q, result.m_q) == (500, 1000, 100, 1000)
    empty = hockey_stick_lower_bound_from_counts(0, 1000, 0, 1000, epsilon=0.3)
    assert empty.lower == 0.0 and empty.p_lower == 0.0 and empty.estimate == 0.0
    assert hockey_stick_lower_bound_from_counts(10, 10, 10, 10, epsilon=0.0).q_upper == 1.0
    huge = hockey_stick_lower_bound_from_counts(10, 10, 0, 10, epsilon=1000.0)
    assert huge.lower == 0.0 and huge.estimate == 1.0  # e^ε overflows; 0·e^ε stays 0


def test_lower_bound_from_membership_arrays():
    in_p = np.array([[True, True, False, True], [False, False, False, True]])
    in_q = np.array([[False, True, False, False, False], [0, 0, 0, 0, 1]], dtype=bool)
    result = hockey_stick_lower_bound(in_p, in_q, epsilon=np.array([0.0, 0.2]), alpha=0.05)
    reference = hockey_stick_lower_bound_from_counts([3, 1], 4, [1, 1], 5, epsilon=[0.0, 0.2], alpha=0.05)
    np.testing.assert_array_equal(result.lower, reference.lower)
    np.testing.assert_array_equal(result.k_p, [3, 1])
    with pytest.raises(ValueError, match="in_event_q"):
        hockey_stick_lower_bound(in_p, np.array([0.5, 1.0]), epsilon=0.0)


def theta(epsilon: float, r: float) -> float:
    """θ_{e^ε}(r) = E_{e^ε}(N(r,1) ‖ N(0,1)), eq. (10)."""
    return scipy.stats.norm.sf(epsilon / r - r / 2) - np.exp(epsilon) * scipy.stats.norm.sf(epsilon / r + r / 2)


@pytest.mark.parametrize("r, epsilon", [(1.0, 0.0), (1.0, 1.0), (2.0, 0.5), (0.5, 0.2)])
def test_lower_bound_covers_gaussian_hockey_stick(r, epsilon):
    """400 independent audits of N(r,1) vs N(0,1) on the optimal event {y > ε/r + r/2}."""
    alpha, reps, m = 0.05, 400, 4000
    rng = np.random.default_rng(11)
    threshold = epsilon / r + r / 2
    in_p = rng.standard_normal((reps, m)) + r > threshold
    in_q = rng.standard_normal((reps, m)) > threshold
    result = hockey_stick_lower_bound(in_p, in_q, epsilon=epsilon, alpha=alpha)
    truth = theta(epsilon, r)
    violations = np.count_nonzero(result.lower > truth)
    assert violations <= scipy.stats.binom.ppf(0.999, reps, alpha)
    # not vacuous: the bound sits within a few standard errors of the truth, and the estimate is unbiased
    se = np.sqrt((scipy.stats.norm.sf(threshold - r) + np.exp(2 * epsilon) * scipy.stats.norm.sf(threshold)) / m)
    assert np.mean(result.lower) > truth - 4 * se
    assert abs(np.mean(result.estimate) - truth) < 4 * se / np.sqrt(reps)


@pytest.mark.parametrize("cfg", ["gaussian", "laplace"])
def test_lower_bound_below_grid_delta_for_small_pnsgd(simulate_pnsgd, cfg):
    """Event from the grid laws, counts from an independent simulation: LB <= δ_num, estimate ≈ δ_num."""
    noise, a, b, scale, lr = cfg, 0.0, 1.0, 2.0, 0.5
    instance = audit_instance("B", n=6, i=5, a=a, b=b, L=1.0)
    grid = UniformGrid(a, b, 1000)
    p, q = pnsgd_output_laws(
        grid,
        y0=instance.y0,
        data=instance.data,
        data_prime=instance.data_prime,
        lr=lr,
        scale=scale,
        noise=noise,
        psi=linear_loss_psi(lr),
    )
    epsilons = np.array([0.0, 0.25, 0.5])
    events = event_from_laws(p, q, epsilons)
    delta_grid = np.maximum(p - np.exp(epsilons)[:, None] * q, 0.0).sum(axis=1)
    rng = np.random.default_rng(3)
    m = 200_000
    bins_p, bins_q = (
        bin_index(
            simulate_pnsgd(rng, y0=instance.y0, data=records, lr=lr, scale=scale, noise=noise, a=a, b=b, m=m), grid
        )
        for records in (instance.data, instance.data_prime)
    )
    result = hockey_stick_lower_bound(events[:, bins_p], events[:, bins_q], epsilon=epsilons, alpha=0.01)
    assert np.all(result.lower <= delta_grid + 1e-3)
    se = np.sqrt(result.k_p / m**2 + np.exp(2 * epsilons) * result.k_q / m**2)
    assert np.all(np.abs(result.estimate - delta_grid) <= 4.5 * se)
    assert result.lower[0] > 0.5 * delta_grid[0]  # informative at ε = 0


# ---------------------------------------------------------------------------------- ε lower bound


def laplace_epsilon(delta: float) -> float:
    """True ε(δ) of the Laplace mechanism, sensitivity 1, scale 1: invert Lemma 1, δ = 1 − e^{(ε−1)/2}."""
    return 1.0 + 2.0 * np.log1p(-delta)


def test_laplace_truth_matches_dp_accounting():
    for delta in (0.0, 0.05, 0.2):
        epsilon = laplace_epsilon(delta)
        exact = LaplacePrivacyLoss(1.0, sensitivity=1.0).get_delta_for_epsilon(epsilon)
        assert exact == pytest.approx(delta, abs=1e-12)


@pytest.mark.parametrize("delta", [0.0, 0.05, 0.2])
def test_epsilon_lower_bound_against_laplace_mechanism(delta):
    """Repeated audits of Lap(1,1) vs Lap(0,1) on the optimal event {y > (1 + ε_true)/2}."""
    alpha, reps, m = 0.05, 300, 5000
    truth = laplace_epsilon(delta)
    threshold = (1.0 + truth) / 2
    rng = np.random.default_rng(5)
    k_p = np.count_nonzero(rng.laplace(1.0, 1.0, (reps, m)) > threshold, axis=1)
    k_q = np.count_nonzero(rng.laplace(0.0, 1.0, (reps, m)) > threshold, axis=1)
    eps_lb = epsilon_lower_bound_from_counts(k_p, m, k_q, m, delta=delta, alpha=alpha)
    assert np.count_nonzero(eps_lb > truth) <= scipy.stats.binom.ppf(0.999, reps, alpha)
    assert np.median(eps_lb) > truth - 0.15


def test_epsilon_lower_bound_is_tight_with_many_samples():
    rng = np.random.default_rng(9)
    m = 1_000_000
    k_p = np.count_nonzero(rng.laplace(1.0, 1.0, m) >= 1.0)
    k_q = np.count_nonzero(rng.laplace(0.0, 1.0, m) >= 1.0)
    eps_lb = epsilon_lower_bound_from_counts(k_p, m, k_q, m, delta=0.0, alpha=0.01)
    assert 0.97 < eps_lb <= 1.0


def test_epsilon_lower_bound_edge_cases():
    assert epsilon_lower_bound_from_counts(10, 100, 5, 100, delta=0.5) == 0.0  # P_lo <= δ
    assert epsilon_lower_bound_from_counts(0, 100, 0, 100, delta=0.0) == 0.0  # empty event
    assert epsilon_lower_bound_from_counts(50, 100, 60, 100, delta=0.0) == 0.0  # ratio below 1
    with pytest.raises(ValueError, match="delta"):
        epsilon_lower_bound_from_counts(10, 100, 5, 100, delta=1.0)
