"""Shared quick-configuration runs for the pipeline tests (one local run serves several comparisons).

The tests of this folder share the xdist group "quick" so that they run on one worker and reuse these runs.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_quick(workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    """The quick configuration in ``workdir`` (outputs under ``workdir/results-quick``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
         "--configfile", str(ROOT / "config.quick.yaml"), *extra],
        capture_output=True, text=True, cwd=workdir,
    )


@pytest.fixture(scope="session")
def quick_runner():
    """:func:`run_quick`, for tests that start runs of their own."""
    return run_quick


@pytest.fixture(scope="session")
def local_quick_run(tmp_path_factory) -> Path:
    """The results folder of one local run of the quick configuration on 2 cores."""
    workdir = tmp_path_factory.mktemp("local")
    result = run_quick(workdir, "--cores", "2")
    assert result.returncode == 0, result.stderr[-5000:]
    return workdir / "results-quick"


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.xdist_group("quick"))
