"""Composition of T (ε, δ)-DP steps: basic, advanced (DRV), KOV, the exact optimum, and He-Wang-Tao's theorems.

Setting (He, Wang, Tao, "Tighter Generalization Bounds for Iterative Differentially Private Learning Algorithms",
Sec. 4.2): T adaptive steps, step i is (ε_i, δ_i)-DP; the output is the whole sequence. Homogeneous functions take
the per-step (ε, δ) and T and broadcast over numpy arrays; ``*_heterogeneous`` functions take per-step lists.

- basic composition: (Tε, Tδ);
- Dwork-Rothblum-Vadhan advanced composition (Dwork-Roth Thm 3.20): ε′ = Σε_i(e^{ε_i}−1) + sqrt(2 log(1/δ̃) Σε_i²),
  δ′ = δ̃ + Σδ_i;
- Kairouz-Oh-Viswanath (KOV, IEEE-IT 2017) Thm 3.4/3.5: ε′ = min{ε′_1, ε′_2, ε′_3}, δ′ = 1 − (1−δ̃)Π(1−δ_i);
  the paper's Theorem 4 has the same ε′ (its eqs. for ε′_1, ε′_2, ε′_3);
- the exact optimal composition of (ε, δ)-DP steps, KOV Thm 3.3 (attained by the T-fold product of the KOV pair
  :func:`kov_pair`; :func:`brute_force_product_delta` checks it by enumerating all 4^T outcomes);
- the universal lower bound 1 − (1−δ)^T that every valid composition theorem's δ′ must respect;
- the paper's Theorem 4 δ′ (max over the set I, read with the box 0 ≤ α_i ≤ ε_i or literally), Corollary 2 and
  Corollary 3 (with its δ″ "as_printed", prefactor e^{−(ε′+Tε)/2}, and "corrected", prefactor e^{+(ε′+Tε)/2}).

All products 1 − Π(1 − x_i) are evaluated as −expm1(Σ log1p(−x_i)); δ that can underflow is handled in log-space.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln, logsumexp

from dplab.accounting._arrays import scalar_or_array
from dplab.checks import as_float_array, as_non_negative_array, as_positive_array, probability, require, whole_number
from dplab.numerics import log1mexp

__all__ = [
    "COR3_VARIANTS",
    "THM4_READINGS",
    "kl_bound_lemma5",
    "basic_composition",
    "drv_epsilon",
    "drv_delta",
    "kov_epsilon_terms",
    "kov_epsilon",
    "kov_epsilon_heterogeneous",
    "kov_delta",
    "lower_bound_delta",
    "log_lower_bound_delta",
    "optimal_log_delta",
    "optimal_delta",
    "optimal_epsilon",
    "kov_pair",
    "brute_force_product_delta",
    "brute_force_heterogeneous_product_delta",
    "cor2_delta",
    "cor2_delta_first_order",
    "thm4_delta",
    "thm4_delta_heterogeneous",
    "lemma6_objective",
    "lemma6_boundary_maximum",
    "lemma6_grid_maximum",
    "cor3_epsilon",
    "cor3_log_delta_double_prime",
    "cor3_delta",
    "min_epsilon_at_target",
    "MIN_EPSILON_METHODS",
]

COR3_VARIANTS = ("as_printed", "corrected")
THM4_READINGS = ("box", "literal")
MIN_EPSILON_METHODS = ("basic", "drv", "kov", "cor2", "cor3_corrected", "cor3_as_printed", "optimal")


# ----------------------------------------------------------------------------------------------------------------
# Input checks
# ----------------------------------------------------------------------------------------------------------------


def _delta(value: ArrayLike, name: str = "delta") -> np.ndarray:
    array = as_non_negative_array(value, name)
    require(array < 1, name, array, f"0 <= {name} < 1")
    return array


def _delta_tilde(value: ArrayLike) -> np.ndarray:
    array = as_positive_array(value, "delta_tilde")
    require(array < 1, "delta_tilde", array, "0 < delta_tilde < 1")
    return array


def _steps(value: ArrayLike) -> np.ndarray:
    array = as_float_array(value, "T")
    require(np.isfinite(array) & (array >= 1) & (array == np.round(array)), "T", value, "a whole number >= 1")
    return array


def _one_minus_product(log_factors_sum: np.ndarray) -> np.ndarray:
    """1 − exp(Σ log(1 − x_i)) without cancellation."""
    return -np.expm1(log_factors_sum)


def _kov_masses(eps: ArrayLike, delta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(e^ε a, a) with a = δ/(1+e^ε): the δ-masses of the KOV pair at ε and at 0. Where e^ε overflows (ε > 709.78)
    e^ε a reads inf·0 = NaN; it is δ there (e^ε/(1+e^ε) = 1 in float64 from ε ≈ 37 on)."""
    with np.errstate(over="ignore", invalid="ignore"):
        light = delta / (1.0 + np.exp(eps))
        heavy = np.exp(eps) * light
    return np.where(np.isfinite(heavy), heavy, delta), light


