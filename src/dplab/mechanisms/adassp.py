"""Private linear regression by sufficient-statistics perturbation: AdaSSP (Wang 2018, Algorithm 2, as used in App.
J.4 of Lin, Wang, Ma, Wang), its purification (Algorithm 13, "pure AdaSSP", Theorem 7/12) and a pure-DP Laplace-SSP
baseline (ours).

Notation: ‖𝒳‖ = sup‖x‖₂ (``bound_x``), ‖𝒴‖ = sup|y| (``bound_y``), ζ the failure probability (ρ in Wang 2018).
Adjacency: add/remove one record (x, y).  AdaSSP (Wang 2018, Algorithm 2), with noise multiplier m = √log(6/δ)/(ε/3):

- λ̃_min = max{0, λ_min(XᵀX) + m‖𝒳‖²·Z − ‖𝒳‖²·log(6/δ)/(ε/3)}, Z ~ N(0, 1);
- λ = max{0, √(d·log(6/δ)·log(2d²/ζ))·‖𝒳‖²/(ε/3) − λ̃_min};
- XᵀX^ = XᵀX + m‖𝒳‖²·E, E symmetric with i.i.d. N(0, 1) upper triangle (diagonal included);
- Xᵀy^ = Xᵀy + m‖𝒳‖‖𝒴‖·N(0, I_d);
- θ̃ = (XᵀX^ + λI)^{−1}Xᵀy^.

Privacy accounting (tested against the exact Gaussian curve): the three releases are Gaussian mechanisms with the
same noise multiplier m relative to their ℓ2 sensitivities (‖𝒳‖² for λ_min by Weyl's inequality, ‖𝒳‖² for the
upper triangle of xxᵀ, ‖𝒳‖‖𝒴‖ for xy), so together they are μ-GDP with μ = √3/m (Dong, Roth, Su 2022, Cor. 2),
whose exact δ(ε) is :func:`adassp_log_delta_composed`.  Each release alone is *not* (ε/3, δ/3)-DP (its noise is
≈ 1/√2 of the classical σ = Δ√(2 log(1.25·3/δ))/(ε/3)); the composition is (ε, δ)-DP with a wide margin.

Algorithm 13: θ_apx = AdaSSP at (ε, δ) with δ = 2ω/(16d^{3/2}r̃n²)^d, ω = 1/n², projected onto Θ = 𝔹₂^d(r̃) with
r̃ = (1 + nε/d)‖𝒴‖/‖𝒳‖ (constant 1: our choice, Algorithm 13 leaves it open), then Algorithm 1 with diameter R = 2r̃
(so Δ = 1/(4n²d)):
(ε + ε′, 0)-DP.  δ is handled as log δ throughout (it underflows: log(1/δ) ≈ 800 at n = 10⁵, d = 20).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dplab.checks import as_finite_array, positive_finite, probability, size_that_fits, whole_number
from dplab.mechanisms.gaussian import agm_log_delta
from dplab.mechanisms.purification import LqBall, purify
from dplab.numerics import project_l2_ball, symmetric_from_upper
from dplab.theory.purification import check_log_probability, purification_laplace_scale, purification_shift

__all__ = [
    "table1_linear_regression_rates",
    "SufficientStatistics",
    "sufficient_statistics",
    "adassp_noise_multiplier",
    "adassp_log_delta_composed",
    "adassp_log_delta_per_release",
    "adassp",
    "PureAdasspParameters",
    "pure_adassp_parameters",
    "pure_adassp",
    "ssp_l1_sensitivities",
    "laplace_ssp_ridge",
    "laplace_ssp",
    "ols",
    "excess_mse",
]


@dataclass(frozen=True)
class SufficientStatistics:
    """XᵀX (d×d), Xᵀy (d,), n, and λ_min(XᵀX) of one data set."""

    xtx: np.ndarray
    xty: np.ndarray
    n: int
    lambda_min: float

    @property
    def d(self) -> int:
        return int(self.xty.shape[0])


def sufficient_statistics(x: np.ndarray, y: np.ndarray) -> SufficientStatistics:
    """XᵀX, Xᵀy and λ_min(XᵀX) (``eigvalsh``; symmetric) of a design ``x`` (n, d) and response ``y`` (n,)."""
    x, y = as_finite_array(x, "x"), as_finite_array(y, "y")
    if y.shape != x.shape[:1]:
        raise ValueError(f"y has shape {y.shape} and x has shape {x.shape}; allowed: y of shape (n,) for x (n, d)")
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"x must be (n, d) and y (n,); got {x.shape} and {y.shape}")
    xtx = x.T @ x
    return SufficientStatistics(xtx, x.T @ y, x.shape[0], float(np.linalg.eigvalsh(xtx)[0]))


def adassp_noise_multiplier(epsilon: float, log_delta: float) -> float:
    """m = √log(6/δ)/(ε/3): the Gaussian noise standard deviation of each AdaSSP release per unit of sensitivity."""
    positive_finite("epsilon", epsilon)
    log_delta = check_log_probability("delta", log_delta)
    return math.sqrt(math.log(6.0) - log_delta) / (epsilon / 3.0)


def adassp_log_delta_composed(epsilon: float, log_delta: float) -> float:
    """Exact log δ(ε) of the three AdaSSP releases together: μ-GDP with μ = √3/m (Gaussian curve, Balle–Wang Thm 8)."""
    multiplier = adassp_noise_multiplier(epsilon, log_delta)
    return float(agm_log_delta(multiplier / math.sqrt(3.0), epsilon))


def adassp_log_delta_per_release(epsilon: float, log_delta: float) -> float:
    """Exact log δ(ε/3) of one AdaSSP release alone (compare with log(δ/3): Wang 2018's per-release split)."""
    return float(agm_log_delta(adassp_noise_multiplier(epsilon, log_delta), epsilon / 3.0))


def _checked_size(size: int, d: int) -> int:
    """``size`` (runs) after checking it is a whole number >= 1 whose arrays fit in memory: per run, the (d, d)
    noise, its symmetrised copy, the noisy XᵀX and the solver's copy of it, and a few (d,) vectors."""
    return size_that_fits(
        "size", size, 8 * (6 * d * d + 6 * d + 4), f"runs of sufficient-statistics perturbation, d={d}"
    )


def _symmetric_gaussian(size: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """(size, d, d) symmetric matrices whose upper triangles (diagonal included) are i.i.d. N(0, 1)."""
    return symmetric_from_upper(rng.standard_normal((size, d, d)))


def adassp(
    stats: SufficientStatistics,
    epsilon: float,
    log_delta: float,
    bound_x: float,
    bound_y: float,
    zeta: float,
    size: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """``size`` independent runs of AdaSSP (Wang 2018, Algorithm 2) on one data set.

    Returns ``theta`` (size, d), ``ridge`` λ (size,) and ``lambda_min_private`` λ̃_min (size,).  Draws: Z, E, then
    the Xᵀy noise, each for all runs at once.
    """
    d = stats.d
    _checked_size(size, d)
    bound_x, bound_y = positive_finite("bound_x", bound_x), positive_finite("bound_y", bound_y)
    probability("zeta", zeta)
    multiplier = adassp_noise_multiplier(epsilon, log_delta)
    log_six_over_delta = math.log(6.0) - log_delta
    lam_min = np.maximum(
        0.0,
        stats.lambda_min
        + multiplier * bound_x**2 * rng.standard_normal(size)
        - bound_x**2 * log_six_over_delta / (epsilon / 3.0),
    )
    threshold = math.sqrt(d * log_six_over_delta * math.log(2.0 * d * d / zeta)) * bound_x**2 / (epsilon / 3.0)
    ridge = np.maximum(0.0, threshold - lam_min)
    xtx = stats.xtx + multiplier * bound_x**2 * _symmetric_gaussian(size, d, rng) + ridge[:, None, None] * np.eye(d)
    xty = stats.xty + multiplier * bound_x * bound_y * rng.standard_normal((size, d))
    theta = np.linalg.solve(xtx, xty[:, :, None])[:, :, 0]
    return {"theta": theta, "ridge": ridge, "lambda_min_private": lam_min}


@dataclass(frozen=True)
class PureAdasspParameters:
    """Algorithm 13's parameters: r̃, log ω = −2 log n, log δ = log 2ω − d log(16d^{3/2}r̃n²), Δ = 1/(4n²d), b."""

    radius: float
    log_omega: float
    log_delta: float
    shift: float
    laplace_scale: float


def pure_adassp_parameters(
    n: int, d: int, epsilon: float, epsilon_prime: float, bound_x: float, bound_y: float
) -> PureAdasspParameters:
    """Algorithm 13 / proof of Theorem 12: r̃ = (1 + nε/d)‖𝒴‖/‖𝒳‖ (constant 1: our choice), ω = 1/n²,
    δ = 2ω/(16d^{3/2}r̃n²)^d, Θ = 𝔹₂^d(r̃) (diameter 2r̃), hence Δ = 2√d·2r̃·(δ/2ω)^{1/d} = 1/(4n²d), b = 2Δ/ε′."""
    whole_number("n", n)
    whole_number("d", d)
    positive_finite("epsilon", epsilon)
    positive_finite("epsilon_prime", epsilon_prime)
    radius = (1.0 + n * epsilon / d) * positive_finite("bound_y", bound_y) / positive_finite("bound_x", bound_x)
    log_omega = -2.0 * math.log(n)
    log_delta = math.log(2.0) + log_omega - d * math.log(16.0 * d**1.5 * radius * n**2)
    shift = purification_shift(d, 2.0, 2.0 * radius, log_delta, log_omega)
    return PureAdasspParameters(radius, log_omega, log_delta, shift, purification_laplace_scale(shift, epsilon_prime))


def pure_adassp(
    stats: SufficientStatistics,
    epsilon: float,
    epsilon_prime: float,
    bound_x: float,
    bound_y: float,
    zeta: float,
    size: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Algorithm 13 (pure AdaSSP), ``size`` runs: AdaSSP at Algorithm 13's δ, projection onto 𝔹₂(r̃), Algorithm 1.

    Returns ``theta`` (purified, (ε + ε′, 0)-DP), ``theta_apx`` (projected AdaSSP, (ε, δ)-DP), ``ridge``.
    """
    probability("zeta", zeta)
    _checked_size(size, stats.d)
    params = pure_adassp_parameters(stats.n, stats.d, epsilon, epsilon_prime, bound_x, bound_y)
    raw = adassp(stats, epsilon, params.log_delta, bound_x, bound_y, zeta, size, rng)
    theta_apx = project_l2_ball(raw["theta"], params.radius)
    domain = LqBall(tuple([0.0] * stats.d), 2.0 * params.radius, 2.0)
    theta = purify(theta_apx, domain, epsilon_prime, params.log_delta, params.log_omega, rng)
    return {"theta": theta, "theta_apx": theta_apx, "ridge": raw["ridge"]}


def ssp_l1_sensitivities(d: int, bound_x: float, bound_y: float) -> tuple[float, float]:
    """Add/remove ℓ1 sensitivities of (upper triangle of XᵀX, Xᵀy), both attained at x = ‖𝒳‖·𝟙/√d, |y| = ‖𝒴‖:

    Σ_{i≤j}|x_i x_j| = (‖x‖₁² + ‖x‖₂²)/2 ≤ (d + 1)‖𝒳‖²/2 and ‖x·y‖₁ ≤ √d‖𝒳‖‖𝒴‖ (Cauchy–Schwarz).  The cruder
    bound ‖x‖₁² ≤ d (for ‖𝒳‖ = 1) is valid but about twice the sup.
    """
    whole_number("d", d)
    positive_finite("bound_x", bound_x)
    positive_finite("bound_y", bound_y)
    return (d + 1) * bound_x**2 / 2.0, math.sqrt(d) * bound_x * bound_y


def laplace_ssp_ridge(d: int, epsilon: float, bound_x: float, zeta: float) -> float:
    """Ridge of Laplace-SSP (our choice): AdaSSP's threshold with its noise multiplier replaced by the Laplace
    per-entry standard deviation √2·b_XX, b_XX = Δ₁(XᵀX)/(ε/2): λ = √(d log(2d²/ζ))·√2·b_XX (no λ_min release)."""
    positive_finite("epsilon", epsilon)
    probability("zeta", zeta)
    b_xx = ssp_l1_sensitivities(d, bound_x, 1.0)[0] / (epsilon / 2.0)
    return math.sqrt(d * math.log(2.0 * d * d / zeta)) * math.sqrt(2.0) * b_xx


def laplace_ssp(
    stats: SufficientStatistics,
    epsilon: float,
    bound_x: float,
    bound_y: float,
    zeta: float,
    size: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Pure ε-DP SSP (our baseline): Laplace(Δ₁/(ε/2)) on the upper triangle of XᵀX and on Xᵀy (basic
    composition), then the ridge solution with :func:`laplace_ssp_ridge`.  Returns ``theta`` and ``ridge``."""
    positive_finite("bound_x", bound_x)
    positive_finite("bound_y", bound_y)
    probability("zeta", zeta)
    _checked_size(size, stats.d)
    positive_finite("epsilon", epsilon)
    d = stats.d
    sens_xx, sens_xy = ssp_l1_sensitivities(d, bound_x, bound_y)
    noise = symmetric_from_upper(rng.laplace(scale=sens_xx / (epsilon / 2.0), size=(size, d, d)))
    ridge = laplace_ssp_ridge(d, epsilon, bound_x, zeta)
    xtx = stats.xtx + noise + ridge * np.eye(d)
    xty = stats.xty + rng.laplace(scale=sens_xy / (epsilon / 2.0), size=(size, d))
    theta = np.linalg.solve(xtx, xty[:, :, None])[:, :, 0]
    return {"theta": theta, "ridge": np.full(size, ridge)}


def ols(stats: SufficientStatistics) -> np.ndarray:
    """Ordinary least squares (XᵀX)^{−1}Xᵀy."""
    return np.linalg.solve(stats.xtx, stats.xty)


def excess_mse(theta: np.ndarray, stats: SufficientStatistics) -> np.ndarray:
    """MSE(θ) − MSE(θ_OLS) with MSE(θ) = ‖Y − Xθ‖²/(2n): exactly (θ − θ_OLS)ᵀXᵀX(θ − θ_OLS)/(2n), row-wise."""
    theta_array = as_finite_array(theta, "theta")
    if theta_array.shape[-1:] != (stats.d,):
        raise ValueError(f"theta has shape {theta_array.shape}; allowed: last axis of length d={stats.d}")
    diff = np.atleast_2d(theta) - ols(stats)
    return np.einsum("ij,jk,ik->i", diff, stats.xtx, diff) / (2.0 * stats.n)


def table1_linear_regression_rates(
    n: int, d: int, epsilon: float, lambda_min: float, log_inv_delta: float
) -> tuple[float, float]:
    """Table 1, linear regression row (constants and logs dropped; ‖𝒳‖ = ‖θ*‖ = 1), λ_min = λ_min(XᵀX/n):
    before = min{√(d log(1/δ))/(nε), d log(1/δ)/(λ_min n²ε²)}, after = min{d/(nε), d²/(λ_min n²ε²)}."""
    n, d, epsilon = whole_number("n", n), whole_number("d", d), positive_finite("epsilon", epsilon)
    lambda_min, log_inv_delta = (
        positive_finite("lambda_min", lambda_min),
        positive_finite("log_inv_delta", log_inv_delta),
    )
    ne = n * epsilon
    before = min(math.sqrt(d * log_inv_delta) / ne, d * log_inv_delta / (lambda_min * ne**2))
    after = min(d / ne, d**2 / (lambda_min * ne**2))
    return before, after
