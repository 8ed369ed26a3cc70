"""MWEM (Algorithm 14), proportional sampling (Algorithm 15), bit-level purification and Algorithm 16's parameters
(Lin, Wang, Ma, Wang, App. K.2), against reference values of Algorithm 16's parameters recomputed independently, mpmath,
dp_accounting, brute force and Monte Carlo."""

from __future__ import annotations

import math

import dp_accounting
import mpmath
import numpy as np
import pytest
from dp_accounting import rdp

from dplab.mechanisms.exponential import sample_exponential_mechanism_gumbel
from dplab.mechanisms.mwem import (
    _mwem_round_noise,
    algorithm16_parameters,
    conjunction_queries,
    empirical_histograms,
    half_subset_queries,
    laplace_answers,
    laplace_histogram,
    lemma36_rho,
    linf_error,
    multiplicative_weights_update,
    mwem,
    mwem_epsilon_approx,
    mwem_epsilon_pure_basic_composition,
    mwem_rounds_fixed_point,
    mwem_zcdp,
    product_bernoulli_cell_probabilities,
    proportional_sampling,
    pure_mwem_rounds_fixed_point,
    purify_records,
    query_answers,
    record_bits_flipped,
    sample_histograms,
)
from dplab.mechanisms.purification import binmap


@pytest.mark.parametrize(
    "n, k, m, log_inv_delta, rho, fixed, rounds, eps0, scale",
    [
        (1e4, 100, 117, 21157.61, 2.95402e-6, 11.473, 11, 5.18215e-4, 0.193),
        (1e6, 100, 2500, 6.36e5, None, None, 147, None, 0.0387),
        (1e7, 1000, 11604, 3.38e6, None, None, 514, None, 0.0167),
    ],
)
def test_algorithm16_check_values(n, k, m, log_inv_delta, rho, fixed, rounds, eps0, scale):
    """Algorithm 16's parameters at d = 8, ε = 1 (reference values recomputed independently)."""
    p = algorithm16_parameters(n, 8, k, 1.0)
    assert p.m == m and p.n_bits == 8 * m and p.rounds == rounds
    digits = 1e-4 if rho is not None else 3e-3
    assert -p.log_delta == pytest.approx(log_inv_delta, rel=digits)
    assert p.answer_noise_scale == pytest.approx(scale, rel=3e-3)
    if rho is not None:
        assert p.rho == pytest.approx(rho, rel=1e-4)
        assert p.rounds_fixed_point == pytest.approx(fixed, rel=1e-4)
        assert p.epsilon0 == pytest.approx(eps0, rel=1e-4)


def test_algorithm16_delta_against_mpmath():
    """log δ = log(ε^{d̃}/(2d̃)^{3d̃}) evaluated at 50 digits (δ itself ~ 1e-9189), minus the margin."""
    mpmath.mp.dps = 50
    for eps in (0.5, 1.0, 1.7):
        p = algorithm16_parameters(1e4, 8, 100, eps)
        dt = p.n_bits
        exact = mpmath.log(mpmath.mpf(eps) ** dt / (2 * mpmath.mpf(dt)) ** (3 * dt))
        assert p.log_delta == pytest.approx(float(exact) - 1e-6, rel=1e-12)
        assert p.log_omega == pytest.approx(-dt * math.log(2))
        # Δ = 2 d̃ (δ/2ω)^{1/d̃} at 50 digits, and b = 2Δ/ε.
        delta = mpmath.e ** mpmath.mpf(p.log_delta)
        shift = 2 * dt * (delta / (2 * mpmath.mpf(2) ** (-dt))) ** (mpmath.mpf(1) / dt)
        assert p.shift == pytest.approx(float(shift), rel=1e-9)
        assert p.laplace_scale == pytest.approx(2 * float(shift) / eps, rel=1e-9)


def test_rounds_fixed_points_solve_their_equations():
    t = mwem_rounds_fixed_point(1e5, 8, 100, 1.0, 5000.0)
    assert t == pytest.approx(math.sqrt(8) * 1e5 / (math.sqrt(5000.0) * math.log(100 * 2 * t * 1e5)), rel=1e-10)
    t = pure_mwem_rounds_fixed_point(1e5, 8, 100, 2.0)
    assert t == pytest.approx((math.sqrt(8) * 2e5 / (2 * math.log(100 * 2 * t * 1e5))) ** (2 / 3), rel=1e-10)


