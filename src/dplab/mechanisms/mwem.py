"""Query release with MWEM and its purification (Lin, Wang, Ma, Wang, App. K.2: Algorithms 14–16, Lemma 36,
Theorem 8/13), plus simple pure-DP baselines.

Setting: universe 𝒳 = {0,1}^d (N = 2^d cells, cell index = BinMap of the record), data as a histogram of counts,
K linear queries given as a 0/1 matrix ``queries`` of shape (K, N); answers are normalised by a **public** n,
Q(D) = queries @ counts / n.  Adjacency: add/remove one record with n a public normaliser (the neighbour has
n ± 1 records but is still divided by n), so every normalised answer moves by ≤ 1/n and the histogram by 1 in ℓ1
(no 1/(n−1) normaliser arises, because n is not recomputed from the data).

Algorithm 14, MWEM(D, Q, T, ρ) in zCDP form, as implemented here (the printed update's q read as p):

- p₀ = uniform, p = D/n, ε₀ = √(ρ/T);
- for t = 1..T: q_t ~ exponential mechanism P(k) ∝ exp(ε₀·n·|q_k(p_{t−1}) − q_k(p)|/2) (our temperature: the
  score has sensitivity 1/n); m_t = q_t(p) + Lap(1/(nε₀)); p_t(x) ∝ p_{t−1}(x)·exp(q_t(x)(m_t − q_t(p_{t−1}))/2)
  (corrected update: the paper prints q where it means p);
- output D̂/n = (1/T)Σ_{t=0}^{T−1} p_t (as printed; HLM12 average the post-update iterates).

Each of the 2T steps is ε₀-DP, hence ε₀²/2-zCDP, so MWEM is Tε₀² = ρ-zCDP and (ρ + 2√(ρ log(1/δ)), δ)-DP
(Lemma 22); Lemma 36 takes ρ = ε²/(16 log(1/δ)).  By basic composition the same run is also 2Tε₀ = 2√(ρT)-pure DP.

Algorithm 15 draws m records from D̂/n; Algorithm 16 purifies those m records, encoded as m·d bits, with
Algorithm 2: with probability ω = 2^{−md} replace the bits by Unif[0,1]^{md}, add Laplace(2Δ/ε) to every bit,
round at ½.  Δ is Algorithm 2's shift for md bits (corrected geometry, q = ∞, R = 1,
``dplab.mechanisms.purification.discrete_purification_shift``).  Since md is in the hundreds to ~10⁵, ω is far
below the smallest double: the mixing coin (``dplab.mechanisms.purification.bernoulli_from_log``) has probability
exactly ω, so it is part of the code but, at these sizes, never fires.

All samplers are vectorised over a leading axis of independent runs (seeds).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dplab.checks import (
    as_finite_array,
    as_float_array,
    as_integer_array,
    as_non_negative_array,
    in_range,
    positive_finite,
    require,
    require_ndim,
    whole_number,
)
from dplab.mechanisms.purification import binmap, binmap_inverse, discrete_purification_shift, purify_bits
from dplab.theory.purification import purification_laplace_scale, theorem2_log_delta_threshold, zcdp_epsilon

__all__ = [
    "MwemRun",
    "product_bernoulli_cell_probabilities",
    "sample_histograms",
    "half_subset_queries",
    "conjunction_queries",
    "query_answers",
    "linf_error",
    "multiplicative_weights_update",
    "mwem",
    "mwem_rounds_fixed_point",
    "pure_mwem_rounds_fixed_point",
    "lemma36_rho",
    "mwem_zcdp",
    "mwem_epsilon_approx",
    "mwem_epsilon_pure_basic_composition",
    "proportional_sampling",
    "purify_records",
    "empirical_histograms",
    "record_bits_flipped",
    "Algorithm16Parameters",
    "algorithm16_parameters",
    "laplace_answers",
    "laplace_histogram",
]


# ----------------------------------------------------------------------------------------------------------------
# Data and workloads
# ----------------------------------------------------------------------------------------------------------------


def _check_counts_and_queries(counts: np.ndarray, queries: np.ndarray) -> None:
    """Counts: non-negative finite (runs, N) or (N,); queries: (K, N) with entries in [0, 1]."""
    cells = as_non_negative_array(counts, "counts")
    table = require_ndim("queries", as_float_array(queries, "queries"), 2)
    require((table >= 0) & (table <= 1), "queries", table, "entries in [0, 1]")
    if table.shape[1] != cells.shape[-1]:
        raise ValueError(
            f"queries has shape {table.shape} and counts has shape {cells.shape}; allowed: one query "
            f"column per histogram cell"
        )


def product_bernoulli_cell_probabilities(bias: np.ndarray) -> np.ndarray:
    """P(x) = Π_j b_j^{x_j}(1 − b_j)^{1−x_j} for every x ∈ {0,1}^d (cells in BinMap order); ``bias`` (..., d)."""
    bias_array = as_float_array(bias, "bias")
    require((bias_array >= 0) & (bias_array <= 1), "bias", bias_array, "probabilities in [0, 1]")
    bias = np.asarray(bias, float)
    d = bias.shape[-1]
    bits = binmap(np.arange(2**d), d).astype(float)
    logs = np.log(bias)[..., None, :] * bits + np.log1p(-bias)[..., None, :] * (1.0 - bits)
    return np.exp(logs.sum(axis=-1))


def sample_histograms(n: int, bias: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Histograms of n i.i.d. product-Bernoulli records, one per row of ``bias`` (runs, d): Multinomial(n, P)."""
    whole_number("n", n)
    probabilities = product_bernoulli_cell_probabilities(bias)
    return rng.multinomial(n, probabilities / probabilities.sum(axis=-1, keepdims=True)).astype(float)


