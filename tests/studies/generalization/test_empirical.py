"""E1 building blocks: synthetic data, the exact risk formula against Monte Carlo with a confidence interval, the
Lipschitz constant L = 1, and byte-identical reruns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from dplab.learning import LogisticLoss, per_sample_gradients
from dplab.studies.generalization.empirical import e1_cell_records, e1_cells, exact_risk, make_data, zero_one_error
from dplab.studies.registry import no_progress

PARAMS = dict(
    dims=[5],
    grid=[{"sizes": [300], "sigmas": [0.0, 1.0]}],
    checkpoints=[3, 10],
    reference_t=10,
    runs=2,
    datasets=1,
    tau=20,
    lr=0.05,
    rho=0.1,
    init_std=0.01,
    test_size=1000,
    L=1.0,
    delta=1e-6,
    delta_tilde=1e-6,
    confidence=0.95,
)


def test_data_on_sphere_with_flip_rate():
    rng = np.random.default_rng(0)
    X, y, teacher = make_data(50000, 7, 0.1, rng)
    assert np.allclose(np.linalg.norm(X, axis=1), 1.0) and np.linalg.norm(teacher) == pytest.approx(1.0)
    clean = np.where(X @ teacher >= 0, 1.0, -1.0)
    flips = int(np.sum(clean != y))
    low, high = stats.binomtest(flips, 50000).proportion_ci(0.999)
    assert low <= 0.1 <= high


@pytest.mark.parametrize("d", [2, 10, 50])
def test_exact_risk_against_monte_carlo(d):
    rng = np.random.default_rng(d)
    _, _, teacher = make_data(1, d, 0.1, rng)
    theta = np.vstack([teacher + 0.8 * rng.standard_normal(d), -teacher, rng.standard_normal(d)])
    X, y, _ = make_data(200000, d, 0.1, rng, teacher)
    errors = zero_one_error(theta, X, y)
    for risk, error in zip(exact_risk(theta, teacher, 0.1), errors):
        low, high = stats.binomtest(int(round(error * 200000)), 200000).proportion_ci(0.999)
        assert low <= risk <= high
    assert exact_risk(np.zeros((1, d)), teacher, 0.1)[0] == 0.5
    assert exact_risk(teacher[None, :], teacher, 0.1)[0] == pytest.approx(0.1)


def test_logistic_gradients_are_1_lipschitz_on_the_data():
    rng = np.random.default_rng(1)
    X, y, _ = make_data(500, 10, 0.1, rng)
    w = torch.as_tensor(5 * rng.standard_normal((3, 10)))
    grads = per_sample_gradients(LogisticLoss(), w, torch.as_tensor(X), torch.as_tensor(y))
    assert float(torch.linalg.vector_norm(grads, dim=-1).max()) <= 1.0


def e1_records(params, seed):
    return pd.concat([e1_cell_records(params, seed, no_progress, cell) for cell in e1_cells(params)], ignore_index=True)


def test_records_reproducible_and_consistent():
    first = e1_records(PARAMS, 7)
    second = e1_records(PARAMS, 7)
    assert first.to_csv(index=False) == second.to_csv(index=False)
    assert len(first) == 2 * 2 * 2  # sigmas x checkpoints x runs
    assert np.allclose(first["gap"], first["risk"] - first["train_error"])
    assert not first.equals(e1_records(PARAMS, 8))
