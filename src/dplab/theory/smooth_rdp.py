"""Smooth Rényi DP of pre-processed pipelines: Hu, Sanyal, Schölkopf (2024), *Provable Privacy with Non-Private
Pre-Processing* (arXiv:2403.13041v1), Tables 1–3, Theorem 2, Theorem 7, Proposition 8, Lemma 2, Remark 1;
exact checks of Theorems 10 and 11 and of Lemma K (Davis–Kahan) as printed.

Conventions (the paper's, Sections 2-4): instance space the unit ball of ℝ^d, replace-one neighbours
S₁ = S ∪ {z₁}, S₂ = S ∪ {z₂}; L = μ = Δ_f = Δ_Q = 1 unless given (as in Table 2).
In Table 1 ``eps`` is a mechanism's *privacy parameter* (it sets the noise), not an (ε, δ) value.

Where the paper's statement and its proof disagree both variants exist and are labelled:
``variant="as_printed"`` (the theorem statement / table as printed) and ``variant="corrected"`` (what the proof
supports). All functions broadcast over numpy arrays and compute in float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq, minimize, minimize_scalar

from dplab.accounting.renyi import laplace_renyi
from dplab.checks import (
    as_finite_array,
    as_integer_array,
    as_non_negative_array,
    as_positive_array,
    as_real_array,
    choice,
    in_range,
    non_negative_finite,
    not_boolean,
    positive_finite,
    probability,
    real_number,
    renyi_orders,
    require,
    whole_number,
)
from dplab.preprocessing.steps import PREPROCESSING_STEPS

__all__ = [
    "THEOREM2_P_GRID",
    "preprocessing_sensitivity_bounds",
    "gaussian_sum_audit",
    "PCA_FROBENIUS_CONSTANT",
    "PCA_TAU_CONSTANT",
    "LinearInAlpha",
    "Mechanism",
    "gaussian_mechanism",
    "laplace_mechanism",
    "exponential_mechanism",
    "dp_gd_mechanism",
    "dp_sgd_sampling_mechanism",
    "dp_sgd_iteration_mechanism",
    "MECHANISMS",
    "factor_pq2",
    "rdp_to_dp_linear",
    "linear_rdp_coefficient_for_epsilon",
    "rdp_to_dp",
    "theorem2_rdp",
    "theorem2_rdp_pq2",
    "theorem2_rdp_separate_pq",
    "theorem2_dp_optimised",
    "dedup_sensitivity",
    "quantization_sensitivity",
    "mean_imputation_sensitivity",
    "median_imputation_sensitivity",
    "trimmed_mean_imputation_sensitivity",
    "linear_regression_imputation_sensitivity",
    "pca_covariance_perturbation_bound",
    "pca_rank_delta2",
    "pca_dim_delta2",
    "pca_tau",
    "table2_cell",
    "TABLE2_CELLS",
    "group_privacy_gaussian_dp",
    "group_privacy_gaussian_rdp",
    "group_privacy_pure_dp",
    "group_privacy_approximate_dp",
    "table2_gaussian_dp",
    "theorem7_rho",
    "theorem7_epsilon",
    "theorem7_epsilon_corrected",
    "theorem7_delta_condition",
    "prop8_failure_probability",
    "lemma2_subsampled_srdp",
    "remark1_factor",
    "dp_sgd_sampling_noise_multiplier",
    "theorem13_alpha_max",
    "parameter_for_epsilon",
    "lemma3_fgd_rdp",
    "theorem13_step_rdp",
    "dp_sgd_sampling_rdp_dp_accounting",
    "prop8_excess_risk_terms",
    "laplace_test_release_probability",
    "gaussian_mixture_renyi",
    "laplace_mechanism_divergence",
    "theorem7_step_a",
    "pca_mean_residual_norm",
    "equal_residual_dataset",
    "davis_kahan_bounds",
]

#: ‖Σ̃ − Σ‖_F ≤ 2(3n+2)/(n(n−1)) ≤ 6.1/n for n ≥ 101 (Prop. 5, eq. (41)).
PCA_FROBENIUS_CONSTANT = 6.1
#: τ_rank = n·Δ₂ = 4(3n+2)/((n−1)δ) ≤ 12.2/δ for n ≥ 101 (Prop. 5; Table 2 and Theorem 7).
PCA_TAU_CONSTANT = 12.2


def _order(alpha: ArrayLike) -> np.ndarray:
    array = as_real_array(alpha, "alpha")
    if not np.all(array > 1):
        raise ValueError(f"alpha={alpha!r} must be > 1 (Rényi order)")
    return array


# ----------------------------------------------------------------------------------------------------------------
# Table 1: RDP ε(α) and SRDP ε̃(α, τ) of the six mechanisms (Theorem 1, Theorems 9–14)
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinearInAlpha:
    """The coefficients of a mechanism whose RDP and SRDP are linear in the order α (Table 1 rows 1, 4 and 6):
    ε(α) = ``rdp``·α and ε̃(α, τ) = ``srdp``·τ²·α (both > 0 as arrays broadcasting against α and τ)."""

    rdp: np.ndarray
    srdp: np.ndarray


@dataclass(frozen=True)
class Mechanism:
    """A mechanism's RDP curve ``rdp(alpha)`` and SRDP curve ``srdp(alpha, tau)`` (Table 1), with its name and
    the symbolic formulas in plain Unicode text (α, ε², a/b). ``pure`` marks the ε-DP mechanisms (RDP constant in α);
    ``linear`` holds the coefficients of a mechanism linear in α: build those with :meth:`linear_in_alpha`, which
    derives both curves from the coefficients, so the curves and the coefficients cannot disagree."""

    name: str
    rdp: Callable[[np.ndarray], np.ndarray]
    srdp: Callable[[np.ndarray, np.ndarray], np.ndarray]
    rdp_formula: str
    srdp_formula: str
    pure: bool = False
    linear: LinearInAlpha | None = None

    @classmethod
    def linear_in_alpha(
        cls, name: str, rdp: np.ndarray, srdp: np.ndarray, rdp_formula: str, srdp_formula: str
    ) -> Mechanism:
        """The mechanism with RDP ``rdp``·α and SRDP ``srdp``·τ²·α, declared linear in α (:class:`LinearInAlpha`);
        ``rdp`` and ``srdp`` > 0."""
        rdp, srdp = as_positive_array(rdp, "rdp"), as_positive_array(srdp, "srdp")
        return cls(
            name,
            lambda a: np.asarray(a, float) * rdp,
            lambda a, t: np.asarray(a, float) * np.asarray(t, float) ** 2 * srdp,
            rdp_formula,
            srdp_formula,
            linear=LinearInAlpha(rdp, srdp),
        )


def gaussian_mechanism(eps: float, L: float = 1.0, sensitivity: float = 1.0) -> Mechanism:
    """Gaussian mechanism f(S) + N(0, Δ_f²/ε²) (Theorem 9, Table 1 row 1): RDP αε²/2, SRDP αL²τ²ε²/(2Δ_f²).

    Table 1's SRDP (with /Δ_f², the proof's last line) is used; erratum: the Theorem 9 statement omits
    /Δ_f².
    """
    e, lip, sens = (as_positive_array(v, k) for k, v in (("eps", eps), ("L", L), ("sensitivity", sensitivity)))
    return Mechanism.linear_in_alpha("gaussian", e**2 / 2, lip**2 * e**2 / (2 * sens**2), "αε²/2", "αL²τ²ε²/(2Δ_f²)")


def laplace_mechanism(eps: float, L: float = 1.0, sensitivity: float = 1.0) -> Mechanism:
    """Laplace mechanism f(S) + Lap(Δ_f/ε) (Theorem 10): RDP ε and SRDP Lτε/Δ_f for every α (pure DP)."""
    e, lip, sens = (as_positive_array(v, k) for k, v in (("eps", eps), ("L", L), ("sensitivity", sensitivity)))
    return Mechanism(
        "laplace",
        lambda a: np.broadcast_to(e, np.shape(a)).astype(float),
        lambda a, t: np.broadcast_to(
            lip * np.asarray(t, float) * e / sens, np.broadcast_shapes(np.shape(a), np.shape(t))
        ).astype(float),
        "ε",
        "Lτε/Δ_f",
        pure=True,
    )


def exponential_mechanism(eps: float, L: float = 1.0, sensitivity: float = 1.0) -> Mechanism:
    """Exponential mechanism Pr[w] ∝ exp(Q(w,S)ε/(2Δ_Q)) (Theorem 11): RDP ε, SRDP Lτε/Δ_Q (pure DP)."""
    base = laplace_mechanism(eps, L, sensitivity)
    return Mechanism("exponential", base.rdp, base.srdp, "ε", "Lτε/Δ_Q", pure=True)


def dp_gd_mechanism(eps: float, L: float = 1.0, mu: float = 1.0, variant: str = "corrected") -> Mechanism:
    """DP-GD with σ = L√T/(εn) (Theorem 12, Table 1 row 4): RDP 2αε², SRDP αμ²τ²ε²/(2L²).

    ``variant="as_printed"``: the Theorem 12 statement's RDP αε²/2; ``"corrected"`` (default): the proof and Table 1,
    2αε² (replace-one sensitivity 2L/n; the proof's text says L/n).
    """
    e, lip, m = as_positive_array(eps, "eps"), as_positive_array(L, "L"), as_positive_array(mu, "mu")
    coefficient = {"corrected": 2.0, "as_printed": 0.5}[_variant(variant)]
    return Mechanism.linear_in_alpha(
        "dp_gd",
        coefficient * e**2,
        m**2 * e**2 / (2 * lip**2),
        "2αε²" if variant == "corrected" else "αε²/2",
        "αμ²τ²ε²/(2L²)",
    )


def dp_sgd_sampling_mechanism(eps: float, L: float = 1.0, mu: float = 1.0, gamma: float = 1.0) -> Mechanism:
    """DP-SGD with subsampling (Theorem 13, Table 1 row 5): RDP α²ε²/2, SRDP αμ²τ²ε²γ²/(2L²), γ the inverse
    point-wise distance (Def. 7); γ = 1 for PCA (our derivation for Table 2's
    PCA row: every PCA-processed point moves by at most Δ₂ = τ/n, so k = n in Def. 7)."""
    e, lip, m, g = (as_positive_array(v, k) for k, v in (("eps", eps), ("L", L), ("mu", mu), ("gamma", gamma)))
    return Mechanism(
        "dp_sgd_sampling",
        lambda a: np.asarray(a, float) ** 2 * e**2 / 2,
        lambda a, t: np.asarray(a, float) * m**2 * np.asarray(t, float) ** 2 * e**2 * g**2 / (2 * lip**2),
        "α²ε²/2",
        "αμ²τ²ε²γ²/(2L²)",
    )


def dp_sgd_iteration_mechanism(
    eps: float, n: int, kappa: int, L: float = 1.0, mu: float = 1.0, variant: str = "corrected"
) -> Mechanism:
    """DP-SGD by iteration (Feldman et al. 2018; Theorem 14, Table 1 row 6), κ = κ_τ the τ-constrained maximum
    Hamming distance (Def. 8).

    - ``"corrected"`` (default): Table 1 with the ε² that Table 2 uses: RDP αε²/2, SRDP
      ατ²μ²ε² n log(n−κ+2)/(2(n−κ+1)L² log n).
    - ``"as_printed"``: Table 1/Theorem 14 literally, SRDP without ε² (erratum: Table 2 has it).
    - ``"exact"``: the constants of Lemma H and eq. (23): RDP αε²/32, SRDP with /32 instead of /2.
    """
    e, lip, m = as_positive_array(eps, "eps"), as_positive_array(L, "L"), as_positive_array(mu, "mu")
    not_boolean("n", n), not_boolean("kappa", kappa)
    if not (isinstance(n, (int, np.integer)) and isinstance(kappa, (int, np.integer)) and 1 <= kappa < n):
        raise ValueError(f"n={n!r}, kappa={kappa!r} must be integers with 1 <= kappa < n")
    if variant not in ("corrected", "as_printed", "exact"):
        raise ValueError(f"variant={variant!r} must be one of 'corrected', 'as_printed', 'exact'")
    denominator = 32.0 if variant == "exact" else 2.0
    eps_sq = 1.0 if variant == "as_printed" else e**2
    ratio = n * math.log(n - kappa + 2) / ((n - kappa + 1) * math.log(n))
    return Mechanism.linear_in_alpha(
        "dp_sgd_iteration",
        e**2 / denominator,
        m**2 * eps_sq * ratio / (denominator * lip**2),
        f"αε²/{denominator:g}",
        "ατ²μ²"
        + ("" if variant == "as_printed" else "ε²")
        + f"·n·log(n − κ_τ + 2)/({denominator:g}(n − κ_τ + 1)L²·log n)",
    )


def _variant(variant: str) -> str:
    if variant not in ("as_printed", "corrected"):
        raise ValueError(f"variant={variant!r} must be 'as_printed' or 'corrected'")
    return variant


MECHANISMS: dict[str, str] = {
    "gaussian": "Gaussian $\\mathcal M_G$",
    "laplace": "Laplace $\\mathcal M_L$",
    "exponential": "Exponential $\\mathcal M_E$",
    "dp_gd": "DP-GD $\\mathcal A_{GD}$",
    "dp_sgd_sampling": "DP-SGD, subsampling",
    "dp_sgd_iteration": "DP-SGD by iteration",
}


# ----------------------------------------------------------------------------------------------------------------
# RDP → (ε, δ) (Lemma M, Mironov 2017)
# ----------------------------------------------------------------------------------------------------------------


def factor_pq2(alpha: ArrayLike) -> np.ndarray:
    """(2α−1)/(2(α−1)): the Theorem-2 factor at p = q = 2 (eq. (43)); 1.05 at α = 11, decreasing in α."""
    a = _order(alpha)
    return (2 * a - 1) / (2 * (a - 1))


def rdp_to_dp_linear(c: ArrayLike, delta: float, alpha_min: float = 1.0) -> np.ndarray:
    """ε = min_{α ≥ α_min} cα + log(1/δ)/(α−1) for a linear RDP curve cα (Lemma M): α* = max(α_min,
    1 + √(log(1/δ)/c)); without a floor ε = c + 2√(c log(1/δ)). Broadcasts over ``c``."""
    cc = as_positive_array(c, "c")
    if not 0 < real_number("delta", delta) < 1:
        raise ValueError(f"delta={delta!r} must be in (0, 1)")
    log_inv = math.log(1 / delta)
    alpha = np.maximum(1 + np.sqrt(log_inv / cc), max(alpha_min, 1.0))
    return cc * alpha + log_inv / (alpha - 1)


def linear_rdp_coefficient_for_epsilon(epsilon: float, delta: float, alpha_min: float = 1.0) -> float:
    """The c with rdp_to_dp_linear(c, δ, α_min) = ε (the inverse; strictly increasing in c), or ValueError if ε is
    below the infimum over c > 0 (only possible with a floor α_min > 1: never, as ε → 0 when c → 0)."""
    as_positive_array(epsilon, "epsilon")
    probability("delta", delta)
    log_inv = math.log(1 / delta)
    root = math.sqrt(epsilon + log_inv) - math.sqrt(log_inv)  # unfloored closed form: (√c + √L)² = ε + L
    c_unfloored = root**2
    if 1 + math.sqrt(log_inv / c_unfloored) >= alpha_min:
        return c_unfloored
    return brentq(
        lambda c: float(rdp_to_dp_linear(c, delta, alpha_min)) - epsilon, 1e-300, c_unfloored, xtol=1e-300, rtol=1e-14
    )


def rdp_to_dp(
    rdp: Callable[[np.ndarray], np.ndarray], delta: float, alpha_min: float = 1.0 + 1e-9, alpha_max: float = 1e6
) -> tuple[float, float]:
    """(ε, α*) = min over α ∈ [α_min, α_max] of rdp(α) + log(1/δ)/(α−1) (Lemma M), by a log-grid then a bounded
    scalar refinement in log(α−1)."""
    probability("delta", delta)
    in_range("alpha_min", alpha_min, 1.0, math.inf, low_open=True, high_open=True)
    in_range("alpha_max", alpha_max, alpha_min, math.inf, low_open=True, high_open=True)
    log_inv = math.log(1 / delta)
    lo, hi = math.log(alpha_min - 1), math.log(alpha_max - 1)
    grid = np.linspace(lo, hi, 2001)
    values = np.asarray(rdp(1 + np.exp(grid)), float) + log_inv / np.exp(grid)
    i = int(np.argmin(values))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    if a == b:
        return float(values[i]), float(1 + math.exp(grid[i]))
    result = minimize_scalar(
        lambda u: float(rdp(np.asarray(1 + math.exp(u)))) + log_inv / math.exp(u),
        bounds=(a, b),
        method="bounded",
        options={"xatol": 1e-12},
    )
    if result.fun < values[i]:
        return float(result.fun), float(1 + math.exp(result.x))
    return float(values[i]), float(1 + math.exp(grid[i]))


# ----------------------------------------------------------------------------------------------------------------
# Theorem 2 (weak triangle inequality, Lemma J)
# ----------------------------------------------------------------------------------------------------------------


def theorem2_rdp(
    mechanism: Mechanism, alpha: ArrayLike, tau: ArrayLike, p: ArrayLike, q: ArrayLike | None = None
) -> np.ndarray:
    """Theorem 2, eq. (3): ε̂(α) ≤ max{ (αp−1)/(p(α−1))·ε̃(αp, τ) + ε((pα−1)/(p−1)),
    (αq−1)/(q(α−1))·ε(αq) + ε̃((qα−1)/(q−1), τ) }, for α > 1, p, q > 1 (q = p by default), τ = Δ₂Δ_∞.

    Pure mechanisms (constant in α) use the α → ∞ limit ε̃(∞, τ) + ε(∞) (eqs. (44)–(45)), whatever p, q.
    """
    a = _order(alpha)
    t = as_non_negative_array(tau, "tau")
    pp = as_real_array(p, "p")
    qq = pp if q is None else as_real_array(q, "q")
    if not (np.all(pp > 1) and np.all(qq > 1)):
        raise ValueError(f"p={p!r}, q={q!r} must be > 1 (Lemma J)")
    if mechanism.pure:
        return mechanism.srdp(a, t) + mechanism.rdp(a)
    return np.maximum(*_theorem2_terms(mechanism, a, t, pp, qq))


def _theorem2_terms(
    mechanism: Mechanism, a: np.ndarray, t: np.ndarray, p: np.ndarray, q: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The two terms of eq. (3): the bound on D_α(A∘π(S₁) ‖ A∘π(S₂)) at exponent p (eq. (30)) and on the reverse
    direction at exponent q (eq. (31))."""
    forward = (a * p - 1) / (p * (a - 1)) * mechanism.srdp(a * p, t) + mechanism.rdp((p * a - 1) / (p - 1))
    backward = (a * q - 1) / (q * (a - 1)) * mechanism.rdp(a * q) + mechanism.srdp((q * a - 1) / (q - 1), t)
    return forward, backward


#: log(p − 1) grid on which :func:`_theorem2_rdp_separate_pq_numerical` brackets each term's minimum over its exponent
#: (p − 1 from e⁻³⁰ ≈ 1e-13, still distinct from 1 in float64, to e³⁰), before a golden-section refinement.
_LOG_EXPONENT_GRID = np.linspace(-30.0, 30.0, 241)
_GOLDEN_STEPS = 60


def theorem2_rdp_separate_pq(mechanism: Mechanism, alpha: ArrayLike, tau: ArrayLike) -> np.ndarray:
    """Theorem 2 (eq. (3)) with p and q chosen separately, each term of the max with its own exponent:
    max{inf_p first(p), inf_q second(q)}.

    The statement holds "for all p, q ≥ 1" and its proof bounds the two directions apart (eq. (30) for any p > 1,
    eq. (31) for any q > 1), so each term may take its own exponent, and each divergence is at most its term's
    infimum over the admissible exponents: a valid bound.

    - Mechanisms linear in α (``mechanism.linear``: RDP aα, SRDP bα with b = ``srdp``·τ²; Gaussian: a = ε²/2,
      b = τ²ε²/2; DP-GD; DP-SGD by iteration), in closed form α(√a + √b)². With s = p − 1 > 0 the first term is
      (α − 1 + αs)(bα/(α − 1) + a/s) = α(a + b) + a(α − 1)/s + α²bs/(α − 1), whose minimum over s (AM–GM) is
      α(a + b + 2√(ab)), at p − 1 = √(a/b)(α−1)/α; the second is the same with a and b swapped, minimal at
      q − 1 = √(b/a)(α−1)/α. Both exponents are admissible (> 1) when a, b > 0. At τ = 0 (b = 0) the infimum αa
      is the limit p → ∞ (first term), q → 1 (second), not attained: still a bound, the mechanism's own RDP. For the
      Gaussian α(1 + τ)²ε²/2, the Rényi divergence of a shift by Δ_f + Lτ, where one exponent p = q gives at best
      αε²(1 + τ²) (at p − 1 = (α−1)/α).
    - Pure mechanisms: as :func:`theorem2_rdp` (the α → ∞ limit, whatever p, q).
    - Others: numerically (:func:`_theorem2_rdp_separate_pq_numerical`).

    Broadcasts over ``alpha`` and ``tau``.
    """
    a = _order(alpha)
    t = as_non_negative_array(tau, "tau")
    if mechanism.pure:
        return theorem2_rdp(mechanism, a, t, 2.0)
    if mechanism.linear is not None:
        return a * (np.sqrt(mechanism.linear.rdp) + t * np.sqrt(mechanism.linear.srdp)) ** 2
    return _theorem2_rdp_separate_pq_numerical(mechanism, a, t)


def _theorem2_rdp_separate_pq_numerical(mechanism: Mechanism, a: np.ndarray, t: np.ndarray) -> np.ndarray:
    """:func:`theorem2_rdp_separate_pq` by numerical minimisation, for orders ``a`` > 1 and ``t`` ≥ 0 (checked by
    the caller): each term's smallest value on :data:`_LOG_EXPONENT_GRID`, refined by golden-section search in
    log(p − 1) between its grid neighbours."""
    a, t = (v[..., None] for v in np.broadcast_arrays(a, t))

    def terms(u: np.ndarray, v: np.ndarray) -> list[np.ndarray]:
        values = _theorem2_terms(mechanism, a, t, 1 + np.exp(u), 1 + np.exp(v))
        return [np.where(np.isnan(x), np.inf, x) for x in values]

    grid = _LOG_EXPONENT_GRID
    on_grid = terms(grid, grid)
    best = [x.min(axis=-1, keepdims=True) for x in on_grid]
    at = [np.argmin(x, axis=-1)[..., None] for x in on_grid]
    low = [grid[np.maximum(i - 1, 0)] for i in at]
    high = [grid[np.minimum(i + 1, grid.size - 1)] for i in at]
    shrink = (math.sqrt(5) - 1) / 2
    for _ in range(_GOLDEN_STEPS):
        inner = [h - shrink * (h - lo) for lo, h in zip(low, high)]
        outer = [lo + shrink * (h - lo) for lo, h in zip(low, high)]
        at_inner, at_outer = terms(*inner), terms(*outer)
        for k in range(2):
            left = at_inner[k] < at_outer[k]
            high[k] = np.where(left, outer[k], high[k])
            low[k] = np.where(left, low[k], inner[k])
            best[k] = np.minimum(best[k], np.minimum(at_inner[k], at_outer[k]))
    return np.maximum(*best)[..., 0]


def theorem2_rdp_pq2(mechanism: Mechanism, alpha: ArrayLike, tau: ArrayLike, variant: str = "corrected") -> np.ndarray:
    """The p = q = 2 instantiation with monotonicity (Sec. 4.2): (2α−1)/(2(α−1))·(ε̃(2α, τ) + ε(2α)).

    ``variant="as_printed"`` replaces the factor by the paper's 1.05 (valid only for α ≥ 11; ValueError otherwise).
    """
    a = _order(alpha)
    as_non_negative_array(tau, "tau")
    if mechanism.pure:
        return mechanism.srdp(a, tau) + mechanism.rdp(a)
    if _variant(variant) == "as_printed":
        if np.any(a < 11):
            raise ValueError(f"alpha={alpha!r}: the factor 1.05 needs alpha >= 11")
        factor = 1.05
    else:
        factor = factor_pq2(a)
    return factor * (mechanism.srdp(2 * a, tau) + mechanism.rdp(2 * a))


def theorem2_dp_optimised(
    mechanism: Mechanism, tau: float, delta: float, separate_pq: bool = False
) -> dict[str, float]:
    """min over α > 1 and p (= q, or p and q separately) of Theorem 2's ε̂(α) + log(1/δ)/(α−1) (Lemma M).

    A mechanism linear in α (``mechanism.linear``: RDP aα, SRDP bα) has it in closed form
    (:func:`_theorem2_dp_linear`); any other is optimised in the unconstrained variables u = log(α−1), v = log(p−1)
    (w = log(q−1)) by Nelder–Mead from a small grid of starts (:func:`_theorem2_dp_numerical`). Returns ε, α, p, q.
    """
    as_non_negative_array(tau, "tau")
    probability("delta", delta)
    log_inv = math.log(1 / delta)
    if mechanism.linear is not None:
        return _theorem2_dp_linear(mechanism.linear, float(tau), log_inv, separate_pq)
    return _theorem2_dp_numerical(mechanism, tau, log_inv, separate_pq)


def _theorem2_dp_linear(linear: LinearInAlpha, tau: float, log_inv: float, separate_pq: bool) -> dict[str, float]:
    """Theorem 2 with Lemma M in closed form for RDP aα and SRDP bα (b = ``srdp``·τ²).

    Eq. (3)'s terms at s = p − 1 are α(a + b) + a(α−1)/s + α²bs/(α−1) and the same with a and b swapped. With
    p = q they cross at s = (α−1)/α, where both equal 2α(a + b), and each is monotone on the side where it is the
    larger (its own minimiser lies on the other side), so their maximum is smallest there: ε̂(α) = 2α(a + b). With p
    and q apart each term takes its own minimum, α(√a + √b)², at p − 1 = √(a/b)(α−1)/α and q − 1 = √(b/a)(α−1)/α
    (p = ∞ at τ = 0: the infimum, approached as p → ∞). Either way ε̂(α) = cα, and Lemma M's
    min over α of cα + log(1/δ)/(α−1) is c + 2√(c log(1/δ)), at α = 1 + √(log(1/δ)/c)."""
    a, b = float(linear.rdp), float(linear.srdp) * tau**2
    slope = (math.sqrt(a) + math.sqrt(b)) ** 2 if separate_pq else 2 * (a + b)
    alpha = 1 + math.sqrt(log_inv / slope)
    shrink = (alpha - 1) / alpha
    if separate_pq:
        p = 1 + math.sqrt(a / b) * shrink if b > 0 else math.inf
        q = 1 + math.sqrt(b / a) * shrink
    else:
        p = q = 1 + shrink
    return {"epsilon": slope + 2 * math.sqrt(slope * log_inv), "alpha": alpha, "p": p, "q": q}


def _theorem2_dp_numerical(mechanism: Mechanism, tau: float, log_inv: float, separate_pq: bool) -> dict[str, float]:
    """:func:`theorem2_dp_optimised` by Nelder–Mead in u = log(α−1), v = log(p−1) (w = log(q−1)), from a small grid
    of starts."""

    def objective(x: np.ndarray) -> float:
        alpha, p = 1 + math.exp(x[0]), 1 + math.exp(x[1])
        q = 1 + math.exp(x[2]) if separate_pq else p
        value = float(theorem2_rdp(mechanism, alpha, tau, p, q)) + log_inv / (alpha - 1)
        return value if math.isfinite(value) else 1e300

    best = None
    for u0 in (-2.0, 0.0, 2.0):
        for v0 in (-2.0, 0.0, 1.0):
            start = [u0, v0, v0] if separate_pq else [u0, v0]
            result = minimize(
                objective,
                start,
                method="Nelder-Mead",
                options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000, "maxfev": 8000},
            )
            if best is None or result.fun < best.fun:
                best = result
    x = best.x
    p = 1 + math.exp(x[1])
    return {
        "epsilon": float(best.fun),
        "alpha": 1 + math.exp(x[0]),
        "p": p,
        "q": 1 + math.exp(x[2]) if separate_pq else p,
    }


