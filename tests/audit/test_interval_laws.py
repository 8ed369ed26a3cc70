"""Exact pure ε of laws on an interval: the closed-form convolutions against quadrature, ε∞ of purified laws against
a brute-force evaluation of the densities, products, grid refinement, stability at huge σ/b, and argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dplab.audit.interval_laws import (
    TREATMENTS,
    Law1D,
    epsilon_inf_1d,
    epsilon_inf_2d_product,
    log_gaussian_convolved,
    log_uniform_convolved,
    projected_gaussian_law,
)
from dplab.mechanisms.gaussian import agm_sigma


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


def test_convolved_law_is_the_weighted_sum_of_its_parts():
    """Atoms by scipy's Laplace density, the restricted Gaussian and the uniform part by quadrature."""
    law = Law1D((-0.5, 0.25), (0.1, 0.2), gauss_weight=0.3, gauss_mean=0.2, gauss_sigma=0.3, uniform_weight=0.4)
    b, x = 0.1, np.array([-1.2, -0.5, 0.0, 0.3, 0.99, 1.4])
    expected = [
        0.1 * stats.laplace.pdf(v, -0.5, b)
        + 0.2 * stats.laplace.pdf(v, 0.25, b)
        + 0.3 * integrate.quad(lambda t: stats.norm.pdf(t, 0.2, 0.3) * _laplace(v - t, b), -1, 1, limit=200)[0]
        + 0.4 * integrate.quad(lambda t: 0.5 * _laplace(v - t, b), -1, 1, limit=200)[0]
        for v in x
    ]
    np.testing.assert_allclose(np.exp(law.log_density_convolved(x, b)), expected, rtol=1e-8)


def _brute_force_full_epsilon(p: Law1D, q: Law1D, omega: float, b: float) -> float:
    """ε∞ of the purified atom-plus-uniform laws from densities summed term by term on a fine grid of [−1, 1]."""
    x = np.linspace(-1.0, 1.0, 200_001)
    uniform = 0.5 * (stats.laplace.cdf(x, -1.0, b) - stats.laplace.cdf(x, 1.0, b))  # Unif[−1, 1] ⊛ Lap(b)

    def density(law: Law1D) -> np.ndarray:
        atoms = sum(w * stats.laplace.pdf(x, a, b) for a, w in zip(law.atoms, law.weights))
        return (1 - omega) * (atoms + law.uniform_weight * uniform) + omega * uniform

    return float(np.max(np.abs(np.log(density(p)) - np.log(density(q)))))


@pytest.mark.parametrize(("omega", "b"), [(0.01, 0.05), (0.1, 0.2), (0.5, 0.02)])
def test_full_purification_against_brute_force(omega, b):
    p = Law1D((-0.5, 0.5), (0.3, 0.1), uniform_weight=0.6)
    q = Law1D((-0.5, 0.5), (0.1, 0.3), uniform_weight=0.6)
    value = epsilon_inf_1d(p, q, "full", omega=omega, b=b)
    assert value == pytest.approx(_brute_force_full_epsilon(p, q, omega, b), rel=1e-6)


def test_full_purification_of_products_against_brute_force():
    """2-D: the purified density (1 − ω)(P1⊛ℓ)(P2⊛ℓ) + ω(U⊛ℓ)(U⊛ℓ), summed term by term on a 2001² grid."""
    p1 = Law1D((-0.5, 0.5), (0.3, 0.1), uniform_weight=0.6)
    q1 = Law1D((-0.5, 0.5), (0.1, 0.3), uniform_weight=0.6)
    omega, b = 0.1, 0.2
    x = np.linspace(-1.0, 1.0, 2001)
    uniform = 0.5 * (stats.laplace.cdf(x, -1.0, b) - stats.laplace.cdf(x, 1.0, b))

    def convolved(law: Law1D) -> np.ndarray:
        return sum(w * stats.laplace.pdf(x, a, b) for a, w in zip(law.atoms, law.weights)) + 0.6 * uniform

    def purified(first: Law1D, second: Law1D) -> np.ndarray:
        return (1 - omega) * np.outer(convolved(first), convolved(second)) + omega * np.outer(uniform, uniform)

    brute = float(np.max(np.abs(np.log(purified(p1, q1)) - np.log(purified(q1, p1)))))
    value = epsilon_inf_2d_product((p1, q1), (q1, p1), "full", omega=omega, b=b, n_points=2001)
    assert value == pytest.approx(brute, rel=1e-6)


