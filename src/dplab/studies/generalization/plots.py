"""Figures F1-F9 of the generalization study, each drawn only from its tidy data file (no computation here).

The paper has no figures: every figure is proposed by the spec and carries the extension footer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.style import EXTENSION_NOTE, figure, footer

__all__ = ["plot_kl", "plot_high_probability", "plot_on_average", "plot_epsilon_vs_steps", "plot_delta_vs_steps",
           "plot_fair_comparison", "plot_sgld_theory", "plot_empirical", "plot_federated"]

COLOURS = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9")
VACUOUS_Y = 1.0


def _footer(fig, text: str) -> None:
    """The project footer (:func:`dplab.report.style.footer`) after this study's extension note."""
    footer(fig, f"{EXTENSION_NOTE}: proposed by the spec; the paper has no figures. {text}")


def _bool(series: pd.Series) -> np.ndarray:
    """Booleans read back from CSV (True/False, or NaN for 'not applicable' = False)."""
    return series.astype(str).str.lower().isin(["true", "1", "1.0"]).to_numpy()


def plot_kl(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F1: (a) KL bounds against ε (log-log), randomized response as markers; (b) DR16 / Lemma 5 = (1+e^ε)/2."""
    fig, axes = figure(1, 2, width=3.6)
    labels = {"lemma5": "Lemma 5: $\\varepsilon\\tanh(\\varepsilon/2)$", "dr16": "DR16: $\\frac{1}{2}\\varepsilon(e^\\varepsilon-1)$",
              "drv10": "DRV10: $\\varepsilon(e^\\varepsilon-1)$"}
    for method, label in labels.items():
        part = data[data["method"] == method]
        axes[0][0].loglog(part["epsilon"], part["kl"], label=label)
    rr = data[data["method"] == "randomized_response"].iloc[::20]
    axes[0][0].loglog(rr["epsilon"], rr["kl"], "ko", ms=3, mfc="none", label="randomized response (exact KL)")
    axes[0][0].set(xlabel="$\\varepsilon$", ylabel="KL bound", title="(a) KL divergence of an $\\varepsilon$-DP step")
    axes[0][0].legend(loc="upper left")
    dr = data[data["method"] == "dr16"]
    axes[0][1].loglog(dr["epsilon"], dr["ratio_to_lemma5"], "C1")
    axes[0][1].set(xlabel="$\\varepsilon$", ylabel="DR16 / Lemma 5", title="(b) ratio $(1+e^\\varepsilon)/2$")
    _footer(fig, "Lemma 5 of He, Wang, Tao is attained by randomized response.")
    return fig


def plot_high_probability(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F2: (a) deviation a, (b) failure probability b per δ (clipped at 1 for display, labelled vacuous),
    (c) the sample-size floor N_min."""
    fig, axes = figure(1, 3, width=3.3)
    first = data[data["delta"] == data["delta"].iloc[0]]
    for i, method in enumerate(["thm1", "nissim_stemmer", "dwork_2015"]):
        part = first[first["method"] == method]
        axes[0][0].loglog(part["epsilon"], part["deviation"], color=COLOURS[i], label={"thm1": "Thm 1: 9ε",
                          "nissim_stemmer": "Nissim-Stemmer: 13ε", "dwork_2015": "Dwork et al. 2015: 4ε"}[method])
    axes[0][0].axhline(1.0, color="k", lw=0.8, ls=":")
    axes[0][0].text(axes[0][0].get_xlim()[0], 1.1, "vacuous above", fontsize=7)
    axes[0][0].set(xlabel="$\\varepsilon$", ylabel="deviation a", title="(a) deviation")
    axes[0][0].legend(loc="lower right")
    styles = {"thm1": "-", "thm1_intro": "--", "nissim_stemmer": "-.", "dwork_2015": ":"}
    for j, delta in enumerate(sorted(data["delta"].unique())):
        for method, style in styles.items():
            part = data[(data["delta"] == delta) & (data["method"] == method)]
            b = part["failure_probability"].to_numpy()
            axes[0][1].loglog(part["epsilon"], np.minimum(b, 1.0), style, color=COLOURS[j],
                              label=f"{method}, δ={delta:g}")
    axes[0][1].axhline(1.0, color="k", lw=0.8)
    axes[0][1].text(axes[0][1].get_xlim()[0], 0.3, "≥1: vacuous (drawn at 1)", fontsize=7)
    axes[0][1].set(xlabel="$\\varepsilon$", ylabel="failure probability b", title="(b) failure probability")
    axes[0][1].legend(fontsize=5.5, loc="lower left")
    for j, delta in enumerate(sorted(data["delta"].unique())):
        part = data[(data["delta"] == delta) & (data["method"] == "thm1")]
        axes[0][2].loglog(part["epsilon"], part["n_min"], color=COLOURS[j], label=f"δ={delta:g}")
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
            axes[0][0].loglog(part["epsilon"], part["bound"], style, color=COLOURS[j], label=f"{method}, kδ={kd:g}")
        part = data[(data["k_delta"] == kd) & (data["method"] == "thm2")]
        axes[0][1].loglog(part["epsilon"], part["ratio_ns_to_thm2"], color=COLOURS[j], label=f"kδ={kd:g}")
    axes[0][0].axhline(1.0, color="k", lw=0.8, ls=":")
    axes[0][0].set(xlabel="$\\varepsilon$", ylabel="bound on |E gap|", title="(a) on-average bounds (trivial ≥ 1)")
    axes[0][0].legend(fontsize=6)
    axes[0][1].set(xlabel="$\\varepsilon$", ylabel="NS / Thm 2", title="(b) ratio")
    axes[0][1].legend()
    _footer(fig, "Thm 2: $e^{-\\varepsilon}k\\delta+1-e^{-\\varepsilon}$; Nissim-Stemmer: $k\\delta+2\\varepsilon$.")
    return fig


def plot_epsilon_vs_steps(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F4: ε′ against T per step ε (log-log): the paper's Thm 4 ε′ is KOV's (one curve)."""
    eps_values = sorted(data["epsilon_step"].unique())
    fig, axes = figure(1, len(eps_values), width=3.3)
    labels = {"basic": ("basic Tε", ":"), "drv": ("DRV", "-."), "kov_thm4": ("KOV 3.4 = paper Thm 4", "-"),
              "cor3": ("paper Cor 3 ($\\varepsilon'_3$)", "--"), "optimal_pure": ("exact optimal (pure steps)", "-")}
    for ax, eps in zip(axes[0], eps_values):
        for i, (method, (label, style)) in enumerate(labels.items()):
            part = data[(data["epsilon_step"] == eps) & (data["method"] == method)]
            ax.loglog(part["t"], part["eps_prime"], style, color=COLOURS[i], label=label,
                      lw=2.6 if method == "kov_thm4" else 1.4)
        ax.set(xlabel="T", ylabel="$\\varepsilon'$", title=f"step ε = {eps:g}")
    axes[0][0].legend(fontsize=6)
    _footer(fig, f"δ̃ = {params['delta_tilde']:g}; optimal at δ′ = {params['optimal_delta']:g} for ε-DP steps.")
    return fig


def plot_delta_vs_steps(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F5: δ′/(Tδ) against T with the universal lower bound; the impossible region below it is shaded."""
    settings = data[["epsilon_step", "delta_step"]].drop_duplicates().to_numpy()
    fig, axes = figure(1, len(settings), width=4.0, height=3.2)
    styles = {"drv": "-.", "kov": "-", "cor2": "-", "cor2_first_order": ":", "thm4_box": "--", "cor3_corrected": "-",
              "cor3_as_printed": ":", "optimal_at_kov_eps": "-"}
    for ax, (eps, delta) in zip(axes[0], settings):
        panel = data[(data["epsilon_step"] == eps) & (data["delta_step"] == delta)]
        floor = panel[panel["method"] == "lower_bound"]
        y_floor = floor["delta_prime_over_t_delta"].to_numpy()
        ax.fill_between(floor["t"], 0, y_floor, color="0.85", label="impossible for any valid theorem")
        ax.plot(floor["t"], y_floor, "k", lw=2, label="lower bound $1-(1-\\delta)^T$")
        for i, (method, style) in enumerate(styles.items()):
            part = panel[panel["method"] == method]
            ax.plot(part["t"], part["delta_prime_over_t_delta"], style, color=COLOURS[i], label=method)
            bad = part[_bool(part["below_lower_bound"])]
            ax.plot(bad["t"], bad["delta_prime_over_t_delta"], "x", color=COLOURS[i], ms=3)
        ax.set_xscale("log")
        ax.set(xlabel="T", ylabel="$\\delta'/(T\\delta)$", title=f"ε = {eps:g}, δ = {delta:g}")
        low = np.nanmin(panel["delta_prime_over_t_delta"])
        ax.set_ylim(min(low, 1.0) * 0.97, 1.15)
    axes[0][0].legend(fontsize=5.5, loc="upper right")
    _footer(fig, f"δ̃ = {params['delta_tilde']:g}; crosses: δ′ below the lower bound (the theorem is false there). "
                 "Cor 3 uses its own ε′; the others the KOV/Thm 4 ε′. The y-axis is zoomed to [min, 1.15] "
                 "(small-T values above it, where δ̃ dominates, are in the data file).")
    return fig


def plot_fair_comparison(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F6: smallest ε′ certified at δ_target against T; impossible paper values circled, infeasible methods absent."""
    fig, axes = figure(1, 1, width=5.0, height=3.4)
    ax = axes[0][0]
    for i, method in enumerate(data["method"].unique()):
        part = data[data["method"] == method]
        ax.loglog(part["t"], part["eps_prime"].astype(float), "o-", ms=2.5, color=COLOURS[i], label=method)
        bad = part[_bool(part["below_optimal"])]
        ax.plot(bad["t"], bad["eps_prime"].astype(float), "o", ms=8, mfc="none", color="r")
        only = part[_bool(part["feasible_only_for_paper"])]
        ax.plot(only["t"], only["eps_prime"].astype(float), "s", ms=8, mfc="none", color="m")
    ax.plot([], [], "o", mfc="none", color="r", label="below exact optimum (impossible)")
    ax.plot([], [], "s", mfc="none", color="m", label="finite only for the paper")
    ax.set(xlabel="T", ylabel="smallest certified $\\varepsilon'$",
           title=f"step (ε, δ) = ({params['epsilon']:g}, {params['delta']:g}), δ_target = {params['delta_target']:g}")
    ax.legend(fontsize=6)
    _footer(fig, "Paper theorems with δ̃ optimised on a grid; missing points are infinite (no guarantee).")
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
    axes[0][0].legend(fontsize=5.5)
    _footer(fig, f"τ = {params['tau']}, L = {params['L']}, δ = {params['delta']:g}, δ̃ = {params['delta_tilde']:g}; "
                 "above the black line the bound is vacuous.")
    return fig


def plot_empirical(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F8: measured |gap| (mean ± std over replicates) against T next to the bounds, rows N, columns d, plus a
    companion column against σ at the reference T; vacuous bounds are hollow triangles pinned at y = 1."""
    sizes, dims = sorted(data["n"].unique()), sorted(data["d"].unique())
    sigmas = sorted(data["sigma"].unique())
    fig, axes = figure(len(sizes), len(dims) + 1, width=3.0, height=2.4)
    for r, n in enumerate(sizes):
        for c, d in enumerate(dims):
            ax = axes[r][c]
            for i, sigma in enumerate(sigmas):
                part = data[(data["n"] == n) & (data["d"] == d) & (data["sigma"] == sigma)].sort_values("t")
                colour = COLOURS[i % len(COLOURS)]
                ax.errorbar(part["t"], part["mean_abs_gap"], yerr=part["std_abs_gap"], color=colour, lw=1.2,
                            capsize=1.5, label=f"σ={sigma:g}")
                if sigma == 0:
                    continue
                for column, vacuous, style, lw in (("hp_bound_valid", "hp_vacuous_valid", "--", 1.0),
                                                   ("hp_bound_as_printed", "hp_vacuous_as_printed", ":", 0.7),
                                                   ("on_average_valid", "on_average_vacuous_valid", "-.", 1.0)):
                    flag = _bool(part[vacuous])
                    values = part[column].to_numpy(dtype=float)
                    ax.plot(part["t"], np.where(flag, np.nan, values), style, color=colour, lw=lw)
                    ax.plot(part["t"][flag], np.full(flag.sum(), VACUOUS_Y), "^", mfc="none", color=colour, ms=4)
            ax.set_xscale("log")
            ax.set_xticks(sorted(part["t"].unique()), [str(int(t)) for t in sorted(part["t"].unique())], minor=False)
            ax.minorticks_off()
            ax.set_yscale("log")
            ax.set_ylim(1e-4, 2.0)
            ax.set_title(f"N = {n:g}, d = {d}")
            ax.set_xlabel("T")
            ax.set_ylabel("|gap| and bounds")
        ax = axes[r][-1]
        ref = data[(data["n"] == n) & (data["t"] == params["reference_t"])]
        for c, d in enumerate(dims):
            part = ref[ref["d"] == d].sort_values("sigma")
            x = part["sigma"].to_numpy(dtype=float)
            ax.plot(x, part["mean_abs_gap"], "o-", color=COLOURS[c], ms=3, label=f"|gap|, d={d}")
            ax.plot(x, part["test_error"], "s:", color=COLOURS[c], ms=3, label=f"test error, d={d}")
        part = ref[ref["d"] == dims[0]].sort_values("sigma")
        ax.plot(part["sigma"], part["hp_bound_valid"].where(~_bool(part["hp_vacuous_valid"])), "k--", label="HP (V)")
        ax.plot(part["sigma"], part["on_average_valid"], "k-.", label="on-average (V)")
        ax.set_yscale("log")
        ax.set_ylim(1e-4, 2.0)
        ax.set(xlabel="σ", title=f"N = {n:g}, T = {params['reference_t']}")
        ax.legend(fontsize=5)
    axes[0][0].plot([], [], "^", mfc="none", color="k", label="vacuous bound (≥ 1)")
    axes[0][0].legend(fontsize=5.5, loc="lower right")
    _footer(fig, "Solid: mean |gap| ± std; dashed: Thm 1 HP bound (valid variant V); dotted: as printed (P); "
                 "dash-dot: Thm 2 on-average (V); hollow triangles at 1: vacuous. Bounds do not depend on d.")
    return fig


def plot_federated(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """F9: federated ε′ against rounds for the three ε̃ variants, and the client-level HP bound."""
    combos = data[["clients", "tau"]].drop_duplicates().to_numpy()
    fig, axes = figure(1, 2, width=4.0, height=3.2)
    styles = {"as_printed": ":", "substitution": "-", "add_remove": "--"}
    shown = data[(data["clients"] == combos[-1][0]) & (data["tau"] == combos[-1][1])]
    for i, sigma in enumerate(sorted(data["sigma"].unique())):
        for variant, style in styles.items():
            part = shown[(shown["sigma"] == sigma) & (shown["variant"] == variant)]
            axes[0][0].loglog(part["t"], part["eps_prime"], style, color=COLOURS[i], label=f"σ={sigma:g}, {variant}")
    axes[0][0].set(xlabel="rounds T", ylabel="$\\varepsilon'$",
                   title=f"(a) N = {combos[-1][0]:g} clients, τ = {combos[-1][1]}")
    axes[0][0].legend(fontsize=5)
    for j, (clients, tau) in enumerate(combos):
        part = data[(data["clients"] == clients) & (data["tau"] == tau) & (data["variant"] == "substitution")
                    & (data["sigma"] == data["sigma"].max())]
        axes[0][1].loglog(part["t"], part["hp_bound"], color=COLOURS[j], label=f"N={clients:g}, τ={tau}")
    axes[0][1].axhline(1.0, color="k", lw=0.8)
    axes[0][1].set(xlabel="rounds T", ylabel="client-level HP bound",
                   title=f"(b) Thm 1, substitution variant, σ = {data['sigma'].max():g}")
    axes[0][1].legend(fontsize=6)
    _footer(fig, f"δ = {params['delta']:g}, δ̃ = {params['delta_tilde']:g}; above 1 the bound is vacuous.")
    return fig
