"""Figures of the bounded-local-sensitivity (``ext_ptr``) and mode-release (``ext_mode_release``) experiments, drawn
only from their tidy frames."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.style import EXTENSION_NOTE, figure, footer, legend_above, legend_beside

__all__ = ["plot_ptr", "plot_mode_release", "PTR_STYLES", "MODE_STYLES"]

PTR_STYLES = {
    "alg11_purified": ("C3", "o-", "Alg. 11 purified (pure)"),
    "alg10_ptr_purified_margin": ("C1", "s-", "Alg. 10 PTR purified, margin β (pure)"),
    "alg10_ptr_purified": ("C1", "s:", "Alg. 10 PTR purified, proposed β (pure)"),
    "gs_laplace": ("C0", "^-", "global-sensitivity Laplace (pure)"),
    "smooth_sensitivity": ("C2", "D-", "NRS07 smooth sensitivity (pure)"),
    "alg11_before_purification": ("C5", "x:", "Alg. 11 before purification (not pure)"),
    "alg11_reference": ("0.4", "x--", "Alg. 11 at δ_ref (not pure)"),
    "alg9_ptr_reference_margin": ("0.6", "+--", "Alg. 9 PTR at δ_ref, margin β (not pure)"),
}

MODE_STYLES = {
    "alg12_corrected_uniform": ("C3", "o-", "Alg. 12, δ corrected, ⊥ uniform"),
    "alg12_corrected_reserved": ("C3", "s--", "Alg. 12, δ corrected, ⊥ reserved code"),
    "alg12_as_printed_uniform": ("C1", "o:", "Alg. 12, δ as printed, ⊥ uniform"),
    "alg12_as_printed_reserved": ("C1", "s:", "Alg. 12, δ as printed, ⊥ reserved"),
    "distance_uniform_bottom": ("C4", "v-", "distance + uniform ⊥, no Alg. 2 (pure, ext.)"),
    "report_noisy_max": ("C0", "^-", "report-noisy-max Lap(2/ε)"),
    "exponential_mechanism": ("C2", "D-", "exponential mechanism"),
    "distance_reference": ("0.4", "x--", "distance at δ_ref (not pure)"),
}

#: Drawn wide and pale, under the others: report-noisy-max and the exponential mechanism select the mode with the
#: same probability in most panels, and the thin line drawn first would otherwise be hidden.
MODE_UNDERLAID = {"report_noisy_max": {"lw": 4.0, "alpha": 0.45, "ms": 5}}


def plot_ptr(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Median absolute error of the triangle count (mean over graphs) against n_v, one panel per ε_tot, at the
    densest p; second row: refusal rate of the PTR variants."""
    eps_values = sorted(data["epsilon_total"].unique())
    p = max(data["edge_probability"])
    fig, axes = figure(2, len(eps_values), width=3.0, height=2.6)
    part = data[data["edge_probability"] == p]
    summary = part.groupby(["method", "epsilon_total", "n_vertices"])[["median_abs_error", "refusal_rate"]].mean()
    for col, eps in enumerate(eps_values):
        ax, ax_refuse = axes[0][col], axes[1][col]
        for method, (colour, style, label) in PTR_STYLES.items():
            if (method, eps) not in summary.index.droplevel(2):
                continue
            rows = summary.loc[(method, eps)].reset_index()
            ax.plot(rows["n_vertices"], rows["median_abs_error"], style, color=colour, ms=3, label=label)
            if "ptr" in method:
                ax_refuse.plot(rows["n_vertices"], rows["refusal_rate"], style, color=colour, ms=3, label=label)
        nvs = sorted(part["n_vertices"].unique())
        for a in (ax, ax_refuse):
            a.set_xscale("log")
            a.set_xticks(nvs, [str(n) for n in nvs])
            a.minorticks_off()
        ax.set_yscale("log")
        ax.set_xlabel("$n_v$")
        ax.set_ylabel("median |error| (triangles)")
        ax.set_title(f"$\\varepsilon_{{tot}}$ = {eps:g}, p = {p:g}")
        ax_refuse.set_ylim(-0.05, 1.05)
        ax_refuse.set_xlabel("$n_v$")
        ax_refuse.set_ylabel("refusal rate")
    legend_beside(axes[0][-1])
    legend_beside(axes[1][-1])
    footer(
        fig,
        f"{EXTENSION_NOTE}. Triangle counts in G($n_v$, p), edge add/remove; {params['graphs']} graphs x "
        f"{params['draws']} draws per point; purified methods use ε = ε' = ε_tot/3 with Theorem 11's ω, δ.",
    )
    return fig


def plot_mode_release(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """P(output = mode) against the gap occ₁ − occ₂ (mean ± s.e. over replicates), one panel per (layout, bits)."""
    layouts = list(dict.fromkeys(data["layout"]))
    bits = sorted(data["bits"].unique())
    fig, axes = figure(len(layouts), len(bits), width=2.6, height=2.4)
    summary = data.groupby(["layout", "bits", "method", "gap"])["success_rate"].agg(["mean", "sem"]).reset_index()
    for r, layout in enumerate(layouts):
        for c, d in enumerate(bits):
            ax = axes[r][c]
            for method, (colour, style, label) in MODE_STYLES.items():
                rows = summary[(summary["layout"] == layout) & (summary["bits"] == d) & (summary["method"] == method)]
                if len(rows):
                    ax.errorbar(
                        rows["gap"],
                        rows["mean"],
                        yerr=np.nan_to_num(rows["sem"]),
                        fmt=style,
                        color=colour,
                        label=label,
                        **{"ms": 2.5, "lw": 1.0, **MODE_UNDERLAID.get(method, {})},
                    )
            ax.axhline(
                params["success_level"], color="k", lw=0.5, ls=":", label=f"success level {params['success_level']:g}"
            )
            ax.set_xscale("symlog", linthresh=10)
            ax.set_xlim(left=0)
            ax.set_ylim(-0.03, 1.03)
            ax.set_xlabel("gap occ$_1$ - occ$_2$")
            ax.set_ylabel("P(output = mode)")
            ax.set_title(f"$|X| = 2^{{{d}}}$, {layout.replace('_', ' ')}", fontsize=8)
    footer(
        fig,
        f"{EXTENSION_NOTE}. ε_tot = {params['epsilon_total']:g} (Alg. 12 at ε = ε_tot/2), replace-one; "
        f"{params['seeds']} x {params['trials']} trials per point; 'uniform rest': other items share the "
        f"remaining records, 'all runner up': every other item at the runner-up count.",
    )
    legend_above(fig, axes[0][0], ncol=3)
    return fig
