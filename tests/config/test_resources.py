"""Job memory estimates: closed forms, the ceiling resources.max_mem_mb, and one estimate against a measured peak."""

import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dplab.workflow.registry import load_study
from dplab.workflow.resources import (
    BASELINE_MB,
    FACTOR,
    FLOOR_MB,
    estimated_mb,
    job_mem_mb,
    max_mem_mb,
    memory_problems,
    physical_memory_mb,
)

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ("contraction", "preprocessing", "generalization", "purification")
#: (study, job) -> the configuration section its estimate reads, as each study declares it.
HEAVY_JOBS = {(s, job): section for s in STUDIES for job, (section, _) in load_study(s).memory_estimates().items()}


@pytest.fixture(scope="module")
def full() -> dict:
    with open(ROOT / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_fig3_estimate_is_the_stated_closed_form():
    n, d, seeds = 10_000_000, 5000, 10
    values = (3 + seeds) * n * d + seeds * n  # X, two PCA reductions, one projection per seed; seeds x n margins
    expected = BASELINE_MB + FACTOR * values * 8 / 2**20
    estimate = estimated_mb("preprocessing", "fig3", {"fig3": {"n": n, "d": d, "seeds": seeds}})
    assert estimate == pytest.approx(expected, abs=1)
    assert job_mem_mb("preprocessing", "fig3", {"fig3": {"n": n, "d": d, "seeds": seeds}}) == estimate


def test_light_jobs_declare_their_mem_mb_and_small_heavy_ones_at_least_it(full):
    from dplab.studies.preprocessing import STUDY

    assert estimated_mb("preprocessing", "table1", full["preprocessing"]) is None
    assert job_mem_mb("preprocessing", "table1", full["preprocessing"]) == STUDY.artifact("table1").mem_mb
    quick_fig3 = {"fig3": {"n": 300, "d": 100, "seeds": 2}}
    assert estimated_mb("preprocessing", "fig3", quick_fig3) == FLOOR_MB
    assert job_mem_mb("preprocessing", "fig3", quick_fig3) == STUDY.artifact("fig3").mem_mb
    assert job_mem_mb("contraction", "audit_grid", {"audit": {**full["contraction"]["audit"], "grid_cells": 10}}) == (
        FLOOR_MB
    )


@pytest.mark.parametrize(("study", "artifact_id"), sorted(HEAVY_JOBS))
def test_every_heavy_job_grows_with_its_sizes(full, study, artifact_id):
    """Doubling every integer size of the job's section (lists too) never lowers the estimate, and raises it."""
    section = HEAVY_JOBS[(study, artifact_id)]

    def doubled(value):
        if isinstance(value, bool) or not isinstance(value, (int, dict, list)):
            return value
        if isinstance(value, dict):
            return {key: doubled(child) for key, child in value.items()}
        if isinstance(value, list):
            return [doubled(child) for child in value]
        return 2 * value

    config = copy.deepcopy(full[study])
    base = estimated_mb(study, artifact_id, config)
    config[section] = doubled(config[section])
    assert estimated_mb(study, artifact_id, config) > base


def test_ceiling_defaults_to_physical_memory():
    with open("/proc/meminfo", encoding="utf-8") as handle:  # independent reference: MemTotal in kB
        total_kb = int(next(line.split()[1] for line in handle if line.startswith("MemTotal:")))
    assert abs(physical_memory_mb() - total_kb / 1024) < 0.05 * total_kb / 1024
    assert max_mem_mb({}) == physical_memory_mb()
    assert max_mem_mb({"resources": {"max_mem_mb": 1234}}) == 1234


def test_full_configuration_fits_this_machine(full):
    assert memory_problems(full) == []


def test_low_ceiling_refuses_jobs_naming_keys_values_and_estimate(full):
    config = {**full, "resources": {"max_mem_mb": 2000}}
    problems = memory_problems(config)
    estimate = estimated_mb("generalization", "f8", full["generalization"])
    assert estimate > 2000
    assert (
        "config key 'generalization.empirical' (dims, grid[].sizes, grid[].datasets, grid[].split_sigmas, cell_records, test_size, runs): "
        "value {dims: [10, 50], cell_records: 100000, test_size: 200000, runs: 2} is invalid; allowed: sizes whose job "
        "'f8' fits "
        f"resources.max_mem_mb = 2000 MB (estimated peak {estimate} MB)"
    ) in problems
    over = {job for study, job in HEAVY_JOBS if estimated_mb(study, job, full[study]) > 2000}
    assert set(re.findall(r"job '(\w+)'", "\n".join(problems))) == over


def test_studies_not_run_or_skipped_are_not_estimated(full):
    config = {**full, "studies": [], "resources": {"max_mem_mb": 600}}
    assert {p.split("'")[1].split(".")[0] for p in memory_problems(config)} <= {"contraction"}
    config = {**full, "resources": {"max_mem_mb": 600}}
    assert not any("generalization" in p for p in memory_problems(config, skip={"generalization"}))


def test_audit_grid_estimate_covers_the_measured_peak():
    """Grid-exact audit with 1500 cells, run in a child process that prints its own peak RSS: the estimate covers it
    and is not wasteful (under three times the peak). The peak is VmHWM of /proc/self/status, which starts afresh at
    exec; ru_maxrss would also count the pages the child shared with the forking pytest worker before exec (a worker
    late in the suite made it read 804 MB). Measured: 450 MB; estimate 588 MB."""
    with open(ROOT / "config.yaml", encoding="utf-8") as handle:
        fresh = yaml.safe_load(handle)
    audit = {**fresh["contraction"]["audit"], "grid_cells": 1500, "instances": ["A"], "positions": [40]}
    script = "\n".join(
        [
            "from dplab.studies.contraction import audit",
            f"section = {audit!r}",
            'audit.grid_audit(section, section["configs"]["G1"], section["instances"], section["positions"])',
            'print(next(line for line in open("/proc/self/status") if line.startswith("VmHWM")).split()[1])',  # kB
        ]
    )
    run = subprocess.run([sys.executable, "-c", script], check=True, timeout=300, capture_output=True, text=True)
    measured_mb = int(run.stdout.split()[-1]) / 1024
    estimate = estimated_mb("contraction", "audit_grid", {"audit": audit})
    assert measured_mb <= estimate <= 3 * measured_mb, (measured_mb, estimate)
