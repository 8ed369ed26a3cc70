"""The pre-processing steps of Hu, Sanyal, Schölkopf (2024) by name, each a function π of a dataset (rows =
records) with its parameters bound: η-approximate deduplication and quantization (Sec. 4.1, Prop. 3), mean imputation
(Cor. 4), median, trimmed-mean and regression imputation (Prop. 15), PCA rank and dimension reduction (Prop. 5)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dplab.checks import positive_finite, whole_number
from dplab.preprocessing.clusters import PreprocessedDataset, deduplicate, quantize
from dplab.preprocessing.imputation import impute
from dplab.preprocessing.pca import pca_dim_reduce, pca_rank_reduce

__all__ = ["PREPROCESSING_STEPS", "preprocessing_step"]

#: Every step with a proved sensitivity bound, in the order of the paper's propositions.
PREPROCESSING_STEPS = (
    "dedup",
    "quantization",
    "mean_imputation",
    "median_imputation",
    "trimmed_mean_imputation",
    "linear_regression_imputation",
    "pca_rank",
    "pca_dim",
)


def preprocessing_step(
    step: str, *, eta: float, m: int, k: int
) -> Callable[[np.ndarray], np.ndarray | PreprocessedDataset]:
    """π for ``step`` (:data:`PREPROCESSING_STEPS`): deduplication and quantization at radius η, trimmed-mean
    imputation trimming m values at each end, PCA rank / dimension reduction to k components."""
    if step not in PREPROCESSING_STEPS:
        raise ValueError(f"step={step!r} is not a pre-processing step; allowed: {list(PREPROCESSING_STEPS)}")
    positive_finite("eta", eta)
    whole_number("m", m, minimum=0)
    whole_number("k", k)
    steps = {
        "dedup": lambda X: deduplicate(X, eta),
        "quantization": lambda X: quantize(X, eta),
        "mean_imputation": lambda X: impute(X, "mean"),
        "median_imputation": lambda X: impute(X, "median"),
        "trimmed_mean_imputation": lambda X: impute(X, "trimmed_mean", m=m),
        "linear_regression_imputation": lambda X: impute(X, "linear_regression"),
        "pca_rank": lambda X: pca_rank_reduce(X, k),
        "pca_dim": lambda X: pca_dim_reduce(X, k),
    }
    return steps[step]
