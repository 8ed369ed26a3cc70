"""Algorithms 1 and 2: calibration check values, Monte-Carlo utility against Theorem 1, sampling oracles, bad input."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dplab.mechanisms.purification import (
    LqBall,
    base_2_53_digits,
    bernoulli_from_log,
    binmap,
    binmap_inverse,
    discrete_purification_laplace_scale,
    discrete_purification_shift,
    projected_purified_gaussian,
    purified_bits_log_pmf,
    purify,
    purify_bits,
    purify_bits_log_flip_probability,
    purify_bits_log_kernel,
    purify_bits_log_transition,
    purify_discrete,
    purify_discrete_transition_probability,
    sample_uniform_lq_ball,
    sign_cube,
)
from dplab.theory.purification import (
    purification_laplace_scale,
    purification_shift,
    theorem2_log_delta_threshold,
    theorem2_success_bound,
    utility_l1_bound_as_printed,
    utility_lq_bound_corrected,
)

LOG_DELTA, LOG_OMEGA = math.log(1e-30), math.log(0.01)


def _mean_and_se(values):
    return float(np.mean(values)), float(np.std(values) / math.sqrt(values.size))


@pytest.mark.parametrize("q", [1.0, 2.0, math.inf])
def test_monte_carlo_utility_below_corrected_bound(q):
    rng = np.random.default_rng(1)
    out = purify(np.zeros((200_000, 10)), LqBall((0.0,) * 10, 1.0, q), 1.0, LOG_DELTA, LOG_OMEGA, rng)
    mean, se = _mean_and_se(np.linalg.norm(out, ord=q, axis=1))
    bound = utility_lq_bound_corrected(10, q, 1.0, 1.0, LOG_DELTA, LOG_OMEGA)
    assert mean + 3 * se <= bound
    expected = {1.0: 0.06315, 2.0: 0.08301, math.inf: 0.17646}[q]  # independent Monte Carlo, 2e6 draws
    assert abs(mean - expected) < 4 * se + 2e-4


def test_printed_l1_bound_fails_for_q2():
    rng = np.random.default_rng(2)
    out = purify(np.zeros((100_000, 10)), LqBall((0.0,) * 10, 1.0, 2.0), 1.0, LOG_DELTA, LOG_OMEGA, rng)
    mean, se = _mean_and_se(np.abs(out).sum(axis=1))
    assert mean - 4 * se > utility_l1_bound_as_printed(10, 1.0, 1.0, LOG_DELTA, LOG_OMEGA)  # 0.197 > 0.069


def test_noise_scale_and_mixing_rate():
    rng = np.random.default_rng(3)
    x = np.full((400_000, 1), 0.5)
    out = purify(x, LqBall((0.0,), 2.0, 2.0), 1.0, math.log(1e-6), math.log(0.3), rng)
    # b = 2Δ/ε' with Δ = 2R(δ/2ω) = 4·1e-6/0.6; mixed rows are uniform on [-1, 1]
    b = 2 * 4 * 1e-6 / 0.6
    far = np.abs(out[:, 0] - 0.5) > 50 * b
    p_far = 0.3 * (1 - 100 * b / 2)  # uniform lands outside the ±50b window
    assert abs(far.mean() - p_far) < 4 * math.sqrt(p_far * (1 - p_far) / far.size)
    near = out[~far, 0] - 0.5
    assert np.median(np.abs(near)) == pytest.approx(b * math.log(2.0), rel=0.01)  # Laplace median |z| = b ln 2


@pytest.mark.parametrize("q,d", [(1.0, 3), (2.0, 2), (math.inf, 4)])
def test_uniform_ball_sampler(q, d):
    rng = np.random.default_rng(4)
    x = sample_uniform_lq_ball(q, d, 2.0, 100_000, rng)
    norms = np.linalg.norm(x, ord=q, axis=1)
    assert norms.max() <= 2.0
    share = np.mean(norms <= 1.0)  # volume ratio (1/2)^d
    assert abs(share - 0.5**d) < 4 * math.sqrt(0.5**d / 100_000)
    assert np.abs(x.mean(axis=0)).max() < 0.02


def test_algorithm2_success_rate():
    rng = np.random.default_rng(5)
    log_delta = theorem2_log_delta_threshold(10, 1.0) - 1e-9
    assert discrete_purification_shift(10, log_delta) == pytest.approx(4.66516e-3, rel=1e-5)
    u = rng.integers(0, 1024, 200_000)
    hit = np.mean(purify_discrete(u, 10, 1.0, log_delta, rng) == u)
    exact = 1 - 2**-10 + 2**-20
    assert abs(hit - exact) < 4 * math.sqrt(exact * (1 - exact) / u.size)
    assert exact > theorem2_success_bound(10) == pytest.approx(0.99879644, rel=1e-7)
    assert discrete_purification_shift(10, log_delta, "as_printed") == pytest.approx(4.66516e-3 / 2, rel=1e-5)


def test_binmap_round_trip():
    u = np.arange(64)
    assert np.array_equal(binmap_inverse(binmap(u, 6)), u)
    assert binmap(np.array([5]), 4).tolist() == [[0, 1, 0, 1]]


def test_extreme_delta_stays_finite():
    rng = np.random.default_rng(6)
    out = purify(np.zeros((10, 5)), LqBall((0.0,) * 5, 1.0), 1.0, -5000.0, LOG_OMEGA, rng)
    assert np.all(np.isfinite(out)) and np.abs(out).max() < 1.0


@pytest.mark.parametrize("log_delta,match", [(-math.inf, "delta"), (0.0, "delta"), (0.5, "delta"), (math.nan, "delta")])
def test_bad_delta(log_delta, match):
    with pytest.raises(ValueError, match=match + r".*0 < delta < 1"):
        purify(np.zeros(1), LqBall((0.0,), 2.0), 1.0, log_delta, LOG_OMEGA, np.random.default_rng(0))


@pytest.mark.parametrize("log_omega", [0.0, 1.0, -math.inf])
def test_bad_omega(log_omega):
    with pytest.raises(ValueError, match=r"omega.*0 < omega < 1"):
        purify(np.zeros(1), LqBall((0.0,), 2.0), 1.0, LOG_DELTA, log_omega, np.random.default_rng(0))


def test_domain_must_contain_range():
    with pytest.raises(ValueError, match="row 1 lies outside the domain"):
        purify(np.array([[0.0], [1.5]]), LqBall((0.0,), 2.0), 1.0, LOG_DELTA, LOG_OMEGA, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon_prime"):
        purify(np.zeros(1), LqBall((0.0,), 2.0), 0.0, LOG_DELTA, LOG_OMEGA, np.random.default_rng(0))
    with pytest.raises(ValueError, match="q=3"):
        LqBall((0.0,), 2.0, 3.0)


TICKS = 2**53


class ScriptedUniforms:
    """A stand-in for a Generator whose ``random`` returns the given integers k as k·2^{-53}, in order."""

    def __init__(self, ticks):
        self.ticks = list(ticks)

    def random(self, size):
        drawn, self.ticks = self.ticks[:size], self.ticks[size:]
        assert len(drawn) == size, "the coin read more digits than the script holds"
        return np.asarray(drawn, dtype=float) / TICKS


def _exact_digits(log_p, count):
    """p's first base-2^53 digits by mpmath at 400 bits."""
    with mpmath.workprec(400):
        p = mpmath.exp(mpmath.mpf(log_p))
        return [int(mpmath.floor(p * mpmath.mpf(2) ** (53 * j))) % TICKS for j in range(1, count + 1)]


