"""The exact pure-ε audit's laws (M1-M4) and check values: the ablation, and every purified value within ε + ε′."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dplab.audit.interval_laws import TREATMENTS, Law1D, epsilon_inf_1d, epsilon_inf_2d_product
from dplab.audit.purification_pairs import (
    canonical_pair,
    example17_pair,
    projected_gaussian_pair,
    purification_scale_1d,
)
from dplab.theory.purification import purification_laplace_scale, purification_shift

B = purification_scale_1d(math.log(1e-6), 0.01, 1.0)


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


@pytest.mark.parametrize("mechanism", ["M1", "M3"])
def test_monte_carlo_purification_draws_follow_the_exact_full_law(mechanism):
    """The Monte-Carlo audit's purified samples (dplab.purify_continuous on Θ = [−1, 1]) against the exact law the
    exact audit uses, ((1 − ω)P + ω Unif[−1, 1]) ⊛ Laplace(b): bin masses by quadrature of its closed-form density,
    chi-square goodness of fit."""
    from scipy import integrate, stats

    from dplab.studies.purification.audit import _purify_on_interval, _sample_law, mechanism_pair

    params = {"epsilon": 0.0, "delta": 0.01, "omega": 0.1, "epsilon_prime": 1.0}
    law, _ = mechanism_pair(mechanism, 0.0 if mechanism == "M1" else 1.0, 0.01, 0.02)
    b = purification_scale_1d(math.log(0.01), 0.1, 1.0)
    rng = np.random.default_rng(11)
    samples = _purify_on_interval(_sample_law(law, mechanism, 200_000, rng), params, rng)
    exact = law.mixed(0.1)
    edges = np.concatenate([[-np.inf], np.linspace(-1 - 3 * b, 1 + 3 * b, 31), [np.inf]])
    density = lambda x: math.exp(exact.log_density_convolved(np.array([x]), b)[0])  # noqa: E731
    masses = np.array([integrate.quad(density, lo, hi, limit=200)[0] for lo, hi in zip(edges[:-1], edges[1:])])
    assert masses.sum() == pytest.approx(1.0, abs=1e-7)
    observed = np.histogram(samples, bins=edges)[0]
    assert stats.chisquare(observed, masses / masses.sum() * samples.size).pvalue > 1e-4


def test_mean_estimation_audit_1d_parameters_and_theorem1():
    from dplab.audit.purification_pairs import mean_estimation_audit_1d

    n, eps = 100, 1.0
    out = mean_estimation_audit_1d(eps, n, 0.1, 2001)
    omega = 1 / n**2
    delta = 2 * omega / (32 * n**2)  # δ = 2ω/(32dn²)^d at d = 1
    assert out["log_delta"] == pytest.approx(math.log(delta), rel=1e-12)
    assert out["omega"] == pytest.approx(omega, rel=1e-12)
    shift = 2 * 2.0 * delta / (2 * omega)  # Theorem 1, q = inf: Δ = 2dR(δ/2ω)^{1/d}, R = 2
    assert out["laplace_scale"] == pytest.approx(2 * shift / (eps / 2), rel=1e-10)
    assert set(out["epsilon_inf"]) == set(TREATMENTS)
    assert out["epsilon_inf"]["full"] <= eps + 1e-9  # Theorem 1: (ε_tot, 0)-DP after purification
    assert out["epsilon_inf"]["full"] < out["epsilon_inf"]["none"]
