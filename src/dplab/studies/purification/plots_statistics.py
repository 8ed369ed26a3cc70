"""Figures of the statistics experiments of the purification study (mean estimation, linear regression), drawn only
from their tidy frames (group means and standard errors are read off the frame, nothing is simulated here)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.style import EXTENSION_NOTE, figure, footer, legend_above, legend_below
from dplab.studies.purification.plots import BEFORE_PURIFICATION, largest_relative_difference

__all__ = ["plot_mean_estimation", "plot_linear_regression"]

MEAN_STYLES = {
    "purified_gaussian": ("C3", "o-", "purified Gaussian (pure)"),
    "gaussian_at_purification_delta": ("C5", "x:", "AGM at purification δ (not pure)"),
    "laplace": ("C0", "^-", "Laplace (pure)"),
    "l2_knorm": ("C2", "s-", "ℓ2 K-norm (pure)"),
    "gaussian_reference": ("0.4", "x--", "AGM at reference δ (not pure)"),
    "gaussian_at_delta": ("0.4", "x--", "AGM at (ε_tot, δ) (not pure)"),
}

REGRESSION_STYLES = {
    "pure_adassp": ("C3", "o-", "pure AdaSSP (Alg. 13)"),
    "adassp_at_purification_delta": ("C5", "o:", "AdaSSP at purification δ (not pure)"),
    "adassp_reference": ("0.4", "x--", "AdaSSP at δ = 1/n² (not pure)"),
    "laplace_ssp": ("C0", "^-", "Laplace-SSP (pure)"),
}


def _closest(values: pd.Series, target: float) -> float:
    values = np.unique(values.to_numpy(float))
    return float(values[np.argmin(np.abs(np.log(values) - np.log(target)))])


def _mean_sem(part: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    return part.groupby(keys)[column].agg(["mean", "sem"]).reset_index()


def _method_errorbars(
    ax: Any, summary: pd.DataFrame, methods: tuple[str, ...], key: str, x: Callable[[pd.Series], pd.Series]
) -> None:
    """Mean ± s.e. of each method in ``summary`` (columns mean, sem) against x(``key``), in MEAN_STYLES."""
    for method in methods:
        colour, style, label = MEAN_STYLES[method]
        rows = summary[summary["method"] == method].sort_values(key)
        ax.errorbar(x(rows[key]), rows["mean"], yerr=rows["sem"], fmt=style, color=colour, ms=3, lw=1, label=label)


def _mean_dimension_panel(ax: Any, data: pd.DataFrame, params: Mapping[str, Any]) -> None:
    """E‖M(D) − D̄‖₂ against d at the ε_tot closest to 1, one line per method."""
    dim = data[data["panel"] == "dimension"]
    eps = _closest(dim["epsilon_total"], 1.0)
    summary = _mean_sem(dim[dim["epsilon_total"] == eps], ["method", "d"], "error_mean")
    methods = ("purified_gaussian", "laplace", "l2_knorm", "gaussian_reference")
    _method_errorbars(ax, summary, methods, "d", lambda column: column)
    ax.set(xscale="log", yscale="log", xlabel="d", ylabel="E‖M(D) − D̄‖₂", title=f"n = {params['n']}, ε_tot = {eps:g}")
    legend_below(ax)


def _theorem9_bound_lines(ax: Any, summary: pd.DataFrame) -> None:
    """Theorem 9's lower bound against log(1/δ): solid inside its δ-range, dotted outside."""
    bound = summary[summary["method"] == "gaussian_at_delta"].sort_values("log_delta")
    valid = bound["valid"].astype(bool)
    ax.plot(-bound["log_delta"], bound["bound"].where(valid), "k-", lw=1.2, label="Theorem 9 lower bound")
    ax.plot(-bound["log_delta"], bound["bound"].where(~valid), "k:", lw=0.8, label="(outside its δ-range)")


def _mean_delta_panel(ax: Any, data: pd.DataFrame) -> None:
    """Section 7's picture: error against log(1/δ) of the purified Gaussian and of the AGM at (ε_tot, δ), with
    Theorem 9's bound, the pure rate and the paper's δ."""
    delta = data[data["panel"] == "delta"]
    summary = (
        delta.groupby(["method", "log_delta"])
        .agg(
            mean=("error_mean", "mean"),
            sem=("error_mean", "sem"),
            bound=("theorem9_lower_bound", "first"),
            valid=("theorem9_valid", "first"),
        )
        .reset_index()
    )
    _method_errorbars(ax, summary, ("purified_gaussian", "gaussian_at_delta"), "log_delta", operator.neg)
    _theorem9_bound_lines(ax, summary)
    first = delta.iloc[0]
    ax.axhline(first["pure_rate"], color="C2", ls="--", lw=0.8, label="pure rate dΔ₂/ε_tot (K-norm)")
    ax.axvline(-first["paper_log_delta"], color="C3", ls="-.", lw=0.6, label="paper's δ = 2ω/(32dn²)^d")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="log(1/δ)",
        ylabel="E‖M(D) − D̄‖₂",
        title=f"d = {int(first['d'])}, ε_tot = {first['epsilon_total']:g}",
    )
    ax.set_ylim(float(summary["bound"].min()) / 1e3, max(10 * float(summary["mean"].min()), 1.0))
    legend_below(ax)


