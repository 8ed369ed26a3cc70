"""Shared quick-configuration runs for the pipeline tests (one local run serves several comparisons).

Under pytest-xdist every worker would otherwise make its own run: the run lives in the session's shared temporary
folder behind a file lock, so the first worker to need it makes it and the others wait for it and reuse it.
(xdist's ``xdist_group`` marker does not take effect with pytest 9: the node-id suffix it relies on is dropped.)
"""

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_quick(workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    """The quick configuration in ``workdir`` (outputs under ``workdir/results-quick``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(workdir),
            "--configfile",
            str(ROOT / "config.quick.yaml"),
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=workdir,
    )


@pytest.fixture(scope="session")
def quick_runner():
    """:func:`run_quick`, for tests that start runs of their own."""
    return run_quick


def shared_quick_run(name: str, tmp_path_factory, worker_id: str, *extra: str) -> Path:
    """The results folder of the quick run ``name`` on 2 cores (with the options ``extra``), made once per test
    session: under xdist by the first worker that needs it (the others wait on the lock, then reuse it)."""
    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    workdir = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (workdir / "succeeded").exists():
            result = run_quick(workdir, "--cores", "2", *extra)
            assert result.returncode == 0, result.stderr[-5000:]
            (workdir / "succeeded").touch()
    return workdir / "results-quick"


@pytest.fixture(scope="session")
def local_quick_run(tmp_path_factory, worker_id) -> Path:
    """One local run of the quick configuration, shared by all xdist workers."""
    return shared_quick_run("local-quick", tmp_path_factory, worker_id)


@pytest.fixture(scope="session")
def second_quick_run(tmp_path_factory, worker_id) -> Path:
    """A second, independent local run (its own working directory), shared by all xdist workers: every job in its
    own process (``job_server: false``), where the first run forks its jobs from the run's job server, so that the
    comparisons of the two runs also compare the two ways of running a job."""
    return shared_quick_run("second-quick", tmp_path_factory, worker_id, "--config", "job_server=False")
