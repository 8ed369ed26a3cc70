"""Tests of dplab.mechanisms.stability (Algorithm 12 + Algorithm 2, distance to instability, selection baselines)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dplab.mechanisms.purification import discrete_purification_laplace_scale, purify_bits_log_kernel, purify_discrete
from dplab.mechanisms.stability import (
    BOTTOM,
    bit_flip_probability,
    code_bits,
    decode_bottom,
    distance_to_instability,
    distance_to_instability_pmf,
    encode_bottom,
    exponential_mechanism_selection,
    mode_and_distance,
    mode_histogram,
    mode_release_log_delta,
    pass_probability,
    pure_mode_release,
    pure_mode_release_pmf,
    pure_mode_release_success_probability,
    refuse_probability,
    report_noisy_max,
    report_noisy_max_grouped,
    report_noisy_max_success_probability,
    stability_threshold,
    uniform_bottom_log_delta,
    uniform_bottom_pure_epsilon,
)
from dplab.theory.purification import theorem2_log_delta_threshold


def _within(rate: float, p: float, n: int, z: float = 4.5) -> bool:
    return abs(rate - p) <= z * math.sqrt(max(p * (1 - p), 1e-12) / n) + 1e-12


# ---------------------------------------------- Algorithm 12 at d = 8, 16: reference values recomputed independently


@pytest.mark.parametrize("d, corrected, printed, reserved", [(8, 66.54, 55.45, 78.04), (16, 166.36, 144.17, 179.84)])
def test_thresholds_check_values(d, corrected, printed, reserved):
    assert stability_threshold(1.0, mode_release_log_delta(d, 1.0, "corrected")) == pytest.approx(corrected, abs=5e-3)
    assert stability_threshold(1.0, mode_release_log_delta(d, 1.0, "as_printed")) == pytest.approx(printed, abs=5e-3)
    bits = code_bits(2**d, "reserved")
    assert bits == d + 1
    assert stability_threshold(1.0, mode_release_log_delta(bits, 1.0, "corrected")) == pytest.approx(reserved, abs=5e-3)


def test_corrected_delta_strictly_below_theorem2_threshold_and_printed_above():
    for d in (4, 8, 16):
        assert mode_release_log_delta(d, 1.0) < theorem2_log_delta_threshold(d, 1.0)
        assert mode_release_log_delta(d, 1.0, "as_printed") > theorem2_log_delta_threshold(d, 1.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="delta_rule"):
        mode_release_log_delta(4, 1.0, "paper")
    with pytest.raises(ValueError, match="power of 2"):
        code_bits(12, "uniform")
    assert code_bits(12, "reserved") == 4


# ------------------------------------------------------------------------------------------ the mechanism


def test_mode_and_distance():
    assert mode_and_distance(np.array([3, 9, 4, 9])) == (1, 9.0, 9.0, 0)
    assert mode_and_distance(np.array([10, 5, 1])) == (0, 10.0, 5.0, 3)
    assert mode_and_distance(np.array([2, 8, 4])) == (1, 8.0, 4.0, 2)


def test_pass_probability_matches_monte_carlo_and_complement():
    rng = np.random.default_rng(0)
    eps, log_delta = 0.8, math.log(1e-3)
    for distance in (2, 9, 15):
        u = distance_to_instability(3, distance, eps, log_delta, 100_000, rng)
        assert _within(np.mean(u == 3), float(pass_probability(distance, eps, log_delta)), u.size)
        assert float(
            pass_probability(distance, eps, log_delta) + refuse_probability(distance, eps, log_delta)
        ) == pytest.approx(1.0)
    far = stability_threshold(eps, log_delta) + 1 + 300
    assert float(refuse_probability(far, eps, log_delta)) == pytest.approx(0.5 * math.exp(-eps * 300), rel=1e-9)


def test_kernel_is_stochastic_and_matches_purify_discrete():
    n_bits, eps, log_delta = 3, 0.5, -6.0
    kernel = np.exp(purify_bits_log_kernel(n_bits, discrete_purification_laplace_scale(n_bits, eps, log_delta)))
    assert np.allclose(kernel.sum(axis=1), 1.0) and np.allclose(kernel, kernel.T)
    rng = np.random.default_rng(1)
    out = purify_discrete(np.full(200_000, 5), n_bits, eps, log_delta, rng)
    freq = np.bincount(out, minlength=8) / out.size
    assert all(_within(f, p, out.size) for f, p in zip(freq, kernel[5]))
    assert bit_flip_probability(n_bits, eps, log_delta) > 0.01  # the test above is not vacuous


@pytest.mark.parametrize("bottom", ["uniform", "reserved"])
@pytest.mark.parametrize("distance", [2, 7, 30])
def test_exact_pmf_matches_sampler(bottom, distance):
    """The closed-form law (kernel + Laplace tail) against the sampler built on purify_discrete, with a loose δ so
    that bit flips are frequent."""
    rng = np.random.default_rng(distance)
    counts = np.zeros(8, dtype=np.int64)
    counts[2], counts[5] = 80, 80 - 2 * distance
    counts[[0, 1]] = 1
    eps = 0.4
    pmf = pure_mode_release_pmf(2, distance, 8, eps, delta_rule="as_printed", bottom=bottom)
    assert pmf.sum() == pytest.approx(1.0)
    out = pure_mode_release(counts, eps, 100_000, rng, delta_rule="as_printed", bottom=bottom)
    assert np.all((out >= BOTTOM) & (out < 8))
    if bottom == "uniform":
        assert not np.any(out == BOTTOM) and pmf[-1] == 0
    freq = np.bincount(out + 1, minlength=9) / out.size  # index 0 = ⊥
    assert all(_within(f, p, out.size) for f, p in zip(freq, np.roll(pmf, 1)))
    success = pure_mode_release_success_probability(2, distance, 8, eps, delta_rule="as_printed", bottom=bottom)
    assert success == pytest.approx(pmf[2], rel=1e-12)


def test_encode_decode_bottom():
    rng = np.random.default_rng(2)
    u = np.array([BOTTOM, 3, BOTTOM, 0])
    assert list(encode_bottom(u, 8, "reserved", rng)) == [8, 3, 8, 0]
    uniform = encode_bottom(np.full(10_000, BOTTOM), 8, "uniform", rng)
    assert uniform.min() >= 0 and uniform.max() < 8
    assert stats.chisquare(np.bincount(uniform, minlength=8)).pvalue > 1e-4
    assert list(decode_bottom(np.array([7, 8, 15, 2]), 8)) == [7, BOTTOM, BOTTOM, 2]


def test_uniform_bottom_pure_epsilon_and_calibration():
    for n in (4, 256, 65536):
        log_delta = uniform_bottom_log_delta(1.0, n)
        assert uniform_bottom_pure_epsilon(1.0, log_delta, n) == pytest.approx(1.0, abs=1e-12)
        assert uniform_bottom_pure_epsilon(1.0, log_delta + 0.1, n) > 1.0
    # the exact law: the mode-change pair at distances 1 and 1 attains the second term
    n, eps, log_delta = 4, 0.1, math.log(0.2)
    p = distance_to_instability_pmf(0, 1, n, eps, log_delta)
    q = distance_to_instability_pmf(1, 1, n, eps, log_delta)
    assert float(np.max(np.log(p[:-1] / q[:-1]))) == pytest.approx(
        uniform_bottom_pure_epsilon(eps, log_delta, n), rel=1e-12
    )


# ---------------------------------------------------------------------------------------------- baselines


def test_report_noisy_max_grouped_matches_bruteforce_and_quadrature():
    rng = np.random.default_rng(3)
    values, mult = np.array([30.0, 26.0, 24.0, 20.0]), np.array([1, 1, 4, 9])
    exact = report_noisy_max_success_probability(values, mult, 1.0)
    grouped = np.mean(report_noisy_max_grouped(values, mult, 1.0, 200_000, rng) == 0)
    brute = np.mean(report_noisy_max(np.repeat(values, mult), 1.0, 100_000, rng) == 0)
    assert _within(grouped, exact, 200_000) and _within(brute, exact, 100_000)
    # two items: P(L1 − L2 > −g) has the closed form 1 − ½e^{−g/s}(1 + g/(2s)) for the Lap(s) difference
    s, g = 2.0, 3.0
    closed = 1 - 0.5 * math.exp(-g / s) * (1 + g / (2 * s))
    assert report_noisy_max_success_probability(np.array([g, 0.0]), np.array([1, 1]), 1.0) == pytest.approx(
        closed, rel=1e-8
    )


def test_exponential_mechanism_selection_frequencies():
    rng = np.random.default_rng(4)
    counts = np.array([5, 3, 3, 0])
    out = exponential_mechanism_selection(counts, 1.0, 100_000, rng)
    weights = np.exp(counts / 2.0)
    weights /= weights.sum()
    freq = np.bincount(out, minlength=4) / out.size
    assert all(_within(f, p, out.size) for f, p in zip(freq, weights))


def test_mode_histogram():
    values, mult = mode_histogram(4, 10_000, 0.3, 800)
    counts = np.repeat(values, mult)
    assert counts.size == 16 and counts.sum() == 10_000 and counts[0] - counts[1] == 800
    assert np.sort(counts)[-2] == counts[1] and counts[2:].max() - counts[2:].min() <= 1
    values, mult = mode_histogram(3, 10_000, 0.3, 10, "all_runner_up")
    assert list(values) == [3000, 2990] and list(mult) == [1, 7]
    with pytest.raises(ValueError, match="n_bits"):
        mode_histogram(1, 100, 0.5, 2)
    with pytest.raises(ValueError, match="layout"):
        mode_histogram(3, 100, 0.5, 2, "other")


# ------------------------------------------------------------------------------ mode_selection_success_probability

_SETTING = dict(n_bits=4, epsilon_total=2.0, reference_delta=1e-4, n_records=400, mode_share=0.3)


def _success(method: str, gap: int, layout: str = "uniform_rest") -> float:
    from dplab.mechanisms.stability import mode_selection_success_probability

    return mode_selection_success_probability(method, gap, layout=layout, **_SETTING)


@pytest.mark.parametrize("gap", [0, 7, 20, 40])
def test_unpurified_releases_written_out(gap):
    eps, size = 2.0, 16
    distance = math.ceil(gap / 2)

    def passes(log_delta: float) -> float:  # P(D0 − 1 + Lap(1/ε) > log(1/δ)/ε)
        s = -log_delta / eps + 1 - distance
        return 0.5 * math.exp(-eps * s) if s >= 0 else 1 - 0.5 * math.exp(eps * s)

    assert _success("distance_reference", gap) == pytest.approx(passes(math.log(1e-4)), rel=1e-12)
    log_delta = math.log(2 * math.expm1(eps) / (size + math.expm1(eps)))
    p = passes(log_delta)
    assert _success("distance_uniform_bottom", gap) == pytest.approx(p + (1 - p) / size, rel=1e-12)


@pytest.mark.parametrize("gap", [0, 5, 30])
def test_exponential_mechanism_success_is_the_softmax_of_the_counts(gap):
    from dplab.mechanisms.stability import mode_histogram

    values, mult = mode_histogram(4, 400, 0.3, gap, "uniform_rest")
    counts = np.repeat(values, mult).astype(float)
    weights = np.exp(2.0 * (counts - counts.max()) / 2)
    assert _success("exponential_mechanism", gap) == pytest.approx(weights[0] / weights.sum(), rel=1e-12)


@pytest.mark.parametrize(("method", "gap"), [("alg12_corrected_uniform", 40), ("alg12_as_printed_reserved", 60)])
def test_alg12_success_against_the_sampler(method, gap):
    from dplab.mechanisms.stability import alg12_variant, mode_histogram, pure_mode_release

    rule, bottom = alg12_variant(method)
    values, mult = mode_histogram(4, 400, 0.3, gap, "uniform_rest")
    runs = 20_000
    out = pure_mode_release(
        np.repeat(values, mult), 1.0, runs, np.random.default_rng(9), delta_rule=rule, bottom=bottom
    )
    p = _success(method, gap)
    assert abs(np.mean(out == 0) - p) < 5 * math.sqrt(p * (1 - p) / runs) + 1e-9


def test_report_noisy_max_success_against_the_sampler_and_the_tie():
    from dplab.mechanisms.stability import mode_histogram, report_noisy_max_grouped

    assert _success("report_noisy_max", 0) == 0.5
    values, mult = mode_histogram(4, 400, 0.3, 6, "uniform_rest")
    runs = 20_000
    p = _success("report_noisy_max", 6)
    rate = np.mean(report_noisy_max_grouped(values, mult, 2.0, runs, np.random.default_rng(10)) == 0)
    assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / runs)


def test_gaps_beyond_the_mode_count_are_clipped_and_methods_checked():
    from dplab.mechanisms.stability import mode_selection_success_probability

    assert _success("exponential_mechanism", 10_000) == _success("exponential_mechanism", 120)  # 0.3 · 400
    with pytest.raises(ValueError, match="method"):
        mode_selection_success_probability("laplace", 3, **_SETTING)
