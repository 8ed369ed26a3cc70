"""Figures of the purification study, each drawn only from its tidy data file (no computation here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.style import EXTENSION_NOTE, figure, footer, legend_above, legend_below, readable_log_axis

__all__ = ["plot_fig1", "plot_fig2", "plot_fig3", "plot_fig4", "plot_mc_audit", "plot_erm"]


def plot_fig1(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Per-coordinate variance against δ: Laplace (dashed, flat) and the analytic Gaussian (solid)."""
    fig, axes = figure(1, 1, width=4.4, height=3.2)
    ax = axes[0][0]
    for colour, adjacency in zip(("C0", "C1"), ("", "_replace_one")):
        for kind, style in (("analytic_gaussian", "-"), ("laplace", "--")):
            part = data[data["mechanism"] == kind + adjacency].sort_values("delta")
            if len(part):
                name = "analytic Gaussian" if kind != "laplace" else "Laplace"
                ax.plot(
                    part["delta"],
                    part["variance"],
                    style,
                    color=colour,
                    label=f"{name} ({'replace-one' if adjacency else 'add/remove'})",
                )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$\\delta$")
    ax.set_ylabel("per-coordinate variance")
    ax.set_title(f"$\\varepsilon$ = {params['epsilon']:g}")
    ax.legend()
    footer(
        fig, "Histogram release; Laplace is pure DP (independent of δ), the Gaussian is (ε, δ)-DP (Balle–Wang 2018)."
    )
    return fig


def plot_fig2(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Example 8: samples of ν (uniform disk) and μ (atom at 0 + uniform annulus), with the W∞ coupling arrows."""
    fig, axes = figure(1, 2, width=2.9, height=2.9)
    dt = float(data["delta_tilde"].iloc[0])
    theta = np.linspace(0, 2 * np.pi, 400)
    for ax, measure, title in (
        (axes[0][0], "nu", "$\\nu$ = Unif(unit disk)"),
        (axes[0][1], "mu", "$\\mu$ = $\\tilde\\Delta^2\\delta_0$ + (1-$\\tilde\\Delta^2$)Unif(annulus)"),
    ):
        part = data[data["measure"] == measure]
        ax.scatter(part["x1"], part["x2"], s=1, alpha=0.35, color="C0" if measure == "nu" else "C1", lw=0)
        ax.plot(np.cos(theta), np.sin(theta), "k-", lw=0.8)
        ax.fill(dt * np.cos(theta), dt * np.sin(theta), color="0.8", alpha=0.6, zorder=0)
        ax.set_aspect("equal")
        ax.set_title(title, fontsize=7.5)
    inner = data[(data["measure"] == "nu") & (np.hypot(data["x1"], data["x2"]) < dt)].head(40)
    for row in inner.itertuples():
        axes[0][0].annotate(
            "", xy=(0, 0), xytext=(row.x1, row.x2), arrowprops={"arrowstyle": "->", "lw": 0.4, "color": "C3"}
        )
    mass = data["tv_distance"].iloc[0]
    axes[0][1].scatter([0], [0], s=400 * mass, color="C3", zorder=3)
    footer(
        fig,
        f"$\\tilde\\Delta$ = {dt:g}: $d_{{TV}}$ = {mass:.3g}, $W_\\infty$ = {data['w_inf'].iloc[0]:.3g}; "
        f"Lemma 6 bound {data['lemma6_bound_general'].iloc[0]:.3g} (general), "
        f"{data['lemma6_bound_ball'].iloc[0]:.3g} (ball); 1-D quantile check "
        f"$W_\\infty$ = {data['w_inf_1d_numeric'].iloc[0]:.4f}.",
    )
    return fig


def plot_fig3(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Trade-off functions f_{ε,δ} (blue), f_{ε,0}, f_{ε+ε′,0} (red) and the diagonal."""
    fig, axes = figure(1, 1, width=3.6, height=3.4)
    ax = axes[0][0]
    styles = {
        "eps_delta": ("C0", "-", f"$f_{{\\varepsilon,\\delta}}$ ({params['epsilon']:g}, {params['delta']:g})"),
        "eps_0": ("0.4", "--", "$f_{\\varepsilon,0}$"),
        "eps_plus_eps_prime_0": ("C3", "-", "$f_{\\varepsilon+\\varepsilon',0}$ (purified)"),
        "no_privacy": ("k", ":", "1 - $\\alpha$"),
    }
    for curve, (colour, style, label) in styles.items():
        part = data[data["curve"] == curve]
        ax.plot(part["alpha"], part["beta"], style, color=colour, label=label)
    crossing = float(data["crossing_alpha"].iloc[0])
    ax.axvline(crossing, color="0.5", lw=0.6, ls="-.")
    ax.set_xlabel("type I error $\\alpha$")
    ax.set_ylabel("type II error $\\beta$")
    ax.legend()
    footer(
        fig,
        f"Blue and red cross at $\\alpha$ = {crossing:.4g}: "
        "$f_{\\varepsilon,\\delta} \\leq f_{\\varepsilon+\\varepsilon',0}$ does not hold pointwise "
        "(an erratum of Appendix B).",
    )
    return fig


#: Fig. 4's edge kinds: a label's offset from the edge's midpoint, its alignment and colour, and the arrow's
#: head style, colour and curvature.  Curved edges (red) join non-adjacent nodes of a row.
_FIG4_EDGES = {
    "curved": {"offset": (0, -0.75), "ha": "center", "color": "C3", "arrow": "<->", "line": "C3", "rad": 0.25},
    "horizontal": {"offset": (0, 0.22), "ha": "center", "color": "0.15", "arrow": "<->", "line": "0.3", "rad": 0},
    "vertical": {"offset": (0.12, 0), "ha": "left", "color": "0.15", "arrow": "->", "line": "0.3", "rad": 0},
}


def _fig4_position(node: pd.Series) -> np.ndarray:
    """A node's position on the canvas (the data's grid stretched 3 × 2)."""
    return np.array([node["x"] * 3, node["y"] * 2])


def _fig4_edge_kind(a: pd.Series, b: pd.Series) -> str:
    """``vertical`` between rows; within a row ``horizontal`` between neighbours and ``curved`` beyond."""
    if a["y"] != b["y"]:
        return "vertical"
    return "curved" if abs(a["x"] - b["x"]) > 1 else "horizontal"


def _fig4_edge(ax: Any, edge: Any, nodes: pd.DataFrame, boxes: Mapping[str, Any], size: float) -> None:
    """One labelled edge; the arrow ends at the node boxes' edges (patchA/patchB), however wide each label is."""
    a, b = nodes.loc[edge.source], nodes.loc[edge.target]
    start, end = _fig4_position(a), _fig4_position(b)
    style = _FIG4_EDGES[_fig4_edge_kind(a, b)]
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={
            "arrowstyle": style["arrow"],
            "lw": 0.8,
            "color": style["line"],
            "patchA": boxes[edge.source].get_bbox_patch(),
            "patchB": boxes[edge.target].get_bbox_patch(),
            "shrinkA": 3,
            "shrinkB": 3,
            "connectionstyle": f"arc3,rad={style['rad']}" if style["rad"] else "arc3",
        },
    )
    label_at = (start + end) / 2 + np.array(style["offset"])
    ax.text(*label_at, edge.label, ha=style["ha"], va="center", fontsize=size - 1.5, color=style["color"])


