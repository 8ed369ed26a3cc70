"""Data-dependent noise with purification (Lin, Wang, Ma, Wang, Sec. 5.1 and App. J.1-J.2), instantiated on
triangle counting in undirected graphs under edge-add/remove adjacency (our instance; the paper names none).

* The query: q(G) = #triangles = tr(A³)/6.  Flipping edge {i, j} changes q by c_ij = (A²)_ij (common neighbours,
  independent of whether {i, j} is present), so the local sensitivity is Δ_Local(G) = max_{i<j} (A²)_ij and the
  global sensitivity is n_v − 2.  Δ_Local has global sensitivity ≤ 1 (one flip changes each c_ij by ≤ 1), the
  assumption of Algorithm 11.
* Algorithm 9 (PTR, DL09; Lemma 34: (2ε, δ)-DP): refuse (⊥) if 𝒟_β(G) + Lap(1/ε) ≤ log(1/δ)/ε, else release
  q(G) + Lap(β/ε).  𝒟_β is replaced by the sensitivity-1 lower bound max(0, ⌊β⌋ + 1 − Δ_Local(G)), which is 0
  whenever Δ_Local > β: all the privacy proof of Lemma 34 uses.
* Algorithm 10 (pure PTR; Lemma 34: (2ε + ε′, 0)-DP): ⊥ ↦ Unif(Θ), then Algorithm 1.  The released value is first
  clipped to Θ (post-processing), since Algorithm 1 needs Range ⊆ Θ (Assumption 1).
* Algorithm 11 (privately bounded local sensitivity; Theorem 5/11: 3ε-DP): β̂ = Δ_Local + Lap(1/ε) + log(2/δ)/ε
  (clamped at 1e-12), q_apx = Proj_Θ(q + Lap(β̂/ε)), q_pure = Algorithm 1 with ε′, δ, ω.  Parameters of
  the proof of Theorem 11: ω = 1/100 ∧ 1/(Rε²), δ = 2ω/(16dRε)^d, so Δ = 2R(δ/2ω) = 1/(8ε) for d = 1.
* Baselines: the global-sensitivity Laplace mechanism and the smooth-sensitivity mechanism of Nissim, Raskhodnikova,
  Smith (2007) with the density h(z) ∝ 1/(1 + z⁴) (γ = 4): by NRS07 Lemma 2.10 h is (α, β)-admissible with
  α = β = ε/(2(γ + 1)), so q + (S/α)·Z is ε-DP for any β-smooth upper bound S ≥ Δ_Local.  The constants are
  checked numerically (sliding and dilation log-ratios) in the tests.  The smooth bound used is
  S(G) = max_{k≥0} e^{−βk}·min(Δ_Local(G) + k, n_v − 2) (valid because Δ_Local has global sensitivity 1).

Everything is vectorised over ``size`` independent noise draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dplab.checks import (
    as_float_array,
    finite,
    fits_in_memory,
    non_negative_finite,
    positive_finite,
    probability,
    require,
    require_ndim,
    size_that_fits,
    whole_number,
)
from dplab.mechanisms.purification import LqBall, purify
from dplab.theory.purification import check_log_probability, purification_laplace_scale, purification_shift

__all__ = [
    "random_graph",
    "common_neighbours",
    "triangle_count",
    "triangle_local_sensitivity",
    "triangle_global_sensitivity",
    "edge_flip_changes",
    "edge_flip_summary",
    "release_errors",
    "triangle_alg11_release",
    "triangle_alg10_release",
    "Alg11Parameters",
    "alg11_parameters",
    "ptr_distance_lower_bound",
    "proposed_beta",
    "margin_beta",
    "audit_graph_pair",
    "propose_test_release",
    "pure_propose_test_release",
    "bounded_local_sensitivity_release",
    "purified_local_sensitivity_release",
    "global_sensitivity_laplace",
    "QUARTIC_GAMMA",
    "smooth_sensitivity_beta",
    "triangle_smooth_sensitivity",
    "quartic_log_density",
    "sample_quartic",
    "smooth_sensitivity_mechanism",
    "random_graphs_edge_flip_check",
    "k5_audit_parameters",
]

_BETA_FLOOR = 1e-12


# --------------------------------------------------------------------------------------------------- the query


def random_graph(n_vertices: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Adjacency matrix (float64, symmetric, zero diagonal) of an Erdős–Rényi G(n_v, p) graph."""
    n_vertices = whole_number("n_vertices", n_vertices, minimum=3)
    fits_in_memory({"n_vertices": n_vertices}, 19 * n_vertices**2, "uniforms, masks and the float64 adjacency (n_v^2)")
    probability("p", p, allow_zero=True, allow_one=True)
    upper = np.triu(rng.random((n_vertices, n_vertices)) < p, k=1)
    return (upper | upper.T).astype(np.float64)


