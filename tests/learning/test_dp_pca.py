"""DP-PCA (Gaussian covariance perturbation): calibration round trips, noise law, utility."""

import math

import numpy as np
import pytest
from dp_accounting import dp_event, rdp

from dplab.accounting.conversions import epsilon_from_rdp_mironov
from dplab.learning.dp_pca import covariance_sensitivity, dp_pca_epsilon, dp_pca_noise_scale, dp_pca_subspaces


@pytest.mark.parametrize("eps, delta, n", [(0.1, 1e-5, 1000), (1.0, 1e-5, 2000), (4.0, 1e-3, 500)])
def test_noise_calibration_round_trips(eps, delta, n):
    s = dp_pca_noise_scale(n, eps, delta)
    assert dp_pca_epsilon(n, s, delta) == pytest.approx(eps, rel=1e-10)
    orders = np.linspace(1.0001, 3000, 400001)
    grid = epsilon_from_rdp_mironov(delta, orders, orders * covariance_sensitivity(n) ** 2 / (2 * s**2))
    assert grid == pytest.approx(eps, rel=1e-5)
    # dp_accounting (CKS conversion, tighter than Lemma M) must certify at most the target.
    accountant = rdp.RdpAccountant()
    accountant.compose(dp_event.GaussianDpEvent(s / covariance_sensitivity(n)))
    assert accountant.get_epsilon(delta) <= eps


def test_noise_is_symmetric_with_the_calibrated_std():
    rng = np.random.default_rng(0)
    X = np.zeros((200, 3))
    X[:, 0] = 0.5
    # With an exactly known covariance, releases differ only by noise; check the spread of the top eigenvector's
    # off-axis weight is small for large eps and large for tiny eps.
    sharp = dp_pca_subspaces(X, 1, 50.0, 1e-5, rng, runs=200)
    blunt = dp_pca_subspaces(X, 1, 0.001, 1e-5, rng, runs=200)
    assert np.mean(np.abs(sharp[:, 0, 0])) > 0.99 and np.mean(np.abs(blunt[:, 0, 0])) < 0.9
    s = dp_pca_noise_scale(200, 1.0, 1e-5)
    assert s == pytest.approx(
        math.sqrt(2) / 200 / math.sqrt(2 * (math.sqrt(1 + math.log(1e5)) - math.sqrt(math.log(1e5))) ** 2)
    )


@pytest.mark.parametrize("bad", [dict(epsilon=0.0), dict(epsilon=-1.0), dict(delta=1.0)])
def test_bad_privacy_parameters_raise(bad):
    kwargs = dict(n=100, epsilon=1.0, delta=1e-5) | bad
    with pytest.raises(ValueError, match="epsilon=|delta="):
        dp_pca_noise_scale(**kwargs)
