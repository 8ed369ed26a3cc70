"""Figures of the pre-processing study, each drawn only from its tidy data file (no computation here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.style import EXTENSION_NOTE, figure, footer

__all__ = ["plot_fig2", "plot_fig3", "plot_ext_fig3_regimes"]

STYLES = {"srdp_table2": "-", "group_privacy": "--", "srdp_theorem2_optimised": ":"}
LABELS = {"nonprivate_pca": "(a) non-private PCA, Table-2 budget", "dp_pca": "(b) DP-PCA, half budget",
          "no_preprocessing": "(c) no pre-processing",
          "nonprivate_pca_unconstrained": "(a) variant: unconstrained DP-GD (Song et al.)",
          "nonprivate_pca_dim": "(a) ablation: dimension reduction, 2τ"}
LINES = {"nonprivate_pca_unconstrained": "--", "nonprivate_pca_dim": ":"}
TITLES = {"a": "(a) Quantization", "b": "(b) Mean imputation", "c": "(c) PCA rank reduction"}


def _footer(fig, text: str) -> None:
    """The project footer (:func:`dplab.report.style.footer`) with this module's strip and font size."""
    footer(fig, text, strip=0.08, fontsize=7.0)


def plot_fig2(frame: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """ε_DP against η, p/n and n: SRDP (solid, Table 2; dotted, optimised Theorem 2) vs group privacy (dashed)."""
    fig, axes = figure(1, 3, width=3.4, height=2.8)
    for ax, panel in zip(axes[0], ("a", "b", "c")):
        part = frame[frame["panel"] == panel]
        for colour, (setting, sub) in enumerate(part.groupby("setting", sort=False)):
            for method, curve in sub.groupby("method", sort=False):
                ax.plot(curve["x"], curve["epsilon_dp"], STYLES[method], color=f"C{colour}", label=f"{setting}, {method}")
        ax.set_yscale("log")
        if panel in ("a", "c"):
            ax.set_xscale("log")
        ax.set_xlabel(part["x_name"].iloc[0])
        ax.set_title(TITLES[panel])
        ax.legend(fontsize=5)
    axes[0][0].set_ylabel("overall $\\varepsilon$ ($\\delta$ = %g)" % params["delta"])
    _footer(fig, f"Gaussian mechanism, $\\Delta_f$ = L = 1, $\\varepsilon$ = {params['eps']}, $\\delta$ = {params['delta']}; "
                 "solid: Table 2 (α ≥ 11), dotted: Theorem 2 optimised over p = q and α, dashed: group privacy (m = Δ∞).")
    return fig


def _errorbars(ax, frame: pd.DataFrame) -> None:
    for method in LABELS:
        sel = frame[(frame["method"] == method) & frame["selected"]]
        if sel.empty:
            continue
        stats = sel.groupby("epsilon")["excess_risk"].agg(["mean", "std", "count"]).reset_index()
        ax.errorbar(stats["epsilon"], stats["mean"], yerr=stats["std"] / np.sqrt(stats["count"]), marker="o",
                    ms=3, capsize=2, linestyle=LINES.get(method, "-"), label=LABELS[method])
    ax.set_xscale("log")
    ax.set_xlabel("overall $\\varepsilon$")


def plot_fig3(frame: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Excess empirical risk (mean ± standard error over seeds) against overall ε, per method."""
    fig, axes = figure(1, 1, width=4.4, height=3.2)
    _errorbars(axes[0][0], frame)
    axes[0][0].set_ylabel("excess empirical risk")
    axes[0][0].legend()
    _footer(fig, f"n = {params['n']}, d = {params['d']}, k = {params['k']}, gap = {frame['gap'].iloc[0]:.3f}, "
                 f"$\\delta$ = {params['delta']}, {params['seeds']} seeds; DP-GD, (T, lr) per method and ε = the grid "
                 "point with the smallest mean excess risk (non-private selection). Excess risk is measured against "
                 "the minimiser over ||θ|| ≤ R; the unconstrained variant leaves that ball, so it can go below 0.")
    return fig


def plot_ext_fig3_regimes(frame: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """One panel per regime (d/n, k, gap): the Fig. 3 comparison."""
    regimes = sorted(frame["regime"].unique())
    fig, axes = figure(1, len(regimes), width=3.0, height=2.8, sharey=True)
    for ax, regime in zip(axes[0], regimes):
        part = frame[frame["regime"] == regime]
        _errorbars(ax, part)
        row = part.iloc[0]
        ax.set_title(f"d/n={row['d_over_n']:.2g}, k={row['k']}, gap={row['gap']:.2f}")
    axes[0][0].set_ylabel("excess empirical risk")
    axes[0][-1].legend(fontsize=5)
    _footer(fig, f"{EXTENSION_NOTE}. Same protocol as fig3 over regimes.")
    return fig
