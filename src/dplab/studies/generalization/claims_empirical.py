"""Empirical claims (our E1: SGLD, the paper's Algorithm 1, on synthetic logistic regression with the exact risk)
against Theorems 1, 2 and 7 of He, Wang, Tao, each declared once (:data:`~.claims_common.CLAIMS`). Every Monte-Carlo
comparison decides with :func:`~dplab.report.claims.clearly_less` / ``clearly_greater`` (standard errors of the
difference, recovered from F8's t intervals over training sets)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dplab.report.claims import MARGIN_STANDARD_ERRORS, Numbers, clearly_greater, clearly_less, holds_if
from dplab.studies.generalization.claims_common import CLAIMS, PAPER, Config, Frames, as_bool, optional, standard_error

#: Sec. 5, Remarks: the bound is free of the model size d when its spread across d is at most this.
MODEL_SIZE_SPREAD = 0.0
#: e1_privacy_and_generalization_together (our thresholds): holds if the gap shrinks in at least this share of the
#: resolvable (d, N, T) cells, grows in none and no bound is violated; partial down to the second; fails below.
TOGETHER_HOLDS_SHARE = 0.9
TOGETHER_PARTIAL_SHARE = 0.5
#: The design whose numbers the evidence quotes: d = 50, N = 1000, T = 1000.
TOGETHER_REFERENCE = {"d": 50, "n": 1000, "t": 1000}
_MARGIN = f"{MARGIN_STANDARD_ERRORS:g} standard errors"


def _se(frame: pd.DataFrame, prefix: str, confidence: float) -> pd.Series:
    return standard_error(frame[f"{prefix}_ci_low"], frame[f"{prefix}_ci_high"], frame["datasets"], confidence)


#: clearly_greater / clearly_less elementwise (Monte-Carlo estimates against exact values of standard error 0).
above, below = np.vectorize(clearly_greater, otypes=[bool]), np.vectorize(clearly_less, otypes=[bool])


def on_average_violated(frame: pd.DataFrame, bound: pd.Series, confidence: float) -> np.ndarray:
    """Whether the mean signed gap is clearly outside +-``bound`` (Theorem 2: |E[R_hat - R]| <= bound)."""
    mean, se = frame["mean_gap"], _se(frame, "gap", confidence)
    return above(mean, se, bound, 0.0) | below(mean, se, -bound, 0.0)


@CLAIMS.paper(
    "e1_gap_below_bounds",
    source=f"{PAPER}, Thm. 1 and Thm. 2 (k = 1) at SGLD's valid (eps', delta') (Thm. 7 corrected); our E1 experiment",
    statement="The generalization gap of an (eps', delta')-DP learner obeys Theorem 1 (|R_hat - R| < 9 eps' with "
    "probability > 1 - b) and Theorem 2 (|E[R_hat - R]| <= e^-eps' delta' + 1 - e^-eps')",
    artifact="f8",
    reads=("f8",),
    rule=f"fails if some run's |gap| reaches a non-vacuous Theorem 1 bound of f8, or the mean signed gap is {_MARGIN} "
    "outside Theorem 2's bound (clearly_greater / clearly_less); holds otherwise",
    verdict=lambda n: holds_if(n["hp_violations"] == 0 and n["on_average_violations"] == 0),
    evidence=lambda n: (
        f"No run's |gap| reaches Theorem 1's bound ({n['hp_violations']} violations at the {n['non_vacuous']} of "
        f"{n['noisy']} noisy (d, N, sigma, T) points where it is non-vacuous; coverage min {n['coverage_min']:.2f}; "
        f"bound/max|gap| {n['looseness'][0]:.0f}...{n['looseness'][1]:.0f}x), and the mean gap is clearly outside "
        f"Theorem 2's bound at {n['on_average_violations']} points"
    ),
)
def measure_gap_below_bounds(frames: Frames, config: Config) -> Numbers:
    noisy = frames["f8"][frames["f8"]["sigma"] > 0]
    hp_ok = noisy[~as_bool(noisy["hp_vacuous_valid"])]
    looseness = hp_ok["hp_bound_valid"] / hp_ok["max_abs_gap"]
    violated = on_average_violated(noisy, noisy["on_average_valid"], config["empirical"]["confidence"])
    counts = {"non_vacuous": len(hp_ok), "noisy": len(noisy), "on_average_violations": int(violated.sum())}
    counts["hp_violations"] = int((hp_ok["max_abs_gap"] >= hp_ok["hp_bound_valid"]).sum())
    return counts | {"coverage_min": hp_ok["coverage_valid"].min(), "looseness": (looseness.min(), looseness.max())}


@CLAIMS.paper(
    "e1_bound_model_size_free",
    source=f"{PAPER}, Abstract and Sec. 5 ('our generalization bounds do not rely on the model size')",
    statement="The generalization bounds for SGLD do not depend (explicitly) on the model size",
    artifact="f8",
    reads=("f8",),
    rule=f"holds if the spread of the HP bound across d at fixed (N, sigma, T) is at most {MODEL_SIZE_SPREAD:g}; fails "
    "otherwise",
    verdict=lambda n: holds_if(n["spread"] <= MODEL_SIZE_SPREAD),
    evidence=lambda n: (
        f"The HP bound's largest spread across d at fixed (N, sigma, T) is {n['spread']:g}, while the measured mean "
        f"|gap| at d = {n['dims'][1]} exceeds d = {n['dims'][0]} at {n['gap_grows']:.0%} of (N, sigma, T)"
    ),
)
def measure_model_size(frames: Frames, config: Config) -> Numbers:
    f8 = frames["f8"]
    bounds = f8[f8["sigma"] > 0].pivot_table(index=["n", "sigma", "t"], columns="d", values="hp_bound_valid")
    gaps = f8.pivot_table(index=["n", "sigma", "t"], columns="d", values="mean_abs_gap")
    dims = sorted(gaps.columns)
    return {
        "spread": float(np.nanmax(bounds.max(axis=1) - bounds.min(axis=1))) if bounds.shape[1] > 1 else 0.0,
        "dims": (dims[0], dims[-1]),
        "gap_grows": float(np.mean(gaps[dims[-1]] > gaps[dims[0]])) if len(dims) > 1 else float("nan"),
    }


def gap_versus_noise(f8: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per (d, N, T) cell of F8: the gap E[R - R_hat] at the smallest and the largest sigma and their paired change, with
    standard errors; whether the cell is resolvable, the gap shrinks or grows, a bound is violated (the rule of
    ``e1_privacy_and_generalization_together``)."""
    order, keys = f8.sort_values("sigma", kind="stable"), ["d", "n", "t"]
    low, high = (order.drop_duplicates(keys, keep=k).set_index(keys).sort_index() for k in ("first", "last"))
    cells = pd.DataFrame({"sigma_min": low["sigma"], "sigma_max": high["sigma"], "datasets": high["datasets"]})
    cells["gap_noiseless"], cells["se_noiseless"] = low["mean_gap"], _se(low, "gap", confidence)
    cells["gap_noisy"], cells["se_noisy"] = high["mean_gap"], _se(high, "gap", confidence)
    cells["change"], cells["se_change"] = high["gap_change"], _se(high, "gap_change", confidence)
    cells["on_average_bound"] = high["on_average_valid"]
    hp_violated = ~as_bool(high["hp_vacuous_valid"]) & (high["max_abs_gap"] >= high["hp_bound_valid"])
    cells["bound_violated"] = on_average_violated(high, high["on_average_valid"], confidence) | hp_violated
    cells["resolvable"] = above(cells["gap_noiseless"], cells["se_noiseless"], 0.0, 0.0)
    cells["shrinks"], cells["grows"] = (f(cells["change"], cells["se_change"], 0.0, 0.0) for f in (below, above))
    return cells.reset_index()


