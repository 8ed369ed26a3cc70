"""Readable summaries of the purification study's long tables (their Markdown; the CSVs keep every row)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["summarise_exact_audit"]

TREATMENTS = {"none": "none", "mixing_only": "mixing only", "laplace_only": "Laplace only",
              "full": "full purification"}


def _treatment_name(treatment: str) -> str:
    """``full_scale_x0.5`` -> ``full, Laplace scale × 0.5``; the four main treatments by :data:`TREATMENTS`."""
    if treatment.startswith("full_scale_x"):
        return f"full, Laplace scale × {treatment.removeprefix('full_scale_x')}"
    return TREATMENTS.get(treatment, treatment)


def _within_bound(group: pd.DataFrame) -> str:
    """How many configurations of a group have ε∞ ≤ ε + ε′ (to 1e-9 relative), or ``no bound``."""
    bounded = group[group["bound"].notna()]
    if bounded.empty:
        return "no bound"
    inside = int((bounded["epsilon_inf"] <= bounded["bound"] * (1 + 1e-9)).sum())
    return "all" if inside == len(bounded) else f"{inside} of {len(bounded)}"


def summarise_exact_audit(frame: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (mechanism, treatment) of the exact audit: how many (ε, δ, ω, ε′) configurations, how many have a
    finite pure ε∞, the largest ε∞, the largest ratio ε∞ / (ε + ε′) where Theorem 1's bound applies, and how many
    configurations respect it. Rows in the table's own order."""
    rows = []
    for (mechanism, treatment), group in frame.groupby(["mechanism", "treatment"], sort=False):
        finite = np.isfinite(group["epsilon_inf"])
        ratio = (group["epsilon_inf"] / group["bound"]).where(group["bound"].notna())
        rows.append({
            "mechanism": mechanism,
            "treatment": _treatment_name(treatment),
            "configurations": len(group),
            "finite ε∞": f"{int(finite.sum())} of {len(group)}",
            "largest ε∞": float(group["epsilon_inf"].max()),
            "largest ε∞ / (ε + ε′)": float(ratio.max()) if ratio.notna().any() else np.nan,
            "ε∞ ≤ ε + ε′": _within_bound(group),
        })
    return pd.DataFrame(rows)
