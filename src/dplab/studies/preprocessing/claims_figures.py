"""Claims of Hu, Sanyal, Schölkopf (2024) decided by Figure 2 (Sec. 4.2) and its text: measure, verdict,
evidence per claim."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.claims import ClaimRule, Numbers, erratum_if, holds_if
from dplab.studies.preprocessing.claims_common import artifact_path
from dplab.theory import smooth_rdp

__all__ = ["FIGURE2_RULES", "MINOR_COST_FACTOR", "sign_crossings"]

#: Fig. 2(b): "the difference ... is large for smaller number of missing values": group/SRDP above this near 10%.
LARGE_GAP = 5.0
#: Fig. 2(b): "group privacy achieves a similar guarantee" above 90% missing: group/SRDP within this range.
SIMILAR = (0.5, 2.0)
#: Fig. 2(c): "remains constant": max/min of the SRDP curve over n within round-off.
CONSTANT_TOLERANCE = 1e-9
#: Sec. 5: non-private PCA incurs "a minor constant-order privacy cost". The paper gives no number; "minor" is read
#: as at most doubling the (eps, delta) of the same mechanism without pre-processing.
MINOR_COST_FACTOR = 2.0
_FIG2 = artifact_path("fig2", "figures")


def _wide(frames: Mapping[str, pd.DataFrame], panel: str) -> pd.DataFrame:
    fig2 = frames["fig2"]
    wide = fig2.pivot_table(index=["panel", "setting", "x"], columns="method", values="epsilon_dp").reset_index()
    return wide[wide["panel"] == panel]


# ---------------------------------------------------------------------------------------------- figure reference


def measure_figure_reference(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """The figure v1 cites for mean imputation (1) and the figure whose panel (b) holds it (2, as 002 prints)."""
    return {"printed": 1, "corrected": 2}


def evidence_figure_reference(numbers: Numbers) -> str:
    return (
        f"v1 cites Figure {numbers['printed']}(b); the mean-imputation panel is Figure {numbers['corrected']}(b), as "
        "the later version (002) says"
    )


# ------------------------------------------------------------------------------------------------ Fig. 2(a)


def measure_fig2a(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    a = _wide(frames, "a")
    small = [(s, *g.sort_values("x").iloc[0][["x", "srdp_table2", "group_privacy"]]) for s, g in a.groupby("setting")]
    rising = all(np.all(np.diff(g.sort_values("x")["srdp_table2"]) >= 0) for _, g in a.groupby("setting"))
    return {"smallest_eta": [(s, float(x), float(v), float(g)) for s, x, v, g in small], "rising": bool(rising)}


def verdict_fig2a(numbers: Numbers) -> str:
    below = all(srdp < group for _, _, srdp, group in numbers["smallest_eta"])
    return "holds" if below and numbers["rising"] else "partial"


def evidence_fig2a(numbers: Numbers) -> str:
    return (
        "; ".join(f"{s}: eta={x:g} SRDP {v:.4g} vs group {g:.4g}" for s, x, v, g in numbers["smallest_eta"])
        + f"; SRDP non-decreasing in eta: {numbers['rising']}"
    )


# ------------------------------------------------------------------------------------------------ Fig. 2(b)


def sign_crossings(x: np.ndarray, difference: np.ndarray) -> list[tuple[float, float, float]]:
    """Where a sampled curve difference changes sign: (last sample before, first sample after, the linearly
    interpolated zero) for each change, in order of x; a sample where the difference is exactly 0 is its own
    bracket."""
    x, difference = np.asarray(x, float), np.asarray(difference, float)
    crossings = [(float(v), float(v), float(v)) for v in x[difference == 0]]
    for i in np.flatnonzero(difference[:-1] * difference[1:] < 0):
        x0, x1, d0, d1 = x[i], x[i + 1], difference[i], difference[i + 1]
        crossings.append((float(x0), float(x1), float(x0 - d0 * (x1 - x0) / (d1 - d0))))
    return sorted(crossings, key=lambda c: c[2])


def measure_fig2b(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """The gap group/SRDP (Table 2) near p/n = 0.1 and near 0.9, and every crossing of the two curves."""
    b = _wide(frames, "b").sort_values("x")
    at = {q: b.iloc[(b["x"] - q).abs().argmin()] for q in (0.1, 0.9)}
    return {
        "n": int(str(b["setting"].iloc[0]).split("=")[1]),
        "at": {q: (float(r["x"]), float(r["srdp_table2"]), float(r["group_privacy"])) for q, r in at.items()},
        "crossings": sign_crossings(b["x"].to_numpy(), (b["srdp_table2"] - b["group_privacy"]).to_numpy()),
        "above": int((b["srdp_table2"] > b["group_privacy"]).sum()),
        "points": len(b),
    }


def verdict_fig2b(numbers: Numbers) -> str:
    (_, s10, g10), (_, s90, g90) = numbers["at"][0.1], numbers["at"][0.9]
    return holds_if(g10 / s10 > LARGE_GAP and SIMILAR[0] < g90 / s90 < SIMILAR[1])


def evidence_fig2b(numbers: Numbers) -> str:
    n = numbers["n"]
    where = (
        ", ".join(
            f"p/n = {c:.3f} (p = {c * n:.1f}; between grid points {lo:g} and {hi:g})"
            for lo, hi, c in numbers["crossings"]
        )
        or "nowhere on the grid"
    )
    parts = [f"p/n = {x:.2f}: SRDP {s:.4g} vs group {g:.4g} (ratio {g / s:.3g})" for x, s, g in numbers["at"].values()]
    return (
        "; ".join(parts) + f"; the curves cross at {where} (n = {n}, linear interpolation); SRDP is above group "
        f"privacy at {numbers['above']} of {numbers['points']} grid points"
    )


# ------------------------------------------------------------------------------------------------ Fig. 2(c)


def measure_fig2c(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    c = _wide(frames, "c")
    c = c[c["setting"].str.contains("12.2")]
    spread = c.groupby("setting")["srdp_table2"].agg(lambda v: v.max() / v.min())
    growth = [bool(np.all(np.diff(g.sort_values("x")["group_privacy"]) > 0)) for _, g in c.groupby("setting")]
    return {
        "spread": {s: float(v) for s, v in spread.items()},
        "srdp": {s: float(v) for s, v in c.groupby("setting")["srdp_table2"].max().items()},
        "growing": all(growth),
        "group_range": (float(c["group_privacy"].min()), float(c["group_privacy"].max())),
        "eps": float(frames["fig2"]["eps"].iloc[0]),
        "delta": float(frames["fig2"]["delta"].iloc[0]),
    }


def _constant_in_n(numbers: Numbers) -> bool:
    return all(v < 1 + CONSTANT_TOLERANCE for v in numbers["spread"].values())


def verdict_fig2c(numbers: Numbers) -> str:
    return holds_if(_constant_in_n(numbers) and numbers["growing"])


def evidence_fig2c(numbers: Numbers) -> str:
    low, high = numbers["group_range"]
    return (
        "; ".join(f"{s}: SRDP max/min {v:.6f}" for s, v in numbers["spread"].items())
        + f"; group increasing: {numbers['growing']}, from {low:.4g} to {high:.4g}"
    )


def _no_preprocessing_epsilon(eps: float, delta: float) -> float:
    """(ε, δ) of the Gaussian mechanism alone (RDP αε²/2, Lemma M over every α > 1)."""
    return float(smooth_rdp.rdp_to_dp(smooth_rdp.gaussian_mechanism(eps).rdp, delta)[0])


def verdict_pca_cost(numbers: Numbers) -> str:
    if not _constant_in_n(numbers):
        return "fails"
    minor = all(v / numbers["baseline"] <= MINOR_COST_FACTOR for v in numbers["srdp"].values())
    return "holds" if minor else "partial"


def evidence_pca_cost(numbers: Numbers) -> str:
    base = numbers["baseline"]
    return (
        f"Gaussian mechanism, eps = {numbers['eps']:g}, delta = {numbers['delta']:g}: without pre-processing "
        f"(eps, delta)-DP with eps = {base:.4g}; after non-private PCA (Table 2, Fig. 2(c)): "
        + "; ".join(
            f"{s}: {v:.4g} ({v / base:.3g}x), max/min over n {numbers['spread'][s]:.6f}"
            for s, v in numbers["srdp"].items()
        )
    )


FIGURE2_RULES: tuple[ClaimRule, ...] = (
    ClaimRule(
        "erratum_figure_reference",
        "Sec. 5.1 (v1)",
        "'reflected in Figure 1(b)'",
        _FIG2,
        (),
        "erratum while the cited figure number differs from the figure that holds the mean-imputation panel",
        measure_figure_reference,
        lambda numbers: erratum_if(numbers["printed"] != numbers["corrected"]),
        evidence_figure_reference,
    ),
)
FIGURE2_PANEL_RULES: tuple[ClaimRule, ...] = (
    ClaimRule(
        "fig2a_quantization_small_eta",
        "Sec. 4.2, Fig. 2(a)",
        "SRDP analysis gives significantly stronger guarantees for smaller eta",
        _FIG2,
        ("fig2",),
        "holds if SRDP < group privacy at each setting's smallest eta and SRDP is non-decreasing in eta; partial "
        "otherwise",
        measure_fig2a,
        verdict_fig2a,
        evidence_fig2a,
    ),
    ClaimRule(
        "fig2b_imputation_90pct",
        "Sec. 4.2, Fig. 2(b)",
        "Large gap at few missing values; with >90% missing, group privacy is similar to SRDP",
        _FIG2,
        ("fig2",),
        f"holds if group/SRDP > {LARGE_GAP:g} at the grid point nearest p/n = 0.1 and within ({SIMILAR[0]:g}, "
        f"{SIMILAR[1]:g}) at the one nearest 0.9; fails otherwise",
        measure_fig2b,
        verdict_fig2b,
        evidence_fig2b,
    ),
    ClaimRule(
        "fig2c_pca_constant",
        "Sec. 4.2, Fig. 2(c)",
        "With SRDP the PCA privacy parameter stays constant in n; group privacy grows with n",
        _FIG2,
        ("fig2",),
        "holds if SRDP's max/min over n is 1 (to 1e-9) and group privacy strictly increases in n; fails otherwise",
        measure_fig2c,
        verdict_fig2c,
        evidence_fig2c,
    ),
)
PCA_COST_RULE = ClaimRule(
    "pca_minor_constant_order_cost",
    "Sec. 5, experimental results",
    "Non-private PCA incurs a minor constant-order privacy cost",
    _FIG2,
    ("fig2",),
    "holds if the Fig. 2(c) SRDP (Table 2) curve is constant in n (max/min 1 to 1e-9) and at most "
    f"{MINOR_COST_FACTOR:g}x the eps of the same Gaussian mechanism without pre-processing at every eigen-gap; "
    "partial if constant but larger; fails if not constant",
    lambda frames, config: {
        **measure_fig2c(frames, config),
        "baseline": _no_preprocessing_epsilon(
            float(frames["fig2"]["eps"].iloc[0]), float(frames["fig2"]["delta"].iloc[0])
        ),
    },  # fmt: skip
    verdict_pca_cost,
    evidence_pca_cost,
)
