"""DP ⇒ generalization, Lemma 5, SGLD (Thm 7) and FL (Thm 8) of He, Wang, Tao against reference values recomputed
independently (6-7 digits) and independent references: scipy entropy, brentq, exact Gaussian-mechanism hockey-stick,
explicit mixtures, mpmath."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy import optimize, stats

from dplab.accounting.composition import kov_pair, optimal_delta
from dplab.theory.generalization import (
    amplify_by_subsampling,
    dwork_2015_high_probability,
    epsilon_min_for_sample_size,
    fl_privacy,
    fl_step_epsilon,
    generalization_bounds,
    kl_bound_dr16,
    kl_bound_drv10,
    kl_bound_lemma5,
    kl_randomized_response,
    linear_amplification_threshold,
    nissim_stemmer_high_probability,
    nissim_stemmer_on_average,
    oneto_high_probability,
    oneto_variance_high_probability,
    sgld_privacy,
    sgld_step_epsilon,
    thm1_bound,
    thm1_deviation,
    thm1_deviation_exact,
    thm1_failure_probability,
    thm1_min_sample_size,
    thm2_on_average,
    thm3_deviation,
    wang_sgld_threshold,
)


def test_lemma5_and_baselines():
    assert kl_bound_lemma5(1.0) == pytest.approx(0.462117, rel=1e-6)
    assert kl_bound_dr16(1.0) == pytest.approx(0.859141, rel=1e-6)
    assert kl_bound_drv10(1.0) == pytest.approx(1.718282, rel=1e-6)
    assert kl_bound_lemma5(0.1) == pytest.approx(0.004996, rel=1e-4) and kl_bound_dr16(0.1) == pytest.approx(
        0.005259, rel=1e-4
    )
    eps = np.array([1.0, 3.0, 10.0])
    assert np.allclose(kl_bound_dr16(eps) / kl_bound_lemma5(eps), [1.859141, 10.542768, 11013.73], rtol=1e-6)


def test_randomized_response_attains_lemma5_scipy_entropy():
    for eps in [0.01, 0.3, 1.0, 5.0]:
        p = np.exp(eps) / (1 + np.exp(eps))
        reference = stats.entropy([p, 1 - p], [1 - p, p])
        assert kl_randomized_response(eps) == pytest.approx(reference, rel=1e-12)
        assert kl_bound_lemma5(eps) == pytest.approx(reference, rel=1e-12)


def _mp_kl_randomized_response(eps: float) -> mpmath.mpf:
    """Σ_o P(o) log(P(o)/Q(o)) for Bern(p) ‖ Bern(1 − p), p = e^ε/(1 + e^ε), in mpmath with enough digits that
    1 − p keeps its own."""
    with mpmath.workdps(60 + int(eps / 2.3)):
        e = mpmath.mpf(eps)
        p = mpmath.e**e / (1 + mpmath.e**e)
        q = 1 - p
        return p * mpmath.log(p / q) + q * mpmath.log(q / p)


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 0.01, 0.3, 5.0, 36.0, 37.0, 40.0, 100.0, 700.0, 1000.0])
def test_randomized_response_kl_exact_at_every_eps_mpmath(eps):
    """Issue 26: formed from p = e^ε/(1+e^ε), the KL read inf from ε ≈ 37 (p rounds to 1); now within 4 ulps of the
    distributions' KL in mpmath (computed with 60 + ε/2.3 digits) at every ε, and equal to Lemma 5's ε tanh(ε/2)."""
    reference = _mp_kl_randomized_response(eps)
    assert kl_randomized_response(eps) == pytest.approx(float(reference), rel=1e-15)
    assert kl_randomized_response(eps) == pytest.approx(kl_bound_lemma5(eps), rel=1e-15)


def test_min_sample_size_and_inverse_against_brentq():
    assert thm1_min_sample_size(0.1, 1e-5) == pytest.approx(2877.1028, rel=1e-7)
    assert thm1_min_sample_size(0.1, 1e-3) == pytest.approx(1956.0688, rel=1e-7)
    assert thm1_min_sample_size(0.05, 1e-6) == pytest.approx(13310.479, rel=1e-7)
    assert thm1_min_sample_size(0.01, 1e-5) == pytest.approx(285910.28, rel=1e-7)
    for N, delta in [(1e3, 1e-5), (1e4, 1e-6), (1e6, 1e-10)]:
        root = optimize.brentq(lambda e: N - thm1_min_sample_size(e, delta), 1e-10, 1e3, xtol=1e-15)
        assert epsilon_min_for_sample_size(N, delta) == pytest.approx(root, rel=1e-10)
    # the printed form ln(16/(e^{-ε}δ)) agrees (mpmath, no overflow there)
    assert thm1_min_sample_size(0.1, 1e-5) == pytest.approx(
        float(2 / mpmath.mpf(0.1) ** 2 * mpmath.log(16 / (mpmath.e ** -mpmath.mpf(0.1) * mpmath.mpf(1e-5)))), rel=1e-12
    )


def test_failure_probabilities_and_deviation():
    assert thm1_failure_probability(0.1, 1e-5) == pytest.approx(2.710651e-4, rel=1e-6)
    assert thm1_failure_probability(0.1, 1e-5, "intro") == pytest.approx(5.421301e-4, rel=1e-6)
    assert nissim_stemmer_high_probability(0.1, 1e-5)[1] == pytest.approx(5.991465e-4, rel=1e-6)
    assert dwork_2015_high_probability(0.1, 1e-5)[1] == pytest.approx(2.529822, rel=1e-6)
    assert thm1_failure_probability(0.05, 1e-6) == pytest.approx(7.017941e-5, rel=1e-6)
    assert thm1_failure_probability(0.05, 1e-6, "intro") == pytest.approx(1.403588e-4, rel=1e-6)
    assert nissim_stemmer_high_probability(0.05, 1e-6)[1] == pytest.approx(1.475552e-4, rel=1e-6)
    assert dwork_2015_high_probability(0.05, 1e-6)[1] == pytest.approx(4.009, rel=5e-4)
    assert thm1_deviation(0.1) / nissim_stemmer_high_probability(0.1, 1e-5)[0] == pytest.approx(9 / 13)
    assert thm1_deviation_exact(0.1, 1e-5) == pytest.approx(0.90000263, rel=1e-8)
    with pytest.raises(ValueError, match="version='x' is not allowed"):
        thm1_failure_probability(0.1, 1e-5, "x")


def test_thm1_tighter_than_nissim_stemmer_on_grid():
    eps, delta = np.meshgrid(np.logspace(-3, np.log10(0.5), 50), np.logspace(-12, -2, 11))
    assert np.all(thm1_deviation(eps) < nissim_stemmer_high_probability(eps, delta)[0])
    assert np.all(thm1_failure_probability(eps, delta) < nissim_stemmer_high_probability(eps, delta)[1])


def test_on_average_vs_nissim_stemmer():
    assert thm2_on_average(0.1, 1e-6, 100) == pytest.approx(0.0952531, rel=1e-6)
    assert nissim_stemmer_on_average(0.1, 1e-6, 100) == pytest.approx(0.200100, rel=1e-6)
    assert thm2_on_average(1, 1e-6, 1000) == pytest.approx(0.632488, rel=1e-6)
    assert nissim_stemmer_on_average(1, 1e-6, 1000) == pytest.approx(2.001, rel=1e-6)
    assert thm2_on_average(10, 1e-6, 1000) == pytest.approx(0.999955, rel=1e-6)
    assert np.exp(10) == pytest.approx(22026.47, rel=1e-6)
    assert thm3_deviation(0.1, 1e-5, 10) == pytest.approx(10 * np.exp(-0.1) * 1e-5 + 0.3)


def test_sample_size_floor():
    expected = {
        1e3: (0.170033, 1.530294),
        1e4: (0.053552, 0.481968),
        1e5: (0.016913, 0.152217),
        1e6: (0.0053462, 0.048116),
    }
    for N, (eps_min, floor) in expected.items():
        assert epsilon_min_for_sample_size(N, 1e-5) == pytest.approx(eps_min, rel=1e-5)
        assert 9 * epsilon_min_for_sample_size(N, 1e-5) == pytest.approx(floor, rel=1e-5)
    ratios = [epsilon_min_for_sample_size(N, 1 / N) / np.sqrt(np.log(N) / N) for N in (1e3, 1e4, 1e5, 1e6)]
    assert np.allclose(ratios, [1.686, 1.616, 1.576, 1.550], atol=6e-4)


def test_thm1_bound_flags():
    hp = thm1_bound(0.01, 1e-5, 1e3)
    assert hp["floor_limited"] and hp["vacuous"] and hp["deviation"] == pytest.approx(1.530294, rel=1e-6)
    hp = thm1_bound(0.1, 1e-5, 1e6)
    assert not hp["floor_limited"] and hp["deviation"] == pytest.approx(0.9) and not hp["vacuous"]
    assert thm1_bound(np.array([0.01, 0.2]), 1e-5, 1e6)["vacuous"].tolist() == [False, True]


def test_oneto_baselines():
    a, b = oneto_high_probability(0.1, 20000, 0.1)
    assert a == pytest.approx(np.sqrt(0.6) * (0.1 + np.sqrt(1 / 20000)) + 6 * (0.01 + 1 / 20000))
    assert b == pytest.approx(3 * np.exp(-200))
    a2, _ = oneto_variance_high_probability(0.1, 20000, 0.09)
    assert a2 == pytest.approx(0.6 * (0.1 + np.sqrt(1 / 20000)) + 5 * 20000 / 19999 * (0.01 + 1 / 20000))


# --- SGLD and FL --------------------------------------------------------------------------------------------------


def test_step_epsilons():
    sigma = np.array([0.05, 0.1, 0.5, 1, 2])
    assert np.allclose(
        sgld_step_epsilon(1, sigma, 100, 1e-6), [1.131304, 0.545652, 0.105930, 0.052765, 0.026333], rtol=0, atol=6e-7
    )
    assert np.allclose(
        sgld_step_epsilon(1, sigma, 100, 1e-6, "corrected"),
        [2.182609, 1.071304, 0.211061, 0.105330, 0.052615],
        rtol=0,
        atol=6e-7,
    )
    assert np.allclose(
        fl_step_epsilon(sigma, 100, 1e-6), [1.506769, 0.748384, 0.148877, 0.074388, 0.037182], rtol=0, atol=6e-7
    )


def _gaussian_delta(eps, sensitivity, sigma):
    """Exact δ(ε) of the Gaussian mechanism (Balle-Wang 2018, Thm 8), in mpmath."""
    mu = mpmath.mpf(sensitivity) / sigma
    e = mpmath.mpf(eps)
    return float(mpmath.ncdf(mu / 2 - e / mu) - mpmath.e**e * mpmath.ncdf(-mu / 2 - e / mu))


@pytest.mark.parametrize("sigma", [0.05, 0.1, 0.5, 1.0, 2.0])
def test_step_epsilon_against_exact_gaussian_mechanism(sigma):
    """Theorem 7's proof: the printed per-step claim (ε̃_paper, δ) is false, the corrected one holds."""
    delta, sensitivity = 1e-6, 2.0 / 100
    assert _gaussian_delta(sgld_step_epsilon(1, sigma, 100, delta), sensitivity, sigma) > delta
    assert _gaussian_delta(sgld_step_epsilon(1, sigma, 100, delta, "corrected"), sensitivity, sigma) <= delta
    if sigma == 1.0:
        assert _gaussian_delta(sgld_step_epsilon(1, sigma, 100, delta), sensitivity, sigma) == pytest.approx(
            2.66e-5, rel=5e-3
        )


