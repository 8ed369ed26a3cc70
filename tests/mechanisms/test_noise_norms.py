"""Expected ℓ2 norms of Gaussian and Laplace noise vectors against independent references: mpmath's Gamma function,
scipy's chi distribution, a closed form (d = 2), mpmath quadrature in spherical coordinates (d = 3) and Monte Carlo."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dplab.mechanisms.noise_norms import chi_mean, laplace_l2_norm_mean


@pytest.mark.parametrize("d", [1, 2, 3, 10, 100, 1000])
def test_chi_mean_against_mpmath_and_scipy(d):
    exact = mpmath.sqrt(2) * mpmath.gamma(mpmath.mpf(d + 1) / 2) / mpmath.gamma(mpmath.mpf(d) / 2)
    assert float(chi_mean(d)) == pytest.approx(float(exact), rel=1e-12)
    assert float(chi_mean(d)) == pytest.approx(stats.chi(d).mean(), rel=1e-12)


def test_chi_mean_of_an_array_is_elementwise():
    np.testing.assert_allclose(chi_mean(np.array([1, 4])), [chi_mean(1), chi_mean(4)], rtol=0)
    assert float(chi_mean(1)) == pytest.approx(math.sqrt(2 / math.pi), rel=1e-14)  # E|N(0, 1)|


def test_laplace_norm_in_one_and_two_dimensions_closed_forms():
    assert laplace_l2_norm_mean(1) == pytest.approx(1.0, rel=1e-10)  # E|Lap(1)| = 1
    # d = 2, polar coordinates: ∫_0^{π/2} 2/(cos θ + sin θ)^3 dθ = 1 + log(1 + √2)/√2
    assert laplace_l2_norm_mean(2) == pytest.approx(1 + math.log(1 + math.sqrt(2)) / math.sqrt(2), rel=1e-10)
    assert laplace_l2_norm_mean(2, 0.25) == pytest.approx(0.25 * laplace_l2_norm_mean(2), rel=1e-14)


def test_laplace_norm_in_three_dimensions_against_spherical_quadrature():
    """E‖z‖ = Γ(d + 1)∫ over the positive octant of the sphere of (u1 + u2 + u3)^{−(d+1)} dσ(u) (z ~ Lap(1)^{⊗3})."""

    def integrand(theta, phi):
        u = (mpmath.sin(theta) * mpmath.cos(phi), mpmath.sin(theta) * mpmath.sin(phi), mpmath.cos(theta))
        return mpmath.sin(theta) / sum(u) ** 4

    with mpmath.workdps(20):
        reference = 6 * mpmath.quad(integrand, [0, mpmath.pi / 2], [0, mpmath.pi / 2])
    assert laplace_l2_norm_mean(3) == pytest.approx(float(reference), rel=1e-9)


def test_laplace_norm_against_monte_carlo():
    z = np.random.default_rng(0).laplace(size=(200_000, 10))
    norms = np.linalg.norm(z, axis=1)
    assert abs(norms.mean() - laplace_l2_norm_mean(10)) < 4 * norms.std() / math.sqrt(norms.size)
    assert laplace_l2_norm_mean(10) == pytest.approx(4.23683, rel=2e-6)


@pytest.mark.parametrize(("call", "name"), [(lambda: chi_mean(0), "d"), (lambda: chi_mean(1.5), "d")])
def test_chi_mean_refuses_a_bad_dimension(call, name):
    with pytest.raises(ValueError, match=rf"^{name}="):
        call()


def test_laplace_norm_refuses_bad_arguments():
    with pytest.raises(ValueError, match="^d="):
        laplace_l2_norm_mean(0)
    with pytest.raises(ValueError, match="^scale="):
        laplace_l2_norm_mean(2, -1.0)
