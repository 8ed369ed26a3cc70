"""Composition theorems against independent references: brute-force enumeration of the KOV pair's T-fold product,
dp_accounting's KOV Thm 3.3, mpmath, numerical Chernoff minimisation, and reference values at He, Wang, Tao's
settings (ε, δ, T, δ̃) = (0.1, 1e-5, 100, 1e-5) and (0.1, 0, 1000, 1e-6), recomputed independently to 7 digits."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest
from dp_accounting.pld import accountant, common
from scipy import optimize

from dplab.accounting.composition import (
    MIN_EPSILON_METHODS,
    basic_composition,
    brute_force_product_delta,
    cor2_delta,
    cor2_delta_first_order,
    cor3_delta,
    cor3_epsilon,
    cor3_log_delta_double_prime,
    drv_delta,
    drv_epsilon,
    kl_bound_lemma5,
    kov_delta,
    kov_epsilon,
    kov_epsilon_heterogeneous,
    kov_epsilon_terms,
    kov_pair,
    lemma6_boundary_maximum,
    lemma6_grid_maximum,
    lemma6_objective,
    log_lower_bound_delta,
    lower_bound_delta,
    min_epsilon_at_target,
    optimal_delta,
    optimal_epsilon,
    optimal_log_delta,
    thm4_delta,
    thm4_delta_heterogeneous,
)

# --- reference values, 7 significant digits (recomputed independently of this code) ------------------------------


def test_reference_epsilon_terms_drv_and_optimal():
    e1, e2, e3 = kov_epsilon_terms(0.1, 100, 1e-5)
    assert e1 == pytest.approx(10.0) and e2 == pytest.approx(5.298115, rel=1e-6)
    assert e3 == pytest.approx(5.298110, rel=1e-6) and kov_epsilon(0.1, 100, 1e-5) == pytest.approx(5.298110, rel=1e-6)
    assert drv_epsilon(0.1, 100, 1e-5) == pytest.approx(5.850235, rel=1e-6)
    assert optimal_epsilon(0.1, 0.0, 100, 1e-5) == pytest.approx(4.306791, rel=1e-6)


def test_reference_delta_breakdown_and_violation_of_lower_bound():
    ep = kov_epsilon(0.1, 100, 1e-5)
    assert kov_delta(1e-5, 100, 1e-5) == pytest.approx(1.009495e-3, rel=1e-6)
    assert drv_delta(1e-5, 100, 1e-5) == pytest.approx(1.010000e-3, rel=1e-9)
    assert cor2_delta(0.1, 1e-5, 100, ep, 1e-5) == pytest.approx(9.862834e-4, rel=1e-6)
    assert cor2_delta_first_order(0.1, 1e-5, 100, ep, 1e-5) == pytest.approx(9.865196e-4, rel=1e-6)
    assert thm4_delta(0.1, 1e-5, 100, ep, 1e-5) == pytest.approx(9.862735e-4, rel=1e-6)
    assert thm4_delta(0.1, 1e-5, 100, ep, 1e-5, "literal") == pytest.approx(1.904468e-3, rel=1e-6)
    assert lower_bound_delta(1e-5, 100) == pytest.approx(9.995052e-4, rel=1e-6)
    assert optimal_delta(0.1, 1e-5, 100, ep) == pytest.approx(9.995676e-4, rel=1e-6)
    assert cor2_delta(0.1, 1e-5, 100, ep, 1e-5) < lower_bound_delta(1e-5, 100)
    claimed_gap = 1e-5 * np.tanh(0.05) * (100 - 53)
    assert claimed_gap == pytest.approx(2.348044e-5, rel=1e-6)
    assert kov_delta(1e-5, 100, 1e-5) - cor2_delta(0.1, 1e-5, 100, ep, 1e-5) == pytest.approx(2.321175e-5, rel=1e-5)


def test_reference_cor3_double_prime_printed_and_corrected():
    ep = cor3_epsilon(0.1, 100, 1e-5)
    printed = np.exp(cor3_log_delta_double_prime(0.1, 100, ep, "as_printed"))
    corrected = np.exp(cor3_log_delta_double_prime(0.1, 100, ep, "corrected"))
    assert ep == pytest.approx(5.298110, rel=1e-6)
    assert printed == pytest.approx(1.081361e-12, rel=1e-6) and corrected == pytest.approx(4.762723e-6, rel=1e-6)
    assert corrected / printed == pytest.approx(np.exp(ep + 10.0), rel=1e-10)
    assert corrected / printed == pytest.approx(4.404378e6, rel=1e-6)
    assert corrected <= 1e-5  # Hoeffding: the optimised Chernoff bound never exceeds δ̃
    ep = cor3_epsilon(0.1, 1000, 1e-6)
    assert ep == pytest.approx(21.618419, rel=1e-6)
    assert np.exp(cor3_log_delta_double_prime(0.1, 1000, ep, "as_printed")) == pytest.approx(1.2719e-59, rel=5e-4)
    assert np.exp(cor3_log_delta_double_prime(0.1, 1000, ep)) == pytest.approx(8.368841e-7, rel=1e-6)


def _chernoff_numeric(eps: float, T: int, eps_prime: float) -> float:
    """min_t e^{-ε′t} (E e^{tV})^T for V = ±ε w.p. p, 1−p (independent oracle, bounded minimiser)."""
    p = np.exp(eps) / (1 + np.exp(eps))

    def log_bound(t):
        return -eps_prime * t + T * np.log(p * np.exp(t * eps) + (1 - p) * np.exp(-t * eps))

    result = optimize.minimize_scalar(log_bound, bounds=(0.0, 50.0 / eps), method="bounded", options={"xatol": 1e-12})
    return float(np.exp(result.fun))


@pytest.mark.parametrize("eps,T,dt", [(0.1, 100, 1e-5), (0.5, 50, 1e-3), (0.3, 20, 1e-2), (1.0, 400, 1e-8)])
def test_cor3_corrected_equals_numerical_chernoff(eps, T, dt):
    ep = float(cor3_epsilon(eps, T, dt))
    if ep >= T * eps:
        pytest.skip("capped at basic composition")
    assert np.exp(cor3_log_delta_double_prime(eps, T, ep)) == pytest.approx(_chernoff_numeric(eps, T, ep), rel=1e-6)


def test_cor3_printed_is_below_exact_pure_dp_delta():
    """He, Wang, Tao, Corollary 3: the printed δ″ is below the exact δ of pure ε-DP steps, so as printed it is false."""
    ep = float(cor3_epsilon(0.1, 100, 1e-5))
    exact_pure = optimal_delta(0.1, 0.0, 100, ep)
    assert exact_pure == pytest.approx(6.248616e-8, rel=1e-6)
    assert np.exp(cor3_log_delta_double_prime(0.1, 100, ep, "as_printed")) < exact_pure
    assert cor3_delta(0.1, 1e-5, 100, 1e-5) == pytest.approx(9.810e-4, rel=5e-4)
    assert cor3_delta(0.1, 1e-5, 100, 1e-5, "as_printed") == pytest.approx(9.763e-4, rel=5e-4)


def test_reference_min_epsilon_at_target():
    expected = {
        100: [10, 5.3681, 4.8160, 4.8155, 4.7915, 4.7915, 3.7757],
        1000: [100, 40.7653, 24.5482, 20.7696, 20.6753, 18.5681, 22.4286],
        1020: [np.inf, np.inf, np.inf, 21.4502, 21.3493, 18.8031, np.inf],
    }
    for T, values in expected.items():
        got = [min_epsilon_at_target(m, 0.1, 1e-7, T, 1e-4, n_scan=20000) for m in MIN_EPSILON_METHODS]
        for method, g, v in zip(MIN_EPSILON_METHODS, got, values):
            if np.isinf(v):
                assert np.isinf(g), (T, method)
            else:
                assert g == pytest.approx(v, abs=0.01), (T, method)
    with pytest.raises(ValueError, match="method='x' is not allowed"):
        min_epsilon_at_target("x", 0.1, 1e-7, 10, 1e-4)


def test_reference_sweep_values():
    ep = kov_epsilon(0.1, 1000, 1e-6)
    assert kov_delta(1e-6, 1000, 1e-6) == pytest.approx(1.000500e-3, rel=1e-6)
    assert cor2_delta(0.1, 1e-6, 1000, ep, 1e-6) == pytest.approx(9.616520e-4, rel=1e-6)
    assert lower_bound_delta(1e-6, 1000) == pytest.approx(9.995007e-4, rel=1e-6)
    assert optimal_delta(0.1, 1e-6, 1000, ep) == pytest.approx(9.995226e-4, rel=1e-6)
    ep = kov_epsilon(0.1, 10000, 1e-6)
    assert cor2_delta(0.1, 1e-6, 10000, ep, 1e-6) == pytest.approx(9.529903e-3, rel=1e-6)
    assert lower_bound_delta(1e-6, 10000) == pytest.approx(9.950171e-3, rel=1e-6)
    assert cor2_delta(1.0, 1e-6, 1000, kov_epsilon(1.0, 1000, 1e-6), 1e-6) == pytest.approx(8.293620e-4, rel=1e-6)


def test_reference_brute_force_and_violation_table():
    p, q = kov_pair(0.5, 1e-3)
    assert optimal_delta(0.5, 1e-3, 8, 4.0) == pytest.approx(7.972056e-3, rel=1e-6)
    assert brute_force_product_delta(p, q, 8, 4.0) == pytest.approx(7.972056e-3, rel=1e-6)
    assert cor2_delta(0.5, 1e-3, 8, 4.0, 1e-6) == pytest.approx(7.986177e-3, rel=1e-6)
    assert cor2_delta(0.5, 1e-3, 8, 4.0, 0.0) == pytest.approx(7.985177e-3, rel=1e-6)
    rows = [
        ((0.1179, 3.16e-4, 28, 1.69e-5), 3.05554, 8.810366e-3, 8.808942e-3, 8.807308e-3, 1.132e-2),
        ((0.35, 1e-3, 40, 2e-4), 11.5614, 3.923045e-2, 3.878464e-2, 3.861979e-2, 42.7),
        ((0.01, 1e-5, 100, 1e-7), 0.530652, 9.995058e-4, 9.975537e-4, 9.975070e-4, 9.983360e-4),
    ]
    for (e, d, T, dt), ep_v, exact, cor2, box, literal in rows:
        ep = kov_epsilon(e, T, dt)
        assert ep == pytest.approx(ep_v, rel=2e-6)
        assert optimal_delta(e, d, T, ep) == pytest.approx(exact, rel=1e-6)
        assert cor2_delta(e, d, T, ep, dt) == pytest.approx(cor2, rel=1e-6) and cor2 < exact
        assert thm4_delta(e, d, T, ep, dt) == pytest.approx(box, rel=1e-6)
        # printed to 3-4 digits; a literal delta' above 1 (42.7) certifies nothing and is returned as 1
        assert thm4_delta(e, d, T, ep, dt, "literal") == pytest.approx(min(literal, 1.0), rel=1.5e-3)


# --- exact optimal composition against brute force and dp_accounting ---------------------------------------------


@pytest.mark.parametrize("T", range(1, 9))
def test_optimal_delta_equals_brute_force(T):
    rng = np.random.default_rng(T)
    for _ in range(6):
        eps, delta = rng.uniform(0.01, 2.0), rng.choice([0.0, 1e-6, 1e-3, rng.uniform(0, 0.6)])
        eps_prime = rng.uniform(0, T * eps)
        p, q = kov_pair(eps, delta)
        assert optimal_delta(eps, delta, T, eps_prime) == pytest.approx(
            brute_force_product_delta(p, q, T, eps_prime), rel=1e-10, abs=1e-15
        )


def test_kov_pair_is_exactly_eps_delta_dp():
    p, q = kov_pair(0.7, 0.01)
    assert brute_force_product_delta(p, q, 1, 0.7) == pytest.approx(0.01, rel=1e-12)
    assert brute_force_product_delta(q, p, 1, 0.7) == pytest.approx(0.01, rel=1e-12)


def test_optimal_delta_upper_bounds_random_eps_delta_pairs():
    """KOV Thm 3.3 is an upper bound for every (ε, δ)-DP pair: random pairs on 3 atoms, scaled to be exactly DP."""
    rng = np.random.default_rng(7)
    for _ in range(30):
        eps, T = rng.uniform(0.1, 1.5), int(rng.integers(2, 5))
        p, q = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
        delta = max(brute_force_product_delta(p, q, 1, eps), brute_force_product_delta(q, p, 1, eps))
        eps_prime = rng.uniform(0, T * eps)
        assert brute_force_product_delta(p, q, T, eps_prime) <= optimal_delta(eps, delta, T, eps_prime) + 1e-14


@pytest.mark.parametrize("eps,delta,T,target", [(0.1, 1e-6, 100, 1e-4), (0.5, 1e-5, 20, 1e-3), (1.0, 0.0, 10, 1e-6)])
def test_optimal_epsilon_against_dp_accounting(eps, delta, T, target):
    """dp_accounting's advanced_composition returns the smallest lattice point (T−2i)ε of KOV Thm 3.3 that works."""
    lattice = accountant.advanced_composition(common.DifferentialPrivacyParameters(eps, delta), T, target)
    ours = optimal_epsilon(eps, delta, T, target)
    assert ours <= lattice + 1e-9 and ours > lattice - 2 * eps
    assert optimal_delta(eps, delta, T, ours) == pytest.approx(target, rel=1e-6)


