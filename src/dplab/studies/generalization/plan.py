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


# Peak float64 values of the heavy jobs (dplab.workflow.resources turns them into MB): (values, the size keys).


def empirical_memory(section: Mapping[str, Any]) -> tuple[float, list[str]]:
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
    values = 2 * point + rows * 1024 / 8  # about 1 kB per row, in float64 values
    return values, [
        "dims",
        "grid[].sizes",
        "grid[].datasets",
        "grid[].split_sigmas",
        "cell_records",
        "test_size",
        "runs",
    ]
