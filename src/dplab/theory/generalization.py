"""He, Wang, Tao, "Tighter Generalization Bounds for Iterative Differentially Private Learning Algorithms":
DP ⇒ generalization (Theorems 1-3 and the baselines they are compared with), the KL lemma (Lemma 5), and the
privacy of SGLD (Theorem 7) and of DP federated learning (Theorem 8), each "as printed" and "valid" (the valid variant
corrects the errata below). Pure numpy/scipy functions of numbers; arrays broadcast.

Errata of the paper, implemented side by side with the printed forms:

- SGLD per-step ε̃ (Thm 7, App. C.1): printed linear coefficient 2√2, correct 4√2 (the factor 2 of 2θ″ᵀv);
- subsampling (ε̃ → 2(τ/N)ε̃, "Lemma 4.4 of [7]"): valid only when log(1+q(e^ε̃−1)) ≤ 2qε̃; the valid variant uses
  Balle-Barthe-Gaboardi's log(1+q(e^ε̃−1)) for sampling without replacement under substitution;
- Thm 7's δ̃ is circular (used in ε′ and defined from ε′) and uses (τ/N)ε̃ where 2(τ/N)ε̃ is needed: here δ̃ is a
  free input; the printed δ̃ is returned for information only.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from dplab.accounting._arrays import scalar_or_array
from dplab.accounting.composition import (
    MIN_EPSILON_METHODS,
    basic_composition,
    cor2_delta,
    cor2_delta_first_order,
    cor3_epsilon,
    cor3_log_delta_double_prime,
    drv_delta,
    drv_epsilon,
    kl_bound_lemma5,
    kov_delta,
    kov_epsilon,
    log_lower_bound_delta,
    lower_bound_delta,
    min_epsilon_at_target,
    optimal_epsilon,
    optimal_log_delta,
    thm4_delta,
)
from dplab.accounting.hockey_stick import gaussian_hockey_stick
from dplab.checks import (
    as_integer_array,
    as_non_negative_array,
    as_positive_array,
    positive_finite,
    probability,
    real_number,
    require,
    whole_number,
)

__all__ = [
    "composition_certificates",
    "delta_certificate_columns",
    "fair_comparison_rows",
    "composition_certificate_rows",
    "epsilon_certificates",
    "high_probability_bounds",
    "kl_bounds",
    "sgld_privacy_and_generalization",
    "SGLD_VARIANTS",
    "STEP_VARIANTS",
    "FL_VARIANTS",
    "kl_bound_lemma5",
    "kl_bound_dr16",
    "kl_bound_drv10",
    "kl_randomized_response",
    "thm1_min_sample_size",
    "thm1_deviation",
    "thm1_deviation_exact",
    "thm1_failure_probability",
    "epsilon_min_for_sample_size",
    "thm1_bound",
    "thm2_on_average",
    "thm3_deviation",
    "thm3_probability_bound",
    "memorizer_probability",
    "lemma4_sample_size",
    "lemma4_hoeffding_probability",
    "nissim_stemmer_high_probability",
    "nissim_stemmer_on_average",
    "dwork_2015_high_probability",
    "oneto_high_probability",
    "oneto_variance_high_probability",
    "sgld_step_epsilon",
    "fl_step_epsilon",
    "amplify_by_subsampling",
    "linear_amplification_threshold",
    "thm7_printed_delta_tilde",
    "iterative_privacy",
    "sgld_privacy",
    "fl_privacy",
    "wang_sgld_threshold",
    "composition_iv_epsilon",
    "sgld_linear_loss_delta",
    "generalization_bounds",
]

STEP_VARIANTS = ("as_printed", "corrected")
SGLD_VARIANTS = ("as_printed", "valid")
FL_VARIANTS = ("as_printed", "substitution", "add_remove")


def _delta(value: ArrayLike, name: str = "delta") -> np.ndarray:
    array = as_positive_array(value, name)
    require(array < 1, name, array, f"0 < {name} < 1")
    return array


# ----------------------------------------------------------------------------------------------------------------
# Lemma 5 and its baselines
# ----------------------------------------------------------------------------------------------------------------


def kl_bound_dr16(eps: ArrayLike) -> float | np.ndarray:
    """Dwork-Rothblum 2016 [19]: D_KL ≤ ½ε(e^ε − 1) for ε-DP (the paper's comparison for Lemma 5)."""
    e = as_non_negative_array(eps, "eps")
    return scalar_or_array(0.5 * e * np.expm1(e))


def kl_bound_drv10(eps: ArrayLike) -> float | np.ndarray:
    """Dwork-Rothblum-Vadhan 2010 [20]: D_KL ≤ ε(e^ε − 1)."""
    e = as_non_negative_array(eps, "eps")
    return scalar_or_array(e * np.expm1(e))


def kl_randomized_response(eps: ArrayLike) -> float | np.ndarray:
    """KL divergence of ε-randomized response, Bern(p) ‖ Bern(q), p = e^ε/(1+e^ε), q = 1 − p, as the mean of its
    privacy loss: log(p/q) = ε exactly on the first outcome and −ε on the second, so D_KL = ε(p − q) with
    p − q = (1 − e^{−ε})/(1 + e^{−ε}) (it attains Lemma 5's bound ε tanh(ε/2)).

    Written so, it is exact to a few ulps at every ε ≥ 0; forming p first and then log(p/(1 − p)) read inf from
    ε ≈ 37, where p rounds to 1, and lost digits as ε → 0."""
    e = as_non_negative_array(eps, "eps")
    return scalar_or_array(e * (-np.expm1(-e) / (1.0 + np.exp(-e))))


# ----------------------------------------------------------------------------------------------------------------
# Theorem 1 (high probability) and the N-condition
# ----------------------------------------------------------------------------------------------------------------


def thm1_min_sample_size(eps: ArrayLike, delta: ArrayLike) -> float | np.ndarray:
    """Theorem 1's sample-size condition N ≥ (2/ε²) ln(16/(e^{−ε}δ)) = (2/ε²)(ln(16/δ) + ε) (written so that it does
    not overflow for large ε)."""
    e, d = as_positive_array(eps, "eps"), _delta(delta)
    return scalar_or_array(2.0 / e**2 * (np.log(16.0) - np.log(d) + e))


def thm1_deviation(eps: ArrayLike) -> float | np.ndarray:
    """Theorem 1's deviation a = 9ε."""
    return scalar_or_array(9.0 * as_non_negative_array(eps, "eps"))


def thm1_deviation_exact(eps: ArrayLike, delta: ArrayLike) -> float | np.ndarray:
    """The deviation the proof of Thm 1 gives (Lemma 4, k = ⌈εe^ε/δ⌉): 8ε + e^{−ε}δ⌈εe^ε/δ⌉ ∈ [9ε, 9ε + e^{−ε}δ)."""
    e, d = as_positive_array(eps, "eps"), _delta(delta)
    return scalar_or_array(8.0 * e + np.exp(-e) * d * np.ceil(e * np.exp(e) / d))


def thm1_failure_probability(eps: ArrayLike, delta: ArrayLike, version: str = "statement") -> float | np.ndarray:
    """Theorem 1's failure probability b = (e^{−ε}δ/ε) ln(2/ε); ``version="intro"`` is the introduction's and
    Sec. 4.1.2's quote with an extra factor 2 (the paper's two
    statements disagree; the formal statement is the default)."""
    if version not in ("statement", "intro"):
        raise ValueError(f"version={version!r} is not allowed; choose one of ('statement', 'intro')")
    e, d = as_positive_array(eps, "eps"), _delta(delta)
    factor = 2.0 if version == "intro" else 1.0
    return scalar_or_array(factor * np.exp(-e) * d / e * np.log(2.0 / e))


def epsilon_min_for_sample_size(N: ArrayLike, delta: ArrayLike) -> float | np.ndarray:
    """ε_min(N, δ): the ε at which N = N_min(ε, δ) (Thm 1's condition holds iff ε ≥ ε_min). Solving
    Nε² − 2ε − 2 ln(16/δ) = 0 gives ε_min = (1 + sqrt(1 + 2N ln(16/δ)))/N."""
    n, d = as_positive_array(N, "N"), _delta(delta)
    return scalar_or_array((1.0 + np.sqrt(1.0 + 2.0 * n * (np.log(16.0) - np.log(d)))) / n)


def thm1_bound(eps: ArrayLike, delta: ArrayLike, N: ArrayLike) -> dict[str, float | np.ndarray]:
    """Theorem 1 for an (ε, δ)-DP algorithm on N samples, at the smallest ε its sample-size condition admits (our
    evaluation rule, justified by the monotonicity of DP): ε_eff = max(ε, ε_min(N, δ)), a = 9ε_eff, b = b(ε_eff, δ);
    vacuous when a ≥ 1 or b ≥ 1 (a 0-1 loss gap never exceeds 1). Keys:
    ``eps_eff, eps_min, deviation, failure_probability, vacuous, floor_limited``."""
    e = as_non_negative_array(eps, "eps")
    d = _delta(delta)
    eps_min = np.asarray(epsilon_min_for_sample_size(N, d))
    eps_eff = np.maximum(e, eps_min)
    a = 9.0 * eps_eff
    b = np.asarray(thm1_failure_probability(eps_eff, d))
    b = np.where(eps_eff >= 2.0, np.inf, b)  # ln(2/ε) ≤ 0: the statement says nothing
    return {
        "eps_eff": scalar_or_array(eps_eff),
        "eps_min": scalar_or_array(eps_min),
        "deviation": scalar_or_array(a),
        "failure_probability": scalar_or_array(b),
        "vacuous": np.asarray((a >= 1.0) | (b >= 1.0)),
        "floor_limited": np.asarray(eps_min > e),
    }


# ----------------------------------------------------------------------------------------------------------------
# Theorems 2 and 3 (on average; multi-database)
# ----------------------------------------------------------------------------------------------------------------


def thm2_on_average(eps: ArrayLike, delta: ArrayLike, k: ArrayLike = 1) -> float | np.ndarray:
    """Theorem 2: |E R̂_{S_i}(h) − E R(h)| ≤ e^{−ε}kδ + 1 − e^{−ε} (k = 1: any (ε, δ)-DP algorithm)."""
    e, d = as_non_negative_array(eps, "eps"), as_non_negative_array(delta, "delta")
    kk = as_positive_array(k, "k")
    return scalar_or_array(np.exp(-e) * kk * d - np.expm1(-e))


def thm3_deviation(eps: ArrayLike, delta: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    """Theorem 3: P[R̂_{S_i}(h) ≤ R(h) + ke^{−ε}δ + 3ε] ≥ ε; returns the deviation ke^{−ε}δ + 3ε."""
    e, d, kk = as_non_negative_array(eps, "eps"), as_non_negative_array(delta, "delta"), as_positive_array(k, "k")
    return scalar_or_array(kk * np.exp(-e) * d + 3.0 * e)


def thm3_probability_bound(eps: ArrayLike, delta: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    """The Markov step of Theorem 3's proof (App. A.2): with α = ke^{−ε}δ + 3ε,

    (α − (e^{−ε}kδ + ε))/(1 + α) = 2ε/(1 + α).

    The proof prints P[R̂_{S_i}(h) ≤ R(h) + α] ≤ this ≤ ε; its own algebra (E R̂ − E R ≥ α(1 − P) − P and
    Corollary 1) gives P ≥ this, which is ≥ ε exactly when α ≤ 1 (Theorem 3's statement "≥ ε")."""
    alpha = np.asarray(thm3_deviation(eps, delta, k))
    e, d, kk = as_non_negative_array(eps, "eps"), as_non_negative_array(delta, "delta"), as_positive_array(k, "k")
    return scalar_or_array((alpha - (np.exp(-e) * kk * d + e)) / (1.0 + alpha))


def memorizer_probability(eps: ArrayLike, alpha: ArrayLike) -> float | np.ndarray:
    """Exact P[R̂_S(h) ≤ R(h) + α] of an ε-DP memorizer (a test instance of Theorems 2-3, k = 1, N = 1): Z is a fair
    bit, the algorithm releases h = Z with probability e^ε/(1+e^ε) and 1 − Z otherwise (randomized response, exactly
    ε-DP), and l(h, z) = 1[h = z], so R(h) = 1/2 and R̂_S(h) = 1[h = Z]:

    P = 1/(1 + e^ε) if α < 1/2, else 1."""
    e, a = as_non_negative_array(eps, "eps"), as_non_negative_array(alpha, "alpha")
    return scalar_or_array(np.where(a < 0.5, 1.0 / (1.0 + np.exp(e)), 1.0))


def lemma4_sample_size(eps: ArrayLike, delta: ArrayLike) -> tuple[float | np.ndarray, float | np.ndarray]:
    """Lemma 4's constants: k = ⌈ε/(e^{−ε}δ)⌉ databases of N = ⌈(2/ε²) ln(16/(e^{−ε}δ))⌉ samples each (the smallest
    whole N that the lemma allows)."""
    e, d = as_positive_array(eps, "eps"), _delta(delta)
    k = np.ceil(e * np.exp(e) / d)
    return scalar_or_array(k), scalar_or_array(np.ceil(thm1_min_sample_size(e, d)))


def lemma4_hoeffding_probability(
    eps: ArrayLike, N: ArrayLike, k: ArrayLike, variant: str = "corrected"
) -> float | np.ndarray:
    """Eq. (18) of Lemma 4's proof (App. A.2): the probability that all k hypotheses h_i have |l(h_i, T) − R(h_i)| ≤ ε/2
    on an independent sample T of size N, bounded below by (1 − x)^k with

    as_printed: x = e^{−ε²/(2N)} (the printed exponent);
    corrected:  x = 2e^{−2N(ε/2)²} = 2e^{−Nε²/2} (two-sided Hoeffding for a mean of N values in [0, 1]).

    Computed as exp(k log(1 − x)); 0 where x ≥ 1. The proof needs it ≥ 1 − ε/8."""
    e, n, kk = as_positive_array(eps, "eps"), as_positive_array(N, "N"), as_integer_array(k, "k", minimum=1)
    if variant not in STEP_VARIANTS:
        raise ValueError(f"variant={variant!r} is not allowed; choose one of {STEP_VARIANTS}")
    x = np.exp(-(e**2) / (2.0 * n)) if variant == "as_printed" else 2.0 * np.exp(-n * e**2 / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(x < 1.0, np.exp(kk * np.log1p(-np.minimum(x, 1.0))), 0.0)
    return scalar_or_array(value)


def nissim_stemmer_high_probability(eps: ArrayLike, delta: ArrayLike) -> tuple[float | np.ndarray, ...]:
    """Nissim-Stemmer [53] as quoted by the paper: deviation 13ε with failure probability (2δ/ε) log(2/ε)."""
    e, d = as_positive_array(eps, "eps"), as_non_negative_array(delta, "delta")
    return scalar_or_array(13.0 * e), scalar_or_array(2.0 * d / e * np.log(2.0 / e))


def nissim_stemmer_on_average(eps: ArrayLike, delta: ArrayLike, k: ArrayLike = 1) -> float | np.ndarray:
    """Nissim-Stemmer's on-average bound as quoted by the paper: kδ + 2ε."""
    e, d, kk = as_non_negative_array(eps, "eps"), as_non_negative_array(delta, "delta"), as_positive_array(k, "k")
    return scalar_or_array(kk * d + 2.0 * e)


def dwork_2015_high_probability(eps: ArrayLike, delta: ArrayLike) -> tuple[float | np.ndarray, ...]:
    """Dwork et al. 2015 [17] (DFHPRR) as quoted: deviation 4ε with failure probability 8δ^ε."""
    e, d = as_positive_array(eps, "eps"), as_non_negative_array(delta, "delta")
    return scalar_or_array(4.0 * e), scalar_or_array(8.0 * d**e)


def oneto_high_probability(eps: ArrayLike, N: ArrayLike, empirical_risk: ArrayLike) -> tuple[float | np.ndarray, ...]:
    """Oneto et al. [54] (a) as quoted: deviation sqrt(6R̂)·ε̂ + 6(ε² + 1/N), ε̂ = ε + sqrt(1/N); failure 3e^{−Nε²}."""
    e, n = as_positive_array(eps, "eps"), as_positive_array(N, "N")
    r = as_non_negative_array(empirical_risk, "empirical_risk")
    eps_hat = e + np.sqrt(1.0 / n)
    return scalar_or_array(np.sqrt(6.0 * r) * eps_hat + 6.0 * (e**2 + 1.0 / n)), scalar_or_array(
        3.0 * np.exp(-n * e**2)
    )


def oneto_variance_high_probability(
    eps: ArrayLike, N: ArrayLike, variance: ArrayLike
) -> tuple[float | np.ndarray, ...]:
    """Oneto et al. [54] (b) as quoted: sqrt(4V̂)·ε̂ + (5N/(N−1))(ε² + 1/N); failure 3e^{−Nε²}."""
    e, n = as_positive_array(eps, "eps"), as_positive_array(N, "N")
    v = as_non_negative_array(variance, "variance")
    eps_hat = e + np.sqrt(1.0 / n)
    deviation = np.sqrt(4.0 * v) * eps_hat + 5.0 * n / (n - 1.0) * (e**2 + 1.0 / n)
    return scalar_or_array(deviation), scalar_or_array(3.0 * np.exp(-n * e**2))


# ----------------------------------------------------------------------------------------------------------------
# SGLD (Theorem 7) and federated learning (Theorem 8)
# ----------------------------------------------------------------------------------------------------------------


def sgld_step_epsilon(
    L: ArrayLike, sigma: ArrayLike, tau: ArrayLike, delta: ArrayLike, variant: str = "as_printed"
) -> float | np.ndarray:
    """Per-step ε̃ of SGLD's Gaussian step (Thm 7, App. C.1), sensitivity Δ = 2L/τ, noise std σ:

    as_printed: ε̃ = [2√2 Lσ(1/τ)sqrt(log 1/δ) + 4L²/τ²]/(2σ²);
    corrected:  ε̃ = [4√2 Lσ(1/τ)sqrt(log 1/δ) + 4L²/τ²]/(2σ²) = Δ²/(2σ²) + (Δ/σ)sqrt(2 log 1/δ).
    """
    if variant not in STEP_VARIANTS:
        raise ValueError(f"variant={variant!r} is not allowed; choose one of {STEP_VARIANTS}")
    lip, s, t = as_positive_array(L, "L"), as_positive_array(sigma, "sigma"), as_positive_array(tau, "tau")
    d = _delta(delta)
    coefficient = (4.0 if variant == "corrected" else 2.0) * np.sqrt(2.0)
    return scalar_or_array((coefficient * lip * s / t * np.sqrt(-np.log(d)) + 4.0 * lip**2 / t**2) / (2.0 * s**2))


def fl_step_epsilon(
    sigma: ArrayLike, tau: ArrayLike, delta: ArrayLike, variant: str = "as_printed"
) -> float | np.ndarray:
    """Per-step ε̃ of DP federated learning (Thm 8; noise std Lσ, clipped client updates of norm ≤ L):

    as_printed: [4σ(1/τ)sqrt(log 1/δ) + 1/τ²]/(2σ²);
    substitution (sensitivity 2L/τ): [4√2σ(1/τ)sqrt(log 1/δ) + 4/τ²]/(2σ²);
    add_remove (sensitivity L/τ): [2√2σ(1/τ)sqrt(log 1/δ) + 1/τ²]/(2σ²).
    """
    coefficients = {
        "as_printed": (4.0, 1.0),
        "substitution": (4.0 * np.sqrt(2.0), 4.0),
        "add_remove": (2.0 * np.sqrt(2.0), 1.0),
    }
    if variant not in coefficients:
        raise ValueError(f"variant={variant!r} is not allowed; choose one of {FL_VARIANTS}")
    s, t, d = as_positive_array(sigma, "sigma"), as_positive_array(tau, "tau"), _delta(delta)
    linear, quadratic = coefficients[variant]
    return scalar_or_array((linear * s / t * np.sqrt(-np.log(d)) + quadratic / t**2) / (2.0 * s**2))


def amplify_by_subsampling(eps: ArrayLike, q: ArrayLike, method: str = "exact") -> float | np.ndarray:
    """Privacy amplification of an ε-DP step by sampling a fraction q: ``"linear"`` is the paper's 2qε ("Lemma 4.4
    of [7]"); ``"exact"`` is Balle-Barthe-Gaboardi 2018's log(1 + q(e^ε − 1)) (without replacement, substitution)."""
    e, qq = as_non_negative_array(eps, "eps"), as_positive_array(q, "q")
    require(qq <= 1, "q", qq, "0 < q <= 1")
    if method == "linear":
        return scalar_or_array(2.0 * qq * e)
    if method == "exact":
        return scalar_or_array(np.log1p(qq * np.expm1(e)))
    raise ValueError(f"method={method!r} is not allowed; choose one of ('linear', 'exact')")


def linear_amplification_threshold(q: float | None = None) -> float:
    """Largest ε̃ for which 2qε̃ ≥ log(1+q(e^ε̃−1)) (the linear amplification is a valid upper bound): the root of
    log(1+q(e^x−1)) = 2qx, or of e^x − 1 = 2x in the limit q → 0 (uniform in q); +inf for q ≥ 1/2 (never fails)."""
    if q is None:
        return float(optimize.brentq(lambda x: np.expm1(x) - 2.0 * x, 0.1, 5.0, xtol=1e-15))
    require(np.asarray(0 < real_number("q", q) <= 1), "q", q, "0 < q <= 1")
    if q >= 0.5:
        return float("inf")
    return float(optimize.brentq(lambda x: np.log1p(q * np.expm1(x)) - 2.0 * q * x, 0.1, 50.0, xtol=1e-15))


def thm7_printed_delta_tilde(
    eps_prime: ArrayLike, eps_tilde: ArrayLike, q: ArrayLike, T: ArrayLike
) -> float | np.ndarray:
    """The δ̃ printed in Thm 7 (circular, with per-step q·ε̃ instead of 2qε̃, and Cor 3's sign typo):

    e^{−(ε′ + qTε̃)/2} ((1/(1+e^{qε̃}))·2qTε̃/(qTε̃ − ε′))^T ((qTε̃ + ε′)/(qTε̃ − ε′))^{−(ε′ + qTε̃)/(2qε̃)};
    NaN where undefined (ε′ ≥ qTε̃). For information only."""
    ep, et = as_non_negative_array(eps_prime, "eps_prime"), as_positive_array(eps_tilde, "eps_tilde")
    qq, t = as_positive_array(q, "q"), as_positive_array(T, "T")
    step = qq * et
    total = t * step
    ok = ep < total
    safe = np.where(ok, ep, 0.5 * total)
    log_value = (
        -(safe + total) / 2.0
        + t * (np.log(2.0 * total) - np.log(total - safe) - np.logaddexp(0.0, step))
        - (safe + total) / (2.0 * step) * (np.log(total + safe) - np.log(total - safe))
    )
    return scalar_or_array(np.where(ok, np.exp(log_value), np.nan))


def iterative_privacy(
    eps_tilde: ArrayLike, q: ArrayLike, delta: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike, variant: str = "valid"
) -> dict[str, float | np.ndarray]:
    """(ε′, δ′) of T subsampled (ε̃, δ)-DP steps (Thm 7's and Thm 8's composition):

    - ``"as_printed"`` (P): ε_s = 2qε̃, δ_s = qδ; ε′ = Cor 3's ε′_3(ε_s, T, δ̃) capped at Tε_s; δ′ = Cor 2 form
      with c = ⌈ε′/ε_s⌉ and tail δ̃;
    - ``"valid"`` (V): ε_s = log(1 + q(e^ε̃ − 1)), δ_s = qδ; ε′ = KOV min{ε′_1, ε′_2, ε′_3}; δ′ = 1 − (1−δ_s)^T(1−δ̃).

    Keys: ``eps_step, delta_step, eps_prime, delta_prime``.
    """
    if variant not in SGLD_VARIANTS:
        raise ValueError(f"variant={variant!r} is not allowed; choose one of {SGLD_VARIANTS}")
    as_non_negative_array(eps_tilde, "eps_tilde")
    d = _delta(delta)
    delta_step = as_positive_array(q, "q") * d
    if variant == "as_printed":
        eps_step = np.asarray(amplify_by_subsampling(eps_tilde, q, "linear"))
        eps_prime = np.asarray(cor3_epsilon(eps_step, T, delta_tilde))
        delta_prime = np.asarray(cor2_delta(eps_step, delta_step, T, eps_prime, delta_tilde))
    else:
        eps_step = np.asarray(amplify_by_subsampling(eps_tilde, q, "exact"))
        eps_prime = np.asarray(kov_epsilon(eps_step, T, delta_tilde))
        delta_prime = np.asarray(kov_delta(delta_step, T, delta_tilde))
    return {
        "eps_step": scalar_or_array(eps_step),
        "delta_step": scalar_or_array(delta_step),
        "eps_prime": scalar_or_array(eps_prime),
        "delta_prime": scalar_or_array(delta_prime),
    }


def sgld_privacy(
    N: ArrayLike,
    tau: ArrayLike,
    T: ArrayLike,
    sigma: ArrayLike,
    L: ArrayLike = 1.0,
    delta: ArrayLike = 1e-6,
    delta_tilde: ArrayLike = 1e-6,
    variant: str = "valid",
) -> dict[str, float | np.ndarray]:
    """Theorem 7: (ε′, δ′)-DP of SGLD (Algorithm 1) with N samples, batch τ, T steps, noise std σ, L-Lipschitz loss.
    ``"as_printed"`` uses the printed ε̃ and the paper's composition; ``"valid"`` the corrected ε̃, exact amplification
    and KOV (:func:`iterative_privacy`). Also returns ``eps_tilde``, ``q`` and ``thm7_printed_delta_tilde`` (the
    printed circular δ̃, for information; NaN for the valid variant)."""
    q = as_positive_array(tau, "tau") / as_positive_array(N, "N")
    require(q <= 1, "tau", tau, "tau <= N")
    step_variant = "as_printed" if variant == "as_printed" else "corrected"
    eps_tilde = sgld_step_epsilon(L, sigma, tau, delta, step_variant)
    result = {
        "eps_tilde": eps_tilde,
        "q": scalar_or_array(q),
        **iterative_privacy(eps_tilde, q, delta, T, delta_tilde, variant),
    }
    printed = thm7_printed_delta_tilde(result["eps_prime"], eps_tilde, q, T)
    result["thm7_printed_delta_tilde"] = (
        printed if variant == "as_printed" else scalar_or_array(np.full(np.shape(printed), np.nan))
    )
    return result


def fl_privacy(
    N: ArrayLike,
    tau: ArrayLike,
    T: ArrayLike,
    sigma: ArrayLike,
    delta: ArrayLike = 1e-6,
    delta_tilde: ArrayLike = 1e-6,
    variant: str = "as_printed",
) -> dict[str, float | np.ndarray]:
    """Theorem 8: (ε′, δ′)-DP of DP federated learning (Algorithm 2), N clients, τ sampled per round, T rounds.
    ``"as_printed"``: printed ε̃_FL and the paper's composition (as Thm 7 P); ``"substitution"`` / ``"add_remove"``:
    corrected ε̃ for that adjacency, exact amplification and KOV (as Thm 7 V)."""
    if variant not in FL_VARIANTS:
        raise ValueError(f"variant={variant!r} is not allowed; choose one of {FL_VARIANTS}")
    q = as_positive_array(tau, "tau") / as_positive_array(N, "N")
    require(q <= 1, "tau", tau, "tau <= N")
    eps_tilde = fl_step_epsilon(sigma, tau, delta, variant)
    composition = "as_printed" if variant == "as_printed" else "valid"
    return {
        "eps_tilde": eps_tilde,
        "q": scalar_or_array(q),
        **iterative_privacy(eps_tilde, q, delta, T, delta_tilde, composition),
    }


def wang_sgld_threshold(eps: ArrayLike, delta: ArrayLike, N: ArrayLike, tau: ArrayLike) -> float | np.ndarray:
    """Wang et al. [68] as quoted by the paper: "SGLD is (ε, δ)-DP if T > ε²N/(32τ log(2/δ))"; returns the
    threshold ε²N/(32τ log(2/δ)) (presumably an erratum in the quote:
    privacy degrades with T, so the original condition should be an upper limit on T)."""
    e, d = as_positive_array(eps, "eps"), _delta(delta)
    n, t = as_positive_array(N, "N"), as_positive_array(tau, "tau")
    return scalar_or_array(e**2 * n / (32.0 * t * np.log(2.0 / d)))


def composition_iv_epsilon(eps_steps: ArrayLike, delta_prime: float) -> float:
    """Theorem 5 (Composition Theorem IV): T adaptively composed ε_i-DP steps are (ε′, δ′)-DP for every δ′ ∈ (0, 1)
    with ε′ = sqrt(2 log(1/δ′) Σ ε_i²) + Σ ε_i (e^{ε_i} − 1)/(e^{ε_i} + 1)."""
    e = as_non_negative_array(eps_steps, "eps_steps").ravel()
    d = float(_delta(delta_prime, "delta_prime"))
    return float(np.sqrt(2.0 * np.log(1.0 / d) * np.sum(e**2)) + np.sum(kl_bound_lemma5(e)))


def sgld_linear_loss_delta(epsilon: float, *, N: float, tau: float, L: float, sigma: float, steps: int) -> float:
    """Exact δ(ε) of SGLD's released trajectory (He-Wang-Tao, Algorithm 1) on a linear loss whose gradients all equal
    −Lu except the differing record's +Lu: each step adds N(0, σ²) to the batch-mean gradient, which moves by 2L/τ
    exactly when the record is in the batch (probability τ/N), so the step is the subsampled Gaussian
    (1−q)N(0,1) + qN(μ,1) against N(0,1), μ = 2L/(τσ); composed over T steps with dp_accounting's privacy loss
    distribution (both orders of the pair). Algorithm 2 (federated, noise Lσ, clipped updates of norm ≤ L) is the
    same pair with L = 1."""
    eps = float(as_non_negative_array(epsilon, "epsilon"))
    n, batch = float(as_positive_array(N, "N")), float(as_positive_array(tau, "tau"))
    lip, s = float(as_positive_array(L, "L")), float(as_positive_array(sigma, "sigma"))
    whole_number("steps", steps, minimum=1)
    require(np.asarray(batch <= n), "tau", tau, f"at most N = {N}")
    # imported here, not with the module: the other bounds of this module are closed forms, and dp_accounting costs
    # every process that imports it about 0.8 s (most of the study's jobs never compose a distribution)
    from dp_accounting.pld import privacy_loss_distribution

    step = privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=1.0,
        sensitivity=2 * lip / (batch * s),
        sampling_prob=batch / n,
        value_discretization_interval=1e-4,
    )
    return float((step.self_compose(int(steps)) if steps > 1 else step).get_delta_for_epsilon(eps))


def generalization_bounds(eps_prime: ArrayLike, delta_prime: ArrayLike, N: ArrayLike) -> Mapping[str, np.ndarray]:
    """Both DP ⇒ generalization bounds for an (ε′, δ′)-DP learner on N samples: Thm 1 (see :func:`thm1_bound`) and
    the on-average Thm 2 with k = 1. Keys: those of :func:`thm1_bound` plus ``on_average``."""
    as_non_negative_array(eps_prime, "eps_prime")
    _delta(delta_prime, "delta_prime")
    hp = thm1_bound(eps_prime, delta_prime, N)
    return {
        **{k: np.asarray(v) for k, v in hp.items()},
        "on_average": np.asarray(thm2_on_average(eps_prime, delta_prime)),
    }


def composition_certificates(
    eps: float, delta: float, dt: float, steps: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(ε′, δ′) that each composition theorem certifies for T steps of (ε, δ)-DP at every T in ``steps``, slack δ̃:
    DRV (Dwork, Rothblum, Vadhan), KOV Theorem 3.4, the paper's Corollary 2 (exact and first order), Theorem 4 (box
    form), Corollary 3 (corrected and printed δ″, with its own ε′), the exact optimal δ at the KOV ε′ and the
    universal lower bound 1 − (1 − δ)^T; every method but Corollary 3 at the KOV / Theorem 4 ε′."""
    ep = np.asarray(kov_epsilon(eps, steps, dt))
    ep3 = np.asarray(cor3_epsilon(eps, steps, dt))
    cor3_terms = np.asarray(cor2_delta(eps, delta, steps, ep3, 0.0))
    thm4 = np.array([thm4_delta(eps, delta, int(t), float(e), dt) for t, e in zip(steps, ep)])
    optimal = np.exp([optimal_log_delta(eps, delta, int(t), float(e)) for t, e in zip(steps, ep)])
    return {
        "drv": (np.asarray(drv_epsilon(eps, steps, dt)), np.asarray(drv_delta(delta, steps, dt))),
        "kov": (ep, np.asarray(kov_delta(delta, steps, dt))),
        "cor2": (ep, np.asarray(cor2_delta(eps, delta, steps, ep, dt))),
        "cor2_first_order": (ep, np.asarray(cor2_delta_first_order(eps, delta, steps, ep, dt))),
        "thm4_box": (ep, thm4),
        "cor3_corrected": (ep3, cor3_terms + np.exp(cor3_log_delta_double_prime(eps, steps, ep3, "corrected"))),
        "cor3_as_printed": (
            ep3,
            cor3_terms + np.nan_to_num(np.exp(cor3_log_delta_double_prime(eps, steps, ep3, "as_printed")), nan=0.0),
        ),
        "optimal_at_kov_eps": (ep, optimal),
        "lower_bound": (ep, np.asarray(lower_bound_delta(delta, steps))),
    }


def sgld_privacy_and_generalization(
    N: float,
    tau: int,
    steps: np.ndarray,
    sigma: float,
    L: float,
    delta: float,
    delta_tilde: float,
    variant: str,
    kind: str = "sgld",
) -> dict[str, np.ndarray]:
    """Privacy (Theorem 7 for SGLD, Theorem 8 for federated learning, ``variant`` as printed or corrected) and both
    generalization bounds (Theorem 1 with its sample-size floor, Theorem 2 with k = 1) at every T of ``steps``, as
    columns of equal length.

    For SGLD also: ``step_delta_exact``, the exact δ of the per-step Gaussian mechanism (sensitivity 2L/τ, std σ)
    at the variant's ε̃ (``step_claim_holds``: ≤ δ); ``linear_amplification_invalid``, whether the true (corrected)
    ε̃ exceeds the range where 2qε̃ bounds the amplified ε; and Thm 7's printed circular δ̃ (information only)."""
    if kind == "sgld":
        privacy = sgld_privacy(N, tau, steps, sigma, L, delta, delta_tilde, variant)
    else:
        privacy = fl_privacy(N, tau, steps, sigma, delta, delta_tilde, variant)
    bounds = generalization_bounds(privacy["eps_prime"], privacy["delta_prime"], N)
    shape = np.shape(steps)
    columns = {
        "eps_tilde": np.broadcast_to(privacy["eps_tilde"], shape),
        "eps_step": np.broadcast_to(privacy["eps_step"], shape),
        "delta_step": np.broadcast_to(privacy["delta_step"], shape),
        "eps_prime": privacy["eps_prime"],
        "delta_prime": privacy["delta_prime"],
        "eps_min": bounds["eps_min"],
        "hp_bound": bounds["deviation"],
        "failure_probability": bounds["failure_probability"],
        "hp_vacuous": bounds["vacuous"],
        "floor_limited": bounds["floor_limited"],
        "on_average": bounds["on_average"],
        "on_average_vacuous": bounds["on_average"] >= 1.0,
    }
    if kind == "sgld":
        true_step = sgld_step_epsilon(L, sigma, tau, delta, "corrected")
        step_delta = gaussian_hockey_stick(privacy["eps_tilde"], 2.0 * L / (tau * sigma))
        columns.update(
            {
                "step_delta_exact": np.broadcast_to(step_delta, shape),
                "step_claim_holds": np.broadcast_to(step_delta <= delta, shape),
                "linear_amplification_invalid": np.broadcast_to(
                    true_step > linear_amplification_threshold(min(tau / N, 1.0)), shape
                ),
                "thm7_printed_delta_tilde": np.broadcast_to(privacy["thm7_printed_delta_tilde"], shape),
            }
        )
    return columns


# ----------------------------------------------------------------------------------------------------------------
# The bounds side by side, per method (the figures and tables that test the "strictly tighter" claims)
# ----------------------------------------------------------------------------------------------------------------


def kl_bounds(eps: ArrayLike) -> dict[str, float | np.ndarray]:
    """The KL divergence bounds of an ε-DP mechanism by method: Lemma 5's ε tanh(ε/2) (``lemma5``), the exact KL of
    ε-randomized response, which attains it (``randomized_response``), Dwork-Rothblum 2016's ½ε(e^ε − 1) (``dr16``)
    and Dwork-Rothblum-Vadhan 2010's ε(e^ε − 1) (``drv10``)."""
    as_non_negative_array(eps, "eps")
    return {
        "lemma5": kl_bound_lemma5(eps),
        "randomized_response": kl_randomized_response(eps),
        "dr16": kl_bound_dr16(eps),
        "drv10": kl_bound_drv10(eps),
    }


def high_probability_bounds(eps: ArrayLike, delta: float) -> dict[str, tuple[float | np.ndarray, ...]]:
    """(deviation a, failure probability b) of each high-probability bound for an (ε, δ)-DP learner: Theorem 1 as
    stated (a = 9ε, b = (e^{−ε}δ/ε) ln(2/ε), ``thm1``), Theorem 1 with the introduction's b (twice that,
    ``thm1_intro``), Nissim-Stemmer (13ε, (2δ/ε) log(2/ε)) and Dwork et al. 2015 (4ε, 8δ^ε)."""
    as_positive_array(eps, "eps")
    _delta(delta)
    return {
        "thm1": (thm1_deviation(eps), thm1_failure_probability(eps, delta)),
        "thm1_intro": (thm1_deviation(eps), thm1_failure_probability(eps, delta, "intro")),
        "nissim_stemmer": nissim_stemmer_high_probability(eps, delta),
        "dwork_2015": dwork_2015_high_probability(eps, delta),
    }


def epsilon_certificates(
    eps: float, steps: np.ndarray, delta_tilde: float, optimal_delta: float
) -> dict[str, float | np.ndarray]:
    """ε′(T) that each composition theorem certifies for T pure ε-DP steps at every T of ``steps``, slack δ̃: basic
    (Tε), DRV, KOV Theorem 3.4 (= the paper's Theorem 4, ``kov_thm4``), Corollary 3's ε′_3 (``cor3``), and the exact
    optimal ε′ at δ′ = ``optimal_delta`` (KOV Theorem 3.3 with δ = 0, ``optimal_pure``)."""
    as_integer_array(steps, "T", minimum=1)
    probability("optimal_delta", optimal_delta)
    certificates = {  # the closed forms check eps and delta_tilde before the exact optimum's loop over T
        "basic": basic_composition(eps, 0.0, steps)[0],
        "drv": drv_epsilon(eps, steps, delta_tilde),
        "kov_thm4": kov_epsilon(eps, steps, delta_tilde),
        "cor3": cor3_epsilon(eps, steps, delta_tilde),
    }
    certificates["optimal_pure"] = np.array([optimal_epsilon(eps, 0.0, int(t), optimal_delta) for t in steps])
    return certificates


def composition_certificate_rows(eps: float, delta: float, t: int, delta_tilde: float) -> list[dict[str, object]]:
    """One record per method at T = ``t`` steps of (ε, δ)-DP, slack δ̃: (ε′, δ′) of :func:`composition_certificates`,
    basic composition, and Theorem 4 in its literal reading at the KOV ε′ (``thm4_literal``); with the lower bound
    1 − (1−δ)^T (also as log10), the exact optimal δ at min(ε′, Tε) (KOV Theorem 3.3), c = ⌈ε′/ε⌉ clipped to
    [0, T], and whether a theorem's δ′ falls below the lower bound or the optimum (an impossible certificate)."""
    positive_finite("eps", eps)
    t = whole_number("t", t)
    floor = float(lower_bound_delta(delta, t))
    log_floor = float(log_lower_bound_delta(delta, t))
    kov_ep = float(kov_epsilon(eps, t, delta_tilde))
    methods = {
        m: (float(e[0]), float(d[0]))
        for m, (e, d) in composition_certificates(eps, delta, delta_tilde, np.array([t])).items()
    }
    methods["basic"] = tuple(float(x) for x in basic_composition(eps, delta, t))
    methods["thm4_literal"] = (kov_ep, thm4_delta(eps, delta, t, kov_ep, delta_tilde, "literal"))
    rows = []
    for method, (ep, dp) in methods.items():
        optimal = float(np.exp(optimal_log_delta(eps, delta, t, min(ep, t * eps))))
        theorem = method not in ("lower_bound", "optimal_at_kov_eps")
        rows.append(
            {
                "epsilon_step": eps,
                "delta_step": delta,
                "t": t,
                "delta_tilde": delta_tilde,
                "method": method,
                "eps_prime": ep,
                "delta_prime": dp,
                "lower_bound": floor,
                "log10_lower_bound": log_floor / np.log(10.0),
                "optimal_delta_at_eps_prime": optimal,
                "c": int(np.clip(np.ceil(ep / eps - 1e-12), 0, t)),
                "below_lower_bound": bool(theorem and dp < floor * (1 - 1e-12)),
                "below_optimal": bool(theorem and dp < optimal * (1 - 1e-12)),
            }
        )
    return rows


def delta_certificate_columns(
    eps: float, delta: float, delta_tilde: float, steps: np.ndarray
) -> list[dict[str, object]]:
    """Columns per method (one entry per T of ``steps``) of :func:`composition_certificates`: (ε′, δ′), log10 δ′
    (−inf at δ′ = 0), δ′/(Tδ), the lower bound 1 − (1−δ)^T, and whether δ′ falls below it (an impossible
    certificate; never for the ``lower_bound`` row itself)."""
    as_integer_array(steps, "T", minimum=1)
    floor = np.asarray(lower_bound_delta(delta, steps))
    columns = []
    for method, (ep, dp) in composition_certificates(eps, delta, delta_tilde, steps).items():
        with np.errstate(divide="ignore"):
            log10_dp = np.log10(np.asarray(dp, dtype=float))
        columns.append(
            {
                "epsilon_step": eps,
                "delta_step": delta,
                "delta_tilde": delta_tilde,
                "t": steps,
                "method": method,
                "eps_prime": ep,
                "delta_prime": dp,
                "log10_delta_prime": log10_dp,
                "delta_prime_over_t_delta": dp / (steps * delta),
                "lower_bound": floor,
                "below_lower_bound": (dp < floor * (1 - 1e-12)) & (method != "lower_bound"),
            }
        )
    return columns


def fair_comparison_rows(eps: float, delta: float, t: int, delta_target: float, n_scan: int) -> list[dict[str, object]]:
    """The smallest ε′ each method of :data:`~dplab.accounting.composition.MIN_EPSILON_METHODS` certifies at a total
    δ_target after T = ``t`` steps of (ε, δ)-DP (δ̃ optimised for the paper's Corollaries 2 and 3), one record per
    method, with flags where a Corollary's value is below the exact optimum (impossible) or finite where the optimum
    is not, and the lower bound 1 − (1−δ)^T."""
    t = whole_number("t", t)
    values = {m: min_epsilon_at_target(m, eps, delta, t, delta_target, n_scan) for m in MIN_EPSILON_METHODS}
    optimal = values["optimal"]
    rows = []
    for method, value in values.items():
        paper = method.startswith("cor")
        rows.append(
            {
                "epsilon_step": eps,
                "delta_step": delta,
                "delta_target": delta_target,
                "t": t,
                "method": method,
                "eps_prime": value,
                "finite": bool(np.isfinite(value)),
                "below_optimal": bool(paper and np.isfinite(value) and value < optimal * (1 - 1e-9)),
                "feasible_only_for_paper": bool(paper and np.isfinite(value) and not np.isfinite(optimal)),
                "lower_bound": float(lower_bound_delta(delta, t)),
            }
        )
    return rows
