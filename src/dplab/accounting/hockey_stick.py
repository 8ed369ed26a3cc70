"""Hockey-stick (E_γ) divergences of Gaussian, Laplace and discrete laws, with γ = e^ε.

E_γ(P‖Q) = ∫ [dP − γ dQ]_+ = sup_A P(A) − γ Q(A)   (Asoodeh, Diaz, Calmon 2020, eqs. (6)-(7)), and a mechanism is
(ε, δ)-DP iff E_{e^ε}(P_D‖P_D') ≤ δ for all neighbours (their Theorem 1).  The Gaussian and Laplace values are
closed forms (their Lemmas 1 and 2); the ``log_`` functions stay finite far below the double-precision range
(δ ≈ 1e-400 and smaller) and return ``-inf`` exactly where the divergence is 0.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import erfcx, log_ndtr

from dplab.accounting._arrays import scalar_or_array
from dplab.checks import (
    as_float_array,
    as_non_negative_array,
    as_positive_array,
    finite,
    non_negative_finite,
    positive_finite,
    require,
)
from dplab.distributions import Laplace
from dplab.numerics import log1mexp

__all__ = [
    "discrete_hockey_stick",
    "gaussian_hockey_stick",
    "gaussian_hockey_stick_complement",
    "laplace_hockey_stick",
    "log_gaussian_hockey_stick",
    "log_gaussian_hockey_stick_complement",
    "log_laplace_hockey_stick",
    "projected_laplace_hockey_stick",
]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_ASYMPTOTIC_FROM = 20.0
_ASYMPTOTIC_TERMS = 12


def _epsilon_and_ratio(epsilon: ArrayLike, r: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Checked, broadcast float64 copies of ε (finite, ≥ 0) and r = ‖m1 − m2‖/σ (≥ 0, +inf allowed)."""
    eps = as_non_negative_array(epsilon, "epsilon")
    ratio = as_float_array(r, "r")
    require(ratio >= 0, "r", ratio, "r >= 0")
    eps, ratio = np.broadcast_arrays(eps, ratio)
    return eps, ratio


