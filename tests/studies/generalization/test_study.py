"""The generalization study end to end on the quick configuration: schema and constraints, every artifact's frame,
empirical values below the theoretical bounds, claims, and every figure drawn from its (CSV round-tripped) frame."""

from __future__ import annotations

import io
import re

import jsonschema
import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from dplab.report.claims import VERDICTS, claims_frame
from dplab.report.style import plt
from dplab.studies.generalization import STUDY
from dplab.workflow.config import study_schema
from dplab.workflow.registry import compute_artifact, resolve

SCHEMA = study_schema("generalization")  # the study's JSON schema (workflow/schemas), read once


@pytest.fixture(scope="module")
def frames(quick_section) -> dict[str, pd.DataFrame]:
    """Every artifact computed on the quick section and read back from CSV, as the workflow does."""
    torch.set_num_threads(1)
    out = {}
    for artifact in STUDY.artifacts:
        if artifact.derived_from:  # built from its source's CSV, as the workflow does
            frame = resolve(artifact.compute)(out[artifact.derived_from], quick_section[artifact.section])
        else:
            frame = compute_artifact(artifact, quick_section[artifact.section], 20260101)
        buffer = io.StringIO()
        frame.to_csv(buffer, index=False)
        buffer.seek(0)
        out[artifact.id] = pd.read_csv(buffer)
    return out


def _bool(series: pd.Series) -> np.ndarray:
    return series.astype(str).str.lower().isin(["true", "1", "1.0"]).to_numpy()


# --- (a) schema and constraints -----------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["quick_section", "full_section"])
def test_snippets_validate(which, request):
    section = request.getfixturevalue(which)
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(section)
    assert STUDY.constraints(section) == []


def test_schema_rejects_bad_values_and_unknown_keys(quick_section):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    bad = yaml.safe_load(yaml.safe_dump(quick_section))
    bad["empirical"]["rho"] = 0.7
    bad["kl"]["colour"] = "red"
    messages = [e.message for e in validator.iter_errors(bad)]
    assert any("0.7" in m for m in messages) and any("colour" in m for m in messages)


def test_constraint_messages(quick_section):
    bad = yaml.safe_load(yaml.safe_dump(quick_section))
    bad["empirical"]["tau"] = 5000
    bad["empirical"]["reference_t"] = 7
    bad["high_probability"]["eps_max"] = 0.0005
    problems = STUDY.constraints(bad)
    assert (
        "config key 'generalization.empirical.tau': value 5000 is invalid; allowed: at most the smallest size "
        "1000 (batch without replacement)" in problems
    )
    assert any(
        p.startswith("config key 'generalization.empirical.reference_t': value 7 is invalid; allowed: one of")
        for p in problems
    )
    assert any(p.startswith("config key 'generalization.high_probability.eps_max': value 0.0005") for p in problems)


# --- (b) frames ---------------------------------------------------------------------------------------------------


def test_every_artifact_has_a_tidy_frame(frames):
    assert sorted(frames) == sorted([f"f{i}" for i in range(1, 10)] + [f"t{i}" for i in range(1, 5)])
    for artifact_id, frame in frames.items():
        assert len(frame) > 0, artifact_id
        assert all(re.fullmatch(r"[a-z][a-z0-9_]*", c) for c in frame.columns), (artifact_id, list(frame.columns))
        numeric = frame.select_dtypes("number")
        assert not numeric.isna().all().any() or artifact_id in ("f8", "t4", "t3"), artifact_id


def test_required_columns_and_row_counts(frames, quick_section):
    quick = quick_section
    assert {"epsilon_step", "delta_step", "t", "method", "delta_prime"} <= set(frames["f5"].columns)
    assert frames["t2"]["below_lower_bound"].dtype == bool
    n_t = len(
        np.unique(np.round(np.logspace(0, quick["delta_vs_steps"]["t_max_log10"], quick["delta_vs_steps"]["n_t"])))
    )
    assert len(frames["f5"]) == 9 * n_t * len(quick["delta_vs_steps"]["settings"])
    assert len(frames["f1"]) == 4 * quick["kl"]["n_eps"]
    e = quick["empirical"]
    points = sum(len(b["sizes"]) * len(b["sigmas"]) for b in e["grid"])
    assert len(frames["f8"]) == len(e["dims"]) * points * len(e["checkpoints"])
    datasets = {n: block["datasets"] for block in e["grid"] for n in block["sizes"]}
    assert (frames["f8"]["datasets"] == frames["f8"]["n"].map(datasets)).all()
    assert (frames["f8"]["replicates"] == e["runs"] * frames["f8"]["datasets"]).all()


