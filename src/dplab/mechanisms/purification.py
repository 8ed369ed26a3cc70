"""Purification of approximate DP (Lin, Wang, Ma, Wang): Algorithm 1 (continuous outputs in an ℓ_q ball) and
Algorithm 2 (finite output spaces through a binary embedding).

Algorithm 1, 𝒜_pure(x_apx, Θ, ε′, δ, ω): with Θ = c + 𝔹_q^d(R/2) (R the ℓ_q diameter: Assumption 1 says radius, but the
proofs and Corollary 4 use the diameter),

1. Δ = 2·d^{1−1/q}·R·(δ/(2ω))^{1/d};
2. with probability 1 − ω keep x = x_apx, otherwise draw x ~ Unif(Θ);
3. output x + Laplace^{⊗d}(2Δ/ε′).

If the upstream mechanism is (ε, δ)-DP with Range ⊆ Θ, the output is (ε + ε′, 0)-DP (Theorem 1).  δ and ω are
passed as natural logs (``log_delta``, ``log_omega``): purification asks for δ far below 1e-300, and Algorithm 2
uses ω = 2^{−d}.  The mixing coin (:func:`bernoulli_from_log`) reads a uniform 53 bits at a time, so its probability
is ω even where ω is below 2^{−53} or underflows.

Algorithm 2 maps u ∈ [2^d] to its d bits, purifies the bit vector in Θ = [0, 1]^d and rounds each coordinate at ½.
The paper instantiates Θ as an ℓ1 ball of radius d/2 (``geometry="as_printed"``, Δ = d(δ/2ω)^{1/d}); the
recommended, provably private instantiation treats the cube as the ℓ∞ ball of diameter 1 (``"corrected"``,
Δ = 2d(δ/2ω)^{1/d}).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dplab.checks import (
    as_finite_array,
    as_integer_array,
    log_probability,
    positive_finite,
    real_number,
    require,
    require_ndim,
    size_that_fits,
    whole_number,
)
from dplab.numerics import log1mexp
from dplab.theory.mean_estimation import log10_purification_scale
from dplab.theory.purification import (
    check_log_probability,
    purification_laplace_scale,
    purification_shift,
    theorem2_log_delta_threshold,
    theorem2_success_bound,
)

__all__ = [
    "LqBall",
    "base_2_53_digits",
    "bernoulli_from_log",
    "sample_uniform_lq_ball",
    "purify",
    "sign_cube",
    "projected_purified_gaussian",
    "binmap",
    "binmap_inverse",
    "discrete_purification_shift",
    "discrete_purification_laplace_scale",
    "purify_bits",
    "purify_discrete",
    "purify_bits_log_flip_probability",
    "purify_bits_log_transition",
    "purify_bits_log_kernel",
    "purified_bits_log_pmf",
    "purify_discrete_transition_probability",
    "theorem2_success_at_threshold",
    "cube_purification_parameters",
]

_CONTAINMENT_TOLERANCE = 1e-9


def _check_q(q: float) -> float:
    q = real_number("q", q)
    if q not in (1.0, 2.0, math.inf):
        raise ValueError(f"q={q!r} is not supported; allowed: 1, 2, inf (uniform sampling oracles exist for these)")
    return q


def _lq_norm(x: np.ndarray, q: float) -> np.ndarray:
    return np.linalg.norm(x, ord=q, axis=-1)


@dataclass(frozen=True)
class LqBall:
    """Θ = centre + 𝔹_q^d(diameter/2): the purification domain of Assumption 1 (R is the ℓ_q diameter)."""

    center: tuple[float, ...]
    diameter: float
    q: float = 2.0

    def __post_init__(self) -> None:
        _check_q(self.q)
        if not (math.isfinite(real_number("diameter", self.diameter)) and self.diameter > 0):
            raise ValueError(f"diameter={self.diameter!r} must be finite and > 0")
        if len(self.center) < 1:
            raise ValueError("center must have at least one coordinate")

    @property
    def d(self) -> int:
        return len(self.center)

    @property
    def radius(self) -> float:
        return self.diameter / 2.0

    def check_contains(self, x: np.ndarray, name: str = "x_apx") -> None:
        """ValueError naming the first row of ``x`` (shape (m, d)) that lies outside Θ (Assumption 1)."""
        distance = _lq_norm(x - np.asarray(self.center), self.q)
        outside = distance > self.radius * (1.0 + _CONTAINMENT_TOLERANCE)
        if np.any(outside):
            row = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"{name} row {row} lies outside the domain: its l_{self.q:g} distance from the centre is "
                f"{distance[row]:.6g} > radius {self.radius:.6g}; Assumption 1 requires Range(M) to lie in Theta "
                f"(diameter {self.diameter:g})"
            )


def sample_uniform_lq_ball(q: float, d: int, radius: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` i.i.d. draws from Unif(𝔹_q^d(radius)), shape (size, d).

    q = 2: Gaussian direction times radius·U^{1/d}; q = 1: (E_1..E_d)/Σ_{i≤d+1} E_i with random signs (a uniform
    point of the simplex interior, Dirichlet(1,…,1) with a slack coordinate); q = ∞: independent Unif[−r, r].
    """
    q = _check_q(q)
    whole_number("d", d)
    positive_finite("radius", radius)
    size_that_fits("size", size, 8 * (3 * d + 2), "three float64 arrays of size x d")
    if q == 2.0:
        z = rng.standard_normal((size, d))
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        return z * (radius * rng.random(size) ** (1.0 / d))[:, None]
    if q == 1.0:
        e = rng.exponential(size=(size, d + 1))
        x = e[:, :d] / e.sum(axis=1, keepdims=True)
        return x * rng.choice([-1.0, 1.0], size=(size, d)) * radius
    return rng.uniform(-radius, radius, size=(size, d))


