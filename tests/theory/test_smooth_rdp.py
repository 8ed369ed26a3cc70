"""Smooth RDP theory (Hu, Sanyal, Schölkopf 2024): reference values recomputed independently, Theorem 2 ≤ Table 2,
conversions against the independent grid conversion of dplab.accounting, Rényi divergences against quad."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dplab.accounting.conversions import epsilon_from_rdp_mironov
from dplab.theory import smooth_rdp as s

REL = 1e-3


def close(value, expected, rel=REL):
    return value == pytest.approx(expected, rel=rel)


def test_pca_constants():
    assert close(float(s.pca_tau(101, 1.0)), 12.2)
    assert close(float(s.pca_tau(1000, 1.0)), 12.02002) and close(float(s.pca_tau(10**4, 1.0)), 12.0020)
    assert close(float(s.pca_covariance_perturbation_bound(101)), 0.060396)
    assert float(s.pca_covariance_perturbation_bound(100)) > 6.1 / 100  # the 6.1/n bound needs n >= 101
    assert np.allclose(s.factor_pq2(np.array([11, 5, 2])), [1.05, 1.125, 1.5])


@pytest.mark.parametrize(
    "mechanism, preprocessing, alpha, kwargs, expected, generic_mech, tau",
    [
        ("gaussian", "dedup", 11, dict(p=10), 291.6375, s.gaussian_mechanism(0.5), 10.0),
        ("gaussian", "quantization", 11, dict(p=10, eta=0.1), 5.775, s.gaussian_mechanism(0.5), 1.0),
        ("gaussian", "quantization", 20, dict(p=10, eta=0.1), 10.5, s.gaussian_mechanism(0.5), 1.0),
        ("gaussian", "mean_imputation", 11, dict(p=10, n=1000), 2.88868, s.gaussian_mechanism(0.5), 20 / 990),
        ("dp_gd", "mean_imputation", 11, dict(p=10, n=1000), 11.55118, s.dp_gd_mechanism(0.5), 20 / 990),
        ("laplace", "mean_imputation", 11, dict(p=10, n=1000), 0.51010, s.laplace_mechanism(0.5), 20 / 990),
        ("gaussian", "pca_rank", 11, dict(gap=0.5), 1721.9895, s.gaussian_mechanism(0.5), 24.4),
        ("dp_gd", "pca_rank", 11, dict(gap=0.5), 1730.652, s.dp_gd_mechanism(0.5), 24.4),
        ("dp_sgd_sampling", "pca_rank", 11, dict(gap=0.5), 1782.627, s.dp_sgd_sampling_mechanism(0.5), 24.4),
        ("laplace", "pca_rank", 11, dict(gap=0.5), 12.7, s.laplace_mechanism(0.5), 24.4),
        (
            "dp_sgd_iteration",
            "dedup",
            11,
            dict(p=10, n=1000),
            308.136,
            s.dp_sgd_iteration_mechanism(0.5, 1000, 10),
            10.0,
        ),
    ],
)
def test_table2_cells_and_generic_below(mechanism, preprocessing, alpha, kwargs, expected, generic_mech, tau):
    cell = float(s.table2_cell(mechanism, preprocessing, alpha, 0.5, **kwargs))
    assert close(cell, expected)
    assert float(s.theorem2_rdp(generic_mech, alpha, tau, 2.0)) <= cell * (1 + 1e-12)


@pytest.mark.parametrize(
    "mech, alpha, tau, expected",
    [
        (s.gaussian_mechanism(0.5), 11, 10.0, 291.375),
        (s.gaussian_mechanism(0.5), 11, 1.0, 5.5125),
        (s.gaussian_mechanism(0.5), 20, 1.0, 10.00658),
        (s.dp_sgd_sampling_mechanism(0.5), 11, 24.4, 1774.227),
        (s.dp_sgd_iteration_mechanism(0.5, 1000, 10), 11, 10.0, 293.659),
    ],
)
def test_generic_theorem2_check_values(mech, alpha, tau, expected):
    assert close(float(s.theorem2_rdp(mech, alpha, tau, 2.0)), expected)


def test_generic_below_every_table2_cell_on_a_grid():
    """Theorem 2 with p = q = 2 (and the exact factor) ≤ every closed-form cell (SGD-iter only for n − p ≥ 4)."""
    eps, n = 0.7, 400
    for alpha in (11.0, 20.0, 64.0):
        for p in (1, 5, 50, 396):
            for eta in (0.01, 0.3):
                for gap in (0.1, 0.9):
                    cases = {
                        ("gaussian", "dedup"): (s.gaussian_mechanism(eps), p),
                        ("gaussian", "quantization"): (s.gaussian_mechanism(eps), eta * p),
                        ("gaussian", "mean_imputation"): (s.gaussian_mechanism(eps), 2 * p / (n - p)),
                        ("gaussian", "pca_rank"): (s.gaussian_mechanism(eps), 12.2 / gap),
                        ("dp_gd", "dedup"): (s.dp_gd_mechanism(eps), p),
                        ("dp_gd", "quantization"): (s.dp_gd_mechanism(eps), eta * p),
                        ("dp_gd", "mean_imputation"): (s.dp_gd_mechanism(eps), 2 * p / (n - p)),
                        ("dp_gd", "pca_rank"): (s.dp_gd_mechanism(eps), 12.2 / gap),
                        ("laplace", "dedup"): (s.laplace_mechanism(eps), p),
                        ("laplace", "quantization"): (s.laplace_mechanism(eps), eta * p),
                        ("laplace", "mean_imputation"): (s.laplace_mechanism(eps), 2 * p / (n - p)),
                        ("laplace", "pca_rank"): (s.laplace_mechanism(eps), 12.2 / gap),
                        ("dp_sgd_sampling", "pca_rank"): (s.dp_sgd_sampling_mechanism(eps), 12.2 / gap),
                        ("dp_sgd_iteration", "dedup"): (s.dp_sgd_iteration_mechanism(eps, n, p), p),
                        ("dp_sgd_iteration", "quantization"): (s.dp_sgd_iteration_mechanism(eps, n, p), eta * p),
                        ("dp_sgd_iteration", "mean_imputation"): (
                            s.dp_sgd_iteration_mechanism(eps, n, p),
                            2 * p / (n - p),
                        ),
                    }
                    for (mech_name, pre), (mech, tau) in cases.items():
                        cell = float(s.table2_cell(mech_name, pre, alpha, eps, p=p, eta=eta, n=n, gap=gap))
                        generic = float(s.theorem2_rdp(mech, alpha, tau, 2.0))
                        exact = float(s.theorem2_rdp_pq2(mech, alpha, tau))
                        assert generic <= cell * (1 + 1e-12), (mech_name, pre, alpha, p)
                        assert exact <= cell * (1 + 1e-12), (mech_name, pre, alpha, p)


def test_sgd_iteration_cell_below_generic_when_n_minus_p_small():
    """Table 2: the SGD-iter cell fails 'generic ≤ closed form' for n − p ≤ 3 (1.594e8 vs 1.672e8)."""
    cell = float(s.table2_cell("dp_sgd_iteration", "dedup", 11, 0.5, p=997, n=1000))
    generic = float(s.theorem2_rdp(s.dp_sgd_iteration_mechanism(0.5, 1000, 997), 11, 997.0, 2.0))
    assert close(cell, 1.594e8, 1e-3) and close(generic, 1.672e8, 1e-3) and cell < generic


def test_lemma_m():
    assert close(float(s.rdp_to_dp_linear(0.5, 1e-3)), 4.21692)
    eps, alpha = s.rdp_to_dp(s.gaussian_mechanism(1.0).rdp, 1e-3)
    assert close(eps, 4.21692) and close(alpha, 4.717)
    eps, alpha = s.rdp_to_dp(s.gaussian_mechanism(1.0).rdp, 1e-5)
    assert close(eps, 5.29853) and close(alpha, 5.799)
    assert close(float(s.rdp_to_dp_linear(2 * 0.1**2, 1e-5)), 0.97971)


@pytest.mark.parametrize(
    "c, delta, alpha_min", [(0.02, 1e-5, 1.0), (3.0, 1e-3, 1.0), (0.5, 1e-6, 11.0), (1e-4, 1e-5, 11.0)]
)
def test_linear_conversion_matches_grid_conversion_and_inverts(c, delta, alpha_min):
    orders = np.concatenate([np.linspace(max(alpha_min, 1.0001), 50, 200001), np.linspace(50, 5e4, 200001)])
    reference = epsilon_from_rdp_mironov(delta, orders, c * orders)
    assert close(float(s.rdp_to_dp_linear(c, delta, alpha_min)), reference, 1e-6)
    target = float(s.rdp_to_dp_linear(c, delta, alpha_min))
    assert close(s.linear_rdp_coefficient_for_epsilon(target, delta, alpha_min), c, 1e-8)


def test_figure2_points():
    n = 100
    for frac, srdp, group in ((0.1, 12.81, 87.17), (0.5, 58.44, 1435.9), (0.9, 3754.4, 4384.5), (0.98, 110938, 5166.3)):
        p = round(frac * n)
        assert close(float(s.table2_gaussian_dp(2 * p / (n - p), 1.0, 1e-3)), srdp)
        assert close(float(s.group_privacy_gaussian_dp(p, 1.0, 1e-3)), group)
    assert close(float(s.table2_gaussian_dp(12.2, 1.0, 1e-3)), 1731.34)
    for n_, g in ((101, 5475.9), (1000, 503717), (10**4, 5.0e7)):
        assert close(float(s.group_privacy_gaussian_dp(n_, 1.0, 1e-3)), g, 2e-3)
    for eta, srdp in ((0.01, 23.79), (0.1, 1167.2), (1.0, 115512)):
        assert close(float(s.table2_gaussian_dp(eta * 100, 1.0, 1e-3)), srdp)
    assert close(float(s.group_privacy_gaussian_dp(100, 1.0, 1e-3)), 5371.7)


def test_optimised_theorem2():
    g = s.gaussian_mechanism(1.0)
    result = s.theorem2_dp_optimised(g, 12.2, 1e-3)
    assert (
        close(result["epsilon"], 214.18) and close(result["alpha"], 1.2147, 1e-2) and close(result["p"], 1.1768, 1e-2)
    )
    assert close(s.theorem2_dp_optimised(g, 12.2, 1e-3, separate_pq=True)["epsilon"], 136.18)
    eps_pq2, _ = s.rdp_to_dp(lambda a: s.theorem2_rdp_pq2(g, a, 12.2), 1e-3)
    assert close(eps_pq2, 446.2)


def _eq3_terms_written_out(rdp_coef, srdp_coef, alpha, tau, p, q):
    """Eq. (3)'s two terms for RDP rdp_coef·α and SRDP srdp_coef·τ²·α, written out here (not the library's)."""
    first = (alpha * p - 1) / (p * (alpha - 1)) * srdp_coef * tau**2 * alpha * p + rdp_coef * (p * alpha - 1) / (p - 1)
    second = (alpha * q - 1) / (q * (alpha - 1)) * rdp_coef * alpha * q + srdp_coef * tau**2 * (q * alpha - 1) / (q - 1)
    return first, second


#: SGD by iteration's SRDP coefficient at n = 1000, κ = 10, ε = 0.5: ε²·n·log(n − κ + 2)/(2(n − κ + 1)·log n)
_ITERATION_SRDP = 0.25 * 1000 * math.log(992) / (2 * 991 * math.log(1000))

#: (mechanism, a, b): RDP aα and SRDP bτ²α, the coefficients written out here from Table 1
_LINEAR_MECHANISMS = [
    (s.gaussian_mechanism(1.0), 0.5, 0.5),
    (s.gaussian_mechanism(0.3), 0.045, 0.045),
    (s.gaussian_mechanism(0.3, L=2.0, sensitivity=0.5), 0.045, 0.045 * 16),
    (s.dp_gd_mechanism(0.5), 0.5, 0.125),
    (s.dp_gd_mechanism(0.5, L=2.0, mu=3.0, variant="as_printed"), 0.125, 0.125 * 9 / 4),
    (s.dp_sgd_iteration_mechanism(0.5, 1000, 10), 0.125, _ITERATION_SRDP),
]


def _separate_pq_exponents(rdp_coef, srdp_coef, alpha, tau):
    """The minimisers p − 1 = √(a/b)(α−1)/α, q − 1 = √(b/a)(α−1)/α (a, b > 0)."""
    ratio = math.sqrt(rdp_coef / (srdp_coef * tau**2))
    return 1 + ratio * (alpha - 1) / alpha, 1 + (alpha - 1) / (alpha * ratio)


@pytest.mark.parametrize(("mechanism", "rdp_coef", "srdp_coef"), _LINEAR_MECHANISMS)
@pytest.mark.parametrize(("alpha", "tau"), [(11.0, 12.2), (1.5, 0.3), (3.0, 1.0), (200.0, 42.0), (1.01, 2.0)])
def test_theorem2_separate_pq_against_a_brute_force_grid_and_the_closed_form(
    mechanism, rdp_coef, srdp_coef, alpha, tau
):
    """Theorem 2 with p and q separate, for mechanisms declared linear in α (closed form α(√a + √b)², b = bτ²):
    (i) the closed form written out here; (ii) eq. (3) written out here, and the library's eq. (3), at the closed
    form's admissible exponents p, q > 1; (iii) the numerical minimisation (log grid and golden section), to round-off
    and never below; (iv) a brute-force 2-D grid over (p, q) of eq. (3): the closed form is never above the grid
    minimum and within its resolution of it; (v) never above p = q."""
    a, b = rdp_coef, srdp_coef * tau**2
    value = float(s.theorem2_rdp_separate_pq(mechanism, alpha, tau))
    assert value == pytest.approx(alpha * (math.sqrt(a) + math.sqrt(b)) ** 2, rel=1e-12)
    p, q = _separate_pq_exponents(rdp_coef, srdp_coef, alpha, tau)
    assert p > 1 and q > 1
    at_optimum = _eq3_terms_written_out(rdp_coef, srdp_coef, alpha, tau, p, q)
    assert at_optimum == pytest.approx((value, value), rel=1e-12)
    assert float(s.theorem2_rdp(mechanism, alpha, tau, p, q)) == pytest.approx(value, rel=1e-12)
    numerical = float(s._theorem2_rdp_separate_pq_numerical(mechanism, np.asarray(alpha), np.asarray(tau)))
    assert numerical == pytest.approx(value, rel=1e-13) and numerical >= value * (1 - 1e-14)
    exponents = 1 + np.exp(np.linspace(-12, 8, 4001))
    first, second = _eq3_terms_written_out(rdp_coef, srdp_coef, alpha, tau, exponents[:, None], exponents[None, :])
    grid = float(np.min(np.maximum(first, second)))
    assert value <= grid * (1 + 1e-12) and value == pytest.approx(grid, rel=1e-5)
    same = float(np.min(np.maximum(*_eq3_terms_written_out(rdp_coef, srdp_coef, alpha, tau, exponents, exponents))))
    assert value <= same * (1 + 1e-12)


@pytest.mark.parametrize(("mechanism", "rdp_coef", "srdp_coef"), _LINEAR_MECHANISMS)
def test_theorem2_separate_pq_at_tau_zero_is_the_infimum_of_eq3(mechanism, rdp_coef, srdp_coef):
    """τ = 0 (b = 0): the infimum αa of both terms of eq. (3), approached as p → ∞ and q → 1 and not attained (every
    admissible (p, q) gives more); the numerical minimisation stops slightly above it (its grid ends at p − 1 = e³⁰,
    q − 1 = e⁻³⁰)."""
    alphas = np.array([1.01, 1.5, 11.0, 200.0])
    value = s.theorem2_rdp_separate_pq(mechanism, alphas, 0.0)
    np.testing.assert_allclose(value, rdp_coef * alphas, rtol=1e-15)
    numerical = s._theorem2_rdp_separate_pq_numerical(mechanism, alphas, np.asarray(0.0))
    assert np.all(numerical > value) and np.all(numerical <= value * (1 + 1e-10))
    for p_minus_1, q_minus_1 in ((1e3, 1e-3), (1e6, 1e-6)):
        first, second = _eq3_terms_written_out(rdp_coef, srdp_coef, alphas, 0.0, 1 + p_minus_1, 1 + q_minus_1)
        np.testing.assert_allclose(first - value, rdp_coef * (alphas - 1) / p_minus_1, rtol=1e-6)
        np.testing.assert_allclose(second - value, rdp_coef * alphas**2 * q_minus_1 / (alphas - 1), rtol=1e-6)


@pytest.mark.parametrize(
    ("rdp_coef", "srdp_coef", "alpha", "tau"),
    [(0.5, 0.5, 11.0, 12.2), (0.125, _ITERATION_SRDP, 1.01, 0.3), (2.0, 0.0625, 250.0, 3.0), (0.5, 0.5, 2.0, 1e-4)],
)
def test_theorem2_separate_pq_closed_form_against_mpmath(rdp_coef, srdp_coef, alpha, tau):
    """Each term of eq. (3) minimised over its exponent by mpmath (50 digits): the root of its derivative in
    log(p − 1) (findroot from p − 1 = 1) is the closed form's exponent, its value α(√a + √b)², the second derivative
    is positive there; the library's closed form agrees to float64 round-off."""
    mpmath = pytest.importorskip("mpmath")
    p_star, q_star = _separate_pq_exponents(rdp_coef, srdp_coef, alpha, tau)
    with mpmath.workdps(50):
        a, b, al, t = (mpmath.mpf(v) for v in (rdp_coef, srdp_coef, alpha, tau))
        expected = al * (mpmath.sqrt(a) + mpmath.sqrt(b * t**2)) ** 2
        for k, star in enumerate((p_star, q_star)):

            def term(u, k=k):
                exponent = 1 + mpmath.exp(u)
                return _eq3_terms_written_out(a, b, al, t, exponent, exponent)[k]

            root = mpmath.findroot(lambda u, term=term: mpmath.diff(term, u), mpmath.mpf(0))
            assert float(mpmath.exp(root)) == pytest.approx(star - 1, rel=1e-12)
            assert abs(term(root) / expected - 1) < mpmath.mpf(10) ** -40
            assert mpmath.diff(term, root, 2) > 0
        expected = float(expected)
    mechanism = s.Mechanism.linear_in_alpha("linear", rdp_coef, srdp_coef, "", "")
    assert float(s.theorem2_rdp_separate_pq(mechanism, alpha, tau)) == pytest.approx(expected, rel=4e-16)


