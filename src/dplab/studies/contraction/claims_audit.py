"""Claims decided by the empirical audits of Asoodeh, Diaz, Calmon (2020) (Theorems 3-5 and Proposition 1 against
grid-exact and Monte-Carlo deltas) and by the utility experiment (our extensions: the paper runs no experiment)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.accounting.hockey_stick import discrete_hockey_stick
from dplab.audit.grid import UniformGrid, pnsgd_output_laws, strongly_convex_loss_psi
from dplab.audit.instances import INSTANCE_NAMES, audit_instance
from dplab.report.claims import ClaimRule, Numbers, holds_if
from dplab.studies.contraction.audit import random_stopping_audit
from dplab.studies.contraction.claims_common import artifact_path
from dplab.studies.contraction.curves import epsilon_grid, gaussian_setting
from dplab.theory.contraction import kappa_prop1, log_delta_prop1, log_delta_thm3, log_delta_thm4

__all__ = ["AUDIT_RULES", "AMPLIFICATION_FACTOR", "STRONGLY_CONVEX_RULES", "UTILITY_RULE"]

#: Theorems 3-5 and Proposition 1 are upper bounds: a measured delta may exceed them by this much (rounding only).
BOUND_SLACK = 1e-9
#: Monte-Carlo lower bounds above the grid value by more than this are counted (about alpha of them are expected).
MC_ABOVE_GRID = 1e-3
#: Only bounds above this value enter the grid/bound ratios of the evidence (smaller ones are numerically 0).
INFORMATIVE_BOUND = 1e-6
#: Sec. I, "individuals whose records were processed earlier experience higher privacy": amplification counts in a
#: learning task when the first user's epsilon is at most this fraction of the last user's.
AMPLIFICATION_FACTOR = 0.5
#: The strongly convex audit: grid cells on K = [-D/2, D/2] and the epsilons of the sweep (0 to 4 in steps of 0.1).
STRONGLY_CONVEX_CELLS = 500
STRONGLY_CONVEX_EPSILONS = (4.0, 41)
#: Sec. IV-E, "Theorem 5 holds for any sigma": the noise scales audited besides the configured one, on a grid of
#: this many cells (the instances, users and epsilons of the configured random-stopping audit).
THM5_SIGMAS = (1.0, 4.0)
THM5_CELLS = 500


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
    return holds_if(max(numbers["grid_excess"], numbers["mc_excess"]) <= BOUND_SLACK)


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
    return holds_if(numbers["excess"] <= BOUND_SLACK)


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
    return holds_if(max(numbers["excess"], numbers["excess_i"]) <= BOUND_SLACK)


def evidence_thm5(numbers: Numbers) -> str:
    return (
        f"max(grid - Thm 5) = {numbers['excess']:.3g}, max(grid - i-dependent form) = {numbers['excess_i']:.3g}; at "
        "eps=0: " + "; ".join(f"i={i} grid {grid:.5f} vs {bound:.5f}" for i, grid, bound in numbers["at0"])
    )


def measure_thm5_sigmas(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """Theorem 5 against the grid-exact randomly stopped laws (:func:`random_stopping_audit`) of the configured
    audit setting with the noise scale replaced by each of :data:`THM5_SIGMAS`."""
    audit, stopping = config["audit"], config["random_stopping"]
    setting = audit["configs"][stopping["config"]]
    rows = []
    for sigma in THM5_SIGMAS:
        frame = random_stopping_audit({**audit, "grid_cells": THM5_CELLS}, stopping, {**setting, "scale": sigma})
        worst = frame.loc[(frame["delta_grid"] / frame["bound_thm5"]).idxmax()]
        rows.append(
            (sigma, float((frame["delta_grid"] - frame["bound_thm5"]).max()),
             float((frame["delta_grid"] - frame["bound_thm5_i"]).max()),
             int(worst["i"]), float(worst["epsilon"]), float(worst["delta_grid"]), float(worst["bound_thm5"]))
        )  # fmt: skip
    return {"config": stopping["config"], "rows": rows}


def verdict_thm5_sigmas(numbers: Numbers) -> str:
    return holds_if(all(max(excess, excess_i) <= BOUND_SLACK for _, excess, excess_i, *_ in numbers["rows"]))


def evidence_thm5_sigmas(numbers: Numbers) -> str:
    return f"configuration {numbers['config']} with sigma replaced: " + "; ".join(
        f"sigma={sigma:g}: max(grid - Thm 5) = {excess:.3g}, max(grid - i-dependent form) = {excess_i:.3g}, largest "
        f"grid/Thm 5 at i={i}, eps={eps:g}: {grid:.5f} vs {bound:.5f}"
        for sigma, excess, excess_i, i, eps, grid, bound in numbers["rows"]
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


# ------------------------------------------------------------------------------------- Theorem 4 with M < 1


def strongly_convex_audit_setting(fig3: Mapping[str, Any]) -> dict[str, float]:
    """A realisable loss with Fig. 3's contraction M: l(y, x) = c y^2/2 + x y on K = [-D/2, D/2] is c-strongly
    convex and c-smooth, so Lemma 4 gives M = sqrt(1 - eta c); c = (1 - M^2)/eta keeps Fig. 3's M (its printed
    rho = 0.4 > beta = 0.3 has no such loss). Its gradient is at most c D/2 + |x| <= L for |x| <= L - c D/2."""
    setting = gaussian_setting(fig3)
    curvature = (1.0 - setting["M"] ** 2) / setting["lr"]
    return {**setting, "curvature": curvature, "record_bound": setting["L"] - curvature * fig3["diameter"] / 2}


def _grid_delta(
    fig3: Mapping[str, Any], setting: Mapping[str, float], noise: str, i: int, eps: np.ndarray
) -> np.ndarray:
    """The largest grid-exact delta over the audit instances at position i (each a valid neighbouring pair), with
    ``noise`` of scale sigma (Gaussian standard deviation or Laplace scale v)."""
    half = fig3["diameter"] / 2
    grid = UniformGrid(-half, half, STRONGLY_CONVEX_CELLS)
    psi = strongly_convex_loss_psi(setting["lr"], setting["curvature"])
    deltas = []
    for name in INSTANCE_NAMES:
        pair = audit_instance(name, n=setting["n"], i=i, a=-half, b=half, L=setting["record_bound"])
        p, q = pnsgd_output_laws(
            grid, y0=pair.y0, data=pair.data, data_prime=pair.data_prime, lr=setting["lr"], scale=setting["sigma"],
            noise=noise, psi=psi,
        )  # fmt: skip
        deltas.append(discrete_hockey_stick(p, q, eps))
    return np.max(deltas, axis=0)


def _strongly_convex_bounds(noise: str, setting: Mapping[str, float], diameter: float, i: int, eps: np.ndarray):
    """(the theorem's delta, Prop. 1's delta or None): Theorem 4 and Prop. 1 for Gaussian noise, Theorem 3 with
    v = sigma for Laplace noise (no RDP baseline in the paper)."""
    common = {key: setting[key] for key in ("L", "M", "lr", "n")}
    if noise == "laplace":
        return np.exp(log_delta_thm3(eps, v=setting["sigma"], diameter=diameter, i=i, **common)), None
    kappa = kappa_prop1(L=setting["L"], sigma=setting["sigma"], M=setting["M"], n=setting["n"], i=i)
    thm4 = np.exp(log_delta_thm4(eps, sigma=setting["sigma"], diameter=diameter, i=i, **common))
    return thm4, np.exp(log_delta_prop1(eps, kappa=kappa))


def _measure_strongly_convex(noise: str):
    def measure(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
        """Grid-exact delta of PNSGD with the strongly convex loss of :func:`strongly_convex_audit_setting` at
        Fig. 3's users, against the paper's bounds with M = sqrt(1 - eta c)."""
        fig3 = config["figures"]["fig3"]
        setting = strongly_convex_audit_setting(fig3)
        eps = epsilon_grid(*STRONGLY_CONVEX_EPSILONS)
        rows = []
        for i in fig3["positions"]:
            grid = _grid_delta(fig3, setting, noise, int(i), eps)
            theorem, prop1 = _strongly_convex_bounds(noise, setting, fig3["diameter"], int(i), eps)
            ratio = float(np.max(grid[theorem > 0] / theorem[theorem > 0]))
            baseline = math.nan if prop1 is None else float(np.max(grid - prop1))
            rows.append((int(i), float(np.max(grid - theorem)), baseline, ratio))
        return {"noise": noise, "M": setting["M"], "curvature": setting["curvature"], "rows": rows,
                "exact": 1 - setting["lr"] * setting["curvature"], "record_bound": setting["record_bound"]}  # fmt: skip

    return measure


def verdict_strongly_convex(numbers: Numbers) -> str:
    worst = max(np.nanmax([theorem, prop1]) for _, theorem, prop1, _ in numbers["rows"])
    return holds_if(worst <= BOUND_SLACK)


def evidence_strongly_convex(numbers: Numbers) -> str:
    theorem = "Thm 4" if numbers["noise"] == "gaussian" else "Thm 3"
    return (
        f"{numbers['noise']} noise, loss c y^2/2 + x y, c = rho = beta = {numbers['curvature']:.6f}, |x| <= "
        f"{numbers['record_bound']:.4f}, M = {numbers['M']:.6f} (the step's exact Lipschitz constant is "
        f"{numbers['exact']:.2f}); "
        + "; ".join(
            f"i={i}: max(grid - {theorem}) = {excess:.3g}"
            + ("" if math.isnan(prop1) else f", max(grid - Prop. 1) = {prop1:.3g}")
            + f", max grid/{theorem} (where {theorem} > 0) {ratio:.3f}"
            for i, excess, prop1, ratio in numbers["rows"]
        )
    )


def _strongly_convex_rule(noise: str) -> ClaimRule:
    short, theorem = _theorem(noise)
    baseline = " (and of Prop. 1)" if noise == "gaussian" else ""
    return ClaimRule(
        f"{short}_audit_strongly_convex",
        f"{theorem} with rho > 0 (Fig. 3's parameters)",
        f"PNSGD with {noise} noise and a strongly convex loss (M < 1) is (eps, delta)-DP for its i-th input with the "
        f"delta of {theorem}{baseline}",
        artifact_path("fig3"),
        (),
        "Fig. 3's n, eta, D, L, users and noise scale 1, with a realisable loss of the same M; holds if the grid-exact "
        f"delta (worst of the 8 audit instances, {STRONGLY_CONVEX_CELLS} cells, eps from 0 to "
        f"{STRONGLY_CONVEX_EPSILONS[0]:g}) never exceeds {theorem}'s delta{baseline} ({BOUND_SLACK:g}), fails "
        "otherwise",
        _measure_strongly_convex(noise),
        verdict_strongly_convex,
        evidence_strongly_convex,
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
    ClaimRule(
        "thm5_random_stopping_any_sigma",
        "Sec. IV-E after Theorem 5 ('Theorem 5 holds for any sigma')",
        "Theorem 5's delta bounds randomly stopped PNSGD at every noise scale sigma (unlike Feldman et al.'s RDP "
        "result, which needs a constraint on sigma)",
        artifact_path("ext_random_stopping"),
        (),
        f"the configured random-stopping audit (its instances, users and epsilons) at sigma in "
        f"{{{', '.join(f'{s:g}' for s in THM5_SIGMAS)}}} besides the configured one, grid of {THM5_CELLS} cells; "
        f"holds if the grid-exact delta never exceeds Theorem 5's bound or its i-dependent form ({BOUND_SLACK:g}) at "
        "any of them, fails otherwise",
        measure_thm5_sigmas,
        verdict_thm5_sigmas,
        evidence_thm5_sigmas,
    ),
)

STRONGLY_CONVEX_RULES = (_strongly_convex_rule("gaussian"), _strongly_convex_rule("laplace"))

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