# ----------------------------------------------------------------------------------------------------------------
# Sensitivities of pre-processing (Prop. 3, Cor. 4, Prop. 5, Prop. 15, Table 3)
# ----------------------------------------------------------------------------------------------------------------


def dedup_sensitivity(max_cluster_size: int, neighbours: str = "replace") -> tuple[float, int]:
    """(Δ₂, Δ_∞) of η-approximate deduplication (Prop. 3): (1, 2·max|B|); footnote 4: (1, max|B|) for add/remove."""
    size = _cluster_size(max_cluster_size)
    return 1.0, (2 * size if _neighbours(neighbours) == "replace" else size)


def quantization_sensitivity(eta: float, max_cluster_size: int, neighbours: str = "replace") -> tuple[float, int]:
    """(Δ₂, Δ_∞) of η-quantization (Prop. 3): (η, 2·max|B|); (η, max|B|) for add/remove (footnote 4)."""
    e = float(as_positive_array(eta, "eta"))
    size = _cluster_size(max_cluster_size)
    return e, (2 * size if _neighbours(neighbours) == "replace" else size)


def _cluster_size(size: int) -> int:
    if not isinstance(not_boolean("max_cluster_size", size), (int, np.integer)) or size < 1:
        raise ValueError(f"max_cluster_size={size!r} must be an integer >= 1")
    return int(size)


