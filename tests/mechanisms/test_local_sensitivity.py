"""Tests of dplab.mechanisms.local_sensitivity (Algorithms 9-11 of Lin, Wang, Ma, Wang on triangle counting)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dplab.mechanisms.local_sensitivity import (
    alg11_parameters,
    bounded_local_sensitivity_release,
    edge_flip_changes,
    edge_flip_summary,
    global_sensitivity_laplace,
    propose_test_release,
    ptr_distance_lower_bound,
    pure_propose_test_release,
    purified_local_sensitivity_release,
    quartic_log_density,
    random_graph,
    release_errors,
    sample_quartic,
    smooth_sensitivity_beta,
    smooth_sensitivity_mechanism,
    triangle_alg10_release,
    triangle_alg11_release,
    triangle_count,
    triangle_global_sensitivity,
    triangle_local_sensitivity,
    triangle_smooth_sensitivity,
)


def _triangles_bruteforce(a: np.ndarray) -> int:
    n = a.shape[0]
    return sum(1 for i, j, k in itertools.combinations(range(n), 3) if a[i, j] and a[j, k] and a[i, k])


def _flip(a: np.ndarray, i: int, j: int) -> np.ndarray:
    b = a.copy()
    b[i, j] = b[j, i] = 1 - b[i, j]
    return b


# ------------------------ Algorithm 11 on triangle counts, n_v = 500, ε = 1: reference values recomputed (4-6 digits)


def test_alg11_parameters_check_values_n500():
    R = math.comb(500, 3)
    assert R == 20_708_500
    p = alg11_parameters(R, 1.0)
    assert math.exp(p.log_omega) == pytest.approx(4.829e-8, rel=1e-3)
    assert p.log_inv_delta == pytest.approx(35.7716, rel=1e-4)
    assert p.bound_offset == pytest.approx(36.4647, rel=1e-5)
    assert p.shift == pytest.approx(0.125, rel=1e-9)
    assert p.laplace_scale == pytest.approx(0.25, rel=1e-9)
    assert triangle_global_sensitivity(500) / 1.0 == 498


def test_alg11_parameters_n200_and_direct_formula():
    R = math.comb(200, 3)
    p = alg11_parameters(R, 1.0)
    assert p.log_inv_delta == pytest.approx(30.26, abs=5e-3)
    assert triangle_global_sensitivity(200) == 198
    # independent: δ = 2ω/(16 d R ε)^d with ω = min(1/100, 1/(R ε²)), at a point where ω = 1/100 binds
    small = alg11_parameters(50.0, 0.5)
    omega = min(0.01, 1 / (50 * 0.25))
    assert math.exp(small.log_omega) == pytest.approx(omega)
    assert math.exp(small.log_delta) == pytest.approx(2 * omega / (16 * 50 * 0.5))
    assert small.shift == pytest.approx(2 * 50 * math.exp(small.log_delta) / (2 * omega))
    assert small.shift == pytest.approx(1 / (8 * 0.5))  # Δ = 1/(8√d ε)


def test_alg11_parameters_rejects_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        alg11_parameters(10.0, 0.0)
    with pytest.raises(ValueError, match="diameter"):
        alg11_parameters(-1.0, 1.0)


# --------------------------------------------------------------------------------------- the query, brute force


@pytest.mark.parametrize("seed", range(4))
def test_triangle_count_and_local_sensitivity_bruteforce(seed):
    rng = np.random.default_rng(seed)
    a = random_graph(7, 0.5, rng)
    assert triangle_count(a) == _triangles_bruteforce(a)
    q0 = _triangles_bruteforce(a)
    changes = [abs(_triangles_bruteforce(_flip(a, i, j)) - q0) for i, j in itertools.combinations(range(7), 2)]
    assert triangle_local_sensitivity(a) == max(changes)
    ls_changes = [
        abs(triangle_local_sensitivity(_flip(a, i, j)) - triangle_local_sensitivity(a))
        for i, j in itertools.combinations(range(7), 2)
    ]
    assert max(ls_changes) <= 1
    dq, dls = edge_flip_changes(a)
    assert np.array_equal(dq, changes) and dls.max() <= 1


def test_global_sensitivity_attained_by_complete_graph_minus_edge():
    n = 6
    k = np.ones((n, n)) - np.eye(n)
    assert _triangles_bruteforce(k) - _triangles_bruteforce(_flip(k, 0, 1)) == triangle_global_sensitivity(n)
    assert triangle_local_sensitivity(k) == n - 2


# ------------------------------------------------------------------------------------------------ Algorithm 9-10


def test_ptr_distance_lower_bound_zero_iff_local_sensitivity_exceeds_beta():
    for beta in (0.0, 2.5, 7.0):
        for ls in range(12):
            d = ptr_distance_lower_bound(ls, beta)
            assert (d == 0) == (ls > beta)
            assert abs(ptr_distance_lower_bound(ls + 1, beta) - d) <= 1


def test_ptr_refusal_rate_matches_laplace_cdf():
    rng = np.random.default_rng(1)
    eps, log_delta, distance = 0.7, math.log(1e-3), 8.0
    _, refused = propose_test_release(10.0, distance, 3.0, eps, log_delta, 200_000, rng)
    exact = stats.laplace.cdf(-log_delta / eps - distance, scale=1 / eps)
    assert abs(refused.mean() - exact) < 4 * math.sqrt(exact * (1 - exact) / 200_000)


def test_pure_ptr_refusal_maps_to_uniform_and_release_is_laplace():
    rng = np.random.default_rng(2)
    p = alg11_parameters(100.0, 1.0)
    out, refused = pure_propose_test_release(
        40.0, 0.0, 3.0, 1.0, 1.0, p.log_delta, p.log_omega, 0.0, 100.0, 50_000, rng
    )
    assert refused.mean() > 0.99
    assert stats.kstest(out, stats.uniform(0, 100).cdf).statistic < 0.02
    big = alg11_parameters(1e6, 1.0)  # ω = 1e-6: mixing negligible
    out, refused = pure_propose_test_release(
        4e5, 200.0, 3.0, 1.0, 1.0, big.log_delta, big.log_omega, 0.0, 1e6, 100_000, rng
    )
    assert refused.mean() == 0
    # Lap(β/ε) + Lap(b) (+ a rare uniform draw): E|X + Y| = (a³ − b³)/(a² − b²) for a = β/ε = 3, b = 0.25;
    # trimmed at 100 so that a single mixing draw (probability ω per output) cannot dominate the mean
    a, b = 3.0, big.laplace_scale
    err = np.abs(out - 4e5)
    assert np.mean(err[err < 100]) == pytest.approx((a**3 - b**3) / (a**2 - b**2), rel=0.015)


# ----------------------------------------------------------------------------------------------------- Alg. 11


def test_bounded_local_sensitivity_release_moments_and_domain():
    rng = np.random.default_rng(3)
    eps, log_delta = 0.5, math.log(1e-4)
    q_apx, beta_hat = bounded_local_sensitivity_release(1e6, 10.0, eps, log_delta, 0.0, 2e6, 200_000, rng)
    expected = 10.0 + (math.log(2.0) - log_delta) / eps
    assert abs(beta_hat.mean() - expected) < 4 * math.sqrt(2) / eps / math.sqrt(200_000)
    # E|q_apx − q| = E[β̂]/ε (no clipping at this scale)
    assert np.mean(np.abs(q_apx - 1e6)) == pytest.approx(expected / eps, rel=0.01)
    q_apx, _ = bounded_local_sensitivity_release(1.0, 10.0, eps, log_delta, 0.0, 5.0, 1000, rng)
    assert q_apx.min() >= 0.0 and q_apx.max() <= 5.0


def test_purified_release_adds_laplace_b_to_q_apx():
    rng = np.random.default_rng(4)
    p = alg11_parameters(float(math.comb(100, 3)), 1.0)
    q_pure, q_apx = purified_local_sensitivity_release(5000.0, 12.0, p, 0.0, 100_000, rng)
    assert q_apx.min() >= 0 and q_apx.max() <= p.diameter
    assert stats.kstest(q_pure - q_apx, stats.laplace(scale=p.laplace_scale).cdf).pvalue > 1e-3


def test_global_sensitivity_laplace_scale():
    rng = np.random.default_rng(5)
    out = global_sensitivity_laplace(0.0, 498.0, 1.0, 100_000, rng)
    assert np.mean(np.abs(out)) == pytest.approx(498.0, rel=0.02)


# ------------------------------------------------------------------------------------------- NRS07 baseline


def test_quartic_density_normalised_and_sampler():
    total = integrate.quad(lambda z: math.exp(quartic_log_density(z)), -np.inf, np.inf)[0]
    assert total == pytest.approx(1.0, rel=1e-9)
    rng = np.random.default_rng(6)
    z = sample_quartic(200_000, rng)
    inside = integrate.quad(lambda x: math.exp(quartic_log_density(x)), -1, 1)[0]
    assert abs(np.mean(np.abs(z) <= 1) - inside) < 4 * math.sqrt(inside * (1 - inside) / z.size)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 3.0])
def test_quartic_admissibility_constants_numerically(epsilon):
    """NRS07 Lemma 2.10 with γ = 4: sliding by α and dilation by β = ε/(2(γ+1)) each cost ≤ ε/2 (pointwise)."""
    a = smooth_sensitivity_beta(epsilon)
    z = np.linspace(-200, 200, 400_001)
    sliding = np.max(np.abs(quartic_log_density(z + a) - quartic_log_density(z)))
    dilation = np.max(np.abs(a + quartic_log_density(np.exp(a) * z) - quartic_log_density(z)))
    assert sliding <= epsilon / 2 and dilation <= epsilon / 2


@pytest.mark.parametrize("ls", [0.0, 3.0, 40.0])
def test_smooth_sensitivity_mechanism_is_epsilon_dp_on_neighbours(ls):
    """Exact output densities of q + (S/α)Z on an edge flip (q' = q ± Δ_Local, Δ_Local' = Δ_Local ± 1)."""
    eps, n_v = 1.0, 60
    beta = smooth_sensitivity_beta(eps)
    x = np.linspace(-3000, 3000, 200_001)
    worst = 0.0
    for dls in (-1.0, 1.0):
        if ls + dls < 0:
            continue
        s1, s2 = triangle_smooth_sensitivity(ls, n_v, beta), triangle_smooth_sensitivity(ls + dls, n_v, beta)
        for shift in (-max(ls, ls + dls), max(ls, ls + dls)):
            f1 = np.log(beta / s1) + quartic_log_density((x - 0.0) * beta / s1)
            f2 = np.log(beta / s2) + quartic_log_density((x - shift) * beta / s2)
            worst = max(worst, float(np.max(np.abs(f1 - f2))))
    assert worst <= eps + 1e-9


def test_smooth_sensitivity_is_smooth_upper_bound():
    beta, n_v = 0.1, 50
    values = [triangle_smooth_sensitivity(ls, n_v, beta) for ls in range(n_v - 1)]
    for ls, s in enumerate(values):
        assert s >= ls
        if ls + 1 < len(values):
            assert values[ls + 1] <= math.exp(beta) * s + 1e-12 and s <= math.exp(beta) * values[ls + 1] + 1e-12
    # brute-force maximum over k
    k = np.arange(0, 1000)
    assert values[3] == pytest.approx(np.max(np.exp(-beta * k) * np.minimum(3 + k, n_v - 2)))
    rng = np.random.default_rng(7)
    out = smooth_sensitivity_mechanism(100.0, values[3], 1.0, 1000, rng)
    assert np.all(np.isfinite(out))


def test_edge_flip_summary_on_the_complete_graph_and_a_path():
    """K_5 (every flip removes n_v - 2 = 3 triangles, Delta_Local = 3) and the path 0-1-2-3 (Delta_Local = 1): the
    summary's maxima are those of the per-flip brute force, and Delta_Local is the largest change of q on both."""
    complete = np.ones((5, 5)) - np.eye(5)
    path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)
    summary = edge_flip_summary([complete, path])
    flips = [edge_flip_changes(a) for a in (complete, path)]
    assert summary["max_triangle_change"] == max(dq.max() for dq, _ in flips) == 3.0
    assert summary["max_local_sensitivity_change"] == max(dls.max() for _, dls in flips) <= 1.0
    assert summary["local_sensitivity_matches"] == 2
    with pytest.raises(ValueError, match="graphs"):
        edge_flip_summary([])


