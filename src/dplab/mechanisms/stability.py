"""Mode release: distance to instability (Thakurta and Smith 2013; Vadhan 2017 §3.3) purified by Algorithm 2
(Algorithm 12 and Theorem 6 of Lin, Wang, Ma, Wang), with the pure-DP selection baselines.  Replace-one adjacency
(𝒟₀ = ⌈(occ₁ − occ₂)/2⌉ presumes it; the paper does not state the adjacency).

Algorithm 12 with ε (the total is 2ε, Theorem 6):

1. log(1/δ): the paper's d·log(2d³/ε) (``delta_rule="as_printed"``) misses Theorem 2's condition
   δ < ε^d/(2d)^{3d}; ``"corrected"`` uses d·log(8d³/ε) + 1e-9 (Algorithm 12's printed d·log(2d³/ε) misses Theorem 2's
   condition).  Privacy does not depend on δ (Algorithm 1
   calibrates Δ to δ); only the utility of Theorem 2 does.
2. u_apx = f(D) if 𝒟₀ − 1 + Lap(1/ε) > log(1/δ)/ε, else ⊥ ((ε, δ)-DP, Vadhan Prop. 3.3).
3. u_pure = Algorithm 2(ε, δ, u_apx).  ⊥ ∉ 𝒳 needs an encoding, which Algorithm 12 leaves open: ``bottom="uniform"``
   maps ⊥ to a uniform element of 𝒳 (post-processing, as Algorithm 10 does; d = log₂|𝒳| code bits) and
   ``bottom="reserved"`` uses d′ = ⌈log₂(|𝒳| + 1)⌉ bits with code |𝒳| for ⊥ and every invalid code decoded to ⊥
   (d′ in all formulas).

Outputs are integers in {0, …, |𝒳| − 1}, and :data:`BOTTOM` (= −1) for ⊥.

Exact law (the audit): given u_apx = z (bits), Algorithm 2 keeps z with probability 1 − ω (ω = 2^{−d}) and then each
bit flips independently with probability p = P(Lap(b) ≥ ½) = ½e^{−1/(2b)}, b = 2Δ/ε; with probability ω the
bits are Unif[0, 1] + Lap(b), which rounds to a uniform code (U + L is symmetric about ½).  So
P(code c | z) = (1 − ω)p^{H(c,z)}(1 − p)^{d−H(c,z)} + ω2^{−d}, and the pass probability of line 2 is a Laplace tail.
"""

from __future__ import annotations

import math

import numpy as np

from dplab.checks import (
    as_finite_array,
    as_integer_array,
    as_non_negative_array,
    log_probability,
    matching_length,
    non_negative_finite,
    positive_finite,
    probability,
    size_that_fits,
    whole_number,
)
from dplab.distributions import Laplace
from dplab.mechanisms.exponential import exponential_mechanism_log_probabilities, sample_exponential_mechanism
from dplab.mechanisms.purification import (
    discrete_purification_laplace_scale,
    purified_bits_log_pmf,
    purify_bits_log_flip_probability,
    purify_discrete,
    purify_discrete_transition_probability,
)
from dplab.theory.purification import algorithm12_log_delta_as_printed, theorem2_log_delta_threshold

__all__ = [
    "BOTTOM",
    "MODE_HISTOGRAM_LAYOUTS",
    "mode_histogram",
    "DELTA_RULES",
    "BOTTOM_ENCODINGS",
    "mode_and_distance",
    "code_bits",
    "mode_release_log_delta",
    "stability_threshold",
    "pass_probability",
    "refuse_probability",
    "distance_to_instability",
    "encode_bottom",
    "decode_bottom",
    "pure_mode_release",
    "bit_flip_probability",
    "pure_mode_release_pmf",
    "pure_mode_release_success_probability",
    "distance_to_instability_pmf",
    "uniform_bottom_pure_epsilon",
    "uniform_bottom_log_delta",
    "report_noisy_max",
    "report_noisy_max_grouped",
    "report_noisy_max_success_probability",
    "exponential_mechanism_selection",
    "ALG12_VARIANTS",
    "MODE_SELECTION_METHODS",
    "alg12_variant",
    "mode_selection_success_probability",
]

