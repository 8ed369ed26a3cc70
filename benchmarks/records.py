"""Tidy rows: one per (benchmark, case, implementation) measurement, with the ratio to the case's reference."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from benchmarks.timing import Timing

__all__ = ["COLUMNS", "timing_rows"]

COLUMNS: tuple[str, ...] = (
    "benchmark",
    "case",
    "model",
    "batch_size",
    "runs",
    "implementation",
    "reference",
    "median_seconds",
    "iqr_seconds",
    "repeats",
    "units_per_second",
    "unit",
    "ratio_vs_reference",
)


def timing_rows(
    benchmark: str,
    case: str,
    timings: Mapping[str, Timing],
    *,
    reference: str | None,
    unit: str,
    units_per_call: float = 1.0,
    model: str = "",
    batch_size: int | None = None,
    runs: int | None = None,
    implementations: tuple[str, ...] | None = None,
) -> list[dict[str, Any]]:
    """Rows for ``implementations`` (default: all timed ones); ``median_seconds`` is per ``unit``-batch of work.

    ``ratio_vs_reference`` = median time / the reference's median time (below 1: faster than the reference);
    ``units_per_second`` = ``units_per_call`` / median (steps, samples or curve points per second).
    """
    base = None if reference is None else timings[reference].median
    rows = []
    for name in implementations or tuple(timings):
        timing = timings[name]
        rows.append(
            {
                "benchmark": benchmark,
                "case": case,
                "model": model,
                "batch_size": batch_size,
                "runs": runs,
                "implementation": name,
                "reference": reference or "",
                "median_seconds": timing.median,
                "iqr_seconds": timing.iqr,
                "repeats": timing.repeats,
                "units_per_second": units_per_call / timing.median if timing.median > 0 else math.inf,
                "unit": unit,
                "ratio_vs_reference": math.nan if base is None else timing.median / base,
            }
        )
    return rows
