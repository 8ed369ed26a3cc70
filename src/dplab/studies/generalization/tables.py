"""Readable summaries of the generalization study's wide tables (their Markdown; the CSVs keep every column)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["summarise_composition", "summarise_empirical", "summarise_sgld"]


def _bound_cell(value: float, vacuous: object) -> str:
    """A bound as printed in the summary: 3 significant digits, marked when vacuous; ``no bound`` when there is none
    (σ = 0: no privacy, so no bound)."""
    if not np.isfinite(value):
        return "no bound"
    return f"{value:.3g}" + (" (vacuous)" if str(vacuous).lower() in ("true", "1", "1.0") else "")


def _interval_cell(row: pd.Series, mean: str, low: str, high: str) -> str:
    """A mean with its confidence interval, e.g. ``0.028 [0.021, 0.035]``."""
    return f"{row[mean]:.2g} [{row[low]:.2g}, {row[high]:.2g}]"


def summarise_empirical(frame: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """T4 as a paper would print it: at the reference number of steps T (``params['reference_t']``), one row per
    (N, σ): the training sets and runs behind each mean; for each dimension d the signed gap E[R − R̂] with its
    interval over training sets and its paired change from the smallest σ; then the two bounds of the valid variant
    (they do not depend on d), marked when vacuous."""
    at_t = frame[frame["t"] == params["reference_t"]]
    smallest = at_t.groupby("n")["sigma"].min()
    rows = []
    for (n, sigma), group in at_t.groupby(["n", "sigma"], sort=True):
        group_sigma_min = smallest[n]
        first = group.iloc[0]
        row: dict[str, Any] = {
            "N": int(n),
            "σ": float(sigma),
            "T": int(params["reference_t"]),
            "sets × runs": f"{int(first['datasets'])} × {int(first['replicates']) // int(first['datasets'])}",
        }
        for d, part in group.groupby("d", sort=True):
            entry = part.iloc[0]
            row[f"E[R − R̂] [CI], d = {d}"] = _interval_cell(entry, "mean_gap", "gap_ci_low", "gap_ci_high")
            row[f"change from smallest σ [CI], d = {d}"] = (
                "reference"
                if sigma == group_sigma_min
                else _interval_cell(entry, "gap_change", "gap_change_ci_low", "gap_change_ci_high")
            )
        row["Thm 1 HP bound (valid)"] = _bound_cell(float(first["hp_bound_valid"]), first["hp_vacuous_valid"])
        row["Thm 2 on-average bound (valid)"] = _bound_cell(
            float(first["on_average_valid"]), first["on_average_vacuous_valid"]
        )
        rows.append(row)
    summary = pd.DataFrame(rows)
    summary.attrs["note"] = (
        f"E[R − R̂]: mean signed gap (exact risk minus training 0-1 error) over independent training sets, each set's "
        f"mean over its runs one observation; [CI]: {params['confidence']:.0%} Student-t interval over the sets. The "
        "change from the smallest σ is paired (every σ trains on the same sets). The full table (errors, |gap|, "
        "effective sample size, coverage, every T) is the CSV."
    )
    return summary


def summarise_sgld(frame: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """T3 as a paper would print it: at the reference number of steps T (``params['reference_t']``), one row per
    (N, σ), the two variants side by side: ε′, the Thm 1 high-probability bound (marked when vacuous) and the exact
    δ of one SGLD step at the variant's ε̃ (to compare with the per-step δ the variant assumes)."""
    at_t = frame[frame["t"] == params["reference_t"]]
    rows = []
    for (n, sigma), group in at_t.groupby(["n", "sigma"], sort=True):
        row: dict[str, Any] = {"N": int(n), "σ": float(sigma), "T": int(params["reference_t"])}
        for variant, name in (("as_printed", "as printed"), ("valid", "valid")):
            part = group[group["variant"] == variant]
            if part.empty:
                continue
            first = part.iloc[0]
            row[f"ε′ ({name})"] = f"{first['eps_prime']:.3g}"
            row[f"Thm 1 HP bound ({name})"] = _bound_cell(float(first["hp_bound"]), first["hp_vacuous"])
            row[f"exact step δ ({name})"] = f"{first['step_delta_exact']:.2g}"
        rows.append(row)
    return pd.DataFrame(rows)


#: The methods of T2's summary, in the order printed: KOV's certificate, the paper's, the exact optimum, the floor.
COMPOSITION_COLUMNS = {
    "kov": "KOV / Thm 4",
    "cor2": "Cor. 2",
    "cor3_corrected": "Cor. 3 corrected",
    "cor3_as_printed": "Cor. 3 as printed",
    "optimal_at_kov_eps": "exact optimum",
    "lower_bound": "lower bound",
}
IMPOSSIBLE = "✗"


def summarise_composition(frame: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """T2 as a paper would print it: one row per step (ε, δ) and number of steps T; the ε′ of KOV (Thm 4), then
    the δ′ each method certifies (:data:`COMPOSITION_COLUMNS`), marked :data:`IMPOSSIBLE` where it lies below the
    exact optimum (no valid theorem can certify it). DRV, basic composition and the other variants stay in the CSV."""
    rows = []
    for (eps, delta, t), group in frame.groupby(["epsilon_step", "delta_step", "t"], sort=True):
        by_method = group.set_index("method")
        row: dict[str, Any] = {"step ε": float(eps), "step δ": float(delta), "T": int(t)}
        if "kov" in by_method.index:
            row["ε′ (KOV)"] = f"{by_method.loc['kov', 'eps_prime']:.4g}"
        for method, name in COMPOSITION_COLUMNS.items():
            if method in by_method.index:
                entry = by_method.loc[method]
                flag = str(entry["below_optimal"]).lower() in ("true", "1", "1.0")
                row[f"δ′ {name}"] = f"{entry['delta_prime']:.4g}" + (f" {IMPOSSIBLE}" if flag else "")
        rows.append(row)
    summary = pd.DataFrame(rows)
    summary.attrs["note"] = (
        f"{IMPOSSIBLE}: below the exact optimal δ′ at that ε′, so impossible for any valid "
        "theorem. Each method's own ε′ is in the CSV (Cor. 3 uses its own)."
    )
    return summary
