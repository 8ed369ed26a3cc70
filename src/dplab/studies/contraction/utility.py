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

from dplab.learning.pnsgd_utility import logistic_certified_epsilons, pnsgd_utility_runs

__all__ = [
    "train_utility",
    "utility_table",
    "compute_utility",
    "TABLE_COLUMNS",
    "utility_table_shown",
]

FEATURE_BOUND = 1.0
#: The arrays of a dataset that training reads (``X``, ``y`` stored as ``X_train``, ``y_train``).
DATA_KEYS = ("X", "y", "X_test", "y_test")


def train_utility(
    noise: str,
    data: Mapping[str, np.ndarray],
    utility: Mapping[str, Any],
    *,
    seed: int,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> pd.DataFrame:
    """Train ``runs`` PNSGD models (one pass, fixed order, final iterate) per step size and noise scale
    (:func:`dplab.learning.pnsgd_utility.pnsgd_utility_runs` on the section ``utility``): mean, standard deviation
    and standard error over runs of the excess empirical risk F(Y_n) - min_K F and of the test loss, and the mean
    test accuracy."""
    arrays = {key: np.asarray(data[f"{key}_train" if key in ("X", "y") else key]) for key in DATA_KEYS}
    rows = pnsgd_utility_runs(
        noise,
        arrays,
        radius=utility[noise]["radius"],
        lrs=utility["lrs"],
        noise_scales=utility["noise_scales"],
        runs=utility["runs"],
        seed=seed,
        progress=progress,
    )
    return pd.DataFrame(rows)


def utility_table(runs: pd.DataFrame, delta: float) -> pd.DataFrame:
    """The training results with the certified epsilons of each (noise, step size, noise scale) appended."""
    privacy = [
        logistic_certified_epsilons(
            r.noise, n=int(r.n), radius=r.radius, lr=r.lr, scale=r.noise_scale, delta=delta, feature_bound=FEATURE_BOUND
        )
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