@pytest.mark.parametrize("log_p", [math.log(0.3), math.log(1e-20), math.log(1e-300), -2000.0])
def test_base_2_53_digits_match_mpmath(log_p):
    ours = list(itertools.islice(base_2_53_digits(log_p), 60))
    first = next(j for j, digit in enumerate(ours) if digit > 0)
    exact = _exact_digits(log_p, first + 1)
    assert ours[:first] == exact[:first] == [0] * first
    assert ours[first] == pytest.approx(exact[first], rel=1e-12)


def test_bernoulli_from_log_reads_further_digits_below_2_to_the_minus_53():
    # p = 1e-300: 18 leading zero digits.  A uniform whose first digit is 0 is not yet below p (the former coin
    # log U < log p said it was, mixing with probability 2^-53 instead of p).
    log_p = math.log(1e-300)
    digits = _exact_digits(log_p, 19)
    assert digits[:18] == [0] * 18 and digits[18] > 0
    assert not bernoulli_from_log(log_p, 1, ScriptedUniforms([0, 5]))[0]
    below = [0] * 18 + [digits[18] - 2**20]
    above = [0] * 18 + [digits[18] + 2**20]
    assert bernoulli_from_log(log_p, 2, ScriptedUniforms([0, 0] + [0, 0] * 17 + [below[18], above[18]])).tolist() == [
        True,
        False,
    ]