def test_amplification_threshold_and_counterexample():
    assert linear_amplification_threshold() == pytest.approx(1.256431, rel=1e-6)
    assert linear_amplification_threshold(0.01) == pytest.approx(1.277670, rel=1e-6)
    assert linear_amplification_threshold(1e-3) == pytest.approx(1.258522, rel=1e-6)
    assert linear_amplification_threshold(1e-4) == pytest.approx(1.256640, rel=1e-6)
    assert np.isinf(linear_amplification_threshold(0.5))
    # counterexample to linear amplification by subsampling: M outputs P0 if the record is in the batch, P1 otherwise
    q, eps, delta = 0.01, 1.5, 1e-6
    p0, p1 = kov_pair(eps, delta)
    mixture = q * p0 + (1 - q) * p1
    claimed = amplify_by_subsampling(eps, q, "linear")
    hockey = np.sum(np.maximum(mixture - np.exp(claimed) * p1, 0))
    assert hockey == pytest.approx(7.96e-4, rel=2e-3) and hockey > q * delta
    exact = amplify_by_subsampling(eps, q, "exact")
    assert np.sum(np.maximum(mixture - np.exp(exact) * p1, 0)) <= q * delta + 1e-15  # round-off


def test_exact_amplification_is_the_largest_log_ratio():
    """log(1+q(e^ε−1)) is the max privacy loss of (qP + (1−q)Q, Q) when P/Q ≤ e^ε (randomized response)."""
    for eps, q in [(0.5, 0.1), (3.0, 0.01), (1.0, 0.5)]:
        p = np.array([np.exp(eps), 1.0]) / (1 + np.exp(eps))
        mix = q * p + (1 - q) * p[::-1]
        assert np.max(np.log(mix / p[::-1])) == pytest.approx(amplify_by_subsampling(eps, q), rel=1e-12)


