"""Propose-test-release for PCA rank reduction followed by DP-GD: Algorithm 1, Theorem 7 and Proposition 8 of
Hu, Sanyal, Schölkopf (2024).

Algorithm 1: γ = min_{S': δ_k(S') < β} d_H(S, S') + Lap(1/ε); refuse (⊥) if γ ≤ log(2/δ)/ε; otherwise run DP-GD
with σ = 2L√T/(εn) on π_rank(S). The distance to instability is not computable as written (a minimum over all data
sets); we use the lower bound of the proof of Prop. 8 (eqs. (55)–(59)), Ĵ(S) = (δ_k(S) − β)·n/12.2: by Weyl's
inequality and ‖Σ̃ − Σ‖_F ≤ 6.1/n (n ≥ 101), δ_k moves by ≤ 12.2/n per replaced record, so Ĵ has global
sensitivity ≤ 1 and Ĵ ≤ 0 whenever δ_k(S) ≤ β: the two properties the privacy proof uses, so Theorem 7 stays valid.

Unconditional accounting: (ε̂ + ε, δ)-DP on every dataset (Theorem 7; :func:`dplab.theory.smooth_rdp.theorem7_epsilon`
as printed and :func:`~dplab.theory.smooth_rdp.theorem7_epsilon_corrected`).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from numpy.typing import ArrayLike

from dplab.checks import (
    as_finite_array,
    as_float_array,
    labels_in,
    matching_length,
    positive_finite,
    real_number,
    require_ndim,
    size_that_fits,
    whole_number,
)
from dplab.distributions import Laplace
from dplab.learning.engine import NoisyGradientConfig, run_noisy_gradient
from dplab.learning.losses import LogisticLoss
from dplab.learning.projections import Ball
from dplab.preprocessing.pca import eigengap, pca_rank_reduce, top_eigenvectors
from dplab.theory.smooth_rdp import PCA_TAU_CONSTANT

__all__ = [
    "ptr_distance_statistic",
    "ptr_threshold",
    "ptr_refusal_probability",
    "ptr_test",
    "ptr_dp_gd_noise",
    "ptr_pca_dp_gd",
]


def ptr_distance_statistic(X: ArrayLike, k: int, beta: float) -> float:
    """Ĵ(S) = (δ_k(S) − β)·n/12.2, the computable sensitivity-1 lower bound on the distance to a dataset with
    eigen-gap < β (needs n ≥ 101 and ‖x‖ ≤ 1)."""
    require_ndim("X", as_finite_array(X, "X"), 2)
    data = np.asarray(X, dtype=float)
    if data.shape[0] < 101:
        raise ValueError(f"n={data.shape[0]} is invalid; allowed: n >= 101 (the 6.1/n bound of Prop. 5)")
    _, values = top_eigenvectors(data, k)
    return (eigengap(values, k) - positive_finite("beta", beta)) * data.shape[0] / PCA_TAU_CONSTANT


def ptr_threshold(epsilon: float, delta: float) -> float:
    """log(2/δ)/ε (Algorithm 1, step 2)."""
    if not 0 < real_number("delta", delta) < 1:
        raise ValueError(f"delta={delta!r} is invalid; allowed: 0 < delta < 1")
    return math.log(2 / delta) / positive_finite("epsilon", epsilon)


def ptr_refusal_probability(statistic: float, epsilon: float, delta: float) -> float:
    """Pr[Ĵ + Lap(1/ε) ≤ log(2/δ)/ε] = the Laplace CDF at x = threshold − Ĵ: ½e^{εx} (x < 0), 1 − ½e^{−εx}."""
    as_float_array(statistic, "statistic")
    x = ptr_threshold(epsilon, delta) - statistic
    return Laplace(1.0 / epsilon).cdf(x)


def ptr_test(statistic: float, epsilon: float, delta: float, rng: np.random.Generator, runs: int) -> np.ndarray:
    """``runs`` independent tests: True where released (γ > threshold), False where ⊥."""
    as_float_array(statistic, "statistic")
    size_that_fits("runs", runs, 24, "the Laplace draws and the test per run")
    gamma = statistic + rng.laplace(0.0, 1.0 / positive_finite("epsilon", epsilon), size=runs)
    return gamma > ptr_threshold(epsilon, delta)


def ptr_dp_gd_noise(n: int, steps: int, epsilon: float, L: float = 1.0) -> float:
    """σ = 2L√T/(εn) (Algorithm 1, step 3): DP-GD is then (α, αε²/2)-RDP."""
    whole_number("n", n)
    whole_number("steps", steps)
    positive_finite("L", L)
    return 2 * L * math.sqrt(steps) / (positive_finite("epsilon", epsilon) * n)


def ptr_pca_dp_gd(
    X: ArrayLike,
    y: ArrayLike,
    k: int,
    beta: float,
    epsilon: float,
    delta: float,
    steps: int,
    lr: float,
    radius: float,
    rng: np.random.Generator,
    generator: torch.Generator,
    runs: int,
) -> np.ndarray:
    """Algorithm 1 for ``runs`` independent runs: (runs, d) DP-GD outputs (average iterate, projected onto
    ‖θ‖ ≤ radius, logistic loss, clipping C = L = 1) on π_rank(S), NaN rows where the test refused."""
    matching_length("y", y, "X", X)
    labels_in("y", y)
    whole_number("steps", steps)
    positive_finite("lr", lr)
    positive_finite("radius", radius)
    size_that_fits(
        "runs",
        runs,
        8 * (3 * np.shape(X)[0] + 6 * np.shape(X)[-1]),
        "each run's margins (n) and iterates (d) in the engine",
    )
    data = require_ndim("X", as_finite_array(X, "X"), 2)
    released = ptr_test(ptr_distance_statistic(data, k, beta), epsilon, delta, rng, runs)
    output = np.full((runs, data.shape[1]), np.nan)
    if not released.any():
        return output
    config = NoisyGradientConfig(
        lr=lr,
        noise="gaussian",
        noise_scale=ptr_dp_gd_noise(data.shape[0], steps, epsilon),
        clip_norm=1.0,
        projection=Ball(radius),
        sampling="full_batch",
        steps=steps,
        stopping="average",
    )
    theta = run_noisy_gradient(
        config,
        LogisticLoss(),
        pca_rank_reduce(data, k),
        np.asarray(y, float),
        np.zeros(data.shape[1]),
        runs=int(released.sum()),
        generator=generator,
        progress=False,
    )
    output[released] = theta.numpy()
    return output
