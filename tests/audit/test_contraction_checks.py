"""The numerical checks of Asoodeh, Diaz, Calmon (2020) (dplab.audit.contraction_checks): their closed forms against
textbook formulas written out here (Laplace and Gaussian mechanism δ(ε), Rényi divergence of Gaussian shifts), and
the brute-force supremum of Theorem 2 below the exact contraction coefficient and the paper's bound."""

import math

import numpy as np
import pytest
from scipy import stats

from dplab.audit.contraction_checks import (
    gaussian_renyi_check,
    hockey_stick_lemma_checks,
    projected_gaussian_contraction_check,
    unconstrained_gaussian_kernel_check,
)


@pytest.mark.parametrize(("epsilon", "shift", "scale"), [(0.7, 1.5, 0.8), (0.0, 2.0, 1.0), (0.3, 0.4, 2.5)])
def test_lemmas_1_and_2_match_the_mechanisms_delta(epsilon, shift, scale):
    laplace, gauss = hockey_stick_lemma_checks(epsilon, shift, scale)
    assert (laplace["check"], gauss["check"]) == ("lemma1_laplace", "lemma2_gaussian")
    # Laplace mechanism: δ(ε) = 1 − exp((ε − Δ/b)/2) for ε ≤ Δ/b, else 0.
    expected_laplace = max(0.0, 1.0 - math.exp((epsilon - shift / scale) / 2))
    # Gaussian mechanism (Balle-Wang 2018, Theorem 8): Φ(Δ/2s − εs/Δ) − e^ε Φ(−Δ/2s − εs/Δ).
    r = shift / scale
    expected_gauss = stats.norm.cdf(r / 2 - epsilon / r) - math.exp(epsilon) * stats.norm.cdf(-r / 2 - epsilon / r)
    assert laplace["closed_form"] == pytest.approx(expected_laplace, abs=1e-12)
    assert gauss["closed_form"] == pytest.approx(expected_gauss, abs=1e-12)
    for row in (laplace, gauss):
        assert row["max_abs_error"] < 1e-5  # quadrature and dp_accounting agree to ~1e-6 at worst
        assert row["max_abs_error"] == max(
            abs(row["closed_form"] - row["quadrature"]), abs(row["closed_form"] - row["dp_accounting"])
        )


@pytest.mark.parametrize(("epsilon", "diameter"), [(0.0, 1.0), (0.5, 2.0)])
def test_theorem2_brute_force_reaches_the_exact_coefficient_below_the_paper_bound(epsilon, diameter):
    row = projected_gaussian_contraction_check(epsilon, diameter, n_points=5)
    assert row["quadrature"] == pytest.approx(row["closed_form"], abs=1e-7)  # the endpoints are on the grid
    assert row["closed_form"] <= row["paper_bound"] + 1e-12
    assert row["max_abs_error"] == abs(row["closed_form"] - row["quadrature"])
    assert np.isnan(row["dp_accounting"])


def test_unconstrained_kernel_does_not_contract():
    row = unconstrained_gaussian_kernel_check(0.0, 60.0)
    # θ_1(60) = 2Φ(30) − 1 for unit noise: 1 up to double precision.
    assert row["closed_form"] == pytest.approx(2 * stats.norm.cdf(30.0) - 1, abs=1e-15)
    assert row["max_abs_error"] < 1e-15 and row["paper_bound"] == 1.0
    assert unconstrained_gaussian_kernel_check(1.0, 2.0)["max_abs_error"] > 0.1


@pytest.mark.parametrize(("order", "shift", "scale"), [(2.0, 2.0, 1.0), (3.5, 0.5, 0.7)])
def test_renyi_check_is_alpha_delta_squared_over_two_sigma_squared(order, shift, scale):
    row = gaussian_renyi_check(order, shift, scale)
    assert row["closed_form"] == order * shift**2 / (2 * scale**2)
    assert row["max_abs_error"] < 1e-8


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="n_points"):
        projected_gaussian_contraction_check(0.5, 1.0, n_points=1)
    with pytest.raises(ValueError, match="order"):
        gaussian_renyi_check(1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="shift"):
        hockey_stick_lemma_checks(0.5, 0.0, 1.0)