def _neighbours(neighbours: str) -> str:
    if neighbours not in ("replace", "add_remove"):
        raise ValueError(f"neighbours={neighbours!r} must be 'replace' or 'add_remove'")
    return neighbours


def _missing(n: int, p: int) -> None:
    not_boolean("n", n), not_boolean("p", p)
    if not (isinstance(n, (int, np.integer)) and isinstance(p, (int, np.integer)) and 0 <= p < n):
        raise ValueError(f"p={p!r} (missing points) must be an integer with 0 <= p < n={n!r}")


def mean_imputation_sensitivity(n: int, p: int) -> tuple[float, int]:
    """(Δ₂, Δ_∞) of mean imputation (Cor. 4): (2/(n−p), p), p the maximal number of points with missing values."""
    _missing(n, p)
    return 2.0 / (n - p), int(p)


def median_imputation_sensitivity(
    x_max_upper_median: ArrayLike, x_min_lower_median: ArrayLike, features_imputed: int = 1
) -> np.ndarray:
    """Median imputation (Table 3): x^max_((n+1)/2) − x^min_(n/2), per imputed feature, times √(features imputed per
    point) because Prop. 15's Δ₂ sums over features (our reading of Prop. 15,
    not verified against the paper's Table 3)."""
    as_finite_array(x_max_upper_median, "x_max_upper_median")
    as_finite_array(x_min_lower_median, "x_min_lower_median")
    whole_number("features_imputed", features_imputed)
    return (np.asarray(x_max_upper_median, float) - np.asarray(x_min_lower_median, float)) * math.sqrt(features_imputed)


