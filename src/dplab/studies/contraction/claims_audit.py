"""Claims decided by the empirical audits of Asoodeh, Diaz, Calmon (2020) (Theorems 3-5 and Proposition 1 against
grid-exact and Monte-Carlo deltas) and by the utility experiment (our extensions: the paper runs no experiment)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.claims import ClaimRule, Numbers
from dplab.studies.contraction.claims_common import artifact_path

__all__ = ["AUDIT_RULES", "AMPLIFICATION_FACTOR"]

#: Theorems 3-5 and Proposition 1 are upper bounds: a measured delta may exceed them by this much (rounding only).
BOUND_SLACK = 1e-9
#: Monte-Carlo lower bounds above the grid value by more than this are counted (about alpha of them are expected).
MC_ABOVE_GRID = 1e-3
#: Only bounds above this value enter the grid/bound ratios of the evidence (smaller ones are numerically 0).
INFORMATIVE_BOUND = 1e-6
#: Sec. I, "individuals whose records were processed earlier experience higher privacy": amplification counts in a
#: learning task when the first user's epsilon is at most this fraction of the last user's.
AMPLIFICATION_FACTOR = 0.5


def _theorem(noise: str) -> tuple[str, str]:
    return ("thm4", "Theorem 4") if noise == "gaussian" else ("thm3", "Theorem 3")


def _measure_theorem_audit(noise: str):
    def measure(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
        frame = frames[f"ext_audit_{noise}"]
        informative = frame[frame["bound_theorem"] > INFORMATIVE_BOUND]
        ratio = informative["delta_grid"] / informative["bound_theorem"]
        at0 = frame[frame["epsilon"] == 0]
        tight = at0.assign(r=at0["delta_grid"] / at0["bound_theorem"]).sort_values("r").iloc[-1]
        return {
            "points": len(frame),
            "configs": sorted(frame["config"].unique()),
            "grid_excess": float((frame["delta_grid"] - frame["bound_theorem"]).max()),
            "mc_excess": float((frame["mc_lower"] - frame["bound_theorem"]).max()),
            "ratio_max": float(ratio.max()),
            "ratio_median": float(ratio.median()),
            "tight": (tight["config"], int(tight["i"]), float(tight["delta_grid"]), float(tight["bound_theorem"])),
            "mc_above_grid": int((frame["mc_lower"] > frame["delta_grid_mc_instance"] + MC_ABOVE_GRID).sum()),
            "alpha": frame["alpha"].iloc[0],
        }

    return measure


def verdict_theorem_audit(numbers: Numbers) -> str:
    return "holds" if max(numbers["grid_excess"], numbers["mc_excess"]) <= BOUND_SLACK else "fails"


def evidence_theorem_audit(numbers: Numbers) -> str:
    config, i, grid, bound = numbers["tight"]
    return (
        f"{numbers['points']} points over configs {numbers['configs']}: max(grid - bound) = "
        f"{numbers['grid_excess']:.3g}, max(MC lower - bound) = {numbers['mc_excess']:.3g}; grid/bound where bound > "
        f"{INFORMATIVE_BOUND:g}: max {numbers['ratio_max']:.3f}, median {numbers['ratio_median']:.3f}; tightest at "
        f"eps=0: {config} i={i} grid {grid:.4f} vs bound {bound:.4f}; MC lower > grid + {MC_ABOVE_GRID:g} at "
        f"{numbers['mc_above_grid']} points (expected about 1% at alpha = {numbers['alpha']})"
    )


def _theorem_audit_rule(noise: str) -> ClaimRule:
    short, theorem = _theorem(noise)
    return ClaimRule(
        f"{short}_audit",
        theorem,
        f"PNSGD with {noise} noise is (eps, delta)-DP for its i-th input with the delta of {theorem}",
        artifact_path(f"ext_audit_{noise}"),
        (f"ext_audit_{noise}",),
        f"holds if neither the exact grid delta nor the Monte-Carlo lower bound exceeds the theorem's delta "
        f"({BOUND_SLACK:g}), fails otherwise",
        _measure_theorem_audit(noise),
        verdict_theorem_audit,
        evidence_theorem_audit,
    )


def measure_prop1_audit(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    frame = frames["ext_audit_gaussian"]
    return {"excess": float((frame["delta_grid"] - frame["bound_prop1"]).max()), "points": len(frame)}


def verdict_prop1_audit(numbers: Numbers) -> str:
    return "holds" if numbers["excess"] <= BOUND_SLACK else "fails"


def evidence_prop1_audit(numbers: Numbers) -> str:
    return f"max(grid - Prop. 1 bound) = {numbers['excess']:.3g} over {numbers['points']} points"


def measure_thm5(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    frame = frames["ext_random_stopping"]
    at0 = frame[frame["epsilon"] == 0]
    return {
        "excess": float((frame["delta_grid"] - frame["bound_thm5"]).max()),
        "excess_i": float((frame["delta_grid"] - frame["bound_thm5_i"]).max()),
        "at0": [(int(r.i), r.delta_grid, r.bound_thm5) for r in at0.itertuples()],
    }


def verdict_thm5(numbers: Numbers) -> str:
    return "holds" if max(numbers["excess"], numbers["excess_i"]) <= BOUND_SLACK else "fails"


def evidence_thm5(numbers: Numbers) -> str:
    return (
        f"max(grid - Thm 5) = {numbers['excess']:.3g}, max(grid - i-dependent form) = {numbers['excess_i']:.3g}; at "
        "eps=0: " + "; ".join(f"i={i} grid {grid:.5f} vs {bound:.5f}" for i, grid, bound in numbers["at0"])
    )


def measure_utility(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """Cells (Gaussian, noise > 0) where the first user's epsilon is at most :data:`AMPLIFICATION_FACTOR` times the
    last user's, and among them those where the model beats the trivial predictor w = 0 (excess risk below
    log 2 - min risk, the logistic loss at w = 0 being log 2)."""
    utility = frames["ext_utility"]
    gaussian = utility[(utility["noise"] == "gaussian") & (utility["noise_scale"] > 0)]
    if gaussian.empty:
        gaussian = utility[utility["noise_scale"] > 0]
    trivial = float(np.log(2.0) - gaussian["min_risk"].iloc[0])
    last = gaussian["epsilon_thm_last"]
    amplified = np.isfinite(last) & (gaussian["epsilon_thm_first"] <= AMPLIFICATION_FACTOR * last)
    useful = gaussian["excess_risk_mean"] < trivial
    cells = [
        (
            r.noise,
            r.lr,
            r.noise_scale,
            r.excess_risk_mean,
            r.epsilon_thm_first,
            r.epsilon_thm_middle,
            r.epsilon_thm_last,
        )
        for r in gaussian.itertuples()
    ]
    return {
        "trivial": trivial,
        "amplified": int(amplified.sum()),
        "amplified_useful": int((amplified & useful).sum()),
        "cells": cells,
    }


def verdict_utility(numbers: Numbers) -> str:
    return "holds" if numbers["amplified_useful"] else ("partial" if numbers["amplified"] else "fails")


def evidence_utility(numbers: Numbers) -> str:
    rows = "; ".join(
        f"{noise} eta={lr} scale={scale:g}: excess risk {risk:.4f}, eps first/middle/last "
        f"{first:.3g}/{middle:.3g}/{last:.3g}"
        for noise, lr, scale, risk, first, middle, last in numbers["cells"]
    )
    return (
        f"log 2 - min risk = {numbers['trivial']:.4f}. Amplified cells: {numbers['amplified']} of "
        f"{len(numbers['cells'])}, of which better than trivial: {numbers['amplified_useful']}. " + rows
    )


AUDIT_RULES = (
    _theorem_audit_rule("gaussian"),
    ClaimRule(
        "prop1_audit",
        "Proposition 1",
        "PNSGD with Gaussian noise is (eps, exp(-(eps-kappa)^2/(4 kappa)))-DP for its i-th input",
        artifact_path("ext_audit_gaussian"),
        ("ext_audit_gaussian",),
        f"holds if the exact grid delta never exceeds Prop. 1's ({BOUND_SLACK:g}), fails otherwise",
        measure_prop1_audit,
        verdict_prop1_audit,
        evidence_prop1_audit,
    ),
    _theorem_audit_rule("laplace"),
    ClaimRule(
        "thm5_random_stopping",
        "Theorem 5",
        "Randomly stopped PNSGD is (eps, theta(2L/sigma)/(n (1 - theta(M D/(eta sigma)))))-DP uniformly over users",
        artifact_path("ext_random_stopping"),
        ("ext_random_stopping",),
        f"holds if the exact grid delta never exceeds Theorem 5's bound or its i-dependent form ({BOUND_SLACK:g}), "
        "fails otherwise",
        measure_thm5,
        verdict_thm5,
        evidence_thm5,
    ),
)

UTILITY_RULE = ClaimRule(
    "utility_privacy_tradeoff",
    "Sec. I (motivation: amplification for early users)",
    "In a learning task, users processed early get much smaller epsilon than the last user at the same noise",
    artifact_path("ext_utility"),
    ("ext_utility",),
    f"holds if some cell has eps_first <= {AMPLIFICATION_FACTOR:g} eps_last with excess risk below the trivial "
    "predictor's (log 2 - min risk); partial if amplification appears only where the model is no better than trivial; "
    "fails if nowhere",
    measure_utility,
    verdict_utility,
    evidence_utility,
)
