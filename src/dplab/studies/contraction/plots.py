"""Figures of the contraction study, each drawn only from its tidy data file (no computation here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.style import EXTENSION_NOTE, figure, footer, legend_above, legend_below, legend_beside

__all__ = [
    "plot_audit",
    "plot_delta_curves",
    "plot_laplace",
    "plot_random_stopping",
    "plot_regime",
    "plot_utility",
]

LOG10_FLOOR = -40.0
METHOD_LABELS = {
    "thm4": "Thm 4 ($E_\\gamma$ contraction)",
    "prop1": "Prop. 1 (RDP$\\to$DP, Balle et al.)",
    "thm3": "Thm 3 (Laplace)",
}
COLOURS = ("C0", "C1", "C2", "C3", "C4", "C5", "C6")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


#: The certified epsilons of the utility figure: the first user's curve is drawn wide and pale under the others,
#: because it equals the middle user's at most noise scales and would otherwise be hidden.
UTILITY_EPSILONS = {
    "epsilon_thm_first": {"color": "C0", "lw": 5.0, "alpha": 0.35, "marker": "s", "ms": 7},
    "epsilon_thm_middle": {"color": "C1", "ls": "-", "marker": "o", "ms": 3},
    "epsilon_thm_last": {"color": "C2", "ls": "-", "marker": "^", "ms": 4},
    "epsilon_prop1_middle": {"color": "C3", "ls": "--", "marker": "o", "ms": 3},
    "epsilon_thm5": {"color": "C4", "ls": ":", "marker": "o", "ms": 3},
}
UTILITY_LABELS = {
    "epsilon_thm_first": "Thm, first user",
    "epsilon_thm_middle": "Thm, middle user",
    "epsilon_thm_last": "Thm, last user",
    "epsilon_prop1_middle": "Prop. 1, middle user",
    "epsilon_thm5": "Thm 5 (random stop)",
}


def _delta_for_log_axis(log10_delta: pd.Series) -> np.ndarray:
    """delta for a log axis: values below the floor (including exact zeros) are drawn at the floor."""
    return 10.0 ** np.maximum(log10_delta.to_numpy(dtype=float), LOG10_FLOOR)


def plot_delta_curves(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Figures 2 and 3: delta against epsilon on a log axis, one panel per position i."""
    positions = sorted(data["i"].unique())
    fig, axes = figure(1, len(positions), sharey=True)
    for ax, i in zip(axes[0], positions, strict=True):
        panel = data[data["i"] == i]
        for method, style in (("thm4", "-"), ("prop1", "--")):
            curve = panel[panel["method"] == method]
            ax.semilogy(curve["epsilon"], _delta_for_log_axis(curve["log10_delta"]), style, label=METHOD_LABELS[method])
        ax.set_title(f"i = {i}")
        ax.set_xlabel("$\\varepsilon$")
        ax.set_ylim(10.0**LOG10_FLOOR, 1.5)
    axes[0][0].set_ylabel("$\\delta$")
    p = params
    footer(
        fig,
        f"n = {p['n']}, $\\sigma$ = {p['sigma']}, L = {p['L']}, $\\beta$ = {p['beta_smooth']}, "
        f"$\\rho$ = {p['rho']}, $\\eta$ = {p['lr']}, $D_K$ = {p['diameter']}. Values below 1e-40 drawn at "
        "1e-40 (exact values in the data file).",
    )
    legend_above(fig, axes[0][0], ncol=2)
    return fig


