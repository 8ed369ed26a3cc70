"""Empirical claims (our E1: SGLD, the paper's Algorithm 1, on synthetic logistic regression with the exact risk)
against Theorems 1, 2 and 7 of He, Wang, Tao, each a :class:`~dplab.report.claims.ClaimRule`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.claims import ClaimRule, Numbers, holds_if
from dplab.studies.generalization.claims_common import artifact_path, as_bool

__all__ = ["EMPIRICAL_RULES", "gap_versus_noise", "together_evidence", "together_verdict"]

#: Theorem 1 + 7 (Sec. 5, Remarks): the bound is free of the model size d when its spread across d is at most this.
MODEL_SIZE_SPREAD = 0.0

#: Decision rule of ``e1_privacy_and_generalization_together``: a (d, N, T) cell is *resolvable* when the noiseless
#: gap's confidence interval lies above 0 (there is a gap to shrink); the gap *shrinks* in a cell when the paired
#: interval of gap(σ_max) − gap(σ_min) lies below 0, and *grows* when it lies above 0.
TOGETHER_HOLDS_SHARE = 0.9  # holds: shrinks in >= 90 % of resolvable cells, grows in none, no bound violated
TOGETHER_PARTIAL_SHARE = 0.5  # partial: shrinks in >= 50 %; fails below, or when a bound is violated
#: The design the issue and the tables quote: d = 50, N = 1000, T = 1000.
TOGETHER_REFERENCE = {"d": 50, "n": 1000, "t": 1000}


def gap_versus_noise(f8: pd.DataFrame) -> pd.DataFrame:
    """Measure: per (d, N, T) cell of F8, the signed gap E[R − R̂] at the smallest and the largest σ of its block
    with their t intervals over training sets, the paired change between them with its interval, and whether the
    gap's upper confidence limit at the largest σ stays below Theorem 2's (valid) on-average bound and max|gap| below
    the non-vacuous Theorem 1 HP bound."""
    rows = []
    for (d, n, t), part in f8.groupby(["d", "n", "t"]):
        part = part.sort_values("sigma")
        low, high = part.iloc[0], part.iloc[-1]
        hp_applies = not as_bool(pd.Series([high["hp_vacuous_valid"]])).iloc[0]
        rows.append(
            {
                "d": d,
                "n": n,
                "t": t,
                "sigma_min": low["sigma"],
                "sigma_max": high["sigma"],
                "datasets": high["datasets"],
                "gap_noiseless": low["mean_gap"],
                "gap_noiseless_low": low["gap_ci_low"],
                "gap_noiseless_high": low["gap_ci_high"],
                "gap_noisy": high["mean_gap"],
                "gap_noisy_low": high["gap_ci_low"],
                "gap_noisy_high": high["gap_ci_high"],
                "change": high["gap_change"],
                "change_low": high["gap_change_ci_low"],
                "change_high": high["gap_change_ci_high"],
                "on_average_bound": high["on_average_valid"],
                "bound_violated": bool(high["gap_ci_low"] > high["on_average_valid"])
                or (hp_applies and bool(high["max_abs_gap"] >= high["hp_bound_valid"])),
            }
        )
    cells = pd.DataFrame(rows)
    cells["resolvable"] = cells["gap_noiseless_low"] > 0
    cells["shrinks"] = cells["change_high"] < 0
    cells["grows"] = cells["change_low"] > 0
    return cells


def together_verdict(cells: pd.DataFrame) -> tuple[str, float]:
    """Verdict and share: the share of resolvable cells in which the gap shrinks significantly; ``holds`` if it is
    >= :data:`TOGETHER_HOLDS_SHARE` with no resolvable cell where the gap grows significantly and no bound violated,
    ``fails`` if it is below :data:`TOGETHER_PARTIAL_SHARE` (or no cell is resolvable) or a bound is violated,
    ``partial`` otherwise."""
    resolvable = cells[cells["resolvable"]]
    share = float(resolvable["shrinks"].mean()) if len(resolvable) else float("nan")
    violated = bool(cells["bound_violated"].any())
    if not len(resolvable) or violated or share < TOGETHER_PARTIAL_SHARE:
        return "fails", share
    if share >= TOGETHER_HOLDS_SHARE and not resolvable["grows"].any():
        return "holds", share
    return "partial", share


def _interval(mean: float, low: float, high: float) -> str:
    return f"{mean:.4f} [{low:.4f}, {high:.4f}]"


def together_evidence(cells: pd.DataFrame, share: float, confidence: float) -> str:
    """The evidence text, generated from :func:`gap_versus_noise`'s cells (and the reference design's numbers)."""
    resolvable = cells[cells["resolvable"]]
    ref = cells[
        (cells["d"] == TOGETHER_REFERENCE["d"])
        & (cells["n"] == TOGETHER_REFERENCE["n"])
        & (cells["t"] == TOGETHER_REFERENCE["t"])
    ]
    reference = (
        "; at (d = {d}, N = {n}, T = {t}) over {k} training sets: E[R - R_hat] = {a} at sigma = {s0:g}, {b} at "
        "sigma = {s1:g}, paired change {c}, Thm 2 on-average bound {bound:.3f}".format(
            d=TOGETHER_REFERENCE["d"],
            n=TOGETHER_REFERENCE["n"],
            t=TOGETHER_REFERENCE["t"],
            k=int(ref.iloc[0]["datasets"]),
            a=_interval(*ref.iloc[0][["gap_noiseless", "gap_noiseless_low", "gap_noiseless_high"]]),
            b=_interval(*ref.iloc[0][["gap_noisy", "gap_noisy_low", "gap_noisy_high"]]),
            c=_interval(*ref.iloc[0][["change", "change_low", "change_high"]]),
            s0=ref.iloc[0]["sigma_min"],
            s1=ref.iloc[0]["sigma_max"],
            bound=ref.iloc[0]["on_average_bound"],
        )
        if len(ref)
        else ""
    )
    return (
        f"t intervals at {confidence:.0%}: shrinks in {int(resolvable['shrinks'].sum())}/{len(resolvable)} resolvable "
        f"cells ({share:.0%}), grows in {int(resolvable['grows'].sum())}; {len(cells) - len(resolvable)}/{len(cells)} "
        f"cells not resolvable (noiseless gap not distinguishable from 0); bound violated in "
        f"{int(cells['bound_violated'].sum())}{reference}; eps' decreases in sigma by construction"
    )


def measure_gap_below_bounds(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    noisy = frames["f8"][frames["f8"]["sigma"] > 0]
    hp_ok = noisy[~as_bool(noisy["hp_vacuous_valid"])]
    looseness = hp_ok["hp_bound_valid"] / hp_ok["max_abs_gap"]
    return {
        "non_vacuous": len(hp_ok),
        "noisy": len(noisy),
        "hp_violations": int((hp_ok["max_abs_gap"] >= hp_ok["hp_bound_valid"]).sum()),
        "on_average_violations": int(as_bool(noisy["on_average_violated_valid"]).sum()),
        "coverage_min": float(hp_ok["coverage_valid"].min()) if len(hp_ok) else float("nan"),
        "looseness": (float(looseness.min()), float(looseness.max())) if len(hp_ok) else (float("nan"),) * 2,
    }


def verdict_gap_below_bounds(n: Numbers) -> str:
    return holds_if(n["hp_violations"] == 0 and n["on_average_violations"] == 0)


def evidence_gap_below_bounds(n: Numbers) -> str:
    return (
        f"{n['non_vacuous']}/{n['noisy']} noisy (d, N, sigma, T) points have a non-vacuous HP bound; max|gap| >= bound "
        f"at {n['hp_violations']}; coverage min {n['coverage_min']:.2f}; looseness bound/max|gap| "
        f"{n['looseness'][0]:.0f}...{n['looseness'][1]:.0f}x; on-average bound significantly violated (CI outside) at "
        f"{n['on_average_violations']}"
    )


def measure_model_size(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    f8 = frames["f8"]
    bounds = f8[f8["sigma"] > 0].pivot_table(index=["n", "sigma", "t"], columns="d", values="hp_bound_valid")
    gaps = f8.pivot_table(index=["n", "sigma", "t"], columns="d", values="mean_abs_gap")
    dims = sorted(gaps.columns)
    return {
        "spread": float(np.nanmax(bounds.max(axis=1) - bounds.min(axis=1))) if bounds.shape[1] > 1 else 0.0,
        "dims": (dims[0], dims[-1]),
        "gap_grows": float(np.mean(gaps[dims[-1]] > gaps[dims[0]])) if len(dims) > 1 else float("nan"),
    }


def verdict_model_size(n: Numbers) -> str:
    return holds_if(n["spread"] <= MODEL_SIZE_SPREAD)


def evidence_model_size(n: Numbers) -> str:
    return (
        f"max spread of the HP bound across d = {n['spread']:g}; mean|gap| at d={n['dims'][1]} exceeds "
        f"d={n['dims'][0]} at {n['gap_grows']:.0%} of (N, sigma, T)"
    )


def measure_together(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    return {"cells": gap_versus_noise(frames["f8"]), "confidence": config["empirical"]["confidence"]}


def verdict_together(n: Numbers) -> str:
    return together_verdict(n["cells"])[0]


def evidence_together(n: Numbers) -> str:
    return together_evidence(n["cells"], together_verdict(n["cells"])[1], n["confidence"])


EMPIRICAL_RULES = (
    ClaimRule(
        "e1_gap_below_bounds",
        "Thm 7 + Thms 1-2 (our E1)",
        "The measured generalization gap of SGLD lies below the (valid) bounds",
        artifact_path("f8"),
        ("f8",),
        "holds if max|gap| stays below every non-vacuous HP bound of f8 and no on-average bound is violated (its "
        "confidence interval entirely above the bound); fails otherwise",
        measure_gap_below_bounds,
        verdict_gap_below_bounds,
        evidence_gap_below_bounds,
    ),
    ClaimRule(
        "e1_bound_model_size_free",
        "Sec. 5, Remarks",
        "The SGLD generalization bounds do not depend (explicitly) on model size",
        artifact_path("f8"),
        ("f8",),
        f"holds if the spread of the HP bound across d at fixed (N, sigma, T) is at most MODEL_SIZE_SPREAD = "
        f"{MODEL_SIZE_SPREAD:g}; fails otherwise",
        measure_model_size,
        verdict_model_size,
        evidence_model_size,
    ),
    ClaimRule(
        "e1_privacy_and_generalization_together",
        "Abstract ('one can simultaneously enhance privacy preservation and generalization'); Sec. 4.1.2 after Thm 1; "
        "Thm 7 + Thm 2",
        "More noise gives both more privacy and a smaller generalization gap E[R - R_hat], which stays below the bound",
        artifact_path("f8"),
        ("f8",),
        "a (d, N, T) cell of f8 is resolvable if the noiseless gap's t interval over training sets lies above 0; the "
        "gap shrinks (grows) if the paired interval of gap(sigma_max) - gap(sigma_min) lies below (above) 0. Holds if "
        f"it shrinks in >= TOGETHER_HOLDS_SHARE = {TOGETHER_HOLDS_SHARE:.0%} of resolvable cells, grows in none and no "
        "bound is violated (the gap's lower confidence limit above Thm 2's valid on-average bound, or max|gap| >= a "
        f"non-vacuous Thm 1 bound); fails below TOGETHER_PARTIAL_SHARE = {TOGETHER_PARTIAL_SHARE:.0%} or on a "
        "violation; partial otherwise",
        measure_together,
        verdict_together,
        evidence_together,
    ),
)
