"""Figure of the query-release experiment (Algorithm 16, Theorem 8), drawn only from its tidy data file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from matplotlib.ticker import NullFormatter

from dplab.report.style import EXTENSION_NOTE, figure, footer, legend_above

__all__ = ["METHOD_STYLES", "plot_query_release"]

METHOD_STYLES = {
    "alg16_purified": ("C3", "o-", "Alg. 16 purified MWEM (pure)"),
    "alg16_mwem_stage": ("C5", "x:", "Alg. 16 MWEM stage, before sampling"),
    "pure_mwem": ("C1", "s-", "MWEM, basic composition (pure)"),
    "laplace_answers": ("C0", "^-", "Laplace on K answers (pure)"),
    "laplace_histogram": ("C2", "D-", "Laplace histogram (pure)"),
    "mwem_reference": ("0.4", "v--", "MWEM at δ = 1/n² (not pure)"),
}

_PARAMETER_NAMES = {"epsilon_total": "ε_tot", "k": "K"}
_SWEEPS = (
    ("in_n_sweep", "n", "n"),
    ("in_epsilon_sweep", "epsilon_total", "$\\varepsilon_{tot}$"),
    ("in_d_sweep", "d", "d"),
    ("in_k_sweep", "k", "K"),
)


def plot_query_release(data: pd.DataFrame, params: Mapping[str, Any]) -> Any:
    """ℓ∞ error (mean ± s.e. over seeds) against n, ε_tot, d and K, one row per query family; the dashed black line
    is Theorem 8's rate d^{1/3}/(nε)^{1/3} (ε = ε_tot/2, constants and logs dropped)."""
    families = list(dict.fromkeys(data["query_family"]))
    fig, axes = figure(len(families), len(_SWEEPS), width=2.9, height=2.5)
    base = params["base"]
    for row, family in enumerate(families):
        part = data[data["query_family"] == family]
        for col, (flag, xcol, label) in enumerate(_SWEEPS):
            ax = axes[row][col]
            sweep = part[part[flag].astype(bool)]
            summary = sweep.groupby(["method", xcol])["error_linf"].agg(["mean", "sem"]).reset_index()
            for method, (colour, style, name) in METHOD_STYLES.items():
                rows = summary[summary["method"] == method].sort_values(xcol)
                if len(rows):
                    ax.errorbar(
                        rows[xcol], rows["mean"], yerr=rows["sem"], fmt=style, color=colour, ms=3, lw=1, label=name
                    )
            rate = sweep.groupby(xcol)["rate_theorem8"].first().sort_index()
            ax.plot(rate.index, rate.to_numpy(), "k--", lw=0.8, label="$d^{1/3}/(n\\varepsilon)^{1/3}$")
            ax.set_yscale("log")
            if xcol in ("n", "epsilon_total", "k"):
                ax.set_xscale("log")
            if xcol != "n":
                ax.set_xticks(rate.index.to_numpy(float), [f"{v:g}" for v in rate.index])
                ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(label)
            ax.set_ylabel(f"$\\ell_\\infty$ error ({family.replace('_', ' ')})" if col == 0 else "")
            fixed = {key: value for key, value in base.items() if key != xcol}
            ax.set_title(
                ", ".join(f"{_PARAMETER_NAMES.get(key, key)} = {value:g}" for key, value in fixed.items()), fontsize=8
            )
    capped = [
        METHOD_STYLES[method][2] if method in METHOD_STYLES else method
        for method in data[data["capped"].astype(bool)]["method"].unique()
    ]
    footer(
        fig,
        f"{EXTENSION_NOTE}. Product-Bernoulli data, {params['seeds']} seeds; add/remove adjacency, n public. "
        f"Alg. 16 at ε = ε_tot/2 (and ε' = ε_tot/2); MWEM rounds capped at {params['max_rounds']} for "
        f"{', '.join(capped) if capped else 'no method'}.",
    )
    legend_above(fig, axes[0][0], ncol=4)
    return fig
