"""Configuration problems end as one message while Snakemake parses the workflow, before any job (issue 26), and an
integer written as a float plans exactly the jobs and files of its integer spelling."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def snakemake(cwd: Path, *arguments: str) -> subprocess.CompletedProcess:
    """``snakemake -s <repository>/Snakefile --cores 1 <arguments>`` started from ``cwd``."""
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "1", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def refused_before_any_job(run: subprocess.CompletedProcess) -> str:
    output = run.stdout + run.stderr
    assert run.returncode != 0, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert "Job stats" not in output and "localrule" not in output  # nothing was planned
    return output


def summary(cwd: Path, configfile: Path) -> str:
    """Every output file the configuration plans, with its rule (``snakemake --summary``)."""
    run = snakemake(cwd, "--summary", "--configfile", str(ROOT / "config.quick.yaml"), str(configfile))
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def test_integers_written_as_floats_plan_the_same_jobs_and_files(tmp_path):
    """``shards: 2.0`` raised a TypeError while the workflow was parsed, ``n_delta: 60.0`` failed inside its job:
    both now plan exactly the files (names included) of ``shards: 2`` and ``n_delta: 60``."""
    as_int, as_float = tmp_path / "int.yaml", tmp_path / "float.yaml"
    body = "results: out\nwork: wk\nshards: {s}\npurification:\n  fig1: {{n_delta: {n}}}\n"
    as_int.write_text(body.format(s=2, n=60), encoding="utf-8")
    as_float.write_text(body.format(s="2.0", n="60.0"), encoding="utf-8")
    planned = summary(tmp_path, as_int)
    assert "-of-2.pkl" in planned  # shards took effect
    assert summary(tmp_path, as_float) == planned


def test_merge_keys_are_read_and_checked_like_any_value(tmp_path):
    """A merge key (``<<: *base``) crashed the duplicate-key check; now its values are validated like any other."""
    merged = tmp_path / "merged.yaml"
    merged.write_text(
        "results: out\nwork: wk\npurification:\n  dp_erm: &erm {radius: 1.0, lam: 0.0, em_grid_spacing: 0.00001}\n"
        "  dp_erm_sc:\n    <<: *erm\n    lam: 0.1\n",
        encoding="utf-8",
    )
    output = refused_before_any_job(snakemake(tmp_path, "-n", "--configfile", str(merged)))
    for section in ("dp_erm", "dp_erm_sc"):  # the merged value is checked in both places
        assert (
            f"config key 'purification.{section}.em_grid_spacing': 1e-05 is less than the minimum of 0.0001" in output
        )
    assert "ConstructorError" not in output


def test_every_path_and_value_problem_is_one_message(tmp_path):
    """``results`` naming a file ended in NotADirectoryError; epsilon = 1e300 and n_delta = 60.5 reached their jobs."""
    (tmp_path / "taken").write_text("", encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "results: taken\nwork: taken/work\npurification:\n  fig1: {n_delta: 60.5}\n  fig3: {epsilon: 1.0e+300}\n",
        encoding="utf-8",
    )
    output = refused_before_any_job(snakemake(tmp_path, "-n", "--configfile", str(bad)))
    assert "invalid configuration:" in output
    assert f"config key 'results': value 'taken' is invalid ({tmp_path / 'taken'} is a file, not a folder)" in output
    assert f"config key 'work': value 'taken/work' is invalid ({tmp_path / 'taken'} is a file, not a folder)" in output
    assert "config key 'purification.fig1.n_delta': 60.5 is not of type 'integer'" in output
    assert "config key 'purification.fig3.epsilon': 1e+300 is greater than the maximum of 50" in output


@pytest.mark.skipif(
    not os.path.isdir("/proc/1") or os.access("/proc/1", os.W_OK), reason="needs a folder no one writes"
)
def test_an_unwritable_folder_is_a_message(tmp_path):
    output = refused_before_any_job(snakemake(tmp_path, "-n", "--config", "results=/proc/1/results", "work=wk"))
    assert "config key 'results': value '/proc/1/results' is invalid (this user may not write into /proc/1)" in output


def test_a_relative_configfile_is_read_from_the_folder_snakemake_starts_in(tmp_path):
    """Snakemake resolves ``--configfile`` against the folder it is started from (``-s`` points elsewhere) and reads
    it before the workflow; the workflow's checks name the file by that absolute path."""
    (tmp_path / "extra.yaml").write_text("results: out\nwork: wk\nthreads: 1\nthreads: 2\n", encoding="utf-8")
    output = refused_before_any_job(snakemake(tmp_path, "-n", "--configfile", "extra.yaml"))
    assert f"config file '{tmp_path / 'extra.yaml'}', line 4: key 'threads' is given twice" in output


def test_a_configfile_that_is_not_a_mapping_is_a_message(tmp_path):
    """Snakemake refuses it itself while reading its command line, with a message (no traceback)."""
    (tmp_path / "list.yaml").write_text("- results\n- work\n", encoding="utf-8")
    output = refused_before_any_job(snakemake(tmp_path, "-n", "--configfile", "list.yaml"))
    assert "Config file must be given as JSON or YAML with keys at top level" in output
