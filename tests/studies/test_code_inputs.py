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


#: A fresh interpreter that imports the heavy third-party libraries once (no dplab module), then forks one child per
#: module: each child imports its module alone and lists the dplab files loaded (one line per file, ``module<TAB>file``).
#: Pre-importing libraries outside dplab cannot change which dplab modules a child loads, and saves each of the
#: modules a fresh interpreter's torch/scipy/pandas import.
PROBE = """
import importlib, os, sys
import matplotlib.pyplot, numpy, pandas, scipy.stats, torch
assert not any(n == "dplab" or n.startswith("dplab.") for n in sys.modules), "a library imported dplab"
for module in sys.argv[1:]:
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        importlib.import_module(module)
        files = sorted(m.__file__ for n, m in list(sys.modules.items())
                       if (n == "dplab" or n.startswith("dplab.")) and getattr(m, "__file__", None))
        print("\\n".join(f"{module}\\t{f}" for f in files), flush=True)
        os._exit(0)
    if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]):
        sys.exit(f"importing {module} failed")
"""


@pytest.fixture(scope="module")
def loaded_files() -> dict[str, list[str]]:
    """The dplab files each of ``MODULES`` loads when imported alone in a fresh process."""
    out = subprocess.run([sys.executable, "-c", PROBE, *MODULES], capture_output=True, text=True, check=True).stdout
    loaded: dict[str, list[str]] = {module: [] for module in MODULES}
    for line in out.splitlines():
        module, file = line.split("\t")
        loaded[module].append(file)
    return loaded


@pytest.mark.parametrize("module", MODULES)
def test_the_declared_closure_covers_every_dplab_module_imported_at_run_time(module, loaded_files):
    """An independent reference: import the module alone in a fresh process and list the dplab files it loaded."""
    loaded = loaded_files[module]
    assert any(Path(f).resolve() == Path(module_file(module)).resolve() for f in loaded)  # the probe saw the module
    declared = {str(Path(f).resolve()) for f in dplab_sources(module)}
    missing = sorted({str(Path(f).resolve()) for f in loaded} - declared)
    assert not missing, missing
