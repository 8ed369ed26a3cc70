"""ℓ1-constrained Frank-Wolfe, private and purified (Lin, Wang, Ma, Wang, Appendix I: Algorithms 5-8).

The loss is a least-squares empirical risk held by its sufficient statistics (:class:`QuadraticLoss`):
ℒ(θ) = ½θᵀGθ − cᵀθ + a with G = XᵀX/n, c = Xᵀy/n, a = ‖y‖²/(2n), i.e. (1/n)Σ½(⟨x_i, θ⟩ − y_i)².

- :func:`frank_wolfe_l1`: Algorithm 5 (non-private, ``noise_scale = 0``) and Algorithm 6 (each of the 2d vertex scores
  ⟨s, ∇ℒ(θ_t)⟩, s ∈ S = {±‖𝒞‖₁e_j}, gets Laplace noise; the smallest noisy score is the step's vertex): θ₀ = 0,
  θ_{t+1} = (1 − η_t)θ_t + η_t s_t, η_t = 2/(t + 2), t = 0..T−1.
- :func:`gaussian_sketch`, :func:`sparse_recovery_lp` (Algorithm 8 as a linear programme), :func:`clip_l1` and
  :func:`purified_frank_wolfe` (Algorithm 7, lines 3-6, with Algorithm 1 from :mod:`dplab.mechanisms.purification`).
- :func:`l1_ball_minimiser`: the reference optimum ℒ* over 𝒞 (accelerated projected gradient with the Frank-Wolfe
  duality gap as certificate), for excess risks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from dplab.checks import (
    as_finite_array,
    finite,
    non_negative_finite,
    positive_finite,
    require,
    require_ndim,
    size_that_fits,
    whole_number,
)
from dplab.mechanisms.purification import LqBall, purify
from dplab.numerics import project_l2_ball

__all__ = [
    "QuadraticLoss",
    "least_squares_loss",
    "l1_vertex_scores",
    "report_noisy_min",
    "frank_wolfe_l1",
    "frank_wolfe_gap",
    "project_l1_ball",
    "l1_ball_minimiser",
    "clip_l1",
    "gaussian_sketch",
    "sparse_recovery_lp",
    "PurifiedFrankWolfe",
    "purified_frank_wolfe",
]


@dataclass(frozen=True)
class QuadraticLoss:
    """ℒ(θ) = ½θᵀGθ − cᵀθ + a (``gram`` G, ``linear`` c, ``constant`` a); ∇ℒ(θ) = Gθ − c."""

    gram: np.ndarray
    linear: np.ndarray
    constant: float

    def __post_init__(self) -> None:
        linear = require_ndim("linear", as_finite_array(self.linear, "linear"), 1)
        gram = require_ndim("gram", as_finite_array(self.gram, "gram"), 2)
        require(gram.shape == (linear.size, linear.size), "gram", gram.shape, f"shape ({linear.size}, {linear.size})")
        finite("constant", self.constant)

    @property
    def d(self) -> int:
        return self.linear.shape[0]

    def value(self, theta: np.ndarray) -> float:
        return float(0.5 * theta @ self.gram @ theta - self.linear @ theta + self.constant)

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        return self.gram @ theta - self.linear


def _vector(name: str, value: np.ndarray, size: int) -> np.ndarray:
    """``value`` as a finite 1-D array of length ``size`` (ValueError naming ``name`` otherwise)."""
    array = require_ndim(name, as_finite_array(value, name), 1)
    require(array.size == size, name, array.shape, f"length {size}")
    return array


def least_squares_loss(chunks: Iterable[tuple[np.ndarray, np.ndarray]]) -> QuadraticLoss:
    """(1/n)Σ½(⟨x_i, θ⟩ − y_i)² over the rows of every (x, y) chunk, accumulated chunk by chunk (so n·d need not fit
    in memory)."""
    gram, linear, square, n = None, None, 0.0, 0
    for x, y in chunks:
        x, y = as_finite_array(x, "x"), as_finite_array(y, "y")
        gram = x.T @ x if gram is None else gram + x.T @ x
        linear = x.T @ y if linear is None else linear + x.T @ y
        square, n = square + float(y @ y), n + len(y)
    if n == 0:
        raise ValueError("chunks is empty; allowed: at least one (x, y) chunk with at least one row")
    return QuadraticLoss(gram / n, linear / n, square / (2.0 * n))


def l1_vertex_scores(gradient: np.ndarray, l1_radius: float) -> np.ndarray:
    """⟨s, g⟩ for the 2d vertices of 𝔹₁(r) in the order +r e_1, …, +r e_d, −r e_1, …, −r e_d."""
    gradient = as_finite_array(gradient, "gradient")
    positive_finite("l1_radius", l1_radius)
    return np.concatenate([l1_radius * gradient, -l1_radius * gradient])


def report_noisy_min(scores: np.ndarray, noise_scale: float, rng: np.random.Generator) -> int:
    """argmin_i (scores_i + Lap(noise_scale)), i.i.d. Laplace per score (the exact argmin, first on ties, when
    ``noise_scale`` is 0)."""
    scores = as_finite_array(scores, "scores")
    non_negative_finite("noise_scale", noise_scale)
    if noise_scale == 0.0:
        return int(np.argmin(scores))
    return int(np.argmin(scores + rng.laplace(scale=noise_scale, size=scores.shape)))


def frank_wolfe_l1(
    loss: QuadraticLoss, l1_radius: float, steps: int, noise_scale: float, rng: np.random.Generator
) -> np.ndarray:
    """θ_T of Algorithm 6 (Algorithm 5 when ``noise_scale`` = 0) on 𝒞 = 𝔹₁(``l1_radius``); Gθ is updated with one
    column of G per step, so a step costs O(d)."""
    positive_finite("l1_radius", l1_radius)
    whole_number("steps", steps)
    d = loss.d
    theta, g_theta = np.zeros(d), np.zeros(d)
    for t in range(steps):
        index = report_noisy_min(l1_vertex_scores(g_theta - loss.linear, l1_radius), noise_scale, rng)
        j, sign = index % d, (1.0 if index < d else -1.0)
        eta = 2.0 / (t + 2.0)
        theta *= 1.0 - eta
        theta[j] += eta * sign * l1_radius
        g_theta = (1.0 - eta) * g_theta + eta * sign * l1_radius * loss.gram[:, j]
    return theta


def frank_wolfe_gap(loss: QuadraticLoss, theta: np.ndarray, l1_radius: float) -> float:
    """max_{s ∈ 𝒞}⟨∇ℒ(θ), θ − s⟩ = ⟨∇ℒ(θ), θ⟩ + r‖∇ℒ(θ)‖_∞ ≥ ℒ(θ) − ℒ* for θ ∈ 𝒞 = 𝔹₁(r) (convexity)."""
    theta = _vector("theta", theta, loss.d)
    positive_finite("l1_radius", l1_radius)
    gradient = loss.gradient(theta)
    return float(gradient @ theta + l1_radius * np.max(np.abs(gradient)))


def project_l1_ball(v: np.ndarray, l1_radius: float) -> np.ndarray:
    """Euclidean projection onto 𝔹₁(r): v itself if inside, else sign(v)·(|v| − λ)₊ with λ from the sorted |v|
    (Duchi, Shalev-Shwartz, Singer, Chandra 2008, Figure 1)."""
    v = as_finite_array(v, "v")
    positive_finite("l1_radius", l1_radius)
    magnitude = np.abs(v)
    if magnitude.sum() <= l1_radius:
        return v.copy()
    ordered = np.sort(magnitude)[::-1]
    cumulative = np.cumsum(ordered) - l1_radius
    last = np.flatnonzero(ordered * np.arange(1, v.size + 1) > cumulative)[-1]
    return np.sign(v) * np.maximum(magnitude - cumulative[last] / (last + 1.0), 0.0)


def l1_ball_minimiser(
    loss: QuadraticLoss, l1_radius: float, gap_tolerance: float = 1e-10, max_steps: int = 100_000
) -> tuple[np.ndarray, float]:
    """(θ*, duality gap): accelerated projected gradient (FISTA with adaptive restart, step 1/λ_max(G)) on
    𝔹₁(r), stopped once the Frank-Wolfe gap (:func:`frank_wolfe_gap`) is at most ``gap_tolerance``."""
    positive_finite("l1_radius", l1_radius)
    positive_finite("gap_tolerance", gap_tolerance)
    whole_number("max_steps", max_steps)
    step = 1.0 / max(float(np.linalg.eigvalsh(loss.gram)[-1]), 1e-300)
    theta = momentum = np.zeros(loss.d)
    weight = 1.0
    for _ in range(max_steps):
        new = project_l1_ball(momentum - step * loss.gradient(momentum), l1_radius)
        if (momentum - new) @ (new - theta) > 0:  # restart: the momentum points uphill
            weight = 1.0
        new_weight = (1.0 + math.sqrt(1.0 + 4.0 * weight**2)) / 2.0
        momentum = new + (weight - 1.0) / new_weight * (new - theta)
        theta, weight = new, new_weight
        if (gap := frank_wolfe_gap(loss, theta, l1_radius)) <= gap_tolerance:
            break
    return theta, gap


def clip_l1(theta: np.ndarray, l1_radius: float) -> np.ndarray:
    """Clip^{ℓ1}_r: θ rescaled onto 𝔹₁(r) if ‖θ‖₁ > r, else θ (Algorithm 7, line 6)."""
    theta = as_finite_array(theta, "theta")
    positive_finite("l1_radius", l1_radius)
    norm = float(np.abs(theta).sum())
    return theta * (l1_radius / norm) if norm > l1_radius else theta


def gaussian_sketch(k: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Φ ∈ ℝ^{k×d} with i.i.d. N(0, 1/k) entries (Lemma 44)."""
    whole_number("k", k)
    size_that_fits("d", d, 16 * k, "the k x d float64 sketch and its scaled copy")
    return rng.standard_normal((k, d)) / math.sqrt(k)


