"""Figure of the purified DP Frank-Wolfe experiment (``ext_frank_wolfe``), drawn only from its tidy frame: excess risk
against n with Theorem 4's rate and Lemma 30's lower bound (left), and Algorithm 7's purification step (right)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.style import EXTENSION_NOTE, figure, footer
from dplab.studies.purification.plots import BEFORE_PURIFICATION

__all__ = ["plot_frank_wolfe"]

FW_STYLES = {
    "purified_fw": ("C3", "o-", "purified DP-FW (Alg. 7, pure)"),
    "dp_fw_before_purification": ("C5", "o:", "its θ_FW, Alg. 6 at purification δ (not pure)"),
    "dp_fw_reference": ("0.4", "x--", "Alg. 6 at δ = 1/n² (not pure)"),
    "pure_fw_basic": ("C0", "^-", "pure FW, basic composition"),
    "nonprivate_fw": ("C2", "s-", "non-private FW (Alg. 5)"),
}
PURIFICATION_STYLES = {
    "output_l1_error": ("C3", "o-", "‖θ_out − θ_FW‖₁"),
    "loss_gap": ("C1", "d-", "|ℒ(θ_out) − ℒ(θ_FW)|"),
    "noise_l1": ("C4", "v-", "‖z‖₁ (Alg. 1 noise)"),
    "tolerance": ("C4", ":", "ξ of eq. (14)"),
    "purification_bound_printed": ("k", "--", "(64/√3)L₁‖C‖₁(k + log n)/(nε), eq. (15)"),
}


def _excess_panel(ax: Any, part: pd.DataFrame) -> None:
    summary = part.groupby(["method", "n"])["excess_risk"].agg(["mean", "sem"]).reset_index()
    for method, (colour, style, label) in FW_STYLES.items():
        rows = summary[summary["method"] == method].sort_values("n")
        marker = BEFORE_PURIFICATION if method == "dp_fw_before_purification" else {"ms": 3}
        ax.errorbar(rows["n"], rows["mean"], yerr=rows["sem"], fmt=style, color=colour, lw=1, label=label, **marker)
    per_n = part.groupby("n")[["theorem4_rate", "lemma30_lower_bound", "zero_excess_risk"]].first()
    ax.plot(per_n.index, per_n["theorem4_rate"], color="k", ls="--", lw=0.8, label="Thm 4 rate √(L₁β‖C‖₁³/(nε))")
    ax.plot(per_n.index, per_n["lemma30_lower_bound"], color="0.6", ls="-.", lw=0.8, label="Lemma 30 lower bound")
    ax.plot(per_n.index, per_n["zero_excess_risk"], color="0.3", ls=":", lw=0.8, label="θ = 0")
    ax.set(xscale="log", yscale="log", xlabel="n", ylabel="excess empirical risk")


def _purification_panel(ax: Any, part: pd.DataFrame) -> None:
    purified = part[part["method"] == "purified_fw"].assign(loss_gap=lambda f: f["loss_gap"].abs())
    for column, (colour, style, label) in PURIFICATION_STYLES.items():
        summary = purified.groupby("n")[column].agg(["mean", "sem"])
        ax.errorbar(
            summary.index, summary["mean"], yerr=summary["sem"], fmt=style, color=colour, lw=1, ms=3, label=label
        )
    ax.set(xscale="log", yscale="log", xlabel="n", ylabel="Alg. 7 purification step")


def plot_frank_wolfe(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Left column: mean ± s.e. excess risk of every method against n (one row of panels per d, ε_tot the first
    configured); right column: the purification step's errors against eq. (14)'s ξ and eq. (15)'s bound."""
    ds = sorted(data["d"].unique())
    eps = float(params["epsilons_total"][0])
    fig, axes = figure(len(ds), 2, width=5.0, height=2.8)
    for row, d in zip(axes, ds):
        part = data[(data["d"] == d) & (data["epsilon_total"] == eps)]
        _excess_panel(row[0], part)
        _purification_panel(row[1], part)
        row[0].set_title(f"d = {d}, ε_tot = {eps:g}", fontsize=8)
        row[1].set_title(f"Algorithm 7, ε = ε_tot/2 = {eps / 2:g}", fontsize=8)
    for ax in axes[0]:  # above each column, clear of the panels' titles: a legend never covers data
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.12), ncol=2, fontsize=7)
    footer(
        fig,
        f"{EXTENSION_NOTE}. x ~ U[-1,1]^d, {params['sparsity']}-sparse θ*, ‖θ*‖₁ = 1, squared loss on the unit ℓ1 ball "
        f"(L₁ = 2, β = 1); T = ⌈√(β‖C‖₁nε/L₁)⌉, k = min(d, ⌈T log(d/T) + log n⌉); {params['replicates']} runs per "
        "point, mean ± s.e.; rate and lower bound with constants and logs set to 1 (Lemma 30 bounds the worst "
        "instance, not this one).",
    )
    return fig