def test_release_errors_skip_refusals():
    errors = release_errors(np.array([1.0, np.nan, 4.0, -np.inf, 2.0]), 0.5)
    assert errors["median_abs_error"] == 1.5 and errors["mean_abs_error"] == pytest.approx(5.5 / 3)
    assert errors["median_relative_error"] == 1.5  # divided by max(q, 1) = 1
    assert math.isnan(release_errors(np.array([np.nan]), 7.0)["mean_relative_error"])
    assert release_errors(np.array([9.0, 11.0]), 10.0)["mean_relative_error"] == pytest.approx(0.1)


def test_triangle_releases_compose_the_count_and_algorithms_11_and_10():
    """On K4 (4 triangles by brute force, Delta_Local = 2): Algorithm 11's release is purified_local_sensitivity_release
    at (4, 2) from the same generator; Algorithm 10's with beta = 5 (distance bound 4) releases a finite value in
    every draw (a refusal is replaced by a uniform point, then purified)."""
    k4 = np.ones((4, 4)) - np.eye(4)
    params = alg11_parameters(4.0, 1.0)
    expected = purified_local_sensitivity_release(
        _triangles_bruteforce(k4), 2.0, params, 0.0, 500, np.random.default_rng(3)
    )
    np.testing.assert_array_equal(triangle_alg11_release(k4, params, 500, np.random.default_rng(3)), expected[0])
    released = triangle_alg10_release(k4, params, 5.0, 500, np.random.default_rng(4))
    assert released.shape == (500,) and np.all(np.isfinite(released))


