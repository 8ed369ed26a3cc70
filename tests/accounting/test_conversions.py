"""Tests of dplab.accounting.conversions against dp_accounting, closed forms, quad and round trips."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.rdp import rdp_privacy_accountant as rpa
from scipy import integrate, stats

from dplab.accounting.conversions import (
    ConversionResult,
    epsilon_from_rdp_cks,
    epsilon_from_rdp_cks_with_order,
    epsilon_from_rdp_mironov,
    epsilon_from_rdp_mironov_with_order,
    gaussian_rdp,
    log_delta_from_rdp_cks,
    log_delta_from_rdp_cks_with_order,
    log_delta_from_rdp_mironov,
    log_delta_from_rdp_mironov_with_order,
)
from dplab.accounting.hockey_stick import log_gaussian_hockey_stick

ORDERS = np.array(rpa.DEFAULT_RDP_ORDERS, dtype=float)
DELTAS = [1e-12, 1e-8, 1e-5, 1e-3, 0.05, 0.3]
EPSILONS = [0.0, 0.05, 0.3, 1.0, 2.0, 5.0, 10.0]


def rdp_curve(event: dp_event.DpEvent, orders: np.ndarray = ORDERS) -> np.ndarray:
    """The RDP curve dp_accounting computes for ``event`` (add-or-remove-one neighbours)."""
    accountant = rpa.RdpAccountant(orders=list(orders))
    accountant.compose(event)
    return np.array(accountant._rdp, dtype=float)


CURVES = {
    "gaussian_sigma1": rdp_curve(dp_event.GaussianDpEvent(1.0)),
    "gaussian_x10_sigma4": rdp_curve(dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(4.0), 10)),
    "subsampled_mnist": rdp_curve(
        dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(256 / 60000, dp_event.GaussianDpEvent(1.1)), 14062)
    ),
    "subsampled_small": rdp_curve(
        dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(2.0)), 100)
    ),
}


@pytest.fixture(autouse=True)
def _quiet_grid_edge_warnings(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="dplab.accounting.conversions")


# ------------------------------------------------------------------ Gaussian RDP closed form


def test_gaussian_rdp_matches_dp_accounting() -> None:
    np.testing.assert_allclose(gaussian_rdp(ORDERS, 1.0, 1.0), CURVES["gaussian_sigma1"], rtol=1e-12)
    np.testing.assert_allclose(10 * gaussian_rdp(ORDERS, 1.0, 4.0), CURVES["gaussian_x10_sigma4"], rtol=1e-12)


@pytest.mark.parametrize(("alpha", "sensitivity", "sigma"), [(2.0, 1.0, 1.0), (1.5, 0.7, 1.3), (5.0, 2.0, 3.0)])
def test_gaussian_rdp_matches_quadrature(alpha: float, sensitivity: float, sigma: float) -> None:
    """D_α(P‖Q) = log(∫ p^α q^{1−α}) / (α − 1) by quadrature."""
    log_p = stats.norm(0.0, sigma).logpdf
    log_q = stats.norm(sensitivity, sigma).logpdf
    integral, _ = integrate.quad(
        lambda t: math.exp(alpha * log_p(t) + (1 - alpha) * log_q(t)), -30 * sigma, 30 * sigma, limit=400
    )
    assert gaussian_rdp(alpha, sensitivity, sigma) == pytest.approx(math.log(integral) / (alpha - 1), rel=1e-9)


def test_gaussian_rdp_rejects_bad_sigma() -> None:
    with pytest.raises(ValueError, match="sigma"):
        gaussian_rdp(ORDERS, 1.0, 0.0)


# ------------------------------------------------------------------ CKS rule == dp_accounting


@pytest.mark.parametrize("name", sorted(CURVES))
def test_cks_epsilon_matches_dp_accounting(name: str) -> None:
    rdp = CURVES[name]
    result = epsilon_from_rdp_cks_with_order(np.array(DELTAS), ORDERS, rdp)
    for k, delta in enumerate(DELTAS):
        expected_eps, expected_order = rpa.compute_epsilon(ORDERS, rdp, delta)
        assert result.value[k] == pytest.approx(expected_eps, rel=1e-12, abs=1e-14)
        if expected_eps > 0:
            assert result.order[k] == expected_order


@pytest.mark.parametrize("name", sorted(CURVES))
def test_cks_delta_matches_dp_accounting(name: str) -> None:
    rdp = CURVES[name]
    result = log_delta_from_rdp_cks_with_order(np.array(EPSILONS), ORDERS, rdp)
    for k, epsilon in enumerate(EPSILONS):
        expected_delta, expected_order = rpa.compute_delta(ORDERS, rdp, epsilon)
        assert math.exp(result.value[k]) == pytest.approx(expected_delta, rel=1e-12, abs=1e-300)
        if expected_delta < 1:
            assert result.order[k] == expected_order


def test_cks_matches_accountant_golden_value() -> None:
    """q = 256/60000, σ = 1.1, 14062 steps, δ = 1e-5: 2.59656 (CKS) and 3.0083 (Mironov), the values dp_accounting's
    RdpAccountant and Opacus's RDPAccountant (2.59656) report for this DP-SGD run."""
    rdp = CURVES["subsampled_mnist"]
    accountant = rpa.RdpAccountant()
    accountant.compose(
        dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(256 / 60000, dp_event.GaussianDpEvent(1.1)), 14062)
    )
    assert epsilon_from_rdp_cks(1e-5, ORDERS, rdp) == pytest.approx(accountant.get_epsilon(1e-5), rel=1e-12)
    assert epsilon_from_rdp_cks(1e-5, ORDERS, rdp) == pytest.approx(2.59656, abs=1e-5)
    assert epsilon_from_rdp_mironov(1e-5, ORDERS, rdp) == pytest.approx(3.0083, abs=1e-4)