def sparse_recovery_lp(b: np.ndarray, phi: np.ndarray, tolerance: float) -> np.ndarray:
    """Algorithm 8: argmin ‖θ‖₁ s.t. ‖Φθ − b‖₁ ≤ ξ, as a linear programme (HiGHS) in the variables
    (u⁺, u⁻, w⁺, w⁻) ≥ 0 with θ = u⁺ − u⁻ and Φθ − b = w⁺ − w⁻: minimise Σ(u⁺ + u⁻) s.t. Σ(w⁺ + w⁻) ≤ ξ.  This is
    Lemma 46's programme with the k inequalities ±(Φθ − b) ≤ v written as k equalities (same optimum, 2d + 2k
    variables; HiGHS solves it about 3x faster at k = 300, d = 1000)."""
    phi = require_ndim("phi", as_finite_array(phi, "phi"), 2)
    k, d = phi.shape
    b = _vector("b", b, k)
    non_negative_finite("tolerance", tolerance)
    eye = np.eye(k)
    equalities = np.hstack([phi, -phi, -eye, eye])
    budget = np.concatenate([np.zeros(2 * d), np.ones(2 * k)])[None, :]
    cost = np.concatenate([np.ones(2 * d), np.zeros(2 * k)])
    result = linprog(cost, A_ub=budget, b_ub=[tolerance], A_eq=equalities, b_eq=b, bounds=(0, None), method="highs")
    if result.status != 0:
        raise RuntimeError(f"Algorithm 8's linear programme did not solve: {result.message}")
    return result.x[:d] - result.x[d : 2 * d]