# ----------------------------------------------------------------------------------------------------------------
# Lemma 5 (needed by the KOV / Theorem 4 ε′)
# ----------------------------------------------------------------------------------------------------------------


def kl_bound_lemma5(eps: ArrayLike) -> float | np.ndarray:
    """Lemma 5 of He-Wang-Tao: an ε-DP mechanism has D_KL ≤ ε(e^ε−1)/(e^ε+1) = ε·tanh(ε/2)."""
    e = as_non_negative_array(eps, "eps")
    return scalar_or_array(e * np.tanh(e / 2.0))


# ----------------------------------------------------------------------------------------------------------------
# Baselines: basic, DRV, KOV
# ----------------------------------------------------------------------------------------------------------------


def basic_composition(eps: ArrayLike, delta: ArrayLike, T: ArrayLike) -> tuple[float | np.ndarray, ...]:
    """Basic composition (Dwork-Roth Thm 3.16): (ε′, δ′) = (Tε, Tδ)."""
    e, d, t = as_non_negative_array(eps, "eps"), _delta(delta), _steps(T)
    return scalar_or_array(t * e), scalar_or_array(t * d)


def drv_epsilon(eps: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike) -> float | np.ndarray:
    """Dwork-Rothblum-Vadhan advanced composition (Dwork-Roth Thm 3.20), homogeneous:
    ε′ = Tε(e^ε − 1) + ε·sqrt(2T log(1/δ̃))."""
    e, t, dt = as_non_negative_array(eps, "eps"), _steps(T), _delta_tilde(delta_tilde)
    return scalar_or_array(t * e * np.expm1(e) + e * np.sqrt(2.0 * t * -np.log(dt)))


def drv_delta(delta: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike) -> float | np.ndarray:
    """Dwork-Rothblum-Vadhan advanced composition: δ′ = Tδ + δ̃."""
    return scalar_or_array(_steps(T) * _delta(delta) + _delta_tilde(delta_tilde))


def _kov_terms(sum_eps: np.ndarray, sum_sq: np.ndarray, sum_kl: np.ndarray, dt: np.ndarray) -> tuple[np.ndarray, ...]:
    """KOV Thm 3.5 / He-Wang-Tao Thm 4: ε′_1 = Σε_i; ε′_2 = Σε_i tanh(ε_i/2) + sqrt(2Σε_i² log(e + sqrt(Σε_i²)/δ̃));
    ε′_3 = Σε_i tanh(ε_i/2) + sqrt(2 log(1/δ̃) Σε_i²)."""
    e1 = sum_eps
    e2 = sum_kl + np.sqrt(2.0 * sum_sq * np.log(np.e + np.sqrt(sum_sq) / dt))
    e3 = sum_kl + np.sqrt(2.0 * sum_sq * -np.log(dt))
    return e1, e2, e3


def kov_epsilon_terms(eps: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike) -> tuple[float | np.ndarray, ...]:
    """(ε′_1, ε′_2, ε′_3) of KOV Thm 3.4 = He-Wang-Tao Thm 4 for T homogeneous ε-DP steps."""
    e, t, dt = as_non_negative_array(eps, "eps"), _steps(T), _delta_tilde(delta_tilde)
    return tuple(scalar_or_array(x) for x in _kov_terms(t * e, t * e**2, t * e * np.tanh(e / 2.0), dt))


def kov_epsilon(eps: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike) -> float | np.ndarray:
    """ε′ = min{ε′_1, ε′_2, ε′_3} (KOV Thm 3.4; He-Wang-Tao Thm 4 and Cor 2, homogeneous)."""
    e1, e2, e3 = np.broadcast_arrays(*kov_epsilon_terms(eps, T, delta_tilde))
    return scalar_or_array(np.minimum(np.minimum(e1, e2), e3))


def kov_epsilon_heterogeneous(eps_steps: Sequence[float], delta_tilde: float) -> float:
    """ε′ = min{ε′_1, ε′_2, ε′_3} for heterogeneous steps (KOV Thm 3.5; He-Wang-Tao Thm 4)."""
    e = as_non_negative_array(eps_steps, "eps_steps").ravel()
    dt = _delta_tilde(delta_tilde)
    terms = _kov_terms(e.sum(), (e**2).sum(), (e * np.tanh(e / 2.0)).sum(), dt)
    return float(min(terms))


