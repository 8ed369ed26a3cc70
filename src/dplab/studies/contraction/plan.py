"""The contraction study's plan: the points of its audit sweeps and the pipeline products its artifacts read,
functions of the configuration alone.

The workflow evaluates these when it builds its DAG (every run, and every job of a cluster run, parses the
workflow), so this module imports no compute code: no torch, no dp_accounting (tests/workflow/test_dag_imports.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "audit_grid_memory",
    "audited",
    "audit_points",
    "gaussian_audit_points",
    "laplace_audit_points",
    "gaussian_audit_inputs",
    "laplace_audit_inputs",
    "utility_inputs",
]


def audited(audit: Mapping[str, Any], noise: str) -> list[str]:
    """The audited configurations (``audit.run``, in that order) with noise ``noise``."""
    return [name for name in audit["run"] if audit["configs"][name]["noise"] == noise]


def audit_points(audit: Mapping[str, Any], noise: str) -> list[dict[str, Any]]:
    """The points of the audit of one noise: every audited configuration of that noise at every position
    (ascending)."""
    return [{"config": name, "i": i} for name in audited(audit, noise) for i in sorted(audit["positions"])]


def gaussian_audit_points(audit: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The points of ``ext_audit_gaussian`` (:func:`audit_points`)."""
    return audit_points(audit, "gaussian")


def laplace_audit_points(audit: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The points of ``ext_audit_laplace`` (:func:`audit_points`)."""
    return audit_points(audit, "laplace")


def _audit_inputs(study_config: Mapping[str, Any], noise: str) -> dict[str, str]:
    """The grid frame and laws (rule ``contraction_audit_grid``) of each audited configuration of ``noise``,
    relative to the study's work folder."""
    files = {}
    for name in audited(study_config["audit"], noise):
        files[f"{name}_grid"] = f"audit/{name}/grid.csv"
        files[f"{name}_laws"] = f"audit/{name}/laws.npz"
    return files


def gaussian_audit_inputs(study_config: Mapping[str, Any]) -> dict[str, str]:
    """The pipeline products ``ext_audit_gaussian`` reads (:func:`_audit_inputs`)."""
    return _audit_inputs(study_config, "gaussian")


def laplace_audit_inputs(study_config: Mapping[str, Any]) -> dict[str, str]:
    """The pipeline products ``ext_audit_laplace`` reads (:func:`_audit_inputs`)."""
    return _audit_inputs(study_config, "laplace")


def utility_inputs(study_config: Mapping[str, Any]) -> dict[str, str]:
    """The PNSGD training runs the utility artifact reads, one file per noise type (rule
    ``contraction_utility_train``), relative to the study's work folder, in the configuration's order."""
    return {noise: f"utility/{noise}.csv" for noise in study_config["utility"]["noise_types"]}


# Peak float64 values of the heavy jobs (dplab.workflow.resources turns them into MB): (values, the size keys).


def audit_grid_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """Grid-exact laws of PNSGD (Asoodeh et al. 2020, Theorems 3 and 4), :func:`dplab.studies.contraction.audit.
    grid_audit`: (G+2) x (G+2) transition kernels and their temporaries (measured: 8 such arrays at the peak for
    G = 1500 and 3000, i.e. 4 with :data:`FACTOR`), plus two laws of length G+2 per instance and position."""
    states = section["grid_cells"] + 2
    laws = 2 * len(section["instances"]) * len(section["positions"]) * states
    return 4 * states**2 + laws, ["grid_cells", "instances", "positions"]
