"""Peak-memory estimates of the heavy jobs, from the sizes in their configuration section.

Each study states its heavy jobs' estimators where it declares them (an artifact's ``memory``, a pipeline stage's
``Study.stage_memory``; the estimators live in the study's light ``plan.py``); this module turns them into MB.

Each estimate is ``BASELINE_MB`` (the interpreter with numpy, pandas, torch and dplab imported: 323 MB measured alone,
up to about 430 MB with a job's own allocations and a loaded machine)
plus the float64 arrays the job holds at its peak, times a stated safety factor, with a floor of ``FLOOR_MB``.
The array counts come from reading the compute functions (named in each estimator's docstring); the factor covers
temporaries of the same shape (``X @ A``, ``np.where``...). ``tests/config/test_resources.py`` checks estimates
against peaks measured with ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``.

:func:`job_mem_mb` is what a rule can declare as ``resources: mem_mb``; :func:`memory_problems` refuses a
configuration whose heavy job would exceed ``resources.max_mem_mb`` (default: this machine's physical memory).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from typing import Any

from dplab.machine import physical_memory_mb
from dplab.workflow.registry import load_study

__all__ = [
    "BASELINE_MB",
    "FLOOR_MB",
    "estimated_mb",
    "job_mem_mb",
    "physical_memory_mb",
    "max_mem_mb",
    "memory_problems",
]

#: Resident size of a job's interpreter after importing numpy, pandas, torch and dplab (measured: 323 MB).
BASELINE_MB = 450
#: No job is declared below this (today's smallest declaration).
FLOOR_MB = 500
#: Safety factor on the counted arrays (temporaries of the same shape, allocator slack).
FACTOR = 2.0
_FLOAT = 8  # bytes of a float64
_MB = 2**20


def _megabytes(float64_values: float) -> float:
    return float64_values * _FLOAT / _MB


def _megabytes_at_peak(float64_values: float) -> int:
    """MB a job declares for ``float64_values`` held at its peak: the interpreter plus FACTOR times the arrays."""
    return max(FLOOR_MB, math.ceil(BASELINE_MB + FACTOR * _megabytes(float64_values)))


def estimated_mb(study: str, job: str, study_config: Mapping[str, Any]) -> int | None:
    """The estimated peak in MB of the job ``job`` (an artifact id or a pipeline stage) of ``study`` from the sizes
    in ``study_config`` (the mapping under the study's key), or None for a job without an estimate."""
    estimates = load_study(study).memory_estimates()
    if job not in estimates:
        return None
    section, estimator = estimates[job]
    return _megabytes_at_peak(estimator(study_config[section])[0])


def job_mem_mb(study: str, job: str, study_config: Mapping[str, Any]) -> int:
    """Memory in MB the job ``job`` of ``study`` declares: the larger of an artifact's ``mem_mb`` (for a pipeline
    stage, :data:`FLOOR_MB`) and its :func:`estimated_mb`, where it has one."""
    declared = load_study(study)
    floor = declared.artifact(job).mem_mb if job in {a.id for a in declared.artifacts} else FLOOR_MB
    return max(floor, estimated_mb(study, job, study_config) or 0)


def max_mem_mb(config: Mapping[str, Any]) -> float:
    """The ceiling ``resources.max_mem_mb``, or this machine's physical memory when it is absent or null."""
    return config.get("resources", {}).get("max_mem_mb") or physical_memory_mb()


def _lookup(section: Mapping[str, Any], key: str) -> Any:
    """The value at ``key`` (``a.b``, ``a[2].b``) in ``section``; ``None`` when absent or not a single value."""
    value: Any = section
    for name, index in re.findall(r"([^.\[\]]+)(?:\[(\d*)\])?", key):
        if not isinstance(value, Mapping) or name not in value or index == "" and f"{name}[]" in key:
            return None
        value = value[name] if not index else value[name][int(index)]
    return value


def _size_values(section: Mapping[str, Any], keys: list[str]) -> str:
    """``{key: value, ...}`` of the size keys (for the message; keys spanning several values are left out)."""
    shown = {key: _lookup(section, key) for key in keys}
    return "{" + ", ".join(f"{key}: {value}" for key, value in shown.items() if value is not None) + "}"


def memory_problems(config: Mapping[str, Any], skip: Collection[str] = ()) -> list[str]:
    """A problem for each heavy job whose :func:`estimated_mb` exceeds :func:`max_mem_mb`, for the studies run and
    not in ``skip`` (studies with schema problems, whose sizes may not even be numbers)."""
    ceiling = max_mem_mb(config)
    problems = []
    for study in config.get("studies", []):
        if study in skip or study not in config:
            continue
        for job, (section, estimator) in load_study(study).memory_estimates().items():
            values, keys = estimator(config[study][section])
            estimate = _megabytes_at_peak(values)  # as estimated_mb
            if estimate <= ceiling:
                continue
            sizes = _size_values(config[study][section], keys)
            problems.append(
                f"config key '{study}.{section}' ({', '.join(keys)}): value {sizes} is invalid; "
                f"allowed: sizes whose job '{job}' fits resources.max_mem_mb = {ceiling} MB"
                f" (estimated peak {estimate} MB)"
            )
    return problems