def half_subset_queries(d: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """K counting queries q(x) = 𝟙[x ∈ S] with S a uniformly random half of 𝒳: (K, 2^d) in {0, 1}."""
    whole_number("d", d)
    whole_number("k", k)
    n_cells = 2**d
    order = np.argsort(rng.random((k, n_cells)), axis=-1)
    return (order < n_cells // 2).astype(float)


def conjunction_queries(d: int, k: int, rng: np.random.Generator, width: int = 3) -> np.ndarray:
    """K ``width``-way conjunctions q(x) = 𝟙[x_i = a_i for i in S], |S| = width, random S and signs a: (K, 2^d)."""
    whole_number("d", d)
    whole_number("k", k)
    whole_number("width", width)
    if width > d:
        raise ValueError(f"width={width!r} must be <= d={d!r}")
    bits = binmap(np.arange(2**d), d)
    coords = np.argsort(rng.random((k, d)), axis=-1)[:, :width]
    signs = rng.integers(0, 2, size=(k, width))
    return np.all(bits[:, coords] == signs, axis=-1).T.astype(float)


def query_answers(queries: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """⟨q_k, w⟩ for each run: queries (K, N) shared by all runs, weights (runs, N) → (runs, K)."""
    return np.asarray(weights, float) @ queries.T


def linf_error(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """‖a − b‖_∞ along the last axis (the query-release error metric)."""
    as_finite_array(a, "a")
    as_finite_array(b, "b")
    if np.shape(a) != np.shape(b):
        raise ValueError(f"b has shape {np.shape(b)} and a has shape {np.shape(a)}; allowed: equal shapes")
    return np.max(np.abs(a - b), axis=-1)


# ----------------------------------------------------------------------------------------------------------------
# Algorithm 14 (MWEM) and its accounting
# ----------------------------------------------------------------------------------------------------------------


def _normalise_log_weights(log_w: np.ndarray, p: np.ndarray) -> None:
    """In place, along the last axis: log_w ← log_w − log Σ_x exp(log_w(x)) and p ← exp(log_w), the log-normaliser
    taken after shifting each row by its maximum (no overflow; p from the same exponentials)."""
    log_w -= log_w.max(axis=-1, keepdims=True)
    np.exp(log_w, out=p)
    total = p.sum(axis=-1, keepdims=True)
    p /= total
    log_w -= np.log(total)


def multiplicative_weights_update(
    log_p: np.ndarray, query_rows: np.ndarray, measurement: np.ndarray, current_answer: np.ndarray
) -> np.ndarray:
    """Corrected update of Algorithm 14 (p where the paper prints q) in log space: log p_t(x) = log p_{t−1}(x) +
    q_t(x)(m_t − q_t(p_{t−1}))/2 − log-normaliser.  Shapes: log_p, query_rows (..., N); measurement,
    current_answer (...)."""
    out = log_p + query_rows * ((np.asarray(measurement) - np.asarray(current_answer)) / 2.0)[..., None]
    _normalise_log_weights(out, np.empty_like(out))
    return out


@dataclass(frozen=True)
class MwemRun:
    """Output of :func:`mwem`: ``synthetic`` = D̂/n (runs, N); the transcript (chosen query indices and noisy
    measurements, (runs, T)); ``epsilon0`` per step."""

    synthetic: np.ndarray
    chosen: np.ndarray
    measurements: np.ndarray
    epsilon0: float


#: MWEM's noise is drawn in blocks of rounds of about this many doubles (256 KiB, so that a block stays in cache).
_NOISE_BLOCK_DOUBLES = 2**15


def _mwem_round_noise(
    rng: np.random.Generator, rounds: int, runs: int, k: int, laplace_scale: float
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """MWEM's noise, round after round: standard Gumbel (runs, K) for the exponential mechanism, then
    Laplace(``laplace_scale``) (runs,) for the measurement; none of it depends on the iterate.

    Drawn in blocks of rounds from one stream of uniforms U: the doubles that ``rng.gumbel(size=(runs, K))`` and
    ``rng.laplace(scale=laplace_scale, size=runs)`` consume each round, in that order, transformed as numpy
    transforms them (G = −log(−log(1 − U)); L = −b·log(2 − 2U) for U ≥ ½, b·log(2U) below), so the values agree
    with round-by-round draws up to the rounding of ``log`` and ``rng`` ends in the same state.  numpy rejects
    U = 0 and draws again (probability 2^−53 a draw); a block that holds one is drawn again, round by round with
    numpy's samplers, from the state it started at.

    The Gumbel arrays are views of one buffer that the next block overwrites: use each round's before the next.
    """
    per_round, gumbel_size = runs * (k + 1), runs * k
    block = max(1, min(rounds, _NOISE_BLOCK_DOUBLES // per_round))
    uniforms, gumbel = np.empty((block, per_round)), np.empty((block, gumbel_size))
    for start in range(0, rounds, block):
        size = min(block, rounds - start)
        state = rng.bit_generator.state
        u = uniforms[:size]
        rng.random(out=u)
        if u.all():
            g = gumbel[:size]
            np.subtract(1.0, u[:, :gumbel_size], out=g)
            for transform in (np.log, np.negative, np.log, np.negative):
                transform(g, out=g)
            g = g.reshape(size, runs, k)
            u = u[:, gumbel_size:]
            laplace = np.where(u >= 0.5, -laplace_scale * np.log(2.0 - u - u), laplace_scale * np.log(u + u))
        else:
            rng.bit_generator.state = state
            draws = [(rng.gumbel(size=(runs, k)), rng.laplace(scale=laplace_scale, size=runs)) for _ in range(size)]
            g, laplace = (np.stack(noise) for noise in zip(*draws))
        yield from zip(g, laplace)


def mwem(
    counts: np.ndarray, queries: np.ndarray, n: float, rounds: int, epsilon0: float, rng: np.random.Generator
) -> MwemRun:
    """Algorithm 14 with per-step budget ε₀ (ε₀ = √(ρ/T) in the zCDP form, ε/(2T) for pure MWEM by basic
    composition), vectorised over runs: counts (runs, N), queries (K, N) with entries in [0, 1], public n.

    Per round: exponential mechanism on scores |q(p_{t−1}) − q(p)| (sensitivity 1/n), by the Gumbel-max trick
    argmax_k (ε₀ n |q_k(p_{t−1}) − q_k(p)|/2 + G_k) (McSherry–Talwar's law exactly, as
    :func:`dplab.mechanisms.exponential.sample_exponential_mechanism_gumbel`), Laplace(1/(nε₀)) measurement,
    multiplicative-weights update in log space (:func:`multiplicative_weights_update`: p where Algorithm 14
    prints q).  Returns the printed output (1/T)Σ_{t=0}^{T−1} p_t.  Draw order per round: Gumbel noise (runs, K),
    then Laplace (runs,), drawn in blocks of rounds (:func:`_mwem_round_noise`).

    Arguments are checked once; the rounds write into arrays allocated once (a fresh array above glibc's 128 KiB
    mmap threshold is mapped and faulted in again every round: K = 1000's noise took 2.4x as long).
    """
    whole_number("rounds", rounds)
    epsilon0 = positive_finite("epsilon0", epsilon0)
    _check_counts_and_queries(counts, queries)
    positive_finite("n", n)
    counts = np.atleast_2d(np.asarray(counts, float))
    runs, n_cells = counts.shape
    queries = np.asarray(queries, float)
    queries_t = np.ascontiguousarray(queries.T)
    true = (counts / n) @ queries_t
    logit_scale = epsilon0 * n / 2.0  # ε₀/(2Δu) with the score's sensitivity Δu = 1/n
    log_p = np.full((runs, n_cells), -math.log(n_cells))
    p, step, total = np.exp(log_p), np.empty((runs, n_cells)), np.zeros((runs, n_cells))
    current, score = np.empty_like(true), np.empty_like(true)
    chosen = np.empty((runs, rounds), dtype=np.int64)
    measured = np.empty((runs, rounds))
    rows = np.arange(runs)
    noise = _mwem_round_noise(rng, rounds, runs, queries.shape[0], 1.0 / (n * epsilon0))
    for t, (gumbel, laplace) in enumerate(noise):
        total += p
        np.matmul(p, queries_t, out=current)
        np.subtract(current, true, out=score)
        np.abs(score, out=score)
        score *= logit_scale
        score += gumbel
        k = score.argmax(axis=-1)
        m_t = true[rows, k] + laplace
        np.take(queries, k, axis=0, out=step)
        step *= ((m_t - current[rows, k]) / 2.0)[:, None]
        log_p += step
        _normalise_log_weights(log_p, p)
        chosen[:, t], measured[:, t] = k, m_t
    return MwemRun(total / rounds, chosen, measured, epsilon0)


def lemma36_rho(epsilon: float, log_inv_delta: float) -> float:
    """ρ = ε²/(16 log(1/δ)) (Lemma 36, Algorithm 16)."""
    epsilon = positive_finite("epsilon", epsilon)
    log_inv_delta = in_range("log_inv_delta", log_inv_delta, 0.0, math.inf, low_open=True)
    return epsilon**2 / (16.0 * log_inv_delta)


def mwem_zcdp(rounds: int, epsilon0: float) -> float:
    """zCDP of MWEM from its 2T steps, each ε₀-DP and hence ε₀²/2-zCDP (Bun–Steinke Prop. 1.4): T·ε₀²."""
    whole_number("rounds", rounds)
    positive_finite("epsilon0", epsilon0)
    return rounds * epsilon0**2


def mwem_epsilon_approx(rounds: int, epsilon0: float, log_inv_delta: float) -> float:
    """(ε, δ) of MWEM by zCDP: ρ + 2√(ρ log(1/δ)) with ρ = Tε₀² (Lemma 22).  Lemma 36's proof bounds it by
    4√(ρ log(1/δ)), which at ρ = ε²/(16 log(1/δ)) is ε; the exact conversion gives ε/2 + ε²/(16 log(1/δ))."""
    whole_number("rounds", rounds)
    positive_finite("epsilon0", epsilon0)
    positive_finite("log_inv_delta", log_inv_delta)
    return zcdp_epsilon(mwem_zcdp(rounds, epsilon0), log_inv_delta)


def mwem_epsilon_pure_basic_composition(rounds: int, epsilon0: float) -> float:
    """Pure ε of the same run by basic composition of its 2T ε₀-DP steps: 2Tε₀ (= 2√(ρT) for ε₀ = √(ρ/T))."""
    whole_number("rounds", rounds)
    positive_finite("epsilon0", epsilon0)
    return 2.0 * rounds * epsilon0


def _fixed_point(update, start: float = 1.0, iterations: int = 200) -> float:
    value = start
    for _ in range(iterations):
        new = update(value)
        if abs(new - value) <= 1e-12 * max(1.0, value):
            return new
        value = new
    raise ValueError(f"fixed point did not converge (last values {value!r}, {new!r})")


def mwem_rounds_fixed_point(n: float, d: int, k: int, epsilon: float, log_inv_delta: float) -> float:
    """T = √d·nε/(√log(1/δ)·log(K/β)) with β = 1/(2Tn) (proof of Theorem 13), solved as a fixed point (our rounding)."""
    positive_finite("n", n)
    whole_number("d", d)
    whole_number("k", k)
    positive_finite("epsilon", epsilon)
    positive_finite("log_inv_delta", log_inv_delta)

    def update(t: float) -> float:
        return math.sqrt(d) * n * epsilon / (math.sqrt(log_inv_delta) * math.log(k * 2.0 * max(t, 1e-12) * n))

    return _fixed_point(update)


def pure_mwem_rounds_fixed_point(n: float, d: int, k: int, epsilon: float) -> float:
    """Our choice of T for pure MWEM at ε (ε/(2T) per step): balance √(d/T) with 2T log(K/β)/(nε), β = 1/(2Tn):
    T = (√d·nε/(2 log(K/β)))^{2/3}, a fixed point."""
    positive_finite("n", n)
    whole_number("d", d)
    whole_number("k", k)
    positive_finite("epsilon", epsilon)

    def update(t: float) -> float:
        return (math.sqrt(d) * n * epsilon / (2.0 * math.log(k * 2.0 * max(t, 1e-12) * n))) ** (2.0 / 3.0)

    return _fixed_point(update)


# ----------------------------------------------------------------------------------------------------------------
# Algorithms 15 and 16
# ----------------------------------------------------------------------------------------------------------------


def proportional_sampling(probabilities: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 15: m i.i.d. cells from each row of ``probabilities`` (runs, N) → (runs, m) (inverse CDF)."""
    weights = as_non_negative_array(probabilities, "probabilities")
    require(weights <= 1, "probabilities", weights, "probabilities in [0, 1]")
    whole_number("m", m)
    probabilities = np.atleast_2d(np.asarray(probabilities, float))
    cdf = np.cumsum(probabilities, axis=1)
    u = rng.random((probabilities.shape[0], m)) * cdf[:, -1:]
    return np.minimum(
        np.stack([np.searchsorted(c, row, side="right") for c, row in zip(cdf, u)]), probabilities.shape[1] - 1
    )


def purify_records(
    records: np.ndarray, d: int, epsilon: float, log_delta: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 16, line 4: a synthetic dataset Y ∈ 𝒳^m per run (records (runs, m), cells in [2^d]) encoded as
    m·d bits (BinMap per record, concatenated: the binary expansion of Y as an element of [2^{md}]), purified by
    :func:`purify_bits`, decoded record by record.  Returns (records (runs, m), mixed (runs,))."""
    as_integer_array(records, "records", minimum=0)
    whole_number("d", d)
    records = np.atleast_2d(np.asarray(records, dtype=np.int64))
    runs, m = records.shape
    bits = binmap(records, d).reshape(runs, m * d)
    pure_bits, mixed = purify_bits(bits, epsilon, log_delta, rng)
    return binmap_inverse(pure_bits.reshape(runs, m, d)), mixed


@dataclass(frozen=True)
class Algorithm16Parameters:
    """Parameters of Algorithm 16 at (n, d, K, ε) (proof of Theorem 13; our rounding)."""

    m: int
    n_bits: int
    log_delta: float
    log_omega: float
    rho: float
    rounds_fixed_point: float
    rounds: int
    epsilon0: float
    answer_noise_scale: float
    shift: float
    laplace_scale: float


def algorithm16_parameters(
    n: float, d: int, k: int, epsilon: float, log_delta_margin: float = 1e-6, m: int | None = None
) -> Algorithm16Parameters:
    """m = ⌈(nε/d)^{2/3}⌉ (or the given m), d̃ = md, log δ = d̃ log ε − 3d̃ log(2d̃) − margin (Theorem 2's threshold,
    strict), ω = 2^{−d̃}, ρ = ε²/(16 log(1/δ)), T = nearest integer (≥ 1) to the fixed point of
    √d·nε/(√log(1/δ)·log(2KTn)), ε₀ = √(ρ/T), answer noise 1/(nε₀), Δ = 2d̃(δ/2ω)^{1/d̃}, b = 2Δ/ε.
    All in log space (log(1/δ) reaches millions)."""
    positive_finite("n", n)
    whole_number("d", d)
    whole_number("k", k)
    positive_finite("log_delta_margin", log_delta_margin)
    epsilon = positive_finite("epsilon", epsilon)
    if not n >= 1:
        raise ValueError(f"n={n!r} must be >= 1")
    m = int(math.ceil((n * epsilon / d) ** (2.0 / 3.0))) if m is None else int(m)
    if m < 1:
        raise ValueError(f"m={m!r} must be >= 1")
    n_bits = m * d
    log_delta = theorem2_log_delta_threshold(n_bits, epsilon) - log_delta_margin
    if not log_delta < 0:
        raise ValueError(
            f"epsilon={epsilon!r} too large for Theorem 2's threshold at md={n_bits} (log delta={log_delta!r})"
        )
    rho = lemma36_rho(epsilon, -log_delta)
    fixed = mwem_rounds_fixed_point(n, d, k, epsilon, -log_delta)
    rounds = max(1, int(round(fixed)))
    epsilon0 = math.sqrt(rho / rounds)
    shift = discrete_purification_shift(n_bits, log_delta, "corrected")
    return Algorithm16Parameters(
        m,
        n_bits,
        log_delta,
        -n_bits * math.log(2.0),
        rho,
        fixed,
        rounds,
        epsilon0,
        1.0 / (n * epsilon0),
        shift,
        purification_laplace_scale(shift, epsilon),
    )


# ----------------------------------------------------------------------------------------------------------------
# Pure baselines
# ----------------------------------------------------------------------------------------------------------------


def laplace_answers(
    counts: np.ndarray, queries: np.ndarray, n: float, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Laplace mechanism on the K normalised answers: ℓ1 sensitivity K/n (add/remove, public n), scale K/(nε);
    clipped to [0, 1] (post-processing).  (runs, K)."""
    _check_counts_and_queries(counts, queries)
    positive_finite("n", n)
    positive_finite("epsilon", epsilon)
    true = query_answers(queries, np.atleast_2d(counts) / n)
    k = true.shape[-1]
    return np.clip(true + rng.laplace(scale=k / (n * epsilon), size=true.shape), 0.0, 1.0)


def laplace_histogram(counts: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Laplace histogram: counts + Lap(1/ε) per cell (ℓ1 sensitivity 1, add/remove), clipped at 0 and renormalised
    to a distribution (uniform if every cell clips).  (runs, N)."""
    as_non_negative_array(counts, "counts")
    positive_finite("epsilon", epsilon)
    counts = np.atleast_2d(np.asarray(counts, float))
    noisy = np.maximum(counts + rng.laplace(scale=1.0 / epsilon, size=counts.shape), 0.0)
    total = noisy.sum(axis=1, keepdims=True)
    uniform = np.full_like(noisy, 1.0 / noisy.shape[1])
    return np.where(total > 0, noisy / np.where(total > 0, total, 1.0), uniform)


def empirical_histograms(records: np.ndarray, n_cells: int) -> np.ndarray:
    """The empirical distribution over the N = ``n_cells`` cells of each row of ``records`` (runs, m): (runs, N),
    the normalised histogram of a synthetic dataset Y of Algorithm 15/16."""
    whole_number("n_cells", n_cells)
    cells = require_ndim("records", as_integer_array(records, "records", minimum=0), 2)
    require(cells < n_cells, "records", cells, f"cells in [0, {n_cells})")
    return np.stack([np.bincount(r, minlength=n_cells) for r in records]) / records.shape[1]


def record_bits_flipped(sampled: np.ndarray, purified: np.ndarray) -> np.ndarray:
    """Per run, how many of the m·d bits Algorithm 16's purification changed: the Hamming distance between the
    codes of ``sampled`` and ``purified`` records (runs, m)."""
    before = as_integer_array(sampled, "sampled", minimum=0)
    after = as_integer_array(purified, "purified", minimum=0)
    if before.shape != after.shape:
        raise ValueError(
            f"purified has shape {after.shape} and sampled has shape {before.shape}; allowed: equal shapes"
        )
    return np.array([int(np.sum(np.bitwise_count(np.bitwise_xor(a, b)))) for a, b in zip(sampled, purified)])
