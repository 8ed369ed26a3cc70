"""Exact pure-ε audit: closed forms against quadrature, spec check values #16/#17, the ablation, grid refinement."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dplab.studies.purification.exact_audit import (
    TREATMENTS,
    Law1D,
    canonical_pair,
    epsilon_inf_1d,
    epsilon_inf_2d_product,
    example17_pair,
    log_gaussian_convolved,
    log_ndtr_difference,
    log_uniform_convolved,
    projected_gaussian_pair,
    purification_scale_1d,
)
from dplab.theory.purification import purification_laplace_scale, purification_shift

B = purification_scale_1d(math.log(1e-6), 0.01, 1.0)


def _laplace(z, b):
    return np.exp(-abs(z) / b) / (2 * b)


@pytest.mark.parametrize("x", [-1.3, -1.0, -0.2, 0.0, 0.7, 1.0, 1.05])
def test_convolutions_against_quadrature(x):
    b = 0.05
    quad_u = integrate.quad(lambda t: 0.5 * _laplace(x - t, b), -1, 1, points=[x] if -1 < x < 1 else None)[0]
    assert math.exp(float(log_uniform_convolved(np.array([x]), -1, 1, b)[0])) == pytest.approx(quad_u, rel=1e-9)
    mu, sigma = 0.1, 0.2
    quad_g = integrate.quad(
        lambda t: stats.norm.pdf(t, mu, sigma) * _laplace(x - t, b),
        -1,
        1,
        points=[x] if -1 < x < 1 else None,
        limit=200,
    )[0]
    assert math.exp(float(log_gaussian_convolved(np.array([x]), mu, sigma, b, -1, 1)[0])) == pytest.approx(
        quad_g, rel=1e-8
    )


def test_log_ndtr_difference_both_tails():
    assert float(log_ndtr_difference(10.0, 9.0)) == pytest.approx(
        math.log(stats.norm.sf(9.0) - stats.norm.sf(10.0)), rel=1e-10
    )
    assert float(log_ndtr_difference(-39.0, -40.0)) == pytest.approx(stats.norm.logcdf(-39.0), rel=1e-6)
    assert float(log_ndtr_difference(0.5, -0.5)) == pytest.approx(math.log(stats.norm.cdf(0.5) - stats.norm.cdf(-0.5)))


def test_m1_check_values():
    p, q = canonical_pair(0.0, 1e-6)
    assert B == pytest.approx(4e-4)
    assert epsilon_inf_1d(p, q, "full", omega=0.01, b=B) == pytest.approx(math.log(1 + 0.99 / 2), abs=1e-6)  # 0.40213
    assert epsilon_inf_1d(p, q, "full", omega=0.01, b=B) == pytest.approx(0.402126, abs=1e-6)
    assert epsilon_inf_1d(p, q, "laplace_only", omega=0.01, b=B) == pytest.approx(
        math.log(2e-6 / (1 - 1e-6)) + (2 / 3) / B, rel=1e-9
    )  # 1653.544 = log(1 + (2δ/(1−δ))e^{(2/3)/b})
    assert epsilon_inf_1d(p, q, "none") == math.inf
    assert epsilon_inf_1d(p, q, "mixing_only", omega=0.01) == math.inf
    inner = canonical_pair(0.0, 1e-6, (-0.5, -0.1, 0.1, 0.5))
    assert epsilon_inf_1d(*inner, "full", omega=0.01, b=B) == pytest.approx(0.2211415, abs=1e-6)
    assert epsilon_inf_1d(*canonical_pair(1.0, 1e-6), "full", omega=0.01, b=B) == pytest.approx(0.99999, abs=1e-5)
    b2 = purification_scale_1d(math.log(1e-4), 1e-3, 1.0)
    assert epsilon_inf_1d(*canonical_pair(2.0, 1e-4), "full", omega=1e-3, b=b2) == pytest.approx(1.15076, abs=1e-5)


def test_ablation_breaks_the_bound():
    p, q = canonical_pair(0.0, 1e-6)
    values = [epsilon_inf_1d(p, q, "full", omega=0.01, b=B * f) for f in (1, 0.5, 0.1, 0.01)]
    np.testing.assert_allclose(values, [0.402, 0.688, 1.783, 3.922], atol=1e-3)
    assert values[0] <= 1.0 < values[2]


def test_m2_and_m3_check_values():
    assert epsilon_inf_1d(*example17_pair(1e-6), "mixing_only", omega=0.1) == math.inf
    p, q, sigma = projected_gaussian_pair(1.0, math.log(1e-5), 0.02)
    assert sigma == pytest.approx(0.0746126, rel=1e-6)
    b = purification_scale_1d(math.log(1e-5), 0.01, 1.0)
    assert b == pytest.approx(0.004)
    assert epsilon_inf_1d(p, q, "none") == pytest.approx(3.64809, abs=1e-5)
    assert epsilon_inf_1d(p, q, "mixing_only", omega=0.01) == pytest.approx(3.64809, abs=1e-5)
    assert epsilon_inf_1d(p, q, "full", omega=0.01, b=b) == pytest.approx(0.740177, abs=1e-5)


def test_grid_refinement_converges():
    p, q, _ = projected_gaussian_pair(0.5, math.log(1e-6), 0.02)
    b = purification_scale_1d(math.log(1e-6), 0.1, 0.5)
    values = [epsilon_inf_1d(p, q, "full", omega=0.1, b=b, n_points=n) for n in (501, 2001, 8001, 32001)]
    steps = np.abs(np.diff(values))
    assert steps[-1] <= steps[0] + 1e-12 and steps[-1] < 1e-6
    pm, qm = canonical_pair(0.5, 1e-3)
    values = [
        epsilon_inf_1d(pm, qm, "full", omega=0.01, b=purification_scale_1d(math.log(1e-3), 0.01, 0.5), n_points=n)
        for n in (501, 4001, 32001)
    ]
    assert abs(values[-1] - values[-2]) < 1e-6


@pytest.mark.parametrize("epsilon", [0.0, 1.0])
@pytest.mark.parametrize("delta", [1e-9, 1e-3])
@pytest.mark.parametrize("omega", [1e-3, 0.1])
@pytest.mark.parametrize("epsilon_prime", [0.25, 2.0])
def test_every_purified_value_within_bound(epsilon, delta, omega, epsilon_prime):
    b = purification_scale_1d(math.log(delta), omega, epsilon_prime)
    pairs = [canonical_pair(epsilon, delta), projected_gaussian_pair(epsilon, math.log(delta), 0.02)[:2]]
    if epsilon == 0.0:
        pairs.append(example17_pair(delta))
    for p, q in pairs:
        assert epsilon_inf_1d(p, q, "full", omega=omega, b=b, n_points=4001) <= epsilon + epsilon_prime + 1e-9


def test_two_dimensional_product_audit():
    s = 0.02
    p1, q1, _ = projected_gaussian_pair(1.0, math.log(1e-5), s, (0.0, s / math.sqrt(2)))
    b = purification_laplace_scale(purification_shift(2, math.inf, 2.0, math.log(1e-5), math.log(0.01)), 1.0)
    values = {t: epsilon_inf_2d_product((p1, p1), (q1, q1), t, omega=0.01, b=b, n_points=401) for t in TREATMENTS}
    one_d = epsilon_inf_1d(p1, q1, "none")
    assert values["none"] == pytest.approx(2 * one_d, rel=1e-9)  # products: directional sups add
    assert values["full"] <= 2.0 and values["laplace_only"] < values["none"]
    # the mixed interior with nothing but the uniform law: ratio 1
    flat = (Law1D(), Law1D())
    assert epsilon_inf_2d_product(flat, flat, "mixing_only", omega=0.5, n_points=11) == pytest.approx(0.0)


def test_gaussian_convolution_stable_for_huge_sigma_over_b():
    """σ/b ≈ 10^15 (AGM at ε = 0, δ = 1e-9): the restricted Gaussian is flat, so the convolution equals the flat
    density 1/(σ√(2π)) times the uniform convolution; the naive e^{σ²/(2b²)}Φ(·) form loses everything."""
    sigma, b = 8.0e6, 4.0e-9
    x = np.array([-1.0 - 5 * b, -1.0, -0.3, 0.999999, 1.0 + 3 * b])
    flat = -math.log(sigma * math.sqrt(2 * math.pi)) + math.log(2.0) + log_uniform_convolved(x, -1, 1, b)
    np.testing.assert_allclose(log_gaussian_convolved(x, 0.0, sigma, b, -1, 1), flat, atol=1e-9)
