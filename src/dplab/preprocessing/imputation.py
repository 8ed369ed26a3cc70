"""Model-based imputation π_f (Hu, Sanyal, Schölkopf 2024, Cor. 4, Prop. 15, Table 3, App. C.2).

Missing values are NaN. Each feature j with missing values is filled from the *available* values of the dataset:

- mean: the empirical mean of the available values of feature j (Cor. 4: Δ₂ = 2/(n−p), Δ_∞ = p);
- median: the median of the available values of feature j;
- m-trimmed mean: the mean after removing the m smallest and the m largest available values of feature j;
- linear regression: the least-squares prediction of feature j from the fully observed features r (the columns
  with no missing value), fitted on the rows where j is available (no intercept: Σ = XᵀX/n, App. C.2).

Every function returns a new array; observed entries are never changed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from dplab.checks import as_missing_aware_array, not_boolean, require, require_ndim, whole_number

__all__ = [
    "IMPUTATION_METHODS",
    "impute",
    "mean_impute",
    "median_impute",
    "trimmed_mean_impute",
    "linear_regression_impute",
    "missing_rows",
    "imputation_order_statistics",
]


def _check(X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    data = np.array(as_missing_aware_array(X, "X"), dtype=float)
    if data.ndim != 2 or data.shape[0] < 1:
        raise ValueError(f"X has shape {data.shape}; it must be (n, d) with n >= 1")
    missing = np.isnan(data)
    empty = np.flatnonzero(missing.all(0) & missing.any(0))
    if empty.size:
        raise ValueError(f"features {empty.tolist()} have no available value to impute from")
    return data, missing


def missing_rows(X: ArrayLike) -> int:
    """p: the number of points (rows) with at least one missing value."""
    return int(np.isnan(require_ndim("X", as_missing_aware_array(X, "X"), 2)).any(1).sum())


def _per_feature(X: ArrayLike, statistic: Callable[[np.ndarray], float]) -> np.ndarray:
    data, missing = _check(X)
    for j in np.flatnonzero(missing.any(0)):
        data[missing[:, j], j] = statistic(data[~missing[:, j], j])
    return data


def mean_impute(X: ArrayLike) -> np.ndarray:
    """Fill feature j's missing values with the mean of its available values."""
    return _per_feature(X, np.mean)


def median_impute(X: ArrayLike) -> np.ndarray:
    """Fill feature j's missing values with the median of its available values."""
    return _per_feature(X, np.median)


def trimmed_mean_impute(X: ArrayLike, m: int) -> np.ndarray:
    """Fill feature j's missing values with the mean of its available values after removing the m smallest and
    the m largest (needs more than 2m available values)."""
    if not isinstance(not_boolean("m", m), (int, np.integer)) or m < 0:
        raise ValueError(f"m={m!r} must be an integer >= 0")

    def trimmed(values: np.ndarray) -> float:
        if values.size <= 2 * m:
            raise ValueError(f"m={m}: a feature has only {values.size} available values; need more than 2m")
        return float(np.sort(values)[m : values.size - m].mean())

    return _per_feature(X, trimmed)


def linear_regression_impute(X: ArrayLike) -> np.ndarray:
    """Fill feature j's missing values with x_r·β_j, β_j = argmin ‖X_r[obs_j] β − X_j[obs_j]‖² (least squares,
    no intercept), r = the fully observed features."""
    data, missing = _check(X)
    complete = np.flatnonzero(~missing.any(0))
    if complete.size == 0:
        raise ValueError("linear-regression imputation needs at least one fully observed feature")
    for j in np.flatnonzero(missing.any(0)):
        observed = ~missing[:, j]
        beta, *_ = np.linalg.lstsq(data[np.ix_(observed, complete)], data[observed, j], rcond=None)
        data[missing[:, j], j] = data[np.ix_(missing[:, j], complete)] @ beta
    return data


IMPUTATION_METHODS: dict[str, Callable[..., np.ndarray]] = {
    "mean": mean_impute,
    "median": median_impute,
    "trimmed_mean": trimmed_mean_impute,
    "linear_regression": linear_regression_impute,
}


def impute(X: ArrayLike, method: str, **kwargs: int) -> np.ndarray:
    """Dispatch to one of IMPUTATION_METHODS (``m=`` for trimmed_mean)."""
    if method not in IMPUTATION_METHODS:
        raise ValueError(f"method={method!r} must be one of {sorted(IMPUTATION_METHODS)}")
    return IMPUTATION_METHODS[method](X, **kwargs)


def imputation_order_statistics(data: ArrayLike, imputable: list[int], m: int) -> dict[str, float]:
    """The order statistics that Table 3 of Hu, Sanyal, Schölkopf (2024) bounds the median and m-trimmed-mean
    imputations with: for each imputed feature j, of its n_j sorted available values v (0-based), the upper median
    v[(n_j + 1)//2], the lower median v[n_j//2 − 1], x_(m) = v[m − 1] and x_(n−m) = v[n_j − m − 1]; each returned
    as its largest (``_max``) or smallest (``_min``) value over the features in ``imputable``."""
    data = require_ndim("data", as_missing_aware_array(data, "data"), 2)
    m = whole_number("m", m)
    require(len(imputable) > 0, "imputable", imputable, "at least one feature index")
    stats = {"upper_median": [], "lower_median": [], "x_m": [], "x_n_minus_m": []}
    for j in imputable:
        v = np.sort(data[~np.isnan(data[:, j]), j])
        size = v.size
        require(size > 2 * m, "m", m, f"fewer than half the {size} available values of feature {j}")
        stats["upper_median"].append(v[(size + 1) // 2])
        stats["lower_median"].append(v[size // 2 - 1])
        stats["x_m"].append(v[m - 1])
        stats["x_n_minus_m"].append(v[size - m - 1])
    return {
        "upper_median_max": max(stats["upper_median"]),
        "lower_median_min": min(stats["lower_median"]),
        "x_m_max": max(stats["x_m"]),
        "x_m_min": min(stats["x_m"]),
        "x_n_minus_m_max": max(stats["x_n_minus_m"]),
        "x_n_minus_m_min": min(stats["x_n_minus_m"]),
    }
