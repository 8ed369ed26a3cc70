"""Data-dependent pre-processing steps of Hu, Sanyal, Schölkopf (2024): η-approximate deduplication and
quantization (Sec. 4.1, App. C.1), model-based imputation (Cor. 4, Prop. 15, Table 3) and PCA (Prop. 5), each a
small pure function of a dataset (rows = records), plus the empirical sensitivities of Definition 4."""

from __future__ import annotations

from dplab.preprocessing.clusters import PreprocessedDataset, deduplicate, good_clusters, quantize
from dplab.preprocessing.imputation import (
    IMPUTATION_METHODS,
    impute,
    linear_regression_impute,
    mean_impute,
    median_impute,
    trimmed_mean_impute,
)
from dplab.preprocessing.pca import covariance, eigengap, pca_dim_reduce, pca_rank_reduce, top_eigenvectors
from dplab.preprocessing.sensitivity import EmpiricalSensitivity, empirical_sensitivity, replace_row

__all__ = [
    "PreprocessedDataset",
    "good_clusters",
    "deduplicate",
    "quantize",
    "IMPUTATION_METHODS",
    "impute",
    "mean_impute",
    "median_impute",
    "trimmed_mean_impute",
    "linear_regression_impute",
    "covariance",
    "top_eigenvectors",
    "eigengap",
    "pca_rank_reduce",
    "pca_dim_reduce",
    "EmpiricalSensitivity",
    "empirical_sensitivity",
    "replace_row",
]
