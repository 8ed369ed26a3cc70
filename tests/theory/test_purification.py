"""Theory of purification (Lin, Wang, Ma, Wang): reference values recomputed independently, and each formula against
an independent computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats
from scipy.special import gamma as gamma_fn

from dplab.theory.purification import (
    algorithm12_log_delta_as_printed,
    corollary4_parameters,
    example8_quantities,
    folklore_epsilon,
    lemma6_w_inf_bound,
    lemma19_gradient_count_as_printed,
    lemma19_parameters,
    lemma25_schedule,
    lq_ball_volume_as_printed,
    lq_ball_volume_corrected,
    purification_laplace_scale,
    purification_shift,
    purified_epsilon,
    sigma_for_schedule,
    table1_rates,
    table2_rates,
    theorem2_log_delta_threshold,
    tight_rho,
    tradeoff_crossing_alpha,
    tradeoff_function,
    utility_l1_bound_as_printed,
    utility_lq_bound_corrected,
    w_inf_1d,
    zcdp_epsilon,
)

L30, L01 = math.log(1e-30), math.log(0.01)


def test_algorithm1_shift_check_values():
    assert purification_shift(1, 2.0, 2.0, math.log(1e-6), L01) == pytest.approx(2.0e-4, rel=1e-12)
    assert purification_laplace_scale(2.0e-4, 1.0) == pytest.approx(4.0e-4)
    assert purification_shift(10, 2.0, 1.0, L30, L01) == pytest.approx(9.35248e-3, rel=1e-5)
    assert purification_shift(10, 1.0, 1.0, L30, L01) == pytest.approx(2.95752e-3, rel=1e-5)
    assert purification_shift(10, math.inf, 1.0, L30, L01) == pytest.approx(2.95752e-2, rel=1e-5)
    assert purified_epsilon(0.5, 2.0e-4, 4.0e-4) == pytest.approx(1.5)


def test_shift_is_lemma6_ball_bound_with_the_mixing_floor():
    """Δ_q = 2R(δ/2ω)^{1/d} is Lemma 6 (ball case) at tv = δ/2, p_min·Vol(𝔹(1)) = ω/(R/2)^d (App. F.4)."""
    for d, R, delta, omega in [(1, 2.0, 1e-6, 0.01), (3, 1.5, 1e-20, 0.1), (10, 1.0, 1e-30, 0.01)]:
        lemma6 = lemma6_w_inf_bound(delta / 2, omega / (R / 2) ** d, d, ball=True)
        assert purification_shift(d, 2.0, R, math.log(delta), math.log(omega)) == pytest.approx(
            d**0.5 * lemma6, rel=1e-12
        )


def test_utility_bounds():
    assert utility_l1_bound_as_printed(10, 1.0, 1.0, L30, L01) == pytest.approx(0.06915, rel=1e-4)
    assert utility_lq_bound_corrected(10, 1.0, 1.0, 1.0, L30, L01) == pytest.approx(0.06915, rel=1e-4)
    assert utility_lq_bound_corrected(10, 2.0, 1.0, 1.0, L30, L01) == pytest.approx(0.09365, rel=1e-4)
    assert utility_lq_bound_corrected(10, math.inf, 1.0, 1.0, L30, L01) == pytest.approx(0.18325, rel=1e-4)


def test_lq_ball_volume_against_closed_forms_and_erratum():
    assert lq_ball_volume_corrected(3, 2.0) == pytest.approx(4 * math.pi / 3, rel=1e-12)
    assert lq_ball_volume_corrected(10, 1.0) == pytest.approx(2**10 / math.factorial(10), rel=1e-12)
    assert lq_ball_volume_corrected(4, 2.0) == pytest.approx(math.pi**2 / gamma_fn(3), rel=1e-12)
    assert lq_ball_volume_corrected(2, 3.0) == pytest.approx(  # area of |x|^3+|y|^3<=1 by quadrature
        4 * integrate.quad(lambda x: (1 - x**3) ** (1 / 3), 0, 1)[0], rel=1e-8
    )
    assert lq_ball_volume_as_printed(3, 2.0) == pytest.approx(3.5556, rel=1e-4)
    assert lq_ball_volume_as_printed(10, 1.0) == pytest.approx(4.2379e-32, rel=1e-4)


def test_example8_and_w_inf_quantiles():
    q = example8_quantities(0.3, 2)
    assert (q["tv_distance"], q["w_inf"], q["lemma6_bound_general"], q["lemma6_bound_ball"]) == pytest.approx(
        (0.09, 0.3, 2.4, 1.2)
    )
    dt = 0.5  # 1-D: μ = Δ̃δ0 + (1−Δ̃)Unif([−1,1]∖(−Δ̃,Δ̃)), ν = Unif[−1, 1]

    def quantile_mu(t):
        lower = (1 - dt) / 2
        return np.where(
            t < lower,
            -1 + t / lower * (1 - dt),
            np.where(t <= lower + dt, 0.0, dt + (t - lower - dt) / lower * (1 - dt)),
        )

    assert w_inf_1d(quantile_mu, lambda t: 2 * t - 1) == pytest.approx(dt, abs=1e-4)


def test_corollary4_and_lemma25_check_values():
    c = corollary4_parameters(10**4, 10, 1.0, 1.0)
    assert -c["log_delta"] == pytest.approx(252.6861, rel=1e-6)
    assert c["shift"] == pytest.approx(1 / (8 * math.sqrt(10) * 1e8), rel=1e-10)
    assert c["laplace_scale"] == pytest.approx(7.90569e-10, rel=1e-5)
    assert c["bound_intermediate"] <= c["bound_stated"] == pytest.approx(2e-8)
    s = lemma25_schedule(10**4, 10, 1.0, -c["log_delta"], 1.0, 1.0)
    expected = {
        "gamma": 0.0100536,
        "sigma": 324.218,
        "steps": 39574.8,
        "eta": 4.90541e-8,
        "rho": 2.47342e-4,
        "epsilon_dp": 0.500247,
        "gradient_calls": 3.97868e6,
        "alpha_star": 1011.7,
        "alpha_max": 241761,
    }
    for key, value in expected.items():
        assert s[key] == pytest.approx(value, rel=1e-4), key
    assert sigma_for_schedule(s["gamma"], s["steps"], 1.0, 1.0, -c["log_delta"]) == pytest.approx(s["sigma"], rel=1e-12)
    assert s["rho"] == pytest.approx(1.0 / (16 * -c["log_delta"]), rel=1e-12)  # ρ = ε²/(16 log(1/δ))


def test_zcdp_conversion_against_numeric_minimisation():
    assert zcdp_epsilon(0.1, math.log(1e5)) == pytest.approx(2.245966, rel=1e-6)
    for rho, lid in [(0.1, 11.5), (2.5e-4, 252.7), (3.0, 5.0)]:
        best = optimize.minimize_scalar(
            lambda a: rho * a + lid / (a - 1), bounds=(1 + 1e-9, 1e7), method="bounded", options={"xatol": 1e-10}
        )
        assert zcdp_epsilon(rho, lid) == pytest.approx(best.fun, rel=1e-6)
        assert zcdp_epsilon(tight_rho(0.7, lid), lid) == pytest.approx(0.7, rel=1e-10)


def test_lemma19_check_values_and_count_erratum():
    p = lemma19_parameters(10**4, 10, 1.0, 1.0, 1.0)
    assert (p["l1_sensitivity"], p["steps"], p["laplace_scale"], p["eta"], p["gradient_count"]) == pytest.approx(
        (3.1623, 1000, 3162.28, 1.82574e-6, 1e7), rel=1e-4
    )
    assert lemma19_gradient_count_as_printed(10**4, 10, 1.0, 1.0) == pytest.approx(1e8)


def test_tradeoff_check_values_and_crossing():
    alpha = np.array([0, 0.01, 0.05, 0.1, 0.2, 0.5, 0.9])
    np.testing.assert_allclose(
        tradeoff_function(alpha, 1, 0.1), [0.9, 0.87282, 0.76409, 0.62817, 0.35634, 0.14715, 0], atol=1e-5
    )
    np.testing.assert_allclose(
        tradeoff_function(alpha, 1, 0), [1, 0.97282, 0.86409, 0.72817, 0.45634, 0.18394, 0.03679], atol=1e-5
    )
    np.testing.assert_allclose(
        tradeoff_function(alpha, 2, 0), [1, 0.92611, 0.63055, 0.26109, 0.10827, 0.06767, 0.01353], atol=1e-5
    )
    crossing = tradeoff_crossing_alpha(1, 0.1, 1)
    root = optimize.brentq(lambda a: tradeoff_function(a, 1, 0.1) - tradeoff_function(a, 2, 0), 1e-6, 0.05)
    assert crossing == pytest.approx(0.0214097, rel=1e-5) and root == pytest.approx(crossing, rel=1e-9)


def test_folklore_thm2_and_algorithm12():
    assert folklore_epsilon(1.0, 1e-6, 1000, 0.01) == pytest.approx(1.036127, rel=1e-6)
    assert theorem2_log_delta_threshold(10, 1.0) == pytest.approx(-89.872, rel=1e-5)
    assert -algorithm12_log_delta_as_printed(16, 1.0) == pytest.approx(144.175, rel=1e-5)
    assert -theorem2_log_delta_threshold(16, 1.0) == pytest.approx(166.355, rel=1e-5)


def test_tables_at_reference_point():
    rows = table1_rates(1e4, 10, 1.0, math.log(1e6), 0.1, 1000, math.log(2**10), 1.0)
    before = [r["before_value"] for r in rows]
    after = [r["after_value"] for r in rows]
    np.testing.assert_allclose(before, [1.1754e-3, 1.3816e-5, 9.014e-3, 46.851, 13.8155, 1.3816e-5, 0.09011], rtol=1e-3)
    np.testing.assert_allclose(after, [1e-3, 1e-5, 1.5174e-2, 34.785, 6.9315, 1e-5, 0.19045], rtol=1e-3)
    t2 = table2_rates(1e4, 10, 1.0)
    np.testing.assert_allclose([r["utility_value"] for r in t2], [0.031623, 1e-3, 1e-3], rtol=1e-4)
    np.testing.assert_allclose([r["runtime_value"] for r in t2], [1e8, 1e8 + 10, 1e19], rtol=1e-6)
    assert t2[0]["runtime_value_corrected"] == pytest.approx(1e7)


def test_bad_input():
    with pytest.raises(ValueError, match=r"delta.*0 < delta < 1"):
        purification_shift(1, 2.0, 2.0, 0.0, L01)
    with pytest.raises(ValueError, match=r"omega.*0 < omega < 1"):
        purification_shift(1, 2.0, 2.0, L30, 0.1)
    with pytest.raises(ValueError, match="diameter"):
        purification_shift(1, 2.0, -1.0, L30, L01)
    with pytest.raises(ValueError, match="q=0.5"):
        purification_shift(1, 0.5, 1.0, L30, L01)


def test_example8_quantile_1d_against_sampled_quantiles():
    from dplab.theory.purification import example8_quantile_1d

    dt, m = 0.3, 200_000
    rng = np.random.default_rng(4)
    # μ = Δ̃δ0 + (1 − Δ̃)Unif([−1, 1]∖(−Δ̃, Δ̃)) sampled directly: the atom, else a sign times Unif[Δ̃, 1].
    samples = np.where(rng.random(m) < dt, 0.0, rng.choice([-1.0, 1.0], m) * rng.uniform(dt, 1.0, m))
    levels = np.array([0.05, 0.2, 0.34, 0.4, 0.5, 0.6, 0.66, 0.8, 0.95])
    np.testing.assert_allclose(example8_quantile_1d(dt)(levels), np.quantile(samples, levels), atol=0.01)


def test_example8_sample_points_radii_laws():
    from dplab.theory.purification import example8_sample_points

    dt, m = 0.4, 20_000
    nu, mu = example8_sample_points(dt, m, np.random.default_rng(5))
    assert nu.shape == mu.shape == (m, 2)
    r_nu, r_mu = np.linalg.norm(nu, axis=1), np.linalg.norm(mu, axis=1)
    # ν uniform on the disk: P(r ≤ s) = s².
    assert stats.kstest(r_nu, lambda s: np.clip(s, 0, 1) ** 2).pvalue > 1e-3
    # μ: an atom Δ̃² at the origin (binomial, 5 standard errors), uniform on the annulus otherwise.
    at_origin = r_mu == 0
    assert abs(at_origin.mean() - dt**2) < 5 * math.sqrt(dt**2 * (1 - dt**2) / m)
    annulus_cdf = lambda s: np.clip((s**2 - dt**2) / (1 - dt**2), 0, 1)  # noqa: E731
    assert stats.kstest(r_mu[~at_origin], annulus_cdf).pvalue > 1e-3
