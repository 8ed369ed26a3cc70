"""AdaSSP, pure AdaSSP (Algorithm 13) and Laplace-SSP against direct computations: the formulas of Lin, Wang, Ma,
Wang re-derived here, exact Gaussian privacy curves by numerical integration, brute-force sensitivities, Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dplab.mechanisms.adassp import (
    adassp,
    adassp_log_delta_composed,
    adassp_log_delta_per_release,
    adassp_noise_multiplier,
    excess_mse,
    laplace_ssp,
    ols,
    pure_adassp,
    pure_adassp_parameters,
    ssp_l1_sensitivities,
    sufficient_statistics,
)
from dplab.mechanisms.gaussian import classical_gaussian_sigma


def _data(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, d))
    x = z / np.maximum(1.0, np.linalg.norm(z, axis=1, keepdims=True))
    theta = rng.standard_normal(d)
    y = np.clip(x @ (theta / np.linalg.norm(theta)) + 0.05 * rng.standard_normal(n), -1, 1)
    return x, y


def _hockey_stick_gaussian(mu: float, epsilon: float) -> float:
    """∫ (φ(t) − e^ε φ(t − μ))₊ dt by quadrature (N(0,1) vs N(μ,1)), independent of the closed form."""

    def f(t: float) -> float:
        return max(0.0, stats.norm.pdf(t) - math.exp(epsilon) * stats.norm.pdf(t - mu))

    cut = epsilon / mu + mu / 2  # p > e^eps q left of this point
    scale = 1.0 / max(cut, 1.0)  # the mass sits within a few 1/cut of the cut (Gaussian tail)
    edges = cut - scale * np.array([200.0, 50.0, 10.0, 3.0, 1.0, 0.3, 0.0])
    head = stats.norm.cdf(edges[0]) - math.exp(epsilon) * stats.norm.cdf(edges[0] - mu)
    return head + sum(
        integrate.quad(f, a, b, epsabs=0, epsrel=1e-11, limit=200)[0] for a, b in zip(edges[:-1], edges[1:])
    )


@pytest.mark.parametrize(
    "epsilon,delta,per_release_within", [(1.0, 1e-6, False), (0.5, 1e-4, True), (3.0, 1e-5, False)]
)
def test_noise_calibration_against_direct_gaussian_curves(epsilon, delta, per_release_within):
    m = adassp_noise_multiplier(epsilon, math.log(delta))
    assert m == pytest.approx(math.sqrt(math.log(6 / delta)) / (epsilon / 3), rel=1e-14)
    # the three releases compose to mu-GDP with mu = sqrt(3)/m: exact delta by quadrature is <= delta
    composed = _hockey_stick_gaussian(math.sqrt(3) / m, epsilon)
    assert math.exp(adassp_log_delta_composed(epsilon, math.log(delta))) == pytest.approx(composed, rel=1e-6)
    assert composed < delta
    # one release alone at eps/3: its exact delta is NOT below delta/3 (finding: Wang's split is not per release)
    single = _hockey_stick_gaussian(1 / m, epsilon / 3)
    assert math.exp(adassp_log_delta_per_release(epsilon, math.log(delta))) == pytest.approx(single, rel=1e-6)
    assert (single <= delta / 3) == per_release_within
    # and the noise is ~0.72 of the classical sigma at (eps/3, delta/3)
    assert 0.69 < m / float(classical_gaussian_sigma(epsilon / 3, math.log(delta / 3))) < 0.73


def test_composed_delta_is_finite_in_log_space_for_tiny_delta():
    value = adassp_log_delta_composed(1.0, -800.0)
    assert math.isfinite(value) and value < -800.0


def test_adassp_matches_formulas_with_replayed_draws():
    x, y = _data()
    s = sufficient_statistics(x, y)
    eps, log_delta, zeta, size = 1.0, math.log(1e-6), 0.05, 4
    out = adassp(s, eps, log_delta, 1.0, 1.0, zeta, size, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    d, L = 3, math.log(6 / 1e-6)
    z = rng.standard_normal(size)
    g = rng.standard_normal((size, d, d))
    nv = rng.standard_normal((size, d))
    for k in range(size):
        lam_t = max(0.0, np.linalg.eigvalsh(x.T @ x)[0] + math.sqrt(L) / (eps / 3) * z[k] - L / (eps / 3))
        lam = max(0.0, math.sqrt(d * L * math.log(2 * d * d / zeta)) / (eps / 3) - lam_t)
        e = np.zeros((d, d))
        for i in range(d):
            for j in range(i, d):
                e[i, j] = e[j, i] = g[k, i, j]
        a = x.T @ x + math.sqrt(L) / (eps / 3) * e + lam * np.eye(d)
        b = x.T @ y + math.sqrt(L) / (eps / 3) * nv[k]
        assert out["ridge"][k] == pytest.approx(lam, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(out["theta"][k], np.linalg.solve(a, b), rtol=1e-10)


def test_adassp_tends_to_ols_without_noise():
    x, y = _data()
    s = sufficient_statistics(x, y)
    out = adassp(s, 1e9, math.log(1e-6), 1.0, 1.0, 0.05, 3, np.random.default_rng(1))
    np.testing.assert_allclose(out["theta"], np.tile(ols(s), (3, 1)), rtol=1e-5)


def test_pure_adassp_parameters_and_underflowing_delta():
    p = pure_adassp_parameters(10**4, 10, 1.0, 1.0, 1.0, 1.0)
    assert p.radius == pytest.approx(1 + 1e4 / 10)
    assert p.shift == pytest.approx(1 / (4 * 1e8 * 10), rel=1e-10)  # Delta = 1/(4 n^2 d) (App. J.4)
    assert p.laplace_scale == pytest.approx(2 * p.shift)
    log_delta = math.log(2e-8) - 10 * math.log(16 * 10**1.5 * p.radius * 1e8)
    assert p.log_delta == pytest.approx(log_delta, rel=1e-13)
    big = pure_adassp_parameters(10**5, 20, 1.0, 1.0, 1.0, 1.0)
    assert big.log_delta < math.log(1e-300) and math.isfinite(big.log_delta)
    assert big.shift == pytest.approx(1 / (4 * 1e10 * 20), rel=1e-9)


def test_pure_adassp_outputs_in_domain_and_close_to_apx():
    x, y = _data(n=300, d=3, seed=2)
    s = sufficient_statistics(x, y)
    out = pure_adassp(s, 0.05, 0.05, 1.0, 1.0, 0.05, 2000, np.random.default_rng(3))
    r = pure_adassp_parameters(300, 3, 0.05, 0.05, 1.0, 1.0).radius
    assert (np.linalg.norm(out["theta_apx"], axis=1) <= r * (1 + 1e-12)).all()
    moved = np.linalg.norm(out["theta"] - out["theta_apx"], axis=1)
    # purification moves a point by Laplace noise (b ~ 1e-6) except with probability omega = 1/n^2 (uniform draw)
    assert np.mean(moved > 1e-3) <= 5 / 300**2 * 2000 + 1e-9
    assert np.isfinite(out["theta"]).all()


def test_ssp_l1_sensitivities_brute_force():
    rng = np.random.default_rng(5)
    for d in (1, 2, 3, 5):
        sens_xx, sens_xy = ssp_l1_sensitivities(d, 1.0, 1.0)
        # random neighbouring data sets (add/remove one record): the statistics differ by that record's terms
        g = rng.standard_normal((200_000, d))
        x = g / np.linalg.norm(g, axis=1, keepdims=True) * rng.random((200_000, 1)) ** (1 / d)
        y = rng.uniform(-1, 1, 200_000)
        iu = np.triu_indices(d)
        xx = np.abs(np.einsum("ki,kj->kij", x, x)[:, iu[0], iu[1]]).sum(axis=1)
        xy = np.abs(x * y[:, None]).sum(axis=1)
        assert xx.max() <= sens_xx + 1e-12 and xy.max() <= sens_xy + 1e-12
        assert xx.max() >= 0.8 * sens_xx and xy.max() >= 0.8 * sens_xy  # the bounds are nearly attained
        # the maximiser attains them exactly
        star = np.full(d, 1 / math.sqrt(d))
        assert np.abs(np.outer(star, star)[iu]).sum() == pytest.approx(sens_xx)
        assert np.abs(star).sum() == pytest.approx(sens_xy)
        # replace-one pairs: at most twice (triangle inequality), checked on random pairs of full data sets
        xa, xb = x[:1000], x[1000:2000]
        diff = np.abs(np.einsum("ki,kj->kij", xa, xa) - np.einsum("ki,kj->kij", xb, xb))[:, iu[0], iu[1]].sum(axis=1)
        assert diff.max() <= 2 * sens_xx


def test_laplace_ssp_noise_scale_monte_carlo():
    x, y = _data(n=50, d=2, seed=9)
    s = sufficient_statistics(x, y)
    eps = 2.0
    out = laplace_ssp(s, eps, 1.0, 1.0, 0.05, 40_000, np.random.default_rng(4))
    assert out["theta"].shape == (40_000, 2) and np.isfinite(out["theta"]).all()
    # replay the draws: XtX upper noise scale (d+1)/2/(eps/2) = 1.5, Xty scale sqrt(2)/(eps/2)
    rng = np.random.default_rng(4)
    upper = rng.laplace(scale=1.5, size=(40_000, 2, 2))
    assert np.std(upper[:, 0, 1]) == pytest.approx(math.sqrt(2) * 1.5, rel=0.03)


def test_excess_mse_equals_direct_difference():
    x, y = _data(n=200, d=3, seed=11)
    s = sufficient_statistics(x, y)
    theta = np.random.default_rng(0).standard_normal((5, 3))
    direct = [np.sum((y - x @ t) ** 2) / 400 - np.sum((y - x @ ols(s)) ** 2) / 400 for t in theta]
    np.testing.assert_allclose(excess_mse(theta, s), direct, rtol=1e-9)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="epsilon"):
        adassp_noise_multiplier(0.0, -5.0)
    with pytest.raises(ValueError, match="delta"):
        adassp_noise_multiplier(1.0, 0.0)
    x, y = _data()
    with pytest.raises(ValueError, match="zeta"):
        adassp(sufficient_statistics(x, y), 1.0, -5.0, 1.0, 1.0, 1.5, 2, np.random.default_rng(0))
