"""The purified DP Frank-Wolfe experiment (``ext_frank_wolfe``): its data set, one small point end to end (every method,
replicate indices, the success-event columns), determinism per point, and the section's cross-key checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dplab.mechanisms.frank_wolfe import least_squares_loss
from dplab.studies.purification.frank_wolfe import (
    frank_wolfe_point,
    sparse_regression_chunks,
)
from dplab.studies.purification.plan import frank_wolfe_points
from dplab.studies.purification.sections import constraints_frank_wolfe
from dplab.workflow.registry import no_progress

PARAMS = {"ns": [600, 1500], "ds": [40], "epsilons_total": [1.0], "replicates": 2, "sparsity": 3, "noise_sd": 0.1}
METHODS = {"purified_fw", "dp_fw_before_purification", "dp_fw_reference", "pure_fw_basic", "nonprivate_fw"}


def test_data_set_is_bounded_and_chunked():
    chunks = list(sparse_regression_chunks(25_000, 6, 2, 0.5, np.random.default_rng(0)))
    assert [len(y) for _, y in chunks] == [10_000, 10_000, 5_000]
    x = np.vstack([c[0] for c in chunks])
    y = np.concatenate([c[1] for c in chunks])
    assert np.abs(x).max() <= 1 and np.abs(y).max() <= 1
    loss = least_squares_loss(chunks)
    assert np.abs(loss.gradient(np.zeros(6))).max() <= 2  # L1 = 2: |<x, theta> - y| <= 2, |x_j| <= 1


@pytest.fixture(scope="module")
def point_frame() -> pd.DataFrame:
    return frank_wolfe_point(PARAMS, 11, no_progress, frank_wolfe_points(PARAMS)[0])


def test_point_rows(point_frame):
    assert set(point_frame["method"]) == METHODS
    assert sorted(point_frame["replicate"].unique()) == [0, 1]
    assert len(point_frame) == len(METHODS) * 2
    assert (point_frame["excess_risk"] >= -1e-9).all() and (point_frame["optimum_gap"] <= 1e-9).all()
    purified = point_frame[point_frame["method"] == "purified_fw"]
    assert purified["within_tolerance"].all() and not purified["clip_active"].any()
    assert (purified["fw_sparsity"] <= purified["steps"]).all()  # Lemma 29: theta_T is T-sparse
    assert (purified["output_l1_error"] <= 2 + 1e-9).all()
    assert point_frame.loc[point_frame["method"] == "pure_fw_basic", "pure"].all()
    assert not point_frame.loc[point_frame["method"] == "dp_fw_reference", "pure"].any()


def test_point_is_deterministic_and_independent_of_other_points(point_frame):
    again = frank_wolfe_point({**PARAMS, "ns": [600]}, 11, no_progress, {"n": 600, "d": 40})
    pd.testing.assert_frame_equal(point_frame, again)


def test_points_grid():
    assert frank_wolfe_points(PARAMS) == [{"n": 600, "d": 40}, {"n": 1500, "d": 40}]


def test_constraints_name_the_key():
    assert constraints_frank_wolfe(PARAMS) == []
    problems = constraints_frank_wolfe({**PARAMS, "ns": [600, 600], "sparsity": 50})
    assert len(problems) == 2 and "purification.frank_wolfe.ns" in problems[0]
    assert "purification.frank_wolfe.sparsity" in problems[1]
