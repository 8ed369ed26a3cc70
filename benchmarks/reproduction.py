"""(5) The whole reproduction: wall time per rule and per study from Snakemake's ``benchmark:`` TSV files, and the
time of ``snakemake -n --forceall`` (a dry run that plans every job of the full configuration).

``work/benchmarks/<rule>/<wildcards>.tsv`` (or ``work/benchmarks/<rule>.tsv``) holds one line per run of a job with
its wall time ``s``. The study is the rule name up to its first underscore (``contraction_audit_grid`` ->
``contraction``, ``purification_ext_dp_erm`` -> ``purification``), except for the rules of :data:`RULE_STUDY`, whose
names do not start with their study's.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.records import timing_rows
from benchmarks.timing import Timing

__all__ = ["RULE_STUDY", "job_times", "reproduction_rows", "dry_run_rows"]

#: Rules whose name does not start with the name of the study they serve.
RULE_STUDY = {"preprocess": "preprocessing", "logistic_dataset": "contraction"}


def job_times(benchmark_dir: Path) -> pd.DataFrame:
    """One row per job: ``rule, job, study, seconds`` (the last measured run of the job's TSV file)."""
    records = []
    for path in sorted(Path(benchmark_dir).rglob("*.tsv")):
        relative = path.relative_to(benchmark_dir)
        rule = relative.parts[0] if len(relative.parts) > 1 else path.stem
        job = "/".join(relative.with_suffix("").parts[1:]) or "-"
        table = pd.read_csv(path, sep="\t")
        if "s" not in table.columns or table.empty:
            continue
        study = RULE_STUDY.get(rule, rule.split("_")[0])
        records.append({"rule": rule, "job": job, "study": study, "seconds": float(table["s"].iloc[-1])})
    return pd.DataFrame(records, columns=["rule", "job", "study", "seconds"])


def _total_rows(benchmark: str, groups: pd.Series, counts: pd.Series) -> list[dict[str, Any]]:
    return [
        {
            "benchmark": benchmark,
            "case": name,
            "model": "",
            "batch_size": None,
            "runs": int(counts[name]),
            "implementation": "snakemake",
            "reference": "",
            "median_seconds": float(seconds),
            "iqr_seconds": 0.0,
            "repeats": 1,
            "units_per_second": np.nan,
            "unit": "summed wall time of the jobs",
            "ratio_vs_reference": np.nan,
        }
        for name, seconds in groups.items()
    ]


def reproduction_rows(benchmark_dir: Path) -> list[dict[str, Any]]:
    """Rows ``reproduction_rule`` (per rule) and ``reproduction_study`` (per study): summed job wall times
    (``runs`` = number of jobs). Empty when the directory holds no TSV file."""
    jobs = job_times(benchmark_dir)
    if jobs.empty:
        return []
    rows = _total_rows("reproduction_rule", jobs.groupby("rule")["seconds"].sum(), jobs.groupby("rule").size())
    rows += _total_rows("reproduction_study", jobs.groupby("study")["seconds"].sum(), jobs.groupby("study").size())
    return rows


def dry_run_rows(root: Path, repeats: int, configfile: str = "config.yaml") -> list[dict[str, Any]]:
    """Time ``snakemake -n --forceall --nolock`` on ``configfile`` (``--nolock`` so that a running workflow is not
    disturbed); raises RuntimeError with Snakemake's message if the dry run fails."""
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "-n",
        "--forceall",
        "--nolock",
        "--quiet",
        "all",
        "--cores",
        "2",
        "--configfile",
        configfile,
    ]
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        finished = subprocess.run(command, cwd=root, capture_output=True, text=True)
        seconds.append(time.perf_counter() - start)
        if finished.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{finished.stderr[-2000:]}")
    return timing_rows(
        "snakemake_dry_run",
        Path(configfile).stem,
        {"snakemake": Timing(tuple(seconds))},
        reference=None,
        unit="dry run",
    )
