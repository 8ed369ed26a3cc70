"""Every job is a fresh Python process, so what its entry imports is paid once per job (issue 27): the machinery
every job runs (``dplab.workflow.helpers``, the study registry, the product records) imports no heavy package, the
configuration is validated by the controller and never by a job (no jsonschema, no YAML schema parse), the
pre-processing pipeline's dataset and step jobs import neither pandas nor scipy, and a figure job imports
matplotlib but no numerical stack. Structural checks of ``sys.modules`` in a subprocess, not timings."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ("contraction", "generalization", "preprocessing", "purification")
HEAVY = ("pandas", "scipy", "torch", "matplotlib", "jsonschema", "yaml", "dp_accounting")


def imported_after(statements: str) -> list[str]:
    """The packages of :data:`HEAVY` that a fresh interpreter holds after running ``statements``."""
    code = f"import json, sys\n{statements}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_the_machinery_of_every_job_imports_no_heavy_package():
    """What every script imports before its own work: helpers, records, the registry and its study's declarations
    (``load_study``: the artifacts, with their compute and plot functions named by strings)."""
    statements = (
        "import dplab.workflow.helpers, dplab.workflow.jobserver, dplab.report.io, dplab.seeding\n"
        "from dplab.workflow.registry import load_study\n"
        f"studies = [load_study(name) for name in {STUDIES!r}]"
    )
    assert imported_after(statements) == []


def test_the_pre_processing_pipeline_jobs_import_neither_pandas_nor_scipy():
    """The dataset and pre-processing step jobs (workflow/scripts/preprocessing_dataset.py, preprocess.py): numpy
    arrays in, numpy arrays out."""
    assert imported_after("import dplab.workflow.helpers, dplab.studies.preprocessing.pipeline") == []


@pytest.mark.parametrize("study", STUDIES)
def test_a_figure_job_imports_matplotlib_and_pandas_only(study):
    """Every plot module of a study with the figure style: the figure job reads a CSV and draws it."""
    statements = (
        "from dplab.workflow.registry import load_study, module_of, resolve\n"
        "import dplab.report.style\n"
        f"for artifact in load_study({study!r}).artifacts:\n"
        "    if artifact.plot:\n"
        "        resolve(artifact.plot)"
    )
    assert imported_after(statements) == ["pandas", "matplotlib"]


def test_the_check_sees_an_imported_package():
    """The checks above can fail: validating the configuration imports jsonschema and YAML."""
    statements = (
        "from dplab.workflow.config import load_config, validate_config\n"
        f"validate_config(load_config({str(ROOT / 'config.yaml')!r}),"
        f" {str(ROOT / 'workflow' / 'schemas' / 'config.schema.yaml')!r})"
    )
    assert {"jsonschema", "yaml"} <= set(imported_after(statements))