#: Lap(1): a draw of Lap(1/ε) exceeds s exactly when a draw of Lap(1) exceeds εs.
_STANDARD_LAPLACE = Laplace(1.0)

BOTTOM = -1
DELTA_RULES = ("corrected", "as_printed")
BOTTOM_ENCODINGS = ("uniform", "reserved")
_DELTA_MARGIN = 1e-9


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; choose one of {allowed}")
    return value


#: The histograms of :func:`mode_histogram`.
MODE_HISTOGRAM_LAYOUTS = ("uniform_rest", "all_runner_up")


def mode_histogram(
    n_bits: int, n_records: int, mode_share: float, gap: int, layout: str = "uniform_rest"
) -> tuple[np.ndarray, np.ndarray]:
    """(values, multiplicities) of a histogram over 𝒳 = {0,1}^d for Algorithm 12's mode release (Lin, Wang, Ma,
    Wang, Theorem 6), the mode first with c₁ = round(share·n) and the runner-up c₁ − g.  ``"uniform_rest"``: the
    other 2^d − 2 items share the remaining records as evenly as possible (counts r + 1 and r); ``"all_runner_up"``
    (our worst case for noisy-max selection): all 2^d − 1 other items have count c₁ − g (then the number of
    records is c₁ + (2^d − 1)(c₁ − g), not n).  Empty groups dropped; ``np.repeat(values, multiplicities)`` is the
    full histogram with the mode at index 0 and the runner-up at index 1."""
    whole_number("n_bits", n_bits)
    whole_number("n_records", n_records)
    probability("mode_share", mode_share, allow_one=True)
    whole_number("gap", gap, minimum=0)
    c1 = round(mode_share * n_records)
    if layout == "all_runner_up":
        return np.array([c1, c1 - gap], dtype=np.int64), np.array([1, 2**n_bits - 1], dtype=np.int64)
    if layout != "uniform_rest":
        raise ValueError(f"layout={layout!r} is not allowed; choose 'uniform_rest' or 'all_runner_up'")
    if n_bits < 2:
        raise ValueError(f"n_bits={n_bits} leaves no other item for layout='uniform_rest'; allowed: n_bits >= 2")
    others = 2**n_bits - 2
    rest = n_records - 2 * c1 + gap
    base, extra = divmod(rest, others)
    values = np.array([c1, c1 - gap, base + 1, base], dtype=np.int64)
    mult = np.array([1, 1, extra, others - extra], dtype=np.int64)
    keep = mult > 0
    return values[keep], mult[keep]