def plot_fig4(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """The proof of Theorem 1 as a flowchart: nodes in three rows, labelled edges."""
    fig, axes = figure(1, 1, width=9.0, height=4.6)
    ax = axes[0][0]
    nodes = data[data["kind"] == "node"].set_index("node_id")
    size = params["font_size"]
    box = {"boxstyle": "round,pad=0.35", "fc": "white", "ec": "0.3"}
    boxes = {
        node_id: ax.text(*_fig4_position(row), row["label"], ha="center", va="center", fontsize=size, bbox=box)
        for node_id, row in nodes.iterrows()
    }
    for edge in data[data["kind"] == "edge"].itertuples():
        _fig4_edge(ax, edge, nodes, boxes, size)
    ax.set_xlim(-1.5, 10.5)
    ax.set_ylim(-1.6, 4.6)
    ax.axis("off")
    footer(
        fig,
        "Proof of Theorem 1 (the paper draws it with ε' = ε, so its bottom edge reads 2ε). Rows: upstream "
        "laws; after uniform mixing; after Laplace noise.",
    )
    return fig


def plot_mc_audit(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Monte-Carlo lower bounds on ε against the number of samples, unpurified vs purified, with the exact ε∞."""
    mechanisms = list(dict.fromkeys(data["mechanism"]))
    fig, axes = figure(1, len(mechanisms), width=3.2, height=2.8)
    for ax, mechanism in zip(axes[0], mechanisms):
        part = data[data["mechanism"] == mechanism]
        for colour, treatment, label in (("C0", "none", "unpurified"), ("C3", "full", "purified")):
            rows = part[part["treatment"] == treatment]
            ax.plot(rows["n_samples"], rows["epsilon_lb"], "o-", color=colour, label=f"{label}: MC lower bound")
            exact = rows["epsilon_exact"].iloc[0]
            if np.isfinite(exact):
                ax.axhline(
                    exact, color=colour, ls="--", lw=0.8, label=f"{label}: exact $\\varepsilon_\\infty$ = {exact:.3g}"
                )
        ax.axhline(
            part["epsilon"].iloc[0] + part["epsilon_prime"].iloc[0],
            color="k",
            ls=":",
            lw=0.8,
            label="bound $\\varepsilon+\\varepsilon'$",
        )
        ax.set_xscale("log")
        ax.set_xlabel("samples per neighbour N")
        ax.set_ylabel("$\\varepsilon$ lower bound (pure DP)")
        ax.set_title(mechanism)
        legend_below(ax)
    row = data.iloc[0]
    footer(
        fig,
        f"{EXTENSION_NOTE}. (ε, δ) = ({row['epsilon']:g}, {row['delta']:g}), ω = {row['omega']:g}, ε' = "
        f"{row['epsilon_prime']:g}; Clopper–Pearson, Bonferroni over {int(row['n_events'])} events, "
        f"α = {row['alpha']:g}.",
    )
    return fig


METHOD_STYLES = {
    "purified_dpsgd": ("C3", "o-", "purified DP-SGD (paper schedule)"),
    "purified_dpsgd_tuned": ("C1", "s-", "purified DP-SGD (tuned accounting)"),
    "laplace_gd": ("C0", "^-", "Laplace noisy GD (Lemma 19)"),
    "exponential_mechanism": ("C2", "D-", "exponential mechanism (grid)"),
    "output_perturbation": ("C4", "v-", "output perturbation"),
    "dpsgd_before_purification": ("C5", "o:", "DP-SGD at purification δ (not pure)"),
    "dpsgd_reference": ("0.4", "x--", "DP-SGD at δ = 1/n² (not pure)"),
}


#: Marker style of a run before purification: large hollow circles around the purified run's markers, because the
#: two results often agree to several digits and a thin line would lie hidden under the purified one.
BEFORE_PURIFICATION = {"ms": 7, "mfc": "none", "mew": 1.0}


def largest_relative_difference(summary: pd.DataFrame, keys: list[str], method: str, reference: str) -> float:
    """max |m - r| / |r| over the points (``keys``) where both ``method`` and ``reference`` have a mean; NaN when
    they share none."""
    means = summary.pivot_table(index=keys, columns="method", values="mean")
    if method not in means or reference not in means:
        return float("nan")
    return float(((means[method] - means[reference]).abs() / means[reference].abs()).max())


def plot_erm(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Excess empirical risk (mean ± s.e. over seeds) against ε_tot (fixed n) and against n (fixed ε_tot)."""
    fig, axes = figure(1, 2, width=3.6, height=3.0)
    summary = (
        data.groupby(["in_epsilon_sweep", "in_n_sweep", "method", "n", "epsilon_total"])["excess_risk"]
        .agg(["mean", "sem"])
        .reset_index()
    )
    for ax, flag, xcol, title in (
        (axes[0][0], "in_epsilon_sweep", "epsilon_total", f"n = {params['epsilon_sweep']['n']}"),
        (axes[0][1], "in_n_sweep", "n", f"$\\varepsilon_{{tot}}$ = {params['n_sweep']['epsilon']:g}"),
    ):
        part = summary[summary[flag]]
        for method, (colour, style, label) in METHOD_STYLES.items():
            rows = part[part["method"] == method].sort_values(xcol)
            if len(rows):
                marker = BEFORE_PURIFICATION if method == "dpsgd_before_purification" else {"ms": 3}
                ax.errorbar(
                    rows[xcol],
                    rows["mean"].clip(lower=1e-7),
                    yerr=rows["sem"],
                    fmt=style,
                    color=colour,
                    lw=1,
                    label=label,
                    **marker,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        readable_log_axis(ax, "x", ticks=part[xcol].unique())
        ax.set_xlabel("$\\varepsilon_{tot}$" if xcol == "epsilon_total" else "n")
        ax.set_ylabel("excess empirical risk")
        ax.set_title(title)
    capped = data[data["method"].isin(["purified_dpsgd"]) & data["capped"].astype(bool)]
    points = capped[["n", "epsilon_total"]].drop_duplicates().shape[0]
    note = f" Paper schedule capped at T = {params['max_steps_paper']} for {points} point(s)." if len(capped) else ""
    gap = largest_relative_difference(summary, ["n", "epsilon_total"], "dpsgd_before_purification", "purified_dpsgd")
    if np.isfinite(gap):
        note += (
            f" DP-SGD before purification (hollow circles) and after it differ by at most {gap:.2g} "
            "(relative) in mean excess risk."
        )
    footer(
        fig,
        f"{EXTENSION_NOTE}. Logistic regression, d = {params['d']}, λ = {params['lam']:g}, "
        f"{params['seeds']} seeds; purified methods split ε_tot equally between DP-SGD and Algorithm 1.{note}",
    )
    legend_above(fig, axes[0][0], ncol=3)
    return fig
