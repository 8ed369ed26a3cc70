"""The quick configuration through real sbatch (single-node SLURM started for the test) equals a local run.

Needs root (it installs Debian's slurm-wlm and munge if missing and starts the daemons); the daemons are stopped
afterwards whatever happens, because a slurm CLI without its controller slows every later snakemake call.
"""

import os
import shutil
import subprocess
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


def test_quick_configuration_through_sbatch_equals_local_run(local_slurm, local_quick_run, quick_runner, tmp_path):
    assert shutil.which("sbatch"), "sbatch missing after local_slurm.sh start"
    cluster = tmp_path / "cluster"
    through_slurm = quick_runner(cluster, "--workflow-profile", str(ROOT / "profiles" / "slurm-local"))
    assert through_slurm.returncode == 0, through_slurm.stderr[-5000:]
    assert "has been submitted with SLURM jobid" in through_slurm.stdout + through_slurm.stderr
    logs = list((cluster / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert logs, "no SLURM job logs: the jobs did not go through sbatch"
    csvs = sorted(p.relative_to(local_quick_run) for p in local_quick_run.rglob("*.csv"))
    assert len(csvs) >= 10
    for path in csvs:
        assert (cluster / "results-quick" / path).read_bytes() == (local_quick_run / path).read_bytes(), path