def _adjacency(adjacency: np.ndarray) -> np.ndarray:
    """``adjacency`` as float64 after checking it is a square 0/1 matrix."""
    a = require_ndim("adjacency", as_float_array(adjacency, "adjacency"), 2)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency has shape {a.shape}; allowed: a square matrix")
    require((a == 0) | (a == 1), "adjacency", a, "entries in {0, 1}")
    return a


def common_neighbours(adjacency: np.ndarray) -> np.ndarray:
    """C = A² (C_ij = number of common neighbours of i and j)."""
    a = _adjacency(adjacency)
    return a @ a


def triangle_count(adjacency: np.ndarray, common: np.ndarray | None = None) -> float:
    """q(G) = tr(A³)/6 = Σ_ij (A²)_ij A_ij / 6."""
    _adjacency(adjacency)
    c = common_neighbours(adjacency) if common is None else common
    return float(np.sum(c * adjacency) / 6.0)


def triangle_local_sensitivity(adjacency: np.ndarray, common: np.ndarray | None = None) -> float:
    """Δ_Local(G) = max_{i<j} (A²)_ij: the largest change of the triangle count over single edge flips."""
    _adjacency(adjacency)
    c = common_neighbours(adjacency) if common is None else common
    return float(np.max(c[np.triu_indices(c.shape[0], k=1)]))


def triangle_global_sensitivity(n_vertices: int) -> float:
    """GS = n_v − 2 (an edge between two vertices adjacent to every other vertex closes n_v − 2 triangles)."""
    whole_number("n_vertices", n_vertices, minimum=3)
    return float(n_vertices - 2)


