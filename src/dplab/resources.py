"""Peak-memory estimates of the heavy jobs, from the sizes in their configuration section.

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
import os
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

__all__ = ["BASELINE_MB", "FLOOR_MB", "HEAVY_JOBS", "job_mem_mb", "physical_memory_mb", "max_mem_mb", "memory_problems"]

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


def _fig3_values(n: int, d: int, seeds: int) -> float:
    """Fig. 3 (Hu et al. 2024, Section 6) on one dataset, :func:`dplab.studies.preprocessing.learning.fig3_frame`:
    X, its two PCA reductions and the ``seeds`` DP-PCA projections ``X A Aᵀ`` held at once, each n x d,
    plus the (seeds, n) margins of the logistic risk (measured: 463 MB peak for n = 3000, d = 800, seeds = 4, one
    epsilon, against an estimate of 607 MB)."""
    return (3 + seeds) * n * d + seeds * n


def _preprocessing_fig3(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    values = _fig3_values(section["n"], section["d"], section["seeds"])
    return values, ["n", "d", "seeds"]


def _preprocessing_regimes(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """The regimes run one after the other: the largest n x d regime sets the peak."""
    index, regime = max(enumerate(section["regimes"]), key=lambda item: item[1]["n"] * item[1]["d"])
    values = _fig3_values(regime["n"], regime["d"], section["seeds"])
    return values, [f"regimes[{index}].n", f"regimes[{index}].d", "seeds"]


def _generalization_empirical(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """E1 of He, Wang, Tao, :func:`dplab.studies.generalization.empirical.e1_cell_records`, one sweep point at a time:
    the Gaussian draw, the point's training sets (float64 and float32: max(1, cell_records // N) sets of N records,
    the largest over the sizes) and the held-out set, about 2 arrays of (records + test_size) x d (measured: 1184 MB
    peak, 884 MB above the interpreter, for one set of N = 10^6, d = 50, test_size = 2 x 10^5), and the
    (records or test_size) x (sigmas x runs) predictions (a point trains one sigma of a block with split_sigmas, every
    sigma of another), the largest over the sizes; plus about 1 kB per result row (dims x datasets x grid x
    checkpoints x runs)."""
    d = max(section["dims"])
    test, runs = section["test_size"], section["runs"]
    point = max(
        (records + test) * (d + runs * (1 if block["split_sigmas"] else len(block["sigmas"])))
        for block in section["grid"]
        for records in (n * min(block["datasets"], max(1, section["cell_records"] // n)) for n in block["sizes"])
    )
    cells = sum(block["datasets"] * len(block["sizes"]) * len(block["sigmas"]) for block in section["grid"])
    rows = len(section["dims"]) * cells * len(section["checkpoints"]) * runs
    values = 2 * point + rows * 1024 / _FLOAT
    return values, [
        "dims",
        "grid[].sizes",
        "grid[].datasets",
        "grid[].split_sigmas",
        "cell_records",
        "test_size",
        "runs",
    ]


def _purification_erm(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """DP-ERM sweeps of Lin et al. (2025), :mod:`dplab.studies.purification.erm`: the data (n x d), the exponential
    mechanism's grid on the d = 2 ball (about pi (R/spacing)^2 points, 3 values each) and one 4096-point chunk of
    grid-point x record losses (4096 x n, twice for the temporary)."""
    n = max([section["epsilon_sweep"]["n"], *section["n_sweep"]["ns"]])
    grid = math.pi * (section["radius"] / section["em_grid_spacing"]) ** 2
    values = n * section["d"] + 3 * grid + 2 * 4096 * n + section["seeds"] * section["d"] * 4
    return values, ["n_sweep.ns", "epsilon_sweep.n", "d", "radius", "em_grid_spacing"]


def _purification_linear_regression(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """Sufficient-statistics perturbation of Lin et al. (2025), :mod:`dplab.studies.purification.linear_regression`:
    Gaussian draw, X and the clipped products, about 4 arrays of n x d for the largest n and d."""
    values = 4 * max(section["ns"]) * max(section["ds"]) + section["seeds"] * section["draws"] * max(section["ds"])
    return values, ["ns", "ds"]


def _purification_query_release(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """MWEM / Algorithm 16 of Lin et al. (2025), :mod:`dplab.studies.purification.query_release`: the workload
    (k x 2^d) and the seeds' histograms and synthetic distributions (2 x seeds x 2^d) for the largest d and k."""
    cells = 2 ** max([section["base"]["d"], *section["d_sweep"]])
    k = max([section["base"]["k"], *section["k_sweep"]])
    return (k + 2 * section["seeds"]) * cells, ["d_sweep", "base.d", "k_sweep", "base.k", "seeds"]