def test_mwem_accounting_direct():
    """2T pure ε₀ steps, each ε₀²/2-zCDP: ρ = Tε₀²; with ε₀ = √(ρ/T) this returns ρ; conversion ρ + 2√(ρ L)."""
    p = algorithm16_parameters(1e4, 8, 100, 1.0)
    rho_direct = sum(p.epsilon0**2 / 2 for _ in range(2 * p.rounds))
    assert mwem_zcdp(p.rounds, p.epsilon0) == pytest.approx(rho_direct, rel=1e-12)
    assert rho_direct == pytest.approx(p.rho, rel=1e-12)
    big_l = -p.log_delta
    eps_dp = mwem_epsilon_approx(p.rounds, p.epsilon0, big_l)
    assert eps_dp == pytest.approx(rho_direct + 2 * math.sqrt(rho_direct * big_l), rel=1e-12)
    # Lemma 36's claim (eps, delta) with rho = eps^2/(16 log(1/delta)): holds, and spends eps/2 + eps^2/(16 L).
    assert eps_dp <= 1.0
    assert eps_dp == pytest.approx(0.5 + 1.0 / (16 * big_l), rel=1e-12)
    assert 4 * math.sqrt(p.rho * big_l) == pytest.approx(1.0, rel=1e-12)  # the proof's looser bound
    # The same run by basic composition: 2 T eps0 = 2 sqrt(rho T), here ~0.0114 << eps.
    assert mwem_epsilon_pure_basic_composition(p.rounds, p.epsilon0) == pytest.approx(
        2 * math.sqrt(p.rho * p.rounds), rel=1e-12
    )


@pytest.mark.parametrize("rounds, eps0, delta", [(20, 0.02, 1e-6), (147, 2.5e-3, 1e-10)])
def test_mwem_accounting_vs_dp_accounting(rounds, eps0, delta):
    """dp_accounting's RDP accountant on 2T Laplace(1/ε₀) steps (one kind of ε₀-DP step) never exceeds our zCDP
    bound, which holds for any ε₀-DP steps; both lie within a factor 1.5."""
    event = dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(1.0 / eps0), 2 * rounds)
    eps_rdp = rdp.RdpAccountant().compose(event).get_epsilon(delta)
    ours = mwem_epsilon_approx(rounds, eps0, -math.log(delta))
    assert eps_rdp <= ours * (1 + 1e-9)
    assert ours <= 1.5 * eps_rdp


def test_multiplicative_weights_update_direct():
    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(8))
    q = (rng.random(8) < 0.5).astype(float)
    new = np.exp(multiplicative_weights_update(np.log(p), q, 0.7, q @ p))
    direct = p * np.exp(q * (0.7 - q @ p) / 2)
    np.testing.assert_allclose(new, direct / direct.sum(), rtol=1e-12)


