"""Mode release, Algorithm 12 (ext_mode_release, ext_mode_release_audit): quick section end to end, schema, exact
audit, claims, figure."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import matplotlib
import numpy as np
import pytest
import yaml

from dplab.report.claims import VERDICTS, build_rules, claims_frame
from dplab.studies.purification.claims_selection import SELECTION_RULES
from dplab.studies.purification.mode_release import (
    compute_mode_release,
    gap_at_level,
    mode_release_audit,
)
from dplab.studies.purification.plots_selection import plot_mode_release
from dplab.studies.purification.sections import SECTION_MODE_RELEASE, constraints_mode_release
from dplab.workflow.config import load_config, study_schema

SCHEMA_MODE_RELEASE = study_schema("purification")["properties"][SECTION_MODE_RELEASE]

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["purification"]
FULL = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))["purification"]
Q = QUICK["mode_release"]


@pytest.fixture(scope="module")
def frames(csv_roundtrip):
    return {
        "ext_mode_release": csv_roundtrip(compute_mode_release(Q, 11, lambda items: items)),
        "ext_mode_release_audit": csv_roundtrip(mode_release_audit(Q, 11, lambda items: items)),
    }


@pytest.mark.parametrize("section", [Q, FULL["mode_release"]], ids=["quick", "full"])
def test_snippets_validate(section):
    jsonschema.Draft202012Validator(SCHEMA_MODE_RELEASE).validate(section)
    assert constraints_mode_release(section) == []


def test_bad_values_are_named():
    bad = copy.deepcopy(Q)
    bad["audit"]["geometries"] = ["ell2"]
    assert list(jsonschema.Draft202012Validator(SCHEMA_MODE_RELEASE).iter_errors(bad))
    bad = copy.deepcopy(Q)
    bad["gaps"] = [0, 5000]
    assert constraints_mode_release(bad) == [
        "config key 'purification.mode_release.gaps': value 5000 is invalid; allowed: <= mode count "
        "round(mode_share * n_records) = 3000"
    ]
    bad = copy.deepcopy(Q)
    bad["audit"]["exhaustive_records"] = [6]
    assert "purification.mode_release.audit.exhaustive_records" in constraints_mode_release(bad)[0]


def test_compute_rows_columns_values(frames):
    frame = frames["ext_mode_release"]
    assert len(frame) == len(Q["layouts"]) * len(Q["bits"]) * len(Q["gaps"]) * Q["seeds"] * 8
    assert (frame["adjacency"] == "replace_one").all()
    assert frame["success_rate"].between(0, 1).all() and np.isfinite(frame["success_rate"]).all()
    alg12 = frame[frame["method"].str.startswith("alg12")]
    assert (
        np.isfinite(
            alg12[
                [
                    "epsilon",
                    "epsilon_prime",
                    "log_delta",
                    "omega",
                    "laplace_scale",
                    "threshold",
                    "flip_probability",
                    "success_exact",
                ]
            ]
        )
        .all()
        .all()
    )
    assert (alg12["epsilon"] * 2 == alg12["epsilon_total"]).all()
    # Monte Carlo agrees with the exact success probability (pooled over replicates)
    pooled = (
        frame.dropna(subset=["success_exact"])
        .groupby(["method", "layout", "bits", "gap"])
        .agg(rate=("success_rate", "mean"), exact=("success_exact", "first"), n=("n_trials", "sum"))
    )
    z = (pooled["rate"] - pooled["exact"]).abs() / np.sqrt(
        pooled["exact"] * (1 - pooled["exact"]) / pooled["n"] + 1e-12
    )
    assert (z < 5).all()


def test_gap_at_level_monotone_consistency():
    gap = gap_at_level("alg12_corrected_uniform", 8, Q)
    assert 100 < gap < 200  # Algorithm 12: success needs g ≳ 2(threshold + 1 + 3/ε) ≈ 141 at d = 8
    assert gap_at_level("report_noisy_max", 8, Q, "all_runner_up") < gap


def test_exact_audit_within_theorem6(frames):
    audit = frames["ext_mode_release_audit"]
    alg12 = audit[audit["treatment"].str.startswith("alg12")]
    assert (alg12["epsilon_inf"] <= 2 * alg12["epsilon"] + 1e-9).all()
    assert audit["exhaustive_within_reduced"].all()
    reserved = audit[(audit["treatment"] == "unpurified") & (audit["bottom"] == "reserved")]
    assert np.isinf(reserved["epsilon_inf"]).all()
    uniform = audit[(audit["treatment"] == "unpurified") & (audit["bottom"] == "uniform")]
    assert (uniform["epsilon_inf"] <= uniform["bound"] + 1e-9).all()


def test_claims_and_plot(frames):
    mode_frames = {k: frames[k] for k in ("ext_mode_release", "ext_mode_release_audit")}
    frame = claims_frame(build_rules(SELECTION_RULES, mode_frames, {"mode_release": Q}))
    assert len(frame) == 5
    assert frame["verdict"].isin(VERDICTS).all() and (frame["evidence"].str.len() > 20).all()
    assert frame.set_index("claim_id").loc["thm6_mode_release_pure_dp_exact_audit", "verdict"] == "holds"
    fig = plot_mode_release(frames["ext_mode_release"], Q)
    assert len(fig.axes) == len(Q["layouts"]) * len(Q["bits"])
