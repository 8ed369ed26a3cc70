"""The SLURM profile leaves partition and account to the cluster, and a placeholder left in a profile stops a dry run
before anything is planned."""

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def dry_run(profile: Path, workdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(workdir),
            "-n",
            "--configfile",
            str(ROOT / "config.quick.yaml"),
            "--workflow-profile",
            str(profile),
        ],
        capture_output=True,
        text=True,
        cwd=workdir,
    )


def test_slurm_profile_sets_no_partition_or_account():
    resources = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())["default-resources"]
    assert "slurm_partition" not in resources and "slurm_account" not in resources


def test_a_placeholder_in_a_profile_stops_the_dry_run(tmp_path):
    profile = tmp_path / "profile"
    profile.mkdir()
    text = (ROOT / "profiles" / "slurm" / "config.yaml").read_text()
    text = text.replace('# slurm_account: "CHANGE_ME_account"', 'slurm_account: "CHANGE_ME_account"')
    (profile / "config.yaml").write_text(text)
    result = dry_run(profile, tmp_path)
    assert result.returncode != 0
    assert "slurm_account=CHANGE_ME_account" in result.stderr + result.stdout
    assert not (tmp_path / "results-quick").exists()


def test_the_slurm_profile_plans_the_quick_configuration(tmp_path):
    result = dry_run(ROOT / "profiles" / "slurm", tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
