"""Figure 2 of Hu, Sanyal, Schölkopf (2024): overall (ε, δ) of the pre-processed Gaussian mechanism (Δ_f = L = 1,
ε = 1, δ = 1e-3), SRDP analysis (Table-2 Gaussian row, α ≥ 11, Lemma M) against group privacy (exact Gaussian group
bound, group size m = Δ_∞), with the optional optimised-Theorem-2 curve (p = q free, all α > 1)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.theory import smooth_rdp as s

__all__ = ["compute_fig2"]


def _rows(
    panel: str, x_name: str, x: np.ndarray, setting: str, tau: np.ndarray, m: np.ndarray, params: Mapping[str, Any]
) -> list[dict[str, Any]]:
    eps, delta = float(params["eps"]), float(params["delta"])
    curves = {
        "srdp_table2": s.table2_gaussian_dp(tau, eps, delta),
        "group_privacy": s.group_privacy_gaussian_dp(m, eps, delta),
    }
    if params["optimised_curve"]:
        mech = s.gaussian_mechanism(eps)
        curves["srdp_theorem2_optimised"] = np.array(
            [s.theorem2_dp_optimised(mech, float(t), delta)["epsilon"] for t in tau]
        )
    return [
        {
            "panel": panel,
            "x_name": x_name,
            "x": float(xi),
            "setting": setting,
            "method": method,
            "epsilon_dp": float(v),
            "tau": float(t),
            "group_size": float(mi),
            "eps": eps,
            "delta": delta,
        }
        for method, values in curves.items()
        for xi, v, t, mi in zip(x, values, tau, m)
    ]


def compute_fig2(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]]
) -> pd.DataFrame:
    """Panels (a) quantization over η (τ = ηp, m = p), (b) mean imputation over p/n (τ = 2p/(n−p), m = p),
    (c) PCA rank reduction over n (τ = 4(3n+2)/((n−1)δ) and the 12.2/δ form, m = n)."""
    points = int(params["n_points"])
    rows: list[dict[str, Any]] = []
    eta = np.logspace(-3, 0, points)
    for p in progress(params["quant_p"]):
        rows += _rows("a", "eta", eta, f"p={p}", eta * p, np.full(points, float(p)), params)
    n = int(params["imputation_n"])
    missing = np.unique(np.clip(np.round(np.linspace(0.01, 0.99, points) * n), 1, n - 1)).astype(int)
    rows += _rows(
        "b", "missing_fraction", missing / n, f"n={n}", 2 * missing / (n - missing), missing.astype(float), params
    )
    sizes = np.unique(np.round(np.logspace(np.log10(101), np.log10(float(params["pca_n_max"])), points))).astype(int)
    for gap in params["pca_gaps"]:
        rows += _rows(
            "c", "n", sizes, f"gap={gap:g}, tau=12.2/gap", s.pca_tau(sizes, gap, "table2"), sizes.astype(float), params
        )
        rows += _rows("c", "n", sizes, f"gap={gap:g}, tau exact", s.pca_tau(sizes, gap), sizes.astype(float), params)
    return pd.DataFrame(rows)