def test_theorem2_separate_pq_gaussian_numbers_and_its_dp_curve():
    """At τ = 12.2, ε = 1, δ = 1e-3: RDP α(1 + τ)²/2 = 87.12α against αε²(1 + τ²) = 149.84α with p = q (the p = q
    minimax, at p − 1 = (α − 1)/α); Lemma M: 136.18 against 214.18 (the p = q optimum), both in closed form
    c + 2√(c log(1/δ)); p = q minimised on a grid never beats αε²(1 + τ²)."""
    g, tau, log_inv = s.gaussian_mechanism(1.0), 12.2, math.log(1e3)
    alphas = np.array([1.2, 2.0, 11.0, 100.0])
    np.testing.assert_allclose(s.theorem2_rdp_separate_pq(g, alphas, tau), alphas * (1 + tau) ** 2 / 2, rtol=1e-10)
    same = np.min(s.theorem2_rdp(g, alphas[:, None], tau, 1 + np.exp(np.linspace(-8, 8, 8001))), axis=1)
    minimax = 1 + (alphas - 1) / alphas
    np.testing.assert_allclose(s.theorem2_rdp(g, alphas, tau, minimax), alphas * (1 + tau**2), rtol=1e-12)
    assert np.all(same >= alphas * (1 + tau**2) * (1 - 1e-12))
    eps_separate, _ = s.rdp_to_dp(lambda a: s.theorem2_rdp_separate_pq(g, a, tau), 1e-3)
    c = (1 + tau) ** 2 / 2
    assert eps_separate == pytest.approx(c + 2 * math.sqrt(c * log_inv), rel=1e-9) and close(eps_separate, 136.18)
    c_same = 1 + tau**2
    assert close(c_same + 2 * math.sqrt(c_same * log_inv), 214.18)
    assert eps_separate == pytest.approx(s.theorem2_dp_optimised(g, tau, 1e-3, separate_pq=True)["epsilon"], rel=1e-6)
    laplace = s.laplace_mechanism(0.5)
    assert float(s.theorem2_rdp_separate_pq(laplace, 11.0, tau)) == float(s.theorem2_rdp(laplace, 11.0, tau, 2.0))