def _purification_mc_audit(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """Monte-Carlo audit of Lin et al. (2025): the largest sample of each neighbour plus its sorted copy."""
    return 4 * max(section["sample_sizes"]), ["sample_sizes"]


def _contraction_audit_grid(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """Grid-exact laws of PNSGD (Asoodeh et al. 2020, Theorems 3 and 4), :func:`dplab.studies.contraction.audit.
    grid_audit`: (G+2) x (G+2) transition kernels and their temporaries (measured: 8 such arrays at the peak for
    G = 1500 and 3000, i.e. 4 with :data:`FACTOR`), plus two laws of length G+2 per instance and position."""
    states = section["grid_cells"] + 2
    laws = 2 * len(section["instances"]) * len(section["positions"]) * states
    return 4 * states**2 + laws, ["grid_cells", "instances", "positions"]


Estimator = Callable[[Mapping[str, Any]], tuple[float, list[str]]]

#: (study, artifact id) -> (section of the study's configuration, estimator of its peak float64 values).
HEAVY_JOBS: dict[tuple[str, str], tuple[str, Estimator]] = {
    ("preprocessing", "fig3"): ("fig3", _preprocessing_fig3),
    ("preprocessing", "ext_fig3_regimes"): ("regimes", _preprocessing_regimes),
    ("generalization", "f8"): ("empirical", _generalization_empirical),
    ("generalization", "t4"): ("empirical", _generalization_empirical),
    ("purification", "ext_dp_erm"): ("dp_erm", _purification_erm),
    ("purification", "ext_dp_erm_sc"): ("dp_erm_sc", _purification_erm),
    ("purification", "ext_linear_regression"): ("linear_regression", _purification_linear_regression),
    ("purification", "ext_query_release"): ("query_release", _purification_query_release),
    ("purification", "ext_mc_audit"): ("mc_audit", _purification_mc_audit),
    ("contraction", "audit_grid"): ("audit", _contraction_audit_grid),
}


def _estimate(study: str, artifact_id: str, study_config: Mapping[str, Any]) -> tuple[int, str, list[str]]:
    """(MB, section, size keys) of one job; jobs not in :data:`HEAVY_JOBS` get the floor."""
    if (study, artifact_id) not in HEAVY_JOBS:
        return FLOOR_MB, "", []
    section, estimator = HEAVY_JOBS[(study, artifact_id)]
    values, keys = estimator(study_config[section])
    return max(FLOOR_MB, math.ceil(BASELINE_MB + FACTOR * _megabytes(values))), section, keys


def job_mem_mb(study: str, artifact_id: str, study_config: Mapping[str, Any]) -> int:
    """Estimated peak resident memory in MB of the job computing ``artifact_id`` of ``study`` (at least
    :data:`FLOOR_MB`), from the sizes in ``study_config`` (the mapping under the study's top-level key)."""
    return _estimate(study, artifact_id, study_config)[0]


def physical_memory_mb() -> int:
    """Total physical memory of this machine in MB (``sysconf``)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // _MB


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
    """A problem for each heavy job whose :func:`job_mem_mb` exceeds :func:`max_mem_mb`, for the studies run and
    not in ``skip`` (studies with schema problems, whose sizes may not even be numbers)."""
    ceiling = max_mem_mb(config)
    problems = []
    for study, artifact_id in HEAVY_JOBS:
        if study in skip or study not in config or study not in config.get("studies", []):
            continue
        estimate, section, keys = _estimate(study, artifact_id, config[study])
        if estimate > ceiling:
            sizes = _size_values(config[study][section], keys)
            problems.append(
                f"config key '{study}.{section}' ({', '.join(keys)}): value {sizes} is invalid; "
                f"allowed: sizes whose job '{artifact_id}' fits resources.max_mem_mb = {ceiling} MB"
                f" (estimated peak {estimate} MB)"
            )
    return problems
