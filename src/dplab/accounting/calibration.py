"""Noise calibration through dp_accounting: the smallest DP-SGD noise multiplier for a target (ε, δ)."""

from __future__ import annotations

import functools
import logging
import math

import dp_accounting
import numpy as np
from dp_accounting import rdp

from dplab.checks import in_range, positive_finite, probability, whole_number

__all__ = ["RDP_ORDERS", "calibrate_dpsgd_sigma", "dpsgd_epsilon"]

RDP_ORDERS = tuple(np.concatenate([np.linspace(1.05, 10.0, 19), np.unique(np.round(np.geomspace(11, 512, 16)))]))


class _ExcludedOrderFilter(logging.Filter):
    """Drops dp_accounting's absl WARNING "_compute_log_a_frac failed to converge ... Excluding this order": at small
    fractional orders (1.05, 1.55 at q = 0.125, σ = 1) its series does not converge and the accountant leaves the order
    out of the minimum over orders, which can only overstate ε (the bound stays valid). The note is about the
    accountant's own order grid, not the user's input, so it is not shown; every other absl message is."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("_compute_log_a_frac failed to converge")


logging.getLogger("absl").addFilter(_ExcludedOrderFilter())


def calibrate_dpsgd_sigma(sampling_rate: float, steps: int, epsilon: float, log_delta: float) -> float:
    """Smallest noise multiplier σ with T-fold Poisson-subsampled Gaussian (rate q, add/remove, sensitivity 1) at most
    (ε, δ)-DP, by dp_accounting's RDP accountant (orders 1.05 … 512; fewer orders only overstate ε, so σ stays private) and ``calibrate_dp_mechanism``;
    checked afterwards that the ε spent is ≤ the target (an optimum at the largest order only makes σ conservative)."""
    probability("sampling_rate", sampling_rate, allow_one=True)
    steps = whole_number("steps", steps)
    positive_finite("epsilon", epsilon)
    in_range("log_delta", log_delta, -700.0, 0.0, high_open=True)  # dp_accounting takes delta as a float

    def event(sigma: float) -> dp_accounting.DpEvent:
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(sampling_rate, dp_accounting.GaussianDpEvent(sigma)), steps
        )

    sigma = float(
        dp_accounting.calibrate_dp_mechanism(
            lambda: rdp.RdpAccountant(list(RDP_ORDERS)),
            event,
            epsilon,
            math.exp(log_delta),
            dp_accounting.LowerEndpointAndGuess(1e-3, 1.0),
            tol=1e-3,
        )
    )
    accountant = rdp.RdpAccountant(list(RDP_ORDERS)).compose(event(sigma))
    spent = accountant.get_epsilon(math.exp(log_delta))
    if spent > epsilon * (1 + 1e-9):
        raise ValueError(
            f"calibration failed: sigma={sigma!r} spends epsilon={spent!r} > target {epsilon!r} "
            f"(log_delta={log_delta!r})"
        )
    return sigma


@functools.lru_cache(maxsize=256)
def dpsgd_epsilon(noise_multiplier: float, sampling_rate: float, steps: int, delta: float) -> float:
    """ε at δ of ``steps`` Poisson-subsampled Gaussian steps (dp_accounting RDP accountant, orders RDP_ORDERS).
    Cached: the accountant takes ≈40 ms, longer than a short training run of a small model."""
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(sampling_rate, dp_accounting.GaussianDpEvent(noise_multiplier)), steps
    )
    return float(rdp.RdpAccountant(list(RDP_ORDERS)).compose(event).get_epsilon(delta))