def test_theorem7():
    r = s.theorem7_epsilon(0.1, 1.0, 1e-5)
    assert close(r["rho"], 1.57332) and close(r["eps_hat"], 12.768) and close(r["total"], 12.868)
    assert close(r["alpha"], 3.705) and close(r["eps_hat_exact_lemma_m"], 10.085)
    assert s.theorem7_delta_condition(0.1, 1.0, 1e-5) and close(math.exp(-r["rho"]), 0.207, 5e-3)
    r = s.theorem7_epsilon(0.01, 1.0, 1e-5)
    assert close(r["eps_hat"], 1.2768) and close(r["total"], 1.2868) and close(r["alpha"], 28.05)


def test_theorem7_corrected_below_printed_for_large_n():
    corrected = s.theorem7_epsilon_corrected(0.1, 1.0, 1e-5, 10**4)
    assert corrected["total"] < s.theorem7_epsilon(0.1, 1.0, 1e-5)["total"]


def test_prop8():
    assert close(s.prop8_failure_probability(10**4, 1.0, 1e-5, 0.6, 0.5, "log1"), 1.262e-31)
    assert close(s.prop8_failure_probability(10**4, 1.0, 1e-5, 0.6, 0.5, "log2"), 2.524e-31)
    # the printed gamma is 6442 here: a failure probability bound of 1 or more certifies nothing, so 1
    assert s.prop8_failure_probability(1000, 0.5, 1e-5, 0.55, 0.5, "log1") == 1.0


