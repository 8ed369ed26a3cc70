"""An exact small case of the exponential mechanism's smooth RDP (Theorem 11 of Hu, Sanyal, Schölkopf 2024): every
dataset of a few scalars on a grid, every output, the exact Rényi divergence of every pair. An audit of the theorem's
bound (:mod:`dplab.theory.smooth_rdp`), so it sits with the audits, above the mechanisms it runs."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dplab.accounting.renyi import discrete_renyi
from dplab.checks import as_positive_array, positive_finite, renyi_orders, whole_number
from dplab.mechanisms.exponential import exponential_mechanism_log_probabilities

__all__ = ["exponential_mechanism_enumeration"]


def _grid_datasets(n: int, levels: int) -> np.ndarray:
    """Every dataset of n scalars on ``levels`` equally spaced points of [−1, 1] (the unit ball of ℝ), (levels^n, n)."""
    grid = np.linspace(-1.0, 1.0, levels)
    return np.stack(np.meshgrid(*([grid] * n), indexing="ij"), axis=-1).reshape(-1, n)


def exponential_mechanism_enumeration(
    alpha: float, eps: float, taus: ArrayLike, n: int = 2, levels: int = 5, outputs: int = 9
) -> dict[str, np.ndarray | float]:
    """Theorem 11 on an exact small case: datasets S of n scalars on ``levels`` points of [−1, 1], outputs h on
    ``outputs`` points of [−1, 1], score Q(S, h) = −|mean(S) − h|, which is L-Lipschitz in S for the Frobenius norm
    with L = 1/√n (Cauchy–Schwarz) and has replace-one sensitivity Δ_Q = 2/n; Pr[h] ∝ exp(Q(S, h)ε/(2Δ_Q)).

    Returns, by enumerating every ordered pair of datasets and every output: ``srdp`` the largest exact D_α over
    pairs with d12(S, S') ≤ τ, per τ of ``taus``; ``rdp`` the largest over replace-one neighbours; ``lipschitz`` and
    ``sensitivity`` (L, Δ_Q as used) with ``realised_lipschitz`` (max |ΔQ|/‖S − S'‖_F) and ``realised_sensitivity``
    (max |ΔQ| over neighbours), which must not exceed them."""
    renyi_orders("alpha", alpha)
    positive_finite("eps", eps)
    whole_number("n", n, maximum=4)
    whole_number("levels", levels, minimum=2, maximum=9)
    whole_number("outputs", outputs, minimum=2)
    lipschitz, sensitivity = 1 / math.sqrt(n), 2 / n
    data = _grid_datasets(n, levels)
    score = -np.abs(data.mean(axis=1)[:, None] - np.linspace(-1.0, 1.0, outputs)[None, :])
    log_p = exponential_mechanism_log_probabilities(score, eps, sensitivity)
    divergence = discrete_renyi(log_p[:, None, :], log_p[None, :, :], alpha)
    moves = np.abs(data[:, None, :] - data[None, :, :])
    d12, frobenius, hamming = moves.sum(-1), np.sqrt((moves**2).sum(-1)), (moves > 0).sum(-1)
    score_change = np.abs(score[:, None, :] - score[None, :, :]).max(-1)
    with np.errstate(invalid="ignore"):
        realised_lipschitz = float(np.nanmax(np.where(frobenius > 0, score_change / frobenius, np.nan)))
    tolerance = 1e-12
    return {
        "srdp": np.array([divergence[d12 <= t + tolerance].max() for t in as_positive_array(taus, "taus").ravel()]),
        "rdp": float(divergence[hamming <= 1].max()),
        "lipschitz": lipschitz, "sensitivity": sensitivity, "realised_lipschitz": realised_lipschitz,
        "realised_sensitivity": float(score_change[hamming <= 1].max()),
    }  # fmt: skip