def test_cks_zero_divergence_and_zero_delta() -> None:
    zeros = np.zeros_like(ORDERS)
    assert epsilon_from_rdp_cks(0.0, ORDERS, zeros) == 0.0  # identical laws: (0, 0)-DP, as dp_accounting
    assert rpa.compute_epsilon(ORDERS, zeros, 0.0)[0] == 0
    assert epsilon_from_rdp_cks(0.0, ORDERS, CURVES["gaussian_sigma1"]) == math.inf
    assert log_delta_from_rdp_cks(0.5, ORDERS, zeros) == -math.inf


# ------------------------------------------------------------------ Mironov rule


def test_mironov_matches_explicit_minimum() -> None:
    orders = np.array([1.0, 1.5, 2.0, 4.0, 8.0, 16.0])
    rdp = np.array([0.01, 0.03, 0.05, 0.1, 0.25, 0.6])
    for epsilon in EPSILONS:
        expected = min(0.0, min((a - 1) * (r - epsilon) for a, r in zip(orders, rdp)))
        assert log_delta_from_rdp_mironov(epsilon, orders, rdp) == pytest.approx(expected, rel=1e-14, abs=1e-15)
    for delta in DELTAS:
        expected = min(r + math.log(1 / delta) / (a - 1) for a, r in zip(orders[1:], rdp[1:]))
        assert epsilon_from_rdp_mironov(delta, orders, rdp) == pytest.approx(expected, rel=1e-14)


def test_mironov_continuous_limit_is_proposition_1() -> None:
    """For an (α, κα) curve, inf_α exp((α−1)(κα − ε)) = exp(−(ε−κ)²/(4κ)) at α* = (ε+κ)/(2κ) (eqs. (26)-(27))."""
    kappa = 0.025
    orders = np.linspace(1.0, 200.0, 400_001)
    rdp = kappa * orders
    for epsilon in [0.1, 0.5, 1.0, 2.0]:
        result = log_delta_from_rdp_mironov_with_order(epsilon, orders, rdp)
        assert result.value == pytest.approx(-((epsilon - kappa) ** 2) / (4 * kappa), rel=1e-8)
        assert result.order == pytest.approx((epsilon + kappa) / (2 * kappa), abs=1e-3)
    for delta in [1e-10, 1e-5, 1e-2]:
        closed_form = kappa + 2 * math.sqrt(kappa * math.log(1 / delta))
        result = epsilon_from_rdp_mironov_with_order(delta, orders, rdp)
        assert result.value == pytest.approx(closed_form, rel=1e-8)
        assert result.order == pytest.approx(1 + math.sqrt(math.log(1 / delta) / kappa), abs=1e-3)


def test_mironov_edges() -> None:
    rdp = CURVES["gaussian_sigma1"]
    assert epsilon_from_rdp_mironov(0.0, ORDERS, rdp) == math.inf
    assert log_delta_from_rdp_mironov(0.0, ORDERS, rdp) == 0.0  # capped at δ = 1
    assert epsilon_from_rdp_mironov(0.5, [1.0], [0.3]) == math.inf  # α = 1 gives no bound


