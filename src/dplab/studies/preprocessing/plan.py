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
