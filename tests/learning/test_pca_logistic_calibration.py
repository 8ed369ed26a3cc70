"""DP-GD noise calibration round-trips to the target (epsilon, delta), checked by dp_accounting (issue 3).

DP-GD with T full-batch steps, L = 1 and noise sigma = sqrt(T)/(eps0 n) (Table 1's DP-GD row): replace-one
sensitivity 2/n per step, so the noise multiplier is sigma/(2/n). Two independent checks:
- the composed Gaussian RDP, T alpha (2/n)^2 / (2 sigma^2), converted with Mironov's rule (the calibration's
  conversion, here dplab.accounting's implementation over a fine grid of orders) gives back the target epsilon;
- dp_accounting composes the T steps in RDP and converts with CKS, which is tighter: its epsilon is at most the
  target (the calibration is conservative, never optimistic).
"""

import math

import dp_accounting
import numpy as np
import pytest

from dplab.accounting.conversions import epsilon_from_rdp_mironov
from dplab.learning.pca_logistic import calibrate_eps0

N, STEPS = 1000, 100


def mironov_epsilon(eps0: float, delta: float) -> float:
    sigma = math.sqrt(STEPS) / (eps0 * N)
    orders = 1 + np.geomspace(1e-3, 1e4, 200001)
    return float(epsilon_from_rdp_mironov(delta, orders, STEPS * orders * (2.0 / N) ** 2 / (2 * sigma**2)))


def dp_accounting_epsilon(eps0: float, delta: float) -> float:
    sigma = math.sqrt(STEPS) / (eps0 * N)
    event = dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(sigma / (2.0 / N)), STEPS)
    accountant = dp_accounting.rdp.RdpAccountant(orders=[1 + k / 20 for k in range(1, 4000)])
    accountant.compose(event)
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 8.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_no_preprocessing_calibration_round_trip(epsilon, delta):
    eps0 = calibrate_eps0("no_preprocessing", epsilon, delta)
    assert mironov_epsilon(eps0, delta) == pytest.approx(epsilon, rel=1e-4)
    assert dp_accounting_epsilon(eps0, delta) <= epsilon * (1 + 1e-6)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_dp_pca_pipeline_spends_half_on_dp_gd(epsilon):
    delta = 1e-5
    eps0 = calibrate_eps0("dp_pca", epsilon, delta)
    assert mironov_epsilon(eps0, delta / 2) == pytest.approx(epsilon / 2, rel=1e-4)
    assert dp_accounting_epsilon(eps0, delta / 2) <= epsilon / 2 * (1 + 1e-6)


@pytest.mark.parametrize(
    "method, tau_constant",
    [("nonprivate_pca", 12.2), ("nonprivate_pca_unconstrained", 12.2), ("nonprivate_pca_dim", 24.4)],
)
def test_table2_pca_budget_round_trip(method, tau_constant):
    """(a) and its variants: min over alpha >= 11 of 1.05 alpha eps0^2 (4 + (c/gap)^2) + log(1/delta)/(alpha - 1)
    equals the target, by a brute-force scan over alpha (c = 12.2 for rank reduction, 2 x 12.2 for dimension)."""
    epsilon, delta, gap = 2.0, 1e-5, 0.8
    eps0 = calibrate_eps0(method, epsilon, delta, gap)
    alphas = 11 + np.geomspace(1e-6, 1e5, 400001)
    total = 1.05 * alphas * eps0**2 * (4 + (tau_constant / gap) ** 2) + math.log(1 / delta) / (alphas - 1)
    assert total.min() == pytest.approx(epsilon, rel=1e-6)