def trimmed_mean_imputation_sensitivity(
    x_upper: ArrayLike, x_lower: ArrayLike, n: int, m: int, p: int, features_imputed: int = 1
) -> np.ndarray:
    """m-trimmed-mean imputation (Table 3): (x_upper − x_lower)/(n − 2m − p) times √(features imputed).

    As printed the numerator is x^max_(m) − x^min_(n−m) (typically negative, a likely typo); corrected it is
    x^max_(n−m) − x^min_(m). The caller passes the order statistics of the variant it evaluates.
    """
    _missing(n, p)
    as_finite_array(x_upper, "x_upper")
    as_finite_array(x_lower, "x_lower")
    whole_number("m", m, minimum=0)
    whole_number("features_imputed", features_imputed)
    if not n - 2 * m - p > 0:
        raise ValueError(f"m={m!r}: need n - 2m - p > 0 (n={n}, p={p})")
    return (np.asarray(x_upper, float) - np.asarray(x_lower, float)) / (n - 2 * m - p) * math.sqrt(features_imputed)


def linear_regression_imputation_sensitivity(lambda_max: ArrayLike, lambda_min: ArrayLike) -> np.ndarray:
    """Linear-regression imputation (Table 3): λ_max²/((λ_max+1)λ_min²) + 1/λ_min, λ the extreme eigenvalues of
    X_rᵀX_r over the collection 𝓛."""
    lmax, lmin = as_positive_array(lambda_max, "lambda_max"), as_positive_array(lambda_min, "lambda_min")
    return lmax**2 / ((lmax + 1) * lmin**2) + 1 / lmin


def pca_covariance_perturbation_bound(n: ArrayLike) -> np.ndarray:
    """‖Σ̃ − Σ‖_F ≤ 2(3n+2)/(n(n−1)) (Prop. 5, eq. (41)); ≤ 6.1/n iff n ≥ 101."""
    as_integer_array(n, "n", minimum=2)
    nn = np.asarray(n, float)
    return 2 * (3 * nn + 2) / (nn * (nn - 1))


def pca_rank_delta2(n: ArrayLike, gap: ArrayLike) -> np.ndarray:
    """Δ₂ of PCA rank reduction x ↦ A_kA_kᵀx (Prop. 5): 4(3n+2)/(n(n−1)δ), δ the eigen-gap λ_k − λ_{k+1}
    (Lemma L needs only δ^k; Prop. 5 writes min{δ^k, δ^1}, pass that minimum to follow it)."""
    return 2 * pca_covariance_perturbation_bound(n) / as_positive_array(gap, "gap")


def pca_dim_delta2(n: ArrayLike, gap: ArrayLike) -> np.ndarray:
    """Δ₂ of PCA dimension reduction x ↦ A_kᵀx (Prop. 5): twice the rank-reduction bound, δ = min{δ^k, δ^1}."""
    return 2 * pca_rank_delta2(n, gap)


def pca_tau(n: ArrayLike, gap: ArrayLike, form: str = "exact") -> np.ndarray:
    """τ_rank = Δ_∞Δ₂ = n·Δ₂ = 4(3n+2)/((n−1)δ) (``form="exact"``) or the paper's bound 12.2/δ (``"table2"``,
    valid for n ≥ 101)."""
    if form == "table2":
        return PCA_TAU_CONSTANT / as_positive_array(gap, "gap") + 0 * as_real_array(n, "n")
    if form != "exact":
        raise ValueError(f"form={form!r} must be 'exact' or 'table2'")
    return as_real_array(n, "n") * pca_rank_delta2(n, gap)


# ----------------------------------------------------------------------------------------------------------------
# Table 2 (Theorems 6 and 16): closed forms, p = q = 2, α ≥ 11, L = μ = Δ_f = Δ_Q = 1
# ----------------------------------------------------------------------------------------------------------------