def kov_delta(delta: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike) -> float | np.ndarray:
    """KOV Thm 3.4: δ′ = 1 − (1 − δ)^T (1 − δ̃)."""
    d, t, dt = _delta(delta), _steps(T), _delta_tilde(delta_tilde)
    return scalar_or_array(_one_minus_product(t * np.log1p(-d) + np.log1p(-dt)))


# ----------------------------------------------------------------------------------------------------------------
# Lower bound and exact optimal composition (KOV Thm 3.3)
# ----------------------------------------------------------------------------------------------------------------


def lower_bound_delta(delta: ArrayLike, T: ArrayLike) -> float | np.ndarray:
    """1 − (1 − δ)^T: no composition theorem for (ε, δ)-DP steps can certify a smaller δ′, at any ε′ (the KOV pair's
    T-fold product puts mass 1 − (1−δ)^T on outcomes impossible under the neighbour)."""
    return scalar_or_array(_one_minus_product(_steps(T) * np.log1p(-_delta(delta))))


def log_lower_bound_delta(delta: ArrayLike, T: ArrayLike) -> float | np.ndarray:
    """log(1 − (1 − δ)^T), −inf exactly when δ = 0."""
    d, t = _delta(delta), _steps(T)
    with np.errstate(divide="ignore", invalid="ignore"):
        small = np.log(t) + np.log(d) + np.log1p(-(t - 1) * d / 2.0)  # series when Tδ is tiny
        direct = np.log(_one_minus_product(t * np.log1p(-d)))
    return scalar_or_array(np.where(t * d < 1e-12, small, direct))


def _log_pure_optimal_delta(eps: float, T: int, eps_prime: float) -> float:
    """log Σ_j C(T,j) p^j q^{T−j} [1 − e^{ε′ − ε(2j−T)}]_+ with p = e^ε/(1+e^ε): the optimal δ of T ε-DP steps."""
    j = np.arange(T + 1, dtype=np.float64)
    log_weight = gammaln(T + 1) - gammaln(j + 1) - gammaln(T - j + 1) + j * eps - T * np.logaddexp(0.0, eps)
    privacy_loss = eps * (2.0 * j - T)
    above = privacy_loss > eps_prime
    if not above.any():
        return -np.inf
    return float(logsumexp(log_weight[above] + log1mexp(eps_prime - privacy_loss[above])))


def optimal_log_delta(eps: float, delta: float, T: int, eps_prime: ArrayLike) -> float | np.ndarray:
    """log δ_opt(ε′) of T-fold composition of (ε, δ)-DP steps, KOV (2017) Thm 3.3:

    δ_opt(ε′) = 1 − (1−δ)^T (1 − Σ_{j} C(T,j) p^j q^{T−j} [1 − e^{ε′ − ε(2j−T)}]_+),  p = e^ε/(1+e^ε), q = 1 − p,

    written as log[(1 − (1−δ)^T) + (1−δ)^T δ_pure] so that it stays finite when δ_pure underflows. Exact and tight.
    """
    e = float(as_non_negative_array(eps, "eps"))
    d = float(_delta(delta))
    t = int(_steps(T))
    ep = as_non_negative_array(eps_prime, "eps_prime")
    log_floor = float(log_lower_bound_delta(d, t))
    log_keep = t * np.log1p(-d)
    out = np.array([np.logaddexp(log_floor, log_keep + _log_pure_optimal_delta(e, t, float(x))) for x in ep.ravel()])
    return scalar_or_array(out.reshape(ep.shape))


def optimal_delta(eps: float, delta: float, T: int, eps_prime: ArrayLike) -> float | np.ndarray:
    """δ_opt(ε′) of KOV Thm 3.3 (see :func:`optimal_log_delta`)."""
    return scalar_or_array(np.exp(np.asarray(optimal_log_delta(eps, delta, T, eps_prime))))


def optimal_epsilon(eps: float, delta: float, T: int, delta_target: float, iterations: int = 200) -> float:
    """Smallest ε′ with δ_opt(ε′) ≤ δ_target (KOV Thm 3.3), by bisection on [0, Tε] (δ_opt decreases in ε′);
    +inf when even ε′ = Tε does not reach δ_target (δ_target below 1 − (1−δ)^T)."""
    probability("delta_target", delta_target)
    log_target = np.log(delta_target)
    if optimal_log_delta(eps, delta, T, T * eps) > log_target:
        return float("inf")
    if optimal_log_delta(eps, delta, T, 0.0) <= log_target:
        return 0.0
    lo, hi = 0.0, float(T * eps)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        if optimal_log_delta(eps, delta, T, mid) <= log_target:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-13 * max(hi, 1.0):
            break
    return hi


