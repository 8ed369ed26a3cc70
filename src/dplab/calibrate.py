"""Noise for a target (ε, δ): DP-SGD through dp_accounting, the analytic Gaussian, and purification's budget split.

Each function wraps the library primitive that the studies use (no second path):
:func:`dplab.accounting.calibration.calibrate_dpsgd_sigma`, :func:`dplab.mechanisms.gaussian.agm_sigma` and
:func:`dplab.theory.purification.corollary4_parameters`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dplab.accounting.calibration import calibrate_dpsgd_sigma
from dplab.checks import positive_finite, probability, whole_number
from dplab.mechanisms.gaussian import agm_sigma
from dplab.theory.purification import corollary4_parameters, purified_epsilon

__all__ = ["PurificationBudget", "dpsgd_noise_multiplier", "gaussian_sigma", "purification_budget"]


def _check_target(epsilon: float, delta: float) -> None:
    """0 < epsilon < inf and 0 < delta < 1 (booleans, complex numbers and NaN refused)."""
    positive_finite("epsilon", epsilon)
    probability("delta", delta)


def dpsgd_noise_multiplier(epsilon: float, delta: float, *, sampling_rate: float, steps: int) -> float:
    """Smallest noise multiplier σ (noise std / clipping norm) making ``steps`` Poisson-subsampled Gaussian steps at
    rate ``sampling_rate`` (ε, δ)-DP under add/remove adjacency, by dp_accounting's RDP accountant."""
    _check_target(epsilon, delta)
    probability("sampling_rate", sampling_rate, allow_one=True)
    return calibrate_dpsgd_sigma(sampling_rate, whole_number("steps", steps), epsilon, math.log(delta))


def gaussian_sigma(epsilon: float, delta: float, *, sensitivity: float = 1.0) -> float:
    """Smallest σ of the analytic Gaussian mechanism N(f(x), σ²) for (ε, δ)-DP (Balle and Wang 2018, Theorem 8):
    Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ."""
    _check_target(epsilon, delta)
    return float(agm_sigma(epsilon, math.log(delta), positive_finite("sensitivity", sensitivity)))


@dataclass(frozen=True)
class PurificationBudget:
    """A total pure budget split for DP-then-purify (Lin, Wang, Ma, Wang 2025, Corollary 4): run the approximate-DP
    algorithm at (epsilon, exp(log_delta)), purify with (epsilon_prime, exp(log_omega)); the release is
    (epsilon + epsilon_prime, 0)-DP (Theorem 1).  ``shift`` Δ and ``laplace_scale`` b = 2Δ/ε′ are Algorithm 1's."""

    epsilon: float
    log_delta: float
    epsilon_prime: float
    log_omega: float
    shift: float
    laplace_scale: float

    @property
    def total_epsilon(self) -> float:
        """ε + 2Δ/b (Theorem 1 with Lemmas 15-16), equal to ε + ε′."""
        return purified_epsilon(self.epsilon, self.shift, self.laplace_scale)


def purification_budget(total_epsilon: float, *, n: int, d: int, diameter: float) -> PurificationBudget:
    """Split a total pure budget as in Corollary 4 (Lin et al. 2025): ε = ε′ = total/2, ω = 1/n²,
    δ = 2ω/(16 C d n²)^d for an ℓ2 ball of diameter C = ``diameter`` in ℝ^d and n records."""
    half = positive_finite("total_epsilon", total_epsilon) / 2
    parameters = corollary4_parameters(whole_number("n", n, minimum=2), whole_number("d", d), diameter, half)
    return PurificationBudget(
        epsilon=half,
        log_delta=parameters["log_delta"],
        epsilon_prime=half,
        log_omega=parameters["log_omega"],
        shift=parameters["shift"],
        laplace_scale=parameters["laplace_scale"],
    )
