"""Shared numerics: log(1 − eˣ) and log(eᵃ − eᵇ), accurate over the whole range, symmetric noise matrices, the
projection onto an ℓ2 ball (NumPy, torch-free; :class:`dplab.learning.projections.Ball` is its torch twin), the
least-squares slope of a log-log rate and the smallest integer at which a non-decreasing function reaches a level.

``log1mexp`` uses the two-branch rule of Mächler (2012, "Accurately computing log(1 − exp(−|a|))", the R package
Rmpfr vignette, eq. (7)): log(−expm1(x)) for −log 2 ≤ x ≤ 0 (where 1 − eˣ is small and log1p would lose it), and
log1p(−exp(x)) for x < −log 2 (where eˣ is small and expm1 would round 1 − eˣ to 1).  Each branch keeps full
relative accuracy on its side of −log 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dplab.checks import as_finite_array, positive_finite

_MINUS_LOG_2 = -math.log(2.0)


def log1mexp(x: np.ndarray | float) -> np.ndarray | float:
    """log(1 − eˣ) for x ≤ 0: −inf at x = 0, NaN for x > 0 or NaN (as ``np.log`` of a negative number).

    Two branches split at x = −log 2 (Mächler 2012, eq. (7)): log(−expm1(x)) above, log1p(−exp(x)) below.
    A scalar input gives a Python float, an array input an array of the same shape.
    """
    values = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # x > 0: NaN, without a warning
        near_zero = np.log(-np.expm1(values))
        far_from_zero = np.log1p(-np.exp(values))
    out = np.where(values < _MINUS_LOG_2, far_from_zero, near_zero)
    return float(out) if out.ndim == 0 else out


def logsubexp(big: np.ndarray | float, small: np.ndarray | float) -> np.ndarray | float:
    """log(eᵇⁱᵍ − eˢᵐᵃˡˡ) = big + log1mexp(small − big) for big ≥ small (−inf where equal, NaN where big < small).

    A scalar pair gives a Python float, arrays broadcast.
    """
    big_values, small_values = (
        np.asarray(big, dtype=float),
        np.asarray(small, dtype=float),
    )
    with np.errstate(invalid="ignore"):
        out = big_values + np.asarray(log1mexp(small_values - big_values))
    return float(out) if out.ndim == 0 else out


def symmetric_from_upper(draws: np.ndarray) -> np.ndarray:
    """The symmetric matrices (…, d, d) whose upper triangles (diagonal included) are those of ``draws``: the noise
    E of sufficient-statistics and covariance perturbation, whose i.i.d. entries are drawn for i ≤ j only."""
    upper = np.triu(draws)
    return upper + np.swapaxes(np.triu(upper, 1), -1, -2)


def project_l2_ball(theta: np.ndarray, radius: float) -> np.ndarray:
    """Projection onto the ℓ2 ball 𝔹₂(radius) centred at 0, row-wise on the last axis: θ·min(1, R/‖θ‖₂) (0 maps
    to 0)."""
    as_finite_array(theta, "theta")
    return projected_onto_l2_ball(theta, positive_finite("radius", radius))


def projected_onto_l2_ball(theta: np.ndarray, radius: float) -> np.ndarray:
    """:func:`project_l2_ball` without the argument checks, for loops that check once (finite ``theta``, R > 0)."""
    norm = np.linalg.norm(theta, axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        return theta * np.minimum(1.0, radius / norm)


def loglog_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against log x over the points with x, y > 0 finite (nan with fewer than 2
    distinct x)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if len(np.unique(x[keep])) < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])


def smallest_integer_reaching(increasing: Callable[[int], float], level: float, upper: int) -> float:
    """The smallest integer g in [0, upper] with increasing(g) ≥ level, by bisection (``increasing`` must be
    non-decreasing); NaN if increasing(upper) < level.  Returned as a float (a column that holds NaN)."""
    if increasing(upper) < level:
        return math.nan
    lo, hi = 0, upper
    if increasing(lo) >= level:
        return 0.0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if increasing(mid) < level else (lo, mid)
    return float(hi)