def _triangles(a: np.ndarray) -> int:
    """Triangle count by brute force over vertex triples."""
    n = a.shape[0]
    return sum(a[i, j] * a[j, k] * a[i, k] for i in range(n) for j in range(i + 1, n) for k in range(j + 1, n))


def test_random_graphs_edge_flip_check_against_brute_force():
    import itertools

    from dplab.mechanisms.local_sensitivity import random_graph, random_graphs_edge_flip_check

    out = random_graphs_edge_flip_check(3, 5, np.random.default_rng(8))
    assert (out["kind"], out["n_graphs"], out["check_vertices"], out["global_sensitivity"]) == (
        "sensitivity_check",
        4,
        5,
        3.0,
    )
    rng = np.random.default_rng(8)  # the same draws: three G(5, 1/2) graphs, then K5
    graphs = [random_graph(5, 0.5, rng) for _ in range(3)] + [np.ones((5, 5)) - np.eye(5)]
    largest = 0
    for a in graphs:
        for i, j in itertools.combinations(range(5), 2):
            flipped = a.copy()
            flipped[i, j] = flipped[j, i] = 1 - a[i, j]
            largest = max(largest, abs(_triangles(flipped) - _triangles(a)))
    assert out["max_triangle_change"] == largest == 3  # K5 minus an edge: the global sensitivity n_v - 2
    assert out["max_local_sensitivity_change"] <= 1 and out["local_sensitivity_matches"] == 4


def test_k5_audit_parameters_written_out():
    import math

    from dplab.mechanisms.local_sensitivity import k5_audit_parameters

    params, beta = k5_audit_parameters(3.0)
    eps, diameter = 1.0, 10.0  # eps_tot / 3 and C(5, 3)
    log_omega = min(math.log(0.01), -math.log(diameter) - 2 * math.log(eps))
    log_delta = math.log(2.0) + log_omega - math.log(16.0 * diameter * eps)
    assert params.log_delta == pytest.approx(log_delta, rel=1e-12)
    assert beta == 3.0 + math.ceil((-log_delta + 3) / eps)
