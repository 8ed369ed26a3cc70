"""The quick configuration through real sbatch (single-node SLURM started for the test) equals a local run.

Two of the four studies go through SLURM (:data:`THROUGH_SLURM`): between them they hold every kind of rule the
workflow generates (datasets, pre-processing steps and sensitivities in group jobs, training, the audit grid,
shard jobs of sweeps with the profile's ``shards``, data, tables, figures, claims, the index, provenance), and each
job on a node is a whole Snakemake start, so all four would double the test's time (16 min on 2 shared cores) to
run the same rule templates again. The other two studies' shard invariance is checked by their own tests.

A 'system' test: it changes the machine (installs Debian's slurm-wlm and munge if missing, writes
/etc/slurm/slurm.conf, starts the daemons), so it runs only when enabled (``--system`` or ``DPLAB_TEST_SYSTEM=1``,
see tests/conftest.py) and as root, and ``local_slurm.sh`` refuses a machine with a SLURM of its own. The daemons
are stopped and the configuration removed afterwards whatever happens.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
LOCAL_SLURM = ROOT / "profiles" / "slurm-local" / "local_slurm.sh"

pytestmark = [pytest.mark.pipeline, pytest.mark.system]

REFUSED = 3  # local_slurm.sh's exit status when the machine has a SLURM of its own
THROUGH_SLURM = ("contraction", "preprocessing")


@pytest.fixture(scope="module")
def local_slurm():
    if os.geteuid() != 0:
        pytest.skip("starting a local SLURM needs root")
    started = subprocess.run(["bash", str(LOCAL_SLURM), "start"], capture_output=True, text=True)
    if started.returncode == REFUSED:
        pytest.skip(f"this machine has a SLURM of its own; not touching it: {started.stderr.strip()}")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        yield
    finally:
        subprocess.run(["bash", str(LOCAL_SLURM), "stop"], capture_output=True, text=True)


def test_quick_configuration_through_sbatch_equals_local_run(local_slurm, local_quick_run, quick_runner, tmp_path):
    assert shutil.which("sbatch"), "sbatch missing after local_slurm.sh start"
    cluster = tmp_path / "cluster"
    profile = ROOT / "profiles" / "slurm-local"
    settings = yaml.safe_load((profile / "config.yaml").read_text())["config"]  # --config replaces the profile's
    studies = "studies=[" + ",".join(repr(name) for name in THROUGH_SLURM) + "]"
    through_slurm = quick_runner(cluster, "--workflow-profile", str(profile), "--config", *settings, studies)
    assert through_slurm.returncode == 0, through_slurm.stderr[-5000:]
    assert "has been submitted with SLURM jobid" in through_slurm.stdout + through_slurm.stderr
    logs = list((cluster / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert logs, "no SLURM job logs: the jobs did not go through sbatch"
    csvs = sorted(
        p.relative_to(local_quick_run) for name in THROUGH_SLURM for p in (local_quick_run / name).rglob("*.csv")
    )
    assert len(csvs) >= 10
    assert not (cluster / "results-quick" / "purification").exists()
    for path in csvs:
        assert (cluster / "results-quick" / path).read_bytes() == (local_quick_run / path).read_bytes(), path