def test_raw_laws_singular_parts_and_equal_laws():
    point, spread = Law1D((0.0,), (1.0,)), Law1D(uniform_weight=1.0)
    assert epsilon_inf_1d(point, spread, "none") == math.inf  # an atom the other law does not charge
    assert epsilon_inf_1d(point, point, "none") == 0.0
    # mixing alone leaves the atom uncharged by the other law: still ∞; Laplace alone makes both laws equivalent
    assert epsilon_inf_1d(point, spread, "mixing_only", omega=0.1) == math.inf
    assert math.isfinite(epsilon_inf_1d(point, spread, "laplace_only", b=0.1))
    # atom ratios: 0.75/0.25 at one location
    left, right = Law1D((-1.0, 1.0), (0.75, 0.25)), Law1D((-1.0, 1.0), (0.25, 0.75))
    assert epsilon_inf_1d(left, right, "none") == pytest.approx(math.log(3.0), rel=1e-14)


def test_grid_refinement_converges():
    sigma = float(agm_sigma(0.5, math.log(1e-6), 0.02))
    p, q = projected_gaussian_law(0.0, sigma), projected_gaussian_law(0.02, sigma)
    b = 0.01
    values = [epsilon_inf_1d(p, q, "full", omega=0.1, b=b, n_points=n) for n in (501, 2001, 8001, 32001)]
    steps = np.abs(np.diff(values))
    assert steps[-1] <= steps[0] + 1e-12 and steps[-1] < 1e-6


def test_projected_gaussian_law_masses_sum_to_one():
    law = projected_gaussian_law(0.3, 0.5)
    interior = integrate.quad(lambda t: math.exp(float(law.log_density(np.array([t]))[0])), -1, 1)[0]
    assert sum(law.weights) + interior == pytest.approx(1.0, rel=1e-10)
    assert law.weights[0] == pytest.approx(stats.norm.cdf(-1, 0.3, 0.5), rel=1e-12)


def test_two_dimensional_products():
    sigma = float(agm_sigma(1.0, math.log(1e-5), 0.02))
    p1, q1 = projected_gaussian_law(0.0, sigma), projected_gaussian_law(0.02 / math.sqrt(2), sigma)
    one_d = epsilon_inf_1d(p1, q1, "none")
    assert epsilon_inf_2d_product((p1, p1), (q1, q1), "none", n_points=401) == pytest.approx(2 * one_d, rel=1e-9)
    flat = (Law1D(uniform_weight=1.0), Law1D(uniform_weight=1.0))
    for treatment in TREATMENTS:
        assert epsilon_inf_2d_product(flat, flat, treatment, omega=0.5, b=0.1, n_points=11) == pytest.approx(0.0)


def test_gaussian_convolution_stable_for_huge_sigma_over_b():
    """σ/b ≈ 10^15 (AGM at ε = 0, δ = 1e-9): the restricted Gaussian is flat, so the convolution equals the flat
    density 1/(σ√(2π)) times the uniform convolution; the naive e^{σ²/(2b²)}Φ(·) form loses everything."""
    sigma, b = 8.0e6, 4.0e-9
    x = np.array([-1.0 - 5 * b, -1.0, -0.3, 0.999999, 1.0 + 3 * b])
    flat = -math.log(sigma * math.sqrt(2 * math.pi)) + math.log(2.0) + log_uniform_convolved(x, -1, 1, b)
    np.testing.assert_allclose(log_gaussian_convolved(x, 0.0, sigma, b, -1, 1), flat, atol=1e-9)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Law1D((0.0,), ()), "^atoms has 1 entries"),
        (lambda: Law1D((2.0,), (1.0,)), "^atoms=2.0"),
        (lambda: Law1D((0.0,), (-0.1,)), "^weights="),
        (lambda: Law1D(lo=1.0, hi=-1.0), "^lo=1.0 and hi=-1.0"),
        (lambda: Law1D(gauss_sigma=0.0), "^gauss_sigma="),
        (lambda: epsilon_inf_1d(Law1D(), Law1D(), "half"), "^treatment="),
        (lambda: epsilon_inf_1d(Law1D(), Law1D(), "full", omega=1.5, b=0.1), "^omega="),
        (lambda: epsilon_inf_1d(Law1D(), Law1D(), "laplace_only", b=-1.0), "^b="),
        (lambda: epsilon_inf_1d(Law1D(), Law1D(lo=-2.0), "none"), "^p and q are laws on"),
        (lambda: epsilon_inf_2d_product((Law1D(),), (Law1D(),), "none"), "^p has 1 and q has 1"),
    ],
)
def test_bad_arguments_are_refused_naming_them(make, message):
    with pytest.raises(ValueError, match=message):
        make()