def test_sgld_as_printed():
    r = sgld_privacy(1e4, 100, 1000, 1.0, 1.0, 1e-6, 1e-6, "as_printed")
    assert r["eps_tilde"] == pytest.approx(0.052765, rel=1e-5)
    assert r["eps_step"] == pytest.approx(1.055304e-3, rel=1e-6) and r["delta_step"] == pytest.approx(1e-8)
    assert r["eps_prime"] == pytest.approx(0.175976, rel=1e-5)
    assert np.ceil(r["eps_prime"] / r["eps_step"]) == 167
    assert r["delta_prime"] == pytest.approx(1.099558e-5, rel=1e-6)
    assert r["thm7_printed_delta_tilde"] == pytest.approx(1.29e-25, rel=5e-3)
    g = generalization_bounds(r["eps_prime"], r["delta_prime"], 1e4)
    assert g["eps_min"] == pytest.approx(0.053374, rel=1e-4)
    assert g["deviation"] == pytest.approx(1.583781, rel=1e-5) and g["vacuous"]
    assert g["failure_probability"] == pytest.approx(1.274e-4, rel=5e-4)
    assert g["on_average"] == pytest.approx(0.161371, rel=1e-5)


def test_sgld_reference_values():
    r = sgld_privacy(1e4, 100, 1000, 1.0, 1.0, 1e-6, 1e-6, "valid")
    g = generalization_bounds(r["eps_prime"], r["delta_prime"], 1e4)
    assert r["eps_tilde"] == pytest.approx(0.105330, rel=1e-5) and r["eps_step"] == pytest.approx(1.110160e-3, rel=1e-6)
    assert r["eps_prime"] == pytest.approx(0.161235, rel=1e-5) and r["delta_prime"] == pytest.approx(
        1.099994e-5, rel=1e-6
    )
    assert g["deviation"] == pytest.approx(1.451, rel=5e-4) and g["vacuous"]
    assert g["on_average"] == pytest.approx(0.148917, rel=1e-5)
    p = sgld_privacy(1e5, 100, 1000, 0.5, 1.0, 1e-6, 1e-6, "as_printed")
    gp = generalization_bounds(p["eps_prime"], p["delta_prime"], 1e5)
    assert p["eps_tilde"] == pytest.approx(0.105930, rel=1e-5) and p["eps_step"] == pytest.approx(2.118609e-4, rel=1e-6)
    assert p["eps_prime"] == pytest.approx(0.035239, rel=1e-4) and gp["deviation"] == pytest.approx(0.317153, rel=1e-5)
    assert gp["failure_probability"] == pytest.approx(2.213e-4, rel=5e-4)
    v = sgld_privacy(1e5, 100, 1000, 0.5, 1.0, 1e-6, 1e-6, "valid")
    gv = generalization_bounds(v["eps_prime"], v["delta_prime"], 1e5)
    assert v["eps_prime"] == pytest.approx(0.031399, rel=1e-4) and gv["deviation"] == pytest.approx(0.282593, rel=1e-5)
    assert gv["on_average"] == pytest.approx(0.030913, rel=1e-4)
    f = sgld_privacy(1e4, 100, 100, 2.0, 1.0, 1e-5, 1e-5, "as_printed")
    gf = generalization_bounds(f["eps_prime"], f["delta_prime"], 1e4)
    assert f["eps_tilde"] == pytest.approx(0.024043, rel=1e-4) and f["eps_prime"] == pytest.approx(0.023085, rel=1e-4)
    assert gf["floor_limited"] and gf["deviation"] == pytest.approx(0.470153, rel=1e-6)


