"""Theory of the purified DP Frank-Wolfe method of Lin, Wang, Ma, Wang, *Purifying Approximate Differential Privacy
with Randomized Post-processing* (Section 4.2, Theorem 4, Algorithms 6-8, Lemmas 28, 30 and 46, Appendix I).

Pure functions of numbers: the parameters of Algorithm 7 (T, k, ω, δ, Algorithm 1's Δ, eq. (14)'s ξ), the Laplace
scales of Algorithm 6 (as printed) and of a pure-DP Frank-Wolfe by basic composition, the purification term of the
proof of Theorem 4 (eq. (15), as printed and as its own chain of inequalities gives it), Lemma 28's explicit bound,
Lemma 46's recovery bound, Theorem 4's rate and Lemma 30's lower bound.

Setting (Theorem 4): 𝒞 = 𝔹₁(‖𝒞‖₁) = conv(S), S = {±‖𝒞‖₁e_j} (|S| = 2d); f(·; x) convex, L₁-Lipschitz and β-smooth
with respect to ℓ1.  The score ⟨s, ∇ℒ(θ; D)⟩ of a vertex has sensitivity L₁‖𝒞‖₁/n (one record moves the mean
gradient by at most L₁/n in ℓ∞); this is the sensitivity the printed scale of Algorithm 6 is calibrated to
(report-noisy-min at ε₀ = ε/√(2T log(1/δ)) per step, Laplace(2·sensitivity/ε₀), advanced composition).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dplab.checks import positive_finite, probability, whole_number
from dplab.theory.purification import purification_laplace_scale, purification_shift

__all__ = [
    "RWC_DISTORTION",
    "Algorithm7Parameters",
    "frank_wolfe_steps",
    "sketch_dimension",
    "algorithm7_parameters",
    "algorithm6_laplace_scale",
    "pure_frank_wolfe_laplace_scale",
    "lemma46_recovery_bound",
    "purification_term_as_printed",
    "purification_term_corrected",
    "lemma28_bound",
    "theorem4_rate",
    "lemma30_lower_bound",
]

#: The distortion e = 1/4 of the restricted well-conditioned sketch (Algorithm 7's input, proof of Theorem 4).
RWC_DISTORTION = 0.25


@dataclass(frozen=True)
class Algorithm7Parameters:
    """Algorithm 7's parameters at one (n, d, ε): ``steps`` T, ``sketch_dim`` k, log ω = −log n, log δ with
    δ = 2ω/(nk)^k, Algorithm 1's ``shift`` Δ on Θ = 𝔹₂^k(2‖𝒞‖₁), its Laplace scale 2Δ/ε, eq. (14)'s ``tolerance``
    ξ = 4Δ(k + log n)/ε, and Algorithm 6's Laplace scale at (ε, δ)."""

    n: int
    d: int
    epsilon: float
    steps: int
    sketch_dim: int
    log_omega: float
    log_delta: float
    shift: float
    purification_scale: float
    tolerance: float
    fw_scale: float


def _positive(**values: float) -> None:
    """ValueError naming the first of ``values`` that is not a finite number > 0."""
    for name, value in values.items():
        positive_finite(name, value)


def frank_wolfe_steps(n: int, epsilon: float, lipschitz: float, smoothness: float, l1_radius: float) -> int:
    """T = ⌈√(β‖𝒞‖₁nε/L₁)⌉: Algorithm 7's T = Θ̃(√(β‖𝒞‖₁nε/L₁)) with constant 1."""
    whole_number("n", n)
    _positive(epsilon=epsilon, lipschitz=lipschitz, smoothness=smoothness, l1_radius=l1_radius)
    return max(1, math.ceil(math.sqrt(smoothness * l1_radius * n * epsilon / lipschitz)))


def sketch_dimension(n: int, d: int, steps: int) -> int:
    """k = min(d, ⌈T log(d/T) + log n⌉): Algorithm 7's k = Θ(T log(d/T) + log n) with constant 1; k = d once
    T ≥ d (θ_FW is then (T ∧ d) = d-sparse, Lemma 29, and no sketch can be smaller)."""
    whole_number("n", n)
    whole_number("d", d)
    whole_number("steps", steps)
    if steps >= d:
        return d
    return min(d, max(1, math.ceil(steps * math.log(d / steps) + math.log(n))))


def algorithm6_laplace_scale(
    n: int, epsilon: float, steps: int, log_inv_delta: float, lipschitz: float, l1_radius: float
) -> float:
    """L₁‖𝒞‖₁√(8T log(1/δ))/(nε): the per-vertex Laplace scale of Algorithm 6, line 3, as printed."""
    whole_number("n", n)
    whole_number("steps", steps)
    _positive(epsilon=epsilon, log_inv_delta=log_inv_delta, lipschitz=lipschitz, l1_radius=l1_radius)
    return lipschitz * l1_radius * math.sqrt(8.0 * steps * log_inv_delta) / (n * epsilon)


def pure_frank_wolfe_laplace_scale(n: int, epsilon: float, steps: int, lipschitz: float, l1_radius: float) -> float:
    """2(L₁‖𝒞‖₁/n)·T/ε: report-noisy-min with Laplace(2·sensitivity/ε₀) is ε₀-DP, so T steps at ε₀ = ε/T are ε-DP
    by basic composition (the pure-DP baseline; same score sensitivity as Algorithm 6)."""
    whole_number("n", n)
    whole_number("steps", steps)
    _positive(epsilon=epsilon, lipschitz=lipschitz, l1_radius=l1_radius)
    return 2.0 * lipschitz * l1_radius * steps / (n * epsilon)


