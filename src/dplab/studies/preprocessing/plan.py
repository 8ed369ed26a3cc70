"""The pre-processing study's plan: the points of its sweeps (Figure 3 and its regime extension), functions of
the configuration alone.

The workflow evaluates these when it builds its DAG (every run, and every job of a cluster run, parses the
workflow), so this module imports no compute code: no torch, no dp_accounting (tests/workflow/test_dag_imports.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["fig3_points", "regime_points"]


def fig3_points(params: Mapping[str, Any]) -> list[dict[str, float]]:
    """Figure 3's sweep points: one per overall ε (every (T, lr), method and seed of an ε is one point's work)."""
    return [{"epsilon": float(epsilon)} for epsilon in params["epsilons"]]


def regime_points(params: Mapping[str, Any]) -> list[dict[str, int]]:
    """The regime sweep's points: one per regime (n, d, k, scale)."""
    return [{"regime": index} for index in range(len(params["regimes"]))]


# Peak float64 values of the heavy jobs (dplab.workflow.resources turns them into MB): (values, the size keys).


def _fig3_values(n: int, d: int, seeds: int) -> float:
    """Fig. 3 (Hu et al. 2024, Section 6) on one dataset, :func:`dplab.studies.preprocessing.learning.fig3_frame`:
    X, its two PCA reductions and the ``seeds`` DP-PCA projections ``X A Aᵀ`` held at once, each n x d,
    plus the (seeds, n) margins of the logistic risk (measured: 463 MB peak for n = 3000, d = 800, seeds = 4, one
    epsilon, against an estimate of 607 MB)."""
    return (3 + seeds) * n * d + seeds * n


def fig3_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    values = _fig3_values(section["n"], section["d"], section["seeds"])
    return values, ["n", "d", "seeds"]


def regimes_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
    """The regimes run one after the other: the largest n x d regime sets the peak."""
    index, regime = max(enumerate(section["regimes"]), key=lambda item: item[1]["n"] * item[1]["d"])
    values = _fig3_values(regime["n"], regime["d"], section["seeds"])
    return values, [f"regimes[{index}].n", f"regimes[{index}].d", "seeds"]
