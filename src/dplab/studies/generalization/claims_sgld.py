"""Application claims of He, Wang, Tao: SGLD (Theorem 7, Remark 1), federated learning (Theorem 8, Remark 2), their
errata, and Wang et al.'s condition as quoted, each a :class:`~dplab.report.claims.ClaimRule`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.numerics import loglog_slope
from dplab.report.claims import ClaimRule, Numbers, differ, erratum_if
from dplab.studies.generalization.claims_common import artifact_path, as_bool
from dplab.theory.generalization import fl_privacy, sgld_linear_loss_delta, sgld_privacy, wang_sgld_threshold

__all__ = ["SGLD_RULES", "THM7_COUNTEREXAMPLE", "THM8_COUNTEREXAMPLE", "WANG_POINT", "rate_slopes"]

#: Remarks 1-2: P[R_hat <= O(T/sqrt(N)) + R] >= 1 - O(T/sqrt(N)): log-log slopes at most -1/2 in N and 1 in T.
STATED_N_SLOPE = -0.5
STATED_T_SLOPE = 1.0
#: A fitted slope meets the stated one when it exceeds it by at most this much (grid and rounding only).
SLOPE_TOLERANCE = 0.05
#: Thm 7 as printed against the exact delta of a linear-loss SGLD pair (a small-noise counterexample, N = 1e4, tau = 100).
THM7_COUNTEREXAMPLE = {
    "N": 1e4,
    "tau": 100,
    "L": 1.0,
    "delta": 1e-6,
    "delta_tilde": 1e-6,
    "sigma": 0.01,
    "steps": (1, 10),
}
#: Thm 8 as printed against the exact delta of the same pair for Algorithm 2 (clipped updates of norm <= L, noise
#: L sigma: the pair of Thm 7 with L = 1), at a small and a moderate sigma.
THM8_COUNTEREXAMPLE = {
    "N": 1e4,
    "tau": 100,
    "delta": 1e-6,
    "delta_tilde": 1e-6,
    "sigmas": (0.01, 0.05),
    "steps": (1, 10),
}
#: Wang et al.'s condition as quoted, evaluated at this point (Sec. 5).
WANG_POINT = {"epsilon": 1.0, "delta": 1e-5, "N": 1e4, "tau": 100, "sigma": 1.0}
WANG_STEPS = (1, 10, 100, 1000)
#: Thm 8 + Thm 1: the f9 variant whose (eps', delta') is a valid guarantee under the paper's substitution neighbours.
THM8_VALID_VARIANT = "substitution"


def measure_factor_2(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t3 = frames["t3"]
    p = t3[t3["variant"] == "as_printed"].set_index(["n", "sigma", "t"])
    v = t3[t3["variant"] == "valid"].set_index(["n", "sigma", "t"])
    ratio = v["eps_tilde"] / p["eps_tilde"]
    first = p.index[0]
    return {
        "ratio": (float(ratio.min()), float(ratio.max())),
        "example": (*first[:2], float(p.loc[first, "eps_tilde"]), float(v.loc[first, "eps_tilde"])),
        "false_settings": len(p[~as_bool(p["step_claim_holds"])].groupby(level=[0, 1])),
        "settings": len(p.groupby(level=[0, 1])),
        "worst_delta": float(p["step_delta_exact"].max()),
        "delta": config["empirical"]["delta"],
        "corrected_valid": bool(as_bool(v["step_claim_holds"]).all()),
    }


def verdict_factor_2(n: Numbers) -> str:
    return erratum_if(differ(n["ratio"][0], 1.0) or differ(n["ratio"][1], 1.0))


def evidence_factor_2(n: Numbers) -> str:
    n_, sigma, printed, corrected = n["example"]
    return (
        f"at (N, sigma) = ({n_:g}, {sigma:g}): printed eps~ = {printed:.6g}, corrected {corrected:.6g}; "
        f"eps~ corrected/printed = {n['ratio'][0]:.4f}..{n['ratio'][1]:.4f}; the printed per-step (eps~, delta) claim "
        f"is false (exact Gaussian delta > delta) at {n['false_settings']} of {n['settings']} (N, sigma) settings, "
        f"worst exact delta {n['worst_delta']:.3e} vs delta = {n['delta']:g}; the corrected eps~ is valid everywhere: "
        f"{n['corrected_valid']}"
    )


def measure_subsampling(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t3 = frames["t3"]
    invalid = t3[(t3["variant"] == "valid") & as_bool(t3["linear_amplification_invalid"])]
    example = None
    if len(invalid):
        row = invalid.iloc[0]
        printed = t3[(t3["variant"] == "as_printed") & (t3["n"] == row["n"]) & (t3["sigma"] == row["sigma"])].iloc[0]
        q = printed["eps_step"] / (2.0 * printed["eps_tilde"])  # the printed step is 2 q eps~
        example = (
            float(row["n"]),
            float(row["sigma"]),
            float(row["eps_tilde"]),
            2 * q * row["eps_tilde"],
            row["eps_step"],
        )
    return {"sigmas": sorted(float(s) for s in set(invalid["sigma"])), "rows": len(invalid), "example": example}


def verdict_subsampling(n: Numbers) -> str:
    return erratum_if(bool(n["rows"]))


def evidence_subsampling(n: Numbers) -> str:
    return (
        f"printed 2q eps~ below the correct log(1+q(e^eps~-1)): the true (corrected) eps~ exceeds that range at sigma "
        f"in {n['sigmas']} ({n['rows']} rows of t3)"
        + (
            "; e.g. at (N, sigma) = ({:g}, {:g}), eps~ = {:.6g}: printed 2q eps~ = {:.6g} < correct {:.6g}, so the "
            "linear amplification is not a valid bound there".format(*n["example"])
            if n["example"]
            else ""
        )
    )


def measure_delta_tilde(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t3 = frames["t3"]
    printed = t3[t3["variant"] == "as_printed"]["thm7_printed_delta_tilde"]
    return {
        "undefined": int(printed.isna().sum()),
        "rows": len(printed),
        "range": (float(np.nanmin(printed)), float(np.nanmax(printed))) if printed.notna().any() else None,
        "used": float(config["empirical"]["delta_tilde"]),
    }


def verdict_delta_tilde(n: Numbers) -> str:
    disagrees = n["range"] is not None and (differ(n["range"][0], n["used"]) or differ(n["range"][1], n["used"]))
    return erratum_if(n["undefined"] or disagrees)


def evidence_delta_tilde(n: Numbers) -> str:
    defined = (
        f"where defined it is {n['range'][0]:.2e}..{n['range'][1]:.2e}, far from the delta~ = {n['used']:g} that "
        "eps' was computed with"
        if n["range"]
        else "defined nowhere"
    )
    return f"printed delta~ undefined (NaN) in {n['undefined']}/{n['rows']} P rows of t3; {defined}; here delta~ is a free input"


def measure_thm8_eps_tilde(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    fl = frames["f9"].pivot_table(index=["clients", "tau", "sigma", "t"], columns="variant", values="eps_tilde")
    sub, add = fl["substitution"] / fl["as_printed"], fl["add_remove"] / fl["as_printed"]
    first = fl.index[0]
    return {
        "substitution": (float(sub.min()), float(sub.max())),
        "add_remove": (float(add.min()), float(add.max())),
        "example": (*first[:3], float(fl.loc[first, "as_printed"]), float(fl.loc[first, "substitution"])),
    }


def verdict_thm8_eps_tilde(n: Numbers) -> str:
    return erratum_if(any(differ(r, 1.0) for r in n["substitution"]))


def evidence_thm8_eps_tilde(n: Numbers) -> str:
    return (
        "at (clients, tau, sigma) = ({:g}, {:g}, {:g}): printed eps~_FL = {:.6g}, substitution-corrected {:.6g}; ".format(
            *n["example"]
        )
        + f"substitution/printed eps~ = {n['substitution'][0]:.4f}..{n['substitution'][1]:.4f}; add/remove/printed = "
        f"{n['add_remove'][0]:.4f}..{n['add_remove'][1]:.4f}"
    )


def measure_sgld_bound(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    hp = frames["f7"][frames["f7"]["variant"] == "valid"]
    return {
        "per_n": [
            (float(n), int((~as_bool(g["hp_vacuous"])).sum()), len(g), float(g["hp_bound"].min()))
            for n, g in hp.groupby("n")
        ],
        "non_vacuous": int((~as_bool(hp["hp_vacuous"])).sum()),
        "points": len(hp),
        "floor_limited": int(as_bool(hp["floor_limited"]).sum()),
    }


def verdict_sgld_bound(n: Numbers) -> str:
    if n["non_vacuous"] == n["points"]:
        return "holds"
    return "partial" if n["non_vacuous"] else "fails"


def evidence_sgld_bound(n: Numbers) -> str:
    summary = "; ".join(f"N={x:g}: {k}/{m} non-vacuous, min bound {b:.3f}" for x, k, m, b in n["per_n"])
    return (
        f"valid variant, HP bound 9 eps_eff: {summary}; the Thm 1 floor 9 eps_min(N, delta') binds at "
        f"{n['floor_limited']}/{n['points']} points; vacuous elsewhere"
    )


def rate_slopes(frame: pd.DataFrame, size: str, others: list[str]) -> dict[str, tuple[float, float]]:
    """(min, max) log-log slopes of the deviation (``hp_bound``) and the failure probability against the sample size
    ``size`` (at fixed ``others`` and T) and against T (at fixed ``others`` and size), Theorem-as-printed rows."""
    rows = frame[frame["variant"] == "as_printed"]
    slopes = {}
    for quantity, column in (("a", "hp_bound"), ("b", "failure_probability")):
        for axis, fixed in ((size, others + ["t"]), ("t", others + [size])):
            fitted = [loglog_slope(g[axis], g[column]) for _, g in rows.groupby(fixed) if g[axis].nunique() > 1]
            fitted = [s for s in fitted if np.isfinite(s)]
            slopes[f"{quantity}_{'n' if axis == size else 't'}"] = (float(min(fitted)), float(max(fitted)))
    return slopes


def measure_rate(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    return {
        "remark1": rate_slopes(frames["f7"], "n", ["sigma"]),
        "remark2": rate_slopes(frames["f9"], "clients", ["tau", "sigma"]),
    }


def _within(slopes: Mapping[str, tuple[float, float]], quantity: str) -> bool:
    return (
        slopes[f"{quantity}_n"][1] <= STATED_N_SLOPE + SLOPE_TOLERANCE
        and slopes[f"{quantity}_t"][1] <= STATED_T_SLOPE + SLOPE_TOLERANCE
    )


def verdict_rate(n: Numbers) -> str:
    remarks = (n["remark1"], n["remark2"])
    if not all(_within(s, "a") for s in remarks):
        return "fails"
    return "holds" if all(_within(s, "b") for s in remarks) else "partial"


def evidence_rate(n: Numbers) -> str:
    def text(s: Mapping[str, tuple[float, float]]) -> str:
        return "; ".join(
            f"{name} slope in {axis} {s[f'{q}_{axis.lower()}'][0]:.3f}..{s[f'{q}_{axis.lower()}'][1]:.3f}"
            for q, name in (("a", "deviation a = 9 eps_eff"), ("b", "failure probability b"))
            for axis in ("N", "T")
        )

    return (
        f"stated: slope <= {STATED_N_SLOPE:g} in N and <= {STATED_T_SLOPE:g} in T for both a and b. Remark 1 (Thm 7 "
        f"as printed + Thm 1, f7): {text(n['remark1'])}. Remark 2 (Thm 8 as printed + Thm 1, f9, N = clients): "
        f"{text(n['remark2'])}. At fixed delta, delta~: the deviation meets the stated rate in both remarks: "
        f"{all(_within(n[r], 'a') for r in ('remark1', 'remark2'))}; the failure probability (b = e^-eps delta'/eps "
        f"ln(2/eps), which grows as eps shrinks) meets it: {all(_within(n[r], 'b') for r in ('remark1', 'remark2'))}"
    )


def _conclusion_rows(privacy, sigmas, steps, example: Mapping[str, Any], lipschitz: float) -> list[tuple]:
    """(sigma, T, claimed eps', claimed delta', exact delta at eps') of a theorem as printed on the linear-loss pair."""
    rows = []
    for sigma in sigmas:
        for t in steps:
            claimed = privacy(sigma, t)
            eps, delta = float(claimed["eps_prime"]), float(claimed["delta_prime"])
            exact = sgld_linear_loss_delta(eps, N=example["N"], tau=example["tau"], L=lipschitz, sigma=sigma, steps=t)
            rows.append((sigma, t, eps, delta, exact))
    return rows


def measure_thm7(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    ex = THM7_COUNTEREXAMPLE

    def privacy(sigma: float, t: int) -> Mapping[str, Any]:
        return sgld_privacy(ex["N"], ex["tau"], t, sigma, ex["L"], ex["delta"], ex["delta_tilde"], "as_printed")

    return {"example": ex, "rows": _conclusion_rows(privacy, (ex["sigma"],), ex["steps"], ex, ex["L"])}


def measure_thm8(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    ex = THM8_COUNTEREXAMPLE

    def privacy(sigma: float, t: int) -> Mapping[str, Any]:
        return fl_privacy(ex["N"], ex["tau"], t, sigma, ex["delta"], ex["delta_tilde"], "as_printed")

    return {"example": ex, "rows": _conclusion_rows(privacy, ex["sigmas"], ex["steps"], ex, 1.0)}


def verdict_conclusion(n: Numbers) -> str:
    return "fails" if any(exact > claimed for *_, claimed, exact in n["rows"]) else "holds"


def _rows_text(rows: list[tuple], theorem: str) -> str:
    return "; ".join(
        f"sigma = {s:g}, T = {t}: {theorem} (as printed) eps' = {e:.4g}, delta' = {d:.3g}; exact delta at eps' = "
        f"{x:.3g}"
        for s, t, e, d, x in rows
    )


def evidence_thm7(n: Numbers) -> str:
    ex = n["example"]
    return (
        f"Pair: linear loss, gradients -L u except the differing record's +L u, N = {ex['N']:g}, tau = {ex['tau']}, "
        f"L = {ex['L']:g}, delta = delta~ = {ex['delta']:g}; {_rows_text(n['rows'], 'Thm 7')} (exact: "
        "subsampled-Gaussian privacy loss distribution of dp_accounting, checked by quadrature at T = 1)"
    )


def evidence_thm8(n: Numbers) -> str:
    ex = n["example"]
    return (
        f"Pair: clipped client updates -L u except the differing client's +L u (norm L), noise L sigma, N = "
        f"{ex['N']:g} clients, tau = {ex['tau']}, delta = delta~ = {ex['delta']:g}, Thm 8's eps read as eps~; "
        f"{_rows_text(n['rows'], 'Thm 8')} (exact: subsampled-Gaussian privacy loss distribution, as for Thm 7)"
    )


def measure_thm8_generalization(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """Per point of f9 (clients, tau, sigma, T): Theorem 1's bound at Theorem 8's printed (eps', delta'), whether it
    is vacuous (deviation a >= 1, true for a loss in [0, 1]) and whether the printed pair is implied by the valid pair
    (eps'_printed >= eps'_valid and delta'_printed >= delta'_valid: an (eps'_valid, delta'_valid)-DP algorithm is
    then (eps'_printed, delta'_printed)-DP, so Theorem 1 applies at the printed pair)."""
    f9, keys = frames["f9"], ["clients", "tau", "sigma", "t"]
    printed = f9[f9["variant"] == "as_printed"].set_index(keys)
    valid = f9[f9["variant"] == THM8_VALID_VARIANT].set_index(keys).add_suffix("_valid")
    joined = printed.join(valid, how="inner")
    informative = joined[~as_bool(joined["hp_vacuous"])]
    eps_ok = informative["eps_prime"] >= informative["eps_prime_valid"]
    delta_ok = informative["delta_prime"] >= informative["delta_prime_valid"]
    return {
        "points": len(joined),
        "vacuous": len(joined) - len(informative),
        "informative": len(informative),
        "implied": int((eps_ok & delta_ok).sum()),
        "eps_below": int((~eps_ok).sum()),
        "delta_below": int((~delta_ok).sum()),
        "delta_shortfall": float((1 - informative["delta_prime"] / informative["delta_prime_valid"]).max()),
        "min_bound": float(informative["hp_bound"].min()) if len(informative) else float("nan"),
        "gap_columns": sorted(c for c in f9.columns if "gap" in c),
    }


def verdict_thm8_generalization(n: Numbers) -> str:
    if n["implied"] == n["informative"]:
        return "holds"
    return "partial" if n["implied"] else "not_tested"


def evidence_thm8_generalization(n: Numbers) -> str:
    measured = ", ".join(n["gap_columns"]) or "none"
    return (
        f"f9 (as printed vs {THM8_VALID_VARIANT}): {n['vacuous']} of {n['points']} points vacuous (a >= 1, true for "
        f"any loss in [0, 1]); of the {n['informative']} non-vacuous points (min a = {n['min_bound']:.3f}) the "
        f"printed (eps', delta') is implied by the valid one at {n['implied']}, so Theorem 1 gives the printed "
        f"bound there; elsewhere the printed eps' is below the valid one at {n['eps_below']} and the printed delta' "
        f"(the paper's composition delta', cf. erratum_composition_below_lower_bound) below the valid one at "
        f"{n['delta_below']} (by at most {n['delta_shortfall']:.2e}, relative), and the bound is not tested: no "
        f"client-level generalization gap of Algorithm 2 is measured (gap columns in f9: {measured})"
    )


def measure_wang(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    p = WANG_POINT
    eps = sgld_privacy(p["N"], p["tau"], np.array(WANG_STEPS), p["sigma"], delta=p["delta"], delta_tilde=p["delta"])
    return {
        "threshold": float(wang_sgld_threshold(p["epsilon"], p["delta"], p["N"], p["tau"])),
        "eps_prime": [float(e) for e in np.asarray(eps["eps_prime"], dtype=float)],
    }


def verdict_wang(n: Numbers) -> str:
    return erratum_if(bool(np.all(np.diff(n["eps_prime"]) > 0)) and n["threshold"] < 1)


def evidence_wang(n: Numbers) -> str:
    p = WANG_POINT
    return (
        f"At eps = {p['epsilon']:g}, delta = {p['delta']:g}, N = {p['N']:g}, tau = {p['tau']}: eps^2 N/(32 tau "
        f"log(2/delta)) = {n['threshold']:.6f}; valid eps' at sigma = {p['sigma']:g} for T = "
        f"{', '.join(map(str, WANG_STEPS))}: " + ", ".join(f"{e:.4g}" for e in n["eps_prime"]) + ". Paper says 'T >'; "
        "correct: 'T <='"
    )


SGLD_RULES = (
    ClaimRule(
        "erratum_sgld_factor_2",
        "Thm 7, App. C.1",
        "The per-step eps~ of SGLD drops the factor 2 of 2 theta''^T v: the linear coefficient is 4 sqrt2, not 2 sqrt2",
        artifact_path("t3"),
        ("t3",),
        "erratum while the printed eps~ (2 sqrt2) and the corrected one (4 sqrt2) differ by more than "
        "RELATIVE_TOLERANCE on t3; holds once they agree",
        measure_factor_2,
        verdict_factor_2,
        evidence_factor_2,
    ),
    ClaimRule(
        "erratum_sgld_subsampling",
        "Thm 7 ('Lemma 4.4 of [7]')",
        "eps~ -> 2(tau/N)eps~ holds only while log(1+q(e^eps~-1)) <= 2q eps~ (eps~ <= 1.2564 uniformly in q)",
        artifact_path("t3"),
        ("t3",),
        "erratum while some valid row of t3 has the exact amplification log(1+q(e^eps~-1)) above the printed 2q eps~; "
        "holds once none has",
        measure_subsampling,
        verdict_subsampling,
        evidence_subsampling,
    ),
    ClaimRule(
        "erratum_thm7_delta_tilde",
        "Thm 7 (definition of delta~)",
        "Thm 7's delta~ is circular (used in eps', defined from eps') and uses (tau/N)eps~ for 2(tau/N)eps~",
        artifact_path("t3"),
        ("t3",),
        "erratum while the printed delta~ is undefined on some row of t3 or differs (by more than RELATIVE_TOLERANCE) "
        "from the delta~ that eps' was computed with; holds once they agree",
        measure_delta_tilde,
        verdict_delta_tilde,
        evidence_delta_tilde,
    ),
    ClaimRule(
        "erratum_thm8_epsilon_tilde",
        "Thm 8, eq. (15)",
        "Thm 8's eps~_FL is inconsistent with Thm 7's sensitivity (substitution: 4 sqrt2 and 4/tau^2)",
        artifact_path("f9"),
        ("f9",),
        "erratum while the printed eps~_FL and the substitution-corrected one differ by more than RELATIVE_TOLERANCE "
        "on f9; holds once they agree",
        measure_thm8_eps_tilde,
        verdict_thm8_eps_tilde,
        evidence_thm8_eps_tilde,
    ),
    ClaimRule(
        "sgld_generalization_bound",
        "Thm 7 + Thm 1, Sec. 5",
        "SGLD generalizes with a bound of order sqrt(log N / N) independent of model size",
        artifact_path("f7"),
        ("f7",),
        "holds if the valid HP bound is non-vacuous at every point of f7, partial if at some, fails if at none",
        measure_sgld_bound,
        verdict_sgld_bound,
        evidence_sgld_bound,
    ),
    ClaimRule(
        "remarks_rate_t_over_sqrt_n",
        "Remarks 1-2 (Sec. 5)",
        "P[R_hat <= O(T/sqrt(N)) + R] >= 1 - O(T/sqrt(N)) for SGLD (Thm 7) and federated learning (Thm 8)",
        artifact_path("f7"),
        ("f7", "f9"),
        "log-log slopes (dplab.numerics.loglog_slope) of Theorem 1's deviation a and failure probability b, with "
        "Theorem 7 / 8 as printed, against N at each (sigma, T) and against T at each (sigma, N); a quantity meets "
        "the rate if its largest slope is at most STATED_N_SLOPE = -0.5 in N and STATED_T_SLOPE = 1 in T, plus "
        f"SLOPE_TOLERANCE = {SLOPE_TOLERANCE:g}. Holds if a and b meet it in both remarks, partial if only a does, "
        "fails if a does not",
        measure_rate,
        verdict_rate,
        evidence_rate,
    ),
    ClaimRule(
        "thm7_conclusion_small_noise",
        "Theorem 7 (conclusion)",
        "SGLD (Algorithm 1) is (eps', delta')-DP with Theorem 7's eps' and delta'",
        artifact_path("t3"),
        (),
        "fails if a concrete pair of neighbouring datasets has exact delta(eps') > the theorem's delta' at some point "
        "of THM7_COUNTEREXAMPLE; holds otherwise",
        measure_thm7,
        verdict_conclusion,
        evidence_thm7,
    ),
    ClaimRule(
        "thm8_conclusion_small_noise",
        "Theorem 8 (conclusion)",
        "DP federated learning (Algorithm 2) is (eps', delta')-DP with Theorem 8's eps' and delta'",
        artifact_path("f9"),
        (),
        "fails if a concrete pair of neighbouring client sets has exact delta(eps') > the theorem's delta' at some "
        "point of THM8_COUNTEREXAMPLE; holds otherwise",
        measure_thm8,
        verdict_conclusion,
        evidence_thm8,
    ),
    ClaimRule(
        "thm8_generalization_bound",
        "Theorem 8 ('a generalization bound is delivered by combining with Theorem 1')",
        "DP federated learning satisfies Theorem 1's bound P[|R_hat - R| < 9 eps'] > 1 - e^-eps' delta'/eps' "
        "ln(2/eps') (client level) at Theorem 8's (eps', delta')",
        artifact_path("f9"),
        ("f9",),
        "at each f9 point the bound holds trivially where vacuous, and follows from Theorem 1 where Theorem 8's "
        f"printed (eps', delta') is at least the valid ({THM8_VALID_VARIANT}) pair in both coordinates; holds if "
        "it follows at every non-vacuous point, partial if at some (the others are untested, not refuted: no "
        "federated experiment measures the gap), not_tested if at none",
        measure_thm8_generalization,
        verdict_thm8_generalization,
        evidence_thm8_generalization,
    ),
    ClaimRule(
        "erratum_wang_t_greater",
        "Sec. 5 (Wang et al. [68], as quoted)",
        "SGLD is (eps, delta)-DP if T > eps^2 N/(32 tau log(2/delta))",
        artifact_path("t3"),
        (),
        "erratum if the printed lower limit is below 1 (every run satisfies it) while SGLD's valid eps' grows with T "
        "(privacy degrades with T, so the condition is an upper limit, 'T <='); holds otherwise",
        measure_wang,
        verdict_wang,
        evidence_wang,
    ),
)