def test_multiplicative_weights_update_against_logaddexp_at_extreme_weights():
    """Cells far below the smallest double (log p = −1000) and a step of ±800 nats: the max-shifted normaliser
    agrees with numpy's sequential logaddexp reduction, and p = exp(log p) sums to 1."""
    log_p = np.log(np.array([[0.5, 0.5, 1e-300, 1e-300], [0.25, 0.25, 0.25, 0.25]]))
    log_p[0, 2:] = -1000.0
    q = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    for step in (1600.0, -1600.0, 0.3):
        new = multiplicative_weights_update(log_p, q, np.array([step, -step]), np.zeros(2))
        out = log_p + q * (np.array([step, -step]) / 2)[:, None]
        reference = out - np.logaddexp.reduce(out, axis=-1, keepdims=True)
        np.testing.assert_allclose(new, reference, rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(np.exp(new).sum(axis=-1), 1.0, rtol=1e-14)


def _numpy_round_noise(rng, rounds, runs, k, scale):
    """The round-by-round draws _mwem_round_noise replaces: Gumbel (runs, K), then Laplace (runs,), each round."""
    return [(rng.gumbel(size=(runs, k)), rng.laplace(scale=scale, size=runs)) for _ in range(rounds)]


@pytest.mark.parametrize("rounds, runs, k", [(1, 1, 1), (37, 3, 5), (50, 20, 100), (3, 2, 20000)])
def test_round_noise_is_numpys_stream_drawn_in_blocks(rounds, runs, k):
    """Same values as numpy's round-by-round samplers up to the rounding of ``log`` (a few ulp), and the generator
    ends in the same state: one block ((1, 1, 1), (37, 3, 5)), blocks of 16 rounds with a shorter last one
    ((50, 20, 100)), one round a block ((3, 2, 20000))."""
    ours, theirs = np.random.default_rng(11), np.random.default_rng(11)
    blocks = [(g.copy(), lap.copy()) for g, lap in _mwem_round_noise(ours, rounds, runs, k, 0.37)]
    reference = _numpy_round_noise(theirs, rounds, runs, k, 0.37)
    assert len(blocks) == rounds
    for (g, lap), (g_ref, lap_ref) in zip(blocks, reference):
        np.testing.assert_allclose(g, g_ref, rtol=4e-15, atol=1e-15)
        np.testing.assert_allclose(lap, lap_ref, rtol=4e-15, atol=1e-16)
    assert ours.bit_generator.state == theirs.bit_generator.state


def _generator_whose_next_double_is_zero(seed: int) -> np.random.Generator:
    """A PCG64 generator whose next ``random()`` is exactly 0.0: the state before a step s' with equal 64-bit halves
    (XSL-RR output 0), s = (s' − inc)·mult⁻¹ mod 2¹²⁸."""
    multiplier = (2549297995355413924 << 64) + 4865540595714422341  # PCG's 128-bit LCG multiplier
    rng = np.random.default_rng(seed)
    state = rng.bit_generator.state
    half = 0x0123456789ABCDEF
    target = (half << 64) | half
    state["state"]["state"] = ((target - state["state"]["inc"]) * pow(multiplier, -1, 1 << 128)) % (1 << 128)
    rng.bit_generator.state = state
    return rng


def test_round_noise_redraws_a_block_holding_a_zero_uniform_as_numpy_does():
    """numpy rejects U = 0 (Gumbel: 1 − U = 1; Laplace: U = 0): a block that draws one is redrawn round by round,
    so the values and the final state are numpy's exactly."""
    probe = _generator_whose_next_double_is_zero(4)
    assert probe.random() == 0.0
    ours, theirs = _generator_whose_next_double_is_zero(4), _generator_whose_next_double_is_zero(4)
    blocks = [(g.copy(), lap.copy()) for g, lap in _mwem_round_noise(ours, 5, 2, 3, 0.5)]
    for (g, lap), (g_ref, lap_ref) in zip(blocks, _numpy_round_noise(theirs, 5, 2, 3, 0.5)):
        np.testing.assert_array_equal(g, g_ref)
        np.testing.assert_array_equal(lap, lap_ref)
    assert ours.bit_generator.state == theirs.bit_generator.state


def _mwem_reference(counts, queries, n, rounds, epsilon0, rng):
    """Algorithm 14 round by round with numpy's samplers and a logaddexp normaliser (the loop mwem replaces)."""
    true = counts / n @ queries.T
    log_p = np.full(counts.shape, -math.log(counts.shape[1]))
    total, rows = np.zeros(counts.shape), np.arange(counts.shape[0])
    chosen = []
    for _ in range(rounds):
        p = np.exp(log_p)
        total += p
        current = p @ queries.T
        k = sample_exponential_mechanism_gumbel(np.abs(current - true), epsilon0, 1.0 / n, rng)
        m = true[rows, k] + rng.laplace(scale=1.0 / (n * epsilon0), size=counts.shape[0])
        out = log_p + queries[k] * ((m - current[rows, k]) / 2.0)[:, None]
        log_p = out - np.logaddexp.reduce(out, axis=-1, keepdims=True)
        chosen.append(k)
    return total / rounds, np.stack(chosen, axis=1)


@pytest.mark.parametrize("family", [half_subset_queries, conjunction_queries])
def test_mwem_matches_the_round_by_round_reference(family):
    """Same transcript (chosen queries) as the round-by-round loop on the same seed, the same output to 1e-12, and
    the generator left in the same state (Algorithm 16 keeps drawing from it)."""
    rng = np.random.default_rng(12)
    counts = sample_histograms(5000, rng.uniform(0.1, 0.9, (4, 5)), rng)
    queries = family(5, 40, rng)
    ours, theirs = np.random.default_rng(13), np.random.default_rng(13)
    run = mwem(counts, queries, 5000, 300, 0.01, ours)
    synthetic, chosen = _mwem_reference(counts, queries, 5000, 300, 0.01, theirs)
    np.testing.assert_array_equal(run.chosen, chosen)
    np.testing.assert_allclose(run.synthetic, synthetic, rtol=1e-12)
    assert ours.bit_generator.state == theirs.bit_generator.state


def test_mwem_one_round_is_uniform_and_noiseless_mwem_converges():
    rng = np.random.default_rng(3)
    counts = sample_histograms(10000, rng.uniform(0.1, 0.9, (2, 4)), rng)
    queries = half_subset_queries(4, 20, rng)
    assert np.allclose(mwem(counts, queries, 10000, 1, 1.0, rng).synthetic, 1 / 16)
    true = query_answers(queries, counts / 10000)
    errors = [
        linf_error(query_answers(queries, mwem(counts, queries, 10000, t, 1e3, rng).synthetic), true).mean()
        for t in (1, 30, 300)
    ]
    assert errors[0] > errors[1] > errors[2]
    run = mwem(counts, queries, 10000, 5, 0.1, rng)
    assert run.chosen.shape == (2, 5) and np.allclose(run.synthetic.sum(axis=1), 1)


def test_data_and_queries_brute_force():
    bias = np.array([0.2, 0.7, 0.5])
    p = product_bernoulli_cell_probabilities(bias)
    for x in range(8):
        bits = [(x >> (2 - j)) & 1 for j in range(3)]
        assert p[x] == pytest.approx(np.prod([b if v else 1 - b for b, v in zip(bias, bits)]))
    rng = np.random.default_rng(4)
    conj = conjunction_queries(3, 5, rng)
    assert conj.shape == (5, 8) and np.all(conj.sum(axis=1) == 1)  # a 3-way conjunction on d = 3 is one cell
    half = half_subset_queries(4, 6, rng)
    assert np.all(half.sum(axis=1) == 8)
    conj = conjunction_queries(5, 50, rng)
    assert np.all(conj.sum(axis=1) == 4)
    counts = sample_histograms(1000, np.tile(bias, (3, 1)), rng)
    assert np.all(counts.sum(axis=1) == 1000)


def test_proportional_sampling_frequencies():
    rng = np.random.default_rng(5)
    p = np.array([[0.1, 0.0, 0.6, 0.3]])
    draws = proportional_sampling(p, 100000, rng)
    freq = np.bincount(draws[0], minlength=4) / draws.size
    np.testing.assert_allclose(freq, p[0], atol=5 * math.sqrt(0.25 / 100000))


def test_purify_records_in_universe_and_unchanged_at_paper_delta():
    rng = np.random.default_rng(9)
    p = algorithm16_parameters(1e4, 8, 100, 1.0)
    records = rng.integers(0, 256, size=(4, p.m))
    out, mixed = purify_records(records, 8, 1.0, p.log_delta, rng)
    assert out.shape == records.shape and np.all((out >= 0) & (out < 256))
    assert np.array_equal(out, records) and not mixed.any()  # flip probability ½e^{−1/(2b)} ~ e^{−4.4e5}
    bits = binmap(records, 8).reshape(4, -1)
    assert bits.shape[1] == p.n_bits


def test_laplace_baselines_noise_scale():
    rng = np.random.default_rng(10)
    counts = np.full((1, 16), 1e6)
    n = counts.sum()
    hist = laplace_histogram(np.repeat(counts, 4000, axis=0), 0.5, rng)
    # no clipping at these counts: noisy/total - 1/16 ≈ (Z_i - mean(Z))/n with Z ~ Lap(2): std 2√2·√(15/16)/n
    assert np.std((hist - 1 / 16) * n) == pytest.approx(math.sqrt(2) * 2 * math.sqrt(15 / 16), rel=0.03)
    queries = half_subset_queries(4, 5, rng)
    ans = laplace_answers(np.repeat(counts, 4000, axis=0), queries, n / 100, 1.0, rng)  # answers 50 → clipped to 1
    assert np.all(ans <= 1)
    ans = laplace_answers(np.repeat(counts, 4000, axis=0), queries, n, 1.0, rng)
    assert np.std(ans - 0.5) == pytest.approx(math.sqrt(2) * 5 / n, rel=0.03)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="rounds"):
        mwem(np.ones((1, 4)), np.ones((2, 4)), 4, 0, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        lemma36_rho(0.0, 10.0)


def test_empirical_histograms_and_bits_flipped_against_loops():
    records = np.array([[0, 3, 3, 1], [2, 2, 2, 2]])
    expected = [[sum(r == c for r in row) / 4 for c in range(4)] for row in records.tolist()]
    np.testing.assert_array_equal(empirical_histograms(records, 4), expected)
    purified = np.array([[1, 3, 0, 1], [2, 5, 2, 2]])
    flips = [sum(bin(a ^ b).count("1") for a, b in zip(x, y)) for x, y in zip(records.tolist(), purified.tolist())]
    assert record_bits_flipped(records, purified).tolist() == flips == [3, 3]
    with pytest.raises(ValueError, match="records"):
        empirical_histograms(records, 3)