# ------------------------------------------------------------------ properties of both rules


@pytest.mark.parametrize("name", sorted(CURVES))
@pytest.mark.parametrize("rule", ["mironov", "cks"])
def test_round_trip_epsilon_delta_epsilon(name: str, rule: str) -> None:
    to_log_delta = {"mironov": log_delta_from_rdp_mironov, "cks": log_delta_from_rdp_cks}[rule]
    to_epsilon = {"mironov": epsilon_from_rdp_mironov, "cks": epsilon_from_rdp_cks}[rule]
    rdp = CURVES[name]
    eps = np.array([0.1, 0.5, 1.0, 3.0, 8.0])
    log_delta = to_log_delta(eps, ORDERS, rdp)
    informative = log_delta < -1e-9
    assert informative.any()
    np.testing.assert_allclose(to_epsilon(np.exp(log_delta[informative]), ORDERS, rdp), eps[informative], rtol=1e-9)


@pytest.mark.parametrize("name", sorted(CURVES))
def test_mironov_never_below_cks(name: str) -> None:
    rdp = CURVES[name]
    deltas = np.geomspace(1e-15, 0.5, 30)
    assert np.all(epsilon_from_rdp_mironov(deltas, ORDERS, rdp) >= epsilon_from_rdp_cks(deltas, ORDERS, rdp) - 1e-12)
    eps = np.linspace(0, 10, 41)
    assert np.all(log_delta_from_rdp_mironov(eps, ORDERS, rdp) >= log_delta_from_rdp_cks(eps, ORDERS, rdp) - 1e-12)


@pytest.mark.parametrize("sigma", [0.7, 1.0, 2.5])
def test_conversions_upper_bound_exact_gaussian_delta(sigma: float) -> None:
    """Soundness: both conversions of the Gaussian RDP curve give δ ≥ the exact E_{e^ε} (Lemma 2)."""
    rdp = gaussian_rdp(ORDERS, 1.0, sigma)
    eps = np.linspace(0.0, 8.0, 33)
    exact = log_gaussian_hockey_stick(eps, 1.0 / sigma)
    assert np.all(log_delta_from_rdp_cks(eps, ORDERS, rdp) >= exact - 1e-12)
    assert np.all(log_delta_from_rdp_mironov(eps, ORDERS, rdp) >= exact - 1e-12)


def test_results_are_floats_for_scalars_and_arrays_otherwise() -> None:
    rdp = CURVES["gaussian_sigma1"]
    result = epsilon_from_rdp_cks_with_order(1e-5, ORDERS, rdp)
    assert isinstance(result, ConversionResult)
    assert isinstance(result.value, float) and isinstance(result.order, float)
    assert result.at_grid_edge is False
    assert epsilon_from_rdp_mironov(np.array([[1e-5, 1e-3]]), ORDERS, rdp).shape == (1, 2)


def test_grid_edge_is_flagged_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="dplab.accounting.conversions")
    narrow = np.array([2.0, 3.0, 4.0])
    rdp = gaussian_rdp(narrow, 1.0, 1.0)
    result = epsilon_from_rdp_cks_with_order(np.array([1e-5, 1e-12]), narrow, rdp)  # optimum wants α > 4
    assert np.all(result.at_grid_edge) and np.all(result.order == 4.0)
    assert "end of the grid" in caplog.text
    caplog.clear()
    interior = epsilon_from_rdp_cks_with_order(1e-5, ORDERS, CURVES["gaussian_sigma1"])
    assert interior.at_grid_edge is False and caplog.text == ""


@pytest.mark.parametrize(
    ("orders", "rdp", "target", "match"),
    [
        ([0.5, 2.0], [0.1, 0.2], 1e-5, "orders"),
        ([2.0, 3.0], [0.1], 1e-5, "rdp.shape"),
        ([2.0, 3.0], [0.1, -0.2], 1e-5, "rdp"),
        ([2.0, 3.0], [0.1, 0.2], 1.5, "delta"),
    ],
)
def test_bad_input_is_rejected(orders, rdp, target, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        epsilon_from_rdp_cks(target, orders, rdp)
    with pytest.raises(ValueError, match=match):
        epsilon_from_rdp_mironov(target, orders, rdp)


def test_negative_epsilon_is_rejected() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        log_delta_from_rdp_mironov(-1.0, ORDERS, CURVES["gaussian_sigma1"])