def together_verdict(cells: pd.DataFrame) -> tuple[str, float]:
    """Verdict and the share of resolvable cells in which the gap shrinks (the rule of
    ``e1_privacy_and_generalization_together``)."""
    resolvable = cells[cells["resolvable"]]
    share = float(resolvable["shrinks"].mean()) if len(resolvable) else float("nan")
    if not len(resolvable) or cells["bound_violated"].any() or share < TOGETHER_PARTIAL_SHARE:
        return "fails", share
    return ("holds" if share >= TOGETHER_HOLDS_SHARE and not resolvable["grows"].any() else "partial"), share


def _together_evidence(n: Numbers) -> str:
    cells, (_, share) = n["cells"], together_verdict(n["cells"])
    resolvable = cells[cells["resolvable"]]
    ref = cells[(cells[list(TOGETHER_REFERENCE)] == pd.Series(TOGETHER_REFERENCE)).all(axis=1)]
    return (
        f"The gap shrinks clearly ({_MARGIN}) from the smallest to the largest sigma in "
        f"{int(resolvable['shrinks'].sum())} of {len(resolvable)} resolvable (d, N, T) cells ({share:.0%}) and grows "
        f"clearly in {int(resolvable['grows'].sum())}; {len(cells) - len(resolvable)} of {len(cells)} cells are not "
        f"resolvable (noiseless gap not clearly above 0); a bound is violated in {int(cells['bound_violated'].sum())} cells"
        + optional(
            ". At (d, N, T) = ({d}, {n}, {t}) over {datasets:.0f} training sets: E[R - R_hat] = {gap_noiseless:.4f} +- "
            "{se_noiseless:.4f} at sigma = {sigma_min:g}, {gap_noisy:.4f} +- {se_noisy:.4f} at sigma = {sigma_max:g}, "
            "paired change {change:.4f} +- {se_change:.4f} (standard errors), Thm. 2 bound {on_average_bound:.3f}",
            ref.iloc[0].to_dict() if len(ref) else None,
        )
        + "; eps' decreases in sigma by construction"
    )


@CLAIMS.paper(
    "e1_privacy_and_generalization_together",
    source=f"{PAPER}, Abstract ('one can simultaneously enhance privacy preservation and generalization'), Sec. 1 and "
    "Sec. 4.1 after Thm. 1; tested with Thm. 7 + Thm. 2 in our E1",
    statement="'We, therefore, can expect to design novel learning algorithms for better generalizability by enhancing "
    "its privacy-preserving ability': more noise gives more privacy and a smaller gap E[R - R_hat], below the bound",
    artifact="f8",
    reads=("f8",),
    rule=f"a (d, N, T) cell of f8 is resolvable if its noiseless gap is clearly above 0 ({_MARGIN}); the gap shrinks "
    "(grows) if the paired change gap(sigma_max) - gap(sigma_min) is clearly below (above) 0. Holds if it shrinks in "
    f">= {TOGETHER_HOLDS_SHARE:.0%} of resolvable cells (our threshold), grows in none and no bound is violated (mean "
    f"gap clearly above Theorem 2's valid bound, or max|gap| >= a non-vacuous Theorem 1 bound); fails below "
    f"{TOGETHER_PARTIAL_SHARE:.0%} (our threshold) or on a violation; partial otherwise",
    verdict=lambda n: together_verdict(n["cells"])[0],
    evidence=_together_evidence,
)
def measure_together(frames: Frames, config: Config) -> Numbers:
    return {"cells": gap_versus_noise(frames["f8"], config["empirical"]["confidence"])}
