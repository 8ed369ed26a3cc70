"""Linear regression, Algorithm 13 (ext_linear_regression): the data design, Table 1's rate formula, the quick compute
(accounting, domains), schema, claims and the plot."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import jsonschema
import matplotlib
import numpy as np
import pandas as pd
import pytest
import yaml

from dplab.data.synthetic import linear_regression_dataset
from dplab.mechanisms.adassp import table1_linear_regression_rates
from dplab.report.claims import VERDICTS, build_rules, claims_frame
from dplab.studies.purification import STUDY
from dplab.studies.purification.claims_statistics import REGRESSION_RULES
from dplab.studies.purification.plan import regression_points
from dplab.studies.purification.plots_statistics import plot_linear_regression
from dplab.studies.purification.sections import SECTION_LINEAR_REGRESSION, constraints_ext_linear_regression
from dplab.workflow.config import load_config, study_schema
from dplab.workflow.registry import combine_shards, compute_artifact, compute_shard, shard_points

SCHEMA_EXT_LINEAR_REGRESSION = study_schema("purification")["properties"][SECTION_LINEAR_REGRESSION]

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["purification"]["linear_regression"]
FULL = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))["purification"]["linear_regression"]
METHODS = {"pure_adassp", "adassp_at_purification_delta", "adassp_reference", "laplace_ssp"}
ARTIFACT = STUDY.artifact("ext_linear_regression")


@pytest.fixture(scope="module")
def frame():
    return compute_artifact(ARTIFACT, QUICK, 20200114)


def test_linear_regression_dataset_bounds_and_covariance():
    x, y, theta = linear_regression_dataset(20_000, 4, 0.1, 1.0, 0.05, np.random.default_rng(0))
    assert np.linalg.norm(x, axis=1).max() <= 1 + 1e-12 and np.abs(y).max() <= 1
    assert np.linalg.norm(theta) == pytest.approx(1.0)
    x, _, _ = linear_regression_dataset(
        200_000, 3, 0.01, 0.02, 0.0, np.random.default_rng(1)
    )  # ||z|| << 1: no rescaling
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(x.T @ x / len(x))), [0.01, 0.015, 0.02], rtol=0.02)


def test_table1_rates():
    before, after = table1_linear_regression_rates(1000, 5, 1.0, 0.05, 20.0)
    assert after == pytest.approx(min(5 / 1000, 25 / (0.05 * 1e6)))
    assert before == pytest.approx(min(math.sqrt(100) / 1000, 100 / (0.05 * 1e6)))


def test_compute_quick_frame(frame):
    assert set(frame["method"]) == METHODS
    assert len(frame) == 4 * len(QUICK["ns"]) * len(QUICK["ds"]) * len(QUICK["epsilons"]) * QUICK["seeds"]
    assert set(frame["adjacency"]) == {"add_remove"}
    assert np.isfinite(frame["excess_mse_mean"]).all() and (frame["excess_mse_mean"] >= -1e-12).all()
    assert frame["in_domain"].all() and (frame["lambda_min"] > 0).all()
    pure = frame[frame["method"] == "pure_adassp"]
    assert (
        pure["pure"].all() and np.isfinite(pure[["log_delta", "omega", "epsilon_prime", "laplace_scale"]]).all().all()
    )
    assert (pure["log_delta"] < -50).all()
    adassp_rows = frame[frame["method"].isin(["pure_adassp", "adassp_reference"])]
    assert (adassp_rows["log_delta_composed_exact"] <= adassp_rows["log_delta"]).all()
    assert (frame["epsilon_total"] == frame.groupby(["n", "d", "replicate"])["epsilon_total"].transform("first")).all()
    assert compute_artifact(ARTIFACT, QUICK, 20200114).equals(frame)


def test_points_are_the_datasets_in_output_order():
    points = regression_points({**QUICK, "ns": [500, 2000], "ds": [3, 4], "seeds": 2})
    assert [(p["n"], p["d"], p["replicate"]) for p in points] == [
        (n, d, s) for n in (500, 2000) for d in (3, 4) for s in range(2)
    ]


@pytest.mark.parametrize("shards", [1, 3])
def test_the_frame_is_the_same_for_any_number_of_shards(frame, shards):
    count = len(ARTIFACT.sweep(QUICK))
    assert count == len(QUICK["ns"]) * len(QUICK["ds"]) * QUICK["seeds"]
    parts = [compute_shard(ARTIFACT, QUICK, 20200114, shard_points(count, shards, i)) for i in range(shards)]
    combined = combine_shards(ARTIFACT, parts[::-1], QUICK)
    pd.testing.assert_frame_equal(combined, frame)
    assert combined.to_csv(index=False) == frame.to_csv(index=False)


def test_schema_and_constraints():
    validator = jsonschema.Draft202012Validator(SCHEMA_EXT_LINEAR_REGRESSION)
    for section in (QUICK, FULL):
        validator.validate(section)
        assert constraints_ext_linear_regression(section) == []
    bad = copy.deepcopy(QUICK)
    bad["zeta"] = 1.5
    assert any("1.5" in e.message for e in validator.iter_errors(bad))
    bad = copy.deepcopy(QUICK)
    bad["eig_min"] = 2.0
    assert constraints_ext_linear_regression(bad) == [
        "config key 'purification.linear_regression.eig_min': value 2.0 is invalid; allowed: <= eig_max = 1.0"
    ]


def test_claims_and_plot(frame):
    table = claims_frame(build_rules(REGRESSION_RULES, {"ext_linear_regression": frame}, {}))
    assert set(table["verdict"]) <= set(VERDICTS) and (table["evidence"].str.len() > 20).all()
    assert table.set_index("claim_id").loc["lemma35_adassp_privacy", "verdict"] == "holds"
    fig = plot_linear_regression(frame, QUICK)
    assert len(fig.axes) == len(QUICK["ds"])