@dataclass(frozen=True)
class PurifiedFrankWolfe:
    """The stages of Algorithm 7 after θ_FW: Φθ_FW (``sketched``), its ℓ2 clip (``clipped``, Algorithm 1's input),
    Algorithm 1's output (``purified_sketch``), Algorithm 8's recovery (``recovered``) and ``output`` = its ℓ1 clip."""

    sketched: np.ndarray
    clipped: np.ndarray
    purified_sketch: np.ndarray
    recovered: np.ndarray
    output: np.ndarray


def purified_frank_wolfe(
    theta_fw: np.ndarray,
    phi: np.ndarray,
    l1_radius: float,
    epsilon: float,
    log_delta: float,
    log_omega: float,
    tolerance: float,
    rng: np.random.Generator,
) -> PurifiedFrankWolfe:
    """Algorithm 7, lines 3-6: θ_apx-k = Φθ_FW; θ_pure-k = 𝒜_pure(Clip^{ℓ2}_{2‖𝒞‖₁}(θ_apx-k), Θ = 𝔹₂^k(2‖𝒞‖₁),
    ε′ = ε, δ, ω) (Algorithm 1, diameter 4‖𝒞‖₁); θ_pure-d = ℳ_rec(θ_pure-k, Φ, ξ) (Algorithm 8); θ_out =
    Clip^{ℓ1}_{‖𝒞‖₁}(θ_pure-d)."""
    phi = require_ndim("phi", as_finite_array(phi, "phi"), 2)
    theta_fw = _vector("theta_fw", theta_fw, phi.shape[1])
    positive_finite("l1_radius", l1_radius)
    positive_finite("epsilon", epsilon)
    non_negative_finite("tolerance", tolerance)
    sketched = phi @ theta_fw
    clipped = project_l2_ball(sketched, 2.0 * l1_radius)
    domain = LqBall(center=(0.0,) * phi.shape[0], diameter=4.0 * l1_radius, q=2.0)
    purified = purify(clipped, domain, epsilon, log_delta, log_omega, rng)
    recovered = sparse_recovery_lp(purified, phi, tolerance)
    return PurifiedFrankWolfe(sketched, clipped, purified, recovered, clip_l1(recovered, l1_radius))
