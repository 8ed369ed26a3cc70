"""Claims of Figures 2-3 of Asoodeh, Diaz, Calmon (2020) (Theorem 4 against the RDP baseline of Proposition 1), the
ordering of users, and how the comparison depends on the domain diameter (``ext_regime``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize

from dplab.accounting.inversion import epsilon_for_delta
from dplab.report.claims import ClaimRule, Numbers, holds_if
from dplab.studies.contraction.claims_common import artifact_path
from dplab.studies.contraction.curves import gaussian_setting
from dplab.theory.contraction import epsilon_prop1, kappa_prop1, log_delta_prop1, log_delta_thm4

__all__ = ["FIGURE_RULES", "LATER_USERS_DELTAS", "HIGH_PRIVACY_EPSILON", "epsilon_gaps"]

#: Sec. IV, Fig. 2: "our approach outperforms [12]": Theorem 4's delta is at most Prop. 1's at this share of the grid.
OUTPERFORM_SHARE = 1.0
#: Sec. IV, Fig. 2, "especially for the individuals whose records were processed later": the epsilon gap at these
#: deltas (privacy is reported as epsilon at a target delta).
LATER_USERS_DELTAS = (1e-3, 1e-5, 1e-8)
#: Sec. IV, Fig. 3, "better privacy in the high privacy region (i.e., small epsilon)": epsilon up to this value.
HIGH_PRIVACY_EPSILON = 0.25
#: Sec. I and IV-E, "individuals whose records were processed earlier experience higher privacy": log10 delta may
#: fall by at most this much from one user to the next (floating point only).
MONOTONE_TOLERANCE = 1e-12


def _wide(curves: pd.DataFrame) -> pd.DataFrame:
    """log10 delta of thm4 and prop1 side by side, one row per (i, epsilon)."""
    return curves.pivot_table(index=["i", "epsilon"], columns="method", values="log10_delta").reset_index()


def _at_epsilon_one(part: pd.DataFrame) -> pd.Series:
    return part.iloc[(part["epsilon"] - 1.0).abs().argmin()]


# ------------------------------------------------------------------------------------- Fig. 2: outperforms


def measure_fig2(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    wide = _wide(frames["fig2"])
    per_i = []
    for i, part in wide.groupby("i"):
        at1 = _at_epsilon_one(part)
        per_i.append((int(i), float(np.mean(part["thm4"] <= part["prop1"])), at1["thm4"], at1["prop1"]))
    return {"per_i": per_i, "epsilon_max": float(wide["epsilon"].max())}


def verdict_fig2(numbers: Numbers) -> str:
    return holds_if(all(share >= OUTPERFORM_SHARE for _, share, _, _ in numbers["per_i"]))


def evidence_fig2(numbers: Numbers) -> str:
    return "; ".join(
        f"i={i}: Thm4<=Prop1 at {share:.0%} of eps in [0, {numbers['epsilon_max']:g}], at eps=1 "
        f"delta {10**t:.3e} vs {10**p:.3e}"
        for i, share, t, p in numbers["per_i"]
    )


# ------------------------------------------------------------------------------------- Fig. 2: later users


def epsilon_gaps(curve: Mapping[str, Any], deltas=LATER_USERS_DELTAS) -> dict[float, list[tuple[int, float]]]:
    """Proposition 1's minus Theorem 4's epsilon at each fixed delta, per position i of ``curve`` (exact: Prop. 1's
    closed-form inverse, Theorem 4 inverted with a widening bracket, so no epsilon is cut at the figure's axis)."""
    setting = gaussian_setting(curve)
    gaps: dict[float, list[tuple[int, float]]] = {}
    for delta in deltas:
        gaps[delta] = []
        for i in curve["positions"]:
            kappa = kappa_prop1(L=setting["L"], sigma=setting["sigma"], M=setting["M"], n=setting["n"], i=i)
            thm4 = epsilon_for_delta(
                lambda e, i=i: float(log_delta_thm4(e, diameter=curve["diameter"], i=i, **setting)),
                delta,
                expand_to=1e6,
            )
            gaps[delta].append((int(i), float(epsilon_prop1(delta, kappa=kappa)) - thm4))
    return gaps


def _trend(values: list[float]) -> str:
    steps = np.diff(values)
    return "grows" if np.all(steps > 0) else ("shrinks" if np.all(steps < 0) else "is not monotone")


def measure_later_users(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    wide = _wide(frames["fig2"])
    at1 = [(int(i), _at_epsilon_one(part)) for i, part in wide.groupby("i")]
    return {
        "gaps": epsilon_gaps(config["figures"]["fig2"]),
        "log_ratios": [(i, r["prop1"] - r["thm4"]) for i, r in at1],
    }


def verdict_later_users(numbers: Numbers) -> str:
    grows = [_trend([g for _, g in rows]) == "grows" for rows in numbers["gaps"].values()]
    return "holds" if all(grows) else ("partial" if any(grows) else "fails")


def evidence_later_users(numbers: Numbers) -> str:
    gaps, log_ratios = numbers["gaps"], numbers["log_ratios"]
    epsilon_text = "; ".join(
        f"delta={d:g}: " + ", ".join(f"i={i} {g:.3f}" for i, g in rows) + f" ({_trend([g for _, g in rows])})"
        for d, rows in gaps.items()
    )
    return (
        f"Epsilon gaps eps_Prop1 - eps_Thm4: {epsilon_text}. Other reading (not deciding): the ratio of deltas "
        f"Prop1/Thm4 at eps = 1 {_trend([r for _, r in log_ratios])} with i (log10 ratio "
        + ", ".join(f"i={i} {r:.2f}" for i, r in log_ratios)
        + ")"
    )


# ------------------------------------------------------------------------------------- Fig. 3


def _grid_crossover(part: pd.DataFrame) -> float:
    """Smallest epsilon > 0 on the grid where Proposition 1 is strictly below Theorem 4 (nan if none)."""
    worse = part[(part["epsilon"] > 0) & (part["prop1"] < part["thm4"])]
    return float(worse["epsilon"].min()) if len(worse) else float("nan")


def _exact_crossover(curve: Mapping[str, Any], i: int, grid_crossing: float, step: float) -> float:
    """The epsilon where Theorem 4 and Proposition 1 give the same delta, by Brent's method on the difference of
    their log deltas in the grid cell that ends at ``grid_crossing`` (nan if the grid shows no crossing)."""
    if np.isnan(grid_crossing):
        return float("nan")
    setting = gaussian_setting(curve)
    kappa = kappa_prop1(L=setting["L"], sigma=setting["sigma"], M=setting["M"], n=setting["n"], i=i)

    def difference(eps: float) -> float:
        thm4 = float(log_delta_thm4(eps, diameter=curve["diameter"], i=i, **setting))
        return thm4 - float(log_delta_prop1(eps, kappa=kappa))

    return float(optimize.brentq(difference, grid_crossing - step, grid_crossing, xtol=1e-9))


def measure_fig3(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    wide = _wide(frames["fig3"])
    step = float(wide["epsilon"].diff().max())
    rows = []
    for i, part in wide.groupby("i"):
        small = part[part["epsilon"] <= HIGH_PRIVACY_EPSILON]
        crossing = _grid_crossover(part)
        exact = _exact_crossover(config["figures"]["fig3"], int(i), crossing, step)
        rows.append((int(i), bool(np.all(small["thm4"] <= small["prop1"])), crossing, exact))
    return {"rows": rows, "step": step}


def verdict_fig3(numbers: Numbers) -> str:
    rows = numbers["rows"]
    small_ok = all(ok for _, ok, _, _ in rows)
    return holds_if(small_ok and np.isnan(rows[-1][2]))


def _crossing_text(crossing: float, exact: float) -> str:
    return "none" if np.isnan(crossing) else f"{crossing:.3f} (exact {exact:.3f})"


def evidence_fig3(numbers: Numbers) -> str:
    return (
        "; ".join(
            f"i={i}: Thm4<=Prop1 for eps<={HIGH_PRIVACY_EPSILON:g}: {ok}, first eps where Prop1<Thm4: "
            + _crossing_text(crossing, exact)
            for i, ok, crossing, exact in numbers["rows"]
        )
        + f" (grid step {numbers['step']:.3g})"
    )


# ------------------------------------------------------------------------------------- earlier users


def measure_monotone(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    checks = []
    for name in ("fig2", "fig3"):
        for method, part in frames[name].groupby("method"):
            table = part.pivot_table(index="epsilon", columns="i", values="log10_delta").sort_index(axis=1)
            steps = np.diff(table.to_numpy(), axis=1)
            checks.append((name, method, float(np.min(steps[np.isfinite(steps)]))))
    return {"checks": checks}


def verdict_monotone(numbers: Numbers) -> str:
    return holds_if(all(step >= -MONOTONE_TOLERANCE for _, _, step in numbers["checks"]))


def evidence_monotone(numbers: Numbers) -> str:
    return "; ".join(
        f"{n} {m}: monotone {s >= -MONOTONE_TOLERANCE} (min step in log10 delta across i {s:.3g})"
        for n, m, s in numbers["checks"]
    )


# ------------------------------------------------------------------------------------- regime (extension)


def measure_regime(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    regime = frames["ext_regime"]
    rows = []
    for i, part in regime.groupby("i"):
        prop1 = float(part.loc[part["method"] == "prop1", "epsilon"].iloc[0])
        rows.append((int(i), float(part["thm4_worse_from_diameter"].iloc[0]), prop1))
    return {"rows": rows, "delta": float(regime["delta"].iloc[0])}


def verdict_regime(numbers: Numbers) -> str:
    return "holds" if all(np.isnan(f) for _, f, _ in numbers["rows"]) else "partial"


def evidence_regime(numbers: Numbers) -> str:
    return (
        "; ".join(
            f"i={i}: Thm 4 worse than Prop. 1 (eps {p:.3f}) from D = {f:.4f}"
            if not np.isnan(f)
            else f"i={i}: Thm 4 never worse on the sweep"
            for i, f, p in numbers["rows"]
        )
        + f" (delta = {numbers['delta']:g}, eta sigma = 1)"
    )


FIGURE_RULES = (
    ClaimRule(
        "fig2_thm4_outperforms_prop1",
        "Sec. IV, Fig. 2",
        "For convex losses (rho = 0), Theorem 4 gives a smaller delta than the RDP baseline (Prop. 1) for every "
        "epsilon and user shown",
        artifact_path("fig2"),
        ("fig2",),
        "holds if Thm 4's delta <= Prop. 1's at every eps of the grid for every user shown, fails otherwise",
        measure_fig2,
        verdict_fig2,
        evidence_fig2,
    ),
    ClaimRule(
        "fig2_especially_later_users",
        "Sec. IV, Fig. 2",
        "The improvement is largest for the individuals processed later",
        artifact_path("fig2"),
        ("fig2",),
        "decided by the epsilon gap eps_Prop1 - eps_Thm4 at fixed delta (the privacy parameter one reports): holds "
        "if it grows with i at every delta in " + ", ".join(f"{d:g}" for d in LATER_USERS_DELTAS) + ", partial if "
        "at some, fails if at none",
        measure_later_users,
        verdict_later_users,
        evidence_later_users,
    ),
    ClaimRule(
        "fig3_small_eps_and_late_users",
        "Sec. IV, Fig. 3",
        "For strongly convex losses, Theorem 4 is better in the high-privacy region (small epsilon) and, for users "
        "appearing late, at every epsilon; the baseline wins at larger epsilon for earlier users",
        artifact_path("fig3"),
        ("fig3",),
        f"holds if Thm 4 <= Prop. 1 at every eps <= {HIGH_PRIVACY_EPSILON:g} for every user and the last user shown "
        "never crosses on the grid; fails otherwise (exact crossings by Brent's method on the closed forms)",
        measure_fig3,
        verdict_fig3,
        evidence_fig3,
    ),
    ClaimRule(
        "earlier_users_more_private",
        "Sec. I and IV",
        "Users whose records are processed earlier enjoy stronger privacy (delta non-decreasing in i)",
        artifact_path("fig2"),
        ("fig2", "fig3"),
        f"holds if log10 delta never decreases in i (tolerance {MONOTONE_TOLERANCE:g}) for both methods of Figs. 2 "
        "and 3; fails otherwise",
        measure_monotone,
        verdict_monotone,
        evidence_monotone,
    ),
)

REGIME_RULE = ClaimRule(
    "regime_thm4_vs_prop1",
    "Sec. IV (Figs. 2-3 use D/(eta sigma) ~ 1 only)",
    "Theorem 4 improves on the RDP baseline (the figures' setting generalises to other domain sizes)",
    artifact_path("ext_regime"),
    ("ext_regime",),
    "holds if Theorem 4's epsilon at the fixed delta never exceeds Prop. 1's on the diameter sweep; partial if it "
    "does from some D on",
    measure_regime,
    verdict_regime,
    evidence_regime,
)