def test_empirical_companion_expected_magnitudes():
    """Our E1 at N=1e5 (recomputed independently): σ=0.05, T=30: P = 0.587, V = 1.79; σ=0.5, T=3000: V = 0.5046."""

    def hp(N, sigma, T, variant):
        r = sgld_privacy(N, 100, T, sigma, 1.0, 1e-6, 1e-6, variant)
        return generalization_bounds(r["eps_prime"], r["delta_prime"], N)["deviation"]

    assert hp(1e5, 0.05, 30, "as_printed") == pytest.approx(0.587, abs=1e-3)
    assert hp(1e5, 0.05, 30, "valid") == pytest.approx(1.79, abs=0.01)
    assert hp(1e5, 0.5, 3000, "valid") == pytest.approx(0.5046, rel=1e-3)
    assert hp(1e5, 2.0, 3000, "as_printed") == pytest.approx(0.157, abs=1e-3)


def test_fl_variants_and_wang_threshold():
    r = fl_privacy(1e4, 100, 100, 1.0, 1e-6, 1e-6, "as_printed")
    assert r["eps_tilde"] == pytest.approx(0.074388, rel=1e-5)
    sub = fl_privacy(1e4, 100, 100, 1.0, 1e-6, 1e-6, "substitution")
    add = fl_privacy(1e4, 100, 100, 1.0, 1e-6, 1e-6, "add_remove")
    assert add["eps_tilde"] < r["eps_tilde"] < sub["eps_tilde"] and add["eps_prime"] < sub["eps_prime"]
    assert sub["eps_tilde"] == pytest.approx(sgld_step_epsilon(1, 1.0, 100, 1e-6, "corrected"))
    assert wang_sgld_threshold(1, 1e-5, 1e4, 100) == pytest.approx(0.256020, rel=1e-6)
    with pytest.raises(ValueError, match="variant='x' is not allowed"):
        fl_step_epsilon(1.0, 100, 1e-6, "x")