@pytest.mark.parametrize(
    ("n", "eps", "delta", "gap", "beta"),
    [(10**4, 1.0, 1e-5, 0.6, 0.5), (10**4, 1.0, 1e-5, 0.1, 1.0), (1000, 0.5, 1e-5, 0.55, 0.5), (10**6, 50.0, 1e-5, 2.0, 1.0),
     (101, 0.1, 0.9, 0.5, 0.49), (10**9, 1e3, 1e-300, 1e-3, 2e-3)],
)  # fmt: skip
@pytest.mark.parametrize("threshold", ["log1", "log2"])
def test_prop8_failure_probability_against_mpmath_capped_at_one(n, eps, delta, gap, beta, threshold):
    """Issue 26: with delta_k(S) < beta and n eps large, math.exp overflowed (OverflowError at (1e4, 1, 1e-5, 0.1, 1)).
    Reference: min(1, gamma) in mpmath, and 1 outside Prop. 8's hypothesis beta <= delta_k(S)."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        prefactor = 1 / (mpmath.mpf(2 if threshold == "log1" else 1) * mpmath.mpf(delta))
        gamma = prefactor * mpmath.exp(-(mpmath.mpf(gap) - mpmath.mpf(beta)) * n * mpmath.mpf(eps) / mpmath.mpf("12.2"))
        expected = 1.0 if gap < beta else float(min(gamma, 1))
    assert s.prop8_failure_probability(n, eps, delta, gap, beta, threshold) == pytest.approx(expected, rel=1e-13)


def test_sgd_iteration_exact_constant():
    n, eps = 10**4, 1.0
    sigma = math.sqrt(2 * math.log(n) / n) * 8 / eps
    assert close(sigma, 0.343355)
    assert close(4 * math.log(n) / (n * sigma**2), 0.03125)
    assert close(float(s.dp_sgd_iteration_mechanism(eps, n, 5, variant="exact").rdp(1.0)), 0.03125)


def test_sensitivities():
    assert close(float(s.pca_rank_delta2(1000, 0.5)), 0.024040) and close(float(s.pca_dim_delta2(1000, 0.5)), 0.048080)
    d2, dinf = s.mean_imputation_sensitivity(100, 90)
    assert close(d2, 0.2) and dinf * d2 == pytest.approx(18)
    assert close(float(s.linear_regression_imputation_sensitivity(100, 10)), 1.090099)
    assert s.dedup_sensitivity(7) == (1.0, 14) and s.dedup_sensitivity(7, "add_remove") == (1.0, 7)
    assert s.quantization_sensitivity(0.1, 3) == (0.1, 6)


def test_remark1_lemma2():
    assert close(s.remark1_factor(100, "paper_k")[0], 0.13477) and s.remark1_factor(100, "paper_k")[0] <= 2 / math.sqrt(
        100
    )
    value, k = s.remark1_factor(100)
    assert close(value, 0.076389) and k == 6
    assert close(s.lemma2_subsampled_srdp(lambda a, t: 0.01 * a * t**2 / 2, 2, 1, 1000, 1, 10), 3.782e-4)


def _renyi_quad(alpha, p, q):
    f = lambda x: math.exp(alpha * p.logpdf(x) + (1 - alpha) * q.logpdf(x))  # noqa: E731
    return math.log(integrate.quad(f, -60, 60, points=[0, 2.5], limit=200)[0]) / (alpha - 1)


def test_gaussian_rdp_against_quad_and_weak_triangle():
    """Table 1 Gaussian row vs a quad Rényi divergence, and Lemma J on three Gaussians (exact divergences)."""
    eps = 0.8
    g = s.gaussian_mechanism(eps)
    sigma = 1 / eps
    for alpha in (1.5, 3.0, 7.0):
        assert close(_renyi_quad(alpha, stats.norm(0, sigma), stats.norm(1, sigma)), float(g.rdp(alpha)), 1e-6)
        assert close(_renyi_quad(alpha, stats.norm(0, sigma), stats.norm(2.5, sigma)), float(g.srdp(alpha, 2.5)), 1e-6)

    def D(a, m):  # noqa: E306
        return a * m**2 / (2 * sigma**2)

    for alpha, p in ((2.0, 2.0), (5.0, 1.3), (11.0, 4.0)):
        q = p / (p - 1)
        lhs = D(alpha, 3.0)
        rhs = (alpha - 1 / p) / (alpha - 1) * D(p * alpha, 2.0) + D(q * (alpha - 1 / p), 1.0)
        assert lhs <= rhs


def test_dp_gd_statement_vs_proof_and_mechanism_variants():
    assert float(s.dp_gd_mechanism(0.5).rdp(3.0)) == pytest.approx(2 * 3 * 0.25)
    assert float(s.dp_gd_mechanism(0.5, variant="as_printed").rdp(3.0)) == pytest.approx(3 * 0.25 / 2)
    printed = s.dp_sgd_iteration_mechanism(0.5, 100, 3, variant="as_printed")
    corrected = s.dp_sgd_iteration_mechanism(0.5, 100, 3)
    assert float(printed.srdp(2.0, 1.0)) * 0.25 == pytest.approx(float(corrected.srdp(2.0, 1.0)))


@pytest.mark.parametrize(
    "call",
    [
        lambda: s.gaussian_mechanism(0.0),
        lambda: s.gaussian_mechanism(-1.0),
        lambda: s.quantization_sensitivity(0.0, 3),
        lambda: s.quantization_sensitivity(-0.1, 3),
        lambda: s.mean_imputation_sensitivity(10, 10),
        lambda: s.theorem2_rdp(s.gaussian_mechanism(1.0), 1.0, 1.0, 2.0),
        lambda: s.theorem2_rdp(s.gaussian_mechanism(1.0), 2.0, 1.0, 1.0),
        lambda: s.table2_cell("gaussian", "dedup", 5, 0.5, p=3),
        lambda: s.table2_cell("dp_sgd_sampling", "dedup", 11, 0.5, p=3),
        lambda: s.pca_rank_delta2(100, 0.0),
    ],
)
def test_bad_input_raises(call):
    with pytest.raises(ValueError):
        call()


def test_bad_input_message_names_value():
    with pytest.raises(ValueError, match=r"eta=-0.1 must be a finite number > 0|eta=-0.1"):
        s.quantization_sensitivity(-0.1, 3)


def _evaluate_formula(formula: str, **values: float) -> float:
    """Evaluate a printed plain-text formula of Table 1 or 2 (Greek letters, ², ³, ·, −, a/b, implicit products,
    ``log x``) at the symbol values, independently of the library's closed forms."""
    import re

    text = formula
    for symbol, name in (
        ("κ_τ", " kappa "),
        ("Δ_f", " sensitivity "),
        ("Δ_Q", " sensitivity "),
        ("γ", " gamma "),
        ("α", " alpha "),
        ("τ", " tau "),
        ("μ", " mu "),
        ("ε", " eps "),
        ("η", " eta "),
        ("δ", " gap "),
        ("²", "**2"),
        ("³", "**3"),
        ("·", " "),
        ("−", "-"),
    ):
        text = text.replace(symbol, name)
    text = re.sub(r"log\s+(\w+)", r"log(\1)", text)
    tokens = re.findall(r"\*\*|[A-Za-z]+|\d+\.\d+|\d+|[()+\-/]", text)
    expression = ""
    for left, right in zip([""] + tokens, tokens):
        operand_end = re.fullmatch(r"[A-Za-z]+|[\d.]+|\)", left) and left != "log"
        operand_start = re.fullmatch(r"[A-Za-z]+|[\d.]+|\(", right)
        expression += ("*" if operand_end and operand_start else "") + right
    return float(eval(expression, {"log": math.log}, values))  # noqa: S307


