"""Purification theory used by the statement-by-statement claims: each formula against an independent computation
(hand algebra, brute-force finite laws, numerical minimisation) or a value worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from dplab.audit.pure_epsilon import pure_epsilon_from_log_pmfs
from dplab.theory.purification import (
    algorithm2_shift_as_printed,
    algorithm2_shift_corrected,
    algorithm7_shift,
    algorithm11_bound_log_failure,
    algorithm11_shift,
    algorithm13_shift,
    appendix_d_epsilon_bound,
    appendix_d_grid_side,
    convex_sgd_bound,
    convex_sgd_bound_as_printed,
    corollary4_parameters,
    folklore_epsilon,
    laplace_l1_tail,
    laplace_l2_mean,
    lemma14_min_tv,
    lemma25_schedule,
    lemma26_rho_as_printed,
    lemma48_threshold,
    mixed_worst_pair_epsilon,
    theorem2_log_delta_threshold,
    theorem9_log_delta_upper_as_printed,
    theorem9_proof_shift,
    theorem9_shift_requirement,
)


def _schedule():
    log_inv_delta = -corollary4_parameters(10**4, 10, 1.0, 1.0)["log_delta"]
    return lemma25_schedule(10**4, 10, 1.0, log_inv_delta, 1.0, 1.0)


def test_lemma26_printed_rho_is_t_times_the_composed_rho():
    s = _schedule()
    printed = lemma26_rho_as_printed(s["gamma"], s["steps"], s["sigma"], 1.0)
    assert printed == pytest.approx(s["steps"] * s["rho"], rel=1e-12)
    assert s["rho"] == pytest.approx(1.0 / (16 * 252.6861), rel=1e-5)  # eps^2/(16 log(1/delta)), log(1/delta) by hand


def test_convex_sgd_bound_minimum_is_twice_the_printed_value():
    s = _schedule()
    g2, steps = s["gradient_second_moment"], s["steps"]
    numeric = minimize_scalar(
        lambda log_eta: convex_sgd_bound(1.0, steps, g2, math.exp(log_eta)), bounds=(-40, 0), method="bounded"
    )
    assert numeric.fun == pytest.approx(convex_sgd_bound(1.0, steps, g2, s["eta"]), rel=1e-8)
    assert convex_sgd_bound(1.0, steps, g2, s["eta"]) == pytest.approx(
        2 * convex_sgd_bound_as_printed(1.0, steps, g2), rel=1e-12
    )


@pytest.mark.parametrize(("n", "d"), [(1000, 10), (50, 3), (10**6, 2)])
def test_theorem9_printed_limit_is_16_times_the_appendix_limit(n, d):
    printed = theorem9_log_delta_upper_as_printed(n, d)
    corrected = -math.log(4.0) - d * math.log(n) - 2 * d * math.log(math.log(8 * d))
    assert printed - corrected == pytest.approx(math.log(16.0), abs=1e-9)
    requirement = theorem9_shift_requirement(n, d)
    assert theorem9_proof_shift(d, corrected) == pytest.approx(requirement, rel=1e-9)
    assert theorem9_proof_shift(d, printed) / requirement == pytest.approx(16 ** (1 / d), rel=1e-9)


def test_theorem9_limit_check_value():
    """n = 1000, d = 10: the main text's limit is log delta = -97.24, the appendix's -100.014."""
    assert theorem9_log_delta_upper_as_printed(1000, 10) == pytest.approx(-97.2415, abs=1e-4)


@pytest.mark.parametrize("d", [2, 5, 10, 16])
def test_algorithm2_shifts_at_theorem2_threshold(d):
    """At delta = eps^d/(2d)^(3d), omega = 2^-d: corrected Delta = 2^((d-1)/d) eps/(4 d^2), printed half of it."""
    eps = 0.7
    log_delta = theorem2_log_delta_threshold(d, eps)
    corrected = algorithm2_shift_corrected(d, log_delta)
    assert corrected == pytest.approx(2 ** ((d - 1) / d) * eps / (4 * d**2), rel=1e-12)
    assert algorithm2_shift_as_printed(d, log_delta) == pytest.approx(corrected / 2, rel=1e-12)
    assert corrected <= eps / (4 * d)


def test_instantiation_shifts_check_values():
    """Algorithm 7 at n = 1e4, k = 240: 5.16398e-5; Algorithm 11 on triangle counts (n_v = 500, eps = 1):
    omega = 4.829e-8, Delta = 1/8; Algorithm 13: 1/(4 n^2 d)."""
    assert algorithm7_shift(10**4, 240, 1.0)["shift"] == pytest.approx(5.16398e-5, rel=1e-5)
    assert algorithm11_shift(1, 20708500.0, 1.0)["shift"] == pytest.approx(0.125, rel=1e-12)
    assert algorithm13_shift(10**3, 7, 2.5)["shift"] == pytest.approx(1 / (4e6 * 7), rel=1e-12)


def test_appendix_d_grid_side_by_hand():
    """d = 2, delta = 1e-6, omega = 0.01, R = 1: Delta = 2 sqrt(5e-5) log 2 = 0.0098026, K = 2 floor(102.01) = 204."""
    assert appendix_d_grid_side(2, 1.0, math.log(1e-6), math.log(0.01)) == 204
    with pytest.raises(ValueError, match="empty"):
        appendix_d_grid_side(10, 1.0, math.log(1e-6), math.log(0.01))
    with pytest.raises(ValueError, match="d >= 2"):
        appendix_d_grid_side(1, 1.0, math.log(1e-6), math.log(0.01))


def _brute_force_mixed_pair(eps: float, delta: float, cells: int, omega: float) -> float:
    c = (1 - delta) / (1 + math.exp(eps))
    p, q = np.zeros(cells), np.zeros(cells)
    p[:4] = (delta, c * math.exp(eps), c, 0.0)
    q[:4] = (0.0, c, c * math.exp(eps), delta)
    mixed_p, mixed_q = (1 - omega) * p + omega / cells, (1 - omega) * q + omega / cells
    return pure_epsilon_from_log_pmfs(np.log(mixed_p), np.log(mixed_q))


@pytest.mark.parametrize(
    ("eps", "delta", "cells", "omega"), [(0.0, 1e-3, 16, 0.1), (0.5, 1e-2, 4, 0.01), (2.0, 1e-4, 1000, 0.5)]
)
def test_mixed_worst_pair_epsilon_against_explicit_laws(eps, delta, cells, omega):
    exact = mixed_worst_pair_epsilon(eps, math.log(delta), math.log(cells), math.log(omega))
    assert exact == pytest.approx(_brute_force_mixed_pair(eps, delta, cells, omega), rel=1e-12, abs=1e-14)
    bound = appendix_d_epsilon_bound(eps, math.log(delta), math.log(cells), math.log(omega))
    assert bound == pytest.approx(folklore_epsilon(eps, delta, cells, omega), rel=1e-12)
    assert exact <= bound + 1e-12  # Appendix C's folklore bound is an upper bound


def test_mixed_worst_pair_epsilon_in_log_space():
    """|Y| = 10^300 cells, delta = 1e-300: (1 - omega) delta |Y|/omega = 99, so eps = log 100 (no overflow)."""
    value = mixed_worst_pair_epsilon(0.1, -300 * math.log(10), 300 * math.log(10), math.log(0.01))
    assert value == pytest.approx(math.log(100.0), rel=1e-9)


def test_lemma48_tail_check_value_and_monte_carlo():
    """k = 10, zeta = 0.01: threshold 29.2103, exact tail 1.2467e-5; k = 3 against 4e5 draws at threshold 6."""
    assert lemma48_threshold(10, 0.01) == pytest.approx(29.2103, abs=1e-4)
    assert laplace_l1_tail(10, lemma48_threshold(10, 0.01)) == pytest.approx(1.2467e-5, rel=1e-4)
    draws = np.abs(np.random.default_rng(7).laplace(size=(400_000, 3))).sum(axis=1)
    hits = float(np.mean(draws >= 6.0))
    exact = laplace_l1_tail(3, 6.0)
    assert exact == pytest.approx(25 * math.exp(-6.0), rel=1e-12)  # Q(3, t) = e^-t (1 + t + t^2/2)
    assert abs(hits - exact) < 4 * math.sqrt(exact * (1 - exact) / 400_000)


@pytest.mark.parametrize(("d", "reference"), [(1, 1.0), (10, 4.23683)])
def test_laplace_l2_mean_closed_form_and_check_value(d, reference):
    """d = 1: E|z| = 1; d = 10: 4.23683 (numerical integration check value)."""
    assert laplace_l2_mean(d) == pytest.approx(reference, rel=1e-5)


def test_laplace_l2_mean_against_monte_carlo():
    for d in (2, 50):
        norms = np.linalg.norm(np.random.default_rng(d).laplace(size=(200_000, d)), axis=1)
        error = 4 * norms.std() / math.sqrt(norms.size)
        assert abs(norms.mean() - laplace_l2_mean(d)) < error
        assert laplace_l2_mean(d) < math.sqrt(2 * d)  # Lemma 27 (Jensen)


def _hockey_stick(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    return max(np.clip(p - math.exp(eps) * q, 0, None).sum(), np.clip(q - math.exp(eps) * p, 0, None).sum())


def test_lemma14_min_tv_is_the_hockey_stick_over_e_eps_plus_one():
    """If (P, P') is eps-indistinguishable and within TV t of (p, q), then p(S) <= e^eps q(S) + t(1 + e^eps); Lemma 14
    gives the converse, so the programme's optimum equals delta(eps)/(e^eps + 1) for any pair of laws."""
    rng = np.random.default_rng(3)
    for eps in (0.0, 0.3, 1.5):
        p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        assert lemma14_min_tv(p, q, eps) == pytest.approx(_hockey_stick(p, q, eps) / (math.exp(eps) + 1), abs=1e-9)
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])
    assert lemma14_min_tv(p, q, 0.0) == pytest.approx(0.25, abs=1e-12)  # eps = 0: half of TV(p, q) = 0.5


def test_algorithm11_bound_log_failure():
    """P(Lap(1/eps) <= -log(2/delta)/eps) = delta/4 (against 1e6 draws at delta = 0.2, eps = 2); the triangle-count
    point has log(1/delta) = 35.7716."""
    assert math.exp(algorithm11_bound_log_failure(math.log(0.2))) == pytest.approx(0.05, rel=1e-12)
    draws = np.random.default_rng(11).laplace(scale=1 / 2.0, size=1_000_000)
    hits = float(np.mean(draws <= -math.log(2 / 0.2) / 2.0))
    assert abs(hits - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 1_000_000)
    instance = algorithm11_shift(1, 20708500.0, 1.0)
    assert -instance["log_delta"] == pytest.approx(35.7716, abs=1e-4)
    assert instance["omega"] == pytest.approx(4.829e-8, rel=1e-3)