def plot_laplace(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Theorem 3: delta against epsilon per position, one panel per step size, with each position's pure-DP
    threshold (dotted) and the paper's corollary (dashed), which is wrong for i = n when the two differ."""
    lrs = sorted(data["lr"].unique())
    fig, axes = figure(1, len(lrs), width=4.0, height=3.0, sharey=True)
    for ax, lr in zip(axes[0], lrs, strict=True):
        panel = data[data["lr"] == lr]
        for k, (colour, (i, curve)) in enumerate(zip(COLOURS, panel.groupby("i"), strict=False)):
            threshold = curve["pure_dp_threshold"].iloc[0]
            # Positions whose curves coincide (e.g. delta = 0 throughout) stay visible: each has its own marker,
            # placed at points shifted from the other positions' markers.
            ax.plot(
                curve["epsilon"],
                curve["delta"],
                color=colour,
                marker=MARKERS[k % len(MARKERS)],
                ms=4,
                markevery=(3 * k, 4 * len(MARKERS)),
                label=f"i = {i} ($\\delta$ = 0 for $\\varepsilon \\geq$ {threshold:.3g})",
            )
            ax.axvline(threshold, color=colour, ls=":", lw=1)
        printed = panel["pure_dp_threshold_as_printed"].iloc[0]
        ax.axvline(printed, color="k", ls="--", lw=0.8, label=f"paper's corollary: {printed:.3g} for all i")
        ax.set_title(f"$\\eta$ = {lr:g}")
        ax.set_xlabel("$\\varepsilon$")
        legend_below(ax, ncol=2)
    axes[0][0].set_ylabel("$\\delta$ (Theorem 3)")
    footer(
        fig,
        f"{EXTENSION_NOTE}. Laplace PNSGD on [a, b] = {params['interval']}, v = {params['v']}, "
        f"L = {params['L']}, n = {params['n']}.",
    )
    return fig


def plot_regime(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Epsilon at a fixed delta against the domain diameter, Theorem 4 (solid) and Proposition 1 (dashed)."""
    fig, axes = figure(1, 1, width=4.6, height=3.0)
    ax = axes[0][0]
    for colour, (i, part) in zip(COLOURS, data.groupby("i"), strict=False):
        for method, style in (("thm4", "-"), ("prop1", "--")):
            curve = part[part["method"] == method]
            label = f"i = {i}, {'Thm 4' if method == 'thm4' else 'Prop. 1'}"
            ax.plot(curve["diameter"], curve["epsilon"], style, color=colour, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("domain diameter $D_K$")
    ax.set_ylabel(f"$\\varepsilon$ at $\\delta$ = {params['delta']:g}")
    legend_beside(ax)
    footer(
        fig,
        f"{EXTENSION_NOTE}. Fig. 2 parameters ($\\sigma$ = {params['sigma']}, $\\eta$ = {params['lr']}, "
        f"L = {params['L']}, n = {params['n']}); $D_K/(\\eta\\sigma)$ = 1 at "
        f"$D_K$ = {params['lr'] * params['sigma']:g}.",
    )
    return fig


def plot_audit(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Bounds, grid-exact delta and Monte-Carlo lower bounds; rows are configurations, columns positions
    (``params``: the audit section)."""
    configs = list(dict.fromkeys(data["config"]))
    positions = sorted(data["i"].unique(), reverse=True)
    fig, axes = figure(len(configs), len(positions), width=2.3, height=2.0, sharex=True, sharey=True)
    for row, config in enumerate(configs):
        for col, i in enumerate(positions):
            ax = axes[row][col]
            part = data[(data["config"] == config) & (data["i"] == i)]
            theorem = part["theorem"].iloc[0]
            ax.plot(part["epsilon"], part["bound_theorem"], "-", color="C0", label=METHOD_LABELS[theorem])
            if part["bound_prop1"].notna().any():
                ax.plot(part["epsilon"], part["bound_prop1"], "--", color="C1", label=METHOD_LABELS["prop1"])
            ax.plot(part["epsilon"], part["delta_grid"], ":", color="k", label="grid-exact (worst instance)")
            ax.errorbar(
                part["epsilon"],
                part["mc_estimate"].clip(lower=0),
                yerr=[(part["mc_estimate"].clip(lower=0) - part["mc_lower"]).clip(lower=0), 0 * part["mc_lower"]],
                fmt="o",
                ms=2.5,
                color="C3",
                elinewidth=0.8,
                label="Monte Carlo (estimate, 99% lower bound)",
            )
            ax.set_ylim(0, 0.5)
            ax.set_title(f"{config} (D = {part['diameter'].iloc[0]:g}), i = {i}", fontsize=7.5)
            if row == len(configs) - 1:
                ax.set_xlabel("$\\varepsilon$")
            if col == 0:
                ax.set_ylabel("$\\delta$")
    footer(
        fig,
        f"{EXTENSION_NOTE}. PNSGD on the linear loss, n = {params['n']}, L = {params['L']}, "
        f"$\\eta$ = {params['lr']}; noise scale 2. Every measurement lies below every bound "
        "(the workflow stops otherwise).",
    )
    legend_above(fig, axes[0][0], ncol=4)
    return fig


def plot_random_stopping(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Theorem 5 (uniform and i-dependent forms) against the grid-exact randomly stopped chain."""
    positions = sorted(data["i"].unique())
    fig, axes = figure(1, len(positions), sharey=True)
    for ax, i in zip(axes[0], positions, strict=True):
        part = data[data["i"] == i]
        ax.plot(part["epsilon"], part["bound_thm5"], "-", label="Thm 5 (uniform over users)")
        ax.plot(part["epsilon"], part["bound_thm5_i"], "--", label="Thm 5 proof, i-dependent form")
        ax.plot(part["epsilon"], part["delta_grid"], "k:", label="grid-exact (worst instance)")
        ax.set_title(f"i = {i}")
        ax.set_xlabel("$\\varepsilon$")
    axes[0][0].set_ylabel("$\\delta$")
    footer(
        fig,
        f"{EXTENSION_NOTE}. Randomly stopped PNSGD, T ~ Unif{{1..n}}, configuration "
        f"{params['random_stopping']['config']}.",
    )
    legend_above(fig, axes[0][0])
    return fig


def plot_utility(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Excess empirical risk against the noise scale, and the epsilon certified to the first/middle/last user."""
    noises = list(dict.fromkeys(data["noise"]))
    fig, axes = figure(len(noises), 2, width=3.4, height=2.6)
    for row, noise in enumerate(noises):
        part = data[data["noise"] == noise]
        ax = axes[row][0]
        for colour, (lr, curve) in zip(COLOURS, part.groupby("lr"), strict=False):
            ax.errorbar(
                curve["noise_scale"],
                curve["excess_risk_mean"],
                yerr=curve["excess_risk_se"],
                fmt="o-",
                ms=3,
                color=colour,
                label=f"$\\eta$ = {lr}",
            )
        ax.set_xscale("symlog", linthresh=0.1)
        ax.set_xlabel("noise scale ($\\sigma$ or v)")
        ax.set_ylabel("excess empirical risk")
        ax.set_title(f"{noise.capitalize()} PNSGD (d = {part['d'].iloc[0]}, n = {part['n'].iloc[0]})")
        ax.legend()
        ax = axes[row][1]
        lr = part["lr"].min()
        curve = part[(part["lr"] == lr) & (part["noise_scale"] > 0)]
        for column, style in UTILITY_EPSILONS.items():
            if curve[column].notna().any():
                ax.plot(curve["noise_scale"], curve[column], label=UTILITY_LABELS[column], **style)
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=0.1)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("noise scale")
        ax.set_ylabel(f"$\\varepsilon$ at $\\delta$ = {part['delta'].iloc[0]:g} ($\\eta$ = {lr})")
        legend_beside(ax)
    footer(
        fig,
        f"{EXTENSION_NOTE}. Logistic regression, one pass, {data['runs'].iloc[0]} runs per point "
        "(mean $\\pm$ s.e.). The first user's $\\varepsilon$ is drawn wide and pale under the others, "
        "so it stays visible where it equals the middle user's; missing points: no finite $\\varepsilon$.",
    )
    return fig
