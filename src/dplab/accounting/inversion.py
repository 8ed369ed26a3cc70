"""Inverting a privacy profile: the smallest ε whose δ(ε) meets a target, by bisection on log δ."""

from __future__ import annotations

import math
from collections.abc import Callable

from dplab.checks import real_number, require

__all__ = ["epsilon_for_delta"]


def epsilon_for_delta(
    log_delta_fn: Callable[[float], float],
    delta: float,
    *,
    epsilon_max: float = 100.0,
    tol: float = 1e-10,
    expand_to: float | None = None,
) -> float:
    """Smallest ε ≥ 0 with log_delta_fn(ε) ≤ log(delta), for a non-increasing ``log_delta_fn`` (scalar → scalar).

    Returns 0.0 if the target already holds at ε = 0 and ``math.inf`` if it does not hold at ``epsilon_max``.
    With ``expand_to``, a target missed at ``epsilon_max`` does not give ``inf``: the bracket's upper end is doubled
    until the target holds or the end passes ``expand_to`` (only then ``inf``), so a finite ε above ``epsilon_max``
    is computed rather than reported as infinite.
    Otherwise bisects [0, epsilon_max] until the bracket is shorter than ``tol`` and returns its upper end, so
    the returned ε always satisfies the target (it overestimates the exact ε by less than ``tol``).  Only the
    comparison log_delta_fn(ε) ≤ log(delta) is used, so stretches where log δ = −inf (pure DP, e.g. Laplace or
    Theorem 3 thresholds) or where δ underflows in linear scale are handled exactly; ``delta = 0`` asks for the
    pure-DP threshold.
    """
    require(0 <= real_number("delta", delta) <= 1, "delta", delta, "0 <= delta <= 1")
    require(0 < real_number("epsilon_max", epsilon_max) < math.inf, "epsilon_max", epsilon_max, "0 < epsilon_max < inf")
    require(0 < real_number("tol", tol) < math.inf, "tol", tol, "0 < tol < inf")
    limit = epsilon_max if expand_to is None else expand_to
    require(epsilon_max <= limit < math.inf, "expand_to", expand_to, f"epsilon_max ({epsilon_max}) <= expand_to < inf")
    log_target = math.log(delta) if delta > 0 else -math.inf

    def meets_target(epsilon: float) -> bool:
        value = float(log_delta_fn(epsilon))
        require(not math.isnan(value), "log_delta_fn(epsilon)", value, f"not NaN (at epsilon={epsilon!r})")
        return value <= log_target

    if meets_target(0.0):
        return 0.0
    low, high = 0.0, epsilon_max
    while not meets_target(high):
        if high >= limit:
            return math.inf
        low, high = high, min(2.0 * high, limit)
    while high - low > tol:
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if meets_target(middle):
            high = middle
        else:
            low = middle
    return high