def test_optimal_epsilon_infeasible_below_lower_bound():
    assert np.isinf(optimal_epsilon(0.1, 1e-7, 1020, 1e-4))
    assert np.isinf(optimal_epsilon(0.5, 1e-3, 20, 1e-2))  # 1 − (1 − 1e-3)^20 = 0.0198 > 0.01
    assert accountant.advanced_composition(common.DifferentialPrivacyParameters(0.5, 1e-3), 20, 1e-2) is None


def test_optimal_log_delta_finite_when_delta_underflows():
    value = optimal_log_delta(1.0, 0.0, 50, 49.0)
    exact = mpmath.log(mpmath.binomial(50, 50) * (mpmath.e / (1 + mpmath.e)) ** 50 * (1 - mpmath.e ** (49 - 50)))
    assert np.isfinite(value) and value == pytest.approx(float(exact), rel=1e-12)
    assert optimal_log_delta(1.0, 0.0, 50, 50.0) == -np.inf


# --- lower bound 1 − (1 − δ)^T: every valid method respects it; He, Wang, Tao's Cor 2 and Thm 4 do not --------


def test_lower_bound_against_mpmath_and_log_space():
    for delta, T in [(1e-5, 100), (1e-300, 1000), (0.3, 7)]:
        with mpmath.workdps(400):
            exact = 1 - (1 - mpmath.mpf(delta)) ** T
        assert lower_bound_delta(delta, T) == pytest.approx(float(exact), rel=1e-12)
        with mpmath.workdps(400):
            assert log_lower_bound_delta(delta, T) == pytest.approx(float(mpmath.log(exact)), rel=1e-12)
    assert log_lower_bound_delta(0.0, 10) == -np.inf