def algorithm7_parameters(
    n: int, d: int, epsilon: float, lipschitz: float, smoothness: float, l1_radius: float
) -> Algorithm7Parameters:
    """Algorithm 7, line 2, with the constants of T and k set to 1 (:func:`frank_wolfe_steps`,
    :func:`sketch_dimension`): ω = 1/n, δ = 2ω/(nk)^k, Δ = 2√k·R·(δ/2ω)^{1/k} with R = 4‖𝒞‖₁ (= 8‖𝒞‖₁/(n√k)),
    ξ = 4Δ(k + log n)/ε (eq. (14)) and Algorithm 6's scale at log(1/δ) = k log(nk) + log(n/2)."""
    steps = frank_wolfe_steps(n, epsilon, lipschitz, smoothness, l1_radius)
    k = sketch_dimension(n, d, steps)
    log_omega = -math.log(n)
    log_delta = math.log(2.0) + log_omega - k * math.log(n * k)
    shift = purification_shift(k, 2.0, 4.0 * l1_radius, log_delta, log_omega)
    return Algorithm7Parameters(
        n=n,
        d=d,
        epsilon=epsilon,
        steps=steps,
        sketch_dim=k,
        log_omega=log_omega,
        log_delta=log_delta,
        shift=shift,
        purification_scale=purification_laplace_scale(shift, epsilon),
        tolerance=4.0 * shift * (k + math.log(n)) / epsilon,
        fw_scale=algorithm6_laplace_scale(n, epsilon, steps, -log_delta, lipschitz, l1_radius),
    )


def lemma46_recovery_bound(sparsity: int, tolerance: float, distortion: float = RWC_DISTORTION) -> float:
    """‖θ̂ − θ*‖₁ ≤ 4√s·ξ/√(1 − e) (Lemma 46: Φ (4s, e)-RWC, θ* s-sparse, ‖w̃‖₁ ≤ ξ)."""
    whole_number("sparsity", sparsity)
    positive_finite("tolerance", tolerance)
    probability("distortion", distortion)
    return 4.0 * math.sqrt(sparsity) * tolerance / math.sqrt(1.0 - distortion)


def purification_term_as_printed(n: int, k: int, epsilon: float, lipschitz: float, l1_radius: float) -> float:
    """(64/√3)·L₁‖𝒞‖₁(k + log n)/(nε): the last line of eq. (15), the bound on ℒ(θ_out) − ℒ(θ_FW) under the success
    event F₁ᶜ ∩ F₂ᶜ ∩ F₃ᶜ."""
    whole_number("n", n)
    whole_number("k", k)
    _positive(epsilon=epsilon, lipschitz=lipschitz, l1_radius=l1_radius)
    return 64.0 / math.sqrt(3.0) * lipschitz * l1_radius * (k + math.log(n)) / (n * epsilon)


def purification_term_corrected(
    n: int, k: int, steps: int, epsilon: float, lipschitz: float, l1_radius: float
) -> float:
    """L₁·4√T·ξ/√(1 − e) with e = 1/4 and ξ = 4Δ(k + log n)/ε, Δ = 8‖𝒞‖₁/(n√k): the middle line of eq. (15)
    evaluated, (256/√3)·√(T/k)·L₁‖𝒞‖₁(k + log n)/(nε); it is at most the printed last line only when k ≥ 16T."""
    whole_number("n", n)
    whole_number("k", k)
    whole_number("steps", steps)
    _positive(epsilon=epsilon, lipschitz=lipschitz, l1_radius=l1_radius)
    tolerance = 4.0 * (8.0 * l1_radius / (n * math.sqrt(k))) * (k + math.log(n)) / epsilon
    return lipschitz * lemma46_recovery_bound(steps, tolerance)


def lemma28_bound(
    n: int,
    d: int,
    epsilon: float,
    steps: int,
    log_inv_delta: float,
    lipschitz: float,
    smoothness: float,
    l1_radius: float,
) -> float:
    """βC²/T + L₁C√(8T log(1/δ))·log(T L₁ C |S|)/(nε) with C = ‖𝒞‖₁, |S| = 2d: Lemma 28 with its O-constant 1 and
    the curvature Γ_ℒ ≤ βC²."""
    whole_number("d", d)
    _positive(smoothness=smoothness)
    noise = algorithm6_laplace_scale(n, epsilon, steps, log_inv_delta, lipschitz, l1_radius)
    optimisation = smoothness * l1_radius**2 / steps
    return optimisation + noise * math.log(steps * lipschitz * l1_radius * 2 * d)


def theorem4_rate(n: int, epsilon: float, lipschitz: float, smoothness: float, l1_radius: float) -> float:
    """(L₁βC³)^{1/2}/(nε)^{1/2}: Theorem 4's rate with its constant and logarithmic factors set to 1."""
    whole_number("n", n)
    _positive(epsilon=epsilon, lipschitz=lipschitz, smoothness=smoothness, l1_radius=l1_radius)
    return math.sqrt(lipschitz * smoothness * l1_radius**3 / (n * epsilon))


def lemma30_lower_bound(n: int, d: int, epsilon: float) -> float:
    """√(log(d + 1)/(nε + log 4)) ∧ 1: Lemma 30's excess risk that any ε-DP algorithm exceeds with probability ≥ 1/2
    on some instance (ℓ1 unit ball, 1-Lipschitz, 1-smooth loss)."""
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("epsilon", epsilon)
    return min(1.0, math.sqrt(math.log(d + 1) / (n * epsilon + math.log(4.0))))