def test_valid_sgld_delta_respects_lower_bound_and_optimal():
    r = sgld_privacy(1e4, 100, np.array([10, 100, 1000]), 0.5, 1.0, 1e-6, 1e-6, "valid")
    for T, ep, dp in zip([10, 100, 1000], r["eps_prime"], r["delta_prime"]):
        assert dp >= optimal_delta(float(r["eps_step"]), float(r["delta_step"]), T, ep) * (1 - 1e-12)


def test_bad_inputs():
    with pytest.raises(ValueError, match="tau"):
        sgld_privacy(50, 100, 10, 1.0)
    with pytest.raises(ValueError, match="delta="):
        thm1_failure_probability(0.1, 1.5)
    with pytest.raises(ValueError, match="method='x'"):
        amplify_by_subsampling(1.0, 0.1, "x")


def test_thm3_probability_bound_is_two_eps_over_one_plus_alpha():
    """(α − (e^{−ε}kδ + ε))/(1 + α) with α = ke^{−ε}δ + 3ε equals 2ε/(1+α), written out with the math module."""
    import math

    from dplab.theory.generalization import thm3_probability_bound

    for eps, delta, k in ((0.1, 1e-5, 3), (0.3, 0.0, 1), (0.05, 1e-3, 50)):
        alpha = k * math.exp(-eps) * delta + 3 * eps
        assert thm3_probability_bound(eps, delta, k) == pytest.approx(2 * eps / (1 + alpha), rel=1e-14)


def test_memorizer_probability_against_monte_carlo():
    """Simulate the randomized-response memorizer: 4e5 draws, the exact value inside a 5-sigma binomial interval;
    its mean gap E[R̂ − R] = tanh(ε/2)/2 obeys Theorem 2 (≤ 1 − e^{−ε})."""
    from dplab.theory.generalization import memorizer_probability

    rng = np.random.default_rng(7)
    eps, draws = 0.4, 400_000
    z = rng.integers(0, 2, draws)
    keep = rng.random(draws) < np.exp(eps) / (1 + np.exp(eps))
    h = np.where(keep, z, 1 - z)
    empirical_risk, risk = (h == z).astype(float), 0.5
    for alpha in (0.1, 0.6):
        exact = memorizer_probability(eps, alpha)
        freq = np.mean(empirical_risk <= risk + alpha)
        assert abs(freq - exact) <= 5 * np.sqrt(max(exact * (1 - exact), 1e-12) / draws) + 1e-12
    assert np.mean(empirical_risk) - risk == pytest.approx(np.tanh(eps / 2) / 2, abs=5 / np.sqrt(draws))
    assert np.tanh(eps / 2) / 2 <= thm2_on_average(eps, 1e-12)


def test_composition_iv_epsilon_by_hand_and_valid_against_brute_force():
    """Theorem 5's ε′ written out; at that ε′ the exact δ of the randomized-response product (the worst case of pure
    steps) is at most δ′ on heterogeneous steps."""
    import math

    from dplab.accounting.composition import brute_force_heterogeneous_product_delta
    from dplab.theory.generalization import composition_iv_epsilon

    steps = np.array([0.2, 0.5, 0.1, 0.8, 0.3, 0.4, 0.6, 0.2, 0.7, 0.3])
    target = 0.3
    by_hand = math.sqrt(2 * math.log(1 / target) * sum(e * e for e in steps)) + sum(
        e * (math.exp(e) - 1) / (math.exp(e) + 1) for e in steps
    )
    eps_prime = composition_iv_epsilon(steps, target)
    assert eps_prime == pytest.approx(by_hand, rel=1e-14)
    pairs = [kov_pair(e, 0.0) for e in steps]
    exact = brute_force_heterogeneous_product_delta(
        np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]), eps_prime
    )
    assert 0 < exact <= target


