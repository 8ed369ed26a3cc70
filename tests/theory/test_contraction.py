"""Tests of dplab.theory.contraction (Asoodeh, Diaz, Calmon 2020): reference values of Lemma 4, Proposition 1,
Theorems 3-5 and Figures 2-3 from an implementation independent of this one (6-7 digits), and independent references
(quadrature, Monte Carlo, the RDP conversion module, explicit sums)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, optimize, stats

from dplab.accounting.conversions import log_delta_from_rdp_mironov_with_order
from dplab.accounting.hockey_stick import gaussian_hockey_stick, log_gaussian_hockey_stick
from dplab.accounting.inversion import epsilon_for_delta
from dplab.theory.contraction import (
    contraction_modulus,
    epsilon_prop1,
    gradient_step_lipschitz,
    kappa_prop1,
    lemma4_modulus_as_printed,
    log_delta_prop1,
    log_delta_thm3,
    log_delta_thm4,
    log_delta_thm5,
    log_projected_gaussian_contraction_exact,
    pure_dp_threshold_thm3,
    pure_dp_threshold_thm3_as_printed,
)

M_FIG3 = math.sqrt(0.76)
FIG2 = {"L": 1.0, "sigma": 2.0, "M": 1.0, "diameter": 1.0, "lr": 0.5, "n": 40}
FIG3 = {"L": 1.0, "sigma": 1.0, "M": M_FIG3, "diameter": 1.0, "lr": 0.7, "n": 40}
THM3 = {"L": 1.0, "v": 1.0, "M": 1.0, "diameter": 1.0, "lr": 0.5, "n": 40}


def kappa_for(setting: dict, i: int) -> float:
    return kappa_prop1(L=setting["L"], sigma=setting["sigma"], M=setting["M"], n=setting["n"], i=i)


# ------------------------------------------------------------------ Lemma 4 / eq. (14)


def test_contraction_modulus_fig3() -> None:
    M = contraction_modulus(lr=0.7, beta_smooth=0.3, rho=0.4)  # ρ > β as printed in Fig. 3: accepted
    assert M == pytest.approx(0.87177978871, rel=1e-10)
    assert M * 1.0 / (0.7 * 1.0) == pytest.approx(1.24539969815, rel=1e-10)
    assert contraction_modulus(lr=0.5, beta_smooth=0.5, rho=0.0) == 1.0  # Fig. 2: ρ = 0 ⇒ M = 1


def test_contraction_modulus_is_the_lipschitz_constant_of_a_quadratic_gradient_step() -> None:
    """For f(y) = c y²/2 the step is y ↦ (1 − ηc) y; over c ∈ [ρ, β] the worst |1 − ηc| is ≤ M (Lemma 4)."""
    for lr, beta, rho in [(0.5, 1.0, 0.2), (1.2, 1.0, 0.5), (0.1, 3.0, 3.0)]:
        curvatures = np.linspace(rho, beta, 1001)
        worst = np.max(np.abs(1 - lr * curvatures))
        assert worst <= contraction_modulus(lr=lr, beta_smooth=beta, rho=rho) + 1e-12


def _spectral_lipschitz(lr: float, eigenvalues: np.ndarray, rng: np.random.Generator) -> float:
    """Lipschitz constant of a ↦ a − lr A a for A = Q diag(eigenvalues) Qᵀ (Q random orthogonal), from the spectral
    norm of I − lr A computed by numpy (an independent route to max |1 − lr λ|)."""
    q, _ = np.linalg.qr(rng.standard_normal((eigenvalues.size, eigenvalues.size)))
    hessian = q @ np.diag(eigenvalues) @ q.T
    return float(np.linalg.norm(np.eye(eigenvalues.size) - lr * hessian, 2))


@pytest.mark.parametrize(
    ("lr", "beta", "rho"), [(0.5, 1.0, 0.2), (1.2, 1.0, 0.5), (0.1, 3.0, 3.0), (1.9, 1.0, 0.0), (3.0, 1.0, 0.25)]
)
def test_gradient_step_lipschitz_is_the_spectral_norm_of_the_worst_quadratic(lr, beta, rho) -> None:
    """Quadratics with Hessian eigenvalues spread over [rho, beta] (end points included): the spectral norm of
    I - lr H never exceeds the closed form and equals it when both end points are eigenvalues."""
    rng = np.random.default_rng(7)
    exact = gradient_step_lipschitz(lr=lr, beta_smooth=beta, rho=rho)
    for _ in range(20):
        inner = rng.uniform(rho, beta, size=3)
        assert _spectral_lipschitz(lr, inner, rng) <= exact + 1e-12
    assert _spectral_lipschitz(lr, np.array([rho, beta, (rho + beta) / 2]), rng) == pytest.approx(exact, rel=1e-12)


def test_gradient_step_lipschitz_bounds_a_non_quadratic_step() -> None:
    """f(a) = rho a²/2 + (beta - rho) log cosh(a) has f'' = rho + (beta - rho) sech²(a) in (rho, beta]: the
    largest finite-difference slope of psi(a) = a - lr f'(a) stays below the closed form and reaches it within 1e-6
    when the extreme curvature beta (at a = 0) decides."""
    beta, rho, lr = 1.0, 0.2, 1.8  # |1 - lr beta| = 0.8 > |1 - lr rho| = 0.64
    a = np.linspace(-8.0, 8.0, 400_001)
    psi = a - lr * (rho * a + (beta - rho) * np.tanh(a))
    slopes = np.abs(np.diff(psi) / np.diff(a))
    exact = gradient_step_lipschitz(lr=lr, beta_smooth=beta, rho=rho)
    assert slopes.max() <= exact + 1e-12
    assert slopes.max() == pytest.approx(exact, abs=1e-6)


def test_lemma4_modulus_bounds_the_step_exactly_below_two_over_beta_plus_rho() -> None:
    """Lemma 4: M >= max |1 - lr lambda| for lr <= 2/(beta + rho) (equality at the end, and for rho = 0), and M is
    smaller beyond it (rho > 0): the identity M² - (1 - lr rho)² = lr rho² (2/(beta + rho) - lr)."""
    for beta, rho in [(1.0, 0.2), (0.5, 0.5), (2.0, 0.1)]:
        limit = 2.0 / (beta + rho)
        for factor in (0.1, 0.5, 0.9, 0.999):
            lr = factor * limit
            assert lemma4_modulus_as_printed(lr=lr, beta_smooth=beta, rho=rho) >= gradient_step_lipschitz(
                lr=lr, beta_smooth=beta, rho=rho
            )
        at_limit = (lemma4_modulus_as_printed(lr=limit, beta_smooth=beta, rho=rho), (beta - rho) / (beta + rho))
        assert at_limit[0] == pytest.approx(at_limit[1], abs=1e-12)
        for factor in (1.01, 1.5):
            lr = factor * limit
            printed = lemma4_modulus_as_printed(lr=lr, beta_smooth=beta, rho=rho)
            exact = gradient_step_lipschitz(lr=lr, beta_smooth=beta, rho=rho)
            assert math.isnan(printed) or printed < exact
            if not math.isnan(printed):
                assert printed**2 - (1 - lr * rho) ** 2 == pytest.approx(lr * rho**2 * (limit - lr), abs=1e-12)
    assert (
        lemma4_modulus_as_printed(lr=1.5, beta_smooth=1.0, rho=0.0)
        == 1.0
        == gradient_step_lipschitz(lr=1.5, beta_smooth=1.0, rho=0.0)
    )
    assert math.isnan(lemma4_modulus_as_printed(lr=10.0, beta_smooth=1.0, rho=1.0))  # 1 - 2 lr beta rho/(beta+rho) < 0


def test_gradient_step_lipschitz_needs_rho_at_most_beta() -> None:
    with pytest.raises(ValueError, match="rho"):
        gradient_step_lipschitz(lr=0.7, beta_smooth=0.3, rho=0.4)  # the Fig. 3 caption's values: no such function


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"lr": 3.0, "beta_smooth": 0.3, "rho": 0.4},
            r"lr=3.0 is invalid; allowed: lr < 2/\(beta_smooth\+rho\) = 2.857",
        ),
        ({"lr": 0.0, "beta_smooth": 0.3, "rho": 0.4}, "lr"),
        ({"lr": 0.1, "beta_smooth": 0.0, "rho": 0.4}, "beta_smooth"),
        ({"lr": 0.1, "beta_smooth": 0.3, "rho": -0.1}, "rho"),
        ({"lr": 4.0, "beta_smooth": 0.5, "rho": 0.0}, "lr"),  # η = 2/β is not strictly below
    ],
)
def test_contraction_modulus_rejects_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        contraction_modulus(**kwargs)


# ------------------------------------------------------------------ Proposition 1


def test_kappa_figures_2_and_3() -> None:
    np.testing.assert_allclose([kappa_for(FIG2, i) for i in (1, 20, 39)], [1 / 78, 0.025, 0.5], rtol=1e-12)
    np.testing.assert_allclose(
        kappa_prop1(L=1.0, sigma=1.0, M=M_FIG3, n=40, i=np.array([20, 30, 39])),
        [0.00560457544, 0.04420839553, 1.52],
        rtol=1e-9,
    )
    assert kappa_for(FIG2, 40) == pytest.approx(0.5)  # i = n: 2L²/σ²


@pytest.mark.parametrize(("i", "alpha_star"), [(1, 39.5), (20, 20.5), (39, 1.5)])
def test_optimal_order_via_rdp_conversion(i: int, alpha_star: float) -> None:
    """Mironov's conversion of the (α, κα) curve, minimised numerically on a fine grid of orders, reproduces
    eq. (27) and its minimiser α* = (ε + κ)/(2κ) at ε = 1."""
    kappa = kappa_for(FIG2, i)
    orders = np.linspace(1.0, 100.0, 990_001)
    result = log_delta_from_rdp_mironov_with_order(1.0, orders, kappa * orders)
    assert result.order == pytest.approx(alpha_star, abs=1e-3)
    assert log_delta_prop1(1.0, kappa=kappa) == pytest.approx(result.value, rel=1e-9)


def test_prop1_is_one_below_kappa_and_inverse() -> None:
    assert log_delta_prop1(np.array([0.0, 0.5]), kappa=0.5).tolist() == [0.0, 0.0]
    kappa = 0.04420839553
    for delta in [1e-9, 1e-5, 0.2]:
        eps = epsilon_prop1(delta, kappa=kappa)
        assert log_delta_prop1(eps, kappa=kappa) == pytest.approx(math.log(delta), rel=1e-12)
    assert epsilon_prop1(0.0, kappa=kappa) == math.inf
    with pytest.raises(ValueError, match="kappa"):
        log_delta_prop1(1.0, kappa=0.0)


# ------------------------------------------------------------------ Figures 2 and 3

FIG2_TABLE = [  # i, ε, δ_Thm4, δ̃_Prop1 at Fig. 2's parameters (independent implementation)
    (1, 0.5, 1.241172e-25, 9.772283e-03),
    (1, 1.0, 1.391532e-36, 5.584868e-09),
    (20, 0.5, 8.399660e-14, 1.047425e-01),
    (20, 1.0, 1.497387e-19, 7.438546e-05),
    (39, 0.0, 1.4663e-01, 1.0),
    (39, 1.0, 1.611294e-02, 8.824969e-01),
    (39, 2.0, 4.377985e-04, 3.246525e-01),
]
FIG3_TABLE = [  # the same at Fig. 3's parameters
    (20, 0.5, 1.955125e-10, 1.840287e-05),
    (20, 1.0, 3.347619e-14, 6.985865e-20),
    (30, 0.5, 1.082351e-05, 3.088774e-01),
    (30, 1.0, 1.306454e-07, 5.706859e-03),
    (30, 2.0, 6.313107e-13, 4.033607e-10),
    (39, 1.0, 1.117678e-01, 1.0),
    (39, 2.0, 2.233204e-02, 9.628143e-01),
]


@pytest.mark.parametrize(("setting", "row"), [(FIG2, r) for r in FIG2_TABLE] + [(FIG3, r) for r in FIG3_TABLE])
def test_figure_tables(setting: dict, row: tuple) -> None:
    i, epsilon, thm4, prop1 = row
    digits = 1e-4 if thm4 == 1.4663e-01 else 1e-6
    assert math.exp(log_delta_thm4(epsilon, i=i, **setting)) == pytest.approx(thm4, rel=digits)
    assert math.exp(log_delta_prop1(epsilon, kappa=kappa_for(setting, i))) == pytest.approx(prop1, rel=1e-6)


def test_thm4_is_explicit_product_of_theta() -> None:
    """δ = θ(2L/σ) θ(MD/(ησ))^(n−i) computed directly in linear scale where it does not underflow."""
    eps = np.linspace(0, 3, 13)
    for i in (25, 33, 39, 40):
        direct = gaussian_hockey_stick(eps, 1.0) * gaussian_hockey_stick(eps, 1.0) ** (40 - i)
        np.testing.assert_allclose(np.exp(log_delta_thm4(eps, i=i, **FIG2)), direct, rtol=1e-12)
    # i = n: the Gaussian mechanism itself
    np.testing.assert_allclose(log_delta_thm4(eps, i=40, **FIG3), log_gaussian_hockey_stick(eps, 2.0), rtol=1e-14)


def test_figures_2_3_headline_values() -> None:
    assert math.exp(log_delta_thm4(1.0, i=39, **FIG2)) == pytest.approx(1.611294e-2, rel=1e-6)
    assert math.exp(log_delta_prop1(1.0, kappa=kappa_for(FIG2, 39))) == pytest.approx(0.8824969, rel=1e-6)
    assert math.exp(log_delta_thm4(1.0, i=30, **FIG3)) == pytest.approx(1.306454e-7, rel=1e-6)
    assert math.exp(log_delta_prop1(1.0, kappa=kappa_for(FIG3, 30))) == pytest.approx(5.706859e-3, rel=1e-6)


def log_gap(setting: dict, i: int):
    kappa = kappa_for(setting, i)
    return lambda e: log_delta_thm4(e, i=i, **setting) - log_delta_prop1(e, kappa=kappa)


@pytest.mark.parametrize(("i", "crossover", "delta_there"), [(20, 0.784, 1.83e-12), (30, 2.680, 8.5e-18)])
def test_fig3_crossovers(i: int, crossover: float, delta_there: float) -> None:
    gap = log_gap(FIG3, i)
    root = optimize.brentq(gap, 0.2, 3.5, xtol=1e-12)
    assert root == pytest.approx(crossover, abs=1e-3)
    assert math.exp(log_delta_thm4(root, i=i, **FIG3)) == pytest.approx(delta_there, rel=0.01)
    assert gap(root - 0.05) < 0 < gap(root + 0.05)  # Thm 4 better below, Prop. 1 better above


def test_fig3_no_crossover_for_i_39() -> None:
    eps = np.linspace(1e-3, 10.0, 2001)
    assert np.all(log_gap(FIG3, 39)(eps) < 0)


@pytest.mark.parametrize("i", [1, 20, 39])
def test_fig2_thm4_always_better(i: int) -> None:
    """Scanned in the log domain: in linear scale both sides underflow to 0 for i = 1, 20."""
    eps = np.linspace(1e-3, 10.0, 4001)
    gap = log_gap(FIG2, i)(eps)
    assert np.all(np.isfinite(gap)) and np.all(gap < 0)


@pytest.mark.parametrize("setting", [FIG2, FIG3])
def test_delta_increases_with_position(setting: dict) -> None:
    """Earlier users enjoy stronger privacy: both bounds are non-decreasing in i (paper §IV)."""
    positions = np.arange(1, 41)
    for epsilon in [0.0, 0.5, 1.0, 3.0]:
        thm4 = log_delta_thm4(epsilon, i=positions, **setting)
        kappas = kappa_prop1(L=1.0, sigma=setting["sigma"], M=setting["M"], n=40, i=positions)
        prop1 = log_delta_prop1(epsilon, kappa=kappas)
        assert np.all(np.diff(thm4) > 0)
        assert np.all(np.diff(prop1) >= 0)


def test_thm4_rate_at_epsilon_zero() -> None:
    """§2.11: at ε = 0 each extra contraction step multiplies δ by 2Φ(MD/(2ησ)) − 1."""
    rate = math.log(2 * stats.norm.cdf(1.0 / 2) - 1)
    steps = np.diff(log_delta_thm4(0.0, i=np.arange(1, 41), **FIG2))
    np.testing.assert_allclose(steps, -rate, rtol=1e-12)


# ------------------------------------------------------------------ Theorem 3


def test_thm3_at_i_39() -> None:
    expected = [0.3995764, 0.2783971, 0.1548181, 0.04892909, 0.0]
    values = np.exp(log_delta_thm3([0.0, 0.5, 1.0, 1.5, 2.0], i=39, **THM3))
    np.testing.assert_allclose(values, expected, rtol=1e-6, atol=0)


def test_thm3_at_i_20() -> None:
    expected = [6.558405e-5, 1.475634e-6, 3.112640e-9, 1.739624e-14, 0.0]
    values = np.exp(log_delta_thm3([0.0, 0.5, 1.0, 1.5, 2.0], i=20, **THM3))
    np.testing.assert_allclose(values, expected, rtol=1e-6, atol=0)


def test_thm3_is_explicit_product() -> None:
    eps = np.linspace(0, 2.5, 11)
    first = np.maximum(1 - np.exp(eps / 2 - 1.0 / 1.0), 0)
    factor = np.maximum(1 - np.exp(eps / 2 - 1.0 / (2 * 0.5 * 1.0)), 0)
    for i in (30, 39, 40):
        np.testing.assert_allclose(np.exp(log_delta_thm3(eps, i=i, **THM3)), first * factor ** (40 - i), rtol=1e-12)


def test_thm3_pure_dp_threshold_as_printed() -> None:
    thresholds = pure_dp_threshold_thm3_as_printed(
        L=1.0, v=np.array([2.0, 1.0, 0.5]), M=1.0, diameter=np.array([1.0, 1.0, 4.0]), lr=np.array([0.5, 0.5, 0.1])
    )
    np.testing.assert_allclose(thresholds, [1.0, 2.0, 4.0])


def test_thm3_i_equals_n_erratum() -> None:
    setting = {"L": 1.0, "v": 1.0, "M": 1.0, "diameter": 1.0, "lr": 1.0, "n": 40}
    assert math.exp(log_delta_thm3(1.5, i=40, **setting)) == pytest.approx(0.2211992, rel=1e-6)
    assert log_delta_thm3(1.5, i=39, **setting) == -math.inf
    printed = pure_dp_threshold_thm3_as_printed(L=1.0, v=1.0, M=1.0, diameter=1.0, lr=1.0)
    assert printed == 1.0  # claims δ = 0 at ε = 1.5 ≥ 1 ...
    assert pure_dp_threshold_thm3(i=40, **setting) == 2.0  # ... but for i = n the threshold is 2L/v
    assert pure_dp_threshold_thm3(i=39, **setting) == 1.0


@pytest.mark.parametrize(
    "setting",
    [
        {"L": 1.0, "v": 2.0, "M": 1.0, "diameter": 1.0, "lr": 0.5, "n": 10},
        {"L": 1.0, "v": 1.0, "M": 1.0, "diameter": 1.0, "lr": 1.0, "n": 10},
        {"L": 1.0, "v": 0.5, "M": 0.9, "diameter": 4.0, "lr": 0.1, "n": 10},
        {"L": 0.3, "v": 1.0, "M": 0.8, "diameter": 2.0, "lr": 0.2, "n": 10},
    ],
)
def test_pure_dp_threshold_is_where_formula_vanishes(setting: dict) -> None:
    for i in range(1, 11):
        threshold = pure_dp_threshold_thm3(i=i, **setting)
        assert log_delta_thm3(threshold, i=i, **setting) == -math.inf
        assert np.isfinite(log_delta_thm3(threshold * (1 - 1e-9), i=i, **setting))
        found = epsilon_for_delta(lambda e, i=i: log_delta_thm3(e, i=i, **setting), 0.0, tol=1e-12)
        assert found == pytest.approx(threshold, abs=1e-10)


# ------------------------------------------------------------------ Theorem 5


def test_thm5_fig2_parameters() -> None:
    expected = [1.551371e-2, 7.826566e-3, 3.634809e-3, 5.342698e-4]
    np.testing.assert_allclose(np.exp(log_delta_thm5([0.0, 0.5, 1.0, 2.0], **FIG2)), expected, rtol=1e-6)


def test_thm5_fig3_parameters() -> None:
    expected = [3.199217e-2, 2.254241e-2, 1.632523e-2, 8.896027e-3]
    np.testing.assert_allclose(np.exp(log_delta_thm5([0.0, 0.5, 1.0, 2.0], **FIG3)), expected, rtol=1e-6)


@pytest.mark.parametrize("setting", [FIG2, FIG3])
def test_thm5_position_form_is_the_explicit_sum(setting: dict) -> None:
    """Proof of Theorem 5: δ_i = θ(2L/σ)/n Σ_{r=i}^{n} θ_c^(r−i), never above the uniform bound."""
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    first = gaussian_hockey_stick(eps, 2 * setting["L"] / setting["sigma"])
    theta_c = gaussian_hockey_stick(eps, setting["M"] * setting["diameter"] / (setting["lr"] * setting["sigma"]))
    uniform = log_delta_thm5(eps, **setting)
    for i in (1, 20, 39, 40):
        explicit = first / 40 * sum(theta_c**k for k in range(40 - i + 1))
        position = log_delta_thm5(eps, i=i, **setting)
        np.testing.assert_allclose(np.exp(position), explicit, rtol=1e-12)
        assert np.all(position <= uniform + 1e-15)
    np.testing.assert_allclose(
        log_delta_thm5(eps, i=40, **setting), np.log(first / 40), rtol=1e-13
    )  # one term: the last user only counts when T = n


def test_thm5_cap_and_near_one_contraction() -> None:
    """With D/(ησ) = 60 the contraction θ_c is 1 − 3e-25 (the complement keeps it); δ is capped at 1."""
    setting = {"L": 1.0, "sigma": 1.0, "M": 1.0, "diameter": 30.0, "lr": 0.5, "n": 40}
    assert log_delta_thm5(0.5, **setting) == 0.0
    position = log_delta_thm5(0.5, i=31, **setting)
    # Σ of 10 terms each ≈ 1: δ ≈ 10 θ(2)/40
    assert position == pytest.approx(math.log(10 * gaussian_hockey_stick(0.5, 2.0) / 40), rel=1e-12)


def mpmath_log_delta_thm5(epsilon: float, *, L, sigma, M, diameter, lr, n, i=None, dps: int = 80) -> float:
    """log δ of Theorem 5 (eq. (16), or the proof's Σ_{r=i}^{n} θ_c^(r−i) form) at ``dps`` digits, capped at 0: θ of
    eq. (10) and 1 − θ_c = Φ(a) + e^ε Q(b) written out in mpmath (no underflow), the sum term by term."""
    with mpmath.workdps(dps):
        eps = mpmath.mpf(epsilon)
        q = lambda t: mpmath.erfc(t / mpmath.sqrt(2)) / 2  # noqa: E731

        def thresholds(r):
            return eps / r - r / 2, eps / r + r / 2

        a, b = thresholds(mpmath.mpf(2 * L) / sigma)
        first = q(a) - mpmath.exp(eps) * q(b)
        a, b = thresholds(mpmath.mpf(M) * diameter / (mpmath.mpf(lr) * sigma))
        complement = q(-a) + mpmath.exp(eps) * q(b)
        if i is None:
            total = 1 / complement
        else:
            total = mpmath.fsum((1 - complement) ** k for k in range(n - i + 1))
        return float(min(mpmath.log(first * total / n), 0))


#: Theorem 5 where 1 − θ_c underflows in linear scale (issue 25): σ = 0.1 and 0.3 with η = 0.1, D = 4, n = 1000.
UNDERFLOW = {"L": 1.0, "M": 1.0, "diameter": 4.0, "lr": 0.1, "n": 1000}


@pytest.mark.parametrize("sigma", [0.1, 0.3, 1.0])
@pytest.mark.parametrize("i", [None, 1, 500, 1000])
def test_thm5_matches_mpmath_where_the_complement_underflows(sigma: float, i: int | None) -> None:
    """ε from 0 to 1e5, including the two instances of issue 25: δ(4000.16) = 1.01e-5 at σ = 0.1 and δ(444.6) ≈ 1e-5
    at σ = 0.3, where the linear-scale complement gave log(0) and δ capped at 1 (ε_thm5 64,629 and 3,760.6)."""
    setting = {**UNDERFLOW, "sigma": sigma}
    eps = [0.0, 1.0, 10.0, 444.6, 4000.16, 1e4, 64629.0, 1e5]
    ours = log_delta_thm5(eps, i=i, **setting)
    reference = [mpmath_log_delta_thm5(e, i=i, **setting) for e in eps]
    np.testing.assert_allclose(ours, reference, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("sigma", "expected"), [(0.1, 4000.16), (0.3, 444.6)])
def test_thm5_epsilon_where_the_complement_underflows(sigma: float, expected: float) -> None:
    """The smallest ε with δ_Thm5(ε) <= 1e-5 (mpmath: δ(4000.16) = 1.013e-5 > 1e-5 >= δ(4000.17))."""
    setting = {**UNDERFLOW, "sigma": sigma}
    found = epsilon_for_delta(lambda e: log_delta_thm5(e, **setting), 1e-5, expand_to=1e9)
    assert found == pytest.approx(expected, abs=0.01)
    assert mpmath_log_delta_thm5(found, **setting) <= math.log(1e-5) < mpmath_log_delta_thm5(found - 1e-6, **setting)


# ------------------------------------------------------------------ inversions: ε at δ = 1e-5


@pytest.mark.parametrize(
    ("setting", "i", "thm4", "prop1"),
    [
        (FIG2, 30, 0.10398, 1.56743),
        (FIG2, 39, 2.75401, 5.29853),
        (FIG2, 40, 4.37718, 5.29853),
        (FIG3, 30, 0.51011, 1.47105),
        (FIG3, 39, 4.67839, 9.88652),
        (FIG3, 40, 9.99726, 11.59705),
    ],
)
def test_epsilon_at_delta_1e5(setting: dict, i: int, thm4: float, prop1: float) -> None:
    eps_thm4 = epsilon_for_delta(lambda e: log_delta_thm4(e, i=i, **setting), 1e-5)
    kappa = kappa_for(setting, i)
    eps_prop1_bisected = epsilon_for_delta(lambda e: log_delta_prop1(e, kappa=kappa), 1e-5)
    assert eps_thm4 == pytest.approx(thm4, abs=1e-5)
    assert epsilon_prop1(1e-5, kappa=kappa) == pytest.approx(prop1, abs=1e-5)
    assert eps_prop1_bisected == pytest.approx(epsilon_prop1(1e-5, kappa=kappa), abs=1e-9)


@pytest.mark.parametrize(("setting", "expected"), [(FIG2, 3.41770), (FIG3, 8.12302)])
def test_thm5_epsilon_at_delta_1e5(setting: dict, expected: float) -> None:
    assert epsilon_for_delta(lambda e: log_delta_thm5(e, **setting), 1e-5) == pytest.approx(expected, abs=1e-5)


# ------------------------------------------------------------------ exact projected contraction (our extension)


def projected_pair_hockey_stick(epsilon: float, y1: float, y2: float, diameter: float, scale: float) -> float:
    """E_γ(Π_[0,D] N(y1, s²) ‖ Π_[0,D] N(y2, s²)): two atoms plus quad of the positive part of the density gap."""
    gamma = math.exp(epsilon)

    def cdf(t: float, mean: float) -> float:
        return 0.5 * math.erfc(-(t - mean) / (scale * math.sqrt(2)))

    def pdf(t: float, mean: float) -> float:
        return math.exp(-0.5 * ((t - mean) / scale) ** 2) / (scale * math.sqrt(2 * math.pi))

    atom_low = max(cdf(0.0, y1) - gamma * cdf(0.0, y2), 0.0)
    atom_high = max((1 - cdf(diameter, y1)) - gamma * (1 - cdf(diameter, y2)), 0.0)
    density, _ = integrate.quad(
        lambda t: max(pdf(t, y1) - gamma * pdf(t, y2), 0.0), 0.0, diameter, limit=200, epsabs=1e-13, epsrel=1e-11
    )
    return atom_low + atom_high + density


@pytest.mark.parametrize(
    ("epsilon", "diameter", "expected"), [(0.0, 1.0, 0.382925), (1.0, 1.0, 0.068730), (1.0, 4.0, 0.926711)]
)
def test_exact_contraction(epsilon: float, diameter: float, expected: float) -> None:
    exact = math.exp(log_projected_gaussian_contraction_exact(epsilon, diameter=diameter, scale=1.0))
    assert exact == pytest.approx(expected, abs=1e-6)
    assert exact <= gaussian_hockey_stick(epsilon, diameter) + 1e-15  # the paper's bound θ(D/s)


@pytest.mark.parametrize(("diameter", "scale"), [(1.0, 1.0), (4.0, 1.0), (1.0, 0.35)])
def test_exact_contraction_is_sup_over_pairs(diameter: float, scale: float) -> None:
    """Theorem 2: η_γ = sup over pairs.  Over a grid of pairs plus random pairs, no pair exceeds the closed form,
    and the pair (0, D) (and its mirror (D, 0)) attains it."""
    rng = np.random.default_rng(7)
    grid = np.linspace(0.0, diameter, 6)
    pairs = [(y1, y2) for y1 in grid for y2 in grid] + [tuple(rng.uniform(0, diameter, 2)) for _ in range(20)]
    for epsilon in [0.0, 0.4, 1.0, 2.5]:
        exact = math.exp(log_projected_gaussian_contraction_exact(epsilon, diameter=diameter, scale=scale))
        values = [projected_pair_hockey_stick(epsilon, y1, y2, diameter, scale) for y1, y2 in pairs]
        assert max(values) <= exact + 1e-10
        for extreme in [(0.0, diameter), (diameter, 0.0)]:
            assert projected_pair_hockey_stick(epsilon, *extreme, diameter, scale) == pytest.approx(
                exact, rel=1e-8, abs=1e-12
            )


def test_exact_contraction_monte_carlo() -> None:
    """Exact simulation of Π_[0,D](y + sZ) at y = 0 and y = D; the event [0, max(t*, 0)] with a 99.9% CI."""
    rng = np.random.default_rng(12345)
    m, diameter, scale = 400_000, 1.0, 1.0
    from_zero = np.clip(scale * rng.standard_normal(m), 0.0, diameter)
    from_far = np.clip(diameter + scale * rng.standard_normal(m), 0.0, diameter)
    for epsilon in [0.0, 0.3, 1.0]:
        cut = max(diameter / 2 - epsilon * scale**2 / diameter, 0.0)
        p_hat, q_hat = np.mean(from_zero <= cut), np.mean(from_far <= cut)
        estimate = p_hat - math.exp(epsilon) * q_hat
        std = math.sqrt(p_hat * (1 - p_hat) / m + math.exp(2 * epsilon) * q_hat * (1 - q_hat) / m)
        exact = math.exp(log_projected_gaussian_contraction_exact(epsilon, diameter=diameter, scale=scale))
        assert abs(estimate - exact) < 3.3 * std


def test_exact_contraction_below_paper_bound_and_pure_dp() -> None:
    eps = np.linspace(0.0, 12.0, 241)
    for diameter, scale in [(1.0, 1.0), (1.0, 0.5), (4.0, 1.0), (0.3, 2.0)]:
        exact = log_projected_gaussian_contraction_exact(eps, diameter=diameter, scale=scale)
        bound = log_gaussian_hockey_stick(eps, diameter / scale)
        assert np.all(exact <= bound + 1e-12)
        assert np.all(np.diff(exact[np.isfinite(exact)]) < 0)
        threshold = -math.log(2 * stats.norm.sf(diameter / scale))  # bounded privacy loss: δ = 0 from here
        assert np.all(exact[eps >= threshold] == -math.inf)
        assert np.all(np.isfinite(exact[eps < threshold - 1e-9]))


# ------------------------------------------------------------------ input checking and shapes


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"i": 41}, "i="),
        ({"i": 0}, "i="),
        ({"i": 2.5}, "i="),
        ({"n": 0, "i": 1}, "n="),
        ({"lr": -0.5}, "lr="),
        ({"sigma": 0.0}, "sigma="),
    ],
)
def test_thm4_rejects_bad_input(kwargs: dict, match: str) -> None:
    setting = {**FIG2, "i": 10, **kwargs}
    with pytest.raises(ValueError, match=match):
        log_delta_thm4(0.5, **setting)


def test_shapes_and_scalars() -> None:
    assert isinstance(log_delta_thm4(0.5, i=10, **FIG2), float)
    assert isinstance(kappa_for(FIG2, 10), float)
    grid = log_delta_thm4(np.linspace(0, 1, 5)[:, None], i=np.array([1, 20, 40]), **FIG2)
    assert grid.shape == (5, 3)
    np.testing.assert_allclose(grid[:, 1], log_delta_thm4(np.linspace(0, 1, 5), i=20, **FIG2), rtol=1e-15)


# ------------------------------------------------------------------ regime map (ext_regime) and utility privacy

REGIME = {"L": 1.0, "sigma": 2.0, "M": 1.0, "lr": 0.5, "n": 40}


def epsilon_thm4(setting: dict, i: int, delta: float = 1e-5, **overrides) -> float:
    return epsilon_for_delta(lambda e: log_delta_thm4(e, i=i, **{**setting, **overrides}), delta, tol=1e-12)


def test_regime_map_values() -> None:
    """Regime map (ext_regime): ε at δ = 1e-5 with D = 4 (Thm 4) and Prop. 1 (independent of D), i = 1, 20, 30, 39."""
    positions = (1, 20, 30, 39)
    thm4 = [epsilon_thm4(REGIME, i, diameter=4.0) for i in positions]
    prop1 = [epsilon_prop1(1e-5, kappa=kappa_prop1(L=1.0, sigma=2.0, M=1.0, n=40, i=i)) for i in positions]
    np.testing.assert_allclose(thm4, [2.63, 3.30, 3.77, 4.31], atol=5e-3)
    np.testing.assert_allclose(prop1, [0.781, 1.098, 1.567, 5.299], atol=5e-4)


@pytest.mark.parametrize(("i", "crossing"), [(1, 2.856), (20, 2.410), (30, 2.050)])
def test_regime_map_diameter_crossovers(i: int, crossing: float) -> None:
    """Thm 4 beats Prop. 1 only while D is below ≈ 2.86 / 2.41 / 2.05 (D/(ησ) ≲ 2-3)."""
    prop1 = epsilon_prop1(1e-5, kappa=kappa_prop1(L=1.0, sigma=2.0, M=1.0, n=40, i=i))
    root = optimize.brentq(lambda d: epsilon_thm4(REGIME, i, diameter=d) - prop1, 0.5, 8.0, xtol=1e-9)
    assert root == pytest.approx(crossing, abs=5e-4)


def test_utility_companion_privacy_numbers() -> None:
    """§4.5: d = 10, η = 0.1, D = 4, n = 1000, L = 1, M = 1."""
    setting = {"L": 1.0, "M": 1.0, "lr": 0.1, "n": 1000, "diameter": 4.0}
    assert epsilon_thm4({**setting, "sigma": 3.0}, 500) == pytest.approx(2.7534, abs=1e-4)  # no amplification
    assert epsilon_prop1(1e-5, kappa=kappa_prop1(L=1.0, sigma=3.0, M=1.0, n=1000, i=500)) == pytest.approx(
        0.1435, abs=1e-4
    )
    sigma10 = {**setting, "sigma": 10.0}
    np.testing.assert_allclose(
        [epsilon_thm4(sigma10, i) for i in (1, 500, 999, 1000)], [0.0, 0.0, 0.7222, 0.7255], atol=1e-4
    )
    eps_thm5 = epsilon_for_delta(lambda e: log_delta_thm5(e, **sigma10), 1e-5)
    assert eps_thm5 == pytest.approx(0.4919, abs=1e-4)
    assert epsilon_prop1(1e-5, kappa=kappa_prop1(L=1.0, sigma=10.0, M=1.0, n=1000, i=500)) == pytest.approx(
        0.0430, abs=1e-4
    )


def test_certified_epsilon_of_the_first_user_is_the_first_step_gaussian_mechanism():
    """Theorem 4 for the first user: only the first step's Gaussian mechanism (sensitivity 2L, std sigma) acts,
    its contraction factor is about 1, so the epsilon is dp_accounting's Gaussian epsilon at sigma/(2L)."""
    from dp_accounting import get_epsilon_gaussian

    from dplab.theory.contraction import certified_epsilons

    users = {"first": 1, "middle": 500, "last": 1000}
    eps = certified_epsilons(
        "gaussian", users=users, n=1000, radius=2.0, lr=0.1, scale=0.3, delta=1e-5, L=1.0, beta_smooth=0.25
    )
    assert eps["epsilon_thm_first"] == pytest.approx(get_epsilon_gaussian(0.3 / 2.0, 1e-5), rel=1e-8)
    assert eps["epsilon_thm5"] >= eps["epsilon_thm_last"] and math.isfinite(eps["epsilon_prop1_middle"])
    laplace = certified_epsilons(
        "laplace", users=users, n=1000, radius=2.0, lr=0.1, scale=0.3, delta=1e-5, L=1.0, beta_smooth=0.25
    )
    assert math.isnan(laplace["epsilon_thm5"]) and math.isfinite(laplace["epsilon_thm_first"])


def test_epsilon_thm4_inverts_theorem4_delta():
    from dplab.theory.contraction import epsilon_thm4

    setting = dict(L=1.0, sigma=1.0, M=1.0, diameter=2.0, lr=0.1, n=40, i=20)
    eps = epsilon_thm4(1e-5, **setting)
    assert np.exp(float(log_delta_thm4(eps, **setting))) == pytest.approx(1e-5, rel=1e-6)
    assert np.exp(float(log_delta_thm4(eps * 0.99, **setting))) > 1e-5


def test_thm4_prop1_crossover_against_a_grid_scan():
    from dplab.theory.contraction import epsilon_thm4, thm4_prop1_crossover_diameter

    setting = dict(L=1.0, sigma=1.0, M=1.0, lr=0.1, n=40, i=20)
    eps_prop1 = float(epsilon_prop1(1e-5, kappa=kappa_prop1(L=1.0, sigma=1.0, M=1.0, n=40, i=20)))
    grid = np.geomspace(0.01, 10.0, 400)
    gap = np.array([epsilon_thm4(1e-5, diameter=d, **setting) - eps_prop1 for d in grid])
    first = np.flatnonzero((gap[:-1] <= 0) & (gap[1:] > 0))[0]
    crossing = thm4_prop1_crossover_diameter(grid[first], grid[first + 1], 1e-5, **setting)
    assert grid[first] <= crossing <= grid[first + 1]
    assert epsilon_thm4(1e-5, diameter=crossing, **setting) == pytest.approx(eps_prop1, abs=1e-4)
    with pytest.raises(ValueError, match="high"):
        thm4_prop1_crossover_diameter(2.0, 1.0, 1e-5, **setting)
