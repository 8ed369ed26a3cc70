"""Figures of the pre-processing study, each drawn only from its tidy data file (no computation here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from dplab.report.style import (
    EXTENSION_NOTE,
    figure,
    footer,
    label,
    legend_above,
    legend_below,
    legend_beside,
    readable_log_axis,
)

__all__ = ["plot_fig2", "plot_fig3", "plot_ext_fig3_regimes"]

STYLES = {"srdp_table2": "-", "group_privacy": "--", "srdp_theorem2_optimised": ":", "srdp_theorem2_separate_pq": "-."}
#: Legend names of Fig. 2's methods that :func:`dplab.report.style.label` does not name.
METHOD_LABELS = {
    "srdp_theorem2_optimised": "SRDP, Theorem 2, p = q optimised",
    "srdp_theorem2_separate_pq": "SRDP, Theorem 2, p and q separately (extension)",
}
LABELS = {
    "nonprivate_pca": "(a) non-private PCA, Table-2 budget",
    "dp_pca": "(b) DP-PCA, half budget",
    "no_preprocessing": "(c) no pre-processing",
    "nonprivate_pca_dim": "(a) ablation: dimension reduction, 2τ",
}
LINES = {"nonprivate_pca_dim": ":"}
PROTOCOL_TITLES = {
    "dp_gd_full_batch": "full-batch DP-GD (Table 1 DP-GD row)",
    "dp_sgd_poisson": "Poisson DP-SGD, q = {rate:.3g} (Table 1/2 SGD rows)",
}
TITLES = {"a": "(a) Quantization", "b": "(b) Mean imputation", "c": "(c) PCA rank reduction"}


def _setting_label(setting: str) -> str:
    """A data file's setting (e.g. ``gap=0.5, tau=12.2/gap``) as a legend entry (``gap = 0.5, τ = 12.2/gap``)."""
    return setting.replace("tau", "τ").replace("=", " = ")


def _setting_independent_methods(part: pd.DataFrame) -> list[str]:
    """The methods whose curve is the same (to 1e-9 relative) for every setting of a panel: drawn once per
    setting, only the last is visible, so the footer says so."""
    if part["setting"].nunique() < 2:
        return []
    curves = part.pivot_table(index=["method", "x"], columns="setting", values="epsilon_dp")
    spread = curves.max(axis=1) / curves.min(axis=1) - 1.0
    return [method for method, worst in spread.groupby(level="method").max().items() if worst < 1e-9]


