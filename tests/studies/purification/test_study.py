"""The purification study as the workflow runs it: config snippets against the schema, every artifact on the quick
configuration (columns, sizes, finite values, lower bounds below upper bounds), claims, and every figure."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import matplotlib
import numpy as np
import pytest
import yaml

from dplab.report.claims import VERDICTS, claims_frame
from dplab.studies.purification import STUDY
from dplab.studies.purification.audit import EXACT_AUDIT_COLUMNS
from dplab.workflow.config import load_config, study_schema
from dplab.workflow.registry import compute_artifact, resolve

SCHEMA = study_schema("purification")  # the study's JSON schema (workflow/schemas), read once

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["purification"]
FULL = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["purification"]


@pytest.fixture(scope="module")
def frames():
    return {a.id: compute_artifact(a, QUICK[a.section], 20200114) for a in STUDY.artifacts}


@pytest.mark.parametrize("config", [QUICK, FULL], ids=["quick", "full"])
def test_snippets_validate(config):
    jsonschema.Draft202012Validator(SCHEMA).validate(config)
    assert STUDY.constraints(config) == []


def test_bad_values_are_named():
    bad = copy.deepcopy(QUICK)
    bad["exact_audit"]["deltas"] = [1.5]
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(bad))
    assert errors and "1.5" in errors[0].message
    bad = copy.deepcopy(QUICK)
    bad["fig1"]["delta_min"] = 0.6
    assert STUDY.constraints(bad) == [
        "config key 'purification.fig1.delta_min': value 0.6 is invalid; allowed: < fig1.delta_max = 0.5"
    ]
    bad = copy.deepcopy(QUICK)
    bad["dp_erm"]["lam"] = 0.1
    assert "purification.dp_erm.lam" in STUDY.constraints(bad)[0]
    bad = copy.deepcopy(QUICK)
    bad["fig4"]["extra"] = 1
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(bad))


def test_frames_shapes_and_values(frames):
    assert list(frames["fig1"].columns) == ["delta", "mechanism", "variance"]
    assert len(frames["fig1"]) == 4 * QUICK["fig1"]["n_delta"] and np.isfinite(frames["fig1"]["variance"]).all()
    assert len(frames["fig2"]) == 2 * QUICK["fig2"]["n_samples"]
    assert frames["fig2"]["w_inf_1d_numeric"].iloc[0] == pytest.approx(QUICK["fig2"]["delta_tilde"], abs=1e-3)
    assert len(frames["table1"]) == 7 and len(frames["table2"]) == 3
    audit = frames["ext_exact_audit"]
    assert list(audit.columns) == EXACT_AUDIT_COLUMNS
    full = audit[audit["treatment"] == "full"]
    assert (full["epsilon_inf"] <= full["bound"] + 1e-9).all() and np.isfinite(full["epsilon_inf"]).all()
    assert np.isinf(audit.loc[(audit["mechanism"] == "M1") & (audit["treatment"] == "none"), "epsilon_inf"]).all()
    mc = frames["ext_mc_audit"]
    purified = mc[mc["treatment"] == "full"]
    assert (purified["epsilon_lb"] <= purified["epsilon_exact"]).all()  # empirical lower bound below the exact value
    assert (purified["epsilon_lb"] <= purified["epsilon"] + purified["epsilon_prime"]).all()
    for key in ("ext_dp_erm", "ext_dp_erm_sc"):
        erm = frames[key]
        assert np.isfinite(erm["excess_risk"]).all() and (erm["excess_risk"] > -1e-9).all()
        assert erm.groupby(["n", "epsilon_total", "method"]).size().eq(QUICK["dp_erm"]["seeds"]).all()
    assert "output_perturbation" in set(frames["ext_dp_erm_sc"]["method"])


def test_claims(frames):
    claims = resolve(STUDY.claims)(frames, QUICK)
    table = claims_frame(claims)
    assert set(table["verdict"]) <= set(VERDICTS) and table["evidence"].str.len().min() > 20
    verdicts = dict(zip(table["claim_id"], table["verdict"]))
    assert verdicts["thm1_purification_is_pure_dp"] == "holds"
    assert verdicts["unpurified_and_mixing_only_not_pure"] == "holds"
    assert verdicts["fig1_laplace_beats_gaussian_almost_all_regimes"] == "holds"
    assert sum(v == "erratum" for v in verdicts.values()) >= 6


def test_figures_draw(frames):
    for artifact in STUDY.artifacts:
        if artifact.plot is not None:
            fig = resolve(artifact.plot)(frames[artifact.id], QUICK[artifact.section])
            assert fig is not None
            matplotlib.pyplot.close(fig)
