"""The quick configuration through real sbatch (single-node SLURM started for the test) equals a local run.

Needs root (it installs Debian's slurm-wlm and munge if missing and starts the daemons); the daemons are stopped
afterwards whatever happens, because a slurm CLI without its controller slows every later snakemake call.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCAL_SLURM = ROOT / "profiles" / "slurm-local" / "local_slurm.sh"

pytestmark = pytest.mark.pipeline


@pytest.fixture(scope="module")
def local_slurm():
    if os.geteuid() != 0:
        pytest.skip("starting a local SLURM needs root")
    started = subprocess.run(["bash", str(LOCAL_SLURM), "start"], capture_output=True, text=True)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        yield
    finally:
        subprocess.run(["bash", str(LOCAL_SLURM), "stop"], capture_output=True, text=True)


def run_quick(workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
         "--configfile", str(ROOT / "config.quick.yaml"), *extra],
        capture_output=True, text=True, cwd=workdir,
    )


def test_quick_configuration_through_sbatch_equals_local_run(local_slurm, tmp_path):
    assert shutil.which("sbatch"), "sbatch missing after local_slurm.sh start"
    cluster, local = tmp_path / "cluster", tmp_path / "local"
    cluster.mkdir()
    local.mkdir()
    through_slurm = run_quick(cluster, "--workflow-profile", str(ROOT / "profiles" / "slurm-local"))
    assert through_slurm.returncode == 0, through_slurm.stderr[-5000:]
    assert "has been submitted with SLURM jobid" in through_slurm.stdout + through_slurm.stderr
    logs = list((cluster / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert logs, "no SLURM job logs: the jobs did not go through sbatch"
    on_machine = run_quick(local, "--cores", "2")
    assert on_machine.returncode == 0, on_machine.stderr[-5000:]
    csvs = sorted(p.relative_to(local) for p in (local / "results-quick").rglob("*.csv"))
    assert len(csvs) >= 10
    for path in csvs:
        assert (cluster / path).read_bytes() == (local / path).read_bytes(), path