def kov_pair(eps: float, delta: float, variant: str = "corrected") -> tuple[np.ndarray, np.ndarray]:
    """The KOV pair (P0, P1) on 4 atoms, each exactly (ε, δ)-DP in both directions (He-Wang-Tao, Appendix B.4):
    P0 = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0) and, ``"corrected"``, P1 = reversed P0 (Kairouz-Oh-Viswanath's
    worst case). ``"as_printed"``: Appendix B.4's P1 = (0, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), δ), which repeats P0's
    middle masses (an erratum: that pair is not the worst case)."""
    if variant not in COR3_VARIANTS:
        raise ValueError(f"variant={variant!r} is not allowed; choose one of {COR3_VARIANTS}")
    e, d = float(as_non_negative_array(eps, "eps")), float(_delta(delta))
    with np.errstate(over="ignore", invalid="ignore"):  # ε > 709.78: inf/inf, the atom is 1 − δ
        heavy, light = (1 - d) * np.exp(e) / (1 + np.exp(e)), (1 - d) / (1 + np.exp(e))
    p0 = np.array([d, heavy if np.isfinite(heavy) else 1 - d, light, 0.0])
    if variant == "as_printed":
        return p0, np.array([0.0, p0[1], p0[2], d])
    return p0, p0[::-1].copy()


def brute_force_product_delta(p: np.ndarray, q: np.ndarray, T: int, eps_prime: float) -> float:
    """E_{e^{ε′}}(P^{⊗T} ‖ Q^{⊗T}) = Σ_outcomes [P^T(o) − e^{ε′} Q^T(o)]_+ by enumerating all |atoms|^T outcomes
    (the reference for the exact optimal composition; use T ≤ 8 with 4 atoms)."""
    p, q = as_non_negative_array(p, "p"), as_non_negative_array(q, "q")
    require(np.asarray(p.ndim == 1 and p.shape == q.shape), "q.shape", q.shape, f"== p.shape = {p.shape} (1-D)")
    whole_number("T", T, minimum=1, maximum=10)
    return brute_force_heterogeneous_product_delta(np.tile(p, (int(T), 1)), np.tile(q, (int(T), 1)), eps_prime)


def brute_force_heterogeneous_product_delta(p_steps: np.ndarray, q_steps: np.ndarray, eps_prime: float) -> float:
    """E_{e^{ε′}}(P_1 ⊗ … ⊗ P_T ‖ Q_1 ⊗ … ⊗ Q_T) = Σ_outcomes [Π_i P_i(o_i) − e^{ε′} Π_i Q_i(o_i)]_+ by enumerating
    every outcome; row i of ``p_steps`` / ``q_steps`` is step i's pair (steps may differ). With each row the
    :func:`kov_pair` of (ε_i, δ_i) this is the exact optimal δ(ε′) of the heterogeneous composition (Kairouz, Oh,
    Viswanath 2017); at most 10 steps."""
    p_steps, q_steps = as_non_negative_array(p_steps, "p_steps"), as_non_negative_array(q_steps, "q_steps")
    require(np.asarray(p_steps.ndim == 2), "p_steps.ndim", p_steps.ndim, "2 (steps x atoms)")
    require(np.asarray(q_steps.shape == p_steps.shape), "q_steps.shape", q_steps.shape, f"== {p_steps.shape}")
    require(np.asarray(1 <= len(p_steps) <= 10), "p_steps", len(p_steps), "between 1 and 10 steps (rows)")
    eps_prime = float(as_non_negative_array(eps_prime, "eps_prime"))
    joint_p, joint_q = np.ones(1), np.ones(1)
    for p, q in zip(p_steps, q_steps):
        joint_p = np.outer(joint_p, p).ravel()
        joint_q = np.outer(joint_q, q).ravel()
    with np.errstate(over="ignore", invalid="ignore"):  # e^ε′ overflows beyond 709.78: an atom with Q = 0 keeps P
        scaled_q = np.where(joint_q > 0, np.exp(eps_prime) * joint_q, 0.0)
    return float(np.sum(np.maximum(joint_p - scaled_q, 0.0)))


# ----------------------------------------------------------------------------------------------------------------
# He-Wang-Tao: Theorem 4, Corollary 2, Corollary 3
# ----------------------------------------------------------------------------------------------------------------


