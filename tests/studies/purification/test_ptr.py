"""PTR with bounded local sensitivity, Algorithm 11 (ext_ptr, ext_ptr_audit): the quick section end to end, schema
and constraints, claims, figure."""

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

from dplab.mechanisms.local_sensitivity import audit_graph_pair, margin_beta, proposed_beta
from dplab.report.claims import VERDICTS, build_rules, claims_frame
from dplab.studies.purification.claims_selection import SELECTION_RULES
from dplab.studies.purification.plots_selection import plot_ptr
from dplab.studies.purification.ptr import (
    PTR_METHODS,
    compute_ptr,
    ptr_audit,
)
from dplab.studies.purification.sections import SECTION_PTR, constraints_ptr
from dplab.workflow.config import load_config, study_schema

SCHEMA_PTR = study_schema("purification")["properties"][SECTION_PTR]

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["purification"]["ptr"]
FULL = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))["purification"]["ptr"]


@pytest.fixture(scope="module")
def frames(csv_roundtrip):
    return {
        "ext_ptr": csv_roundtrip(compute_ptr(QUICK, 7, lambda items: items)),
        "ext_ptr_audit": csv_roundtrip(ptr_audit(QUICK, 7, lambda items: items)),
    }


@pytest.mark.parametrize("section", [QUICK, FULL], ids=["quick", "full"])
def test_snippets_validate(section):
    jsonschema.Draft202012Validator(SCHEMA_PTR).validate(section)
    assert constraints_ptr(section) == []


def test_bad_values_are_named():
    bad = copy.deepcopy(QUICK)
    bad["edge_probabilities"] = [1.5]
    errors = list(jsonschema.Draft202012Validator(SCHEMA_PTR).iter_errors(bad))
    assert errors and "1.5" in errors[0].message
    bad = copy.deepcopy(QUICK)
    bad["n_vertices"] = [60, 60]
    assert constraints_ptr(bad) == [
        "config key 'purification.ptr.n_vertices': value [60, 60] is invalid; allowed: distinct values"
    ]


def test_proposed_beta_and_margin():
    assert proposed_beta(1000, 0.1) == math.ceil(10 + 4 * math.sqrt(10)) + 5 == 28
    assert margin_beta(28.0, 1.0, -35.0) == 28 + 38


def test_compute_rows_columns_values(frames):
    frame = frames["ext_ptr"]
    n_cells = len(QUICK["n_vertices"]) * len(QUICK["edge_probabilities"]) * len(QUICK["epsilons_total"])
    assert len(frame) == n_cells * QUICK["graphs"] * len(PTR_METHODS)
    assert set(frame["method"]) == set(PTR_METHODS)
    assert (frame["adjacency"] == "edge_add_remove").all()
    for column in ("epsilon_total", "triangles", "local_sensitivity", "refusal_rate", "n_draws"):
        assert np.isfinite(frame[column]).all()
    released = frame[frame["n_released"] > 0]
    assert np.isfinite(released[["median_abs_error", "mean_abs_error", "median_relative_error"]]).all().all()
    purified = frame[frame["method"].isin(["alg11_purified", "alg10_ptr_purified"])]
    assert np.isfinite(purified[["log_delta", "omega", "epsilon_prime", "laplace_scale"]]).all().all()
    assert np.allclose(purified["epsilon"] * 3, purified["epsilon_total"])
    assert frame["refusal_rate"].between(0, 1).all()
    # Δ_Local = max common neighbours is at most n_v − 2; the GS Laplace scale is (n_v − 2)/ε_tot
    assert (frame["local_sensitivity"] <= frame["n_vertices"] - 2).all()
    gs = frame[frame["method"] == "gs_laplace"]
    assert np.allclose(gs["laplace_scale"], (gs["n_vertices"] - 2) / gs["epsilon_total"])


def test_compute_is_reproducible():
    a = compute_ptr(QUICK, 3)
    b = compute_ptr(QUICK, 3)
    pd.testing.assert_frame_equal(a, b)


def test_audit_lower_bounds_below_claimed_epsilon(frames):
    audit = frames["ext_ptr_audit"]
    mc = audit[audit["kind"] == "mc_audit"]
    assert len(mc) == 2 * len(QUICK["audit"]["sample_sizes"])
    assert (mc["epsilon_lb"] >= 0).all() and (mc["epsilon_lb"] <= mc["bound"]).all()
    check = audit[audit["kind"] == "sensitivity_check"].iloc[0]
    assert check["max_local_sensitivity_change"] <= 1
    assert check["local_sensitivity_matches"] == check["n_graphs"]
    g, g_prime = audit_graph_pair()
    assert np.abs(g - g_prime).sum() == 2  # one edge apart


def test_claims_and_plot(frames):
    claims = build_rules(SELECTION_RULES, {k: frames[k] for k in ("ext_ptr", "ext_ptr_audit")}, {})
    frame = claims_frame(claims)
    assert len(frame) == 3
    assert frame["verdict"].isin(VERDICTS).all() and (frame["evidence"].str.len() > 20).all()
    fig = plot_ptr(frames["ext_ptr"], QUICK)
    assert len(fig.axes) == 2 * len(QUICK["epsilons_total"])
