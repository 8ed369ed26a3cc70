"""dplab.calibrate against independent references: dp_accounting's PLD accountant, the Gaussian hockey-stick closed
form (scipy), and Corollary 4 of Lin et al. 2025 written out."""

import math

import dp_accounting
import pytest
from dp_accounting import pld, rdp
from scipy.stats import norm

from dplab.calibrate import dpsgd_noise_multiplier, gaussian_sigma, purification_budget


def dpsgd_event(sigma, q, steps):
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )


def test_dpsgd_noise_multiplier_meets_target_and_is_nearly_minimal():
    sigma = dpsgd_noise_multiplier(1.0, 1e-5, sampling_rate=0.05, steps=50)
    spent_pld = pld.PLDAccountant().compose(dpsgd_event(sigma, 0.05, 50)).get_epsilon(1e-5)
    assert spent_pld <= 1.0
    smaller = rdp.RdpAccountant().compose(dpsgd_event(0.97 * sigma, 0.05, 50)).get_epsilon(1e-5)
    assert smaller > 1.0


def test_gaussian_sigma_solves_the_hockey_stick_equation():
    eps, delta = 0.5, 1e-6
    sigma = gaussian_sigma(eps, delta, sensitivity=2.0)
    a = 2.0 / (2 * sigma) - eps * sigma / 2.0
    b = -2.0 / (2 * sigma) - eps * sigma / 2.0
    assert norm.cdf(a) - math.exp(eps) * norm.cdf(b) == pytest.approx(delta, rel=1e-6)
    assert sigma < 2.0 * math.sqrt(2 * math.log(1.25 / delta)) / eps  # tighter than the classical calibration


def test_purification_budget_is_corollary4_and_sums_to_the_total():
    budget = purification_budget(2.0, n=100, d=3, diameter=1.0)
    assert budget.epsilon == budget.epsilon_prime == 1.0
    assert budget.log_omega == pytest.approx(-2 * math.log(100))
    assert budget.log_delta == pytest.approx(math.log(2 / 100**2) - 3 * math.log(16 * 1.0 * 3 * 100**2))
    shift = 2 * 3**0.5 * 1.0 * math.exp((budget.log_delta - math.log(2) - budget.log_omega) / 3)
    assert budget.shift == pytest.approx(shift) and budget.laplace_scale == pytest.approx(2 * shift / 1.0)
    assert budget.total_epsilon == pytest.approx(2.0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dpsgd_noise_multiplier(1.0, 1e-5, sampling_rate=1.5, steps=10), "sampling_rate"),
        (lambda: dpsgd_noise_multiplier(1.0, 1e-5, sampling_rate=0.1, steps=0), "steps"),
        (lambda: gaussian_sigma(-1.0, 1e-5), "epsilon"),
        (lambda: gaussian_sigma(1.0, 1.0), "delta"),
        (lambda: purification_budget(0.0, n=10, d=1, diameter=1.0), "total_epsilon"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
