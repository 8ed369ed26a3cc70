"""The pre-processing steps by name (dplab.preprocessing.steps): each name is its proposition's step with the
parameters bound, checked against numpy written out (mean imputation, PCA projections) and the step functions."""

from __future__ import annotations

import numpy as np
import pytest

from dplab.preprocessing import deduplicate, impute, quantize
from dplab.preprocessing.steps import PREPROCESSING_STEPS, preprocessing_step

X_PCA = np.random.default_rng(0).normal(size=(30, 4)) * [2.0, 1.0, 0.5, 0.1]


def _values(out):
    return getattr(out, "values", out)


def test_mean_imputation_fills_the_column_mean():
    X = np.array([[0.1, 0.2], [0.3, np.nan], [0.2, 0.6], [0.0, np.nan]])
    out = _values(preprocessing_step("mean_imputation", eta=0.1, m=1, k=1)(X))
    np.testing.assert_allclose(out[[1, 3], 1], [0.4, 0.4])
    np.testing.assert_array_equal(out[[0, 2]], X[[0, 2]])


def test_pca_steps_are_the_projections_on_the_top_eigenvectors():
    values, vectors = np.linalg.eigh(X_PCA.T @ X_PCA / len(X_PCA))
    top = vectors[:, np.argsort(values)[::-1][:2]]
    rank = _values(preprocessing_step("pca_rank", eta=0.1, m=1, k=2)(X_PCA))
    np.testing.assert_allclose(rank, X_PCA @ top @ top.T, atol=1e-12)
    dim = _values(preprocessing_step("pca_dim", eta=0.1, m=1, k=2)(X_PCA))
    np.testing.assert_allclose(np.abs(dim), np.abs(X_PCA @ top), atol=1e-12)  # up to the sign convention


def test_the_other_steps_bind_their_parameters():
    X = np.vstack([np.zeros((3, 2)), [[0.05, 0.0]], [[1.0, 1.0]]])
    for name, reference in (("dedup", deduplicate(X, 0.1)), ("quantization", quantize(X, 0.1))):
        out = preprocessing_step(name, eta=0.1, m=1, k=1)(X)
        np.testing.assert_array_equal(out.values, reference.values)
        np.testing.assert_array_equal(out.kept, reference.kept)
    M = np.array([[0.1, 0.2], [0.3, np.nan], [0.2, 0.6], [0.0, 0.9], [0.5, 0.1]])
    trimmed = _values(preprocessing_step("trimmed_mean_imputation", eta=0.1, m=1, k=1)(M))
    np.testing.assert_array_equal(trimmed, _values(impute(M, "trimmed_mean", m=1)))
    assert len(PREPROCESSING_STEPS) == 8


def test_unknown_steps_and_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="step='pca' is not a pre-processing step"):
        preprocessing_step("pca", eta=0.1, m=1, k=1)
    with pytest.raises(ValueError, match="eta"):
        preprocessing_step("dedup", eta=-0.1, m=1, k=1)
