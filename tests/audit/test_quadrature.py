"""Tests of dplab.audit.quadrature against closed forms written here (Gaussian and Laplace hockey-stick
divergences, the Renyi divergence of two Gaussians) and the library's exact projected contraction coefficient."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from dplab.audit.quadrature import (
    gaussian_renyi_quadrature,
    hockey_stick_integral,
    projected_gaussian_hockey_stick_quadrature,
)
from dplab.theory.contraction import log_projected_gaussian_contraction_exact


def theta(epsilon: float, r: float) -> float:
    """Q(eps/r - r/2) - e^eps Q(eps/r + r/2) (eq. (10))."""
    return stats.norm.sf(epsilon / r - r / 2) - math.exp(epsilon) * stats.norm.sf(epsilon / r + r / 2)


@pytest.mark.parametrize(("epsilon", "shift", "scale"), [(0.0, 1.0, 1.0), (0.5, 2.0, 1.0), (1.0, 3.0, 0.5)])
def test_hockey_stick_integral_matches_lemmas_1_and_2(epsilon, shift, scale):
    span = (-40.0 * scale - shift, 40.0 * scale + shift)
    gauss = hockey_stick_integral(stats.norm(shift, scale).pdf, stats.norm(0.0, scale).pdf, epsilon, span)
    assert gauss == pytest.approx(theta(epsilon, shift / scale), abs=1e-9)
    laplace = hockey_stick_integral(stats.laplace(0.0, scale).pdf, stats.laplace(shift, scale).pdf, epsilon, span)
    assert laplace == pytest.approx(max(0.0, 1 - math.exp(epsilon / 2 - shift / (2 * scale))), abs=1e-9)


@pytest.mark.parametrize(("epsilon", "diameter"), [(0.0, 1.0), (1.0, 1.0), (0.5, 2.0), (1.0, 4.0)])
def test_projected_pair_at_the_end_points_is_the_exact_contraction(epsilon, diameter):
    value = projected_gaussian_hockey_stick_quadrature(epsilon, 0.0, diameter, diameter=diameter, scale=1.0)
    exact = math.exp(log_projected_gaussian_contraction_exact(epsilon, diameter=diameter, scale=1.0))
    assert value == pytest.approx(exact, abs=1e-9)


def test_projected_pair_far_from_the_ends_is_the_unprojected_divergence():
    """Means 20 and 21 on [0, 40] with unit scale: the atoms carry < 1e-80, so E_gamma = theta_gamma(1)."""
    for epsilon in (0.0, 1.0):
        value = projected_gaussian_hockey_stick_quadrature(epsilon, 21.0, 20.0, diameter=40.0, scale=1.0)
        assert value == pytest.approx(theta(epsilon, 1.0), abs=1e-9)


@pytest.mark.parametrize(("order", "shift", "scale"), [(2.0, 2.0, 1.0), (5.0, 1.0, 2.0), (1.5, 3.0, 1.5)])
def test_gaussian_renyi_quadrature_is_alpha_shift_squared_over_two_sigma_squared(order, shift, scale):
    assert gaussian_renyi_quadrature(order, shift, scale) == pytest.approx(order * shift**2 / (2 * scale**2), rel=1e-8)


def test_quadrature_refuses_start_points_outside_the_interval():
    with pytest.raises(ValueError, match="y2"):
        projected_gaussian_hockey_stick_quadrature(0.0, 0.0, 1.5, diameter=1.0, scale=1.0)
    with pytest.raises(ValueError, match="order"):
        gaussian_renyi_quadrature(1.0, 1.0, 1.0)