def test_valid_methods_respect_lower_bound_on_grid():
    for eps, delta, T, dt in itertools.product([0.01, 0.1, 1.0], [1e-7, 1e-4, 1e-2], [1, 10, 100, 1000], [1e-8, 1e-4]):
        floor = lower_bound_delta(delta, T)
        ep = kov_epsilon(eps, T, dt)
        assert kov_delta(delta, T, dt) >= floor
        assert drv_delta(delta, T, dt) >= floor
        assert basic_composition(eps, delta, T)[1] >= floor
        assert optimal_delta(eps, delta, T, ep) >= floor * (1 - 1e-12)
        assert optimal_delta(eps, delta, T, ep) <= kov_delta(delta, T, dt) * (1 + 1e-12)  # KOV 3.4 is valid


def test_paper_respects_lower_bound_for_small_T_brute_force():
    """Brute force: for T ≤ 6 Cor 2 and Thm 4 are not violated (their own ε′ forces c = T or a large δ̃)."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        T, eps = int(rng.integers(2, 7)), float(rng.uniform(0.01, 3.0))
        delta, dt = float(rng.uniform(0.01, 0.9)), float(10 ** rng.uniform(-8, -0.1))
        ep = float(kov_epsilon(eps, T, dt))
        p, q = kov_pair(eps, delta)
        exact = brute_force_product_delta(p, q, T, ep)
        assert cor2_delta(eps, delta, T, ep, dt) >= exact - 1e-12
        assert thm4_delta(eps, delta, T, ep, dt) >= exact - 1e-12


# --- Theorem 4: the homogeneous max against enumeration of I; heterogeneous groups --------------------------------


def _thm4_by_enumeration(eps_steps, delta_steps, eps_prime, dt, box=True):
    """Max over I by listing which coordinates sit at ε_i and which single one is free."""
    e, d = np.asarray(eps_steps), np.asarray(delta_steps)
    a = d / (1 + np.exp(e))
    T = len(e)
    best = -np.inf
    for at_eps in itertools.product([0, 1], repeat=T):
        mask = np.array(at_eps, bool)
        r = eps_prime - e[mask].sum()
        alpha_sets = []
        if abs(r) < 1e-12:
            alpha_sets.append(np.where(mask, e, 0.0))
        for j in np.flatnonzero(~mask):
            if r > 0 and (not box or r <= e[j] + 1e-12):
                alpha = np.where(mask, e, 0.0)
                alpha[j] = r
                alpha_sets.append(alpha)
        for alpha in alpha_sets:
            best = max(best, 1 - np.prod(1 - np.exp(alpha) * a))
    return best + 1 - np.prod(1 - a) + dt


def test_thm4_homogeneous_matches_enumeration():
    for eps, delta, T, ep, dt in [(0.3, 0.05, 5, 0.75, 1e-3), (1.0, 0.1, 6, 2.5, 0.0), (0.2, 0.2, 4, 0.8, 1e-4)]:
        assert thm4_delta(eps, delta, T, ep, dt) == pytest.approx(_thm4_by_enumeration([eps] * T, [delta] * T, ep, dt))
        assert thm4_delta(eps, delta, T, ep, dt, "literal") == pytest.approx(
            _thm4_by_enumeration([eps] * T, [delta] * T, ep, dt, box=False)
        )
    with pytest.raises(ValueError, match="reading='wide' is not allowed"):
        thm4_delta(0.1, 0.1, 3, 0.2, 0.0, "wide")


def test_thm4_heterogeneous_matches_enumeration_and_homogeneous():
    eps_steps, delta_steps = [0.2, 0.2, 0.5, 0.5, 1.0], [0.01, 0.01, 0.05, 0.05, 0.1]
    for ep in [0.3, 0.9, 1.45, 2.4]:
        assert thm4_delta_heterogeneous(eps_steps, delta_steps, ep, 1e-4) == pytest.approx(
            _thm4_by_enumeration(eps_steps, delta_steps, ep, 1e-4)
        )
    ep = kov_epsilon(0.1, 100, 1e-5)
    assert thm4_delta_heterogeneous([0.1] * 100, [1e-5] * 100, ep, 1e-5) == pytest.approx(
        thm4_delta(0.1, 1e-5, 100, ep, 1e-5), rel=1e-12
    )
    assert kov_epsilon_heterogeneous([0.1] * 100, 1e-5) == pytest.approx(kov_epsilon(0.1, 100, 1e-5), rel=1e-12)


def test_cor2_upper_bounds_thm4_box():
    for eps, delta, T, dt in itertools.product([0.05, 0.5], [1e-6, 1e-3], [10, 300], [1e-6]):
        ep = kov_epsilon(eps, T, dt)
        assert cor2_delta(eps, delta, T, ep, dt) >= thm4_delta(eps, delta, T, ep, dt) - 1e-15


# --- small references ---------------------------------------------------------------------------------------------


def test_lemma5_and_drv_against_dp_accounting_style_closed_forms():
    assert kl_bound_lemma5(1.0) == pytest.approx(float(mpmath.mpf(1) * mpmath.tanh(0.5)), rel=1e-15)
    eps, T, dt = np.array([0.01, 0.1, 1.0]), 50, 1e-6
    assert np.allclose(drv_epsilon(eps, T, dt), T * eps * (np.exp(eps) - 1) + eps * np.sqrt(2 * T * np.log(1 / dt)))
    assert basic_composition(0.1, 1e-5, 10) == pytest.approx((1.0, 1e-4))


def test_vectorised_over_arrays():
    eps = np.array([0.01, 0.1, 1.0])
    ep = kov_epsilon(eps, 100, 1e-5)
    assert ep.shape == (3,)
    values = cor2_delta(eps, 1e-5, 100, ep, 1e-5)
    assert values.shape == (3,) and np.allclose(values, [cor2_delta(e, 1e-5, 100, x, 1e-5) for e, x in zip(eps, ep)])


def test_bad_input_names_argument():
    with pytest.raises(ValueError, match="delta=1.5 is invalid; allowed: 0 <= delta < 1"):
        kov_delta(1.5, 10, 1e-5)
    with pytest.raises(ValueError, match="T=2.5 is invalid; allowed: a whole number >= 1"):
        kov_delta(1e-5, 2.5, 1e-5)
    with pytest.raises(ValueError, match="delta_tilde"):
        kov_epsilon(0.1, 10, 0.0)
    with pytest.raises(ValueError, match="variant='x' is not allowed"):
        cor3_log_delta_double_prime(0.1, 10, 0.5, "x")


def test_heterogeneous_brute_force_is_the_homogeneous_one_and_a_single_hockey_stick():
    """Equal rows: the KOV closed form (Thm 3.3); one row: the hockey-stick Σ[p − e^ε′ q]_+ written out by hand;
    two different pure steps: the four outcomes of two randomized responses summed by hand."""
    from dplab.accounting.composition import brute_force_heterogeneous_product_delta

    p, q = kov_pair(0.3, 1e-3)
    homogeneous = brute_force_heterogeneous_product_delta(np.array([p] * 5), np.array([q] * 5), 0.7)
    assert homogeneous == pytest.approx(optimal_delta(0.3, 1e-3, 5, 0.7), rel=1e-12)
    single = brute_force_heterogeneous_product_delta(np.array([p]), np.array([q]), 0.1)
    assert single == pytest.approx(sum(max(a - np.exp(0.1) * b, 0.0) for a, b in zip(p, q)), rel=1e-14)
    e1, e2, target = 0.5, 1.0, 0.2
    rr = [(np.exp(e) / (1 + np.exp(e)), 1 / (1 + np.exp(e))) for e in (e1, e2)]
    by_hand = sum(
        max(x1 * x2 - np.exp(target) * y1 * y2, 0.0)
        for (x1, y1), (x2, y2) in itertools.product(
            [(rr[0][0], rr[0][1]), (rr[0][1], rr[0][0])], [(rr[1][0], rr[1][1]), (rr[1][1], rr[1][0])]
        )
    )
    pairs = [kov_pair(e, 0.0) for e in (e1, e2)]
    got = brute_force_heterogeneous_product_delta(
        np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]), target
    )
    assert got == pytest.approx(by_hand, rel=1e-14)


def test_kov_pair_as_printed_repeats_the_middle_masses_and_is_milder():
    """Appendix B.4 as printed: P1 = (0, P0's middle masses, delta); its T-fold delta at eps' equals the floor
    1 - (1 - delta)^T (only the atoms 0 and 3 carry privacy loss), below the corrected (swapped) pair's."""
    p0, p1 = kov_pair(0.5, 1e-3, "as_printed")
    assert p1.tolist() == [0.0, p0[1], p0[2], 1e-3]
    printed = brute_force_product_delta(p0, p1, 5, 1.0)
    assert printed == pytest.approx(1 - (1 - 1e-3) ** 5, rel=1e-12)
    assert brute_force_product_delta(*kov_pair(0.5, 1e-3), 5, 1.0) > 10 * printed


# ------------------------------------------------------------------ Lemma 6 (max of eq. (11) on the boundary)


def test_lemma6_two_coordinates_against_a_fine_curve() -> None:
    """T = 2: the constraint set is the curve α_2 = c/α_1, α_1 in [max(1, c/c_2), min(c_1, c)]; its max on 10^6
    points (ends included) equals the boundary maximum (an end of the curve)."""
    a, caps = np.array([0.3, 0.1]), np.array([3.0, 5.0])
    for product in (2.0, 6.0, 12.0):
        alpha1 = np.linspace(max(1.0, product / caps[1]), min(caps[0], product), 1_000_001)
        curve = lemma6_objective(np.stack([alpha1, product / alpha1], axis=-1), a)
        assert lemma6_boundary_maximum(a, caps, product) == pytest.approx(curve.max(), abs=1e-14)


def test_lemma6_grid_never_beats_the_boundary_on_random_instances() -> None:
    """T = 3, 40 seeded instances with c_i A_i <= 1: the brute-force grid max (a lower bound on the true max) never
    exceeds the max over the points of eq. (12), and comes within 1e-2 of it (grid step log c_i/400)."""
    rng = np.random.default_rng(20260601)
    for _ in range(40):
        caps = np.exp(rng.uniform(0.1, 2.5, size=3))
        a = rng.uniform(0.05, 1.0, size=3) / caps
        product = float(np.exp(rng.uniform(0.0, np.log(caps).sum())))
        boundary = lemma6_boundary_maximum(a, caps, product)
        grid = lemma6_grid_maximum(a, caps, product, 401)
        assert grid <= boundary + 1e-12
        assert boundary - grid < 1e-2


def test_lemma6_boundary_maximum_is_theorem4_first_term() -> None:
    """With A_i = δ_i/(1+e^{ε_i}), c_i = e^{ε_i}, c = e^{ε′} (α_i = e^{a_i}), Lemma 6's maximum is the first term of
    Theorem 4's δ′ (box reading), which thm4_delta_heterogeneous enumerates by groups of identical steps."""
    eps, delta = np.array([0.5, 1.0, 2.0, 1.0]), np.array([0.1, 0.05, 0.2, 0.05])
    a = delta / (1 + np.exp(eps))
    for eps_prime in (1.0, 2.5, 4.0):
        theorem4 = thm4_delta_heterogeneous(eps, delta, eps_prime, 1e-9) - 1e-9 + np.expm1(np.log1p(-a).sum())
        assert lemma6_boundary_maximum(a, np.exp(eps), np.exp(eps_prime)) == pytest.approx(theorem4, abs=1e-14)


def test_lemma6_rejects_inputs_outside_its_hypotheses() -> None:
    with pytest.raises(ValueError, match="caps"):
        lemma6_boundary_maximum([0.5, 0.1], [3.0, 2.0], 2.0)  # c_1 A_1 = 1.5 > 1
    with pytest.raises(ValueError, match="product"):
        lemma6_boundary_maximum([0.1, 0.1], [3.0, 2.0], 7.0)  # above c_1 c_2 = 6
    with pytest.raises(ValueError, match="A"):
        lemma6_grid_maximum(np.full(5, 0.1), np.full(5, 2.0), 3.0, 11)  # T = 5 > 4 on a grid


# --- overflow: e^eps, e^eps' and the literal objective beyond float64 (issue 26) ---------------------------------


def _mp_thm4(eps, delta, T, eps_prime, delta_tilde, box):
    """Theorem 4's delta' in mpmath (60 digits): the max over m coordinates at eps and one free at eps' - m eps (only
    r <= eps in the box reading) of 1 - (1 - e^eps a)^m (1 - a)^(T-m-1) (1 - e^r a), plus 1 - (1 - a)^T + delta~."""
    with mpmath.workdps(60):
        e, d, ep = mpmath.mpf(eps), mpmath.mpf(delta), mpmath.mpf(eps_prime)
        a = d / (1 + mpmath.exp(e))
        values = []
        for m in range(0, min(int(mpmath.floor(ep / e + mpmath.mpf(1e-12))), T) + 1):
            r = max(ep - m * e, 0)
            if m == T:
                values.append(1 - (1 - mpmath.exp(e) * a) ** T)
            elif not box or r <= e * (1 + mpmath.mpf(1e-12)):
                values.append(1 - (1 - mpmath.exp(e) * a) ** m * (1 - a) ** (T - m - 1) * (1 - mpmath.exp(r) * a))
        return max(values) + 1 - (1 - a) ** T + delta_tilde


def test_thm4_literal_at_overflow_is_the_vacuous_one():
    """The literal objective overflowed (e^(eps' - m eps), eps' - m eps > 709) and read inf at (1, 1e-6, T = 2000) with
    the KOV eps' (1159.3); mpmath gives delta' = 8e496, so the bound is vacuous: 1. Literal values below 1 are
    unchanged (mpmath to 1e-12), those above 1 (the shipped T2 rows: 1162.2, 1.59e38, 2.07e266) are reported as 1."""
    ep = float(kov_epsilon(1.0, 2000, 1e-6))
    assert _mp_thm4(1.0, 1e-6, 2000, ep, 1e-6, box=False) > mpmath.mpf("1e400")
    assert thm4_delta(1.0, 1e-6, 2000, ep, 1e-6, "literal") == 1.0
    for eps, delta, T, dt in [(0.1, 1e-6, 1000, 1e-6), (0.1, 1e-6, 10000, 1e-6), (1.0, 1e-6, 1000, 1e-6)]:
        ep = float(kov_epsilon(eps, T, dt))
        assert _mp_thm4(eps, delta, T, ep, dt, box=False) > 1 and thm4_delta(eps, delta, T, ep, dt, "literal") == 1.0
    ep = float(kov_epsilon(0.01, 100, 1e-7))
    expected = float(_mp_thm4(0.01, 1e-5, 100, ep, 1e-7, box=False))
    assert thm4_delta(0.01, 1e-5, 100, ep, 1e-7, "literal") == pytest.approx(expected, rel=1e-12) and expected < 1


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("eps", [40.0, 709.0, 710.0, 800.0, 5000.0])
def test_cor2_and_thm4_finite_beyond_exp_overflow_mpmath(eps):
    """e^eps a = delta e^eps/(1 + e^eps) read inf * 0 = NaN beyond eps = 709.78 in Cor 2, Theorem 4 (both forms) and the
    KOV pair; now within 1e-12 of mpmath and without a warning."""
    delta, T, dt = 1e-6, 3, 1e-6
    ep = 1.5 * eps
    expected = float(_mp_thm4(eps, delta, T, ep, dt, box=True))
    assert thm4_delta(eps, delta, T, ep, dt) == pytest.approx(expected, rel=1e-12)
    assert thm4_delta_heterogeneous([eps] * T, [delta] * T, ep, dt) == pytest.approx(expected, rel=1e-12)
    with mpmath.workdps(60):
        a = mpmath.mpf(delta) / (1 + mpmath.exp(eps))
        cor2 = 1 - (1 - mpmath.exp(eps) * a) ** 2 * (1 - a) + 1 - (1 - a) ** T + dt  # c = ceil(1.5) = 2
        heavy = (1 - mpmath.mpf(delta)) * mpmath.exp(eps) / (1 + mpmath.exp(eps))
    assert cor2_delta(eps, delta, T, ep, dt) == pytest.approx(float(cor2), rel=1e-12)
    p0, p1 = kov_pair(eps, delta)
    assert p0[1] == pytest.approx(float(heavy), rel=1e-15) and p0.sum() == pytest.approx(1.0, rel=1e-15)


@pytest.mark.filterwarnings("error")
def test_brute_force_delta_beyond_exp_overflow_keeps_atoms_q_never_reaches():
    """e^eps' Q read inf * 0 = NaN at eps' > 709.78 on atoms with Q = 0; those atoms keep their P mass: with the KOV
    pair (eps = 1, delta = 1e-3), T = 2, eps' = 800 only the outcomes Q never produces count, 1 - (1 - delta)^2."""
    assert brute_force_product_delta(*kov_pair(1.0, 1e-3), 2, 800.0) == pytest.approx(1 - (1 - 1e-3) ** 2, rel=1e-12)
