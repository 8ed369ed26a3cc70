"""Utility of PNSGD on synthetic logistic regression, next to the epsilon the theorems certify (our utility experiment; the paper has none).

Gaussian PNSGD runs in d dimensions on a ball of radius R (D = 2R); Laplace PNSGD in 1-D on [-R, R] (Theorem 3 is
one-dimensional). The logistic loss with ||x|| <= 1 is 1-Lipschitz, 1/4-smooth and convex (M = 1). min_K F is
:func:`dplab.learning.erm.constrained_minimiser` (the l2 ball of radius R; in 1-D the interval [-R, R]).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import torch

from dplab.learning.engine import NoisyGradientConfig, run_noisy_gradient
from dplab.learning.erm import constrained_minimiser, logistic_risk
from dplab.learning.losses import LogisticLoss
from dplab.learning.projections import Ball, Interval
from dplab.theory.contraction import certified_epsilons as contraction_certified_epsilons

__all__ = [
    "domain",
    "train_utility",
    "users",
    "certified_epsilons",
    "utility_table",
    "compute_utility",
    "TABLE_COLUMNS",
    "utility_table_shown",
]

FEATURE_BOUND = 1.0
#: The arrays of a dataset that training reads (``X``, ``y`` stored as ``X_train``, ``y_train``).
DATA_KEYS = ("X", "y", "X_test", "y_test")


def domain(noise: str, radius: float, d: int):
    """The constraint set: an l2 ball of radius R for Gaussian noise, the interval [-R, R] for Laplace (1-D)."""
    return Ball(radius) if noise == "gaussian" else Interval(-radius, radius)


def _pnsgd_config(noise: str, lr: float, scale: float, projection) -> NoisyGradientConfig:
    """One pass of single-record PNSGD steps with ``noise`` at ``scale`` (no noise at scale 0), projected."""
    return NoisyGradientConfig(
        lr=lr,
        noise=noise if scale > 0 else "none",
        noise_scale=scale,
        clip_norm=None,
        projection=projection,
        sampling="single_pass",
        batch_size=1,
    )


def _run_summary(W: np.ndarray, data: Mapping[str, np.ndarray], best_risk: float) -> dict[str, float]:
    """Mean, standard deviation and standard error over the runs ``W`` (one row per run) of the excess empirical
    risk F(W) - min_K F and of the test loss, and the mean test accuracy."""
    runs = W.shape[0]
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


def train_utility(
    noise: str,
    data: Mapping[str, np.ndarray],
    utility: Mapping[str, Any],
    *,
    seed: int,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> pd.DataFrame:
    """Train ``runs`` PNSGD models (one pass, fixed order, final iterate) per step size and noise scale.

    Reports mean, standard deviation and standard error over runs of the excess empirical risk
    F(Y_n) - min_K F and of the test loss, and the mean test accuracy.
    """
    loss = LogisticLoss()
    arrays = {key: np.asarray(data[f"{key}_train" if key in ("X", "y") else key]) for key in DATA_KEYS}
    tensors = {key: torch.as_tensor(value) for key, value in arrays.items()}
    n, d = arrays["X"].shape
    setting = utility[noise]
    projection = domain(noise, setting["radius"], d)
    minimiser = constrained_minimiser(arrays["X"], arrays["y"], setting["radius"]).theta
    best_risk = float(logistic_risk(minimiser, arrays["X"], arrays["y"])[0])
    generator = torch.Generator().manual_seed(seed)
    runs = utility["runs"]
    start = torch.zeros(d, dtype=torch.float64)
    rows = []
    for lr in progress(utility["lrs"]):
        for scale in utility["noise_scales"]:
            config = _pnsgd_config(noise, lr, scale, projection)
            W = run_noisy_gradient(config, loss, tensors["X"], tensors["y"], start, runs=runs, generator=generator)
            head = {"noise": noise, "n": n, "d": d, "radius": setting["radius"], "lr": lr, "noise_scale": scale}
            rows.append({**head, "runs": runs, "min_risk": best_risk, **_run_summary(W.numpy(), arrays, best_risk)})
    return pd.DataFrame(rows)


def users(n: int) -> dict[str, int]:
    """The users whose epsilon is reported: the first, the middle, the second-to-last and the last."""
    return {"first": 1, "middle": n // 2, "second_last": n - 1, "last": n}


def certified_epsilons(noise: str, *, n: int, radius: float, lr: float, scale: float, delta: float) -> dict[str, float]:
    """:func:`dplab.theory.contraction.certified_epsilons` for the logistic loss on features of norm ≤ FEATURE_BOUND
    (L = FEATURE_BOUND, β = its smoothness), to the users of :func:`users`."""
    beta_smooth = LogisticLoss().smoothness(FEATURE_BOUND)
    return contraction_certified_epsilons(
        noise,
        users=users(n),
        n=n,
        radius=radius,
        lr=lr,
        scale=scale,
        delta=delta,
        L=FEATURE_BOUND,
        beta_smooth=beta_smooth,
    )


def utility_table(runs: pd.DataFrame, delta: float) -> pd.DataFrame:
    """The training results with the certified epsilons of each (noise, step size, noise scale) appended."""
    privacy = [
        certified_epsilons(r.noise, n=int(r.n), radius=r.radius, lr=r.lr, scale=r.noise_scale, delta=delta)
        for r in runs.itertuples(index=False)
    ]
    table = pd.concat([runs.reset_index(drop=True), pd.DataFrame(privacy)], axis=1)
    table.insert(table.columns.get_loc("runs"), "delta", delta)
    return table


def compute_utility(
    params: Mapping[str, Any],
    seed: int,
    progress: Callable[[Iterable[Any]], Iterable[Any]],
    inputs: Mapping[str, Any],
) -> pd.DataFrame:
    """The artifact ``ext_utility`` (registry convention): the training runs of every noise type, in the order of
    ``inputs``, with the epsilons certified at ``params["delta"]`` (:func:`utility_table`)."""
    runs = pd.concat([pd.read_csv(path) for path in inputs.values()], ignore_index=True)
    return utility_table(runs, params["delta"])


#: The columns of the utility table a reader compares (the figure's data file keeps every column).
TABLE_COLUMNS = (
    "noise",
    "d",
    "lr",
    "noise_scale",
    "excess_risk_mean",
    "excess_risk_se",
    "test_accuracy_mean",
    "epsilon_thm_first",
    "epsilon_thm_middle",
    "epsilon_thm_last",
    "epsilon_prop1_middle",
    "epsilon_thm5",
)


def utility_table_shown(frame: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """The table ``tables/ext_utility`` from the figure's data: the :data:`TABLE_COLUMNS`."""
    return frame[list(TABLE_COLUMNS)]