#: (mechanism, pre-processing) -> the formula of the Table 2 cell as printed, in plain text (δ: the eigen-gap).
TABLE2_CELLS: dict[tuple[str, str], str] = {
    ("gaussian", "dedup"): "1.05αε²(1 + p²)",
    ("gaussian", "quantization"): "1.05αε²(1 + η²p²)",
    ("gaussian", "mean_imputation"): "1.05αε²(1 + 4p²/(n − p)²)",
    ("gaussian", "pca_rank"): "1.05αε²(1 + 12.2²/δ²)",
    ("dp_gd", "dedup"): "1.05αε²(4 + p²)",
    ("dp_gd", "quantization"): "1.05αε²(4 + η²p²)",
    ("dp_gd", "mean_imputation"): "4.2αε²(1 + p²/(n − p)²)",
    ("dp_gd", "pca_rank"): "1.05αε²(4 + 12.2²/δ²)",
    ("laplace", "dedup"): "ε(1 + p)",
    ("laplace", "quantization"): "ε(1 + ηp)",
    ("laplace", "mean_imputation"): "ε(1 + 2p/(n − p))",
    ("laplace", "pca_rank"): "ε(1 + 12.2/δ)",
    ("dp_sgd_sampling", "pca_rank"): "1.05αε²(2α + 12.2²/δ²)",
    ("dp_sgd_iteration", "dedup"): "1.1αε²(1 + p²n·log(n − p)/((n − p)·log n))",
    ("dp_sgd_iteration", "quantization"): "1.1αε²(1 + η²p²n·log(n − p)/((n − p)·log n))",
    ("dp_sgd_iteration", "mean_imputation"): "1.1αε²(1 + 4p²n·log(n − p)/((n − p)³·log n))",
}


def table2_tau(
    preprocessing: str, p: float | None = None, eta: float | None = None, n: int | None = None, gap: float | None = None
) -> float:
    """τ = Δ₂Δ_∞ of each Table 2 column: dedup p; quantization ηp; mean imputation 2p/(n−p); PCA 12.2/δ."""
    if preprocessing == "dedup":
        return float(p)
    if preprocessing == "quantization":
        return float(as_positive_array(eta, "eta")) * float(p)
    if preprocessing == "mean_imputation":
        _missing(int(n), int(p))
        return 2 * p / (n - p)
    if preprocessing == "pca_rank":
        return PCA_TAU_CONSTANT / float(as_positive_array(gap, "gap"))
    raise ValueError(f"preprocessing={preprocessing!r} must be one of dedup, quantization, mean_imputation, pca_rank")


def table2_cell(
    mechanism: str,
    preprocessing: str,
    alpha: ArrayLike,
    eps: float,
    p: float | None = None,
    eta: float | None = None,
    n: int | None = None,
    gap: float | None = None,
) -> np.ndarray:
    """The Table 2 cell as printed (Theorem 6/16), α ≥ 11. Exponential = Laplace. Empty cells raise ValueError."""
    a = as_finite_array(alpha, "alpha")
    if p is not None:
        non_negative_finite("p", p)
    if not np.all(a >= 11):
        raise ValueError(f"alpha={alpha!r}: Table 2 needs alpha >= 11")
    mech = "laplace" if mechanism == "exponential" else mechanism
    if (mech, preprocessing) not in TABLE2_CELLS:
        raise ValueError(f"Table 2 has no cell for mechanism={mechanism!r}, preprocessing={preprocessing!r}")
    e = float(as_positive_array(eps, "eps"))
    if mech == "dp_sgd_iteration":
        base = table2_tau(preprocessing, p, eta, n, gap) ** 2
        return 1.1 * a * e**2 * (1 + base * n * math.log(n - p) / ((n - p) * math.log(n)))
    tau = table2_tau(preprocessing, p, eta, n, gap)
    if mech == "laplace":
        return e * (1 + tau) + 0 * a
    if mech == "gaussian":
        return 1.05 * a * e**2 * (1 + tau**2)
    if mech == "dp_gd":
        if preprocessing == "mean_imputation":
            return 4.2 * a * e**2 * (1 + p**2 / (n - p) ** 2)
        return 1.05 * a * e**2 * (4 + tau**2)
    return 1.05 * a * e**2 * (2 * a + tau**2)  # dp_sgd_sampling, PCA


def table2_gaussian_dp(tau: ArrayLike, eps: float, delta: float) -> np.ndarray:
    """(ε, δ)-DP of the Table-2 Gaussian row 1.05αε²(1+τ²) by Lemma M over α ≥ 11 (the Fig. 2 'SRDP' curve)."""
    as_non_negative_array(tau, "tau")
    positive_finite("eps", eps)
    return rdp_to_dp_linear(1.05 * eps**2 * (1 + np.asarray(tau, float) ** 2), delta, alpha_min=11.0)


# ----------------------------------------------------------------------------------------------------------------
# Group privacy baselines (our design: the paper names the baseline but gives no formula)
# ----------------------------------------------------------------------------------------------------------------


def group_privacy_gaussian_rdp(alpha: ArrayLike, m: ArrayLike, eps: float) -> np.ndarray:
    """RDP of the Gaussian mechanism (σ = Δ_f/ε) between datasets differing in m points: αm²ε²/2 (exact)."""
    _order(alpha)
    as_integer_array(m, "m", minimum=1)
    positive_finite("eps", eps)
    return np.asarray(alpha, float) * np.asarray(m, float) ** 2 * eps**2 / 2


def group_privacy_gaussian_dp(m: ArrayLike, eps: float, delta: float) -> np.ndarray:
    """(ε, δ)-DP of the Gaussian mechanism for groups of m: m²ε²/2 + mε√(2 log(1/δ)) (Lemma M, exact optimum)."""
    as_integer_array(m, "m", minimum=1)
    positive_finite("eps", eps)
    return rdp_to_dp_linear(np.asarray(m, float) ** 2 * eps**2 / 2, delta)


def group_privacy_pure_dp(m: ArrayLike, eps: float) -> np.ndarray:
    """Pure ε-DP group privacy: mε."""
    as_integer_array(m, "m", minimum=1)
    non_negative_finite("eps", eps)
    return np.asarray(m, float) * eps


def group_privacy_approximate_dp(m: ArrayLike, eps0: float, delta0: float) -> tuple[np.ndarray, np.ndarray]:
    """Approximate-DP group privacy from (ε₀, δ₀): (mε₀, m e^{(m−1)ε₀} δ₀) (the footnote's 'linear' growth)."""
    as_integer_array(m, "m", minimum=1)
    non_negative_finite("eps0", eps0)
    probability("delta0", delta0, allow_zero=True)
    mm = np.asarray(m, float)
    return mm * eps0, mm * np.exp((mm - 1) * eps0) * delta0


# ----------------------------------------------------------------------------------------------------------------
# Theorem 7 (PTR), Proposition 8, Lemma 2, Remark 1
# ----------------------------------------------------------------------------------------------------------------


def theorem7_rho(eps: float, beta: float, L: float = 1.0, mu: float = 1.0) -> float:
    """ρ = 1.05ε²(1 + 12.2²μ²/(L²β²)) (proof of Theorem 7): DP-GD∘PCA with σ = 2L√T/(εn) is (α, αρ)-RDP."""
    e, b = float(as_positive_array(eps, "eps")), float(as_positive_array(beta, "beta"))
    positive_finite("L", L)
    positive_finite("mu", mu)
    return 1.05 * e**2 * (1 + PCA_TAU_CONSTANT**2 * mu**2 / (L**2 * b**2))


def theorem7_epsilon(eps: float, beta: float, delta: float, L: float = 1.0, mu: float = 1.0) -> dict[str, float]:
    """Theorem 7 as printed: ε̂ = 3ε√(1.05(1+12.2²μ²/(L²β²)) log(1/δ)), total ε̂ + ε; also the implied
    α = 1 + √(log(1/δ)/ρ) (erratum: the proof's factor 1.05 needs α ≥ 11, which
    Theorem 7's condition log(1/δ) ≥ ρ does not force) and the exact 2√(ρ log(1/δ)) + ρ."""
    rho = theorem7_rho(eps, beta, L, mu)
    log_inv = math.log(1 / probability("delta", delta))
    eps_hat = 3 * eps * math.sqrt(1.05 * (1 + PCA_TAU_CONSTANT**2 * mu**2 / (L**2 * beta**2)) * log_inv)
    return {
        "rho": rho,
        "eps_hat": eps_hat,
        "total": eps_hat + eps,
        "alpha": 1 + math.sqrt(log_inv / rho),
        "eps_hat_exact_lemma_m": 2 * math.sqrt(rho * log_inv) + rho,
    }


def theorem7_delta_condition(eps: float, beta: float, delta: float, L: float = 1.0, mu: float = 1.0) -> bool:
    """Theorem 7's hypothesis δ ≤ exp(−ρ)."""
    probability("delta", delta)
    return delta <= math.exp(-theorem7_rho(eps, beta, L, mu))


def theorem7_epsilon_corrected(
    eps: float, beta: float, delta: float, n: int, L: float = 1.0, mu: float = 1.0
) -> dict[str, float]:
    """Corrected Theorem 7 accounting: DP-GD (σ = 2L√T/(εn): RDP αε²/2, SRDP αμ²τ²ε²/(8L²)) after PCA rank
    reduction, τ = 4(3n+2)/((n−1)β), Theorem 2 with p = q = 2 and the exact factor (2α−1)/(2(α−1)), Lemma M over
    every α > 1; plus ε for the Laplace test (basic composition). Returns ε̂, total, α*."""
    positive_finite("eps", eps)
    positive_finite("beta", beta)
    probability("delta", delta)
    positive_finite("L", L)
    positive_finite("mu", mu)
    tau = float(pca_tau(n, beta))
    rho_half = 0.5 * eps**2 + mu**2 * tau**2 * eps**2 / (8 * L**2)  # ε(α) + ε̃(α, τ) = α·rho_half

    def rdp(alpha: np.ndarray) -> np.ndarray:
        return factor_pq2(alpha) * 2 * alpha * rho_half

    value, alpha = rdp_to_dp(rdp, delta)
    return {"eps_hat": value, "total": value + eps, "alpha": alpha}