def test_sgld_linear_loss_delta_matches_quadrature():
    """T = 1: δ(ε) = ∫ ((1−q)φ(x) + qφ(x−μ) − e^ε φ(x))_+ dx (the larger order of the pair), by scipy quadrature."""
    import math

    from scipy.integrate import quad
    from scipy.stats import norm

    from dplab.theory.generalization import sgld_linear_loss_delta

    q, mu, eps = 0.01, 2.0, 0.1451
    exact = quad(
        lambda x: max((1 - q) * norm.pdf(x) + q * norm.pdf(x - mu) - math.exp(eps) * norm.pdf(x), 0.0),
        -10,
        20,
        points=[0.0, mu],
        limit=500,
    )[0]
    got = sgld_linear_loss_delta(eps, N=1e4, tau=100, L=1.0, sigma=0.01, steps=1)
    assert got == pytest.approx(exact, rel=1e-3)


def test_lemma4_hoeffding_step_at_the_lemmas_constants_against_mpmath():
    """At (eps, delta) = (0.1, 1e-5): k = ceil(0.1 e^0.1/1e-5) = 11052, N = ceil(N_min) = 2878; the corrected
    (1 - 2e^{-N eps^2/2})^k (mpmath, 50 digits) is >= 1 - eps/8, the printed (1 - e^{-eps^2/(2N)})^k underflows to 0."""
    from dplab.theory.generalization import lemma4_hoeffding_probability, lemma4_sample_size

    mpmath.mp.dps = 50
    k, n = lemma4_sample_size(0.1, 1e-5)
    assert (k, n) == (11052, 2878)
    eps = mpmath.mpf("0.1")
    corrected = (1 - 2 * mpmath.e ** (-n * eps**2 / 2)) ** k
    printed = (1 - mpmath.e ** (-(eps**2) / (2 * n))) ** k
    assert lemma4_hoeffding_probability(0.1, n, k) == pytest.approx(float(corrected), rel=1e-12)
    assert lemma4_hoeffding_probability(0.1, n, k) >= 1 - 0.1 / 8
    assert lemma4_hoeffding_probability(0.1, n, k, "as_printed") == pytest.approx(float(printed), abs=1e-300)
    assert float(printed) < 1e-300


def test_lemma4_corrected_hoeffding_step_misses_one_minus_eps_over_8_by_the_ceiling_of_k():
    """At (0.01, 1e-5): k = 1011 > eps e^eps/delta = 1010.05, so (1 - 2e^{-N eps^2/2})^k = 0.9987496509 (mpmath) is
    below 1 - eps/8 = 0.99875 even with the corrected exponent."""
    from dplab.theory.generalization import lemma4_hoeffding_probability, lemma4_sample_size

    k, n = lemma4_sample_size(0.01, 1e-5)
    assert (k, n) == (1011, 285911)
    assert lemma4_hoeffding_probability(0.01, n, k) == pytest.approx(0.99874965089437468777, rel=1e-13)
    assert lemma4_hoeffding_probability(0.01, n, k) < 1 - 0.01 / 8


def test_composition_certificates_match_direct_formulas():
    """KOV Theorem 3.4's delta' = 1 - (1 - delta)^T (1 - delta~) and the universal floor 1 - (1 - delta)^T, written
    out here, and the certificates of the valid theorems (DRV, KOV, the exact optimum) at least that floor (the
    paper's Corollary 2 falls below it at T = 1000: the study's erratum, not checked here)."""
    from dplab.theory.generalization import composition_certificates

    eps, delta, dt, steps = 0.1, 1e-6, 1e-5, np.array([1, 10, 100, 1000])
    rows = composition_certificates(eps, delta, dt, steps)
    np.testing.assert_allclose(rows["kov"][1], 1 - (1 - delta) ** steps * (1 - dt), rtol=1e-9)
    np.testing.assert_allclose(rows["lower_bound"][1], 1 - (1 - delta) ** steps, rtol=1e-9)
    for method in ("drv", "kov", "optimal_at_kov_eps"):
        assert np.all(rows[method][1] >= rows["lower_bound"][1] * (1 - 1e-12)), method


def test_sgld_step_delta_is_the_gaussian_hockey_stick_closed_form():
    """step_delta_exact against the Gaussian mechanism's delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
    mu = (2L/tau)/sigma, computed here with scipy.stats.norm; every column has one value per T."""
    from scipy.stats import norm

    from dplab.theory.generalization import sgld_privacy_and_generalization

    steps = np.array([10, 100, 1000])
    N, tau, sigma, L = 1000.0, 10, 4.0, 1.0
    columns = sgld_privacy_and_generalization(N, tau, steps, sigma, L, 1e-5, 1e-6, "valid")
    assert {np.shape(v) for v in columns.values()} == {(3,)}
    eps_tilde, mu = float(columns["eps_tilde"][0]), 2 * L / tau / sigma
    expected = norm.cdf(mu / 2 - eps_tilde / mu) - np.exp(eps_tilde) * norm.cdf(-mu / 2 - eps_tilde / mu)
    assert columns["step_delta_exact"][0] == pytest.approx(expected, rel=1e-8, abs=1e-300)


