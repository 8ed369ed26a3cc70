"""Figures F1-F9 of the generalization study, each drawn only from its tidy data file (no computation here).

The paper has no figures: every figure is our own and carries the extension footer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from dplab.report.style import EXTENSION_NOTE, figure, footer, label, legend_above, legend_below, legend_beside

__all__ = [
    "plot_kl",
    "plot_high_probability",
    "plot_on_average",
    "plot_epsilon_vs_steps",
    "plot_delta_vs_steps",
    "plot_fair_comparison",
    "plot_sgld_theory",
    "plot_empirical",
    "plot_federated",
]

COLOURS = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
VACUOUS_Y = 1.0


def _footer(fig, text: str) -> None:
    """The project footer (:func:`dplab.report.style.footer`) after this study's extension note."""
    footer(fig, f"{EXTENSION_NOTE}: our figure; the paper has no figures. {text}")


def _bool(series: pd.Series) -> np.ndarray:
    """Booleans read back from CSV (True/False, or NaN for 'not applicable' = False)."""
    return series.astype(str).str.lower().isin(["true", "1", "1.0"]).to_numpy()


def _style_legend(ax, styles: Mapping[str, str | Mapping[str, Any]], colours: Mapping[str, str]) -> None:
    """A legend under ``ax`` that explains line styles (methods, drawn in grey) and colours (settings) separately,
    instead of one entry per curve (after the entries ``ax`` already has)."""
    handles = ax.get_legend_handles_labels()[0]
    handles += [
        Line2D([], [], color="0.3", label=name, **({"ls": style} if isinstance(style, str) else style))
        for name, style in styles.items()
    ]
    handles += [Line2D([], [], lw=4, color=colour, label=name) for name, colour in colours.items()]
    legend_below(ax, handles=handles, ncol=2)


