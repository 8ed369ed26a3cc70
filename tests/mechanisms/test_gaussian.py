"""Analytic Gaussian mechanism: against dp_accounting, mpmath at extreme δ, and the variances of Figure 1 of Lin, Wang,
Ma, Wang (ε = 1, five digits from an implementation independent of this one)."""

from __future__ import annotations

import math

import dp_accounting
import mpmath
import numpy as np
import pytest

from dplab.mechanisms.gaussian import agm_log_delta, agm_sigma, classical_gaussian_sigma


@pytest.mark.parametrize("epsilon,delta", [(1.0, 1e-5), (0.5, 1e-3), (2.0, 1e-10), (1.0, 0.3), (4.0, 1e-12)])
def test_agm_sigma_matches_dp_accounting(epsilon, delta):
    assert agm_sigma(epsilon, math.log(delta)) == pytest.approx(
        dp_accounting.get_sigma_gaussian(epsilon, delta), rel=1e-7
    )


@pytest.mark.parametrize("sigma,delta", [(1.0, 1e-5), (3.0, 1e-3), (0.7, 1e-8)])
def test_agm_log_delta_round_trips_dp_accounting_epsilon(sigma, delta):
    epsilon = dp_accounting.get_epsilon_gaussian(sigma, delta)
    assert float(agm_log_delta(sigma, epsilon)) == pytest.approx(math.log(delta), abs=1e-6)


def test_figure1_check_values():
    deltas = np.array([0.3, 0.1, 0.05, 1e-2, 1e-3, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12])
    expected = [0.4764, 1.1791, 1.7763, 3.5264, 6.6289, 13.9176, 17.8479, 26.0132, 34.4308, 43.0050]
    np.testing.assert_allclose(agm_sigma(1.0, np.log(deltas)) ** 2, expected, rtol=1e-4)
    assert float(agm_sigma(1.0, math.log(1e-5))) == pytest.approx(3.730632, rel=1e-6)


def test_log_delta_far_below_underflow_matches_mpmath():
    mpmath.mp.dps = 60
    sigma, epsilon = 20.0, 1.0
    a, c = 1 / (2 * sigma), epsilon * sigma
    exact = mpmath.log(mpmath.ncdf(a - c) - mpmath.e**epsilon * mpmath.ncdf(-a - c))
    value = float(agm_log_delta(sigma, epsilon))
    assert value < -150 and value == pytest.approx(float(exact), rel=1e-9)
    assert float(agm_sigma(epsilon, value)) == pytest.approx(sigma, rel=1e-8)
    assert np.isfinite(agm_sigma(1.0, -5000.0))


def test_sensitivity_scales_sigma_and_classical_is_larger():
    assert float(agm_sigma(1.0, math.log(1e-5), 0.02)) == pytest.approx(0.02 * 3.730632, rel=1e-6)
    assert float(classical_gaussian_sigma(1.0, math.log(1e-5))) ** 2 == pytest.approx(23.47, rel=1e-3)


def test_bad_input():
    with pytest.raises(ValueError, match="log_delta=0.0"):
        agm_sigma(1.0, 0.0)
    with pytest.raises(ValueError, match="epsilon=-1.0"):
        agm_sigma(-1.0, -3.0)
    with pytest.raises(ValueError, match="sigma="):
        agm_log_delta(0.0, 1.0)


@pytest.mark.parametrize(
    ("epsilon", "log_delta", "message"),
    [
        (-1.0, math.log(1e-5), r"epsilon=-1.0 is invalid; allowed: 0 < epsilon < inf"),  # returned sigma = -4.84
        (math.nan, math.log(1e-5), r"epsilon=nan is invalid"),
        (1.0, math.nan, r"log_delta=nan is invalid"),
        (1.0, 0.0, r"log_delta=0.0 is invalid; allowed: -inf < log_delta < 0"),
    ],
)
def test_classical_sigma_refuses_bad_arguments(epsilon, log_delta, message):
    with pytest.raises(ValueError, match=message):
        classical_gaussian_sigma(epsilon, log_delta)


@pytest.mark.parametrize(("epsilon", "l1", "l2"), [(1.0, 1.0, 1.0), (0.5, 2.0, 2.0**0.5), (2.0, 1.0, 1.0)])
def test_laplace_crossing_delta_is_the_exact_delta_of_the_gaussian_with_laplace_variance(epsilon, l1, l2):
    """At delta*, sigma = sqrt(2) l1/epsilon (the Laplace variance); the exact delta of that Gaussian (Balle and Wang
    2018, Theorem 8), Phi(l2/(2 sigma) - epsilon sigma/l2) - e^epsilon Phi(-l2/(2 sigma) - epsilon sigma/l2), written
    out with scipy.stats.norm, equals delta*."""
    from scipy.stats import norm

    from dplab.mechanisms.gaussian import laplace_crossing_delta

    sigma = 2**0.5 * l1 / epsilon
    a, b = l2 / (2 * sigma), epsilon * sigma / l2
    exact = norm.cdf(a - b) - np.exp(epsilon) * norm.cdf(-a - b)
    assert laplace_crossing_delta(epsilon, l1, l2) == pytest.approx(exact, rel=1e-6)


@pytest.mark.parametrize(("adjacency", "l1", "l2"), [("add_remove", 1.0, 1.0), ("replace_one", 2.0, math.sqrt(2.0))])
def test_histogram_noise_variances(adjacency, l1, l2):
    from dplab.mechanisms.gaussian import histogram_noise_variances

    eps, deltas = 0.7, np.array([1e-3, 1e-8])
    out = histogram_noise_variances(eps, deltas, adjacency)
    assert out["laplace"] == pytest.approx(2 * (l1 / eps) ** 2)  # Var Lap(b) = 2b², b = Δ₁/ε
    for delta, variance in zip(deltas, out["analytic_gaussian"]):
        # dp_accounting's Gaussian accountant at σ reaches δ exactly.
        sigma = math.sqrt(variance)
        reached = dp_accounting.pld.privacy_loss_mechanism.GaussianPrivacyLoss(
            sigma, sensitivity=l2
        ).get_delta_for_epsilon(eps)
        assert reached == pytest.approx(delta, rel=1e-6)
    with pytest.raises(ValueError, match="adjacency"):
        histogram_noise_variances(eps, deltas, "swap")
