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


def test_neighbouring_pairs_dispatch_on_the_structure_with_the_same_draws():
    from dplab.preprocessing.replacements import neighbouring_pairs

    X = np.random.default_rng(5).normal(size=(12, 3)) / 4
    direct = {
        "clusters": cluster_replacements(X, 0.05, 4, np.random.default_rng(6)),
        "low_rank": pca_replacements(X, 1, 4, np.random.default_rng(6)),
    }
    for structure, expected in direct.items():
        pairs = neighbouring_pairs(structure, X, eta=0.05, k=1, trials=4, rng=np.random.default_rng(6))
        assert [(p.kind, p.i) for p in pairs] == [(p.kind, p.i) for p in expected]
        for got, want in zip(pairs, expected):
            np.testing.assert_array_equal(got.second, want.second)
    with pytest.raises(ValueError, match="structure"):
        neighbouring_pairs("graphs", X, eta=0.05, k=1, trials=4, rng=np.random.default_rng(6))


def test_bound_parameters_against_their_definitions():
    from dplab.preprocessing.replacements import bound_parameters

    # Clusters: a group of 4 identical points and 2 far apart, against a copy where one point left the group.
    S1 = np.vstack([np.zeros((4, 2)), [[1.0, 0.0], [0.0, 1.0]]])
    S2 = S1.copy()
    S2[0] = [0.5, 0.5]
    assert bound_parameters("clusters", S1, S2, eta=0.1, k=1)["cluster_size"] == 4
    # Missing values: the rows with a NaN, counted by a loop.
    M1 = np.array([[0.1, np.nan], [0.2, 0.3], [0.0, np.nan]])
    M2 = np.array([[0.1, np.nan], [0.2, np.nan], [0.0, np.nan]])
    rows_with_nan = max(sum(any(np.isnan(v) for v in row) for row in M) for M in (M1, M2))
    out = bound_parameters("missing", M1, M2, eta=0.1, k=1)
    assert out["missing"] == rows_with_nan == 3 and out["cluster_size"] == 0 and np.isnan(out["gap_k"])
    # Low rank: eigen-gaps of (1/n) X^T X from numpy's eigvalsh, smallest over the pair.
    rng = np.random.default_rng(7)
    L1, L2 = rng.normal(size=(30, 3)) * [1.0, 0.5, 0.1], rng.normal(size=(30, 3)) * [1.0, 0.6, 0.1]
    gaps = [np.sort(np.linalg.eigvalsh(L.T @ L / 30))[::-1] for L in (L1, L2)]
    out = bound_parameters("low_rank", L1, L2, eta=0.1, k=2)
    assert out["gap_k"] == pytest.approx(min(g[1] - g[2] for g in gaps), rel=1e-10)
    assert out["gap_1"] == pytest.approx(min(g[0] - g[1] for g in gaps), rel=1e-10)
