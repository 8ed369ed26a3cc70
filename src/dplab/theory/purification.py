"""Theory of Lin, Wang, Ma, Wang, *Purifying Approximate Differential Privacy with Randomized Post-processing*.

Pure functions of numbers: the calibration of Algorithm 1, the privacy and utility statements of Theorems 1–3, the
tools of their proofs (Lemma 6 and its volume formula, Example 8, Corollary 4, Lemmas 14, 19, 22, 25–27, 48), Theorem
2's threshold, Appendix B's trade-off functions, Appendix C's folklore bound and Appendix D's quantized variant, the
instantiations of Algorithm 1 in Algorithms 2, 7, 11, 13 and Theorem 9's proof, and the rates of Tables 1 and 2.

Conventions of this library: R is the ℓ_q **diameter** of the domain Θ = c + 𝔹_q(R/2) (erratum: Assumption 1
calls R both a diameter bound and a ball radius; the proof of Theorem 1 and Corollary 4, Appendix F.4, uses the
diameter); δ and ω enter as natural logs (``log_delta``, ``log_omega``) because purification uses log(1/δ) in the
hundreds to millions.  Where the paper is wrong, both versions are given, suffixed ``_as_printed`` and ``_corrected``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad
from scipy.optimize import linprog
from scipy.special import erfcx, gammaincc, gammaln

from dplab.checks import (
    as_finite_array,
    matching_length,
    non_negative_finite,
    positive_finite,
    probability,
    real_number,
    require,
    size_that_fits,
    whole_number,
)

__all__ = [
    "lemma25_step_size",
    "example8_quantile_1d",
    "example8_sample_points",
    "check_log_probability",
    "purification_shift",
    "purification_laplace_scale",
    "purified_epsilon",
    "utility_l1_bound_as_printed",
    "utility_lq_bound_corrected",
    "lq_ball_volume_corrected",
    "lq_ball_volume_as_printed",
    "lemma6_w_inf_bound",
    "example8_quantities",
    "w_inf_1d",
    "corollary4_parameters",
    "zcdp_epsilon",
    "lemma25_schedule",
    "sigma_for_schedule",
    "tight_rho",
    "lemma19_parameters",
    "lemma19_gradient_count_as_printed",
    "tradeoff_function",
    "tradeoff_crossing_alpha",
    "folklore_epsilon",
    "theorem2_log_delta_threshold",
    "theorem2_success_bound",
    "algorithm12_log_delta_as_printed",
    "table1_rates",
    "table2_rates",
    "lemma26_rho_as_printed",
    "convex_sgd_bound",
    "convex_sgd_bound_as_printed",
    "theorem9_log_delta_upper_as_printed",
    "theorem9_proof_shift",
    "theorem9_shift_requirement",
    "algorithm2_shift_as_printed",
    "algorithm2_shift_corrected",
    "algorithm7_shift",
    "algorithm11_shift",
    "algorithm13_shift",
    "appendix_d_grid_side",
    "appendix_d_epsilon_bound",
    "mixed_worst_pair_epsilon",
    "laplace_l1_tail",
    "lemma48_threshold",
    "laplace_l2_mean",
    "algorithm11_bound_log_failure",
    "lemma14_min_tv",
]


def check_log_probability(name: str, log_value: float, *, allow_one: bool = False) -> float:
    """``log_value`` as a float after checking it is the log of a probability in (0, 1) (or (0, 1] if allowed).

    The message names the probability (``name``) and its value, e.g. "delta: log_delta=0.0 (delta=1) must satisfy
    0 < delta < 1".
    """
    value = real_number(f"{name}: log_{name}", log_value)
    upper_ok = value <= 0 if allow_one else value < 0
    if math.isnan(value) or value == -math.inf or not upper_ok:
        allowed = "0 < {0} <= 1" if allow_one else "0 < {0} < 1"
        shown = "nan" if math.isnan(value) else f"{math.exp(min(value, 709.0)):.6g}"
        raise ValueError(f"{name}: log_{name}={value!r} ({name}={shown}) must satisfy {allowed.format(name)}")
    return value


def _q_exponent(q: float) -> float:
    """1 − 1/q (1 for q = ∞); q must be ≥ 1."""
    q = real_number("q", q)
    if not q >= 1:  # NaN fails too
        raise ValueError(f"q={q!r} must satisfy q >= 1 (or be inf)")
    return 1.0 if math.isinf(q) else 1.0 - 1.0 / q


def purification_shift(d: int, q: float, diameter: float, log_delta: float, log_omega: float) -> float:
    """Δ = 2·d^{1−1/q}·R·(δ/(2ω))^{1/d} (Algorithm 1, line 1; R the ℓ_q diameter of Θ).

    By Lemma 6 (ball case, eq. (4)) the mixed outputs are within W∞^{ℓq} ≤ 2R(δ/2ω)^{1/d} of an ε-indistinguishable
    pair, and ‖·‖₁ ≤ d^{1−1/q}‖·‖_q.  Computed as exp((log δ − log 2 − log ω)/d), so δ may underflow.
    """
    whole_number("d", d)
    positive_finite("diameter", diameter)
    log_delta = check_log_probability("delta", log_delta)
    log_omega = check_log_probability("omega", log_omega)
    return 2.0 * d ** _q_exponent(q) * diameter * math.exp((log_delta - math.log(2.0) - log_omega) / d)


def purification_laplace_scale(shift: float, epsilon_prime: float) -> float:
    """b = 2Δ/ε′ (Algorithm 1, line 3): Laplace^{⊗d}(b) turns W∞^{ℓ1} ≤ Δ into D∞ ≤ ε′/2 (Lemma 15)."""
    non_negative_finite("shift", shift)
    positive_finite("epsilon_prime", epsilon_prime)
    return 2.0 * shift / epsilon_prime


def purified_epsilon(epsilon: float, shift: float, laplace_scale: float) -> float:
    """ε_total = ε + 2Δ/b (Theorem 1 with Lemmas 15–16: ε′/2 + ε + ε′/2 for b = 2Δ/ε′)."""
    non_negative_finite("epsilon", epsilon)
    non_negative_finite("shift", shift)
    positive_finite("laplace_scale", laplace_scale)
    return float(epsilon) + 2.0 * shift / laplace_scale


def utility_l1_bound_as_printed(
    d: int, diameter: float, epsilon_prime: float, log_delta: float, log_omega: float
) -> float:
    """Theorem 1 as printed: E‖x_pure − x_apx‖₁ ≤ ωR + (4Rd/ε′)(δ/2ω)^{1/d} (erratum: valid for q = 1 only)."""
    whole_number("d", d)
    positive_finite("diameter", diameter)
    positive_finite("epsilon_prime", epsilon_prime)
    log_delta = check_log_probability("delta", log_delta)
    log_omega = check_log_probability("omega", log_omega)
    return math.exp(log_omega) * diameter + 4.0 * diameter * d / epsilon_prime * math.exp(
        (log_delta - math.log(2.0) - log_omega) / d
    )


def utility_lq_bound_corrected(
    d: int, q: float, diameter: float, epsilon_prime: float, log_delta: float, log_omega: float
) -> float:
    """E‖x_pure − x_apx‖_q ≤ ωR + c_{d,q}·b with b = 2Δ/ε′ (proof of Theorem 1, eqs. (5)–(7); App. D for q = ∞).

    c_{d,q} = (d·Γ(q+1))^{1/q} bounds E‖Lap^{⊗d}(1)‖_q by Jensen (E|z|^q = Γ(q+1)); for q = ∞, c = H_d = Σ_{k≤d} 1/k
    (E max_i |z_i| for i.i.d. Exp(1)).  Equals the printed ℓ1 bound when q = 1.
    """
    whole_number("d", d)
    b = purification_laplace_scale(purification_shift(d, q, diameter, log_delta, log_omega), epsilon_prime)
    if math.isinf(q):
        constant = float(np.sum(1.0 / np.arange(1, d + 1)))
    else:
        constant = math.exp((math.log(d) + gammaln(q + 1.0)) / q)
    return math.exp(log_omega) * diameter + constant * b


def lq_ball_volume_corrected(d: int, q: float) -> float:
    """Vol(𝔹_q^d(1)) = (2Γ(1 + 1/q))^d / Γ(1 + d/q) (q = ∞ gives 2^d; corrects
    the product formula printed in Lemma 6)."""
    whole_number("d", d)
    _q_exponent(q)
    if math.isinf(q):
        return 2.0**d
    return math.exp(d * (math.log(2.0) + gammaln(1.0 + 1.0 / q)) - gammaln(1.0 + d / q))


def lq_ball_volume_as_printed(d: int, q: float) -> float:
    """Lemma 6's printed formula 2^d/Γ(1 + d/q)·∏_{i=1}^{d} Γ(1 + 1/q)/Γ(1 + i/q) (erratum: wrong)."""
    whole_number("d", d)
    _q_exponent(q)
    i = np.arange(1, d + 1)
    return math.exp(
        d * math.log(2.0) - gammaln(1.0 + d / q) + float(np.sum(gammaln(1.0 + 1.0 / q) - gammaln(1.0 + i / q)))
    )


