"""Tests of dplab.accounting.hockey_stick against quad integration, mpmath, dp_accounting and 11-digit reference
values of the closed forms (eq. (10) and Lemma 1 of Asoodeh, Diaz, Calmon 2020) evaluated with mpmath at 30 digits."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_mechanism as plm
from scipy import integrate, stats
from scipy.special import erf

from dplab.accounting.hockey_stick import (
    discrete_hockey_stick,
    gaussian_hockey_stick,
    gaussian_hockey_stick_complement,
    laplace_hockey_stick,
    log_gaussian_hockey_stick,
    log_gaussian_hockey_stick_complement,
    log_laplace_hockey_stick,
    projected_laplace_hockey_stick,
)

# ------------------------------------------------------------------ independent references


def quad_gaussian_hockey_stick(epsilon: float, r: float) -> float:
    """∫ [φ(t − r) − e^ε φ(t)]_+ dt by adaptive quadrature (the kink location is only a hint)."""
    gamma = math.exp(epsilon)
    kink = (epsilon + r * r / 2) / r

    def integrand(t: float) -> float:
        return max(stats.norm.pdf(t - r) - gamma * stats.norm.pdf(t), 0.0)

    value, _ = integrate.quad(integrand, -40.0, 40.0 + r, points=[kink], limit=400, epsabs=1e-14, epsrel=1e-12)
    return value


def quad_laplace_hockey_stick(epsilon: float, shift: float, scale: float) -> float:
    """∫ [p − e^ε q]_+ dt for p = 𝓛(shift, scale), q = 𝓛(0, scale), by adaptive quadrature."""
    gamma = math.exp(epsilon)

    def integrand(t: float) -> float:
        p = stats.laplace.pdf(t, loc=shift, scale=scale)
        q = stats.laplace.pdf(t, loc=0.0, scale=scale)
        return max(p - gamma * q, 0.0)

    lo, hi = min(0.0, shift) - 80 * scale, max(0.0, shift) + 80 * scale
    value, _ = integrate.quad(integrand, lo, hi, points=sorted({0.0, shift}), limit=400, epsabs=1e-14)
    return value


def mpmath_log_theta(epsilon: float, r: float, dps: int = 60) -> float:
    """log(Q(ε/r − r/2) − e^ε Q(ε/r + r/2)) in multi-precision arithmetic."""
    with mpmath.workdps(dps):
        eps, rr = mpmath.mpf(epsilon), mpmath.mpf(r)
        a, b = eps / rr - rr / 2, eps / rr + rr / 2
        q = lambda t: mpmath.erfc(t / mpmath.sqrt(2)) / 2  # noqa: E731
        return float(mpmath.log(q(a) - mpmath.exp(eps) * q(b)))


def mpmath_complement(epsilon: float, r: float, dps: int = 60) -> float:
    with mpmath.workdps(dps):
        eps, rr = mpmath.mpf(epsilon), mpmath.mpf(r)
        a, b = eps / rr - rr / 2, eps / rr + rr / 2
        q = lambda t: mpmath.erfc(t / mpmath.sqrt(2)) / 2  # noqa: E731
        return float(1 - q(a) + mpmath.exp(eps) * q(b))


# ------------------------------------- reference values: closed forms evaluated with mpmath (30 digits), 11 digits


@pytest.mark.parametrize(
    ("epsilon", "r", "expected"),
    [
        (0.0, 1.0, 0.38292492255),  # θ_1(1) = TV = 2Φ(1/2) − 1
        (1.0, 1.0, 0.12693673751),  # θ_e(1), eq. (10)
        (0.5, 2.0, 0.59918561853),
        (3.0, 1.0, 0.00153718537),
        (1.0, 2.0, 0.50986166005),
        (1.0, math.sqrt(0.76) / 0.7, 0.21921192948),  # Fig. 3's M D/(η σ), exact
        (1.0, 1.2453997, 0.21921193020),  # the same ratio rounded to 8 digits
    ],
)
def test_gaussian_check_values(epsilon: float, r: float, expected: float) -> None:
    assert gaussian_hockey_stick(epsilon, r) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("epsilon", "shift", "scale", "expected"),
    [
        (0.0, 1.0, 1.0, 0.39346934029),  # Lemma 1: 1 − e^{−1/2}
        (0.5, 2.0, 1.0, 0.52763344726),  # Lemma 1: 1 − e^{(ε − μ/b)/2}
        (1.0, 3.0, 0.5, 0.91791500138),
        (math.log(2.0), 0.5, 2.0, 0.0),
    ],
)
def test_laplace_check_values(epsilon: float, shift: float, scale: float, expected: float) -> None:
    assert laplace_hockey_stick(epsilon, shift=shift, scale=scale) == pytest.approx(expected, rel=1e-9, abs=0)


# ------------------------------------------------------------------ Gaussian: quad, mpmath, dp_accounting


@pytest.mark.parametrize(
    ("epsilon", "r"), list(itertools.product([0.0, 0.3, 1.0, 2.5, 6.0], [0.05, 0.5, 1.0, 3.0, 8.0]))
)
def test_gaussian_matches_quadrature(epsilon: float, r: float) -> None:
    reference = quad_gaussian_hockey_stick(epsilon, r)
    assert gaussian_hockey_stick(epsilon, r) == pytest.approx(reference, rel=1e-7, abs=1e-13)


@pytest.mark.parametrize(
    ("epsilon", "r"),
    [
        (50.0, 1.0),  # δ ≈ 1e-536: far below double precision
        (43.0, 1.0),  # δ ≈ 1e-400
        (200.0, 0.1),  # a ≈ 2000: asymptotic branch
        (1000.0, 3.0),
        (30.0, 0.01),  # tiny r, huge a
        (5.0, 1e-3),
        (1e-6, 1e-4),  # tiny r, a < 20 (erfcx branch)
        (2.0, 40.0),  # bulk branch (a < 0), θ ≈ 1
        (0.2, 0.5),
        (8.0, 4.0),  # a ≈ 0
        (19.9, 1.0),  # either side of the branch switch a = 20
        (20.6, 1.0),
    ],
)
def test_log_gaussian_matches_mpmath(epsilon: float, r: float) -> None:
    reference = mpmath_log_theta(epsilon, r)
    assert np.isfinite(log_gaussian_hockey_stick(epsilon, r))
    assert log_gaussian_hockey_stick(epsilon, r) == pytest.approx(reference, rel=1e-12, abs=1e-11)


def test_log_gaussian_below_double_precision() -> None:
    value = log_gaussian_hockey_stick(50.0, 1.0)
    assert -1300 < value < -1200  # finite, δ ≈ 1e-536
    assert gaussian_hockey_stick(50.0, 1.0) == 0.0  # the linear value underflows, as documented


@pytest.mark.parametrize(("sigma", "sensitivity"), [(1.0, 1.0), (2.0, 1.0), (0.5, 1.5), (3.0, 0.2)])
def test_gaussian_matches_dp_accounting(sigma: float, sensitivity: float) -> None:
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 4.0])
    loss = plm.GaussianPrivacyLoss(standard_deviation=sigma, sensitivity=sensitivity)
    reference = np.array(loss.get_delta_for_epsilon(eps))
    np.testing.assert_allclose(gaussian_hockey_stick(eps, sensitivity / sigma), reference, rtol=1e-9, atol=1e-15)


def test_total_variation_closed_form() -> None:
    r = np.linspace(0.01, 6.0, 50)
    np.testing.assert_allclose(gaussian_hockey_stick(0.0, r), erf(r / (2 * math.sqrt(2))), rtol=1e-12)


def test_gaussian_monotone_in_r_and_epsilon() -> None:
    r = np.linspace(0.05, 10.0, 200)
    eps = np.linspace(0.0, 30.0, 200)
    by_r = log_gaussian_hockey_stick(1.0, r)
    by_eps = log_gaussian_hockey_stick(eps, 1.5)
    assert np.all(np.diff(by_r) > 0)
    assert np.all(np.diff(by_eps) < 0)


def test_gaussian_edge_values_and_broadcasting() -> None:
    assert log_gaussian_hockey_stick(0.7, 0.0) == -math.inf
    assert gaussian_hockey_stick(0.7, 0.0) == 0.0
    assert gaussian_hockey_stick(3.0, math.inf) == 1.0
    assert isinstance(log_gaussian_hockey_stick(1.0, 1.0), float)
    out = log_gaussian_hockey_stick(np.array([[0.0], [1.0]]), np.array([0.5, 1.0, 2.0]))
    assert out.shape == (2, 3) and out.dtype == np.float64
    assert out[1, 1] == pytest.approx(math.log(0.12693673751), rel=1e-9)


@pytest.mark.parametrize(("epsilon", "r"), [(0.0, 1.0), (1.0, 1.0), (0.5, 2.0), (3.0, 0.2), (1.0, 12.0), (2.0, 25.0)])
def test_complement_matches_mpmath(epsilon: float, r: float) -> None:
    assert gaussian_hockey_stick_complement(epsilon, r) == pytest.approx(mpmath_complement(epsilon, r), rel=1e-12)


def mpmath_log_complement(epsilon: float, r: float, dps: int = 60) -> float:
    """log(Φ(a) + e^ε Q(b)) at ``dps`` digits (mpmath has no underflow: 1e-7842 is an ordinary number there)."""
    with mpmath.workdps(dps):
        eps, rr = mpmath.mpf(epsilon), mpmath.mpf(r)
        a, b = eps / rr - rr / 2, eps / rr + rr / 2
        q = lambda t: mpmath.erfc(t / mpmath.sqrt(2)) / 2  # noqa: E731
        return float(mpmath.log(q(-a) + mpmath.exp(eps) * q(b)))


@pytest.mark.parametrize(
    ("epsilon", "r"),
    [(1.0, 1.0), (2.0, 25.0), (444.6, 400.0 / 3.0), (4000.16, 400.0), (64629.0, 400.0), (1e5, 400.0), (0.0, 60.0)],
)
def test_log_complement_matches_mpmath_where_linear_scale_underflows(epsilon: float, r: float) -> None:
    """1 − θ is 1e-7842 at ε = 4000.16, r = 400 (Theorem 5 at σ = 0.1, η = 0.1, D = 4): the log stays exact."""
    reference = mpmath_log_complement(epsilon, r)
    assert log_gaussian_hockey_stick_complement(epsilon, r) == pytest.approx(reference, rel=1e-12, abs=1e-300)


def test_log_complement_edges() -> None:
    assert log_gaussian_hockey_stick_complement(1.0, 0.0) == 0.0
    assert log_gaussian_hockey_stick_complement(1.0, math.inf) == -math.inf
    assert log_gaussian_hockey_stick_complement(4000.16, 400.0) < -18000  # linear scale: exactly 0


def test_complement_is_one_minus_theta_and_edges() -> None:
    eps = np.linspace(0, 5, 11)
    np.testing.assert_allclose(
        gaussian_hockey_stick_complement(eps, 1.3), 1.0 - gaussian_hockey_stick(eps, 1.3), rtol=1e-13
    )
    assert gaussian_hockey_stick_complement(1.0, 0.0) == 1.0
    assert gaussian_hockey_stick_complement(1.0, math.inf) == 0.0
    assert 0 < gaussian_hockey_stick_complement(1.0, 20.0) < 1e-20  # 1 − θ where θ rounds to 1


@pytest.mark.parametrize(
    ("function", "kwargs", "name"),
    [
        (log_gaussian_hockey_stick, {"epsilon": -0.1, "r": 1.0}, "epsilon"),
        (log_gaussian_hockey_stick, {"epsilon": 0.1, "r": -1.0}, "r"),
        (log_gaussian_hockey_stick, {"epsilon": math.inf, "r": 1.0}, "epsilon"),
        (gaussian_hockey_stick_complement, {"epsilon": math.nan, "r": 1.0}, "epsilon"),
    ],
)
def test_gaussian_rejects_bad_input(function, kwargs, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        function(**kwargs)


# ------------------------------------------------------------------ Laplace


@pytest.mark.parametrize(
    ("epsilon", "shift", "scale"),
    list(itertools.product([0.0, 0.25, 1.0, 1.9], [0.3, 1.0, -2.0, 4.0], [0.5, 1.0, 2.0])),
)
def test_laplace_matches_quadrature(epsilon: float, shift: float, scale: float) -> None:
    reference = quad_laplace_hockey_stick(epsilon, shift, scale)
    assert laplace_hockey_stick(epsilon, shift=shift, scale=scale) == pytest.approx(reference, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize(("scale", "sensitivity"), [(1.0, 1.0), (0.5, 1.0), (2.0, 3.0)])
def test_laplace_matches_dp_accounting(scale: float, sensitivity: float) -> None:
    eps = np.array([0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 6.5])
    loss = plm.LaplacePrivacyLoss(scale, sensitivity=sensitivity)
    reference = np.array(loss.get_delta_for_epsilon(eps))
    np.testing.assert_allclose(
        laplace_hockey_stick(eps, shift=sensitivity, scale=scale), reference, rtol=1e-10, atol=1e-15
    )


def test_laplace_zero_exactly_from_threshold() -> None:
    eps = np.array([1.999999, 2.0, 2.5])
    log_delta = log_laplace_hockey_stick(eps, shift=2.0, scale=1.0)
    assert np.isfinite(log_delta[0]) and log_delta[0] < -10
    assert np.all(log_delta[1:] == -math.inf)
    # just below the threshold: δ = 1 − e^{−x} ≈ x, resolved without cancellation
    with mpmath.workdps(40):
        expected = float(mpmath.log(1 - mpmath.exp(mpmath.mpf(1.999999) / 2 - 1)))
    assert log_delta[0] == pytest.approx(expected, rel=1e-9)
    assert log_laplace_hockey_stick(0.0, shift=0.0, scale=1.0) == -math.inf  # identical laws


def test_laplace_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="scale"):
        laplace_hockey_stick(0.5, shift=1.0, scale=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_hockey_stick(-1.0, shift=1.0, scale=1.0)


# ------------------------------------------------------------------ discrete


def brute_force_sup_over_events(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """sup_A P(A) − e^ε Q(A) over every subset A of the atoms (eq. (6), second form)."""
    gamma = math.exp(epsilon)
    best = 0.0
    for mask in itertools.product([False, True], repeat=p.size):
        chosen = np.array(mask)
        best = max(best, p[chosen].sum() - gamma * q[chosen].sum())
    return best


def test_discrete_matches_sup_over_events() -> None:
    rng = np.random.default_rng(20240601)
    eps = np.array([0.0, 0.2, 0.7, 1.5])
    for _ in range(20):
        p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        values = discrete_hockey_stick(p, q, eps)
        expected = [brute_force_sup_over_events(p, q, e) for e in eps]
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15)


def test_discrete_exact_small_case_and_shapes() -> None:
    p = np.array([0.5, 0.5, 0.0])
    q = np.array([0.25, 0.5, 0.25])
    assert discrete_hockey_stick(p, q, 0.0) == pytest.approx(0.25)  # TV
    assert discrete_hockey_stick(p, q, math.log(2.0)) == pytest.approx(0.0, abs=1e-16)
    # an atom with q = 0 contributes p for every ε, even where e^ε overflows
    assert discrete_hockey_stick([0.4, 0.6], [0.0, 1.0], 800.0) == pytest.approx(0.4)
    batch = discrete_hockey_stick(np.stack([p, q]), q, np.array([[0.0, 0.1, 0.2]]))
    assert batch.shape == (2, 1, 3)
    assert np.all(batch[1] == 0.0)
    assert isinstance(discrete_hockey_stick(p, q, 0.3), float)


def test_discrete_agrees_with_gaussian_on_fine_grid() -> None:
    # N(1,1) vs N(0,1) binned on cells whose edges contain the likelihood-ratio threshold: exact up to tails
    edges = np.linspace(-12.0, 13.0, 2501)  # step 0.01, contains t0 = 0.5 + ε for ε = 0, 1
    p = np.diff(stats.norm.cdf(edges - 1.0))
    q = np.diff(stats.norm.cdf(edges))
    np.testing.assert_allclose(
        discrete_hockey_stick(p, q, np.array([0.0, 1.0])), gaussian_hockey_stick([0.0, 1.0], 1.0), rtol=1e-10
    )


def test_discrete_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="p"):
        discrete_hockey_stick([-0.1, 1.1], [0.5, 0.5], 0.0)
    with pytest.raises(ValueError, match="q.shape"):
        discrete_hockey_stick([0.5, 0.5], [1.0], 0.0)


# ------------------------------------------------------------------ projected Laplace laws on an interval

PROJECTED_CASES = [
    (eps, loc_p, loc_q, scale)
    for eps in (0.0, 0.5, 2.0)
    for loc_p, loc_q in ((0.0, 1.0), (0.2, 0.7), (1.0, 0.0), (-3.0, -2.5), (-1.0, 2.0), (0.5, 3.0), (0.4, 0.4))
    for scale in (0.3, 1.0)
]


def quad_projected_laplace_hockey_stick(eps: float, loc_p: float, loc_q: float, scale: float) -> float:
    """Atoms of Π_[0,1] 𝓛(loc, scale) from scipy's cdf/sf plus ∫_0^1 [p − e^ε q]_+ by adaptive quadrature."""
    gamma = math.exp(eps)
    p, q = stats.laplace(loc=loc_p, scale=scale), stats.laplace(loc=loc_q, scale=scale)
    atoms = max(p.cdf(0.0) - gamma * q.cdf(0.0), 0.0) + max(p.sf(1.0) - gamma * q.sf(1.0), 0.0)
    kinks = (loc_p, loc_q, (loc_p + loc_q - scale * eps) / 2, (loc_p + loc_q + scale * eps) / 2)
    inside = [t for t in kinks if 0.0 < t < 1.0]
    value, _ = integrate.quad(
        lambda t: max(p.pdf(t) - gamma * q.pdf(t), 0.0), 0.0, 1.0, points=inside or None, epsabs=1e-14, limit=200
    )
    return atoms + value


