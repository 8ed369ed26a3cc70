"""Rényi DP → (ε, δ)-DP conversions, optimised over a finite grid of orders α.

Two rules, each in both directions (δ from ε and ε from δ):

- **Mironov** (Mironov 2017, "Rényi differential privacy", Prop. 3; eq. (25) of Asoodeh et al. 2020):
  (α, r_α)-RDP ⇒ (ε, δ)-DP with δ = exp((α − 1)(r_α − ε)), i.e. ε = r_α + log(1/δ)/(α − 1).
- **CKS** (Canonne, Kamath, Steinke 2020, arXiv 2004.00010, Prop. 12; the same formula as Balle et al. 2020,
  Thm 21, and Asoodeh et al. 2021, arXiv 2001.05990, eq. (20)):
  δ = exp((α − 1)(r_α − ε + log(1 − 1/α)) − log α), i.e. ε = r_α + log(1 − 1/α) − (log δ + log α)/(α − 1).
  Implemented exactly as dp_accounting 0.6.0 (``dp_accounting/rdp/rdp_privacy_accountant.py``,
  ``compute_delta`` / ``compute_epsilon``): the order-α term is used only for α > 1.01 (numerically unstable
  and useless as α → 1), and it is combined with the KL bound δ ≤ √(1 − e^{−r_α}) (valid at every order because
  KL = D_1 ≤ D_α).  One deliberate difference: an order with r_α = 0 means P = Q, so it gives δ = 0 / ε = 0 at
  that order for every target (dp_accounting returns ε = 0 at δ = 0 only when *all* r_α are 0, ∞ otherwise).

Design.  Each rule is a ``*_with_order`` function returning a :class:`ConversionResult` (the optimal value,
the order attaining it, and whether that order is the smallest or largest of the grid), plus a plain function
returning the value only.  ``orders`` and ``rdp`` are 1-D arrays of equal length (r_α ≥ 0, +inf allowed;
α ≥ 1); the target (ε or δ) broadcasts, and results have its shape.  When an informative optimum sits at the
smallest or largest order, the grid is probably too narrow: a ``logging.warning`` is emitted and
``at_grid_edge`` is set.
For α ≤ 1.01 the CKS rule gives no bound, so on grids confined near 1 Mironov can beat CKS.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dplab.accounting._arrays import scalar_or_array
from dplab.checks import (
    as_float_array,
    as_non_negative_array,
    as_positive_array,
    require,
)
from dplab.numerics import log1mexp

__all__ = [
    "ConversionResult",
    "epsilon_from_rdp_cks",
    "epsilon_from_rdp_cks_with_order",
    "epsilon_from_rdp_mironov",
    "epsilon_from_rdp_mironov_with_order",
    "gaussian_rdp",
    "log_delta_from_rdp_cks",
    "log_delta_from_rdp_cks_with_order",
    "log_delta_from_rdp_mironov",
    "log_delta_from_rdp_mironov_with_order",
]

logger = logging.getLogger(__name__)

CKS_MIN_ORDER = 1.01
"""Orders α ≤ this give no CKS bound (dp_accounting's cut-off)."""


@dataclass(frozen=True)
class ConversionResult:
    """Outcome of an RDP → DP conversion: ``value`` (log δ or ε), the minimising ``order`` α, and
    ``at_grid_edge`` (True where an informative optimum is the smallest or largest order of the grid).
    Each field is a float for a scalar target, else an array of the target's shape."""

    value: float | np.ndarray
    order: float | np.ndarray
    at_grid_edge: bool | np.ndarray


def _rdp_curve(orders: ArrayLike, rdp: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Checked 1-D float64 arrays of orders (≥ 1) and RDP values (≥ 0, +inf allowed) of equal length."""
    alpha = as_float_array(orders, "orders")
    r = as_float_array(rdp, "rdp")
    require(np.asarray(alpha.ndim == 1 and alpha.size >= 1), "orders.shape", alpha.shape, "a non-empty 1-D array")
    require(np.asarray(r.shape == alpha.shape), "rdp.shape", r.shape, f"== orders.shape = {alpha.shape}")
    require(np.isfinite(alpha) & (alpha >= 1), "orders", alpha, "1 <= alpha < inf")
    require(r >= 0, "rdp", r, "rdp >= 0 (Renyi divergences are non-negative)")
    return alpha, r


def _epsilon_target(epsilon: ArrayLike) -> np.ndarray:
    return as_non_negative_array(epsilon, "epsilon")[..., np.newaxis]


def _delta_target(delta: ArrayLike) -> np.ndarray:
    d = as_float_array(delta, "delta")
    require((d >= 0) & (d <= 1), "delta", d, "0 <= delta <= 1")
    return d[..., np.newaxis]


def _optimise(
    per_order: np.ndarray, orders: np.ndarray, target: Literal["log_delta", "epsilon"], what: str
) -> ConversionResult:
    """Minimise ``per_order`` (target shape + (K,)) over its last axis; ``target`` is "log_delta" (result capped
    at 0, i.e. δ ≤ 1) or "epsilon" (floored at 0).  Informative optima (0 < δ < 1, 0 < ε < inf) at the smallest
    or largest order are flagged and logged."""
    best = np.argmin(per_order, axis=-1)
    value = np.take_along_axis(per_order, best[..., np.newaxis], axis=-1)[..., 0]
    if target == "log_delta":
        informative = np.isfinite(value) & (value < 0)
        value = np.minimum(value, 0.0)
    else:
        informative = np.isfinite(value) & (value > 0)
        value = np.maximum(value, 0.0)
    best_order = orders[best]
    at_edge = ((best_order == orders.min()) | (best_order == orders.max())) & informative & (orders.size > 1)
    if at_edge.any():
        logger.warning(
            "%s: optimal order at the end of the grid [%g, %g] for %d of %d targets (orders used: %s); "
            "widen the grid of orders",
            what,
            orders.min(),
            orders.max(),
            int(at_edge.sum()),
            at_edge.size,
            np.unique(best_order[at_edge]),
        )
    return ConversionResult(
        value=scalar_or_array(value),
        order=scalar_or_array(best_order),
        at_grid_edge=bool(at_edge) if at_edge.ndim == 0 else at_edge,
    )


def log_delta_from_rdp_mironov_with_order(epsilon: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> ConversionResult:
    """log δ = min(0, min_α (α − 1)(r_α − ε))  (Mironov 2017, Prop. 3; eq. (25)), with the minimising α.

    The order α = 1 gives the trivial δ = 1.
    """
    alpha, r = _rdp_curve(orders, rdp)
    eps = _epsilon_target(epsilon)
    with np.errstate(invalid="ignore"):
        per_order = np.where(alpha > 1, (alpha - 1) * (r - eps), 0.0)
    return _optimise(per_order, alpha, "log_delta", "log_delta_from_rdp_mironov")


def log_delta_from_rdp_mironov(epsilon: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> float | np.ndarray:
    """log δ of Mironov's conversion (see ``log_delta_from_rdp_mironov_with_order``)."""
    return log_delta_from_rdp_mironov_with_order(epsilon, orders, rdp).value


def epsilon_from_rdp_mironov_with_order(delta: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> ConversionResult:
    """ε = min_α r_α + log(1/δ)/(α − 1)  (Mironov 2017, Prop. 3), with the minimising α.

    δ ∈ [0, 1]; δ = 0 and the order α = 1 give ε = +inf (no bound).
    """
    alpha, r = _rdp_curve(orders, rdp)
    d = _delta_target(delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_order = np.where(alpha > 1, r - np.log(d) / (alpha - 1), np.inf)
    per_order = np.where(d == 0, np.inf, per_order)
    return _optimise(per_order, alpha, "epsilon", "epsilon_from_rdp_mironov")


def epsilon_from_rdp_mironov(delta: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> float | np.ndarray:
    """ε of Mironov's conversion (see ``epsilon_from_rdp_mironov_with_order``)."""
    return epsilon_from_rdp_mironov_with_order(delta, orders, rdp).value


def _log_delta_kl(r: np.ndarray) -> np.ndarray:
    """log √(1 − e^{−r}) = ½ log(−expm1(−r)): δ bound from KL ≤ r (−inf at r = 0)."""
    with np.errstate(divide="ignore"):
        return 0.5 * log1mexp(-r)


def log_delta_from_rdp_cks_with_order(epsilon: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> ConversionResult:
    """log δ = min(0, min_α min{½ log(1 − e^{−r_α}), (α − 1)(r_α − ε + log(1 − 1/α)) − log α}), with the minimising α.

    Canonne–Kamath–Steinke 2020, Prop. 12 (= Balle et al. 2020, Thm 21), the second term only for α > 1.01,
    exactly as dp_accounting's ``compute_delta``.
    """
    alpha, r = _rdp_curve(orders, rdp)
    eps = _epsilon_target(epsilon)
    with np.errstate(divide="ignore", invalid="ignore"):
        rdp_term = (alpha - 1) * (r - eps + np.log1p(-1 / alpha)) - np.log(alpha)
    per_order = np.minimum(_log_delta_kl(r), np.where(alpha > CKS_MIN_ORDER, rdp_term, np.inf))
    return _optimise(per_order, alpha, "log_delta", "log_delta_from_rdp_cks")


def log_delta_from_rdp_cks(epsilon: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> float | np.ndarray:
    """log δ of the CKS / Balle et al. conversion (see ``log_delta_from_rdp_cks_with_order``)."""
    return log_delta_from_rdp_cks_with_order(epsilon, orders, rdp).value


def epsilon_from_rdp_cks_with_order(delta: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> ConversionResult:
    """ε = max(0, min_α ε_α) with ε_α = r_α + log(1 − 1/α) − (log δ + log α)/(α − 1), with the minimising α.

    Canonne–Kamath–Steinke 2020, Prop. 12, as dp_accounting's ``compute_epsilon``: ε_α = 0 when the KL bound
    already gives δ ≥ √(1 − e^{−r_α}) (or r_α = 0), the formula for α > 1.01, +inf otherwise (and at δ = 0).
    """
    alpha, r = _rdp_curve(orders, rdp)
    d = _delta_target(delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        rdp_term = r + np.log1p(-1 / alpha) - (np.log(d) + np.log(alpha)) / (alpha - 1)
    rdp_term = np.where((alpha > CKS_MIN_ORDER) & (d > 0), rdp_term, np.inf)
    kl_suffices = (r == 0) | (d**2 + np.expm1(-r) > 0)
    per_order = np.where(kl_suffices, 0.0, rdp_term)
    return _optimise(per_order, alpha, "epsilon", "epsilon_from_rdp_cks")


def epsilon_from_rdp_cks(delta: ArrayLike, orders: ArrayLike, rdp: ArrayLike) -> float | np.ndarray:
    """ε of the CKS / Balle et al. conversion (see ``epsilon_from_rdp_cks_with_order``)."""
    return epsilon_from_rdp_cks_with_order(delta, orders, rdp).value


def gaussian_rdp(orders: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike) -> float | np.ndarray:
    """RDP of the Gaussian mechanism: D_α(N(0, σ²) ‖ N(Δ, σ²)) = α Δ² / (2σ²)  (Mironov 2017, Prop. 7).

    Broadcasts orders (α > 0), sensitivity Δ ≥ 0 and σ > 0.
    """
    alpha = as_positive_array(orders, "orders")
    delta_f = as_non_negative_array(sensitivity, "sensitivity")
    s = as_positive_array(sigma, "sigma")
    return scalar_or_array(alpha * delta_f**2 / (2.0 * s**2))