def lemma6_w_inf_bound(
    tv: float, p_min_volume: float, d: int, *, inner_radius: float = 1.0, diameter: float = 2.0, ball: bool = True
) -> float:
    """The smallest Δ that Lemma 6 certifies: W∞^{ℓq}(μ, ν) ≤ Δ when d_TV < p_min·Vol(𝔹_q(1))·(r/(4R))^d·Δ^d.

    ``p_min_volume`` = p_min·Vol(𝔹_q^d(1)); general convex Θ (diameter R, inner radius r): Δ = (4R/r)(tv/p_min_volume)^{1/d};
    ball case (eq. (4)): the factor (r/4R)^d becomes (1/4)^d, so Δ = 4(tv/p_min_volume)^{1/d}.
    """
    probability("tv", tv, allow_zero=True, allow_one=True)
    positive_finite("p_min_volume", p_min_volume)
    whole_number("d", d)
    positive_finite("inner_radius", inner_radius)
    positive_finite("diameter", diameter)
    base = (tv / p_min_volume) ** (1.0 / d)
    return 4.0 * base if ball else 4.0 * diameter / inner_radius * base


def example8_quantities(delta_tilde: float, d: int) -> dict[str, float]:
    """Example 8 on the unit ℓ_q ball: μ = Δ̃^d·δ_0 + (1 − Δ̃^d)·Unif(𝔹(1)∖𝔹(Δ̃)), ν = Unif(𝔹(1)).

    d_TV = Δ̃^d and W∞ = Δ̃ exactly; Lemma 6 (p_min = 1/Vol, r = 1, R = 2) certifies 8Δ̃ (general) and 4Δ̃ (ball).
    """
    probability("delta_tilde", delta_tilde)
    whole_number("d", d)
    tv = delta_tilde**d
    return {
        "tv_distance": tv,
        "w_inf": delta_tilde,
        "lemma6_bound_general": lemma6_w_inf_bound(tv, 1.0, d, inner_radius=1.0, diameter=2.0, ball=False),
        "lemma6_bound_ball": lemma6_w_inf_bound(tv, 1.0, d, ball=True),
    }