def edge_flip_changes(adjacency: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Brute force over all single edge flips {i, j} (i < j): |q(G') − q(G)| and |Δ_Local(G') − Δ_Local(G)|.

    O(n_v² · n_v³): for small graphs only (the reference for the closed forms above)."""
    _adjacency(adjacency)
    a = np.asarray(adjacency, dtype=np.float64)
    q0, ls0 = triangle_count(a), triangle_local_sensitivity(a)
    dq, dls = [], []
    for i, j in zip(*np.triu_indices(a.shape[0], k=1)):
        b = a.copy()
        b[i, j] = b[j, i] = 1.0 - b[i, j]
        dq.append(abs(triangle_count(b) - q0))
        dls.append(abs(triangle_local_sensitivity(b) - ls0))
    return np.array(dq), np.array(dls)


def edge_flip_summary(graphs: list[np.ndarray]) -> dict[str, float | int]:
    """Over all single edge flips of every graph (:func:`edge_flip_changes`): the largest change of Δ_Local
    (≤ 1 is Algorithm 11's assumption), the number of graphs whose Δ_Local equals the largest change of q (the
    definition of the local sensitivity), and the largest change of q (≤ n_v − 2, the global sensitivity)."""
    if len(graphs) == 0:
        raise ValueError("graphs is empty; allowed: at least one adjacency matrix")
    max_ls_change, ls_matches, max_q_change = 0.0, 0, 0.0
    for a in graphs:
        dq, dls = edge_flip_changes(a)
        max_ls_change = max(max_ls_change, float(dls.max()))
        max_q_change = max(max_q_change, float(dq.max()))
        ls_matches += int(dq.max() == triangle_local_sensitivity(a))
    return {
        "max_local_sensitivity_change": max_ls_change,
        "local_sensitivity_matches": ls_matches,
        "max_triangle_change": max_q_change,
    }


def release_errors(estimates: np.ndarray, truth: float) -> dict[str, float]:
    """Median and mean of |θ − q| over the released estimates θ (finite entries; NaN or ±∞ mark a refusal), and
    the same divided by max(q, 1); all NaN when every draw was refused."""
    non_negative_finite("truth", truth)
    released = estimates[np.isfinite(estimates)]
    if released.size == 0:
        return {
            k: math.nan for k in ("median_abs_error", "mean_abs_error", "median_relative_error", "mean_relative_error")
        }
    err = np.abs(released - truth)
    denom = max(truth, 1.0)
    return {
        "median_abs_error": float(np.median(err)),
        "mean_abs_error": float(np.mean(err)),
        "median_relative_error": float(np.median(err) / denom),
        "mean_relative_error": float(np.mean(err) / denom),
    }


# ------------------------------------------------------------------------------------------ Algorithm 11 setup


@dataclass(frozen=True)
class Alg11Parameters:
    """The purification parameters of the proof of Theorem 11 (App. J.2) for Θ of ℓ2 diameter R in ℝ^d."""

    epsilon: float
    diameter: float
    d: int
    log_omega: float
    log_delta: float
    shift: float
    laplace_scale: float

    @property
    def log_inv_delta(self) -> float:
        return -self.log_delta

    @property
    def bound_offset(self) -> float:
        """log(2/δ)/ε, the offset of β̂ (Algorithm 11, line 1)."""
        return (math.log(2.0) - self.log_delta) / self.epsilon


def alg11_parameters(diameter: float, epsilon: float, d: int = 1) -> Alg11Parameters:
    """ω = 1/100 ∧ 1/(Rε²), δ = 2ω/(16dRε)^d, ε′ = ε (proof of Theorem 11), and Algorithm 1's Δ and b = 2Δ/ε′.

    Δ = 2√d·R·(δ/2ω)^{1/d} = 1/(8√d ε); e.g. R = C(500, 3), ε = 1: ω = 4.829e-8, log(1/δ) = 35.7716, Δ = 0.125,
    b = 0.25.  All in log-space."""
    diameter = positive_finite("diameter", diameter)
    epsilon = positive_finite("epsilon", epsilon)
    whole_number("d", d)
    log_omega = min(math.log(0.01), -math.log(diameter) - 2.0 * math.log(epsilon))
    log_delta = math.log(2.0) + log_omega - d * math.log(16.0 * d * diameter * epsilon)
    check_log_probability("delta", log_delta)
    shift = purification_shift(d, 2.0, diameter, log_delta, log_omega)
    return Alg11Parameters(
        epsilon, diameter, int(d), log_omega, log_delta, shift, purification_laplace_scale(shift, epsilon)
    )


def _interval(lower: float, upper: float) -> LqBall:
    return LqBall(center=((lower + upper) / 2.0,), diameter=upper - lower, q=2.0)


# ------------------------------------------------------------------------------------------ Algorithms 9 and 10


def proposed_beta(n_vertices: int, p: float) -> float:
    """PTR's proposed bound β = ⌈n_v p² + 4√(n_v p²)⌉ + 5 (our choice; the paper leaves β open): mean common neighbours
    + 4 sd + 5."""
    n_vertices, p = whole_number("n_vertices", n_vertices), probability("p", p)
    m = n_vertices * p * p
    return float(math.ceil(m + 4.0 * math.sqrt(m)) + 5)


def margin_beta(beta: float, epsilon: float, log_delta: float) -> float:
    """β + ⌈(log(1/δ) + 3)/ε⌉ (our choice): with the sensitivity-1 distance proxy max(0, ⌊β⌋ + 1 − Δ_Local), PTR
    passes its test only if ⌊β⌋ + 1 − Δ_Local exceeds log(1/δ)/ε, so the proposal must carry that margin (β stays a
    function of public quantities only)."""
    beta, epsilon = positive_finite("beta", beta), positive_finite("epsilon", epsilon)
    return beta + math.ceil((3.0 - check_log_probability("delta", log_delta)) / epsilon)


def audit_graph_pair() -> tuple[np.ndarray, np.ndarray]:
    """G = K5 minus edge {0, 1} (7 triangles, Δ_Local = 3) and its neighbour G′ = K5 (10 triangles): the edge flip
    that changes the triangle count by the global sensitivity n_v − 2 = 3 (our audit pair for Algorithms 10 and 11)."""
    g_prime = np.ones((5, 5)) - np.eye(5)
    g = g_prime.copy()
    g[0, 1] = g[1, 0] = 0.0
    return g, g_prime


def ptr_distance_lower_bound(local_sensitivity: float, beta: float) -> float:
    """max(0, ⌊β⌋ + 1 − Δ_Local): a global-sensitivity-1 lower bound on 𝒟_β (integer-valued Δ_Local) that is 0
    whenever Δ_Local > β (the exact distance can be larger)."""
    non_negative_finite("local_sensitivity", local_sensitivity)
    non_negative_finite("beta", beta)
    return max(0.0, math.floor(beta) + 1.0 - float(local_sensitivity))


def propose_test_release(
    value: float, distance: float, beta: float, epsilon: float, log_delta: float, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 9 (PTR, Lemma 34: (2ε, δ)-DP), ``size`` draws: (released values, refused mask).

    Refuse when 𝒟 + Lap(1/ε) ≤ log(1/δ)/ε; otherwise release q + Lap(β/ε).  Refused entries hold NaN."""
    finite("value", value)
    non_negative_finite("distance", distance)
    size_that_fits("size", size, 40, "two Laplace draws, the refusal mask and the release per draw (float64)")
    epsilon = positive_finite("epsilon", epsilon)
    beta = positive_finite("beta", beta)
    log_delta = check_log_probability("delta", log_delta)
    refused = distance + rng.laplace(scale=1.0 / epsilon, size=size) <= -log_delta / epsilon
    released = value + rng.laplace(scale=beta / epsilon, size=size)
    return np.where(refused, np.nan, released), refused


def pure_propose_test_release(
    value: float,
    distance: float,
    beta: float,
    epsilon: float,
    epsilon_prime: float,
    log_delta: float,
    log_omega: float,
    lower: float,
    upper: float,
    size: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 10 ((2ε + ε′, 0)-DP): Algorithm 9, ⊥ ↦ Unif([lower, upper]), clip to Θ, Algorithm 1.

    Returns (purified outputs, refused mask)."""
    finite("value", value)
    non_negative_finite("distance", distance)
    finite("lower", lower)
    finite("upper", upper)
    size_that_fits("size", size, 120, "Algorithm 9's draws, the uniform replacements and Algorithm 1's copies per draw")
    released, refused = propose_test_release(value, distance, beta, epsilon, log_delta, size, rng)
    theta = np.where(refused, rng.uniform(lower, upper, size=size), np.clip(released, lower, upper))
    out = purify(theta[:, None], _interval(lower, upper), epsilon_prime, log_delta, log_omega, rng)[:, 0]
    return out, refused


# ------------------------------------------------------------------------------------------------ Algorithm 11


def bounded_local_sensitivity_release(
    value: float,
    local_sensitivity: float,
    epsilon: float,
    log_delta: float,
    lower: float,
    upper: float,
    size: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 11, lines 1-2 ((2ε, δ)-DP for d = 1): β̂ = Δ_Local + Lap(1/ε) + log(2/δ)/ε (≥ 1e-12) and
    q_apx = Proj_[lower, upper](q + Lap(β̂/ε)).  Returns (q_apx, β̂)."""
    finite("value", value)
    non_negative_finite("local_sensitivity", local_sensitivity)
    finite("lower", lower)
    finite("upper", upper)
    size_that_fits("size", size, 48, "two Laplace draws, beta_hat and the clipped release per draw")
    epsilon = positive_finite("epsilon", epsilon)
    log_delta = check_log_probability("delta", log_delta)
    beta_hat = np.maximum(
        local_sensitivity + rng.laplace(scale=1.0 / epsilon, size=size) + (math.log(2.0) - log_delta) / epsilon,
        _BETA_FLOOR,
    )
    q_apx = np.clip(value + beta_hat / epsilon * rng.laplace(size=size), lower, upper)
    return q_apx, beta_hat


def purified_local_sensitivity_release(
    value: float, local_sensitivity: float, params: Alg11Parameters, lower: float, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 11 (Theorem 5/11: 3ε-DP, ε′ = ε) on Θ = [lower, lower + R] (d = 1): returns (q_pure, q_apx)."""
    finite("value", value)
    non_negative_finite("local_sensitivity", local_sensitivity)
    finite("lower", lower)
    size_that_fits("size", size, 120, "Algorithm 11's draws and Algorithm 1's copies per draw")
    if params.d != 1:
        raise ValueError(
            f"params.d={params.d} must be 1 (a scalar query: Algorithm 11's per-coordinate noise β̂/ε is "
            "calibrated to the l2 local sensitivity, so d > 1 would be only (sqrt(d) eps, delta)-DP)"
        )
    upper = lower + params.diameter
    q_apx, _ = bounded_local_sensitivity_release(
        value, local_sensitivity, params.epsilon, params.log_delta, lower, upper, size, rng
    )
    q_pure = purify(q_apx[:, None], _interval(lower, upper), params.epsilon, params.log_delta, params.log_omega, rng)[
        :, 0
    ]
    return q_pure, q_apx


def global_sensitivity_laplace(
    value: float, sensitivity: float, epsilon: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """The Laplace mechanism q + Lap(GS/ε) (ε-DP)."""
    finite("value", value)
    size_that_fits("size", size, 16, "the Laplace draws and the release (float64)")
    return value + rng.laplace(
        scale=positive_finite("sensitivity", sensitivity) / positive_finite("epsilon", epsilon), size=size
    )


# ------------------------------------------------------------------------------------- smooth sensitivity (NRS07)

#: γ of the density h(z) ∝ 1/(1 + |z|^γ) used by :func:`smooth_sensitivity_mechanism`.
QUARTIC_GAMMA = 4.0
_QUARTIC_LOG_NORMALISER = math.log(math.pi / math.sqrt(2.0))  # ∫ dz/(1 + z⁴) = π/√2
_QUARTIC_OVER_CAUCHY = 1.2072  # > sup_z (1 + z²)/(1 + z⁴) = (1 + √2)/2 = 1.20711


def smooth_sensitivity_beta(epsilon: float, gamma: float = QUARTIC_GAMMA) -> float:
    """α = β = ε/(2(γ + 1)) (NRS07 Lemma 2.10 for h ∝ 1/(1 + |z|^γ))."""
    positive_finite("gamma", gamma)
    return positive_finite("epsilon", epsilon) / (2.0 * (gamma + 1.0))


def triangle_smooth_sensitivity(local_sensitivity: float, n_vertices: int, beta: float) -> float:
    """S(G) = max_{k ≥ 0} e^{−βk}·min(Δ_Local + k, n_v − 2): a β-smooth upper bound on Δ_Local (NRS07 Def. 2.1),
    since Δ_Local at Hamming distance k is ≤ Δ_Local + k and never above the global sensitivity."""
    non_negative_finite("local_sensitivity", local_sensitivity)
    whole_number("n_vertices", n_vertices, minimum=3)
    gs = triangle_global_sensitivity(n_vertices)
    k = np.arange(0.0, max(gs - local_sensitivity, 0.0) + 1.0)
    return float(np.max(np.exp(-positive_finite("beta", beta) * k) * np.minimum(local_sensitivity + k, gs)))


def quartic_log_density(z: np.ndarray) -> np.ndarray:
    """log h(z) with h(z) = (√2/π)/(1 + z⁴)."""
    as_float_array(z, "z")
    return -np.log1p(np.asarray(z, float) ** 4) - _QUARTIC_LOG_NORMALISER


def sample_quartic(size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws from h(z) ∝ 1/(1 + z⁴) by rejection from the standard Cauchy (acceptance ≈ 0.74)."""
    size_that_fits("size", size, 112, "1.5 Cauchy proposals per draw with their uniforms and temporaries")
    out = np.empty(0)
    while out.size < size:
        m = int(1.5 * (size - out.size)) + 16
        z = rng.standard_cauchy(m)
        keep = rng.random(m) * _QUARTIC_OVER_CAUCHY * (1.0 + z**4) <= 1.0 + z**2
        out = np.concatenate([out, z[keep]])
    return out[:size]


def smooth_sensitivity_mechanism(
    value: float, smooth_sensitivity: float, epsilon: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """q + (S/α)·Z with Z ~ h ∝ 1/(1 + z⁴) and α = ε/(2(γ + 1)) = ε/10: ε-DP when S is an α-smooth upper bound
    on the local sensitivity (NRS07 Lemmas 2.6 and 2.10)."""
    finite("value", value)
    size_that_fits("size", size, 128, "the quartic proposals and the release per draw")
    alpha = smooth_sensitivity_beta(epsilon)
    return value + positive_finite("smooth_sensitivity", smooth_sensitivity) / alpha * sample_quartic(size, rng)


def triangle_alg11_release(
    adjacency: np.ndarray, params: Alg11Parameters, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Algorithm 11 purified (Theorem 5: 3ε-DP) on the triangle count of the graph ``adjacency``, Θ = [0, R]:
    ``size`` released values (:func:`purified_local_sensitivity_release` at q(G), Δ_Local(G))."""
    return purified_local_sensitivity_release(
        triangle_count(adjacency), triangle_local_sensitivity(adjacency), params, 0.0, size, rng
    )[0]


def triangle_alg10_release(
    adjacency: np.ndarray, params: Alg11Parameters, beta: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Algorithm 10 (pure PTR, Lemma 34: (2ε + ε′, 0)-DP with ε′ = ε) on the triangle count of ``adjacency`` with
    proposed bound ``beta``, on Θ = [0, R] with Algorithm 11's δ, ω and R (``params``): ``size`` released values
    (⊥ replaced by a uniform point of Θ, :func:`pure_propose_test_release`)."""
    distance = ptr_distance_lower_bound(triangle_local_sensitivity(adjacency), beta)
    eps = params.epsilon
    return pure_propose_test_release(
        triangle_count(adjacency), distance, beta, eps, eps, params.log_delta, params.log_omega, 0.0,
        params.diameter, size, rng,
    )[0]  # fmt: skip


def random_graphs_edge_flip_check(n_graphs: int, n_vertices: int, rng: np.random.Generator) -> dict[str, float | int]:
    """Brute force over all single edge flips (:func:`edge_flip_summary`) of ``n_graphs`` random G(n_v, ½) graphs
    and the complete graph K_{n_v}: whether Δ_Local has global sensitivity ≤ 1 (Algorithm 11's assumption) and
    equals the largest change of the triangle count, next to the global sensitivity n_v − 2."""
    n_graphs = whole_number("n_graphs", n_graphs)
    n_vertices = whole_number("n_vertices", n_vertices, minimum=3)
    graphs = [random_graph(n_vertices, 0.5, rng) for _ in range(n_graphs)] + [
        np.ones((n_vertices,) * 2) - np.eye(n_vertices)
    ]
    return {
        "kind": "sensitivity_check",
        "method": "bruteforce_edge_flips",
        "n_graphs": len(graphs),
        "check_vertices": n_vertices,
        **edge_flip_summary(graphs),
        "global_sensitivity": triangle_global_sensitivity(n_vertices),
    }


def k5_audit_parameters(epsilon_total: float) -> tuple[Alg11Parameters, float]:
    """The purified releases audited on :func:`audit_graph_pair` (n_v = 5): Algorithm 11's parameters at
    ε = ε_tot/3 on the domain [0, R], R = C(5, 3) (Theorem 5: 3ε = ε_tot), and the margin β at Δ_Local = 3 for
    Algorithm 10 (:func:`margin_beta`; Δ_Local(G) = Δ_Local(G′) = 3, so the test passes with high probability)."""
    eps = positive_finite("epsilon_total", epsilon_total) / 3.0
    params = alg11_parameters(float(math.comb(5, 3)), eps)
    return params, margin_beta(3.0, eps, params.log_delta)