@pytest.mark.parametrize("variant", ["corrected", "as_printed", "exact"])
def test_sgd_iteration_printed_formulas_give_the_values(variant: str) -> None:
    """Table 1's SGD-by-iteration row: the printed RDP and SRDP formulas evaluate to the values the row reports
    (issue 17: the 'exact' row printed the /2 formula next to a /32 value)."""
    eps, n, kappa, alpha, tau = 0.5, 1000, 10, 11.0, 1.3
    mech = s.dp_sgd_iteration_mechanism(eps, n, kappa, variant=variant)
    symbols = dict(eps=eps, n=n, kappa=kappa, alpha=alpha, tau=tau, mu=1.0, L=1.0)
    assert _evaluate_formula(mech.rdp_formula, **symbols) == pytest.approx(float(mech.rdp(alpha)), rel=1e-12)
    assert _evaluate_formula(mech.srdp_formula, **symbols) == pytest.approx(float(mech.srdp(alpha, tau)), rel=1e-12)


_TABLE1_SYMBOLS = dict(eps=0.7, L=1.5, sensitivity=0.8, mu=1.3, gamma=2.5, n=1000, kappa=10)


@pytest.mark.parametrize(
    ("mechanism", "linear"),
    [
        (s.gaussian_mechanism(0.7, L=1.5, sensitivity=0.8), True),
        (s.laplace_mechanism(0.7, L=1.5, sensitivity=0.8), False),
        (s.exponential_mechanism(0.7, L=1.5, sensitivity=0.8), False),
        (s.dp_gd_mechanism(0.7, L=1.5, mu=1.3), True),
        (s.dp_gd_mechanism(0.7, L=1.5, mu=1.3, variant="as_printed"), True),
        (s.dp_sgd_sampling_mechanism(0.7, L=1.5, mu=1.3, gamma=2.5), False),
        (s.dp_sgd_iteration_mechanism(0.7, 1000, 10, L=1.5, mu=1.3), True),
        (s.dp_sgd_iteration_mechanism(0.7, 1000, 10, L=1.5, mu=1.3, variant="exact"), True),
        (s.dp_sgd_iteration_mechanism(0.7, 1000, 10, L=1.5, mu=1.3, variant="as_printed"), True),
    ],
)
def test_table1_curves_follow_the_printed_formulas_and_declare_linearity(mechanism, linear):
    """Every Table 1 mechanism (non-default L, Δ, μ, γ): its RDP and SRDP curves evaluate the printed formulas; exactly
    the rows whose formulas are linear in α (Gaussian, DP-GD, SGD by iteration) declare ``linear``, with coefficients
    that give the printed values (ε(α) = rdp·α, ε̃(α, τ) = srdp·τ²·α)."""
    assert (mechanism.linear is not None) == linear
    for alpha, tau in ((1.5, 0.0), (2.0, 0.3), (11.0, 12.2), (300.0, 2.0)):
        symbols = dict(_TABLE1_SYMBOLS, alpha=alpha, tau=tau)
        rdp, srdp = (
            _evaluate_formula(mechanism.rdp_formula, **symbols),
            _evaluate_formula(mechanism.srdp_formula, **symbols),
        )
        assert float(mechanism.rdp(alpha)) == pytest.approx(rdp, rel=1e-13)
        assert float(mechanism.srdp(alpha, tau)) == pytest.approx(srdp, rel=1e-13, abs=0.0)
        if linear:
            assert float(mechanism.linear.rdp) * alpha == pytest.approx(rdp, rel=1e-13)
            assert float(mechanism.linear.srdp) * tau**2 * alpha == pytest.approx(srdp, rel=1e-13, abs=0.0)