def example8_quantile_1d(delta_tilde: float):
    """Quantile function t ↦ F_μ^{-1}(t) of Example 8 in 1-D, μ = Δ̃·δ_0 + (1 − Δ̃)·Unif([−1, 1]∖(−Δ̃, Δ̃)): linear
    from −1 to −Δ̃ on t < (1 − Δ̃)/2, the atom 0 on the next Δ̃ of mass, then linear from Δ̃ to 1."""
    delta_tilde = probability("delta_tilde", delta_tilde)
    lower = (1 - delta_tilde) / 2

    def quantile(t: np.ndarray) -> np.ndarray:
        return np.where(
            t < lower,
            -1 + t / lower * (1 - delta_tilde),
            np.where(
                t <= lower + delta_tilde, 0.0, delta_tilde + (t - lower - delta_tilde) / lower * (1 - delta_tilde)
            ),
        )

    return quantile


def example8_sample_points(delta_tilde: float, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``m`` points of each law of Example 8 in (ℝ², ℓ2), as (m, 2) arrays (ν, μ): ν = Unif(unit disk) and
    μ = Δ̃²·δ_0 + (1 − Δ̃²)·Unif(annulus Δ̃ ≤ ‖x‖ ≤ 1), radii by inverting the area (r = √U, r = √(Δ̃² + U(1 − Δ̃²)));
    drawn in the order ν's angles, ν's radii, μ's atom indicators, μ's radii, μ's angles."""
    delta_tilde = probability("delta_tilde", delta_tilde)
    m = size_that_fits("m", m, 120, "the angles, radii and (m, 2) points of both laws")
    angle_nu, radius_nu = rng.uniform(0, 2 * np.pi, m), np.sqrt(rng.random(m))
    at_origin = rng.random(m) < delta_tilde**2
    radius_mu = np.where(at_origin, 0.0, np.sqrt(delta_tilde**2 + rng.random(m) * (1 - delta_tilde**2)))
    angle_mu = rng.uniform(0, 2 * np.pi, m)
    nu = np.column_stack([radius_nu * np.cos(angle_nu), radius_nu * np.sin(angle_nu)])
    mu = np.column_stack([radius_mu * np.cos(angle_mu), radius_mu * np.sin(angle_mu)])
    return nu, mu


def w_inf_1d(quantile_mu, quantile_nu, n_levels: int = 200001) -> float:
    """W∞(μ, ν) = sup_t |F_μ^{-1}(t) − F_ν^{-1}(t)| for laws on ℝ, on a midpoint grid of n_levels levels t ∈ (0, 1)."""
    whole_number("n_levels", n_levels)
    t = (np.arange(n_levels) + 0.5) / n_levels
    return float(np.max(np.abs(quantile_mu(t) - quantile_nu(t))))


def corollary4_parameters(n: int, d: int, diameter: float, epsilon: float) -> dict[str, float]:
    """Corollary 4: Θ an ℓ2 ball of diameter C, ω = 1/n², δ = 2ω/(16Cdn²)^d, ε′ = ε.

    Returns log_delta, log_omega, shift Δ = 1/(8√d n²), laplace_scale b = 2Δ/ε and the stated utility bound
    1/(n²ε) + C/n² (with the intermediate √(2d)·b + ωC, Lemma 27).
    """
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("diameter", diameter)
    positive_finite("epsilon", epsilon)
    log_omega = -2.0 * math.log(n)
    log_delta = math.log(2.0) + log_omega - d * math.log(16.0 * diameter * d * n**2)
    shift = purification_shift(d, 2.0, diameter, log_delta, log_omega)
    b = purification_laplace_scale(shift, epsilon)
    return {
        "log_delta": log_delta,
        "log_omega": log_omega,
        "shift": shift,
        "laplace_scale": b,
        "bound_intermediate": math.sqrt(2 * d) * b + diameter / n**2,
        "bound_stated": 1.0 / (n**2 * epsilon) + diameter / n**2,
    }


def zcdp_epsilon(rho: float, log_inv_delta: float) -> float:
    """ρ-zCDP ⇒ (ρ + 2√(ρ log(1/δ)), δ)-DP (Lemma 22; Bun and Steinke 2016, Prop. 1.3)."""
    non_negative_finite("rho", rho)
    positive_finite("log_inv_delta", log_inv_delta)
    return rho + 2.0 * math.sqrt(rho * log_inv_delta)


def lemma25_schedule(
    n: int, d: int, epsilon: float, log_inv_delta: float, diameter: float, lipschitz: float
) -> dict[str, float]:
    """Lemma 25 (DP-SGD for convex ERM, Algorithm 3): γ = 2√(d log(1/δ))/(n√ε), σ² = 416L² log(1/δ)/ε,
    T = n²ε²/(d log(1/δ)), η = √(C²/(T𝒢²)) with 𝒢² = n²L² + dσ²/γ² + nL²/γ (``gradient_second_moment``), ρ = 13γ²TL²/(2σ²) (Lemma 26, T not T²),
    the (ε_dp, δ) it certifies through Lemma 22 (≈ ε/2: the schedule is conservative, our own finding), the gradient
    count 𝒢 = nγT = 2n²ε^{3/2}/√(d log(1/δ)), and Corollary 24's order condition α* = 1 + √(log(1/δ)/ρ) ≤
    log(1/γ)/(4ρ₀) with ρ₀ = L²/(2σ²) (``alpha_star``, ``alpha_max``).
    """
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("epsilon", epsilon)
    positive_finite("log_inv_delta", log_inv_delta)
    positive_finite("diameter", diameter)
    positive_finite("lipschitz", lipschitz)
    gamma = 2.0 * math.sqrt(d * log_inv_delta) / (n * math.sqrt(epsilon))
    sigma2 = 416.0 * lipschitz**2 * log_inv_delta / epsilon
    steps = n**2 * epsilon**2 / (d * log_inv_delta)
    g2 = n**2 * lipschitz**2 + d * sigma2 / gamma**2 + n * lipschitz**2 / gamma
    rho = 13.0 * gamma**2 * steps * lipschitz**2 / (2.0 * sigma2)
    return {
        "gradient_second_moment": g2,
        "gamma": gamma,
        "sigma": math.sqrt(sigma2),
        "steps": steps,
        "eta": math.sqrt(diameter**2 / (steps * g2)),
        "rho": rho,
        "epsilon_dp": zcdp_epsilon(rho, log_inv_delta),
        "gradient_calls": n * gamma * steps,
        "alpha_star": 1.0 + math.sqrt(log_inv_delta / rho),
        "alpha_max": math.log(1.0 / gamma) / (4.0 * lipschitz**2 / (2.0 * sigma2)),
    }


def lemma25_step_size(
    n: int, d: int, steps: float, gamma: float, sigma: float, lipschitz: float, diameter: float
) -> float:
    """η = √(C²/(T(n²L² + dσ²/γ² + nL²/γ))), Lemma 25's step size written for any (γ, T, σ) (at Lemma 25's own
    schedule it is ``lemma25_schedule``'s η)."""
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("steps", steps)
    positive_finite("gamma", gamma)
    positive_finite("sigma", sigma)
    positive_finite("lipschitz", lipschitz)
    positive_finite("diameter", diameter)
    return math.sqrt(diameter**2 / (steps * (n**2 * lipschitz**2 + d * sigma**2 / gamma**2 + n * lipschitz**2 / gamma)))


def sigma_for_schedule(gamma: float, steps: float, lipschitz: float, epsilon: float, log_inv_delta: float) -> float:
    """σ with the same accounting as Lemma 25 for any (γ, T): σ² = 104γ²TL² log(1/δ)/ε² (our
    'tuned' variant of the DP-ERM study, not in the paper)."""
    positive_finite("gamma", gamma)
    positive_finite("steps", steps)
    positive_finite("lipschitz", lipschitz)
    positive_finite("epsilon", epsilon)
    positive_finite("log_inv_delta", log_inv_delta)
    return math.sqrt(104.0 * gamma**2 * steps * lipschitz**2 * log_inv_delta / epsilon**2)


def tight_rho(epsilon: float, log_inv_delta: float) -> float:
    """The largest ρ with ρ + 2√(ρ log(1/δ)) ≤ ε: (√(log(1/δ) + ε) − √log(1/δ))²: the
    ρ at which Lemma 22 gives exactly ε (our 'tight' variant of Lemma 25's schedule, not in the paper)."""
    positive_finite("epsilon", epsilon)
    positive_finite("log_inv_delta", log_inv_delta)
    return (math.sqrt(log_inv_delta + epsilon) - math.sqrt(log_inv_delta)) ** 2


def lemma19_parameters(n: int, d: int, epsilon: float, diameter: float, lipschitz: float) -> dict[str, float]:
    """Lemma 19 (pure-DP Laplace noisy full-batch GD): Δ₁ = √d·L (ℓ1 sensitivity of the summed gradient),
    T = εnL/(Δ₁√d), per-coordinate Laplace scale Δ₁T/ε on the summed gradient, η = C/√(T(n²L² + 2dσ_L²)),
    gradient count nT = n²εL/(Δ₁√d) (corrected: Lemma 19 prints n²εL√d/Δ₁)."""
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("epsilon", epsilon)
    positive_finite("diameter", diameter)
    positive_finite("lipschitz", lipschitz)
    delta1 = math.sqrt(d) * lipschitz
    steps = epsilon * n * lipschitz / (delta1 * math.sqrt(d))
    scale = delta1 * steps / epsilon
    eta = diameter / math.sqrt(steps * (n**2 * lipschitz**2 + 2 * d * scale**2))
    return {"l1_sensitivity": delta1, "steps": steps, "laplace_scale": scale, "eta": eta, "gradient_count": n * steps}


def lemma19_gradient_count_as_printed(n: int, d: int, epsilon: float, lipschitz: float) -> float:
    """Lemma 19's printed count n²εL√d/Δ₁ (= n²ε for Δ₁ = √dL; erratum: the
    correct count is n²ε/d)."""
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("epsilon", epsilon)
    positive_finite("lipschitz", lipschitz)
    return n**2 * epsilon * lipschitz * math.sqrt(d) / (math.sqrt(d) * lipschitz)


def tradeoff_function(alpha: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    """f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} (Appendix B; Dong, Roth, Su 2022)."""
    as_finite_array(alpha, "alpha")
    require((np.asarray(alpha) >= 0) & (np.asarray(alpha) <= 1), "alpha", alpha, "0 <= alpha <= 1")
    non_negative_finite("epsilon", epsilon)
    probability("delta", delta, allow_zero=True, allow_one=True)
    alpha = np.asarray(alpha, float)
    return np.maximum.reduce(
        [np.zeros_like(alpha), 1 - delta - math.exp(epsilon) * alpha, math.exp(-epsilon) * (1 - delta - alpha)]
    )


def tradeoff_crossing_alpha(epsilon: float, delta: float, epsilon_prime: float) -> float:
    """α where f_{ε,δ} and f_{ε+ε′,0} cross: δ/(e^ε(e^{ε′} − 1)) (both on their steep branches; erratum: Appendix
    B's "f_{ε,δ} ≤ f_{ε+ε′,0}" is false pointwise, neither curve lies below the other)."""
    non_negative_finite("epsilon", epsilon)
    probability("delta", delta)
    positive_finite("epsilon_prime", epsilon_prime)
    return delta / (math.exp(epsilon) * math.expm1(epsilon_prime))


def folklore_epsilon(epsilon: float, delta: float, size: int, omega: float) -> float:
    """(1 − ω)M + ω·Unif(𝒴) on a finite 𝒴 is (ε + ln(1 + δ|𝒴|e^{−ε}/ω))-DP (Appendix C)."""
    non_negative_finite("epsilon", epsilon)
    probability("delta", delta, allow_zero=True)
    whole_number("size", size)
    probability("omega", omega)
    return epsilon + math.log1p(delta * size * math.exp(-epsilon) / omega)


def theorem2_log_delta_threshold(d: int, epsilon: float) -> float:
    """log of Theorem 2's threshold δ < ε^d/(2d)^{3d}: d log ε − 3d log(2d)."""
    whole_number("d", d)
    positive_finite("epsilon", epsilon)
    return d * math.log(epsilon) - 3 * d * math.log(2 * d)


def theorem2_success_bound(d: int) -> float:
    """Theorem 2: P[u_pure = u_apx] > 1 − 2^{−d} − (d/2)e^{−d}."""
    whole_number("d", d)
    return 1.0 - 2.0 ** (-d) - d / 2.0 * math.exp(-d)


def algorithm12_log_delta_as_printed(d: int, epsilon: float) -> float:
    """Algorithm 12's log(1/δ) = d·log(2d³/ε) (erratum: short of Theorem 2's
    requirement d·log(8d³/ε)); returns log δ."""
    whole_number("d", d)
    positive_finite("epsilon", epsilon)
    return -d * math.log(2 * d**3 / epsilon)


def table1_rates(
    n: float,
    d: float,
    epsilon: float,
    log_inv_delta: float,
    lam: float,
    k: float,
    log_universe: float,
    local_sensitivity: float,
) -> list[dict[str, object]]:
    """Table 1's rates (constants and logs dropped, L = C = 1) before and after purification, evaluated."""
    for name, value in (
        ("n", n),
        ("d", d),
        ("epsilon", epsilon),
        ("log_inv_delta", log_inv_delta),
        ("lam", lam),
        ("k", k),
        ("log_universe", log_universe),
        ("local_sensitivity", local_sensitivity),
    ):
        positive_finite(name, value)
    ne = n * epsilon
    return [
        {
            "problem": "DP-ERM",
            "mechanism": "Noisy-SGD (BST14)",
            "before": "sqrt(d log(1/delta))/(n eps)",
            "after": "d/(n eps) (Thm 3)",
            "before_value": math.sqrt(d * log_inv_delta) / ne,
            "after_value": d / ne,
        },
        {
            "problem": "DP-ERM (strongly convex)",
            "mechanism": "Noisy-SGD",
            "before": "d log(1/delta)/(lambda n^2 eps^2)",
            "after": "d^2/(lambda n^2 eps^2) (Thm 3)",
            "before_value": d * log_inv_delta / (lam * ne**2),
            "after_value": d**2 / (lam * ne**2),
        },
        {
            "problem": "DP-ERM (l1)",
            "mechanism": "DP-FW (TTZ14)",
            "before": "(log d)^(2/3) (log(1/delta))^(1/3)/(n eps)^(2/3)",
            "after": "sqrt(log d/(n eps)) (Thm 4)",
            "before_value": math.log(d) ** (2 / 3) * log_inv_delta ** (1 / 3) / ne ** (2 / 3),
            "after_value": math.sqrt(math.log(d) / ne),
        },
        {
            "problem": "Bounding local sensitivity",
            "mechanism": "PTR-type (KNRS13, DRE+20)",
            "before": "d^(1/2)(Delta_local + log(1/delta)/eps)/eps",
            "after": "d^(1/2) Delta_local/eps + d^(3/2)/eps^2 (Thm 5)",
            "before_value": math.sqrt(d) * (local_sensitivity + log_inv_delta / epsilon) / epsilon,
            "after_value": math.sqrt(d) * local_sensitivity / epsilon + d**1.5 / epsilon**2,
        },
        {
            "problem": "Mode release",
            "mechanism": "distance to instability (TS13)",
            "before": "log(1/delta)/eps",
            "after": "log|X|/eps (Thm 6)",
            "before_value": log_inv_delta / epsilon,
            "after_value": log_universe / epsilon,
        },
        {
            "problem": "Linear regression",
            "mechanism": "AdaSSP (Wan18)",
            "before": "min{sqrt(d log(1/delta))/(n eps), d log(1/delta)/(lambda_min n^2 eps^2)}",
            "after": "min{d/(n eps), d^2/(lambda_min n^2 eps^2)} (Thm 7)",
            "before_value": min(math.sqrt(d * log_inv_delta) / ne, d * log_inv_delta / (lam * ne**2)),
            "after_value": min(d / ne, d**2 / (lam * ne**2)),
        },
        {
            "problem": "Query release",
            "mechanism": "MWEM (HLM12)",
            "before": "(log k)^(1/2) (d log(1/delta))^(1/4)/sqrt(n eps)",
            "after": "(log k)^(1/3) d^(1/3)/(n eps)^(1/3) (Thm 8)",
            "before_value": math.sqrt(math.log(k)) * (d * log_inv_delta) ** 0.25 / math.sqrt(ne),
            "after_value": math.log(k) ** (1 / 3) * d ** (1 / 3) / ne ** (1 / 3),
        },
    ]


def table2_rates(n: float, d: float, epsilon: float) -> list[dict[str, object]]:
    """Table 2 (C = L = 1, up to logs): utility and runtime of the three pure-DP ERM methods, evaluated; plus the
    corrected runtime of Laplace noisy GD, n²ε/d (erratum: Table 2's n²ε ignores the 1/d of Lemma 19)."""
    for name, value in (("n", n), ("d", d), ("epsilon", epsilon)):
        positive_finite(name, value)
    ne = n * epsilon
    return [
        {
            "mechanism": "Laplace noisy GD",
            "reference": "Lemma 19",
            "utility": "d^(1/2)/(n eps)^(1/2)",
            "runtime": "n^2 eps",
            "utility_value": math.sqrt(d / ne),
            "runtime_value": n**2 * epsilon,
            "runtime_value_corrected": n**2 * epsilon / d,
        },
        {
            "mechanism": "Purified DP-SGD",
            "reference": "Alg. 4, Thm 3",
            "utility": "d/(n eps)",
            "runtime": "n^2 eps^(3/2) + d",
            "utility_value": d / ne,
            "runtime_value": n**2 * epsilon**1.5 + d,
            "runtime_value_corrected": n**2 * epsilon**1.5 + d,
        },
        {
            "mechanism": "Exponential mechanism",
            "reference": "BST14 Thm 3.4",
            "utility": "d/(n eps)",
            "runtime": "max(d^4 n^3, d^3 n^4 eps)",
            "utility_value": d / ne,
            "runtime_value": max(d**4 * n**3, d**3 * n**4 * epsilon),
            "runtime_value_corrected": max(d**4 * n**3, d**3 * n**4 * epsilon),
        },
    ]


def lemma26_rho_as_printed(gamma: float, steps: float, sigma: float, lipschitz: float) -> float:
    """Lemma 26's printed total zCDP ρ = 13L²γ²T²/(2σ²) (erratum: Corollary 24 composes T steps of
    13γ²ρ₀ with ρ₀ = L²/(2σ²), so ρ = 13L²γ²T/(2σ²), as Lemma 25 and the rest of Lemma 26's proof use)."""
    for name, value in (("gamma", gamma), ("steps", steps), ("sigma", sigma), ("lipschitz", lipschitz)):
        positive_finite(name, value)
    return 13.0 * lipschitz**2 * gamma**2 * steps**2 / (2.0 * sigma**2)


def convex_sgd_bound(diameter: float, steps: float, gradient_second_moment: float, eta: float) -> float:
    """C²/(Tη) + η𝒢², the bound on E[(1/T)Σ_t F(θ_t)] − F* of SGD with step η (proof of Lemma 25, second line;
    Garrigos and Gower 2023, Thm 9.6); at η = √(C²/(T𝒢²)) it equals 2√(C²𝒢²/T)."""
    for name, value in (("diameter", diameter), ("steps", steps), ("eta", eta)):
        positive_finite(name, value)
    positive_finite("gradient_second_moment", gradient_second_moment)
    return diameter**2 / (steps * eta) + eta * gradient_second_moment


def convex_sgd_bound_as_printed(diameter: float, steps: float, gradient_second_moment: float) -> float:
    """The proof of Lemma 25's third line: √(C²𝒢²/T) at η = √(C²/(T𝒢²)) (erratum: the minimum of C²/(Tη) + η𝒢²
    over η is twice this; the factor 2 disappears inside the lemma's O(·))."""
    for name, value in (("diameter", diameter), ("steps", steps)):
        positive_finite(name, value)
    positive_finite("gradient_second_moment", gradient_second_moment)
    return math.sqrt(diameter**2 * gradient_second_moment / steps)


def _log_log_8d(d: int) -> float:
    whole_number("d", d)
    return math.log(math.log(8.0 * d))


def theorem9_log_delta_upper_as_printed(n: int, d: int) -> float:
    """log of Theorem 9's printed upper limit on δ, 4n^{−d}log^{−2d}(8d) (main text; erratum: its restatement,
    Theorem 14, and the proof's choice ω = 1/8 give 1/(4n^d log^{2d}(8d)))."""
    whole_number("n", n)
    return math.log(4.0) - d * math.log(n) - 2 * d * _log_log_8d(d)


def theorem9_proof_shift(d: int, log_delta: float) -> float:
    """Δ = 8√d(δ/2ω)^{1/d} with ω = 1/8 (proof of Theorem 14: Lemma 6 for a general convex set with q = ∞,
    R = 2/√d, r = 1/√d, so d·2R²/r = 8√d)."""
    whole_number("d", d)
    log_delta = check_log_probability("delta", log_delta)
    return 8.0 * math.sqrt(d) * math.exp((log_delta + math.log(4.0)) / d)


def theorem9_shift_requirement(n: int, d: int) -> float:
    """The proof of Theorem 14 needs Δ ≤ 8√d/(n log²(8d)), which holds iff δ ≤ 1/(4n^d log^{2d}(8d))."""
    whole_number("n", n)
    whole_number("d", d)
    return 8.0 * math.sqrt(d) / (n * math.exp(2 * _log_log_8d(d)))


def algorithm2_shift_as_printed(d: int, log_delta: float) -> float:
    """Δ of Algorithm 2 as the proof of Theorem 2 (Appendix F.5) instantiates Algorithm 1: q = 1, "R = d/2" (the
    radius of the ℓ1 ball a + 𝔹₁(d/2) ⊇ [0, 1]^d) and ω = 2^{−d}: Δ = d(δ/2ω)^{1/d} (erratum: R is a diameter
    in Algorithm 1, and that ball's ℓ1 diameter is d)."""
    return purification_shift(d, 1.0, d / 2.0, log_delta, -d * math.log(2.0))


def algorithm2_shift_corrected(d: int, log_delta: float) -> float:
    """Δ = 2d(δ/2ω)^{1/d}, ω = 2^{−d}: Algorithm 1 on the cube [0, 1]^d read as the ℓ∞ ball of diameter 1 (Lemma 6,
    ball case, applies because the uniform mixing is on that same cube)."""
    return purification_shift(d, math.inf, 1.0, log_delta, -d * math.log(2.0))


def algorithm7_shift(n: int, k: int, l1_radius: float) -> dict[str, float]:
    """Algorithm 7, line 4: Algorithm 1 in ℝ^k on Θ = 𝔹₂^k(2‖𝒞‖₁) (diameter R = 4‖𝒞‖₁), ω = 1/n, δ = 2ω/(nk)^k;
    ``shift`` is Algorithm 1's Δ, ``stated`` Appendix I.3's Δ = 8‖𝒞‖₁/(n√k)."""
    whole_number("n", n)
    whole_number("k", k)
    positive_finite("l1_radius", l1_radius)
    log_omega = -math.log(n)
    log_delta = math.log(2.0) + log_omega - k * math.log(n * k)
    shift = purification_shift(k, 2.0, 4.0 * l1_radius, log_delta, log_omega)
    return {"shift": shift, "stated": 8.0 * l1_radius / (n * math.sqrt(k))}


def algorithm11_shift(d: int, diameter: float, epsilon: float) -> dict[str, float]:
    """Proof of Theorem 11 (Algorithm 11): ω = 1/100 ∧ 1/(Cε²), δ = 2ω/(16dCε)^d, q = 2, R = C; ``stated`` is its
    Δ = 1/(8√d ε); also returns its log δ and ω."""
    whole_number("d", d)
    positive_finite("diameter", diameter)
    positive_finite("epsilon", epsilon)
    log_omega = math.log(min(0.01, 1.0 / (diameter * epsilon**2)))
    log_delta = math.log(2.0) + log_omega - d * math.log(16.0 * d * diameter * epsilon)
    shift = purification_shift(d, 2.0, diameter, log_delta, log_omega)
    return {
        "shift": shift,
        "stated": 1.0 / (8.0 * math.sqrt(d) * epsilon),
        "log_delta": log_delta,
        "omega": math.exp(log_omega),
    }


def algorithm13_shift(n: int, d: int, radius: float) -> dict[str, float]:
    """Algorithm 13 (proof of Theorem 12): Θ = 𝔹₂^d(r̃) (diameter R = 2r̃), ω = 1/n², δ = 2ω/(16d^{3/2}r̃n²)^d;
    ``stated`` is its Δ = 1/(4n²d)."""
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("radius", radius)
    log_omega = -2.0 * math.log(n)
    log_delta = math.log(2.0) + log_omega - d * math.log(16.0 * d**1.5 * radius * n**2)
    shift = purification_shift(d, 2.0, 2.0 * radius, log_delta, log_omega)
    return {"shift": shift, "stated": 1.0 / (4.0 * n**2 * d)}


def appendix_d_grid_side(d: int, diameter: float, log_delta: float, log_omega: float) -> int:
    """K = 2⌊R/Δ⌋ cubes per side with Δ = 2R(δ/2ω)^{1/d}·log d (Appendix D's Δ-net of Θ′ = [0, R]^d); d ≥ 2 and
    Δ ≤ R, else the net is empty."""
    whole_number("d", d)
    require(d >= 2, "d", d, "d >= 2 (log d > 0)")
    positive_finite("diameter", diameter)
    log_delta = check_log_probability("delta", log_delta)
    log_omega = check_log_probability("omega", log_omega)
    side = 2 * math.floor(1.0 / (2.0 * math.exp((log_delta - math.log(2.0) - log_omega) / d) * math.log(d)))
    if side < 2:
        raise ValueError(f"Appendix D's net is empty at d={d}, log_delta={log_delta!r}: Delta > R")
    return side


def appendix_d_epsilon_bound(epsilon: float, log_delta: float, log_cells: float, log_omega: float) -> float:
    """Appendix C's folklore bound for the quantized mechanism of Appendix D: ε + ln(1 + δ|𝒴|e^{−ε}/ω) with
    |𝒴| = K^d cells (in log space: ``log_cells`` = d log K)."""
    non_negative_finite("epsilon", epsilon)
    non_negative_finite("log_cells", log_cells)
    log_delta = check_log_probability("delta", log_delta)
    log_omega = check_log_probability("omega", log_omega)
    return float(epsilon + np.logaddexp(0.0, log_delta + log_cells - epsilon - log_omega))


def mixed_worst_pair_epsilon(epsilon: float, log_delta: float, log_cells: float, log_omega: float) -> float:
    """Exact pure ε of (1 − ω)M + ω·Unif(𝒴) on a finite 𝒴 (Appendix C's folklore mixing) when M is the worst-case
    (ε, δ) pair P = (δ, ce^ε, c, 0), P′ = (0, c, ce^ε, δ), c = (1 − δ)/(1 + e^ε), on four distinct outputs:
    max{ln(1 + (1 − ω)δ|𝒴|/ω), ln(((1 − ω)ce^ε + u)/((1 − ω)c + u))} with u = ω/|𝒴| (the other outputs have ratio 1)."""
    non_negative_finite("epsilon", epsilon)
    log_delta = check_log_probability("delta", log_delta)
    log_omega = check_log_probability("omega", log_omega)
    require(
        math.isfinite(real_number("log_cells", log_cells)) and log_cells >= math.log(4.0),
        "log_cells",
        log_cells,
        "a finite log|Y| >= log 4 (four distinct outputs)",
    )
    log_keep, log_u = math.log1p(-math.exp(log_omega)), log_omega - log_cells
    atom = float(np.logaddexp(0.0, log_keep + log_delta - log_u))
    log_c = math.log1p(-math.exp(log_delta)) - float(np.logaddexp(0.0, epsilon))
    middle = float(np.logaddexp(log_keep + log_c + epsilon, log_u) - np.logaddexp(log_keep + log_c, log_u))
    return max(atom, middle)


def lemma48_threshold(k: int, zeta: float) -> float:
    """Lemma 48's bound on ‖X‖₁ for X ~ Lap^{⊗k}(1), exceeded with probability at most ζ: 2k + 2 log(1/ζ)
    (multiply by b for Lap(b))."""
    whole_number("k", k)
    probability("zeta", zeta)
    return 2.0 * k + 2.0 * math.log(1.0 / zeta)


def laplace_l1_tail(k: int, threshold: float) -> float:
    """P(‖X‖₁ ≥ t) for X ~ Lap^{⊗k}(1): ‖X‖₁ ~ Gamma(k, 1), so the regularised upper incomplete gamma Q(k, t)."""
    whole_number("k", k)
    non_negative_finite("threshold", threshold)
    return float(gammaincc(k, threshold))


def _laplace_square_mgf(t: float) -> float:
    """E exp(−t z²) for z ~ Lap(1): ∫₀^∞ e^{−x − t x²} dx = (√π/(2√t))·erfcx(1/(2√t))."""
    return math.sqrt(math.pi) / (2.0 * math.sqrt(t)) * float(erfcx(1.0 / (2.0 * math.sqrt(t))))


def laplace_l2_mean(d: int) -> float:
    """E‖Lap^{⊗d}(1)‖₂ by one quadrature: √x = (1/(2√π))∫₀^∞ (1 − e^{−tx}) t^{−3/2} dt, so
    E‖z‖₂ = (1/(2√π))∫₀^∞ (1 − M(t)^d) t^{−3/2} dt with M(t) = E e^{−t z₁²} (Lemma 27 bounds it by √(2d)).

    In s = log t the integrand is (1 − M^d)e^{−s/2}; it is integrated on [−25, 60], where M is accurate, plus the
    two tails in closed form: 1 − M^d = 2dt(1 + O(dt)) below (E z² = 2), giving 4d e^{s/2}, and M^d ≤ (√π e^{−30})^d
    above, giving 2e^{−s/2}."""
    whole_number("d", d)
    low, high = -25.0, 60.0

    def integrand(log_t: float) -> float:  # t = e^s, dt = t ds
        t = math.exp(log_t)
        return -math.expm1(d * math.log(_laplace_square_mgf(t))) * t**-0.5

    value, _ = quad(integrand, low, high, limit=200, epsabs=0.0, epsrel=1e-9)
    tails = 4.0 * d * math.exp(low / 2) + 2.0 * math.exp(-high / 2)
    return (value + tails) / (2.0 * math.sqrt(math.pi))


def algorithm11_bound_log_failure(log_delta: float) -> float:
    """log P(β̂ ≤ Δ_Local) for β̂ = Δ_Local + Lap(1/ε) + log(2/δ)/ε (Algorithm 11, line 1): the Laplace lower tail
    P(Lap(1) ≤ −log(2/δ)) = ½·δ/2, so log δ − log 4 (the proof of Theorem 11 writes δ)."""
    log_delta = check_log_probability("delta", log_delta)
    return log_delta - math.log(4.0)


def _probability_masses(name: str, value: np.ndarray) -> np.ndarray:
    """``value`` as a float64 array after checking every entry is a probability in [0, 1]."""
    masses = as_finite_array(value, name)
    require((masses >= 0) & (masses <= 1), name, masses, "probabilities in [0, 1]")
    return masses


def lemma14_min_tv(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """min t such that some ε-indistinguishable pair (P, P′) on the same finite support has d_TV(p, P) ≤ t and
    d_TV(q, P′) ≤ t (the quantity of Lemma 14, Dwork and Roth 2014, Lemma 3.17), as a linear programme.

    Variables (P, P′, u, u′, t) with u ≥ |p − P|, u′ ≥ |q − P′| entrywise, ½Σu ≤ t, ½Σu′ ≤ t,
    P ≤ e^ε P′, P′ ≤ e^ε P, ΣP = ΣP′ = 1, all ≥ 0."""
    p, q = _probability_masses("p", p), _probability_masses("q", q)
    matching_length("p", p, "q", q)
    non_negative_finite("epsilon", epsilon)
    m, e = p.size, math.exp(epsilon)
    eye, zero = np.eye(m), np.zeros((m, m))
    col = np.zeros((m, 1))
    rows = [
        np.hstack([eye, zero, -eye, zero, col]),  # P − u ≤ p
        np.hstack([-eye, zero, -eye, zero, col]),  # −P − u ≤ −p
        np.hstack([zero, eye, zero, -eye, col]),
        np.hstack([zero, -eye, zero, -eye, col]),
        np.hstack([eye, -e * eye, zero, zero, col]),  # P ≤ e^ε P′
        np.hstack([-e * eye, eye, zero, zero, col]),
        np.hstack([np.zeros(2 * m), 0.5 * np.ones(m), np.zeros(m), [-1.0]])[None, :],
        np.hstack([np.zeros(3 * m), 0.5 * np.ones(m), [-1.0]])[None, :],
    ]
    bounds_rhs = np.concatenate([p, -p, q, -q, np.zeros(2 * m), [0.0, 0.0]])
    equalities = np.vstack(
        [np.hstack([np.ones(m), np.zeros(3 * m + 1)]), np.hstack([np.zeros(m), np.ones(m), np.zeros(2 * m + 1)])]
    )
    cost = np.zeros(4 * m + 1)
    cost[-1] = 1.0
    result = linprog(cost, A_ub=np.vstack(rows), b_ub=bounds_rhs, A_eq=equalities, b_eq=[1.0, 1.0], method="highs")
    if not result.success:
        raise RuntimeError(f"Lemma 14 linear programme failed: {result.message}")
    return float(result.fun)
