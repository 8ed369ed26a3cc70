"""Utility of projected noisy SGD (PNSGD, Algorithm 1 of Asoodeh, Diaz, Calmon 2020, "Privacy Amplification of
Iterative Algorithms via Contraction Coefficients") on logistic regression: one pass over the records in a fixed
order, Y_t = Π_𝕂(Y_{t−1} − η∇ℓ(Y_{t−1}, x_t) + noise), final iterate, many runs at once through the noisy-gradient
engine.

𝕂 is an ℓ2 ball of radius R for Gaussian noise (Theorem 4) and the interval [−R, R] for Laplace noise (Theorem 3 is
one-dimensional). Each run is scored by the excess empirical risk F(Y_n) − min_𝕂 F (min_𝕂 F from
:func:`dplab.learning.erm.constrained_minimiser`), its test loss and its test accuracy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import torch

from dplab.checks import (
    as_finite_array,
    choice,
    finite,
    non_negative_finite,
    positive_finite,
    size_that_fits,
    whole_number,
)
from dplab.learning.engine import NoisyGradientConfig, run_noisy_gradient
from dplab.learning.erm import constrained_minimiser, logistic_risk
from dplab.learning.losses import LogisticLoss
from dplab.learning.projections import Ball, Interval, Projection
from dplab.theory.contraction import certified_epsilons

__all__ = [
    "PNSGD_NOISES",
    "pnsgd_domain",
    "pnsgd_config",
    "run_summary",
    "pnsgd_utility_runs",
    "reported_users",
    "logistic_certified_epsilons",
]

#: The noise densities of PNSGD with a privacy theorem in the paper: Laplace (Theorem 3), Gaussian (Theorem 4).
PNSGD_NOISES = ("gaussian", "laplace")


def pnsgd_domain(noise: str, radius: float) -> Projection:
    """The constraint set 𝕂: an ℓ2 ball of radius R for Gaussian noise, the interval [−R, R] for Laplace (1-D)."""
    choice("noise", noise, PNSGD_NOISES)
    radius = positive_finite("radius", radius)
    return Ball(radius) if noise == "gaussian" else Interval(-radius, radius)


def pnsgd_config(noise: str, lr: float, scale: float, projection: Projection) -> NoisyGradientConfig:
    """One pass of single-record PNSGD steps with ``noise`` at ``scale`` (no noise at scale 0), projected."""
    choice("noise", noise, PNSGD_NOISES)
    scale = non_negative_finite("scale", scale)
    return NoisyGradientConfig(
        lr=positive_finite("lr", lr),
        noise=noise if scale > 0 else "none",
        noise_scale=scale,
        clip_norm=None,
        projection=projection,
        sampling="single_pass",
        batch_size=1,
    )


def run_summary(W: np.ndarray, data: Mapping[str, np.ndarray], best_risk: float) -> dict[str, float]:
    """Mean, standard deviation and standard error over the runs ``W`` (one row per run, at least 2) of the excess
    empirical risk F(W) − min_𝕂 F on (``data["X"]``, ``data["y"]``) and of the test loss on (``X_test``, ``y_test``),
    and the mean test accuracy (sign of ⟨w, x⟩ against the label)."""
    W, best_risk = as_finite_array(W, "W"), finite("best_risk", best_risk)
    runs = whole_number("runs", np.shape(W)[0], minimum=2)
    excess = logistic_risk(W, data["X"], data["y"]) - best_risk
    test_loss = logistic_risk(W, data["X_test"], data["y_test"])
    accuracy = ((data["X_test"] @ W.T).T * data["y_test"] > 0).mean(axis=1)
    return {
        "excess_risk_mean": excess.mean(),
        "excess_risk_sd": excess.std(ddof=1),
        "excess_risk_se": excess.std(ddof=1) / np.sqrt(runs),
        "test_loss_mean": test_loss.mean(),
        "test_loss_se": test_loss.std(ddof=1) / np.sqrt(runs),
        "test_accuracy_mean": accuracy.mean(),
    }


def pnsgd_utility_runs(
    noise: str,
    data: Mapping[str, np.ndarray],
    *,
    radius: float,
    lrs: Sequence[float],
    noise_scales: Sequence[float],
    runs: int,
    seed: int,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> list[dict[str, Any]]:
    """``runs`` PNSGD models from 0 per (step size, noise scale), all drawn from one torch generator seeded by
    ``seed`` in the order of ``lrs`` then ``noise_scales``: one record each with the setting, min_𝕂 F and
    :func:`run_summary`. ``data`` holds ``X``, ``y`` (training) and ``X_test``, ``y_test``. ``runs`` is refused
    before any work when its arrays (per run: the model, and the margins and losses on both sets) cannot fit in
    memory."""
    projection = pnsgd_domain(noise, radius)
    n, d = data["X"].shape
    n_test = len(data["X_test"])
    per_run = 8 * (4 * d + 2 * n + 4 * n_test)
    runs = size_that_fits("runs", runs, per_run, f"runs of PNSGD on {n} + {n_test} records of dimension {d}", 2)
    seed = whole_number("seed", seed, minimum=0)
    tensors = {key: torch.as_tensor(value) for key, value in data.items()}
    minimiser = constrained_minimiser(data["X"], data["y"], radius).theta
    best_risk = float(logistic_risk(minimiser, data["X"], data["y"])[0])
    generator = torch.Generator().manual_seed(seed)
    loss = LogisticLoss()
    start = torch.zeros(d, dtype=torch.float64)
    rows = []
    for lr in progress(lrs):
        for scale in noise_scales:
            config = pnsgd_config(noise, lr, scale, projection)
            W = run_noisy_gradient(config, loss, tensors["X"], tensors["y"], start, runs=runs, generator=generator)
            head = {"noise": noise, "n": n, "d": d, "radius": radius, "lr": lr, "noise_scale": scale}
            rows.append({**head, "runs": runs, "min_risk": best_risk, **run_summary(W.numpy(), data, best_risk)})
    return rows


def reported_users(n: int) -> dict[str, int]:
    """The users whose epsilon is reported, by position i in the pass: the first, the middle, the second-to-last
    and the last."""
    n = whole_number("n", n, minimum=2)
    return {"first": 1, "middle": n // 2, "second_last": n - 1, "last": n}


def logistic_certified_epsilons(
    noise: str, *, n: int, radius: float, lr: float, scale: float, delta: float, feature_bound: float = 1.0
) -> dict[str, float]:
    """:func:`dplab.theory.contraction.certified_epsilons` for one pass of PNSGD on the logistic loss with features
    of norm ≤ ``feature_bound`` (L = feature_bound, β = feature_bound²/4, convex), to the users of
    :func:`reported_users`: Theorem 4 or 3 per user, Proposition 1 at the middle user and Theorem 5."""
    feature_bound = positive_finite("feature_bound", feature_bound)
    return certified_epsilons(
        noise,
        users=reported_users(n),
        n=n,
        radius=radius,
        lr=lr,
        scale=scale,
        delta=delta,
        L=feature_bound,
        beta_smooth=LogisticLoss().smoothness(feature_bound),
    )