def mode_and_distance(counts: np.ndarray) -> tuple[int, float, float, int]:
    """(f(D), occ₁, occ₂, 𝒟₀ = ⌈(occ₁ − occ₂)/2⌉) of a histogram; ties go to the smallest index."""
    as_integer_array(counts, "counts", minimum=0)
    c = np.asarray(counts, dtype=np.int64)
    if c.ndim != 1 or c.size < 2 or np.any(c < 0):
        raise ValueError("counts must be a 1-D array of at least two non-negative integers")
    mode = int(np.argmax(c))
    top2 = np.sort(c)[-2:]
    return mode, float(top2[1]), float(top2[0]), int(-((top2[0] - top2[1]) // 2))


def code_bits(universe_size: int, bottom: str) -> int:
    """Code length: log₂|𝒳| (``"uniform"``; |𝒳| must be a power of 2) or ⌈log₂(|𝒳| + 1)⌉ (``"reserved"``)."""
    whole_number("universe_size", universe_size, minimum=2)
    _choice("bottom", bottom, BOTTOM_ENCODINGS)
    n = int(universe_size)
    if n < 2:
        raise ValueError(f"universe_size={universe_size!r} must be >= 2")
    if bottom == "reserved":
        return int(math.ceil(math.log2(n + 1)))
    if n & (n - 1):
        raise ValueError(f"universe_size={n} must be a power of 2 for bottom='uniform'")
    return n.bit_length() - 1


def mode_release_log_delta(n_bits: int, epsilon: float, delta_rule: str = "corrected") -> float:
    """log δ of Algorithm 12: ``"as_printed"`` −d·log(2d³/ε); ``"corrected"`` −d·log(8d³/ε) − 1e-9 (strictly below
    Theorem 2's threshold ε^d/(2d)^{3d}).  d = 8, ε = 1: thresholds log(1/δ)/ε = 66.54 (corrected), 55.45."""
    whole_number("n_bits", n_bits)
    _choice("delta_rule", delta_rule, DELTA_RULES)
    epsilon = positive_finite("epsilon", epsilon)
    if delta_rule == "as_printed":
        return algorithm12_log_delta_as_printed(n_bits, epsilon)
    return theorem2_log_delta_threshold(n_bits, epsilon) - _DELTA_MARGIN


def stability_threshold(epsilon: float, log_delta: float) -> float:
    """T = log(1/δ)/ε (Algorithm 12, line 4)."""
    log_probability("log_delta", log_delta)
    return -float(log_delta) / positive_finite("epsilon", epsilon)


def pass_probability(distance: np.ndarray, epsilon: float, log_delta: float) -> np.ndarray:
    """P(𝒟₀ − 1 + Lap(1/ε) > T) = P(Lap(1/ε) > T + 1 − 𝒟₀): ½e^{−εs} for s = T + 1 − 𝒟₀ ≥ 0, else 1 − ½e^{εs}."""
    as_non_negative_array(distance, "distance")
    log_probability("log_delta", log_delta)
    s = stability_threshold(epsilon, log_delta) + 1.0 - np.asarray(distance, float)
    return np.asarray(_STANDARD_LAPLACE.sf(epsilon * s))


def refuse_probability(distance: np.ndarray, epsilon: float, log_delta: float) -> np.ndarray:
    """1 − :func:`pass_probability`, computed without cancellation (½e^{εs} for s < 0): the ⊥ mass at large 𝒟₀."""
    as_non_negative_array(distance, "distance")
    log_probability("log_delta", log_delta)
    s = stability_threshold(epsilon, log_delta) + 1.0 - np.asarray(distance, float)
    return np.asarray(_STANDARD_LAPLACE.cdf(epsilon * s))


def distance_to_instability(
    mode: int, distance: float, epsilon: float, log_delta: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Algorithm 12, lines 4-5 ((ε, δ)-DP): ``size`` draws of u_apx ∈ {mode, ⊥}."""
    whole_number("mode", mode, minimum=0)
    non_negative_finite("distance", distance)
    log_probability("log_delta", log_delta)
    size_that_fits("size", size, 32, "the Laplace draws, the test and the int64 release per draw")
    passed = distance - 1.0 + rng.laplace(
        scale=1.0 / positive_finite("epsilon", epsilon), size=size
    ) > stability_threshold(epsilon, log_delta)
    return np.where(passed, int(mode), BOTTOM)


def encode_bottom(u_apx: np.ndarray, universe_size: int, bottom: str, rng: np.random.Generator) -> np.ndarray:
    """⊥ ↦ a uniform element of 𝒳 (``"uniform"``) or the reserved code |𝒳| (``"reserved"``)."""
    whole_number("universe_size", universe_size, minimum=2)
    u = np.asarray(u_apx, dtype=np.int64)
    is_bottom = u == BOTTOM
    if _choice("bottom", bottom, BOTTOM_ENCODINGS) == "uniform":
        return np.where(is_bottom, rng.integers(0, universe_size, size=u.shape), u)
    return np.where(is_bottom, universe_size, u)


def decode_bottom(codes: np.ndarray, universe_size: int) -> np.ndarray:
    """Codes ≥ |𝒳| (the reserved ⊥ code and the invalid ones) decode to ⊥."""
    as_integer_array(codes, "codes", minimum=0)
    whole_number("universe_size", universe_size, minimum=2)
    c = np.asarray(codes, dtype=np.int64)
    return np.where(c >= universe_size, BOTTOM, c)


def pure_mode_release(
    counts: np.ndarray,
    epsilon: float,
    size: int,
    rng: np.random.Generator,
    *,
    delta_rule: str = "corrected",
    bottom: str = "uniform",
    geometry: str = "corrected",
) -> np.ndarray:
    """Algorithm 12 (Theorem 6: 2ε-DP), ``size`` independent releases from the histogram ``counts``."""
    as_integer_array(counts, "counts", minimum=0)
    whole_number("size", size)
    counts = np.asarray(counts)
    n_bits = code_bits(counts.size, bottom)
    log_delta = mode_release_log_delta(n_bits, epsilon, delta_rule)
    mode, _, _, distance = mode_and_distance(counts)
    u_apx = distance_to_instability(mode, distance, epsilon, log_delta, size, rng)
    codes = purify_discrete(
        encode_bottom(u_apx, counts.size, bottom, rng), n_bits, epsilon, log_delta, rng, geometry=geometry
    )
    return decode_bottom(codes, counts.size)


# ------------------------------------------------------------------------------------------------- exact laws


def bit_flip_probability(n_bits: int, epsilon: float, log_delta: float, geometry: str = "corrected") -> float:
    """p = P(Lap(b) ≥ ½) = ½e^{−1/(2b)}, b = 2Δ/ε (Algorithm 2 with ω = 2^{−d}, ε′ = ε; Δ per ``geometry``)."""
    whole_number("n_bits", n_bits)
    b = discrete_purification_laplace_scale(n_bits, epsilon, log_delta, geometry)
    return math.exp(purify_bits_log_flip_probability(b))


def _input_law(
    mode: int, distance: float, universe_size: int, n_bits: int, epsilon: float, log_delta: float, bottom: str
) -> np.ndarray:
    """Law of the encoded u_apx over the 2^{n_bits} codes."""
    p_pass = float(pass_probability(distance, epsilon, log_delta))
    p_refuse = float(refuse_probability(distance, epsilon, log_delta))
    law = np.zeros(2**n_bits)
    law[mode] += p_pass
    if bottom == "uniform":
        law[:universe_size] += p_refuse / universe_size
    else:
        law[universe_size] += p_refuse
    return law


def _merge_bottom(code_law: np.ndarray, universe_size: int) -> np.ndarray:
    """Law over 𝒳 ∪ {⊥} (⊥ last) from a law over codes (codes ≥ |𝒳| are ⊥)."""
    return np.append(code_law[:universe_size], code_law[universe_size:].sum())


def pure_mode_release_pmf(
    mode: int,
    distance: float,
    universe_size: int,
    epsilon: float,
    *,
    delta_rule: str = "corrected",
    bottom: str = "uniform",
    geometry: str = "corrected",
    log_delta: float | None = None,
) -> np.ndarray:
    """Exact output law of Algorithm 12 over 𝒳 ∪ {⊥} (⊥ last; always 0 for ``"uniform"``), a function of
    (f(D), 𝒟₀) only.  ``log_delta`` overrides ``delta_rule``."""
    whole_number("mode", mode, minimum=0)
    non_negative_finite("distance", distance)
    whole_number("universe_size", universe_size, minimum=2)
    positive_finite("epsilon", epsilon)
    n_bits = code_bits(universe_size, bottom)
    if log_delta is None:
        log_delta = mode_release_log_delta(n_bits, epsilon, delta_rule)
    law = _input_law(mode, distance, universe_size, n_bits, epsilon, log_delta, bottom)
    with np.errstate(divide="ignore"):
        log_law = np.log(law)
    b = discrete_purification_laplace_scale(n_bits, epsilon, log_delta, geometry)
    return _merge_bottom(np.exp(purified_bits_log_pmf(log_law, n_bits, b)), universe_size)


def distance_to_instability_pmf(
    mode: int, distance: float, universe_size: int, epsilon: float, log_delta: float, bottom: str = "uniform"
) -> np.ndarray:
    """Exact law of the unpurified u_apx after the ⊥ encoding, over 𝒳 ∪ {⊥} (⊥ last)."""
    whole_number("mode", mode, minimum=0)
    non_negative_finite("distance", distance)
    whole_number("universe_size", universe_size, minimum=2)
    log_probability("log_delta", log_delta)
    n_bits = code_bits(universe_size, bottom)
    return _merge_bottom(_input_law(mode, distance, universe_size, n_bits, epsilon, log_delta, bottom), universe_size)


def uniform_bottom_pure_epsilon(epsilon: float, log_delta: float, universe_size: int) -> float:
    """Pure ε of u_apx with ⊥ ↦ Unif(𝒳) and no purification (extension, our choice; audited exactly):
    max(ε, log(1 + |𝒳|δ/(2 − δ))).  Same-mode neighbours move 𝒟₀ by ≤ 1, so the pass and refuse probabilities
    change by ≤ e^ε and so does every mixture; mode-changing neighbours have 𝒟₀ ≤ 1, where the pass probability p
    is ≤ δ/2, and P(a | D)/P(a | D′) = (p_a + (1 − p_a)/|𝒳|)/((1 − p_b)/|𝒳|) ≤ 1 + |𝒳|δ/(2 − δ), attained at
    𝒟₀ = 𝒟₀′ = 1 (App. C's folklore mixing, with a data-dependent weight ≥ 1 − δ/2)."""
    positive_finite("epsilon", epsilon)
    log_probability("log_delta", log_delta)
    whole_number("universe_size", universe_size, minimum=2)
    delta = math.exp(log_delta)
    return max(float(epsilon), math.log1p(universe_size * delta / (2.0 - delta)))


def uniform_bottom_log_delta(epsilon: float, universe_size: int) -> float:
    """The largest δ with log(1 + |𝒳|δ/(2 − δ)) ≤ ε: δ = 2(e^ε − 1)/(|𝒳| + e^ε − 1) (the pure ε is then ε)."""
    whole_number("universe_size", universe_size, minimum=2)
    epsilon = positive_finite("epsilon", epsilon)
    return math.log(2.0) + math.log(math.expm1(epsilon)) - math.log(universe_size + math.expm1(epsilon))


# ------------------------------------------------------------------------------------------ pure DP baselines


def report_noisy_max(counts: np.ndarray, epsilon: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """argmax_i (c_i + Lap(2/ε)) (ε-DP under replace-one: two counts move by 1), ``size`` draws."""
    as_finite_array(counts, "counts")
    size_that_fits("size", size, 16 * np.size(counts) + 8, "a row of Laplace noise over the counts per draw")
    c = np.asarray(counts, float)
    return np.argmax(c + rng.laplace(scale=2.0 / positive_finite("epsilon", epsilon), size=(size, c.size)), axis=1)


def _laplace_max_of(multiplicity: np.ndarray, scale: float, u: np.ndarray) -> np.ndarray:
    """The maximum of m i.i.d. Lap(scale) from uniforms u: F^{−1}(u^{1/m}), computed from
    1 − u^{1/m} = −expm1(log u/m)."""
    return Laplace(scale).max_of_from_uniforms(multiplicity, u)


def report_noisy_max_grouped(
    values: np.ndarray, multiplicities: np.ndarray, epsilon: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Report-noisy-max over items grouped by equal count: group g holds ``multiplicities[g]`` items of count
    ``values[g]``.  The noisy maximum within a group is values[g] + max of m Lap(2/ε), drawn exactly by inverse CDF;
    returns the winning group index (its member is uniform within the group).  Same law as
    :func:`report_noisy_max`, at O(groups) cost per draw."""
    as_finite_array(values, "values")
    as_integer_array(multiplicities, "multiplicities", minimum=1)
    matching_length("multiplicities", multiplicities, "values", values)
    size_that_fits(
        "size", size, 40 * np.size(values) + 8, "a row of uniforms and noisy maxima over the groups per draw"
    )
    v = np.asarray(values, float)
    m = np.asarray(multiplicities, float)
    if np.any(m < 1):
        raise ValueError("multiplicities must be >= 1")
    u = rng.random((size, v.size))
    u = np.where(u == 0.0, np.finfo(float).tiny, u)
    return np.argmax(v + _laplace_max_of(m, 2.0 / positive_finite("epsilon", epsilon), u), axis=1)


def exponential_mechanism_selection(
    counts: np.ndarray, epsilon: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """P(i) ∝ exp(ε c_i/2) (utility sensitivity 1 under replace-one; ε-DP), via dplab.mechanisms.exponential."""
    as_finite_array(counts, "counts")
    size_that_fits("size", size, 16, "the int64 selections and their uniforms")
    return sample_exponential_mechanism(np.asarray(counts, float), epsilon, 1.0, size, rng)


def pure_mode_release_success_probability(
    mode: int,
    distance: float,
    universe_size: int,
    epsilon: float,
    *,
    delta_rule: str = "corrected",
    bottom: str = "uniform",
    geometry: str = "corrected",
) -> float:
    """P(Algorithm 12 outputs f(D)) in closed form (any |𝒳|, no 2^d × 2^d kernel):
    p_pass·[(1 − ω)(1 − p)^d + ω2^{−d}] + (1 − p_pass)·P(output f(D) | ⊥ encoded), the last term 1/|𝒳| for the
    uniform encoding (the kernel is doubly stochastic) and K[|𝒳|, f(D)] for the reserved code."""
    whole_number("mode", mode, minimum=0)
    non_negative_finite("distance", distance)
    whole_number("universe_size", universe_size, minimum=2)
    positive_finite("epsilon", epsilon)
    n_bits = code_bits(universe_size, bottom)
    log_delta = mode_release_log_delta(n_bits, epsilon, delta_rule)
    p_pass = float(pass_probability(distance, epsilon, log_delta))
    p_refuse = float(refuse_probability(distance, epsilon, log_delta))
    if bottom == "uniform":
        after_bottom = 1.0 / universe_size
    else:
        hamming = int(np.bitwise_count(universe_size ^ mode))
        after_bottom = purify_discrete_transition_probability(hamming, n_bits, epsilon, log_delta, geometry)
    return (
        p_pass * purify_discrete_transition_probability(0, n_bits, epsilon, log_delta, geometry)
        + p_refuse * after_bottom
    )


def report_noisy_max_success_probability(
    values: np.ndarray, multiplicities: np.ndarray, epsilon: float, winner: int = 0
) -> float:
    """P(report-noisy-max with Lap(2/ε) selects the single item of group ``winner``) by quadrature:
    ∫ f(x) Π_{g ≠ winner} F(v_winner + x − v_g)^{m_g} dx (m_winner must be 1), f, F the Lap(2/ε) density and CDF."""
    as_finite_array(values, "values")
    as_integer_array(multiplicities, "multiplicities", minimum=1)
    matching_length("multiplicities", multiplicities, "values", values)
    from scipy.integrate import quad

    v = np.asarray(values, float)
    m = np.asarray(multiplicities, float)
    if m[winner] != 1:
        raise ValueError(f"multiplicities[{winner}]={m[winner]} must be 1 (a single winning item)")
    scale = 2.0 / positive_finite("epsilon", epsilon)
    noise = Laplace(scale)
    others = [g for g in range(v.size) if g != winner]

    def integrand(x: float) -> float:
        log_p = noise.log_pdf(x)
        log_p += sum(m[g] * noise.log_cdf(v[winner] + x - v[g]) for g in others)
        return math.exp(log_p)

    centre = float(np.max(v[others]) - v[winner])
    points = sorted({0.0, centre})
    lo, hi = min(points) - 60 * scale, max(points) + 60 * scale
    return float(min(1.0, quad(integrand, lo, hi, points=points, limit=400, epsabs=1e-12, epsrel=1e-10)[0]))


# ------------------------------------------------------------------------------ exact success against the gap

#: Algorithm 12's variants compared in the mode release: ``alg12_<δ rule>_<⊥ encoding>``.
ALG12_VARIANTS = tuple(f"alg12_{rule}_{bottom}" for rule in DELTA_RULES for bottom in BOTTOM_ENCODINGS)
#: The selection methods with a closed-form (or quadrature) success probability: Algorithm 12's variants, the
#: unpurified distance-to-instability release at a reference δ (``distance_reference``) and with the uniform ⊥ at
#: the δ that makes it pure (``distance_uniform_bottom``), report-noisy-max and the exponential mechanism.
MODE_SELECTION_METHODS = (
    *ALG12_VARIANTS,
    "distance_reference",
    "distance_uniform_bottom",
    "report_noisy_max",
    "exponential_mechanism",
)


def alg12_variant(method: str) -> tuple[str, str]:
    """(δ rule, ⊥ encoding), e.g. ("corrected", "uniform"), of an ``alg12_<rule>_<bottom>`` method name."""
    _choice("method", method, ALG12_VARIANTS)
    rule, bottom = method[len("alg12_") :].rsplit("_", 1)
    return rule, bottom


def mode_selection_success_probability(
    method: str,
    gap: int,
    *,
    n_bits: int,
    epsilon_total: float,
    reference_delta: float,
    n_records: int,
    mode_share: float,
    layout: str = "uniform_rest",
) -> float:
    """Exact P(output = f(D)) of a selection method (:data:`MODE_SELECTION_METHODS`) at total budget ε_tot on the
    histogram of :func:`mode_histogram` with gap g = occ₁ − occ₂ over |𝒳| = 2^d: Algorithm 12 at ε_tot/2 (2ε-DP,
    Theorem 6) at 𝒟₀ = ⌈g/2⌉; the unpurified release's pass probability at (ε_tot, δ_ref), or with the uniform ⊥
    (pass, or a uniform draw that hits f(D) with probability 1/|𝒳|); report-noisy-max with Lap(2/ε_tot) by
    quadrature (½ at a tie, g = 0); the exponential mechanism at ε_tot (score sensitivity 1).  Gaps beyond the mode
    count only lower the runner-up to 0, so the histogram's gap is clipped to round(mode_share · n_records)."""
    _choice("method", method, MODE_SELECTION_METHODS)
    gap = whole_number("gap", gap, minimum=0)
    positive_finite("epsilon_total", epsilon_total)
    probability("reference_delta", reference_delta)
    whole_number("n_records", n_records)
    probability("mode_share", mode_share, allow_one=True)
    size = 2 ** whole_number("n_bits", n_bits)
    if method in ALG12_VARIANTS:
        rule, bottom = alg12_variant(method)
        eps = epsilon_total / 2.0
        return pure_mode_release_success_probability(0, math.ceil(gap / 2), size, eps, delta_rule=rule, bottom=bottom)
    if method == "distance_reference":
        return float(pass_probability(math.ceil(gap / 2), epsilon_total, math.log(reference_delta)))
    if method == "distance_uniform_bottom":
        log_delta = uniform_bottom_log_delta(epsilon_total, size)
        return float(pass_probability(math.ceil(gap / 2), epsilon_total, log_delta)) * (1 - 1 / size) + 1 / size
    if method == "report_noisy_max" and gap == 0:
        return 0.5
    clipped = min(gap, round(mode_share * n_records))
    values, multiplicities = mode_histogram(n_bits, n_records, mode_share, clipped, layout)
    if method == "report_noisy_max":
        return report_noisy_max_success_probability(values, multiplicities, epsilon_total)
    counts = np.repeat(values, multiplicities)
    return float(np.exp(exponential_mechanism_log_probabilities(counts, epsilon_total, 1.0)[0]))
