"""The mean-estimation baselines (dplab.mechanisms.mean_release): sampled mean errors against the expected ℓ2 norms
(Monte Carlo, 5 standard errors), the Laplace and Gaussian scales written out, the Gaussian σ against dp_accounting."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest

from dplab.mechanisms.mean_release import mean_baseline_errors

D, N, EPS = 3, 50, 0.8
MEAN = np.full(D, 0.2 / math.sqrt(D))


@pytest.mark.parametrize("method", ["laplace", "l2_knorm", "gaussian"])
def test_sampled_errors_match_the_expected_error(method):
    draws = 20_000
    errors, scale, expected = mean_baseline_errors(
        method, MEAN, N, EPS, math.log(1e-5), draws, np.random.default_rng(3)
    )
    assert errors.shape == (draws,)
    assert abs(errors.mean() - expected) < 5 * errors.std(ddof=1) / math.sqrt(draws)


def test_scales_written_out():
    _, laplace_scale, _ = mean_baseline_errors("laplace", MEAN, N, EPS, -1.0, 2, np.random.default_rng(0))
    assert laplace_scale == pytest.approx(2 * math.sqrt(D) / (N * EPS))  # Δ₁ = 2√d/n
    _, knorm_scale, knorm_expected = mean_baseline_errors("l2_knorm", MEAN, N, EPS, -1.0, 2, np.random.default_rng(0))
    assert (knorm_scale, knorm_expected) == pytest.approx((2 / (N * EPS), D * 2 / (N * EPS)))
    _, sigma, expected = mean_baseline_errors("gaussian", MEAN, N, EPS, math.log(1e-5), 2, np.random.default_rng(0))
    reached = dp_accounting.pld.privacy_loss_mechanism.GaussianPrivacyLoss(sigma, sensitivity=2 / N)
    assert reached.get_delta_for_epsilon(EPS) == pytest.approx(1e-5, rel=1e-6)
    assert expected == pytest.approx(sigma * math.sqrt(2) * math.gamma((D + 1) / 2) / math.gamma(D / 2), rel=1e-12)


def test_laplace_errors_are_the_norms_of_the_laplace_draws():
    errors, scale, _ = mean_baseline_errors("laplace", MEAN, N, EPS, -1.0, 5, np.random.default_rng(4))
    noise = np.random.default_rng(4).laplace(scale=scale, size=(5, D))
    np.testing.assert_allclose(errors, np.linalg.norm(noise, axis=1), rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="method"):
        mean_baseline_errors("cauchy", MEAN, N, EPS, -1.0, 5, np.random.default_rng(4))