def test_bernoulli_from_log_dyadic_probability_is_exact():
    # p = 2^-60: digits (0, 2^46, 0, ...): U < p iff its first digit is 0 and its second is below 2^46.
    # First digits (0, 0, 0, 1): the fourth coin is 0; second digits of the others (2^46 - 2, 2^46 + 1, 3).
    log_p = -60 * math.log(2.0)
    coins = bernoulli_from_log(log_p, 4, ScriptedUniforms([0, 0, 0, 1, 2**46 - 2, 2**46 + 1, 3]))
    assert coins.tolist() == [True, False, True, False]


def test_bernoulli_from_log_keeps_the_stream_of_log_u_below_log_p():
    for log_p in (math.log(0.3), math.log(1e-3), math.log(0.999)):
        coins = bernoulli_from_log(log_p, 200_000, np.random.default_rng(8))
        assert np.array_equal(coins, np.log(np.random.default_rng(8).random(200_000)) < log_p)


@pytest.mark.parametrize("p", [0.3, 1e-3])
def test_bernoulli_from_log_frequency(p):
    coins = bernoulli_from_log(math.log(p), 400_000, np.random.default_rng(11))
    assert abs(coins.mean() - p) < 5 * math.sqrt(p * (1 - p) / coins.size)


@pytest.mark.parametrize("bits", [0, 1, 3, 7])
def test_mixing_coin_probability_is_a_power_of_two(bits):
    rng = np.random.default_rng(6)
    hits = bernoulli_from_log(-bits * math.log(2.0), 400000, rng).sum()
    lo, hi = stats.binomtest(int(hits), 400000).proportion_ci(0.999)
    assert lo <= 2.0**-bits <= hi


def test_mixing_coin_never_fires_for_long_codes():
    assert not bernoulli_from_log(-936 * math.log(2.0), 100000, np.random.default_rng(7)).any()


def test_purify_bits_laplace_scale_and_rounding():
    """With log δ near 0 the flips are visible: the per-bit flip rate matches ½e^{−1/(2b)} (Monte Carlo, 3 bits;
    mixing probability 1/8 adds ½ per mixed bit)."""
    rng = np.random.default_rng(8)
    log_delta = -0.3
    out, mixed = purify_bits(np.zeros((200000, 3), dtype=int), 1.0, log_delta, rng)
    b = 2 * discrete_purification_shift(3, log_delta) / 1.0
    flip = 0.5 * math.exp(-0.5 / b)
    expected = (1 - 1 / 8) * flip + (1 / 8) * 0.5
    assert out.mean() == pytest.approx(expected, abs=5 * math.sqrt(expected / out.size))
    assert mixed.mean() == pytest.approx(1 / 8, abs=5 * math.sqrt(1 / 8 / 200000))
    with pytest.raises(ValueError, match="0/1"):
        purify_bits(np.array([[0, 2]]), 1.0, -1.0, rng)