def prop8_failure_probability(
    n: int, eps: float, delta: float, gap: float, beta: float, threshold: str = "log2"
) -> float:
    """γ = (1/(2δ))·exp(−(δ_k(S) − β)nε/12.2) (Prop. 8, threshold log(1/δ)); with Algorithm 1's log(2/δ)
    threshold (``"log2"``, default) the prefactor is 1/δ (Algorithm 1 and the
    proof of Prop. 8 use different thresholds).

    γ bounds a failure probability: where it reaches 1 it certifies nothing and is returned as 1, decided from
    log γ = log(prefactor) − (δ_k(S) − β)nε/12.2 before any exponential (so it cannot overflow). Prop. 8 assumes
    β ≤ δ_k(S) (``gap`` ≥ ``beta``); below it the proposition says nothing, and γ is 1."""
    whole_number("n", n)
    positive_finite("eps", eps)
    probability("delta", delta)
    positive_finite("gap", gap)
    positive_finite("beta", beta)
    choice("threshold", threshold, ("log1", "log2"))
    prefactor = {"log1": 1 / (2 * delta), "log2": 1 / delta}[threshold]
    exponent = -(gap - beta) * n * eps / PCA_TAU_CONSTANT
    if gap < beta or math.log(prefactor) + exponent >= 0.0:
        return 1.0
    return prefactor * math.exp(exponent)


def lemma2_subsampled_srdp(
    srdp: Callable[[float, float], float], alpha: float, tau: float, n: int, B: int, k: int
) -> float:
    """Lemma 2: ε'(α,τ) = 2(1−(kB−1)/n)^B ε(α, τ/k) + 2(1 − (1−(kB−1)/n)^B) ε(α, τ), 1/B ≤ k ≤ (n−1)/B."""
    _order(alpha)
    positive_finite("tau", tau)
    whole_number("n", n)
    whole_number("B", B)
    positive_finite("k", k)
    if not (1 / B <= k <= (n - 1) / B):
        raise ValueError(f"k={k!r} must satisfy 1/B <= k <= (n-1)/B with n={n}, B={B}")
    keep = (1 - (k * B - 1) / n) ** B
    return 2 * keep * srdp(alpha, tau / k) + 2 * (1 - keep) * srdp(alpha, tau)


def remark1_factor(n: int, variant: str = "integer_min") -> tuple[float, float]:
    """Remark 1 factor min_k [(1/k²)(1 − (k−1)/n) + (k−1)/n] and its minimiser k.

    ``"integer_min"``: the literal minimum over integers k ≥ 1; ``"paper_k"``: evaluated at the paper's
    (non-integer) k = √(2n−3), which the paper bounds by 2/√n."""

    def factor(k: np.ndarray) -> np.ndarray:
        return (1 / k**2) * (1 - (k - 1) / n) + (k - 1) / n

    whole_number("n", n, minimum=2)
    if variant == "paper_k":
        k = math.sqrt(2 * n - 3)
        return float(factor(np.asarray(k))), k
    if variant != "integer_min":
        raise ValueError(f"variant={variant!r} must be 'integer_min' or 'paper_k'")
    ks = np.arange(1, n + 1, dtype=float)
    values = factor(ks)
    i = int(np.argmin(values))
    return float(values[i]), float(ks[i])


# ----------------------------------------------------------------------------------------------------------------
# DP-SGD with subsampling (Theorem 13): the noise of a privacy parameter, and a parameter for a target (ε, δ)
# ----------------------------------------------------------------------------------------------------------------


