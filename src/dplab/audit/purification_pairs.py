"""The neighbouring output laws that the exact pure-ε audit of purification (``ext_exact_audit``) feeds to
:mod:`dplab.audit.interval_laws`: M1 the worst-case (ε, δ) pair, M2 Example 17 of Lin, Wang, Ma, Wang, M3 the
projected analytic Gaussian mechanism, and the Laplace scale b of Algorithm 1 on Θ = [−1, 1]."""

from __future__ import annotations

import math

from dplab.audit.interval_laws import Law1D, projected_gaussian_law
from dplab.checks import finite, non_negative_finite, positive_finite, probability
from dplab.mechanisms.gaussian import agm_sigma
from dplab.theory.purification import purification_laplace_scale, purification_shift

__all__ = ["canonical_pair", "example17_pair", "projected_gaussian_pair", "purification_scale_1d"]


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