def _ceil_ratio(eps_prime: np.ndarray, eps: np.ndarray, T: np.ndarray) -> np.ndarray:
    """c = ⌈ε′/ε⌉ capped at T (tolerant to round-off at exact multiples)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.ceil(eps_prime / eps - 1e-12)
    return np.clip(np.where(eps > 0, c, T), 0, T)


def cor2_delta(
    eps: ArrayLike, delta: ArrayLike, T: ArrayLike, eps_prime: ArrayLike, delta_tilde: ArrayLike
) -> float | np.ndarray:
    """Corollary 2 (Composition II) of He-Wang-Tao, with c = ⌈ε′/ε⌉ and a = δ/(1+e^ε):

    δ′ = 1 − (1 − e^ε a)^c (1 − a)^{T−c} + 1 − (1 − a)^T + δ̃   (δ̃ may be 0 here, to read the δ-terms alone).
    """
    e, d, t = as_non_negative_array(eps, "eps"), _delta(delta), _steps(T)
    ep, dt = as_non_negative_array(eps_prime, "eps_prime"), _delta(delta_tilde, "delta_tilde")
    at_eps, a = _kov_masses(e, d)
    c = _ceil_ratio(ep, e, t)
    first = _one_minus_product(c * np.log1p(-at_eps) + (t - c) * np.log1p(-a))
    return scalar_or_array(first + _one_minus_product(t * np.log1p(-a)) + dt)


def cor2_delta_first_order(
    eps: ArrayLike, delta: ArrayLike, T: ArrayLike, eps_prime: ArrayLike, delta_tilde: ArrayLike
) -> float | np.ndarray:
    """The paper's first-order form of Corollary 2: δ′ ≈ (T − c)·2δ/(1+e^ε) + cδ + δ̃."""
    e, d, t = as_non_negative_array(eps, "eps"), _delta(delta), _steps(T)
    ep, dt = as_non_negative_array(eps_prime, "eps_prime"), _delta(delta_tilde, "delta_tilde")
    c = _ceil_ratio(ep, e, t)
    with np.errstate(over="ignore"):  # e^ε = inf beyond ε = 709.78: the first term is 0
        return scalar_or_array((t - c) * 2.0 * d / (1.0 + np.exp(e)) + c * d + dt)


def _thm4_objective(log_rest: float, a: float, r: float) -> float:
    """1 − exp(log_rest)·(1 − e^r a) for the free coordinate at α = r; 1 where e^r a ≥ 1 (only in the literal reading,
    where r may exceed ε: the objective is then ≥ 1 and grows as e^r without bound; it overflowed from r ≈ 709)."""
    with np.errstate(divide="ignore"):  # a = 0 (δ = 0): log a = −inf
        log_mass = r + np.log(a)
    if log_mass >= 0.0:
        return 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        mass = np.exp(r) * a
    mass = mass if np.isfinite(mass) else np.exp(log_mass)  # r > 709.78 with a tiny enough
    return float(1.0 - np.exp(log_rest) * (1.0 - mass))


def thm4_delta(eps: float, delta: float, T: int, eps_prime: float, delta_tilde: float, reading: str = "box") -> float:
    """Theorem 4 (Composition I) of He-Wang-Tao, homogeneous steps: δ′ = max over {α_i} ∈ I of

    1 − Π(1 − e^{α_i} a) + 1 − (1 − a)^T + δ̃,  a = δ/(1+e^ε),
    I = {Σα_i = ε′, at most one α_i ∉ {0, ε}}.

    ``reading="box"`` adds 0 ≤ α_i ≤ ε (from the proof of Thm 6 and Lemma 6): the max is m = ⌊ε′/ε⌋ coordinates at
    ε, one at r = ε′ − mε and the rest at 0; δ′ ≤ 2 + δ̃, returned as computed (as Corollary 2's). ``reading="literal"``
    is the printed I without the box: the free coordinate may exceed ε, so the max is over m = 0..⌊ε′/ε⌋ coordinates
    at ε and one free at ε′ − mε. That objective grows as e^{ε′−mε} without bound (it overflowed float64 beyond
    ε′ − mε ≈ 709): a literal δ′ ≥ 1 certifies nothing and is returned as the vacuous bound 1.
    """
    if reading not in THM4_READINGS:
        raise ValueError(f"reading={reading!r} is not allowed; choose one of {THM4_READINGS}")
    e, d, t = float(as_non_negative_array(eps, "eps")), float(_delta(delta)), int(_steps(T))
    ep, dt = float(as_non_negative_array(eps_prime, "eps_prime")), float(_delta(delta_tilde, "delta_tilde"))
    require(np.asarray(ep) <= t * e * (1 + 1e-12), "eps_prime", ep, f"eps_prime <= T*eps = {t * e:g}")
    at_eps, a = (float(x) for x in _kov_masses(e, d))
    log_at_eps, log_at_zero = np.log1p(-at_eps), np.log1p(-a)
    m_max = min(int(np.floor(ep / e + 1e-12)), t) if e > 0 else t
    tail = float(_one_minus_product(t * log_at_zero)) + dt
    values = [float(_one_minus_product(t * log_at_eps))] if m_max == t else []
    candidates = range(m_max + 1) if reading == "literal" else ([m_max] if m_max < t else [])
    values += [
        _thm4_objective(m * log_at_eps + (t - m - 1) * log_at_zero, a, max(ep - m * e, 0.0))
        for m in candidates
        if m < t
    ]
    return min(max(values) + tail, 1.0) if reading == "literal" else max(values) + tail


