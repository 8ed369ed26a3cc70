"""Figure 2 of Hu, Sanyal, Schölkopf (2024) as a sweep: the points cover every curve in output order, the frame is
the same for any number of shards, and the curves match their definitions (Table 2's Gaussian row by Lemma M over
α ≥ 11, checked on a fine α grid; the optimised Theorem 2 never above it; with p and q separate, the closed form
(1 + τ)²/2 + (1 + τ)√(2 log(1/δ)) for ε = 1, never above p = q)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dplab.studies.preprocessing import STUDY
from dplab.studies.preprocessing.figure2 import (
    CLOSED_FORM_METHODS,
    OPTIMISED_METHOD,
    SEPARATE_PQ_METHOD,
    fig2_points,
    fig2_settings,
)
from dplab.workflow.registry import combine_shards, compute_artifact, compute_shard, shard_points

ROOT = Path(__file__).resolve().parents[3]
FULL = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["preprocessing"]["fig2"]
SMALL = {**FULL, "n_points": 5, "quant_p": [10, 100], "pca_gaps": [0.5]}
ARTIFACT = STUDY.artifact("fig2")


@pytest.fixture(scope="module")
def whole():
    return compute_artifact(ARTIFACT, SMALL, 0)


def test_points_are_closed_form_curves_then_one_optimised_point_per_tau_then_the_separate_curves():
    settings = fig2_settings(SMALL)
    assert [(s.panel, s.setting) for s in settings] == [
        ("a", "p=10"),
        ("a", "p=100"),
        ("b", "n=100"),
        ("c", "gap=0.5, tau=12.2/gap"),
        ("c", "gap=0.5, tau exact"),
    ]
    points = fig2_points(SMALL)
    assert len(points) == sum(len(CLOSED_FORM_METHODS) + len(s.tau) + 1 for s in settings)
    assert points[-len(settings) :] == [{"setting": i, "method": SEPARATE_PQ_METHOD} for i in range(len(settings))]
    assert points[:3] == [
        {"setting": 0, "method": "srdp_table2"},
        {"setting": 0, "method": "group_privacy"},
        {"setting": 0, "method": OPTIMISED_METHOD, "at": 0},
    ]
    assert len(fig2_points({**SMALL, "optimised_curve": False})) == len(CLOSED_FORM_METHODS) * len(settings)


def test_the_frame_is_the_same_for_any_number_of_shards(whole):
    """3 shards combined in either order give ``whole``; 1 shard is every point in order, which is how
    :func:`compute_artifact` computed ``whole`` (so the 1-shard frame is ``whole`` itself, not recomputed)."""
    count, shards = len(ARTIFACT.sweep(SMALL)), 3
    assert list(shard_points(count, 1, 0)) == list(range(count))
    parts = [compute_shard(ARTIFACT, SMALL, 0, shard_points(count, shards, i)) for i in range(shards)]
    pd.testing.assert_frame_equal(combine_shards(ARTIFACT, parts[::-1], SMALL), whole)
    assert whole.to_csv(index=False) == combine_shards(ARTIFACT, parts, SMALL).to_csv(index=False)


def test_settings_follow_the_panels_definitions(whole):
    a = whole[whole["panel"] == "a"]
    np.testing.assert_allclose(a["tau"], a["x"] * a["group_size"])  # τ = ηp, m = p
    b = whole[whole["panel"] == "b"]
    n = SMALL["imputation_n"]
    np.testing.assert_allclose(b["tau"], 2 * b["group_size"] / (n - b["group_size"]))  # τ = 2p/(n − p)
    np.testing.assert_allclose(b["x"], b["group_size"] / n)
    c = whole[whole["panel"] == "c"]
    assert (c["group_size"] == c["x"]).all() and c["x"].min() == 101 and c["x"].max() == SMALL["pca_n_max"]
    for _, curve in whole.groupby(["setting", "method"]):
        assert len(curve) == SMALL["n_points"] or curve["panel"].iloc[0] == "b"


def test_table2_curve_is_lemma_m_over_alpha_at_least_11_and_the_optimum_is_below_it(whole):
    alpha = 11 + np.linspace(0, 4000, 400_001) ** 2 / 100
    table2 = whole[whole["method"] == "srdp_table2"]
    for tau, value in zip(table2["tau"], table2["epsilon_dp"]):
        rdp = 1.05 * SMALL["eps"] ** 2 * (1 + tau**2) * alpha
        grid_min = np.min(rdp + np.log(1 / SMALL["delta"]) / (alpha - 1))
        assert value == pytest.approx(grid_min, rel=1e-6)
    curves = whole.pivot_table(index=["setting", "x"], columns="method", values="epsilon_dp")
    assert (curves[OPTIMISED_METHOD] <= curves["srdp_table2"] * (1 + 1e-9)).all()


def test_separate_pq_curve_is_the_closed_form_and_never_above_p_equals_q(whole):
    """For the Gaussian mechanism (ε = 1) Theorem 2 with p and q separate is RDP α(1 + τ)²/2, so Lemma M gives
    c + 2√(c log(1/δ)) with c = (1 + τ)²/2 (written out here), never above the p = q optimum (RDP α(1 + τ²))."""
    separate = whole[whole["method"] == SEPARATE_PQ_METHOD]
    c = (1 + separate["tau"]) ** 2 / 2
    expected = c + 2 * np.sqrt(c * np.log(1 / SMALL["delta"]))
    np.testing.assert_allclose(separate["epsilon_dp"], expected, rtol=1e-9)
    curves = whole.pivot_table(index=["setting", "x"], columns="method", values="epsilon_dp")
    assert (curves[SEPARATE_PQ_METHOD] <= curves[OPTIMISED_METHOD] * (1 + 1e-9)).all()