def test_linear_in_alpha_refuses_non_positive_coefficients():
    with pytest.raises(ValueError, match="srdp"):
        s.Mechanism.linear_in_alpha("x", 0.5, -1.0, "", "")
    with pytest.raises(ValueError, match="rdp"):
        s.Mechanism.linear_in_alpha("x", float("nan"), 1.0, "", "")


# ------------------------------------------------------------------- Lemma 3, eq. (18), Prop. 8, eq. (48)


def test_lemma3_exact_cni_is_the_sum_of_gaussian_divergences():
    """Lemma I with shifts a_i = eta tau mu/(T - t + 1) for i >= t: the sum of alpha a_i^2/(2 eta^2 sigma^2)
    (accounting.gaussian_rdp per step, an independent closed form) equals the "exact_cni" variant."""
    from dplab.accounting.conversions import gaussian_rdp

    alpha, tau, sigma, eta, mu, steps, first = 3.0, 0.7, 1.3, 0.1, 2.0, 40, 11
    shift = eta * tau * mu / (steps - first + 1)
    reference = sum(float(gaussian_rdp(alpha, shift, eta * sigma)) for _ in range(first, steps + 1))
    value = s.lemma3_fgd_rdp(alpha, tau, sigma, steps, first, 100, mu=mu, variant="exact_cni")
    assert value == pytest.approx(reference, rel=1e-12)
    assert s.lemma3_fgd_rdp(alpha, tau, sigma, steps, first, 100, mu=mu) == pytest.approx(4 * value)
    printed = s.lemma3_fgd_rdp(alpha, tau, sigma, steps, first, 100, mu=mu, variant="as_printed")
    assert printed == pytest.approx(2 * alpha * tau**2 / (sigma**2 * 90))


def test_theorem13_step_b_is_twice_the_printed_step():
    alphas = np.array([2.0, 5.0])
    printed = s.theorem13_step_rdp(alphas, 0.3, 100)
    assert np.allclose(s.theorem13_step_rdp(alphas, 0.3, 100, "step_b"), 2 * printed)
    assert np.allclose(printed, alphas**2 * 0.09 / 200)


@pytest.mark.parametrize(("relation", "multiplier"), [("add_remove", 1.0), ("replace_one", 4.0)])
def test_dp_accounting_rdp_of_theorem13_reduces_to_the_gaussian_without_subsampling(relation, multiplier):
    """n = 1 (every step uses the one point): T alpha/(2 z^2) with z = sqrt(cT)/eps (add/remove, sensitivity L), 4x
    that under replace-one (sensitivity 2L)."""
    orders, eps, steps, c = np.array([2.0, 3.5, 8.0]), 0.7, 9, 1.5
    z2 = c * steps / eps**2
    expected = multiplier * steps * orders / (2 * z2)
    got = s.dp_sgd_sampling_rdp_dp_accounting(orders, eps, steps, 1, c, relation)
    assert np.allclose(got, expected, rtol=1e-9)


def test_prop8_terms_and_eq48_probability():
    first, second = s.prop8_excess_risk_terms(1000, 2.0, 1e-5, 3, 0.02, L=1.5)
    assert first == pytest.approx(1.5 * math.sqrt(1 + 3 * math.log(1e5)) / 2000)
    assert second == pytest.approx(0.06)
    # Pr[Lap(b) > t] = exp(-t/b)/2 with b = 1/eps, t = log(2/delta)/eps: delta/4 at every eps
    for eps in (0.1, 1.0, 10.0):
        assert s.laplace_test_release_probability(eps, 1e-4) == pytest.approx(2.5e-5, rel=1e-12)


