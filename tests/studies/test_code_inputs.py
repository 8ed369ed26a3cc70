"""Each rule depends on exactly the code it runs: a data job on the import closure of its compute module, a plotting
job on its plot module and the figure style. So editing a plot module schedules no data job, and editing a library
module re-runs only the data jobs whose code imports it."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from dplab.workflow.helpers import dplab_sources
from dplab.workflow.registry import load_study

STUDIES = ("contraction", "preprocessing", "generalization", "purification")
ARTIFACTS = [(name, a) for name in STUDIES for a in load_study(name).artifacts]
ROOT = Path(__file__).resolve().parents[2]


def plot_module_files(study: str) -> set[str]:
    modules = {a.plot_modules()[0] for a in load_study(study).artifacts if a.plot}
    return {f for module in modules for f in dplab_sources(module) if "/studies/" in f and module.split(".")[-1] in f}


@pytest.mark.parametrize("study, artifact", ARTIFACTS, ids=[f"{s}-{a.id}" for s, a in ARTIFACTS])
def test_data_jobs_do_not_depend_on_plot_modules(study, artifact):
    compute_files = set(dplab_sources(*artifact.compute_modules()))
    assert not compute_files & plot_module_files(study)
    assert not any(f.endswith("report/style.py") for f in compute_files)


FIGURES = [(s, a) for s, a in ARTIFACTS if a.plot]


def module_file(name: str) -> str:
    return importlib.util.find_spec(name).origin


@pytest.mark.parametrize("study, artifact", FIGURES, ids=[f"{s}-{a.id}" for s, a in FIGURES])
def test_plot_jobs_depend_on_their_plot_module_and_the_style_but_not_the_computation(study, artifact):
    plot_files = set(dplab_sources(*artifact.plot_modules()))
    assert module_file(artifact.plot_modules()[0]) in plot_files
    assert module_file("dplab.report.style") in plot_files
    assert module_file(artifact.compute_modules()[0]) not in plot_files


MODULES = sorted({m for _, a in ARTIFACTS for m in a.compute_modules() + a.plot_modules()})


@pytest.mark.parametrize("module", MODULES)
def test_the_declared_closure_covers_every_dplab_module_imported_at_run_time(module):
    """An independent reference: import the module in a fresh interpreter and list the dplab files it loaded."""
    probe = (
        f"import importlib, sys; importlib.import_module({module!r}); "
        "print('\\n'.join(sorted(m.__file__ for n, m in list(sys.modules.items()) "
        "if (n == 'dplab' or n.startswith('dplab.')) and getattr(m, '__file__', None))))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    declared = {str(Path(f).resolve()) for f in dplab_sources(module)}
    missing = sorted({str(Path(f).resolve()) for f in loaded} - declared)
    assert not missing, missing