def _mean_audit_panel(ax: Any, data: pd.DataFrame) -> None:
    """Exact pure ε of the d = 1 audit against ε_tot, projected AGM and purified, with the bound ε + ε′."""
    audit = data[data["panel"] == "audit"]
    for colour, treatment, label in (("C0", "none", "projected AGM (ε_tot/2)"), ("C3", "full", "purified")):
        rows = audit[audit["treatment"] == treatment].sort_values("epsilon_total")
        ax.plot(rows["epsilon_total"], rows["epsilon_inf"], "o-", color=colour, label=label)
    grid = np.sort(audit["epsilon_total"].unique())
    ax.plot(grid, grid, "k:", lw=0.8, label="bound ε_tot = ε + ε'")
    ax.set(
        xlabel="ε_tot",
        ylabel="exact pure ε (sup log density ratio)",
        title=f"d = 1 audit, n = {int(audit['n'].iloc[0])}",
    )
    legend_below(ax)


def plot_mean_estimation(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """E‖·‖₂ against d; against log(1/δ) with Theorem 9's bound; exact pure ε of the d = 1 audit."""
    fig, axes = figure(1, 3, width=3.4, height=3.0)
    _mean_dimension_panel(axes[0][0], data, params)
    _mean_delta_panel(axes[0][1], data)
    _mean_audit_panel(axes[0][2], data)
    footer(
        fig,
        f"{EXTENSION_NOTE}. Mean of n records in {{±1/√d}}^d (replace-one); purified methods split ε_tot "
        f"equally; {params['seeds']} seeds × {params['draws']} draws, mean ± s.e. over seeds. Theorem 9 bound "
        "drawn solid only inside its δ-range.",
    )
    return fig


def _before_purification_note(part: pd.DataFrame) -> str:
    """The footer's sentence on how far AdaSSP before purification is from pure AdaSSP (often hidden under it)."""
    summary = _mean_sem(part, ["method", "d", "n"], "excess_mse_mean")
    gap = largest_relative_difference(summary, ["d", "n"], "adassp_at_purification_delta", "pure_adassp")
    if not np.isfinite(gap):
        return ""
    return (
        f" AdaSSP before purification (hollow circles) and pure AdaSSP differ by at most {gap:.2g} (relative) in "
        "mean excess MSE."
    )


def plot_linear_regression(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """Excess MSE over OLS against n, one panel per d, at the ε_tot closest to 1, with Table 1's rate."""
    ds = sorted(data["d"].unique())
    fig, axes = figure(1, len(ds), width=3.2, height=3.0)
    eps = _closest(data["epsilon_total"], 1.0)
    part = data[data["epsilon_total"] == eps]
    for ax, d in zip(axes[0], ds):
        rows_d = part[part["d"] == d]
        summary = _mean_sem(rows_d, ["method", "n"], "excess_mse_mean")
        for method, (colour, style, label) in REGRESSION_STYLES.items():
            rows = summary[summary["method"] == method].sort_values("n")
            marker = BEFORE_PURIFICATION if method == "adassp_at_purification_delta" else {"ms": 3}
            ax.errorbar(rows["n"], rows["mean"], yerr=rows["sem"], fmt=style, color=colour, lw=1, label=label, **marker)
        rate = rows_d[rows_d["method"] == "pure_adassp"].groupby("n")["rate_after"].mean()
        ax.plot(rate.index, rate.to_numpy(), color="0.6", ls="--", lw=0.8, label="min{d/(nε), d²/(λ_min n²ε²)}")
        lam = rows_d["lambda_min"].mean()
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="n",
            ylabel="excess MSE over OLS",
            title=f"d = {d}, ε_tot = {eps:g}, λ_min ≈ {lam:.3g}",
        )
    footer(
        fig,
        f"{EXTENSION_NOTE}. Add/remove adjacency, ‖x‖ ≤ 1, |y| ≤ 1; pure AdaSSP uses ε = ε' = ε_tot/2, "
        f"ω = 1/n², r̃ = 1 + nε/d; {params['seeds']} seeds × {params['draws']} draws, mean ± s.e. over seeds; "
        "the rate is Table 1's (constants dropped)." + _before_purification_note(part),
    )
    legend_above(fig, axes[0][0], ncol=3)
    return fig