# ----------------------------------------------------------------------------------------------------------------
# The bounds side by side per method (kl_bounds, high_probability_bounds, epsilon_certificates,
# composition_certificate_rows), against the formulas written out
# ----------------------------------------------------------------------------------------------------------------


def test_kl_bounds_written_out():
    from dplab.theory.generalization import kl_bounds

    eps = np.array([0.05, 0.5, 2.0])
    p = np.exp(eps) / (1 + np.exp(eps))
    expected = {
        "lemma5": eps * np.tanh(eps / 2),
        "randomized_response": stats.entropy(np.stack([p, 1 - p]), np.stack([1 - p, p])),
        "dr16": 0.5 * eps * np.expm1(eps),
        "drv10": eps * np.expm1(eps),
    }
    bounds = kl_bounds(eps)
    assert list(bounds) == list(expected)
    for method, values in expected.items():
        np.testing.assert_allclose(bounds[method], values, rtol=1e-12)


def test_high_probability_bounds_written_out():
    from dplab.theory.generalization import high_probability_bounds

    eps, delta = np.array([0.01, 0.1, 0.5]), 1e-6
    b = np.exp(-eps) * delta / eps * np.log(2 / eps)
    expected = {
        "thm1": (9 * eps, b),
        "thm1_intro": (9 * eps, 2 * b),
        "nissim_stemmer": (13 * eps, 2 * delta / eps * np.log(2 / eps)),
        "dwork_2015": (4 * eps, 8 * delta**eps),
    }
    bounds = high_probability_bounds(eps, delta)
    assert list(bounds) == list(expected)
    for method, (a, failure) in expected.items():
        np.testing.assert_allclose(bounds[method][0], a, rtol=1e-12)
        np.testing.assert_allclose(bounds[method][1], failure, rtol=1e-12)


def _pure_composition_delta(eps: float, T: int, eps_prime: float) -> float:
    """δ(ε′) of T-fold randomized response at ε (the worst pure ε-DP pair): E_P[(1 − e^{ε′ − L})_+] with privacy
    loss L = ε(T − 2J), J ~ Binomial(T, 1/(1 + e^ε)) the number of flipped answers."""
    j = np.arange(T + 1)
    loss = eps * (T - 2 * j)
    weights = stats.binom.pmf(j, T, 1 / (1 + np.exp(eps)))
    return float(np.sum(weights * np.clip(1 - np.exp(eps_prime - loss), 0, None)))


@pytest.mark.parametrize(("eps", "T"), [(0.5, 1), (0.3, 4), (0.1, 25)])
def test_epsilon_certificates_basic_and_optimum_against_randomized_response(eps, T):
    from dplab.theory.generalization import epsilon_certificates

    target = 1e-3
    curves = epsilon_certificates(eps, np.array([T]), 1e-5, target)
    assert list(curves) == ["basic", "drv", "kov_thm4", "cor3", "optimal_pure"]
    assert float(np.asarray(curves["basic"]).ravel()[0]) == pytest.approx(T * eps)
    drv = T * eps * np.expm1(eps) + eps * np.sqrt(2 * T * np.log(1e5))
    assert float(np.asarray(curves["drv"]).ravel()[0]) == pytest.approx(drv, rel=1e-12)
    reference = optimize.brentq(lambda e: _pure_composition_delta(eps, T, e) - target, 0.0, T * eps + 1e-9)
    if _pure_composition_delta(eps, T, 0.0) <= target:
        reference = 0.0
    assert curves["optimal_pure"][0] == pytest.approx(reference, abs=1e-8)
    assert curves["optimal_pure"][0] <= float(np.asarray(curves["kov_thm4"]).ravel()[0]) + 1e-12


@pytest.mark.parametrize(("eps", "delta_tilde"), [(-1.0, 1e-5), (0.5, 2.5), (0.5, float("nan"))])
def test_epsilon_certificates_refuses_eps_and_delta_tilde_before_the_exact_optimum(monkeypatch, eps, delta_tilde):
    """The exact optimum loops over every T (tens of ms): bad ε or δ̃ is refused before it runs."""
    from dplab.theory import generalization

    def not_before_the_checks(*args):
        raise AssertionError("the exact optimum ran before eps and delta_tilde were checked")

    monkeypatch.setattr(generalization, "optimal_epsilon", not_before_the_checks)
    with pytest.raises(ValueError, match="eps" if eps < 0 else "delta_tilde"):
        generalization.epsilon_certificates(eps, np.array([1, 10]), delta_tilde, 1e-3)


