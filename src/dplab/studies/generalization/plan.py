"""The generalization study's plan: the points of its SGLD sweep (Figure 8, Tables 3-4), functions of the
configuration alone.

The workflow evaluates these when it builds its DAG (every run, and every job of a cluster run, parses the
workflow), so this module imports no compute code: no torch, no dp_accounting (tests/workflow/test_dag_imports.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["grid_points", "block_of", "e1_cells"]


def grid_points(params: Mapping[str, Any]) -> list[tuple[int, float]]:
    """The (N, σ) pairs of the configuration's ``grid`` blocks (each block: the product of its sizes and sigmas)."""
    return [(int(n), float(s)) for block in params["grid"] for n in block["sizes"] for s in block["sigmas"]]


def block_of(params: Mapping[str, Any], n: int) -> Mapping[str, Any]:
    """The grid block that holds size ``n`` (each size is in exactly one block, a constraint of the schema)."""
    return next(block for block in params["grid"] if n in block["sizes"])


def _sigma_groups(block: Mapping[str, Any]) -> list[list[float]]:
    """The noise levels each point of a grid block trains together: one σ per point if the block sets
    ``split_sigmas`` (more, shorter jobs), else every σ of the block in one point (the training sets are made once
    and SGLD's per-step cost is shared by all σs)."""
    sigmas = [float(s) for s in block["sigmas"]]
    return [[s] for s in sigmas] if block["split_sigmas"] else [sigmas]


def e1_cells(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep's points: for every d, size N and σ group of N's block (:func:`_sigma_groups`), the block's
    ``datasets`` training sets in consecutive groups of at most max(1, ``cell_records`` // N) sets
    (``first_dataset``, ``datasets``). The points depend only on the configuration, so any sharding gives the same
    rows."""
    cells = []
    for d in params["dims"]:
        for n in dict.fromkeys(n for n, _ in grid_points(params)):
            block = block_of(params, n)
            total = int(block["datasets"])
            per_cell = max(1, min(total, int(params["cell_records"]) // n))
            cells.extend(
                {
                    "d": int(d),
                    "n": n,
                    "sigmas": sigmas,
                    "first_dataset": first,
                    "datasets": min(per_cell, total - first),
                }
                for sigmas in _sigma_groups(block)
                for first in range(0, total, per_cell)
            )
    return cells
