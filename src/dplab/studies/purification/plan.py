"""The purification study's plan: the points of its sweeps (DP-ERM, linear regression, query release, Frank-Wolfe),
functions of the configuration alone.

The workflow evaluates these when it builds its DAG (every run, and every job of a cluster run, parses the
workflow), so this module imports no compute code: no torch, no dp_accounting (tests/workflow/test_dag_imports.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "erm_memory",
    "linear_regression_memory",
    "query_release_memory",
    "mc_audit_memory",
    "METHOD_GROUPS",
    "erm_points",
    "regression_points",
    "sweep_points",
    "query_release_jobs",
    "frank_wolfe_points",
]


METHOD_GROUPS = ("dpsgd_paper", "dpsgd_tuned", "laplace_gd", "dpsgd_reference", "baselines")


def erm_points(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep's points: every (n, ε_tot) of the ε sweep (fixed n) and of the n sweep (fixed ε), sorted, times
    every method group (:data:`METHOD_GROUPS`; the baselines only where there is one: the exponential mechanism
    for d = 2, output perturbation for λ > 0)."""
    eps_sweep, n_sweep = params["epsilon_sweep"], params["n_sweep"]
    points = sorted(
        {(int(eps_sweep["n"]), float(e)) for e in eps_sweep["epsilons"]}
        | {(int(n), float(n_sweep["epsilon"])) for n in n_sweep["ns"]}
    )
    has_baselines = int(params["d"]) == 2 or float(params["lam"]) > 0
    groups = [g for g in METHOD_GROUPS if g != "baselines" or has_baselines]
    return [{"n": n, "epsilon_total": eps_total, "methods": group} for n, eps_total in points for group in groups]


def regression_points(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep's points in output order: every (n, d) of the grid and replicate index (one dataset each)."""
    return [
        {"n": int(n), "d": int(d), "replicate": s}
        for n in params["ns"]
        for d in params["ds"]
        for s in range(int(params["seeds"]))
    ]


def sweep_points(section: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The union of the one-at-a-time sweeps around ``base``, each point with in_<key>_sweep flags."""
    base = section["base"]
    points: dict[tuple, dict[str, Any]] = {}
    for key, values in (
        ("n", section["n_sweep"]),
        ("d", section["d_sweep"]),
        ("k", section["k_sweep"]),
        ("epsilon_total", section["epsilon_sweep"]),
    ):
        for value in values:
            point = {**base, key: value}
            ident = (int(point["n"]), int(point["d"]), int(point["k"]), float(point["epsilon_total"]))
            entry = points.setdefault(
                ident,
                {
                    "n": ident[0],
                    "d": ident[1],
                    "k": ident[2],
                    "epsilon_total": ident[3],
                    **{f"in_{s}_sweep": False for s in ("n", "d", "k", "epsilon")},
                },
            )
            entry[f"in_{'epsilon' if key == 'epsilon_total' else key}_sweep"] = True
    return list(points.values())


def query_release_jobs(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep's points: every sweep point (:func:`sweep_points`) for every query family."""
    return [{**point, "family": family} for point in sweep_points(params) for family in params["query_families"]]


def frank_wolfe_points(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep's points in output order: every (n, d) of the grid (one data set each)."""
    return [{"n": int(n), "d": int(d)} for n in params["ns"] for d in params["ds"]]


# Peak float64 values of the heavy jobs (dplab.workflow.resources turns them into MB): (values, the size keys).


def erm_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """DP-ERM sweeps of Lin et al. (2025), :mod:`dplab.studies.purification.erm`: the data (n x d), the exponential
    mechanism's grid on the d = 2 ball (about pi (R/spacing)^2 points, 3 values each) and one 4096-point chunk of
    grid-point x record losses (4096 x n, twice for the temporary)."""
    n = max([section["epsilon_sweep"]["n"], *section["n_sweep"]["ns"]])
    grid = math.pi * (section["radius"] / section["em_grid_spacing"]) ** 2
    values = n * section["d"] + 3 * grid + 2 * 4096 * n + section["seeds"] * section["d"] * 4
    return values, ["n_sweep.ns", "epsilon_sweep.n", "d", "radius", "em_grid_spacing"]


def linear_regression_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """Sufficient-statistics perturbation of Lin et al. (2025), :mod:`dplab.studies.purification.linear_regression`:
    Gaussian draw, X and the clipped products, about 4 arrays of n x d for the largest n and d."""
    values = 4 * max(section["ns"]) * max(section["ds"]) + section["seeds"] * section["draws"] * max(section["ds"])
    return values, ["ns", "ds"]


def query_release_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """MWEM / Algorithm 16 of Lin et al. (2025), :mod:`dplab.studies.purification.query_release`: the workload
    (k x 2^d) and the seeds' histograms and synthetic distributions (2 x seeds x 2^d) for the largest d and k."""
    cells = 2 ** max([section["base"]["d"], *section["d_sweep"]])
    k = max([section["base"]["k"], *section["k_sweep"]])
    return (k + 2 * section["seeds"]) * cells, ["d_sweep", "base.d", "k_sweep", "base.k", "seeds"]


def mc_audit_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """Monte-Carlo audit of Lin et al. (2025): the largest sample of each neighbour plus its sorted copy."""
    return 4 * max(section["sample_sizes"]), ["sample_sizes"]