def thm4_delta_heterogeneous(
    eps_steps: Sequence[float], delta_steps: Sequence[float], eps_prime: float, delta_tilde: float
) -> float:
    """Theorem 4 of He-Wang-Tao for heterogeneous steps, box reading (0 ≤ α_i ≤ ε_i), by exact enumeration of the
    vertices of I: for each group of identical (ε_i, δ_i), how many coordinates sit at ε_i, plus at most one free
    coordinate at the remainder r ∈ (0, ε_g]. δ′ = max[1 − Π(1 − e^{α_i} a_i)] + 1 − Π(1 − a_i) + δ̃,
    a_i = δ_i/(1+e^{ε_i}). Exponential in the number of groups: meant for a few distinct step types."""
    e = as_non_negative_array(eps_steps, "eps_steps").ravel()
    d = _delta(delta_steps, "delta_steps").ravel()
    require(np.asarray(e.size == d.size), "delta_steps", d.size, f"one delta per step ({e.size})")
    eps_prime = float(as_non_negative_array(eps_prime, "eps_prime"))
    delta_tilde = float(_delta(delta_tilde, "delta_tilde"))
    groups: dict[tuple[float, float], int] = {}
    for key in zip(e.tolist(), d.tolist()):
        groups[key] = groups.get(key, 0) + 1
    keys = list(groups)
    masses = {k: [float(x) for x in _kov_masses(*k)] for k in keys}
    a = {k: masses[k][1] for k in keys}
    log_at_eps = {k: float(np.log1p(-masses[k][0])) for k in keys}
    tolerance = 1e-12 * max(1.0, eps_prime)
    best = -np.inf
    for counts in itertools.product(*(range(groups[k] + 1) for k in keys)):
        used = sum(n * k[0] for n, k in zip(counts, keys))
        remainder = eps_prime - used
        if remainder < -tolerance:
            continue
        log_rest = sum(n * log_at_eps[k] + (groups[k] - n) * np.log1p(-a[k]) for n, k in zip(counts, keys))
        if remainder <= tolerance:
            best = max(best, float(-np.expm1(log_rest)))
            continue
        for n, k in zip(counts, keys):  # the free coordinate is one of the group's zero coordinates
            if n < groups[k] and remainder <= k[0] + tolerance:
                best = max(best, _thm4_objective(log_rest - np.log1p(-a[k]), a[k], min(remainder, k[0])))
    if not np.isfinite(best):
        raise ValueError(f"eps_prime={eps_prime!r} must be reachable: 0 <= eps_prime <= sum(eps_steps) = {e.sum():g}")
    tail = float(-np.expm1(sum(groups[k] * np.log1p(-a[k]) for k in keys)))
    return best + tail + float(delta_tilde)


LEMMA6_MAX_STEPS = 16
LEMMA6_MAX_GRID_STEPS = 4


def _lemma6_inputs(A: ArrayLike, caps: ArrayLike, product: float, max_steps: int) -> tuple[np.ndarray, ...]:
    """(A, log caps, log product) after checking Lemma 6's hypotheses: A_i > 0, c_i >= 1, c_i A_i <= 1, 1 <= c <=
    prod c_i, and 2 <= T <= ``max_steps`` coordinates."""
    a, c = as_positive_array(A, "A").ravel(), as_positive_array(caps, "caps").ravel()
    require(np.asarray(2 <= a.size <= max_steps), "A", a.size, f"between 2 and {max_steps} coordinates")
    require(np.asarray(c.size == a.size), "caps", c.size, f"one cap per coordinate ({a.size})")
    require((c >= 1) & (c * a <= 1), "caps", c, "caps c_i >= 1 with c_i A_i <= 1")
    log_c, log_product = np.log(c), float(np.log(as_positive_array(product, "product")))
    require(np.asarray(0 <= log_product <= log_c.sum() * (1 + 1e-12)), "product", product, "1 <= product <= prod caps")
    return a, log_c, log_product


def lemma6_objective(alpha: ArrayLike, A: ArrayLike) -> float | np.ndarray:
    """f({α_i}) = 1 − Π_i (1 − α_i A_i), eq. (11) of He-Wang-Tao, over the last axis (−expm1 of Σ log1p)."""
    alpha, a = as_positive_array(alpha, "alpha"), as_positive_array(A, "A")
    require(np.asarray(alpha.shape[-1:] == a.shape[-1:]), "A", a.shape, f"one A_i per alpha_i ({alpha.shape[-1:]})")
    require(alpha * a <= 1, "alpha", alpha, "alpha_i A_i <= 1")
    return scalar_or_array(_one_minus_product(np.sum(np.log1p(-alpha * a), axis=-1)))