def _gaussian_thresholds(eps: np.ndarray, ratio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a = ε/r − r/2 and b = ε/r + r/2 of Lemma 2 (entries with r = 0 are meaningless and masked by callers)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = eps / ratio
        return centre - ratio / 2.0, centre + ratio / 2.0


def _mills_ratio(t: np.ndarray) -> np.ndarray:
    """Mills ratio R(t) = Q(t)/φ(t) = √(π/2) erfcx(t/√2), accurate for t ≥ 0."""
    return _SQRT_HALF_PI * erfcx(t / math.sqrt(2.0))


def _log_mills_difference_asymptotic(a: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """log(R(a) − R(a + r)) for large a from R(t) = ∫_0^∞ e^{−tu − u²/2} du expanded in u²:

    R(a) − R(b) = Σ_k (−1)^k (2k−1)!! (a^{−(2k+1)} − b^{−(2k+1)}),  a^{−m} − b^{−m} = −a^{−m} expm1(−m log1p(r/a)).

    Every bracket is formed without cancellation; for a ≥ 20 the truncation error after 12 terms is < 1e-20
    relative, so no underflow to log(0) however small r/a is.
    """
    log1p_ratio = np.log1p(ratio / a)
    total = np.zeros_like(a)
    coefficient = 1.0
    for k in range(_ASYMPTOTIC_TERMS):
        power = 2 * k + 1
        total += coefficient * a ** (-2.0 * k) * -np.expm1(-power * log1p_ratio)
        coefficient *= -power
    return -np.log(a) + np.log(total)


def _log_theta_right_tail(a: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """log θ for a ≥ 0 via the identity e^ε φ(b) = φ(a):  θ = φ(a) (R(a) − R(b)),  b = a + r.

    Factoring out φ(a) removes the underflow (and e^ε never appears); what is left is a difference of two Mills
    ratios of order 1/a, taken from erfcx for a < 20 and from an asymptotic series beyond.
    """
    log_difference = np.empty_like(a)
    far = a >= _ASYMPTOTIC_FROM
    log_difference[far] = _log_mills_difference_asymptotic(a[far], ratio[far])
    near = ~far
    log_difference[near] = np.log(_mills_ratio(a[near]) - _mills_ratio(a[near] + ratio[near]))
    return -0.5 * a * a - _LOG_SQRT_2PI + log_difference


def _log_theta_bulk(eps: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log θ for a < 0 (so Q(a) > 1/2):  log Q(a) + log1p(−exp(ε + log Q(b) − log Q(a)))  (eq. (10) in log space)."""
    log_q_a = log_ndtr(-a)
    return log_q_a + log1mexp(eps + log_ndtr(-b) - log_q_a)


def log_gaussian_hockey_stick(epsilon: ArrayLike, r: ArrayLike) -> float | np.ndarray:
    """Natural log of θ_{e^ε}(r) = E_{e^ε}(N(m1, σ²I) ‖ N(m2, σ²I)) with r = ‖m1 − m2‖/σ.

    θ_γ(r) = Q(log γ / r − r/2) − γ Q(log γ / r + r/2)   (Lemma 2 and Definition 1, eq. (10), of Asoodeh et al.
    2020), Q = 1 − Φ.  θ(0) := 0, so the log is −inf at r = 0; θ(+inf) = 1.  Computed in log space: for
    a = ε/r − r/2 ≥ 0 as log φ(a) + log(R(a) − R(b)) with the Mills ratio R (no underflow: ε = 50, r = 1 gives
    ≈ −1233.9, i.e. δ ≈ 1e-536), otherwise as log Q(a) + log1p(−e^ε Q(b)/Q(a)).  Relative accuracy of θ is
    ~1e-15 for r ≥ 0.01 and degrades like 1e-16/r below (cancellation of order r); the log stays finite for
    every r > 0.  Broadcasts ε (finite, ≥ 0) against r (≥ 0).
    """
    eps, ratio = _epsilon_and_ratio(epsilon, r)
    a, b = _gaussian_thresholds(eps, ratio)
    out = np.full(eps.shape, -np.inf)
    right_tail = (ratio > 0) & (a >= 0)
    bulk = (ratio > 0) & (a < 0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out[right_tail] = _log_theta_right_tail(a[right_tail], ratio[right_tail])
        out[bulk] = _log_theta_bulk(eps[bulk], a[bulk], b[bulk])
    return scalar_or_array(np.minimum(out, 0.0))


def gaussian_hockey_stick(epsilon: ArrayLike, r: ArrayLike) -> float | np.ndarray:
    """θ_{e^ε}(r) of eq. (10) (see ``log_gaussian_hockey_stick``), clipped to [0, 1]; underflows to 0 below ~1e-308."""
    return scalar_or_array(np.clip(np.exp(log_gaussian_hockey_stick(epsilon, r)), 0.0, 1.0))


def log_gaussian_hockey_stick_complement(epsilon: ArrayLike, r: ArrayLike) -> float | np.ndarray:
    """Natural log of 1 − θ_{e^ε}(r) = Φ(a) + e^ε Q(b), a, b = ε/r ∓ r/2 (from eq. (10)), in log space throughout:
    logaddexp(log Φ(a), ε + log Q(b)) with ``log_ndtr``, so it stays finite where both terms underflow in linear
    scale (ε = 4000, r = 400 gives ≈ −18 058, i.e. 1 − θ ≈ 1e-7842).

    Needed where θ is close to 1 (Theorem 5 divides by 1 − θ).  0 at r = 0 (1 − θ = 1), −inf at r = +inf;
    at most 0.
    """
    eps, ratio = _epsilon_and_ratio(epsilon, r)
    a, b = _gaussian_thresholds(eps, ratio)
    with np.errstate(invalid="ignore"):
        log_complement = np.logaddexp(log_ndtr(a), eps + log_ndtr(-b))
    log_complement = np.where(ratio > 0, log_complement, 0.0)
    return scalar_or_array(np.minimum(log_complement, 0.0))


def gaussian_hockey_stick_complement(epsilon: ArrayLike, r: ArrayLike) -> float | np.ndarray:
    """1 − θ_{e^ε}(r) = Φ(a) + e^ε Q(b) without cancellation (see :func:`log_gaussian_hockey_stick_complement`);
    equals 1 at r = 0 and 0 at r = +inf; underflows to 0 below ~1e-308 (use the log version there)."""
    return scalar_or_array(np.exp(log_gaussian_hockey_stick_complement(epsilon, r)))


def log_laplace_hockey_stick(epsilon: ArrayLike, *, shift: ArrayLike, scale: ArrayLike) -> float | np.ndarray:
    """Natural log of E_{e^ε}(𝓛(m1, v) ‖ 𝓛(m2, v)) = [1 − exp(ε/2 − |m1 − m2|/(2v))]_+  (Lemma 1, eq. (9)).

    ``shift`` = m1 − m2 (any sign), ``scale`` = v > 0 (density e^{−|t−m|/v}/(2v)).  Computed as
    log(−expm1(x)) with x = ε/2 − |shift|/(2 scale); exactly −inf where the divergence is 0, i.e. where
    ε ≥ |shift|/scale (pure DP).  Broadcasts all three arguments.
    """
    eps = as_non_negative_array(epsilon, "epsilon")
    shift = as_float_array(shift, "shift")
    scale = as_positive_array(scale, "scale")
    require(np.isfinite(shift), "shift", shift, "a finite number")
    exponent = eps / 2.0 - np.abs(shift) / (2.0 * scale)
    with np.errstate(divide="ignore"):
        out = np.where(exponent < 0, log1mexp(np.minimum(exponent, 0.0)), -np.inf)
    return scalar_or_array(out)


def laplace_hockey_stick(epsilon: ArrayLike, *, shift: ArrayLike, scale: ArrayLike) -> float | np.ndarray:
    """E_{e^ε}(𝓛(m1, v) ‖ 𝓛(m2, v)) = [1 − exp(ε/2 − |shift|/(2 scale))]_+  (Lemma 1, eq. (9)); see the log version."""
    return scalar_or_array(np.exp(log_laplace_hockey_stick(epsilon, shift=shift, scale=scale)))


def _sign_pieces(cuts: list[float], log_ratio_minus_eps) -> list[tuple[float, float]]:
    """Sub-intervals of consecutive ``cuts`` on which the piecewise-linear function ``log_ratio_minus_eps`` (linear
    between cuts) is positive: each segment is split at its root, if any, and kept where the midpoint is positive."""
    pieces = []
    for u, w in zip(cuts[:-1], cuts[1:]):
        fu, fw = log_ratio_minus_eps(u), log_ratio_minus_eps(w)
        points = [u, u + (w - u) * fu / (fu - fw), w] if fu * fw < 0 else [u, w]
        pieces += [(s, t) for s, t in zip(points[:-1], points[1:]) if log_ratio_minus_eps((s + t) / 2) > 0]
    return pieces


def projected_laplace_hockey_stick(
    epsilon: float, *, loc_p: float, loc_q: float, lo: float, hi: float, scale: float
) -> float:
    """E_{e^ε}(Π P ‖ Π Q), P = 𝓛(loc_p, v), Q = 𝓛(loc_q, v) (scale v), Π the projection onto [lo, hi], exactly.

    Π P has atoms F_P(lo) at lo and S_P(hi) at hi and the Laplace density on (lo, hi).  E_γ (eq. (6) of Asoodeh,
    Diaz, Calmon 2020) is [F_P(lo) − γF_Q(lo)]_+ + [S_P(hi) − γS_Q(hi)]_+ + ∫_lo^hi [p − γq]_+.  On (lo, hi) the
    log-likelihood ratio (|t − loc_q| − |t − loc_p|)/v is linear between the cuts {lo, loc_p, loc_q, hi}, so the
    set {p > γq} is a union of intervals found exactly (one root per piece), each contributing
    [F_P]_s^t − γ[F_Q]_s^t (the cdf of :class:`dplab.distributions.Laplace`).  The kernel y ↦ Π_[lo,hi](ψ(y) + ηZ)
    with Z ~ 𝓛(0, v) of Theorem 3 has E_γ(K(y1)‖K(y2)) = this with loc = ψ(y1), ψ(y2) and scale ηv.
    """
    eps, scale = non_negative_finite("epsilon", epsilon), positive_finite("scale", scale)
    loc_p, loc_q, lo, hi = (finite(name, x) for name, x in (("loc_p", loc_p), ("loc_q", loc_q), ("lo", lo), ("hi", hi)))
    p, q, gamma = Laplace(scale, loc_p), Laplace(scale, loc_q), math.exp(eps)
    if not lo < hi:
        raise ValueError(f"lo={lo!r} and hi={hi!r} are invalid; allowed: finite numbers with lo < hi")
    atoms = max(p.cdf(lo) - gamma * q.cdf(lo), 0.0) + max(p.sf(hi) - gamma * q.sf(hi), 0.0)
    cuts = sorted({lo, hi} | {m for m in (loc_p, loc_q) if lo < m < hi})
    pieces = _sign_pieces(cuts, lambda t: (abs(t - loc_q) - abs(t - loc_p)) / scale - eps)
    interior = sum((p.cdf(t) - p.cdf(s)) - gamma * (q.cdf(t) - q.cdf(s)) for s, t in pieces)
    return float(atoms + max(interior, 0.0))


def discrete_hockey_stick(p: ArrayLike, q: ArrayLike, epsilon: ArrayLike) -> float | np.ndarray:
    """E_{e^ε}(p‖q) = Σ_k [p_k − e^ε q_k]_+ for distributions on common atoms (eq. (6) with a counting measure).

    ``p`` and ``q`` hold non-negative masses along their last axis (leading axes broadcast together, giving a
    batch shape B); ``epsilon`` is an array of shape E (finite, ≥ 0).  Returns shape B + E: one value per pair
    and per ε.  e^ε q_k is formed as exp(ε + log q_k), so atoms with q_k = 0 contribute p_k for every ε.
    Applied to binned versions of continuous laws this is a lower bound on the true divergence (data processing).
    """
    p = as_non_negative_array(p, "p")
    q = as_non_negative_array(q, "q")
    eps = as_non_negative_array(epsilon, "epsilon")
    require(np.asarray(p.ndim >= 1), "p.ndim", p.ndim, ">= 1 (atoms along the last axis)")
    require(np.asarray(q.ndim >= 1), "q.ndim", q.ndim, ">= 1 (atoms along the last axis)")
    require(np.asarray(p.shape[-1] == q.shape[-1]), "q.shape[-1]", q.shape[-1], f"== p.shape[-1] = {p.shape[-1]}")
    batch_shape = np.broadcast_shapes(p.shape[:-1], q.shape[:-1])
    spread = (slice(None),) * len(batch_shape) + (np.newaxis,) * eps.ndim + (slice(None),)
    p_b = np.broadcast_to(p, batch_shape + p.shape[-1:])[spread]
    q_b = np.broadcast_to(q, batch_shape + q.shape[-1:])[spread]
    with np.errstate(divide="ignore", over="ignore"):
        scaled_q = np.exp(eps[..., np.newaxis] + np.log(q_b))
    return scalar_or_array(np.sum(np.maximum(p_b - scaled_q, 0.0), axis=-1))