def plot_kl(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F1: (a) KL bounds against ε (log-log), randomized response as markers; (b) DR16 / Lemma 5 = (1+e^ε)/2."""
    fig, axes = figure(1, 2, width=3.6)
    labels = {
        "lemma5": "Lemma 5: $\\varepsilon\\tanh(\\varepsilon/2)$",
        "dr16": "DR16: $\\frac{1}{2}\\varepsilon(e^\\varepsilon-1)$",
        "drv10": "DRV10: $\\varepsilon(e^\\varepsilon-1)$",
    }
    for method, name in labels.items():
        part = data[data["method"] == method]
        axes[0][0].loglog(part["epsilon"], part["kl"], label=name)
    rr = data[data["method"] == "randomized_response"].iloc[::20]
    axes[0][0].loglog(rr["epsilon"], rr["kl"], "ko", ms=3, mfc="none", label="randomized response (exact KL)")
    axes[0][0].set(xlabel="$\\varepsilon$", ylabel="KL bound", title="(a) KL divergence of an $\\varepsilon$-DP step")
    dr = data[data["method"] == "dr16"]
    axes[0][1].loglog(dr["epsilon"], dr["ratio_to_lemma5"], "C1")
    axes[0][1].set(xlabel="$\\varepsilon$", ylabel="DR16 / Lemma 5", title="(b) ratio $(1+e^\\varepsilon)/2$")
    _footer(fig, "Lemma 5 of He, Wang, Tao is attained by randomized response.")
    legend_above(fig, axes[0][0], ncol=2)
    return fig


def plot_high_probability(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F2: (a) deviation a, (b) failure probability b per δ (clipped at 1 for display, labelled vacuous),
    (c) the sample-size floor N_min."""
    fig, axes = figure(1, 3, width=3.3)
    first = data[data["delta"] == data["delta"].iloc[0]]
    for i, method in enumerate(["thm1", "nissim_stemmer", "dwork_2015"]):
        part = first[first["method"] == method]
        axes[0][0].loglog(
            part["epsilon"],
            part["deviation"],
            color=COLOURS[i],
            label={"thm1": "Thm 1: 9ε", "nissim_stemmer": "Nissim-Stemmer: 13ε", "dwork_2015": "Dwork et al. 2015: 4ε"}[
                method
            ],
        )
    axes[0][0].axhline(1.0, color="k", lw=0.8, ls=":", label="a = 1: vacuous above")
    axes[0][0].set(xlabel="$\\varepsilon$", ylabel="deviation a", title="(a) deviation")
    legend_below(axes[0][0])
    styles = {"thm1": "-", "thm1_intro": "--", "nissim_stemmer": "-.", "dwork_2015": ":"}
    for j, delta in enumerate(sorted(data["delta"].unique())):
        for method, style in styles.items():
            part = data[(data["delta"] == delta) & (data["method"] == method)]
            b = part["failure_probability"].to_numpy()
            axes[0][1].loglog(part["epsilon"], np.minimum(b, 1.0), style, color=COLOURS[j])
    axes[0][1].axhline(1.0, color="k", lw=0.8, label="b ≥ 1: vacuous (drawn at 1)")
    axes[0][1].set(xlabel="$\\varepsilon$", ylabel="failure probability b", title="(b) failure probability")
    _style_legend(
        axes[0][1],
        {label(method): style for method, style in styles.items()},
        {f"δ = {delta:g}": COLOURS[j] for j, delta in enumerate(sorted(data["delta"].unique()))},
    )
    for j, delta in enumerate(sorted(data["delta"].unique())):
        part = data[(data["delta"] == delta) & (data["method"] == "thm1")]
        axes[0][2].loglog(part["epsilon"], part["n_min"], color=COLOURS[j], label=f"δ = {delta:g}")
    axes[0][2].set(xlabel="$\\varepsilon$", ylabel="$N_{min}$", title="(c) Thm 1 sample-size condition")
    axes[0][2].legend()
    _footer(fig, "Thm 1 as stated (solid) and as quoted in the introduction with an extra factor 2 (dashed).")
    return fig


def plot_on_average(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F3: (a) Thm 2 vs Nissim-Stemmer on-average bounds per kδ, trivial above 1; (b) their ratio."""
    fig, axes = figure(1, 2, width=3.6)
    for j, kd in enumerate(sorted(data["k_delta"].unique())):
        for method, style in (("thm2", "-"), ("nissim_stemmer", "--")):
            part = data[(data["k_delta"] == kd) & (data["method"] == method)]
            axes[0][0].loglog(
                part["epsilon"], part["bound"], style, color=COLOURS[j], label=f"{label(method)}, kδ = {kd:g}"
            )
        part = data[(data["k_delta"] == kd) & (data["method"] == "thm2")]
        axes[0][1].loglog(part["epsilon"], part["ratio_ns_to_thm2"], color=COLOURS[j], label=f"kδ = {kd:g}")
    axes[0][0].axhline(1.0, color="k", lw=0.8, ls=":")
    axes[0][0].set(xlabel="$\\varepsilon$", ylabel="bound on |E gap|", title="(a) on-average bounds (trivial ≥ 1)")
    legend_below(axes[0][0], ncol=2)
    axes[0][1].set(xlabel="$\\varepsilon$", ylabel="Nissim-Stemmer / Thm 2", title="(b) ratio")
    legend_below(axes[0][1], ncol=2)
    _footer(fig, "Thm 2: $e^{-\\varepsilon}k\\delta+1-e^{-\\varepsilon}$; Nissim-Stemmer: $k\\delta+2\\varepsilon$.")
    return fig


def plot_epsilon_vs_steps(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F4: ε′ against T per step ε (log-log): the paper's Thm 4 ε′ is KOV's (one curve)."""
    eps_values = sorted(data["epsilon_step"].unique())
    fig, axes = figure(1, len(eps_values), width=3.3)
    labels = {
        "basic": ("basic Tε", ":"),
        "drv": ("DRV", "-."),
        "kov_thm4": ("KOV 3.4 = paper Thm 4", "-"),
        "cor3": ("paper Cor 3 ($\\varepsilon'_3$)", "--"),
        "optimal_pure": ("exact optimal (pure steps)", "-"),
    }
    for ax, eps in zip(axes[0], eps_values):
        for i, (method, (name, style)) in enumerate(labels.items()):
            part = data[(data["epsilon_step"] == eps) & (data["method"] == method)]
            ax.loglog(
                part["t"],
                part["eps_prime"],
                style,
                color=COLOURS[i],
                label=name,
                lw=2.6 if method == "kov_thm4" else 1.4,
            )
        ax.set(xlabel="T", ylabel="$\\varepsilon'$", title=f"step ε = {eps:g}")
    _footer(fig, f"δ̃ = {params['delta_tilde']:g}; optimal at δ′ = {params['optimal_delta']:g} for ε-DP steps.")
    legend_above(fig, axes[0][0], ncol=5)
    return fig


def plot_delta_vs_steps(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F5: δ′/(Tδ) against T with the universal lower bound; the impossible region below it is shaded."""
    settings = data[["epsilon_step", "delta_step"]].drop_duplicates().to_numpy()
    fig, axes = figure(1, len(settings), width=4.0, height=3.2)
    styles = {
        "drv": "-.",
        "kov": "-",
        "cor2": "-",
        "cor2_first_order": ":",
        "thm4_box": "--",
        "cor3_corrected": "-",
        "cor3_as_printed": ":",
        "optimal_at_kov_eps": "-",
    }
    for ax, (eps, delta) in zip(axes[0], settings):
        panel = data[(data["epsilon_step"] == eps) & (data["delta_step"] == delta)]
        floor = panel[panel["method"] == "lower_bound"]
        y_floor = floor["delta_prime_over_t_delta"].to_numpy()
        ax.fill_between(floor["t"], 0, y_floor, color="0.85", label="impossible for any valid theorem")
        ax.plot(floor["t"], y_floor, "k", lw=2, label="lower bound $1-(1-\\delta)^T$")
        for i, (method, style) in enumerate(styles.items()):
            part = panel[panel["method"] == method]
            ax.plot(part["t"], part["delta_prime_over_t_delta"], style, color=COLOURS[i], label=label(method))
            bad = part[_bool(part["below_lower_bound"])]
            ax.plot(bad["t"], bad["delta_prime_over_t_delta"], "x", color=COLOURS[i], ms=3)
        ax.set_xscale("log")
        ax.set(xlabel="T", ylabel="$\\delta'/(T\\delta)$", title=f"ε = {eps:g}, δ = {delta:g}")
        low = np.nanmin(panel["delta_prime_over_t_delta"])
        ax.set_ylim(min(low, 1.0) * 0.97, 1.15)
    legend_beside(axes[0][-1])
    _footer(
        fig,
        f"δ̃ = {params['delta_tilde']:g}; crosses: δ′ below the lower bound (the theorem is false there). "
        "Cor 3 uses its own ε′; the others the KOV/Thm 4 ε′. The y-axis is zoomed to [min, 1.15] "
        "(small-T values above it, where δ̃ dominates, are in the data file).",
    )
    return fig


def _flagged(part: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of one method's curve that lie below the exact optimum, and those finite only for the paper."""
    return part[_bool(part["below_optimal"])], part[_bool(part["feasible_only_for_paper"])]


def _zoom_window(data: pd.DataFrame) -> pd.DataFrame:
    """F6's decisive region: from the grid point before the first flagged value (below the exact optimum or finite
    only for the paper) to the end of the grid."""
    flagged = data[_bool(data["below_optimal"]) | _bool(data["feasible_only_for_paper"])]
    if flagged.empty:
        return data.iloc[0:0]
    grid = np.sort(data["t"].unique())
    start = grid[max(int(np.searchsorted(grid, flagged["t"].min())) - 1, 0)]
    return data[data["t"] >= start]


def _plot_fair_method(axes, data: pd.DataFrame, window: pd.DataFrame, method: str, i: int, top: float) -> bool:
    """One method of F6 on (a) all T and (b) the zoom (offset sideways by its rank), impossible values circled;
    whether its zoomed values go above ``top`` (off-scale in (b))."""
    methods = list(data["method"].unique())
    position = {t: k for k, t in enumerate(np.sort(window["t"].unique()))}
    part = data[data["method"] == method]
    style = {"color": COLOURS[i % len(COLOURS)], "marker": MARKERS[i % len(MARKERS)], "label": label(method)}
    axes[0][0].loglog(part["t"], part["eps_prime"].astype(float), "-", ms=3, **style)
    zoom = window[window["method"] == method]
    shift = (i - (len(methods) - 1) / 2) * 0.07
    values = zoom["eps_prime"].astype(float)
    axes[0][1].plot(zoom["t"].map(position) + shift, values, "-", ms=5, mfc="white", **style)
    for ax, frame, x in ((axes[0][0], part, lambda t: t), (axes[0][1], zoom, lambda t: t.map(position) + shift)):
        below, only = _flagged(frame)
        ax.plot(x(below["t"]), below["eps_prime"].astype(float), "o", ms=11, mfc="none", color="r")
        ax.plot(x(only["t"]), only["eps_prime"].astype(float), "s", ms=11, mfc="none", color="m")
    return bool((values[np.isfinite(values)] > top).any())


def _fair_zoom_axes(axes, window: pd.DataFrame, finite: pd.DataFrame, top: float) -> None:
    """Shade the zoom window in (a); limits, ticks and title of (b)."""
    grid = np.sort(window["t"].unique())
    if len(window):
        axes[0][0].axvspan(window["t"].min(), window["t"].max(), color="0.9", zorder=0)
        axes[0][1].set_ylim(0.95 * finite["eps_prime"].min(), top)
        axes[0][1].set_xticks(range(len(grid)), [f"{t:g}" for t in grid])
    zoom_title = (
        f"(b) zoom: T = {window['t'].min():g} to {window['t'].max():g} (shaded in (a))"
        if len(window)
        else "(b) no impossible or paper-only value: nothing to zoom on"
    )
    if window.empty:
        axes[0][1].set(xticks=[], yticks=[])
    axes[0][1].set(
        xlabel="T (grid points, evenly spaced; methods offset sideways)",
        ylabel="smallest certified $\\varepsilon'$",
        title=zoom_title,
    )


def plot_fair_comparison(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F6: smallest ε′ certified at δ_target against T; impossible paper values circled, infeasible methods absent.

    (b) zooms on the decisive region (:func:`_zoom_window`) on linear axes, each method with its own marker and
    a small horizontal offset, so that methods within a few per cent of each other (KOV, Cor. 2, Cor. 3) can be told
    apart; methods far above the others there are left off-scale and named."""
    fig, axes = figure(1, 2, width=4.2, height=3.4)
    window = _zoom_window(data)
    finite = window[np.isfinite(window["eps_prime"].astype(float))]
    top = 1.2 * finite.groupby("method")["eps_prime"].max().median() if len(finite) else np.inf
    off_scale = [
        label(method)
        for i, method in enumerate(data["method"].unique())
        if _plot_fair_method(axes, data, window, method, i, top)
    ]
    axes[0][0].plot([], [], "o", ms=9, mfc="none", color="r", label="below exact optimum (impossible)")
    axes[0][0].plot([], [], "s", ms=9, mfc="none", color="m", label="finite only for the paper")
    axes[0][0].set(xlabel="T", ylabel="smallest certified $\\varepsilon'$", title="(a) all T")
    _fair_zoom_axes(axes, window, finite, top)
    fig.suptitle(
        f"step (ε, δ) = ({params['epsilon']:g}, {params['delta']:g}), δ_target = {params['delta_target']:g}", fontsize=9
    )
    note = f" Off-scale in (b): {', '.join(off_scale)}." if off_scale else ""
    _footer(fig, "Paper theorems with δ̃ optimised on a grid; missing points are infinite (no guarantee)." + note)
    legend_above(fig, axes[0][0], ncol=5)
    return fig


def plot_sgld_theory(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F7: SGLD ε′(T) (variants P dotted, V solid), HP bound with floor and vacuous line, on-average bound."""
    sizes = sorted(data["n"].unique())
    fig, axes = figure(len(sizes), 3, width=3.2, height=2.4)
    for row, n in zip(axes, sizes):
        for i, sigma in enumerate(sorted(data["sigma"].unique())):
            for variant, style in (("as_printed", ":"), ("valid", "-")):
                part = data[(data["n"] == n) & (data["sigma"] == sigma) & (data["variant"] == variant)]
                label = f"σ={sigma:g} ({'P' if variant == 'as_printed' else 'V'})"
                row[0].loglog(part["t"], part["eps_prime"], style, color=COLOURS[i], label=label)
                row[1].loglog(part["t"], part["hp_bound"], style, color=COLOURS[i])
                row[2].loglog(part["t"], part["on_average"], style, color=COLOURS[i])
            part = data[(data["n"] == n) & (data["sigma"] == sigma) & (data["variant"] == "valid")]
            row[1].loglog(part["t"], 9 * part["eps_min"], "--", color="0.5", lw=0.8)
        for ax in row[1:]:
            ax.axhline(1.0, color="k", lw=0.8)
        row[0].set(ylabel=f"N = {n:g}\n$\\varepsilon'$")
        row[1].set(ylabel="HP bound 9ε_eff")
        row[2].set(ylabel="on-average bound")
    axes[0][0].set_title("(a) privacy")
    axes[0][1].set_title("(b) Thm 1 (dashed: floor $9\\varepsilon_{min}$)")
    axes[0][2].set_title("(c) Thm 2, k = 1")
    for ax in axes[-1]:
        ax.set_xlabel("T")
    _footer(
        fig,
        f"τ = {params['tau']}, L = {params['L']}, δ = {params['delta']:g}, δ̃ = {params['delta_tilde']:g}; "
        "above the black line the bound is vacuous; P: as printed, V: valid variant.",
    )
    legend_above(fig, axes[0][0], ncol=6)
    return fig


#: Signed gaps E[R − R̂] are about ±1e-3 to 5e-2 and the bounds up to and above 1: F8's y axis is symlog, linear
#: within ±GAP_LINEAR_RANGE (where a gap and its interval may cross 0) and logarithmic beyond it.
GAP_LINEAR_RANGE = 1e-3
GAP_Y_LIMITS = (-5e-2, 2.0)


def _jitter(count: int, spread: float = 0.25) -> np.ndarray:
    """Multiplicative x offsets (log axis) that keep ``count`` curves' error bars at the same T apart."""
    return 10 ** (spread * (np.arange(count) - (count - 1) / 2) / max(count - 1, 1))


def _signed_gap(ax, x, part: pd.DataFrame, **style) -> None:
    """The mean signed gap with its t interval over training sets (asymmetric limits from the data file)."""
    mean = part["mean_gap"].to_numpy(dtype=float)
    error = np.vstack(
        [mean - part["gap_ci_low"].to_numpy(dtype=float), part["gap_ci_high"].to_numpy(dtype=float) - mean]
    )
    ax.errorbar(x, mean, yerr=error, capsize=1.5, **style)


def _gap_axis(ax) -> None:
    ax.set_yscale("symlog", linthresh=GAP_LINEAR_RANGE, linscale=0.6)
    ax.set_ylim(*GAP_Y_LIMITS)
    ax.set_yticks([-1e-2, -1e-3, 0, 1e-3, 1e-2, 1e-1, 1], ["−0.01", "−0.001", "0", "0.001", "0.01", "0.1", "1"])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.axhline(0, color="0.6", lw=0.6, zorder=0)


def _plot_gap_against_steps(ax, data: pd.DataFrame, n: float, d: int) -> None:
    """One F8 panel (N, d): the signed gap per σ against T (jittered), with that σ's bounds (vacuous ones pinned)."""
    sigmas = sorted(data["sigma"].unique())
    offsets = _jitter(len(sigmas))
    for i, sigma in enumerate(sigmas):
        part = data[(data["n"] == n) & (data["d"] == d) & (data["sigma"] == sigma)].sort_values("t")
        if part.empty:
            continue
        colour = COLOURS[i % len(COLOURS)]
        _signed_gap(ax, part["t"] * offsets[i], part, color=colour, lw=1.0, label=f"σ={sigma:g}")
        if sigma == 0:
            continue
        for column, vacuous, style, lw in (
            ("hp_bound_valid", "hp_vacuous_valid", "--", 1.0),
            ("hp_bound_as_printed", "hp_vacuous_as_printed", ":", 0.7),
            ("on_average_valid", "on_average_vacuous_valid", "-.", 1.0),
        ):
            flag = _bool(part[vacuous])
            values = part[column].to_numpy(dtype=float)
            ax.plot(part["t"], np.where(flag, np.nan, values), style, color=colour, lw=lw)
            ax.plot(part["t"][flag], np.full(flag.sum(), VACUOUS_Y), "^", mfc="none", color=colour, ms=4)
    steps = sorted(data["t"].unique())
    ax.set_xscale("log")
    ax.set_xticks(steps, [str(int(t)) for t in steps], minor=False)
    ax.minorticks_off()
    _gap_axis(ax)
    ax.set_title(f"N = {n:g}, d = {d}")
    ax.set_xlabel("T")
    ax.set_ylabel("E[R − R̂] and bounds")


def _plot_gap_against_noise(ax, data: pd.DataFrame, n: float, reference_t: int) -> None:
    """The companion F8 panel at N: gap and risk per d against σ at the reference T, with the valid bounds."""
    dims, sigmas = sorted(data["d"].unique()), sorted(data["sigma"].unique())
    ref = data[(data["n"] == n) & (data["t"] == reference_t)]
    for c, d in enumerate(dims):
        part = ref[ref["d"] == d].sort_values("sigma")
        x = part["sigma"].to_numpy(dtype=float) + 0.02 * (c - (len(dims) - 1) / 2) * max(sigmas)
        _signed_gap(ax, x, part, color=COLOURS[c], fmt="o-", ms=3, lw=1.0, label=f"E[R − R̂], d={d}")
        ax.plot(part["sigma"], part["risk"], "s:", color=COLOURS[c], ms=3, label=f"risk R, d={d}")
    part = ref[ref["d"] == dims[0]].sort_values("sigma")
    ax.plot(part["sigma"], part["hp_bound_valid"].where(~_bool(part["hp_vacuous_valid"])), "k--", label="HP (V)")
    ax.plot(part["sigma"], part["on_average_valid"], "k-.", label="on-average (V)")
    _gap_axis(ax)
    ax.set(xlabel="σ", title=f"N = {n:g}, T = {reference_t}")


def plot_empirical(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F8: the measured signed gap E[R − R̂] (mean over training sets with its t interval) against T next to the
    bounds, rows N, columns d, plus a companion column against σ at the reference T; symlog y axis (linear near 0,
    so that intervals crossing 0 are drawn as they are); vacuous bounds are hollow triangles pinned at y = 1."""
    sizes, dims = sorted(data["n"].unique()), sorted(data["d"].unique())
    fig, axes = figure(len(sizes), len(dims) + 1, width=3.0, height=2.4)
    for r, n in enumerate(sizes):
        for c, d in enumerate(dims):
            _plot_gap_against_steps(axes[r][c], data, n, d)
        _plot_gap_against_noise(axes[r][-1], data, n, params["reference_t"])
    legend_beside(axes[0][-1])
    axes[0][0].plot([], [], "^", mfc="none", color="k", label="vacuous bound (≥ 1)")
    datasets = sorted(int(k) for k in data["datasets"].unique())
    _footer(
        fig,
        f"Points: mean signed gap E[R − R̂] over {'/'.join(map(str, datasets))} independent training sets "
        f"({params['runs']} SGLD run(s) each), bars: {params['confidence']:.0%} t interval over the sets; y axis "
        f"linear within ±{GAP_LINEAR_RANGE:g}, logarithmic beyond. Dashed: Thm 1 HP bound (valid variant V); dotted: "
        "as printed (P); dash-dot: Thm 2 on-average (V); hollow triangles at 1: vacuous. Bounds do not depend on d.",
    )
    legend_above(fig, axes[0][0], ncol=data["sigma"].nunique() + 1)
    return fig


def _coinciding_variants(shown: pd.DataFrame) -> list[str]:
    """Pairs of F9(a) curves that lie on each other (to 1e-9 relative): add/remove at σ is substitution at 2σ
    (the sensitivity halves), so such dashed curves hide under solid ones; the footer names them."""
    curves = {
        (variant, sigma): part.sort_values("t")["eps_prime"].to_numpy(dtype=float)
        for (variant, sigma), part in shown.groupby(["variant", "sigma"])
    }
    pairs = []
    for (variant, sigma), values in curves.items():
        for (other, other_sigma), other_values in curves.items():
            if (
                (variant, sigma) < (other, other_sigma)
                and variant != other
                and len(values) == len(other_values)
                and np.allclose(values, other_values, rtol=1e-9, atol=0.0)
            ):
                pairs.append(f"{label(variant)} σ = {sigma:g} = {label(other)} σ = {other_sigma:g}")
    return pairs


def plot_federated(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F9: federated ε′ against rounds for the three ε̃ variants, and the client-level HP bound."""
    combos = data[["clients", "tau"]].drop_duplicates().to_numpy()
    fig, axes = figure(1, 2, width=4.0, height=3.2)
    styles = {
        "as_printed": {"ls": ":"},
        "substitution": {"ls": "-"},
        "add_remove": {"ls": "--", "marker": "o", "ms": 4, "mfc": "none", "markevery": 0.1},
    }
    shown = data[(data["clients"] == combos[-1][0]) & (data["tau"] == combos[-1][1])]
    sigmas = sorted(data["sigma"].unique())
    for i, sigma in enumerate(sigmas):
        for variant, style in styles.items():
            part = shown[(shown["sigma"] == sigma) & (shown["variant"] == variant)]
            axes[0][0].loglog(part["t"], part["eps_prime"], color=COLOURS[i], **style)
    axes[0][0].set(
        xlabel="rounds T", ylabel="$\\varepsilon'$", title=f"(a) N = {combos[-1][0]:g} clients, τ = {combos[-1][1]}"
    )
    _style_legend(
        axes[0][0],
        {label(variant): {k: v for k, v in style.items() if k != "markevery"} for variant, style in styles.items()},
        {f"σ = {sigma:g}": COLOURS[i] for i, sigma in enumerate(sigmas)},
    )
    for j, (clients, tau) in enumerate(combos):
        part = data[
            (data["clients"] == clients)
            & (data["tau"] == tau)
            & (data["variant"] == "substitution")
            & (data["sigma"] == data["sigma"].max())
        ]
        axes[0][1].loglog(part["t"], part["hp_bound"], color=COLOURS[j], label=f"N = {clients:g}, τ = {tau}")
    axes[0][1].axhline(1.0, color="k", lw=0.8)
    axes[0][1].set(
        xlabel="rounds T",
        ylabel="client-level HP bound",
        title=f"(b) Thm 1, substitution variant, σ = {data['sigma'].max():g}",
    )
    legend_below(axes[0][1], ncol=2)
    same = _coinciding_variants(shown)
    note = f" In (a) these curves coincide (dashed with circles lies on solid): {'; '.join(same)}." if same else ""
    _footer(fig, f"δ = {params['delta']:g}, δ̃ = {params['delta_tilde']:g}; above 1 the bound is vacuous.{note}")
    return fig