def test_bernoulli_from_log_rejects_a_probability_above_one():
    with pytest.raises(ValueError, match="log_p"):
        bernoulli_from_log(math.log(2.0), 3, np.random.default_rng(0))


def test_purify_refuses_non_finite_rows():
    """NaN used to pass through Algorithm 1 into the output."""
    domain = LqBall(center=(0.0, 0.0), diameter=2.0, q=2.0)
    with pytest.raises(ValueError, match=r"x_apx=\[nan\] is invalid; allowed: finite numbers"):
        purify(np.array([[0.1, math.nan]]), domain, 1.0, -20.0, -3.0, np.random.default_rng(0))


@pytest.mark.parametrize("n_bits,scale", [(1, 0.3), (2, 0.05), (3, 1.0), (4, 7.0)])
def test_purify_bits_log_kernel_is_the_kronecker_product_law(n_bits, scale):
    """Independent reference: each unmixed bit flips w.p. f = ½e^{−1/(2b)}, so the unmixed kernel is the Kronecker
    product of L copies of [[1 − f, f], [f, 1 − f]] (bit code order); mixing w.p. ω = 2^{−L} gives uniform output."""
    f = 0.5 * math.exp(-0.5 / scale)
    one_bit = np.array([[1 - f, f], [f, 1 - f]])
    product = np.ones((1, 1))
    for _ in range(n_bits):
        product = np.kron(product, one_bit)
    omega = 2.0**-n_bits
    reference = (1 - omega) * product + omega / 2**n_bits
    kernel = np.exp(purify_bits_log_kernel(n_bits, scale))
    np.testing.assert_allclose(kernel, reference, rtol=1e-13)
    np.testing.assert_allclose(kernel.sum(axis=1), 1.0, rtol=1e-13)


def test_purified_bits_log_pmf_is_the_mixture_of_kernel_rows():
    n_bits, eps, log_delta = 3, 0.5, -6.0
    scale = discrete_purification_laplace_scale(n_bits, eps, log_delta)
    assert scale == purification_laplace_scale(discrete_purification_shift(n_bits, log_delta), eps)
    pmf = np.random.default_rng(0).dirichlet(np.ones(8))
    np.testing.assert_allclose(
        np.exp(purified_bits_log_pmf(np.log(pmf), n_bits, scale)),
        pmf @ np.exp(purify_bits_log_kernel(n_bits, scale)),
        rtol=1e-13,
    )


@pytest.mark.parametrize("scale", [1e-3, 0.05, 1.0, 7.0, 1e4])
def test_flip_probability_is_the_laplace_tail_beyond_one_half(scale):
    """Independent reference: scipy's Laplace survival function at ½."""
    assert math.exp(purify_bits_log_flip_probability(scale)) == pytest.approx(
        stats.laplace.sf(0.5, scale=scale), rel=1e-13, abs=1e-300
    )


