"""Neighbouring pairs of dplab.preprocessing.replacements, checked against their definitions written out here:
distances to the cluster centre, the imputation patterns, the eigenvectors from numpy's eigh."""

from __future__ import annotations

import numpy as np
import pytest

from dplab.preprocessing.replacements import cluster_replacements, imputation_replacements, pca_replacements


def test_random_pairs_are_s_itself_against_a_unit_ball_point():
    X = np.random.default_rng(0).normal(size=(20, 3))
    for pair in pca_replacements(X, 1, 6, np.random.default_rng(1))[::2]:
        assert pair.kind == "random" and pair.first is None
        assert 0.2 <= np.linalg.norm(pair.second) <= 1.0


def test_cluster_pairs_join_and_break_the_largest_cluster():
    X = np.vstack([np.zeros((5, 2)), np.eye(2) * 10, [[5.0, 5.0]]])  # a cluster of 5 at the origin and 3 outsiders
    eta = 0.1
    pairs = cluster_replacements(X, eta, 8, np.random.default_rng(2))
    adversarial = [p for p in pairs if p.kind == "adversarial"]
    assert len(adversarial) == 4 and all(p.i >= 5 for p in adversarial)  # a non-member is moved
    assert [np.linalg.norm(p.first) for p in adversarial] == pytest.approx([0.5 * eta, 0.0, 0.5 * eta, 0.0])
    assert [np.linalg.norm(p.second) for p in adversarial] == pytest.approx([2 * eta] * 4)


def test_imputation_pairs_cycle_through_extremes_missing_and_leverage():
    X = np.random.default_rng(3).uniform(-0.5, 0.5, size=(10, 3))
    X[0, 2] = np.nan
    adversarial = [p for p in imputation_replacements(X, 6, np.random.default_rng(4)) if p.kind == "adversarial"]
    assert all(p.i != 0 for p in adversarial)  # a complete record is replaced
    np.testing.assert_array_equal(adversarial[0].first, [0, 0, 1])
    np.testing.assert_array_equal(adversarial[0].second, [0, 0, -1])
    assert np.isnan(adversarial[1].second[2]) and adversarial[1].first[2] == 1.0
    h = 2**-0.5
    np.testing.assert_allclose(adversarial[2].first, [h, 0, h])
    np.testing.assert_allclose(adversarial[2].second, [h, 0, -h])


def test_pca_pairs_are_the_top_and_k_plus_first_eigenvectors():
    X = np.random.default_rng(5).normal(size=(50, 4)) * np.array([3.0, 2.0, 1.0, 0.5])
    pair = pca_replacements(X, 1, 2, np.random.default_rng(6))[1]
    _, vectors = np.linalg.eigh(X.T @ X)
    assert abs(pair.first @ vectors[:, -1]) == pytest.approx(1.0, abs=1e-9)
    assert abs(pair.second @ vectors[:, -2]) == pytest.approx(1.0, abs=1e-9)
