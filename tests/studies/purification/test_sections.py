"""The purification study's configuration schema (dplab.studies.purification.sections): importing the study stays
light, and the shipped configurations validate against the assembled schema with no cross-key problems."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from dplab.studies.purification import STUDY, sections
from dplab.workflow.config import load_config, study_schema

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("numpy", "scipy", "pandas", "torch")
COMPUTE_MODULES = ("mean_estimation", "linear_regression", "ptr", "mode_release", "query_release")


def _fresh_import(module: str) -> list[str]:
    """Names in sys.modules after importing ``module`` in a fresh interpreter."""
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return json.loads(result.stdout)


@pytest.mark.parametrize("module", ["dplab.studies.purification", "dplab.studies.purification.sections"])
def test_import_is_light(module):
    loaded = _fresh_import(module)
    assert [name for name in HEAVY if name in loaded] == []
    assert [name for name in COMPUTE_MODULES if f"dplab.studies.purification.{name}" in loaded] == []


def test_study_uses_sections():
    assert STUDY.constraints is sections.constraints
    properties = study_schema("purification")["properties"]
    for name in ("MEAN_ESTIMATION", "LINEAR_REGRESSION", "PTR", "MODE_RELEASE", "QUERY_RELEASE", "FRANK_WOLFE"):
        assert getattr(sections, f"SECTION_{name}") in properties
    assert set(sections.PART2_CONSTRAINTS) <= set(properties)


@pytest.mark.parametrize("name", ["config.yaml", "config.quick.yaml"])
def test_shipped_configs_validate(name):
    config = load_config(name)["purification"]
    schema = study_schema("purification")
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(config)
    assert sections.constraints(config) == []