def test_gaussian_mixture_renyi_against_closed_form_and_quadrature():
    """One component each: alpha (mu0 - mu1)^2/(2 sigma^2) (Lemma C); equal mixtures: 0; a two-component case
    against scipy.integrate.quad of p^alpha q^(1-alpha)."""
    assert s.gaussian_mixture_renyi(3.0, [0.0], [0.5], 0.7) == pytest.approx(3 * 0.25 / (2 * 0.49), rel=1e-9)
    assert s.gaussian_mixture_renyi(2.0, [0.0, 1.0], [1.0, 0.0], 0.3) == pytest.approx(0.0, abs=1e-10)
    alpha, p, q, sigma = 2.5, [0.0, 0.0], [0.0, 1.2], 0.8

    def density(x, means):
        return np.mean([stats.norm.pdf(x, m, sigma) for m in means])

    value, _ = integrate.quad(lambda x: density(x, p) ** alpha * density(x, q) ** (1 - alpha), -10, 12, limit=200)
    assert s.gaussian_mixture_renyi(alpha, p, q, sigma) == pytest.approx(math.log(value) / (alpha - 1), rel=1e-7)


# ---------------------------------------------------------------- Theorems 10 and 11, Theorem 7 step (a), Prop. 8


def test_laplace_mechanism_divergence_is_the_laplace_shift_divergence():
    # Lap(Δ/ε) noise, f moved by c: D_α(Lap(c, Δ/ε) ‖ Lap(0, Δ/ε)) by quadrature of the definition.
    eps, change, sens, alpha = 0.8, 1.5, 2.0, 3.0
    scale = sens / eps

    def integrand(x):
        return np.exp(-(alpha * abs(x - change) + (1 - alpha) * abs(x)) / scale) / (2 * scale)

    integral = sum(integrate.quad(integrand, a, b)[0] for a, b in ((-60, 0), (0, change), (change, 60)))
    assert float(s.laplace_mechanism_divergence(alpha, eps, change, sens)) == pytest.approx(
        math.log(integral) / (alpha - 1), rel=1e-9
    )
    assert float(s.laplace_mechanism_divergence(math.inf, eps, change, sens)) == pytest.approx(change * eps / sens)


def test_theorem7_step_a_variants():
    rho = s.theorem7_rho(0.04, 0.3)
    corrected = s.theorem7_step_a(0.04, 0.3, 1e-5)
    assert corrected == pytest.approx(s.theorem7_epsilon(0.04, 0.3, 1e-5)["eps_hat_exact_lemma_m"], rel=1e-14)
    assert s.theorem7_step_a(0.04, 0.3, 1e-5, variant="as_printed") - corrected == pytest.approx(rho / 0.04 - rho)
    assert s.theorem7_step_a(1.0, 0.3, 1e-5, variant="as_printed") == pytest.approx(s.theorem7_step_a(1.0, 0.3, 1e-5))


def test_pca_mean_residual_norm_jensen_and_equal_residuals():
    tail = 0.01
    realised, recomputed = s.pca_mean_residual_norm(s.equal_residual_dataset(tail), 1)
    assert realised == pytest.approx(0.1, rel=1e-12) and recomputed == pytest.approx(tail, rel=1e-12)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5)) * np.array([1.0, 0.5, 0.2, 0.1, 0.05]) / 3
    for k in (1, 2, 3):
        mean_norm, lam = s.pca_mean_residual_norm(X, k)
        eigenvalues = np.sort(np.linalg.eigvalsh(X.T @ X / 200))[::-1]
        assert lam == pytest.approx(eigenvalues[k:].sum(), rel=1e-10)
        assert mean_norm <= math.sqrt(lam) * (1 + 1e-12)  # Jensen
    with pytest.raises(ValueError):
        s.equal_residual_dataset(0.9)


def test_prop8_first_term_lemma_o_variant():
    printed, _ = s.prop8_excess_risk_terms(1000, 1.0, 1e-5, 1, 0.0)
    lemma_o, _ = s.prop8_excess_risk_terms(1000, 1.0, 1e-5, 1, 0.0, variant="lemma_o")
    assert printed == pytest.approx(math.sqrt(1 + math.log(1e5)) / 1000)
    assert lemma_o == pytest.approx(math.sqrt(1 + 2 * math.log(1e5)) / 1000)


def test_davis_kahan_sin_theta_matches_principal_angles_and_bounds_order():
    from scipy.linalg import subspace_angles

    rng = np.random.default_rng(7)
    for _ in range(200):
        d, k = 5, int(rng.integers(1, 4))
        sigma = np.diag(np.sort(rng.uniform(0, 1, d))[::-1])
        noise = rng.normal(scale=rng.uniform(0.001, 0.1), size=(d, d))
        sigma_hat = sigma + (noise + noise.T) / 2
        found = s.davis_kahan_bounds(sigma, sigma_hat, k)
        v = np.linalg.eigh(sigma)[1][:, ::-1][:, :k]
        v_hat = np.linalg.eigh(sigma_hat)[1][:, ::-1][:, :k]
        assert found["sin_theta"] == pytest.approx(np.linalg.norm(np.sin(subspace_angles(v, v_hat))), abs=1e-9)
        assert found["sin_theta"] <= found["cited"] * (1 + 1e-12) <= found["as_printed"] * (1 + 1e-12)


def test_davis_kahan_bounds_closed_form():
    sigma = np.diag([1.0, 0.9, 0.2])
    error = np.diag([0.01, -0.01, 0.0])  # ‖E‖_F = 0.01√2, ‖E‖_op = 0.01; V stays the top-2 coordinates
    found = s.davis_kahan_bounds(sigma, sigma + error, 2)
    assert found["sin_theta"] == pytest.approx(0.0, abs=1e-12)
    assert found["as_printed"] == pytest.approx(2 * 0.01 * math.sqrt(2) / 0.1)
    assert found["cited"] == pytest.approx(2 * 0.01 * math.sqrt(2) / 0.7)


# ----------------------------------------------------------------------------------------------------------------
# preprocessing_sensitivity_bounds and gaussian_sum_audit, against the propositions' formulas written out
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ("dedup", (2 * 5, 1.0, "Prop. 3")),
        ("quantization", (2 * 5, 0.1, "Prop. 3")),
        ("mean_imputation", (3, 2.0 / (100 - 3), "Cor. 4")),
        ("median_imputation", (3.0, math.nan, "Prop. 15")),
        ("pca_rank", (100.0, 4 * (3 * 100 + 2) / (100 * 99 * 0.2), "Prop. 5 (δ^k)")),
        ("pca_dim", (100.0, 8 * (3 * 100 + 2) / (100 * 99 * 0.05), "Prop. 5 (min")),
    ],
)
def test_preprocessing_sensitivity_bounds_written_out(step, expected):
    dinf, d2, source = s.preprocessing_sensitivity_bounds(step, 100, 0.1, 5, 3, 0.2, 0.05)
    assert dinf == expected[0] and source.startswith(expected[2])
    assert (math.isnan(d2) and math.isnan(expected[1])) or d2 == pytest.approx(expected[1], rel=1e-12)