def test_theory_values_finite_where_defined(frames):
    for artifact_id, column in [
        ("f1", "kl"),
        ("f2", "deviation"),
        ("f3", "bound"),
        ("f4", "eps_prime"),
        ("f5", "delta_prime"),
        ("f7", "hp_bound"),
        ("f9", "eps_prime"),
        ("t1", "deviation"),
    ]:
        assert np.isfinite(frames[artifact_id][column]).all(), (artifact_id, column)


def test_valid_methods_never_below_lower_bound_and_paper_flags(frames):
    f5, t2 = frames["f5"], frames["t2"]
    valid = f5[f5["method"].isin(["drv", "kov", "optimal_at_kov_eps"])]
    assert (valid["delta_prime"] >= valid["lower_bound"] * (1 - 1e-12)).all()
    assert not _bool(
        t2[t2["method"].isin(["drv", "kov", "basic", "lower_bound", "optimal_at_kov_eps"])]["below_lower_bound"]
    ).any()
    flagged = t2[_bool(t2["below_lower_bound"])]
    assert set(flagged["method"]) >= {"cor2", "thm4_box"}
    c9 = t2[(t2["epsilon_step"] == 0.1) & (t2["delta_step"] == 1e-5) & (t2["t"] == 100)].set_index("method")
    assert c9.loc["cor2", "delta_prime"] == pytest.approx(9.862834e-4, rel=1e-6)
    assert _bool(c9["below_lower_bound"])[list(c9.index).index("cor2")]
    assert not _bool(t2[t2["t"] <= 8]["below_lower_bound"]).any()


def test_measured_gaps_below_valid_bounds(frames, quick_section):
    f8 = frames["f8"]
    noisy = f8[f8["sigma"] > 0]
    usable = noisy[~_bool(noisy["hp_vacuous_valid"])]
    assert len(usable) > 0
    assert (usable["max_abs_gap"] < usable["hp_bound_valid"]).all()
    assert (noisy["mean_abs_gap"] < noisy["on_average_valid"] + 0.05).all()
    assert not _bool(noisy["on_average_violated_valid"]).any()
    # the exact risk agrees with a 20k held-out estimate within 5 binomial standard errors
    se = np.sqrt(0.25 / quick_section["empirical"]["test_size"])
    assert (f8["max_abs_risk_minus_test"] < 5 * se).all()
    # vacuous bounds are kept as numbers >= 1 (never clipped)
    vac = noisy[_bool(noisy["hp_vacuous_valid"])]
    assert ((vac["hp_bound_valid"] >= 1) | (vac["failure_probability_valid"] >= 1)).all()


def test_bounds_identical_across_dimensions(frames):
    t4 = frames["t4"]
    spread = t4[t4["sigma"] > 0].groupby(["n", "sigma", "t"])["hp_bound_valid"].agg(lambda s: s.max() - s.min())
    assert (spread == 0).all()


# --- (c) claims ---------------------------------------------------------------------------------------------------


def test_claims(frames, quick_section):
    claims = claims_frame(resolve(STUDY.claims)(frames, quick_section))
    assert set(claims["verdict"]) <= set(VERDICTS)
    assert (claims["evidence"].str.len() > 20).all()
    verdicts = dict(zip(claims["claim_id"], claims["verdict"]))
    assert verdicts["composition_delta_tighter_than_kov"] == "fails"
    assert verdicts["lemma5_tighter_kl"] == "holds" and verdicts["thm1_tighter_than_nissim_stemmer"] == "holds"
    assert verdicts["e1_gap_below_bounds"] == "holds"
    assert {k for k, v in verdicts.items() if v == "erratum"} >= {
        "erratum_cor3_sign",
        "erratum_sgld_factor_2",
        "erratum_composition_below_lower_bound",
    }
    evidence = dict(zip(claims["claim_id"], claims["evidence"]))
    assert "4.404378e+06" in evidence["erratum_cor3_sign"]


def test_claims_follow_the_numbers(frames, quick_section):
    """If the paper's delta' sat above the exact optimum (and the floor), the comparison with KOV would hold and the
    composition erratum would clear."""
    doctored = dict(frames)
    t2 = frames["t2"].copy()
    t2["delta_prime"] = np.maximum(t2["delta_prime"], 1.01 * t2["optimal_delta_at_eps_prime"])
    t2["below_lower_bound"] = False
    doctored["t2"] = t2
    doctored["f5"] = frames["f5"].assign(below_lower_bound=False)
    verdicts = {c.claim_id: c.verdict for c in resolve(STUDY.claims)(doctored, quick_section)}
    assert verdicts["composition_delta_tighter_than_kov"] == "holds"
    assert verdicts["erratum_composition_below_lower_bound"] == "holds"


# --- (d) figures --------------------------------------------------------------------------------------------------


def test_every_figure_draws(frames, quick_section):
    for artifact in STUDY.artifacts:
        if artifact.kind == "figure":
            fig = resolve(artifact.plot)(frames[artifact.id], quick_section[artifact.section])
            assert fig.axes, artifact.id
            plt.close(fig)