@pytest.mark.parametrize(("epsilon", "loc_p", "loc_q", "scale"), PROJECTED_CASES)
def test_projected_laplace_matches_quadrature(epsilon: float, loc_p: float, loc_q: float, scale: float) -> None:
    exact = projected_laplace_hockey_stick(epsilon, loc_p=loc_p, loc_q=loc_q, lo=0.0, hi=1.0, scale=scale)
    assert exact == pytest.approx(quad_projected_laplace_hockey_stick(epsilon, loc_p, loc_q, scale), abs=1e-10)


@pytest.mark.parametrize(("epsilon", "loc_p", "loc_q", "scale"), PROJECTED_CASES)
def test_projected_laplace_below_lemma1_and_equal_for_means_inside(
    epsilon: float, loc_p: float, loc_q: float, scale: float
) -> None:
    """Data processing: projecting never increases E_γ; with both means in [lo, hi] the optimal event is a lower set
    [lo, t*] with t* = (loc_p + loc_q − v ε)/2 inside, so the projected value equals Lemma 1's."""
    exact = projected_laplace_hockey_stick(epsilon, loc_p=loc_p, loc_q=loc_q, lo=0.0, hi=1.0, scale=scale)
    lemma1 = float(laplace_hockey_stick(epsilon, shift=loc_p - loc_q, scale=scale))
    assert exact <= lemma1 + 1e-14
    if 0.0 <= min(loc_p, loc_q) and max(loc_p, loc_q) <= 1.0:
        assert exact == pytest.approx(lemma1, abs=1e-14)


def test_projected_laplace_total_variation_both_means_left_exact() -> None:
    """Means -2 and -1 left of [0, 1], v = 1: only the atom at 0 has p > q, so TV = F_P(0) − F_Q(0) =
    ½(e^{-1} − e^{-2}) by hand."""
    value = projected_laplace_hockey_stick(0.0, loc_p=-2.0, loc_q=-1.0, lo=0.0, hi=1.0, scale=1.0)
    assert value == pytest.approx(0.5 * (math.exp(-1.0) - math.exp(-2.0)), abs=1e-15)


def test_projected_laplace_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="lo"):
        projected_laplace_hockey_stick(0.5, loc_p=0.0, loc_q=1.0, lo=1.0, hi=1.0, scale=1.0)
    with pytest.raises(ValueError, match="scale"):
        projected_laplace_hockey_stick(0.5, loc_p=0.0, loc_q=1.0, lo=0.0, hi=1.0, scale=0.0)
    with pytest.raises(ValueError, match="loc_q"):
        projected_laplace_hockey_stick(0.5, loc_p=0.0, loc_q=math.nan, lo=0.0, hi=1.0, scale=1.0)
