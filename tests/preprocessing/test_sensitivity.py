"""Empirical Δ_∞, Δ₂ (Definition 4) on hand-made replacements, and against the proved bounds."""

import numpy as np
import pytest

from dplab.data.preprocessing_datasets import low_rank_dataset, near_duplicate_clusters, with_missing_values
from dplab.preprocessing import (
    deduplicate,
    empirical_sensitivity,
    mean_impute,
    pca_rank_reduce,
    quantize,
    top_eigenvectors,
)
from dplab.preprocessing.clusters import PreprocessedDataset
from dplab.preprocessing.imputation import missing_rows
from dplab.preprocessing.pca import eigengap
from dplab.theory.smooth_rdp import mean_imputation_sensitivity, pca_rank_delta2


def test_breaking_a_cluster_changes_all_its_members():
    X = np.array([[0.0, 0.0], [0.05, 0.0], [0.0, 0.05], [0.7, 0.0]])
    # z2 at distance 0.2 from the centre breaks the good cluster {0,1,2}; z1 far away keeps it.
    dedup = empirical_sensitivity(lambda S: deduplicate(S, 0.1), X, 3, [0.7, 0.0], [0.2, 0.0])
    assert dedup.delta_inf == 2 and dedup.delta_2 == pytest.approx(0.05)  # members 1, 2 reappear
    quant = empirical_sensitivity(lambda S: quantize(S, 0.1), X, 3, [0.7, 0.0], [0.2, 0.0])
    assert quant.delta_inf == 2 and quant.delta_2 == pytest.approx(0.05) and quant.delta_2 <= 0.1
    assert dedup.delta_inf <= 2 * 3


def test_identical_replacement_has_zero_sensitivity():
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (20, 3))
    r = empirical_sensitivity(mean_impute, X, 4, X[4], X[4])
    assert (r.delta_inf, r.delta_2, r.d12) == (0, 0.0, 0.0)


def test_random_replacements_within_bounds_on_synthetic_data():
    rng = np.random.default_rng(3)
    base = low_rank_dataset(rng, 150, 6, 1, 0.05).X
    holed = with_missing_values(rng, base, 0.2, imputable=[4, 5])
    complete = np.flatnonzero(~np.isnan(holed).any(1))
    p = missing_rows(holed)
    bound, _ = mean_imputation_sensitivity(150, p)
    for _ in range(30):
        i = rng.choice(complete)
        z1, z2 = rng.standard_normal((2, 6))
        z1, z2 = z1 / np.linalg.norm(z1), z2 / np.linalg.norm(z2)
        r = empirical_sensitivity(mean_impute, holed, i, z1, z2)
        assert r.delta_inf <= p and r.delta_2 <= bound + 1e-12
        X = base
        A1 = empirical_sensitivity(lambda S: pca_rank_reduce(S, 1), X, i, z1, z2)
        gaps = [eigengap(top_eigenvectors(np.vstack([np.delete(X, i, 0), z[None]]), 1)[1], 1) for z in (z1, z2)]
        assert A1.delta_2 <= float(pca_rank_delta2(150, min(gaps)))
    clusters = near_duplicate_clusters(rng, 60, 3, [6, 4], 0.03)
    for _ in range(10):
        i = rng.integers(60)
        r = empirical_sensitivity(lambda S: quantize(S, 0.03), clusters, i, clusters[i], rng.uniform(-0.5, 0.5, 3))
        assert r.delta_2 <= 0.03 + 1e-12


def test_replacement_measures_add_half_the_sum_shift():
    from dplab.preprocessing.sensitivity import replacement_measures

    first = PreprocessedDataset(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.ones(3, bool))
    second = PreprocessedDataset(np.array([[0.0, 0.0], [1.0, 0.5], [0.6, 1.0]]), np.ones(3, bool))
    out = replacement_measures(first, second, 2)
    assert out["delta_inf"] == 1 and out["delta_2"] == pytest.approx(0.5)
    assert out["sum_distance"] == pytest.approx(np.hypot(0.6, 0.5) / 2)
