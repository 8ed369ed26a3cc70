"""Frank-Wolfe on the ℓ1 ball, private and purified (Algorithms 5-8), each piece against an independent reference:
the report-noisy-min law against the closed form of a Laplace difference (Monte Carlo with a confidence interval),
the non-private Frank-Wolfe against a quadratic with known minimiser and its O(1/T) bound, the linear programme of
Algorithm 8 against a brute-force grid and exact recovery, the ℓ1 projection against its KKT conditions."""

import math

import numpy as np
import pytest

from dplab.mechanisms.frank_wolfe import (
    QuadraticLoss,
    clip_l1,
    frank_wolfe_gap,
    frank_wolfe_l1,
    gaussian_sketch,
    l1_ball_minimiser,
    l1_vertex_scores,
    least_squares_loss,
    project_l1_ball,
    purified_frank_wolfe,
    report_noisy_min,
    sparse_recovery_lp,
)
from dplab.theory.frank_wolfe import algorithm7_parameters, lemma46_recovery_bound


def _laplace_difference_cdf(t: float, b: float) -> float:
    """P(L1 - L2 <= t) for i.i.d. Lap(b): 1 - ½ e^{-t/b}(1 + t/(2b)) for t >= 0 (symmetric below)."""
    upper = 1 - 0.5 * math.exp(-abs(t) / b) * (1 + abs(t) / (2 * b))
    return upper if t >= 0 else 1 - upper


@pytest.mark.parametrize(("gap", "scale"), [(0.0, 1.0), (0.3, 0.5), (1.0, 0.25)])
def test_report_noisy_min_of_two_scores_matches_the_closed_form(gap, scale):
    rng = np.random.default_rng(7)
    draws = 40_000
    wins = sum(report_noisy_min(np.array([0.0, gap]), scale, rng) == 0 for _ in range(draws))
    exact = _laplace_difference_cdf(gap, scale)  # index 0 wins iff L0 - L1 < gap
    assert abs(wins / draws - exact) <= 4.5 * math.sqrt(exact * (1 - exact) / draws) + 1e-12


def test_report_noisy_min_without_noise_is_the_argmin():
    assert report_noisy_min(np.array([3.0, -1.0, 2.0]), 0.0, np.random.default_rng(0)) == 1


def test_vertex_scores_order():
    np.testing.assert_allclose(l1_vertex_scores(np.array([1.0, -2.0]), 0.5), [0.5, -1.0, -0.5, 1.0])


def test_least_squares_loss_in_chunks_equals_the_direct_mean():
    rng = np.random.default_rng(1)
    x, y, theta = rng.standard_normal((37, 4)), rng.standard_normal(37), rng.standard_normal(4)
    loss = least_squares_loss([(x[:20], y[:20]), (x[20:], y[20:])])
    assert loss.value(theta) == pytest.approx(np.mean(0.5 * (x @ theta - y) ** 2), rel=1e-12)
    np.testing.assert_allclose(loss.gradient(theta), x.T @ (x @ theta - y) / 37, rtol=1e-12)


def _quadratic(minimiser: np.ndarray) -> QuadraticLoss:
    """½‖θ − m‖²: G = I, c = m."""
    return QuadraticLoss(np.eye(minimiser.size), minimiser.copy(), 0.5 * float(minimiser @ minimiser))


def test_nonprivate_frank_wolfe_converges_at_its_rate_to_a_known_minimiser():
    """Inside the ball the minimiser is m; Frank-Wolfe with eta_t = 2/(t+2) has L(theta_T) - L* <= 2 C_f/(T + 2),
    C_f <= beta diam_1^2 = 4 (beta = 1 in l1 for G = I, ||.||_inf <= ||.||_2 <= ||.||_1)."""
    m = np.array([0.3, -0.2, 0.1, 0.0])
    loss = _quadratic(m)
    for steps in (10, 100, 1000):
        theta = frank_wolfe_l1(loss, 1.0, steps, 0.0, np.random.default_rng(0))
        assert loss.value(theta) <= 2 * 4 / (steps + 2)
        assert np.abs(theta).sum() <= 1 + 1e-12
    assert np.abs(theta - m).sum() < 0.05


def test_frank_wolfe_incremental_gradient_matches_a_direct_recomputation():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((50, 6))
    loss = QuadraticLoss(a.T @ a / 50, rng.standard_normal(6), 0.0)
    theta = frank_wolfe_l1(loss, 2.0, 30, 0.0, rng)
    direct, eye = np.zeros(6), np.eye(6)
    for t in range(30):  # Algorithm 5 written out with the gradient recomputed
        scores = np.concatenate([2.0 * loss.gradient(direct), -2.0 * loss.gradient(direct)])
        i = int(np.argmin(scores))
        vertex = (1 if i < 6 else -1) * 2.0 * eye[i % 6]
        direct = direct + 2 / (t + 2) * (vertex - direct)
    np.testing.assert_allclose(theta, direct, atol=1e-12)