def lemma6_boundary_maximum(A: ArrayLike, caps: ArrayLike, product: float) -> float:
    """Lemma 6 of He-Wang-Tao: the max of eq. (11) over 1 <= α_i <= c_i, Π α_i = c, taken only over the points with
    |{i: α_i ∉ {1, c_i}}| <= 1 (eq. (12)): every coordinate but one (j) at 1 or c_i, α_j = c/Π_{i≠j} α_i kept when
    1 <= α_j <= c_j. Enumerates T·2^(T−1) points (T <= 16)."""
    a, log_c, log_product = _lemma6_inputs(A, caps, product, LEMMA6_MAX_STEPS)
    tolerance, best = 1e-12 * max(1.0, log_product), -np.inf
    for j in range(a.size):
        others = np.delete(np.arange(a.size), j)
        for at_cap in itertools.product((False, True), repeat=a.size - 1):
            log_alpha = np.zeros(a.size)
            log_alpha[others] = np.where(at_cap, log_c[others], 0.0)
            log_alpha[j] = log_product - log_alpha[others].sum()
            if -tolerance <= log_alpha[j] <= log_c[j] + tolerance:
                alpha = np.exp(np.clip(log_alpha, 0.0, log_c))
                with np.errstate(divide="ignore"):  # c_i A_i = 1 gives log 0: f = 1
                    best = max(best, float(_one_minus_product(np.log1p(-alpha * a).sum())))
    return best


def lemma6_grid_maximum(A: ArrayLike, caps: ArrayLike, product: float, points: int) -> float:
    """Brute-force reference for Lemma 6 of He-Wang-Tao: the max of eq. (11) over the whole constraint set, on a grid
    of ``points`` values of log α_i in [0, log c_i] for each of the first T − 1 coordinates (T <= 4), the last one
    log α_T = log c − Σ_{i<T} log α_i kept where it lies in [0, log c_T]. A lower bound on the true maximum."""
    a, log_c, log_product = _lemma6_inputs(A, caps, product, LEMMA6_MAX_GRID_STEPS)
    whole_number("points", points, minimum=2)
    axes = np.meshgrid(*(np.linspace(0.0, top, points) for top in log_c[:-1]), indexing="ij")
    free = np.stack([axis.ravel() for axis in axes], axis=-1)
    last = log_product - free.sum(axis=-1)
    feasible = (last >= 0) & (last <= log_c[-1])
    require(np.asarray(feasible.any()), "points", points, "a grid fine enough to meet the constraint set")
    log_alpha = np.concatenate([free[feasible], last[feasible, None]], axis=-1)
    with np.errstate(divide="ignore"):  # c_i A_i = 1 gives log 0: f = 1
        return float(_one_minus_product(np.log1p(-np.exp(log_alpha) * a).sum(axis=-1)).max())


def cor3_epsilon(eps: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike) -> float | np.ndarray:
    """Corollary 3 (Composition III) of He-Wang-Tao: ε′ = Tε tanh(ε/2) + sqrt(2 log(1/δ̃) Tε²), capped at Tε
    (basic composition; Corollary 3's ε′ can exceed Tε, so the cap
    is our correction)."""
    e, t, dt = as_non_negative_array(eps, "eps"), _steps(T), _delta_tilde(delta_tilde)
    return scalar_or_array(np.minimum(t * e * np.tanh(e / 2.0) + e * np.sqrt(2.0 * t * -np.log(dt)), t * e))


