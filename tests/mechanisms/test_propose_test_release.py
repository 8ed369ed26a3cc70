"""PTR (Algorithm 1, Theorem 7, Prop. 8) with the computable distance statistic."""

import math

import numpy as np
import pytest
import torch

from dplab.data.preprocessing_datasets import low_rank_dataset
from dplab.mechanisms.propose_test_release import (
    ptr_distance_statistic,
    ptr_dp_gd_noise,
    ptr_pca_dp_gd,
    ptr_refusal_probability,
    ptr_test,
    ptr_threshold,
)
from dplab.preprocessing import replace_row


def test_statistic_and_threshold():
    assert ptr_threshold(1.0, 1e-5) == pytest.approx(12.206, rel=1e-4)
    assert (0.6 - 0.5) * 10**4 / 12.2 == pytest.approx(81.967, rel=1e-4)


def test_statistic_has_sensitivity_at_most_one():
    rng = np.random.default_rng(0)
    data = low_rank_dataset(rng, 150, 8, 1, 0.05).X
    base = ptr_distance_statistic(data, 1, 0.3)
    for _ in range(40):
        z = rng.standard_normal(8)
        z /= np.linalg.norm(z)
        assert abs(ptr_distance_statistic(replace_row(data, rng.integers(150), z), 1, 0.3) - base) <= 1.0


def test_refusal_probability_matches_monte_carlo():
    rng = np.random.default_rng(1)
    for statistic in (5.0, 12.0, 20.0):
        exact = ptr_refusal_probability(statistic, 1.0, 1e-3)
        empirical = 1 - ptr_test(statistic, 1.0, 1e-3, rng, 200_000).mean()
        assert abs(empirical - exact) < 4 * math.sqrt(exact * (1 - exact) / 200_000) + 1e-4


def test_unsafe_dataset_releases_with_probability_at_most_delta_over_4():
    assert 1 - ptr_refusal_probability(0.0, 0.5, 1e-4) == pytest.approx(1e-4 / 4)


def test_refused_runs_are_nan_and_released_runs_are_in_the_ball():
    rng = np.random.default_rng(2)
    data = low_rank_dataset(rng, 400, 5, 1, 0.02)
    out = ptr_pca_dp_gd(data.X, data.y, 1, 0.2, 1.0, 1e-3, 5, 1.0, 1.0, rng, torch.Generator().manual_seed(0), 4)
    assert np.all(np.isfinite(out)) and np.all(np.linalg.norm(out, axis=1) <= 1 + 1e-9)
    small = low_rank_dataset(rng, 200, 5, 1, 0.02, scale=0.3)
    out = ptr_pca_dp_gd(small.X, small.y, 1, 0.2, 1.0, 1e-3, 5, 1.0, 1.0, rng, torch.Generator().manual_seed(0), 4)
    assert np.all(np.isnan(out))
    assert ptr_dp_gd_noise(100, 4, 0.5) == pytest.approx(2 * 2 / 50)
    with pytest.raises(ValueError, match="n=100"):
        ptr_distance_statistic(data.X[:100], 1, 0.2)
    with pytest.raises(ValueError, match="epsilon=0"):
        ptr_threshold(0, 1e-3)