def test_l1_projection_satisfies_its_kkt_conditions():
    rng = np.random.default_rng(4)
    for _ in range(20):
        v = rng.standard_normal(8) * 2
        p = project_l1_ball(v, 1.0)
        if np.abs(v).sum() <= 1:
            np.testing.assert_array_equal(p, v)
            continue
        assert np.abs(p).sum() == pytest.approx(1.0, abs=1e-12)
        residual = v - p  # = lambda sign(p) on the support, |.| <= lambda off it
        lam = np.abs(residual[p != 0])
        assert np.allclose(lam, lam[0]) and np.all(np.abs(residual[p == 0]) <= lam[0] + 1e-12)


def test_minimiser_on_the_boundary_and_its_gap_certificate():
    """½‖θ − m‖² with ‖m‖₁ > 1: the minimiser is the projection of m onto the ball."""
    m = np.array([0.9, -0.6, 0.05])
    loss = _quadratic(m)
    theta, gap = l1_ball_minimiser(loss, 1.0)
    np.testing.assert_allclose(theta, project_l1_ball(m, 1.0), atol=1e-8)
    assert 0 <= gap <= 1e-10
    assert frank_wolfe_gap(loss, np.zeros(3), 1.0) >= loss.value(np.zeros(3)) - loss.value(theta)


def _brute_force_l1_min(b: np.ndarray, phi: np.ndarray, tolerance: float) -> float:
    grid = np.linspace(-2, 2, 801)
    u, v = np.meshgrid(grid, grid)
    points = np.stack([u.ravel(), v.ravel()], axis=1)
    feasible = np.abs(points @ phi.T - b).sum(axis=1) <= tolerance
    return float(np.abs(points[feasible]).sum(axis=1).min())


@pytest.mark.parametrize("k", [1, 2, 3])
def test_sparse_recovery_lp_matches_a_brute_force_grid_in_two_dimensions(k):
    rng = np.random.default_rng(10 + k)
    phi, b, tolerance = rng.standard_normal((k, 2)), rng.standard_normal(k) * 0.5, 0.4
    theta = sparse_recovery_lp(b, phi, tolerance)
    assert np.abs(phi @ theta - b).sum() <= tolerance + 1e-9
    assert np.abs(theta).sum() <= _brute_force_l1_min(b, phi, tolerance) + 1e-9
    assert np.abs(theta).sum() >= _brute_force_l1_min(b, phi, tolerance) - 2 * 4 / 800  # grid step 0.005 per axis


def test_sparse_recovery_lp_recovers_a_one_sparse_vector_exactly():
    rng = np.random.default_rng(2)
    d = 12
    truth = np.zeros(d)
    truth[5] = -0.7
    phi = gaussian_sketch(d, d, rng)
    np.testing.assert_allclose(sparse_recovery_lp(phi @ truth, phi, 0.0), truth, atol=1e-9)
    phi = gaussian_sketch(8, d, rng)  # k < d: l1 minimisation still recovers a 1-sparse vector
    np.testing.assert_allclose(sparse_recovery_lp(phi @ truth, phi, 0.0), truth, atol=1e-8)


def test_clip_l1():
    np.testing.assert_allclose(clip_l1(np.array([0.2, -0.3]), 1.0), [0.2, -0.3])
    np.testing.assert_allclose(clip_l1(np.array([2.0, -2.0]), 1.0), [0.5, -0.5])


def test_gaussian_sketch_has_variance_one_over_k():
    phi = gaussian_sketch(50, 400, np.random.default_rng(5))
    assert phi.var() * 50 == pytest.approx(1.0, abs=0.02)


def test_purified_frank_wolfe_recovers_a_sparse_iterate_within_lemma46():
    """A 3-sparse theta_FW, k = d (the sketch is then well conditioned on every vector): with no mixing (omega =
    1/n, n = 1e6) and Laplace noise within xi, the recovery error is within Lemma 46's bound."""
    rng = np.random.default_rng(8)
    d, n = 40, 10**6
    par = algorithm7_parameters(n, d, 1.0, 1.0, 1.0, 1.0)
    theta_fw = np.zeros(d)
    theta_fw[[1, 7, 30]] = [0.5, -0.3, 0.2]
    phi = gaussian_sketch(par.sketch_dim, d, rng)
    stages = purified_frank_wolfe(theta_fw, phi, 1.0, 1.0, par.log_delta, par.log_omega, par.tolerance, rng)
    np.testing.assert_allclose(stages.sketched, phi @ theta_fw)
    assert np.abs(stages.purified_sketch - stages.clipped).sum() <= par.tolerance
    assert np.abs(stages.recovered - theta_fw).sum() <= lemma46_recovery_bound(3, par.tolerance)
    assert np.abs(stages.output).sum() <= 1.0 + 1e-12