_TICKS_LOG2 = 53  # rng.random() returns k·2^{−53}, k uniform on {0, …, 2^53 − 1}
_TICKS = float(2**_TICKS_LOG2)


def base_2_53_digits(log_p: float) -> Iterator[float]:
    """The digits ⌊p·2^{53j}⌋ mod 2^53, j = 1, 2, …, of p = e^{log_p} ∈ [0, 1) in base 2^53, as floats.

    Exact zeros while p·2^{53j} < 1 (computed in log space, so p may be far below the smallest double); from the first
    non-zero digit on, those of the double p·2^{53j} (relative error that of ``exp``).  Stops after the last non-zero
    digit of that double; the remaining digits are all zero.
    """
    log_probability("log_p", log_p, allow_zero=True, allow_one=True)
    blocks = 1
    while (log_scaled := log_p + blocks * _TICKS_LOG2 * math.log(2.0)) < 0.0:
        yield 0.0
        blocks += 1
    scaled = math.exp(log_scaled)
    while scaled > 0.0:
        whole = math.floor(scaled)
        yield float(whole)
        scaled = (scaled - whole) * _TICKS  # exact: removing a double's integer part, then a power-of-two scaling


def bernoulli_from_log(log_p: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent coins of probability p = e^{log_p} ∈ [0, 1), also for p < 2^{−53} or below the smallest
    double (Algorithm 1's mixing probability ω).

    The coin is U < p for U uniform on [0, 1), compared digit by digit in base 2^53 (:func:`base_2_53_digits`):
    ``rng.random()`` gives U's next digit k; the coin is 1 if k is below p's digit, 0 if above, and on a tie
    (probability 2^{−53}) the next digit decides.  Off ties the coins equal ``log(rng.random(size)) < log_p``: the
    same draws, so the same random stream.
    """
    log_probability("log_p", log_p, allow_zero=True, allow_one=True)
    size_that_fits("size", size, 24, "the coins, the undecided indices and the uniforms per draw")
    coins = np.zeros(size, dtype=bool)
    undecided = np.arange(size)
    for digit in base_2_53_digits(log_p):
        if undecided.size == 0:
            break
        ticks = rng.random(undecided.size) * _TICKS
        coins[undecided] = ticks < digit
        undecided = undecided[ticks == digit]
    return coins


def purify(
    x_apx: np.ndarray,
    domain: LqBall,
    epsilon_prime: float,
    log_delta: float,
    log_omega: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Algorithm 1 applied independently to each row of ``x_apx`` (shape (m, d) or (d,)); returns the same shape.

    ``log_delta`` = log δ of the upstream (ε, δ)-DP mechanism (0 < δ < 1), ``log_omega`` = log ω (0 < ω < 1),
    ``epsilon_prime`` > 0.  Every row must lie in ``domain`` (ValueError otherwise).  Draws: mixing uniforms, then
    the uniform points of the mixed rows, then the Laplace noise.
    """
    log_delta = check_log_probability("delta", log_delta)
    log_omega = check_log_probability("omega", log_omega)
    positive_finite("epsilon_prime", epsilon_prime)
    x = np.array(as_finite_array(x_apx, "x_apx"), dtype=float, copy=True)
    single = x.ndim == 1
    x = np.atleast_2d(x)
    if x.shape[1] != domain.d:
        raise ValueError(f"x_apx has {x.shape[1]} coordinates but the domain has d={domain.d}")
    domain.check_contains(x)
    scale = purification_laplace_scale(
        purification_shift(domain.d, domain.q, domain.diameter, log_delta, log_omega), epsilon_prime
    )
    mixed = bernoulli_from_log(log_omega, x.shape[0], rng)
    if mixed.any():
        x[mixed] = np.asarray(domain.center) + sample_uniform_lq_ball(
            domain.q, domain.d, domain.radius, int(mixed.sum()), rng
        )
    out = x + rng.laplace(scale=scale, size=x.shape)
    return out[0] if single else out


def sign_cube(d: int) -> LqBall:
    """Θ = [−1/√d, 1/√d]^d, the ℓ∞ ball of diameter R = 2/√d around 0 (q = ∞): the hull of the records
    {±1/√d}^d of Section 7's mean estimation (Lin, Wang, Ma, Wang, Theorem 9)."""
    whole_number("d", d)
    return LqBall(tuple([0.0] * d), 2.0 / math.sqrt(d), math.inf)


def projected_purified_gaussian(
    mean: np.ndarray,
    sigma: float,
    epsilon: float,
    log_delta: float,
    log_omega: float,
    draws: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` Gaussian releases N(D̄, σ²I_d) of ``mean`` clipped onto :func:`sign_cube` (post-processing, so that
    Assumption 1's Range ⊆ Θ holds), and the same draws purified by Algorithm 1 at ε′ = ``epsilon`` after an
    (ε, δ)-DP step (Theorem 1; Section 7's upper bound in Theorem 9 of Lin, Wang, Ma, Wang).  Draws: the Gaussian
    noise, then :func:`purify`'s."""
    center = require_ndim("mean", as_finite_array(mean, "mean"), 1)
    positive_finite("sigma", sigma)
    positive_finite("epsilon", epsilon)
    check_log_probability("delta", log_delta)
    check_log_probability("omega", log_omega)
    size_that_fits(
        "draws",
        draws,
        56 * center.shape[0] + 8,
        "the Gaussian draws, their projection and Algorithm 1's copies (draws x d)",
    )
    cube = sign_cube(center.shape[0])
    projected = np.clip(mean + sigma * rng.standard_normal((draws, mean.shape[0])), -cube.radius, cube.radius)
    return projected, purify(projected, cube, epsilon, log_delta, log_omega, rng)


def binmap(u: np.ndarray, n_bits: int) -> np.ndarray:
    """BinMap: integers u ∈ {0, …, 2^d − 1} to their d bits (most significant first), shape u.shape + (d,)."""
    whole_number("n_bits", n_bits)
    u = as_integer_array(u, "u")
    if np.any((u < 0) | (u >= 2**n_bits)):
        raise ValueError(f"u must lie in [0, 2^{n_bits} - 1]; got values in [{u.min()}, {u.max()}]")
    shifts = np.arange(n_bits - 1, -1, -1, dtype=np.int64)
    return (u[..., None] >> shifts) & 1


def binmap_inverse(bits: np.ndarray) -> np.ndarray:
    """BinMap^{-1}: bit vectors (last axis, most significant first) back to integers."""
    bits = as_integer_array(bits, "bits")
    require((bits == 0) | (bits == 1), "bits", bits, "bits in {0, 1}")
    weights = 2 ** np.arange(bits.shape[-1] - 1, -1, -1, dtype=np.int64)
    return bits @ weights


def discrete_purification_shift(n_bits: int, log_delta: float, geometry: str = "corrected") -> float:
    """Δ of Algorithm 2 with ω = 2^{−d}: ``"corrected"`` (cube = ℓ∞ ball of diameter 1) 2d(δ/2ω)^{1/d};
    ``"as_printed"`` (the paper's ℓ1 ball of radius d/2, App. F.5) d(δ/2ω)^{1/d}."""
    log_omega = -whole_number("n_bits", n_bits) * math.log(2.0)
    if geometry == "corrected":
        return purification_shift(n_bits, math.inf, 1.0, log_delta, log_omega)
    if geometry == "as_printed":
        return purification_shift(n_bits, 1.0, n_bits / 2.0, log_delta, log_omega)
    raise ValueError(f"geometry={geometry!r} is not allowed; choose 'corrected' or 'as_printed'")


def discrete_purification_laplace_scale(
    n_bits: int, epsilon: float, log_delta: float, geometry: str = "corrected"
) -> float:
    """b = 2Δ/ε of Algorithm 2 (Algorithm 1, line 3, with ε′ = ε and Δ = :func:`discrete_purification_shift`)."""
    positive_finite("epsilon", epsilon)
    return purification_laplace_scale(discrete_purification_shift(n_bits, log_delta, geometry), epsilon)


def purify_bits(
    bits: np.ndarray, epsilon: float, log_delta: float, rng: np.random.Generator, geometry: str = "corrected"
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2 without BinMap, on rows of ``bits`` (shape (runs, L), entries 0/1) of any length L: with
    probability ω = 2^{−L} (:func:`bernoulli_from_log`, exact although ω underflows for L > 1074) replace the row by
    Unif[0,1]^L, add Laplace(2Δ/ε) per bit with Δ = :func:`discrete_purification_shift` (L, log δ, geometry), round
    at ½.

    Returns (purified bits (runs, L) int64, mixed (runs,) bool).  With an (ε, δ)-DP input the output is
    (2ε, 0)-DP (Theorem 2).  Draws: mixing coins, uniforms of mixed rows, then the Laplace noise.
    """
    bits = np.atleast_2d(np.asarray(bits))
    if np.any((bits != 0) & (bits != 1)):
        raise ValueError("bits must be 0/1")
    positive_finite("epsilon", epsilon)
    log_delta = check_log_probability("delta", log_delta)
    length = bits.shape[1]
    scale = discrete_purification_laplace_scale(length, epsilon, log_delta, geometry)
    x = bits.astype(float)
    mixed = bernoulli_from_log(-length * math.log(2.0), bits.shape[0], rng)
    if mixed.any():
        x[mixed] = rng.random((int(mixed.sum()), length))
    noisy = x + rng.laplace(scale=scale, size=x.shape)
    return (noisy >= 0.5).astype(np.int64), mixed


def purify_discrete(
    u_apx: np.ndarray,
    n_bits: int,
    epsilon: float,
    log_delta: float,
    rng: np.random.Generator,
    geometry: str = "corrected",
) -> np.ndarray:
    """Algorithm 2: u_apx ∈ [2^d] (array) → BinMap → Algorithm 1 on [0, 1]^d with ε′ = ε, ω = 2^{−d}
    (:func:`purify_bits`) → BinMap^{-1}.  With an (ε, δ)-DP input it is (2ε, 0)-DP (Theorem 2)."""
    u = as_integer_array(u_apx, "u_apx", minimum=0)
    whole_number("n_bits", n_bits)
    positive_finite("epsilon", epsilon)
    bits, _ = purify_bits(binmap(u.reshape(-1), n_bits), epsilon, log_delta, rng, geometry)
    return binmap_inverse(bits).reshape(u.shape)


def purify_bits_log_flip_probability(laplace_scale: float) -> float:
    """log f, f = P(Lap(b) ≥ ½) = ½e^{−1/(2b)}: the probability that Algorithm 2 of Lin, Wang, Ma, Wang (NeurIPS
    2025) flips an unmixed bit (b = ``laplace_scale``)."""
    return math.log(0.5) - 0.5 / positive_finite("laplace_scale", laplace_scale)


def purify_bits_log_transition(hamming: np.ndarray, n_bits: int, laplace_scale: float) -> np.ndarray:
    """log K at Hamming distance h between input and output codes of :func:`purify_bits` on L = ``n_bits`` bits:
    K = (1 − ω) f^h (1 − f)^{L−h} + ω 2^{−L}, ω = 2^{−L} (Algorithm 2 of Lin, Wang, Ma, Wang, NeurIPS 2025), f of
    :func:`purify_bits_log_flip_probability`; a mixed Unif[0,1] bit rounds to 1 w.p. ½, so a mixed row is a uniform
    code.  Any L (no 2^L × 2^L kernel)."""
    n_bits = whole_number("n_bits", n_bits)
    h = as_integer_array(hamming, "hamming", minimum=0).astype(float)
    require(h <= n_bits, "hamming", hamming, f"Hamming distances in [0, n_bits = {n_bits}]")
    log_flip = purify_bits_log_flip_probability(laplace_scale)
    log_omega = -n_bits * math.log(2.0)
    kept = log1mexp(log_omega) + h * log_flip + (n_bits - h) * log1mexp(log_flip)
    return np.logaddexp(kept, log_omega - n_bits * math.log(2.0))


def purify_bits_log_kernel(n_bits: int, laplace_scale: float) -> np.ndarray:
    """log K[y, z], K[y, z] = P(:func:`purify_bits` outputs z | input y) on {0,1}^L (L = n_bits, index = bit code):
    :func:`purify_bits_log_transition` at the Hamming distance of y and z.  ``n_bits`` is at most 14: the kernel
    has 4^L entries."""
    n_bits = whole_number("n_bits", n_bits, 1, 14)
    codes = np.arange(2**n_bits)
    return purify_bits_log_transition(np.bitwise_count(codes[:, None] ^ codes[None, :]), n_bits, laplace_scale)


def purified_bits_log_pmf(log_pmf: np.ndarray, n_bits: int, laplace_scale: float) -> np.ndarray:
    """log P(output = z) = log Σ_y P(y) K[y, z] when the input of :func:`purify_bits` has law exp(log_pmf) on the
    2^L bit codes (K of :func:`purify_bits_log_kernel`)."""
    n_bits = whole_number("n_bits", n_bits, 1, 14)
    log_p = np.asarray(log_pmf, float)
    require(log_p.shape == (2**n_bits,), "log_pmf", log_pmf, f"a vector of 2^n_bits = {2**n_bits} log-probabilities")
    require(~np.isnan(log_p) & (log_p <= 0), "log_pmf", log_pmf, "log-probabilities in [-inf, 0]")
    return np.logaddexp.reduce(log_p[:, None] + purify_bits_log_kernel(n_bits, laplace_scale), axis=0)


def purify_discrete_transition_probability(
    hamming: int, n_bits: int, epsilon: float, log_delta: float, geometry: str = "corrected"
) -> float:
    """P(:func:`purify_discrete` outputs a given code at Hamming distance ``hamming`` from its input code):
    exp of :func:`purify_bits_log_transition` with b of :func:`discrete_purification_laplace_scale`.  At h = 0,
    the probability that Algorithm 2 returns its input (Theorem 2's utility)."""
    b = discrete_purification_laplace_scale(n_bits, epsilon, log_delta, geometry)
    return float(np.exp(purify_bits_log_transition(np.array(hamming), n_bits, b)))


def theorem2_success_at_threshold(n_bits: int, epsilon: float) -> dict[str, float]:
    """Theorem 2's utility at δ on its threshold ε^d/(2d)^{3d} (the largest δ it allows), d = ``n_bits``: the exact
    probability that Algorithm 2 returns its input, the same for every input code
    (:func:`purify_discrete_transition_probability` at Hamming distance 0), for the corrected cube geometry
    (``success_exact``) and the paper's ℓ1 geometry (``success_exact_paper_geometry``), against the bound
    1 − 2^{−d} − (d/2)e^{−d} (``bound``)."""
    n_bits, epsilon = whole_number("n_bits", n_bits), positive_finite("epsilon", epsilon)
    log_delta = theorem2_log_delta_threshold(n_bits, epsilon)
    success = {
        geometry: purify_discrete_transition_probability(0, n_bits, epsilon, log_delta, geometry)
        for geometry in ("corrected", "as_printed")
    }
    return {
        "d": n_bits,
        "epsilon": epsilon,
        "log_delta": log_delta,
        "success_exact": success["corrected"],
        "success_exact_paper_geometry": success["as_printed"],
        "bound": theorem2_success_bound(n_bits),
    }


def cube_purification_parameters(d: int, epsilon: float, log_delta: float, log_omega: float) -> dict[str, float]:
    """Algorithm 1 on the cube :func:`sign_cube` (q = ∞, ℓ∞ diameter R = 2/√d) at ε′ = ε after an (ε, δ)-DP step
    (Theorem 1): ε, log δ, ω, ε′ and the Laplace scale b = 2Δ/ε′ with Δ = :func:`purification_shift`, also as
    log10 b computed in log-space (b underflows for very small δ)."""
    positive_finite("epsilon", epsilon)
    diameter = sign_cube(d).diameter
    shift = purification_shift(d, math.inf, diameter, log_delta, log_omega)
    return {
        "epsilon": epsilon,
        "log_delta": log_delta,
        "omega": math.exp(log_omega),
        "epsilon_prime": epsilon,
        "laplace_scale": purification_laplace_scale(shift, epsilon),
        "log10_laplace_scale": log10_purification_scale(d, diameter, log_delta, log_omega, epsilon),
    }