def cor3_log_delta_double_prime(
    eps: ArrayLike, T: ArrayLike, eps_prime: ArrayLike, variant: str = "corrected"
) -> float | np.ndarray:
    """log δ″ of Corollary 3 (eq. (38) of He-Wang-Tao), the optimised Chernoff bound on P(ΣV_i > ε′) with
    V_i = ±ε w.p. e^ε/(1+e^ε), 1/(1+e^ε):

    δ″ = e^{s(ε′+Tε)/2} ((1/(1+e^ε))·2Tε/(Tε−ε′))^T ((Tε+ε′)/(Tε−ε′))^{−(ε′+Tε)/(2ε)},

    s = −1 "as_printed", s = +1 "corrected" (substituting the optimum (37), e^{2εt} = e^{−ε}(Tε+ε′)/(Tε−ε′), gives
    +; the printed value is too small by e^{ε′+Tε}). Defined for Tε tanh(ε/2) < ε′ < Tε; δ″ = 0 (log −inf) for
    ε′ ≥ Tε; for ε′ ≤ Tε tanh(ε/2) the corrected Chernoff bound is 1 (t = 0) and the printed one is NaN.
    """
    if variant not in COR3_VARIANTS:
        raise ValueError(f"variant={variant!r} is not allowed; choose one of {COR3_VARIANTS}")
    e, t = as_positive_array(eps, "eps"), _steps(T)
    ep = as_non_negative_array(eps_prime, "eps_prime")
    e, t, ep = np.broadcast_arrays(e, t, ep)
    total = t * e
    sign = -1.0 if variant == "as_printed" else 1.0
    inside = (ep > total * np.tanh(e / 2.0)) & (ep < total)
    safe_ep = np.where(inside, ep, 0.5 * total * (1.0 + np.tanh(e / 2.0)))
    log_value = (
        sign * (safe_ep + total) / 2.0
        + t * (np.log(2.0 * total) - np.log(total - safe_ep) - np.logaddexp(0.0, e))
        - (safe_ep + total) / (2.0 * e) * (np.log(total + safe_ep) - np.log(total - safe_ep))
    )
    below = 0.0 if variant == "corrected" else np.nan
    out = np.where(inside, log_value, np.where(ep >= total, -np.inf, below))
    return scalar_or_array(out)


def cor3_delta(
    eps: ArrayLike, delta: ArrayLike, T: ArrayLike, delta_tilde: ArrayLike, variant: str = "corrected"
) -> float | np.ndarray:
    """Corollary 3's δ′ at its own ε′ = :func:`cor3_epsilon`: the Corollary 2 δ-terms (c = ⌈ε′/ε⌉) plus δ″ in
    place of δ̃ (steps read as (ε, δ)-DP, as the paper does in Thm 7; δ = 0 gives the literal pure-DP statement)."""
    ep = cor3_epsilon(eps, T, delta_tilde)
    tail = np.exp(cor3_log_delta_double_prime(eps, T, ep, variant))
    return scalar_or_array(np.asarray(cor2_delta(eps, delta, T, ep, 0.0)) + tail)


# ----------------------------------------------------------------------------------------------------------------
# Fair comparison: smallest ε′ certified at a total δ budget
# ----------------------------------------------------------------------------------------------------------------


def min_epsilon_at_target(
    method: str, eps: float, delta: float, T: int, delta_target: float, n_scan: int = 20000
) -> float:
    """Smallest ε′ each method certifies with δ′ ≤ δ_target (+inf if none), for He-Wang-Tao's composition
    theorems (Theorem 4, Corollaries 2 and 3) and the baselines they compare with:

    - basic: Tε if Tδ ≤ δ_target; drv: δ̃ = δ_target − Tδ; kov: δ̃ = 1 − (1−δ_target)/(1−δ)^T;
    - optimal: :func:`optimal_epsilon`;
    - cor2 (= Theorem 4 read with Cor 2's closed form), cor3_corrected, cor3_as_printed: scan δ̃ over
      logspace(−60, log10 δ_target, n_scan), keep the smallest ε′ whose δ′ ≤ δ_target (not monotone in δ̃, since
      c = ⌈ε′/ε⌉ jumps).
    """
    if method not in MIN_EPSILON_METHODS:
        raise ValueError(f"method={method!r} is not allowed; choose one of {MIN_EPSILON_METHODS}")
    eps, delta, T = float(as_non_negative_array(eps, "eps")), float(_delta(delta)), int(_steps(T))
    delta_target = probability("delta_target", delta_target)
    whole_number("n_scan", n_scan, minimum=1)
    if method == "basic":
        return float(T * eps) if T * delta <= delta_target else float("inf")
    if method == "drv":
        room = delta_target - T * delta
        return float(drv_epsilon(eps, T, room)) if room > 0 else float("inf")
    if method == "kov":
        room = float(-np.expm1(np.log1p(-delta_target) - T * np.log1p(-delta)))
        return float(kov_epsilon(eps, T, room)) if room > 0 else float("inf")
    if method == "optimal":
        return optimal_epsilon(eps, delta, T, delta_target)
    tails = np.logspace(-60, np.log10(delta_target), n_scan)
    tails = tails[tails < 1]
    if method == "cor2":
        eps_prime = np.asarray(kov_epsilon(eps, T, tails))
        delta_prime = np.asarray(cor2_delta(eps, delta, T, eps_prime, tails))
    else:
        variant = "corrected" if method == "cor3_corrected" else "as_printed"
        eps_prime = np.asarray(cor3_epsilon(eps, T, tails))
        delta_prime = np.asarray(cor2_delta(eps, delta, T, eps_prime, 0.0)) + np.exp(
            cor3_log_delta_double_prime(eps, T, eps_prime, variant)
        )
    ok = delta_prime <= delta_target
    return float(eps_prime[ok].min()) if ok.any() else float("inf")