@pytest.mark.parametrize("n_bits,scale", [(40, 0.01), (40, 3.0), (200, 0.5)])
def test_log_transition_beyond_the_kernel_size_matches_mpmath(n_bits, scale):
    """No 2^L × 2^L kernel: log K at Hamming distance h against the closed form evaluated with 50 digits."""
    mpmath.mp.dps = 50
    f = mpmath.mpf(0.5) * mpmath.exp(-mpmath.mpf(0.5) / mpmath.mpf(scale))
    omega = mpmath.mpf(2) ** -n_bits
    hamming = np.array([0, 1, n_bits // 2, n_bits])
    reference = [
        float(mpmath.log((1 - omega) * f**h * (1 - f) ** (n_bits - h) + omega * omega)) for h in hamming.tolist()
    ]
    np.testing.assert_allclose(purify_bits_log_transition(hamming, n_bits, scale), reference, rtol=1e-13)


def test_log_transition_refuses_a_hamming_distance_above_the_length():
    with pytest.raises(ValueError, match="hamming"):
        purify_bits_log_transition(np.array([4]), 3, 1.0)


def test_discrete_transition_probability_matches_purify_discrete_frequencies():
    """Monte Carlo with a 4.5-sigma band: P(output = input) and P(output = input with its first bit flipped)."""
    n_bits, eps, log_delta = 3, 0.5, -6.0
    out = purify_discrete(np.full(200_000, 5), n_bits, eps, log_delta, np.random.default_rng(3))
    for code, hamming in ((5, 0), (1, 1), (2, 3)):
        p = purify_discrete_transition_probability(hamming, n_bits, eps, log_delta)
        assert abs(np.mean(out == code) - p) <= 4.5 * math.sqrt(p * (1 - p) / out.size)
        assert p > 0.01  # not vacuous


def test_sign_cube_is_the_hull_of_the_records():
    cube = sign_cube(4)
    assert cube.q == math.inf and cube.radius == pytest.approx(0.5) and cube.d == 4
    cube.check_contains(np.array([[0.5, -0.5, 0.5, -0.5]]))


def test_projected_purified_gaussian_against_written_out_draws():
    """The projected draws are clip(mean + sigma N, -1/sqrt(d), 1/sqrt(d)) from the same generator; at log omega =
    -200 (no mixing) purified - projected is Laplace(b) with b = 2 Delta / eps' of Theorem 1 (Kolmogorov-Smirnov)."""
    mean, sigma, eps, log_delta, log_omega = np.array([0.4, -0.1]), 0.3, 0.5, math.log(1e-8), -200.0
    projected, purified = projected_purified_gaussian(mean, sigma, eps, log_delta, log_omega, 20_000, rng_for(7))
    expected = np.clip(mean + sigma * rng_for(7).standard_normal((20_000, 2)), -1 / math.sqrt(2), 1 / math.sqrt(2))
    np.testing.assert_array_equal(projected, expected)
    b = purification_laplace_scale(purification_shift(2, math.inf, math.sqrt(2), log_delta, log_omega), eps)
    assert stats.kstest((purified - projected).ravel(), stats.laplace(scale=b).cdf).pvalue > 1e-3


def rng_for(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(("n_bits", "epsilon"), [(2, 1.0), (4, 0.5)])
def test_theorem2_success_at_threshold_closed_form_and_sampler(n_bits, epsilon):
    from dplab.mechanisms.purification import (
        discrete_purification_laplace_scale,
        purify_discrete,
        theorem2_success_at_threshold,
    )
    from dplab.theory.purification import theorem2_log_delta_threshold

    row = theorem2_success_at_threshold(n_bits, epsilon)
    log_delta = theorem2_log_delta_threshold(n_bits, epsilon)
    assert (row["d"], row["epsilon"], row["log_delta"]) == (n_bits, epsilon, log_delta)
    assert row["bound"] == pytest.approx(1 - 2.0**-n_bits - n_bits / 2 * math.exp(-n_bits))
    for key, geometry in (("success_exact", "corrected"), ("success_exact_paper_geometry", "as_printed")):
        b = discrete_purification_laplace_scale(n_bits, epsilon, log_delta, geometry)
        flip = 0.5 * math.exp(-1 / (2 * b))  # P(Lap(b) >= 1/2): one unmixed bit flips
        omega = 2.0**-n_bits
        assert row[key] == pytest.approx((1 - omega) * (1 - flip) ** n_bits + omega * 2.0**-n_bits, rel=1e-12)
    # Algorithm 2 sampled on one input code: the fraction returned unchanged, within 5 standard errors.
    runs = 40_000
    out = purify_discrete(np.full(runs, 1), n_bits, epsilon, log_delta, np.random.default_rng(11))
    rate = np.mean(out == 1)
    p = row["success_exact"]
    assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / runs) + 1e-12