def test_composition_certificate_rows_written_out():
    from dplab.theory.generalization import composition_certificate_rows

    eps, delta, T, dt = 0.1, 1e-6, 50, 1e-5
    rows = {row["method"]: row for row in composition_certificate_rows(eps, delta, T, dt)}
    assert {"drv", "kov", "cor2", "thm4_box", "lower_bound", "basic", "thm4_literal"} <= set(rows)
    floor = 1 - (1 - delta) ** T
    for row in rows.values():
        assert (row["epsilon_step"], row["delta_step"], row["t"], row["delta_tilde"]) == (eps, delta, T, dt)
        assert row["lower_bound"] == pytest.approx(floor, rel=1e-9)
        assert 10 ** row["log10_lower_bound"] == pytest.approx(floor, rel=1e-9)
        assert row["c"] == min(max(int(np.ceil(row["eps_prime"] / eps - 1e-12)), 0), T)
        theorem = row["method"] not in ("lower_bound", "optimal_at_kov_eps")
        assert row["below_lower_bound"] == (theorem and row["delta_prime"] < floor * (1 - 1e-12))
    assert (rows["basic"]["eps_prime"], rows["basic"]["delta_prime"]) == pytest.approx((T * eps, T * delta))
    drv_eps = T * eps * np.expm1(eps) + eps * np.sqrt(2 * T * np.log(1 / dt))
    assert rows["drv"]["eps_prime"] == pytest.approx(drv_eps, rel=1e-12)
    assert rows["drv"]["delta_prime"] == pytest.approx(T * delta + dt, rel=1e-12)
    assert rows["thm4_literal"]["eps_prime"] == rows["kov"]["eps_prime"]
    # The exact optimal δ at the basic certificate's ε′ = Tε: only the mass 1 − (1 − δ)^T remains.
    assert rows["basic"]["optimal_delta_at_eps_prime"] == pytest.approx(floor, rel=1e-9)


def test_delta_certificate_columns_written_out():
    from dplab.theory.generalization import delta_certificate_columns

    eps, delta, dt, steps = 0.2, 1e-6, 1e-5, np.array([1, 10, 100])
    columns = {c["method"]: c for c in delta_certificate_columns(eps, delta, dt, steps)}
    floor = 1 - (1 - delta) ** steps
    for c in columns.values():
        np.testing.assert_allclose(c["lower_bound"], floor, rtol=1e-9)
        np.testing.assert_allclose(c["delta_prime_over_t_delta"], c["delta_prime"] / (steps * delta), rtol=1e-15)
        np.testing.assert_allclose(10 ** c["log10_delta_prime"], c["delta_prime"], rtol=1e-12)
        assert (c["t"] is steps) and c["epsilon_step"] == eps and c["delta_tilde"] == dt
    np.testing.assert_allclose(columns["drv"]["delta_prime"], steps * delta + dt, rtol=1e-12)
    assert not columns["lower_bound"]["below_lower_bound"].any()
    assert not columns["drv"]["below_lower_bound"].any()


def test_fair_comparison_rows_basic_drv_and_the_pure_optimum():
    from dplab.theory.generalization import fair_comparison_rows

    eps, T, target = 0.3, 4, 1e-3
    rows = {r["method"]: r for r in fair_comparison_rows(eps, 0.0, T, target, 2000)}
    assert rows["basic"]["eps_prime"] == pytest.approx(T * eps)
    drv = T * eps * np.expm1(eps) + eps * np.sqrt(2 * T * np.log(1 / target))
    assert rows["drv"]["eps_prime"] == pytest.approx(drv, rel=1e-12)
    reference = optimize.brentq(lambda e: _pure_composition_delta(eps, T, e) - target, 0.0, T * eps)
    assert rows["optimal"]["eps_prime"] == pytest.approx(reference, abs=1e-8)
    for row in rows.values():
        assert row["finite"] and row["lower_bound"] == 0.0 and row["t"] == T
        if row["method"].startswith("cor"):
            assert row["below_optimal"] == (row["eps_prime"] < reference * (1 - 1e-9))
    # Above the target's reach (T*delta > target) basic composition certifies nothing.
    assert not {r["method"]: r for r in fair_comparison_rows(eps, 1e-3, T, 1e-3, 200)}["basic"]["finite"]
