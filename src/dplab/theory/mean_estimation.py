"""Mean estimation with purification (Section 7 and Theorem 9 of Lin, Wang, Ma, Wang, *Purifying Approximate DP with
Randomized Post-processing*): the δ and ω of the experiment, Theorem 9's lower bound and its δ-range, the data
model's mean, and Algorithm 1's Laplace scale in log-space.

Data: n records x_i ∈ {±1/√d}^d, each coordinate +1/√d with probability p_plus; only the mean D̄ enters, drawn
exactly as (2·Binomial(n, p_plus)/n − 1)/√d per coordinate.
"""

from __future__ import annotations

import math

import numpy as np

from dplab.checks import (
    as_float_array,
    log_probability,
    positive_finite,
    probability,
    require,
    size_that_fits,
    whole_number,
)

__all__ = [
    "mean_estimation_log_delta",
    "theorem9_log_delta_range",
    "theorem9_lower_bound",
    "sample_data_mean",
    "log10_purification_scale",
    "theorem9_columns",
]


def mean_estimation_log_delta(n: int, d: int) -> tuple[float, float]:
    """(log δ, log ω) of the mean-estimation experiment: ω = 1/n², δ = 2ω/(32dn²)^d, so that Δ = 2d(2/√d)(δ/2ω)^{1/d} =
    1/(8√d n²)."""
    n, d = whole_number("n", n), whole_number("d", d)
    log_omega = -2.0 * math.log(n)
    return math.log(2.0) + log_omega - d * math.log(32.0 * d * n**2), log_omega


def theorem9_log_delta_range(n: int, d: int) -> tuple[float, float]:
    """Theorem 9/14's range of log δ: (−4d log d log²(nd), −log(4n^d log^{2d}(8d))), with Theorem 14's upper limit
    1/(4n^d log^{2d}(8d)) (Theorem 9 in the main text prints 4n^{−d} log^{−2d}(8d))."""
    n, d = whole_number("n", n), whole_number("d", d)
    lower = -4.0 * d * math.log(d) * math.log(n * d) ** 2
    upper = -(math.log(4.0) + d * math.log(n) + 2.0 * d * math.log(math.log(8.0 * d)))
    return lower, upper


def theorem9_lower_bound(n: int, d: int, epsilon: float, log_delta: np.ndarray) -> np.ndarray:
    """Theorem 9: any (ε, δ)-DP mean estimator on {±1/√d}^d errs by ≥ √(d log(1/δ))/(2nε log d log(nd)) with
    probability ≥ 1/4 on some data set (within the δ-range of :func:`theorem9_log_delta_range`)."""
    n, d, epsilon = whole_number("n", n), whole_number("d", d), positive_finite("epsilon", epsilon)
    log_delta = as_float_array(log_delta, "log_delta")
    require(np.isfinite(log_delta) & (log_delta < 0), "log_delta", log_delta, "a log-probability in (-inf, 0)")
    return np.sqrt(d * -np.asarray(log_delta, float)) / (2.0 * n * epsilon * math.log(d) * math.log(n * d))


def sample_data_mean(n: int, d: int, p_plus: float, rng: np.random.Generator) -> np.ndarray:
    """D̄ of n records in {±1/√d}^d with P(+1/√d) = p_plus per coordinate: (2·Bin(n, p)/n − 1)/√d."""
    n = whole_number("n", n)
    d = size_that_fits("d", d, 24, "the binomial counts and the mean (float64)")
    p_plus = probability("p_plus", p_plus, allow_zero=True, allow_one=True)
    return (2.0 * rng.binomial(n, p_plus, size=d) / n - 1.0) / math.sqrt(d)


def log10_purification_scale(
    d: int, diameter: float, log_delta: float, log_omega: float, epsilon_prime: float
) -> float:
    """log10 of b = 2Δ/ε′ with Δ = 2d·R·(δ/2ω)^{1/d} (q = ∞), in log-space (b underflows for log δ ≲ −7000d)."""
    d, diameter = whole_number("d", d), positive_finite("diameter", diameter)
    log_delta, log_omega = log_probability("log_delta", log_delta), log_probability("log_omega", log_omega)
    epsilon_prime = positive_finite("epsilon_prime", epsilon_prime)
    log_b = math.log(4.0 * d * diameter / epsilon_prime) + (log_delta - math.log(2.0) - log_omega) / d
    return log_b / math.log(10.0)


def theorem9_columns(n: int, d: int, epsilon: float, log_delta: float) -> dict[str, float | bool]:
    """Section 7's picture at one upstream δ for n records in d dimensions at ε: Theorem 9's lower bound
    (:func:`theorem9_lower_bound`), whether log δ lies strictly inside its range (:func:`theorem9_log_delta_range`)
    and that range, the experiment's own log δ (:func:`mean_estimation_log_delta`) and the pure-DP rate 2d/(nε)."""
    n, d, epsilon = whole_number("n", n), whole_number("d", d), positive_finite("epsilon", epsilon)
    log_delta = log_probability("log_delta", log_delta)
    lo, hi = theorem9_log_delta_range(n, d)
    return {
        "theorem9_lower_bound": float(theorem9_lower_bound(n, d, epsilon, log_delta)),
        "theorem9_valid": bool(lo < log_delta < hi),
        "theorem9_log_delta_min": lo,
        "theorem9_log_delta_max": hi,
        "paper_log_delta": mean_estimation_log_delta(n, d)[0],
        "pure_rate": d * 2.0 / (n * epsilon),
    }
