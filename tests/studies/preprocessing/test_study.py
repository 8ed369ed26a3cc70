"""The pre-processing study: config snippets validate, every artifact computes on the quick snippet, claims and
figures build from the frames."""

import copy
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

from dplab.report.claims import VERDICTS
from dplab.studies.preprocessing import STUDY
from dplab.studies.preprocessing.products import build_products
from dplab.workflow.config import load_config, study_schema
from dplab.workflow.registry import compute_artifact, resolve

SCHEMA = study_schema("preprocessing")  # the study's JSON schema (workflow/schemas), read once

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["preprocessing"]
FULL = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["preprocessing"]


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    """Every artifact on the quick snippet, the pipeline products made in-process first (as the rules would)."""
    folder = build_products(QUICK, 0, tmp_path_factory.mktemp("preprocessing"))
    out = {}
    for a in STUDY.artifacts:
        inputs = {name: folder / path for name, path in resolve(a.inputs)(QUICK).items()} if a.inputs else None
        out[a.id] = compute_artifact(a, QUICK[a.section], 0, iter, inputs)
    return out


def test_snippets_validate():
    for config in (QUICK, FULL):
        jsonschema.validate(config, SCHEMA)
        assert STUDY.constraints(config) == []


def test_bad_values_are_reported():
    bad = copy.deepcopy(QUICK)
    bad["fig3"]["k"] = bad["fig3"]["d"]
    assert any("config key 'preprocessing.fig3.k': value 100 is invalid" in m for m in STUDY.constraints(bad))
    for section, key, value in (
        ("sensitivity", "missing_rate", 1.0),
        ("fig2", "eps", 0.0),
        ("sensitivity", "eta", -0.1),
    ):
        bad = copy.deepcopy(QUICK)
        bad[section][key] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA)


def test_frames_columns_and_bounds(frames):
    assert list(frames["fig2"].columns[:6]) == ["panel", "x_name", "x", "setting", "method", "epsilon_dp"]
    assert {"method", "epsilon", "replicate", "excess_risk"} <= set(frames["fig3"].columns)
    for frame in frames.values():
        assert len(frame) > 0 and all(c == c.lower() for c in frame.columns)
    assert np.all(np.isfinite(frames["fig2"]["epsilon_dp"]))
    s = frames["ext_sensitivity"]
    assert (s["within_delta_inf"] & s["within_delta_2"]).all()
    a = frames["ext_srdp_audit"]
    assert (a["exact_le_theorem2"] & a["exact_le_group"]).all()
    assert frames["table2"]["generic_le_closed_form"].all()


def test_claims_and_figures(frames):
    claims = resolve(STUDY.claims)(frames, QUICK)
    assert len(claims) >= 12 and all(c.verdict in VERDICTS and c.evidence for c in claims)
    for a in STUDY.artifacts:
        if a.plot is not None:
            assert resolve(a.plot)(frames[a.id], QUICK[a.section]) is not None