def test_preprocessing_sensitivity_bounds_refuse_unknown_steps_and_bad_gaps():
    with pytest.raises(ValueError, match="step"):
        s.preprocessing_sensitivity_bounds("smoothing", 100, 0.1, 5, 3, 0.2, 0.05)
    with pytest.raises(ValueError, match="min_gap_k"):
        s.preprocessing_sensitivity_bounds("pca_rank", 100, 0.1, 5, 3, -0.2, 0.05)
    assert s.preprocessing_sensitivity_bounds("dedup", 100, 0.1, 5, 0, math.nan, math.nan)[0] == 10


def test_gaussian_sum_audit_exact_renyi_by_quadrature_and_group_privacy_written_out():
    alpha, eps, shift = 3.0, 0.8, 0.7
    audit = s.gaussian_sum_audit(alpha, eps, shift, 2, 0.5)
    # D_α(N(shift, 1/ε²) ‖ N(0, 1/ε²)) by integrating p^α q^(1−α).
    sigma = 1 / eps
    log_p, log_q = stats.norm(shift, sigma).logpdf, stats.norm(0.0, sigma).logpdf
    integral, _ = integrate.quad(lambda x: math.exp(alpha * log_p(x) + (1 - alpha) * log_q(x)), -40, 40)
    assert audit["exact_renyi_worst"] == pytest.approx(math.log(integral) / (alpha - 1), rel=1e-8)
    assert audit["group_privacy"] == pytest.approx(alpha * 3**2 * eps**2 / 2)
    assert audit["tau"] == 1.0
    mech = s.gaussian_mechanism(eps)
    assert audit["theorem2_pq2"] == float(s.theorem2_rdp(mech, alpha, 1.0, 2.0))
    assert audit["theorem2_optimised_p"] == float(np.min(s.theorem2_rdp(mech, alpha, 1.0, s.THEOREM2_P_GRID)))
    assert audit["theorem2_separate_pq"] == pytest.approx(alpha * (1 + 1.0) ** 2 * eps**2 / 2, rel=1e-10)
    assert audit["exact_renyi_worst"] <= audit["theorem2_separate_pq"] <= audit["theorem2_optimised_p"]
    assert audit["exact_le_theorem2"] and audit["exact_le_group"]
    unbounded = s.gaussian_sum_audit(alpha, eps, shift, 2, math.nan)
    assert (
        math.isnan(unbounded["tau"])
        and math.isnan(unbounded["theorem2_pq2"])
        and math.isnan(unbounded["theorem2_separate_pq"])
    )
    assert unbounded["exact_le_theorem2"]
    assert not s.gaussian_sum_audit(alpha, eps, 10.0, 0, 0.5)["exact_le_group"]


def test_table2_printed_formulas_give_the_cells() -> None:
    """Every Table 2 cell's printed formula (plain text, as the table shows it) evaluates to the library's cell."""
    values = dict(alpha=11.0, eps=0.5, p=7.0, eta=0.3, n=1000.0, gap=0.4)
    for (mechanism, preprocessing), formula in s.TABLE2_CELLS.items():
        assert "$" not in formula and "\\" not in formula
        cell = float(s.table2_cell(mechanism, preprocessing, 11.0, 0.5, p=7, eta=0.3, n=1000, gap=0.4))
        assert _evaluate_formula(formula, **values) == pytest.approx(cell, rel=1e-12), formula


@pytest.mark.parametrize(
    "mechanism",
    [
        s.gaussian_mechanism(1.0),
        s.gaussian_mechanism(0.3, L=2.0, sensitivity=0.5),
        s.dp_gd_mechanism(0.7, L=1.5, mu=0.4),
        s.dp_sgd_iteration_mechanism(0.5, n=1000, kappa=3),
    ],
    ids=lambda m: m.name,
)
@pytest.mark.parametrize("separate_pq", [False, True])
def test_lemma_m_optimum_of_a_linear_mechanism_in_closed_form_equals_the_numerical_one(mechanism, separate_pq):
    """c + 2√(c log(1/δ)) with c = 2(a + b) (p = q) or (√a + √b)² (p, q apart) against Nelder–Mead over (α, p[, q])
    on eq. (3) itself, and against a brute-force (α, p = q) grid, which never goes below it."""
    log_inv = math.log(1e3)
    for tau in (0.01, 0.5, 3.0, 12.2, 80.0):
        closed = s.theorem2_dp_optimised(mechanism, tau, 1e-3, separate_pq=separate_pq)
        numerical = s._theorem2_dp_numerical(mechanism, tau, log_inv, separate_pq)
        assert closed["epsilon"] == pytest.approx(numerical["epsilon"], rel=1e-9)
        assert closed["epsilon"] <= numerical["epsilon"] * (1 + 1e-12)
        at_optimum = float(s.theorem2_rdp(mechanism, closed["alpha"], tau, closed["p"], closed["q"]))
        assert at_optimum + log_inv / (closed["alpha"] - 1) == pytest.approx(closed["epsilon"], rel=1e-12)
        if not separate_pq:
            alphas = 1 + np.exp(np.linspace(-6, 6, 241))[:, None]
            ps = 1 + np.exp(np.linspace(-8, 8, 321))[None, :]
            grid = s.theorem2_rdp(mechanism, alphas, tau, ps) + log_inv / (alphas - 1)
            assert np.min(grid) >= closed["epsilon"] * (1 - 1e-12)
            assert np.min(grid) == pytest.approx(closed["epsilon"], rel=1e-2)  # within the grid's spacing


def test_lemma_m_optimum_with_p_and_q_apart_at_tau_zero_is_the_mechanisms_own_rdp():
    """τ = 0: ε̂(α) = aα, reached only as p → ∞ (returned as p = ∞), so ε = a + 2√(a log(1/δ))."""
    result = s.theorem2_dp_optimised(s.gaussian_mechanism(1.0), 0.0, 1e-3, separate_pq=True)
    a = 0.5
    assert result["epsilon"] == pytest.approx(a + 2 * math.sqrt(a * math.log(1e3)), rel=1e-14)
    assert result["p"] == math.inf and result["q"] == 1.0
