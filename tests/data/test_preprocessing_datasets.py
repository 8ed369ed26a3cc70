"""Synthetic datasets for the pre-processing study have the structure the bounds assume."""

import numpy as np
import pytest

from dplab.data.preprocessing_datasets import (
    check_missing_rate,
    low_rank_dataset,
    near_duplicate_clusters,
    with_missing_values,
)
from dplab.preprocessing import good_clusters


def test_near_duplicate_clusters_are_good_clusters_of_the_requested_sizes():
    rng = np.random.default_rng(0)
    X = near_duplicate_clusters(rng, 80, 4, [9, 5, 2], 0.02)
    assert X.shape == (80, 4) and np.linalg.norm(X, axis=1).max() <= 1 + 1e-12
    _, counts = np.unique(good_clusters(X, 0.02), return_counts=True)
    assert sorted(counts)[-3:] == [2, 5, 9] and counts.sum() == 80


def test_missing_values_at_controlled_rate():
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, (200, 5))
    holed = with_missing_values(rng, X, 0.35, imputable=[3, 4], features_per_row=2)
    assert np.isnan(holed).any(1).sum() == 70 and np.isnan(holed[:, :3]).sum() == 0
    assert np.array_equal(holed[~np.isnan(holed)], X[~np.isnan(holed)])


@pytest.mark.parametrize("rate", [1.0, -0.1, 1.5, float("nan")])
def test_missing_rate_outside_unit_interval_raises(rate):
    with pytest.raises(ValueError, match=r"missing_rate=.* allowed: 0 <= missing_rate < 1"):
        check_missing_rate(rate)


def test_low_rank_dataset_gap_and_unit_ball():
    rng = np.random.default_rng(2)
    data = low_rank_dataset(rng, 400, 50, 2, 0.01, scale=0.9)
    values = np.sort(np.linalg.eigvalsh(data.X.T @ data.X / 400))[::-1]
    assert np.allclose(values, data.eigenvalues) and data.gap == pytest.approx(values[1] - values[2])
    assert np.linalg.norm(data.X, axis=1).max() <= 1 + 1e-12 and set(np.unique(data.y)) == {-1.0, 1.0}
    # λ_k ≈ E[u²]·scale²/k with u ~ U[0.8, 1]: E[u²] = 0.81333
    assert values[1] == pytest.approx(0.81333 * 0.81 / 2, rel=0.1)
    with pytest.raises(ValueError, match="k=50"):
        low_rank_dataset(rng, 10, 50, 50, 0.01)


def test_low_rank_dataset_round_trips_through_arrays():
    from dplab.data.preprocessing_datasets import LowRankDataset, low_rank_dataset

    data = low_rank_dataset(np.random.default_rng(0), 40, 6, 2, 0.1)
    again = LowRankDataset.from_arrays(data.to_arrays())
    assert (again.gap, again.k) == (data.gap, data.k) and isinstance(again.k, int)
    for field in ("X", "y", "eigenvalues", "basis"):
        np.testing.assert_array_equal(getattr(again, field), getattr(data, field))
