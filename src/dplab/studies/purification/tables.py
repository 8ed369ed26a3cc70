"""Readable summaries of the purification study's long tables (their Markdown; the CSVs keep every row)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["summarise_exact_audit", "summarise_mode_release_audit", "summarise_alg11_dimension"]

TREATMENTS = {"none": "none", "mixing_only": "mixing only", "laplace_only": "Laplace only", "full": "full purification"}


def _treatment_name(treatment: str) -> str:
    """``full_scale_x0.5`` -> ``full, Laplace scale × 0.5``; the four main treatments by :data:`TREATMENTS`."""
    if treatment.startswith("full_scale_x"):
        return f"full, Laplace scale × {treatment.removeprefix('full_scale_x')}"
    return TREATMENTS.get(treatment, treatment)


def _within_bound(group: pd.DataFrame) -> str:
    """How many configurations of a group have ε∞ within their bound (to 1e-9 relative), or ``no bound`` when no
    configuration has a finite one."""
    bounded = group[np.isfinite(group["bound"])]
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
        rows.append(
            {
                "mechanism": mechanism,
                "treatment": _treatment_name(treatment),
                "configurations": len(group),
                "finite ε∞": f"{int(finite.sum())} of {len(group)}",
                "largest ε∞": float(group["epsilon_inf"].max()),
                "largest ε∞ / (ε + ε′)": float(ratio.max()) if ratio.notna().any() else np.nan,
                "ε∞ ≤ ε + ε′": _within_bound(group),
            }
        )
    return pd.DataFrame(rows)


def summarise_mode_release_audit(frame: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (treatment, δ rule, ⊥ encoding) of the mode-release audit; per universe size |X| the largest
    exact ε∞ over both enumerations (reduced and exhaustive); then the bound and whether every configuration of the
    row respects it."""
    rows = []
    keys = ["treatment", "delta_rule", "bottom"]
    for (treatment, rule, bottom), group in frame.groupby(keys, sort=False):
        row: dict[str, Any] = {
            "treatment": treatment.replace("_", " "),
            "δ rule": rule.replace("_", " "),
            "⊥ encoding": bottom,
        }
        for size, part in group.groupby("universe_size", sort=True):
            row[f"largest ε∞, |X| = {size}"] = float(part["epsilon_inf"].max())
        bounds = sorted(group["bound"].unique())
        row["bound"] = ", ".join(f"{b:g}" if np.isfinite(b) else "none" for b in bounds)
        row["within bound"] = _within_bound(group)
        rows.append(row)
    return pd.DataFrame(rows)


def summarise_alg11_dimension(frame: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (Δ_Local, d) of Algorithm 11's Laplace-step table: the exact pure ε of the step as printed (scale
    β̂/ε, at β̂ = Δ_Local) and corrected (√d·β̂/ε), the composition ε + ε_step + ε′ of the proof of Theorem 11 with
    the printed step against Theorem 5's 3ε, and the bracket on the printed step's δ(ε) relative to the proof's δ."""
    printed = frame[frame["rule"] == "as_printed"].set_index(["local_sensitivity", "d"])
    corrected = frame[frame["rule"] == "corrected"].set_index(["local_sensitivity", "d"])
    return pd.DataFrame(
        {
            "Δ_Local": printed.index.get_level_values(0),
            "d": printed.index.get_level_values(1),
            "pure ε of the step, Lap(β̂/ε) (printed)": printed["epsilon_step"].to_numpy(),
            "pure ε, Lap(√d β̂/ε) (corrected)": corrected["epsilon_step"].to_numpy(),
            "claimed ε": printed["claimed_step"].to_numpy(),
            "ε + step + ε′ (printed; upper bound)": printed["composition_bound"].to_numpy(),
            "Theorem 5": printed["theorem5_claimed"].to_numpy(),
            "δ_step(ε)/δ printed, lower": printed["delta_ratio_lower"].to_numpy(),
            "δ_step(ε)/δ printed, upper": printed["delta_ratio_upper"].to_numpy(),
            "δ_step(ε)/δ corrected, upper": corrected["delta_ratio_upper"].to_numpy(),
        }
    )