def dp_sgd_sampling_noise_multiplier(eps: float, steps: int, sampling_rate: float, variant: str = "corrected") -> float:
    """Noise multiplier z (noise std on the clipped gradient sum, per unit clip L) of Theorem 13's DP-SGD with
    privacy parameter ε at Poisson sampling rate q: the theorem's σ = L√(cT)/(εn) is for one sampled point per step
    (q = 1/n); with Lemma G (Abadi et al. 2016, Lemma 3, whose rate q the paper sets to 1/n) at rate q it reads
    z = q√(cT)/ε, the constant c from Lemma G's leading term q²α(α+1)/((1−q)z²) ≤ cq²α²/z².

    - ``"as_printed"``: c = 2/(1−q), the smallest c for step (a) of eq. (18) at every α ≥ 1; step (b) then gives
      α²ε²/T per step, twice the printed α²ε²/(2T) (the factor-2 slip of eq. (18)).
    - ``"corrected"``: c = 4/(1−q), √2 more noise, which gives the printed α²ε²/(2T) per step and so Table 1's
      RDP α²ε²/2 after T steps.
    """
    positive_finite("eps", eps)
    whole_number("steps", steps)
    in_range("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True, high_open=True)
    c = {"as_printed": 2.0, "corrected": 4.0}[_variant(variant)] / (1 - sampling_rate)
    return sampling_rate * math.sqrt(c * steps) / eps


def theorem13_alpha_max(eps: float, steps: int, n: int) -> float:
    """The largest order at which Theorem 13 states its RDP (L = 1): min{√T/ε, T/(ε²n²)·log(n²ε/√T)}."""
    positive_finite("eps", eps)
    whole_number("steps", steps)
    whole_number("n", n)
    return min(math.sqrt(steps) / eps, steps / (eps * n) ** 2 * math.log(n**2 * eps / math.sqrt(steps)))


def parameter_for_epsilon(
    rdp_of: Callable[[float], Callable[[np.ndarray], np.ndarray]],
    epsilon: float,
    delta: float,
    alpha_min: float = 1.0 + 1e-9,
) -> tuple[float, float]:
    """(ε₀, α*): the privacy parameter ε₀ whose RDP curve ``rdp_of(ε₀)`` converts (Lemma M, :func:`rdp_to_dp` over
    α ≥ α_min) to exactly ``epsilon`` at ``delta``, and the optimal order there. The converted ε increases with ε₀
    (every Table 1/2 curve does), so ε₀ is the root of a bracketed monotone equation in log ε₀."""
    positive_finite("epsilon", epsilon)
    probability("delta", delta)
    in_range("alpha_min", alpha_min, 1.0, math.inf, low_open=True, high_open=True)

    def excess(log_eps0: float) -> float:
        return rdp_to_dp(rdp_of(math.exp(log_eps0)), delta, alpha_min)[0] - epsilon

    log_eps0 = brentq(excess, math.log(1e-12), math.log(1e6), xtol=1e-13, rtol=1e-13)
    eps0 = math.exp(log_eps0)
    return eps0, rdp_to_dp(rdp_of(eps0), delta, alpha_min)[1]


# ----------------------------------------------------------------------------------------------------------------
# Lemma 3, eq. (18), Prop. 8 (eq. (4)) and eq. (48): the statements next to what their proofs compute
# ----------------------------------------------------------------------------------------------------------------


def lemma3_fgd_rdp(
    alpha: float,
    tau: float,
    sigma: float,
    steps: int,
    first_differing: int,
    n: int,
    L: float = 1.0,
    mu: float = 1.0,
    variant: str = "proof",
) -> float:
    """Rényi divergence of T steps of DP-FGD on two τ-close datasets that first differ at index t̃ (Lemma 3).

    - ``"as_printed"``: the statement of Lemma 3, 2ατ²L/(σ²(n − t̃ + 1));
    - ``"proof"``: its proof's last line (eq. (27)), 2ατ²μ²/(σ²(T − t̃ + 1));
    - ``"exact_cni"``: Lemma I with the proof's shifts a_i = ητμ/(T − t̃ + 1) for i ≥ t̃ and the exact Gaussian
      divergence D_α(N(0, η²σ²) ‖ N(a, η²σ²)) = αa²/(2η²σ²) (Lemma C), i.e. ατ²μ²/(2σ²(T − t̃ + 1)).
    """
    _order(alpha)
    non_negative_finite("tau", tau)
    positive_finite("sigma", sigma)
    whole_number("steps", steps)
    whole_number("first_differing", first_differing)
    whole_number("n", n)
    positive_finite("L", L)
    positive_finite("mu", mu)
    if not first_differing <= steps <= n:
        raise ValueError(f"need first_differing <= steps <= n, got {first_differing}, {steps}, {n}")
    choice("variant", variant, ("as_printed", "proof", "exact_cni"))
    if variant == "as_printed":
        return 2 * alpha * tau**2 * L / (sigma**2 * (n - first_differing + 1))
    remaining = steps - first_differing + 1
    return (2.0 if variant == "proof" else 0.5) * alpha * tau**2 * mu**2 / (sigma**2 * remaining)


def theorem13_step_rdp(alpha: ArrayLike, eps: float, steps: int, variant: str = "as_printed") -> np.ndarray:
    """Per-step RDP of DP-SGD with subsampling in eq. (18) (Theorem 13's proof) with σ = L√(cT)/(εn).

    ``"as_printed"``: the proof's conclusion α²ε²/(2T); ``"step_b"``: what its step (b) computes,
    cα²L²/(n²σ²) = α²ε²/T (twice the printed value, for every c)."""
    a = _order(alpha)
    positive_finite("eps", eps)
    whole_number("steps", steps)
    choice("variant", variant, ("as_printed", "step_b"))
    return a**2 * eps**2 / ((2.0 if variant == "as_printed" else 1.0) * steps)


def dp_sgd_sampling_rdp_dp_accounting(
    orders: ArrayLike, eps: float, steps: int, n: int, c: float, relation: str = "add_remove"
) -> np.ndarray:
    """RDP after T steps, computed by dp_accounting, of Theorem 13's DP-SGD: one of n points sampled per step
    (rate q = 1/n), Gaussian noise σ = L√(cT)/(εn) on its gradient (‖∇ℓ‖ ≤ L).

    ``"add_remove"``: Poisson-subsampled Gaussian with noise multiplier σ/L (Abadi et al.'s setting, which Lemma G
    paraphrases); ``"replace_one"``: sampling one point without replacement under replace-one neighbours (the
    paper's relation), where the gradient moves by up to 2L, so the noise multiplier is σ/(2L)."""
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    a = as_real_array(orders, "orders")
    if not np.all(a > 1):
        raise ValueError(f"orders={orders!r} is invalid; allowed: Rényi orders > 1")
    positive_finite("eps", eps)
    whole_number("steps", steps)
    whole_number("n", n)
    positive_finite("c", c)
    choice("relation", relation, ("add_remove", "replace_one"))
    z = math.sqrt(c * steps) / (eps * n)
    if relation == "add_remove":
        per_step = rdp._compute_rdp_poisson_subsampled_gaussian(1 / n, z, a)
    else:
        per_step = rdp._compute_rdp_sample_wor_gaussian(1 / n, z / 2, a)
    return steps * np.asarray(per_step, dtype=float)


def prop8_excess_risk_terms(
    n: int, eps: float, delta: float, k: int, tail_eigenvalue_sum: float, L: float = 1.0, variant: str = "as_printed"
) -> tuple[float, float]:
    """The two terms of Prop. 8's bound (eq. (4)) with the O-constant set to 1: L√(1 + k log(1/δ))/(εn) (the
    optimisation error of DP-GD in the rank-k subspace) and 2LΛ, Λ = Σ_{i>k} λ_i(S).

    ``variant="lemma_o"``: the first term as Lemma O (the cited Theorem 3.1 of Song et al. 2021) prints it,
    L√(1 + 2k log(1/δ))/(εn); ``"as_printed"`` (default): Prop. 8's k."""
    multiplier = {"as_printed": 1, "lemma_o": 2}[choice("variant", variant, ("as_printed", "lemma_o"))]
    whole_number("n", n)
    positive_finite("eps", eps)
    probability("delta", delta)
    whole_number("k", k)
    non_negative_finite("tail_eigenvalue_sum", tail_eigenvalue_sum)
    positive_finite("L", L)
    return L * math.sqrt(1 + multiplier * k * math.log(1 / delta)) / (eps * n), 2 * L * tail_eigenvalue_sum


def laplace_test_release_probability(eps: float, delta: float) -> float:
    """Eq. (48): Pr[Lap(1/ε) > log(2/δ)/ε] = ½·exp(−log(2/δ)) = δ/4 (≤ δ/2 as printed), the probability that
    Algorithm 1 releases on a dataset at distance 0 from the unsafe set; it does not depend on ε."""
    positive_finite("eps", eps)
    probability("delta", delta)
    return 0.5 * math.exp(-eps * (math.log(2 / delta) / eps))


def gaussian_mixture_renyi(
    alpha: float, means_p: ArrayLike, means_q: ArrayLike, sigma: float, points: int = 200_001
) -> float:
    """D_α(P ‖ Q) of the equal-weight 1-D Gaussian mixtures P = (1/n)Σ N(p_i, σ²), Q = (1/n)Σ N(q_i, σ²): the output
    of a scalar Gaussian mechanism after sampling one of n points (Lemma 2 with B = 1), computed in log space,
    1/(α−1)·log ∫ p^α q^{1−α}, by the trapezoid rule on a grid spanning every mean ± 40σ."""
    from scipy.special import logsumexp

    _order(alpha)
    positive_finite("sigma", sigma)
    whole_number("points", points, minimum=3)
    p, q = as_finite_array(means_p, "means_p").ravel(), as_finite_array(means_q, "means_q").ravel()
    if p.size != q.size:
        raise ValueError(f"means_p and means_q must have the same length, got {p.size} and {q.size}")
    everything = np.concatenate([p, q])
    x = np.linspace(everything.min() - 40 * sigma, everything.max() + 40 * sigma, points)

    def log_density(means: np.ndarray) -> np.ndarray:
        z = (x[:, None] - means[None, :]) / sigma
        return logsumexp(-0.5 * z**2, axis=1) - math.log(means.size * sigma * math.sqrt(2 * math.pi))

    log_integrand = alpha * log_density(p) + (1 - alpha) * log_density(q)
    weights = np.full(points, x[1] - x[0])
    weights[[0, -1]] /= 2
    return float(logsumexp(log_integrand, b=weights) / (alpha - 1))


# ----------------------------------------------------------------------------------------------------------------
# Theorems 10 and 11 checked exactly: the Laplace mechanism in closed form, the exponential mechanism by enumeration
# ----------------------------------------------------------------------------------------------------------------


def laplace_mechanism_divergence(
    alpha: ArrayLike, eps: float, change: ArrayLike, sensitivity: float = 1.0
) -> np.ndarray:
    """D_α(f(S) + Lap(Δ_f/ε) ‖ f(S') + Lap(Δ_f/ε)) when |f(S) − f(S')| = ``change`` (Theorem 10's mechanism), by the
    closed form of :func:`dplab.accounting.renyi.laplace_renyi`; α may be ∞. With change = Lτ (an L-Lipschitz f
    moved by one point, where ‖S − S'‖_F = d12(S, S') = τ) it is the largest divergence Theorem 10's SRDP bound
    Lτε/Δ_f must cover; with change = Δ_f, the largest its RDP bound ε must cover."""
    order = renyi_orders("alpha", alpha)
    e, sens = positive_finite("eps", eps), positive_finite("sensitivity", sensitivity)
    return np.asarray(laplace_renyi(order, shift=as_non_negative_array(change, "change"), scale=sens / e))


# ----------------------------------------------------------------------------------------------------------------
# Proof slips of Theorem 7 (step (a), a dropped square) and of Proposition 8 (step (c) of its last display)
# ----------------------------------------------------------------------------------------------------------------


def theorem7_step_a(
    eps: float, beta: float, delta: float, L: float = 1.0, mu: float = 1.0, variant: str = "corrected"
) -> float:
    """Step (a) of the proof of Theorem 7 (Lemma M at the chosen α): 2ε√(1.05(1+c) log(1/δ)) + 1.05ε²(1+c),
    c = 12.2²μ²/(L²β²) (``"corrected"``, = 2√(ρ log(1/δ)) + ρ); ``"as_printed"`` has 1.05ε(1+c) (the proof's RDP
    "1.05αε(1+c)" drops the square on ε). Step (b) bounds it by 3ε√(1.05(1+c) log(1/δ)) when log(1/δ) ≥ ρ."""
    choice("variant", variant, ("as_printed", "corrected"))
    rho = theorem7_rho(eps, beta, L, mu)
    log_inv = math.log(1 / probability("delta", delta))
    first = 2 * math.sqrt(rho * log_inv)
    return first + (rho if variant == "corrected" else rho / eps)


def pca_mean_residual_norm(X: ArrayLike, k: int) -> tuple[float, float]:
    """((1/n) Σ_i ‖x_i − A_k A_kᵀ x_i‖₂, Λ = Σ_{j>k} λ_j((1/n) Σ_i x_i x_iᵀ)), A_k the top-k eigenvectors: the
    quantity step (c) of the last display of the proof of Prop. 8 bounds by Λ, and Λ. By Jensen the first is at most
    √Λ (equality when every residual has the same norm)."""
    data = as_finite_array(X, "X")
    if data.ndim != 2:
        raise ValueError(f"X must be a 2-D array (n, d), got shape {data.shape}")
    whole_number("k", k, maximum=data.shape[1])
    eigenvalues, vectors = np.linalg.eigh(data.T @ data / data.shape[0])
    top = vectors[:, np.argsort(eigenvalues)[::-1][:k]]
    residual = data - data @ top @ top.T
    tail = float(np.sort(eigenvalues)[::-1][k:].sum())
    return float(np.linalg.norm(residual, axis=1).mean()), max(tail, 0.0)


def equal_residual_dataset(tail_eigenvalue_sum: float, lead: float = 0.9) -> np.ndarray:
    """A centred dataset in the unit ball of ℝ² whose k = 1 PCA residuals all have norm r = √Λ: the four points
    (±a, ±r), a = ``lead`` > r; its covariance (1/n)Σ x xᵀ is diag(a², r²), so Λ = r² and the mean residual norm is
    √Λ (Jensen's bound of :func:`pca_mean_residual_norm` attained), above Λ whenever Λ < 1."""
    r = math.sqrt(non_negative_finite("tail_eigenvalue_sum", tail_eigenvalue_sum))
    a = positive_finite("lead", lead)
    if not (r < a and a**2 + r**2 <= 1):
        raise ValueError(f"need sqrt(tail)={r:g} < lead={a:g} and lead^2 + tail <= 1 (points in the unit ball)")
    return np.array([[a, r], [-a, -r], [a, -r], [-a, r]])


def _top_eigen(matrix: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues in decreasing order, the top-k eigenvectors as columns) of a symmetric matrix."""
    values, vectors = np.linalg.eigh(matrix)
    order = np.argsort(values)[::-1]
    return values[order], vectors[:, order[:k]]


def davis_kahan_bounds(sigma: ArrayLike, sigma_hat: ArrayLike, k: int) -> dict[str, float]:
    """‖sin Θ(V, V̂)‖_F for the top-k eigenspaces of symmetric Σ, Σ̂ (= √(k − ‖VᵀV̂‖_F²)) and two bounds on it:
    ``as_printed``, Lemma K of Hu, Sanyal, Schölkopf: 2‖Σ − Σ̂‖_F/min{λ_k − λ_{k+1}, λ_1 − λ_2} (its "min" has one
    argument); ``cited``, Theorem 2 of Yu, Wang, Samworth (Biometrika 2015; the paper's [Yu et al., 2014]), which Lemma K cites, with r = 1, s = k (λ₀ = +∞):
    2 min(√k‖Σ − Σ̂‖_op, ‖Σ − Σ̂‖_F)/(λ_k − λ_{k+1}). Eigenvalues λ are those of Σ."""
    a, b = as_finite_array(sigma, "sigma"), as_finite_array(sigma_hat, "sigma_hat")
    if a.ndim != 2 or a.shape != b.shape or a.shape[0] != a.shape[1]:
        raise ValueError(f"sigma and sigma_hat must be square matrices of one shape, got {a.shape} and {b.shape}")
    whole_number("k", k, maximum=a.shape[0] - 1)
    values, v = _top_eigen((a + a.T) / 2, k)
    _, v_hat = _top_eigen((b + b.T) / 2, k)
    error = b - a
    frobenius, operator = float(np.linalg.norm(error)), float(np.linalg.norm(error, 2))
    gap_k, gap_1 = values[k - 1] - values[k], values[0] - values[1]
    return {
        "sin_theta": math.sqrt(max(k - float(np.sum((v.T @ v_hat) ** 2)), 0.0)),
        "as_printed": 2 * frobenius / min(gap_k, gap_1),
        "cited": 2 * min(math.sqrt(k) * operator, frobenius) / gap_k,
    }


# ----------------------------------------------------------------------------------------------------------------
# The proved sensitivity of each pre-processing step, and the Gaussian mechanism on concrete neighbouring datasets
# ----------------------------------------------------------------------------------------------------------------

_ORDER_STATISTIC_IMPUTATIONS = ("median_imputation", "trimmed_mean_imputation", "linear_regression_imputation")


def _gap_or_missing(name: str, value: float) -> float:
    """An eigen-gap: > 0 and finite, or NaN where the dataset has none (not a PCA dataset)."""
    value = real_number(name, value)
    require(np.isnan(value) or (np.isfinite(value) and value > 0), name, value, "a finite number > 0, or NaN")
    return value


def preprocessing_sensitivity_bounds(
    step: str, n: int, eta: float, max_cluster_size: int, max_missing: int, min_gap_k: float, min_gap_1: float
) -> tuple[float, float, str]:
    """(Δ_∞ bound, Δ₂ bound, source) of a pre-processing step over a collection of datasets of n records with the
    given worst-case structure: largest good cluster at η, most rows with a missing value p, smallest eigen-gaps δ^k
    and δ^1 (NaN where the datasets have none). Deduplication (Δ₂, Δ_∞) = (1, 2 max|B|) and quantization
    (η, 2 max|B|) by Prop. 3; mean imputation (2/(n − p), p) by Cor. 4; the order-statistic imputations Δ_∞ = p by
    Prop. 15 (their Δ₂ depends on the data: NaN); PCA Δ_∞ = n with Δ₂ = 4(3n+2)/(n(n−1)δ^k) for rank reduction and
    twice that at δ = min{δ^k, δ^1} for dimension reduction (Prop. 5)."""
    choice("step", step, PREPROCESSING_STEPS)
    n, eta = whole_number("n", n), positive_finite("eta", eta)
    whole_number("max_cluster_size", max_cluster_size, minimum=0)
    p = whole_number("max_missing", max_missing, minimum=0)
    min_gap_k, min_gap_1 = _gap_or_missing("min_gap_k", min_gap_k), _gap_or_missing("min_gap_1", min_gap_1)
    if step == "dedup":
        return dedup_sensitivity(max_cluster_size)[1], 1.0, "Prop. 3"
    if step == "quantization":
        d2, dinf = quantization_sensitivity(eta, max_cluster_size)
        return dinf, d2, "Prop. 3"
    if step == "mean_imputation":
        d2, dinf = mean_imputation_sensitivity(n, p)
        return dinf, d2, "Cor. 4"
    if step in _ORDER_STATISTIC_IMPUTATIONS:
        return float(p), np.nan, "Prop. 15 (Δ∞ = p; Δ₂ data-dependent: see table3)"
    if step == "pca_rank":
        return float(n), float(pca_rank_delta2(n, min_gap_k)), "Prop. 5 (δ^k)"
    return float(n), float(pca_dim_delta2(n, min(min_gap_k, min_gap_1))), "Prop. 5 (min δ^k, δ^1)"


#: The grid of Hölder exponents p over which Theorem 2's bound is minimised (log-spaced on [1.001, 50]).
THEOREM2_P_GRID = np.exp(np.linspace(np.log(1.001), np.log(50.0), 400))


def gaussian_sum_audit(
    alpha: float, eps: float, worst_shift: float, delta_inf_bound: float, delta_2_bound: float
) -> dict[str, float | bool]:
    """The Gaussian mechanism f(S) + N(0, σ²I), σ = 1/ε (Δ_f = 1), on concrete neighbouring pre-processed datasets
    whose f differ by at most ``worst_shift``: its exact Rényi divergence α‖f₁ − f₂‖²ε²/2 (Lemma C) against
    Theorem 2 at p = q = 2, minimised over p = q on :data:`THEOREM2_P_GRID`, and with p and q minimised separately
    (:func:`theorem2_rdp_separate_pq`, an extension), with τ = Δ₂Δ_∞ from the step's bounds (NaN when Δ₂ is not
    bounded), and against group privacy over m = Δ_∞ + 1 records (αm²ε²/2)."""
    alpha = in_range("alpha", alpha, 1.0, np.inf, low_open=True, high_open=True)
    eps, worst_shift = positive_finite("eps", eps), non_negative_finite("worst_shift", worst_shift)
    non_negative_finite("delta_inf_bound", delta_inf_bound)
    delta_2_bound = real_number("delta_2_bound", delta_2_bound)
    require(
        not np.isinf(delta_2_bound) and not delta_2_bound < 0, "delta_2_bound", delta_2_bound, "a number >= 0, or NaN"
    )
    mech = gaussian_mechanism(eps)
    exact = alpha * worst_shift**2 * eps**2 / 2
    tau = delta_inf_bound * delta_2_bound if np.isfinite(delta_2_bound) else np.nan
    thm2 = float(theorem2_rdp(mech, alpha, tau, 2.0)) if np.isfinite(tau) else np.nan
    thm2_opt = float(np.min(theorem2_rdp(mech, alpha, tau, THEOREM2_P_GRID))) if np.isfinite(tau) else np.nan
    thm2_separate = float(theorem2_rdp_separate_pq(mech, alpha, tau)) if np.isfinite(tau) else np.nan
    group = float(group_privacy_gaussian_rdp(alpha, delta_inf_bound + 1, eps))
    return {
        "exact_renyi_worst": exact,
        "theorem2_pq2": thm2,
        "theorem2_optimised_p": thm2_opt,
        "theorem2_separate_pq": thm2_separate,
        "group_privacy": group,
        "tau": tau,
        "exact_le_theorem2": bool(np.isnan(thm2) or exact <= thm2_opt * (1 + 1e-12)),
        "exact_le_group": bool(exact <= group * (1 + 1e-12)),
    }