def plot_fig2(frame: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """ε_DP against η, p/n and n: SRDP (solid, Table 2; dotted, optimised Theorem 2 with p = q; dash-dot, with p and q
    optimised separately, an extension) vs group privacy (dashed).

    Colours are the panel's settings (a legend under each panel), line styles the methods (one legend above)."""
    fig, axes = figure(1, 3, width=3.4, height=2.8)
    for ax, panel in zip(axes[0], ("a", "b", "c")):
        part = frame[frame["panel"] == panel]
        for colour, (setting, sub) in enumerate(part.groupby("setting", sort=False)):
            for method, curve in sub.groupby("method", sort=False):
                ax.plot(curve["x"], curve["epsilon_dp"], STYLES[method], color=f"C{colour}")
            ax.plot([], [], color=f"C{colour}", lw=4, label=_setting_label(setting))
        ax.set_yscale("log")
        if panel in ("a", "c"):
            ax.set_xscale("log")
        ax.set_xlabel(label(part["x_name"].iloc[0]))
        ax.set_title(TITLES[panel])
        legend_below(ax, ncol=2, title="colour: setting")
    axes[0][0].set_ylabel(f"overall $\\varepsilon$ ($\\delta$ = {params['delta']:g})")
    shared = [
        f"in ({panel}) the {label(method)} curve is the same for every setting (drawn once per colour, the last on top)"
        for panel in TITLES
        for method in _setting_independent_methods(frame[frame["panel"] == panel])
    ]
    footer(
        fig,
        f"Gaussian mechanism, $\\Delta_f$ = L = 1, $\\varepsilon$ = {params['eps']}, "
        f"$\\delta$ = {params['delta']}; solid: Table 2 (α ≥ 11), dotted: Theorem 2 optimised over p = q "
        "and α, dash-dot: Theorem 2 with p and q optimised separately (its proof bounds each direction with its own "
        f"exponent; {EXTENSION_NOTE.lower()}), dashed: group privacy (m = Δ∞)"
        + "".join(f"; {note}" for note in shared)
        + ".",
    )
    methods = [
        Line2D([], [], ls=style, color="0.2", label=METHOD_LABELS.get(method, label(method)))
        for method, style in STYLES.items()
    ]
    fig.legend(
        handles=methods, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(STYLES), title="line style: method"
    )
    return fig


def _errorbars(ax, frame: pd.DataFrame) -> None:
    """Mean ± standard error over seeds of the selected (T, lr), per compared method (:data:`LABELS`; the
    unconstrained variant of (a) is not drawn: its excess risk is not measured against its own minimiser)."""
    for method in LABELS:
        sel = frame[(frame["method"] == method) & frame["selected"]]
        if sel.empty:
            continue
        stats = sel.groupby("epsilon")["excess_risk"].agg(["mean", "std", "count"]).reset_index()
        ax.errorbar(
            stats["epsilon"],
            stats["mean"],
            yerr=stats["std"] / np.sqrt(stats["count"]),
            marker="o",
            ms=3,
            capsize=2,
            linestyle=LINES.get(method, "-"),
            label=LABELS[method],
        )
    ax.set_xscale("log")
    readable_log_axis(ax, "x", ticks=sorted(frame["epsilon"].unique()))
    ax.set_xlabel("overall $\\varepsilon$")


def plot_fig3(frame: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Excess empirical risk (mean ± standard error over seeds) against overall ε, per method: one panel per
    protocol (full-batch DP-GD, Poisson DP-SGD), sharing the y axis; one legend above the panels."""
    protocols = list(dict.fromkeys(frame["protocol"]))
    fig, axes = figure(1, len(protocols), width=3.6, height=3.0, sharey=True)
    for ax, protocol in zip(axes[0], protocols):
        part = frame[frame["protocol"] == protocol]
        _errorbars(ax, part)
        ax.set_title(PROTOCOL_TITLES[protocol].format(rate=part["sampling_rate"].iloc[0]))
    axes[0][0].set_ylabel("excess empirical risk")
    footer(
        fig,
        f"n = {params['n']}, d = {params['d']}, k = {params['k']}, gap = {frame['gap'].iloc[0]:.3f}, "
        f"$\\delta$ = {params['delta']}, {params['seeds']} seeds; (T, lr) per protocol, method and ε = the grid "
        "point with the smallest mean excess risk (non-private selection). All methods drawn are projected onto "
        "||θ|| ≤ R and measured against the minimiser over that ball; the unconstrained variant of (a) (Song et "
        "al.) is in the data but not drawn or judged. DP-SGD noise: Theorem 13's σ at rate q with c = 4/(1−q) "
        "(the corrected factor 2 of eq. (18)).",
    )
    legend_above(fig, axes[0][0], ncol=2)
    return fig


def plot_ext_fig3_regimes(frame: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """One panel per regime (d/n, k, gap): the Fig. 3 comparison."""
    regimes = sorted(frame["regime"].unique())
    fig, axes = figure(1, len(regimes), width=3.0, height=2.8, sharey=True)
    for ax, regime in zip(axes[0], regimes):
        part = frame[frame["regime"] == regime]
        _errorbars(ax, part)
        row = part.iloc[0]
        ax.set_title(f"d/n = {row['d_over_n']:.2g}, k = {row['k']}\ngap = {row['gap']:.2f}")
    axes[0][0].set_ylabel("excess empirical risk")
    legend_beside(axes[0][-1])
    footer(fig, f"{EXTENSION_NOTE}. The full-batch DP-GD protocol of fig3 over regimes.")
    return fig
