"""A hard kill of a run (the controller and its jobs, SIGKILL) loses nothing: after ``--unlock`` a rerun with
``--rerun-incomplete`` finishes and gives CSVs byte-identical to an uninterrupted run, with no temporary file of an
interrupted write left in the results."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.pipeline


def start_quick_run(workdir: Path) -> subprocess.Popen:
    workdir.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(workdir),
            "--cores",
            "2",
            "--configfile",
            str(ROOT / "config.quick.yaml"),
        ],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def kill_after_outputs(process: subprocess.Popen, results: Path, count: int, timeout: float = 600) -> None:
    """SIGKILL the run's whole process group once ``count`` CSVs exist (mid-run), or fail if it ends first."""
    deadline = time.monotonic() + timeout
    while len(list(results.rglob("*.csv"))) < count:
        assert process.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def test_rerun_after_a_hard_kill_equals_an_uninterrupted_run(local_quick_run, quick_runner, tmp_path):
    workdir = tmp_path / "killed"
    results = workdir / "results-quick"
    expected = sorted(p.relative_to(local_quick_run) for p in local_quick_run.rglob("*.csv"))
    kill_after_outputs(start_quick_run(workdir), results, count=len(expected) // 3)
    assert len(list(results.rglob("*.csv"))) < len(expected), "killed too late to test a resume"
    assert quick_runner(workdir, "--unlock").returncode == 0
    resumed = quick_runner(workdir, "--cores", "2", "--rerun-incomplete")
    assert resumed.returncode == 0, resumed.stderr[-5000:]
    for path in expected:
        assert (results / path).read_bytes() == (local_quick_run / path).read_bytes(), path
    assert not [p for p in results.rglob(".*") if ".tmp" in p.name], "temporaries of a killed write remain"
