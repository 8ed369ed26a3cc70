"""The neighbouring output laws that the exact pure-ε audit of purification (``ext_exact_audit``) feeds to
:mod:`dplab.audit.interval_laws`: M1 the worst-case (ε, δ) pair, M2 Example 17 of Lin, Wang, Ma, Wang, M3 the
projected analytic Gaussian mechanism, and the Laplace scale b of Algorithm 1 on Θ = [−1, 1]."""

from __future__ import annotations

import math

from dplab.audit.interval_laws import TREATMENTS, Law1D, epsilon_inf_1d, projected_gaussian_law
from dplab.checks import finite, non_negative_finite, positive_finite, probability, whole_number
from dplab.mechanisms.gaussian import agm_sigma
from dplab.theory.mean_estimation import mean_estimation_log_delta
from dplab.theory.purification import purification_laplace_scale, purification_shift

__all__ = [
    "canonical_pair",
    "example17_pair",
    "mean_estimation_audit_1d",
    "projected_gaussian_pair",
    "purification_scale_1d",
]


def canonical_pair(
    epsilon: float, delta: float, atoms: tuple[float, ...] = (-1.0, -1 / 3, 1 / 3, 1.0)
) -> tuple[Law1D, Law1D]:
    """M1: the worst-case (ε, δ) pair P = (δ, ce^ε, c, 0), P′ = (0, c, ce^ε, δ), c = (1 − δ)/(1 + e^ε)
    (every (ε, δ)-DP mechanism is a post-processing of it; Kairouz, Oh, Viswanath 2015)."""
    epsilon = non_negative_finite("epsilon", epsilon)
    delta = probability("delta", delta, allow_zero=True)
    c = (1 - delta) / (1 + math.exp(epsilon))
    return (Law1D(atoms, (delta, c * math.exp(epsilon), c, 0.0)), Law1D(atoms, (0.0, c, c * math.exp(epsilon), delta)))


def example17_pair(delta: float, location: float = 0.3) -> tuple[Law1D, Law1D]:
    """M2 (Appendix C, Example 17): δ·Dirac(±location) + (1 − δ)·Unif[−1, 1], a (0, δ)-DP pair."""
    delta, location = probability("delta", delta, allow_zero=True), finite("location", location)
    return (
        Law1D((location,), (delta,), uniform_weight=1 - delta),
        Law1D((-location,), (delta,), uniform_weight=1 - delta),
    )


def projected_gaussian_pair(
    epsilon: float, log_delta: float, sensitivity: float, means: tuple[float, float | None] = (0.0, None)
) -> tuple[Law1D, Law1D, float]:
    """M3: the analytic Gaussian mechanism (σ for (ε, δ) at ℓ2 sensitivity s) on a mean in [−1, 1], projected onto
    [−1, 1]; μ(D) = ``means[0]``, μ(D′) = μ(D) + s unless ``means[1]`` is given.  Returns (P, P′, σ)."""
    sigma = float(agm_sigma(epsilon, log_delta, sensitivity))
    first = means[0]
    second = first + sensitivity if means[1] is None else means[1]
    return projected_gaussian_law(first, sigma), projected_gaussian_law(second, sigma), sigma


def purification_scale_1d(log_delta: float, omega: float, epsilon_prime: float, diameter: float = 2.0) -> float:
    """b = 2Δ/ε′ of Algorithm 1 on Θ = [−1, 1] (d = 1, R = 2)."""
    omega, epsilon_prime = probability("omega", omega), positive_finite("epsilon_prime", epsilon_prime)
    return purification_laplace_scale(purification_shift(1, 2.0, diameter, log_delta, math.log(omega)), epsilon_prime)


def mean_estimation_audit_1d(epsilon_total: float, n: int, mean: float, n_points: int) -> dict[str, object]:
    """The d = 1 purified Gaussian of Section 7 (Lin, Wang, Ma, Wang) on neighbouring means (μ, μ + 2/n): the
    projected AGM at ε_tot/2 and δ = 2ω/(32n²), ω = 1/n² (:func:`projected_gaussian_pair`), then Algorithm 1 at
    ε′ = ε_tot/2 on [−1, 1] (q = ∞, R = 2, b = 2Δ/ε′); returns log δ, ω, b, the AGM's σ and the exact ε∞ of every
    treatment of :data:`~dplab.audit.interval_laws.TREATMENTS` (``epsilon_inf``, by treatment), to compare with
    Theorem 1's ε_tot."""
    n = whole_number("n", n)
    log_delta, log_omega = mean_estimation_log_delta(n, 1)
    omega = math.exp(log_omega)
    half = positive_finite("epsilon_total", epsilon_total) / 2
    p, q, sigma = projected_gaussian_pair(half, log_delta, 2.0 / n, (finite("mean", mean), None))
    b = purification_laplace_scale(purification_shift(1, math.inf, 2.0, log_delta, log_omega), half)
    values = {t: epsilon_inf_1d(p, q, t, omega=omega, b=b, n_points=n_points) for t in TREATMENTS}
    return {"log_delta": log_delta, "omega": omega, "laplace_scale": b, "sigma": sigma, "epsilon_inf": values}
