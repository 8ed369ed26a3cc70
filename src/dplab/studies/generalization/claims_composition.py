"""Composition claims of He, Wang, Tao (Theorems 4-6, Corollaries 2-3) and their errata, each a
:class:`~dplab.report.claims.ClaimRule` (measure, verdict, evidence)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.accounting.composition import (
    brute_force_heterogeneous_product_delta,
    brute_force_product_delta,
    kov_pair,
    lemma6_boundary_maximum,
    lemma6_grid_maximum,
    lower_bound_delta,
    optimal_delta,
)
from dplab.report.claims import ClaimRule, Numbers, differ, erratum_if, holds_if
from dplab.studies.generalization.claims_common import artifact_path, as_bool
from dplab.theory.generalization import composition_certificates, composition_iv_epsilon

__all__ = ["COMPOSITION_RULES", "LEMMA6_INSTANCES", "THM5_GRID", "THM5_HETEROGENEOUS", "first_step_below_lower_bound"]

#: Cor 3's eps' is KOV's eps'_3 ("the estimate of eps' is the same as ours", Sec. 4.2.2) to this relative accuracy.
EPSILON_MATCH_TOLERANCE = 1e-12
#: The certified delta' counts as below a bound when it is below it by more than this relative margin (as in f5/t2).
BELOW_MARGIN = 1e-12
#: Methods of t2 that are the paper's own theorems (the others are baselines and exact references).
THEOREM_METHODS = ("cor2", "thm4_box", "thm4_literal", "cor3_corrected", "cor3_as_printed")
#: Theorem 5 (Composition IV): (eps, T, delta') of the homogeneous check against the exact optimal delta of T pure
#: eps-DP steps (KOV Thm 3.3), and heterogeneous steps checked by enumerating the randomized-response product.
THM5_GRID = {"epsilons": (0.01, 0.1, 0.5, 1.0, 2.0), "steps": (1, 10, 100, 1000), "deltas": (1e-2, 1e-6, 1e-10)}
#: Appendix B.4's pair, as printed and corrected, composed T times and evaluated at eps' (8 steps: 4^8 outcomes).
B4_POINT = {"epsilon": 0.5, "delta": 1e-3, "t": 8, "eps_prime": 1.0}
#: Lemma 6's use in Theorem 4: steps (eps_i, delta_i) give A_i = delta_i/(1 + e^eps_i), c_i = e^eps_i, c = e^eps'.
LEMMA6_STEPS = {"eps": (0.5, 1.0, 2.0), "delta": (0.1, 0.05, 0.2), "eps_prime": (1.0, 2.5)}
#: Lemma 6: (A_i, c_i, c) instances with c_i A_i <= 1: two generic ones at three products c each, and those of
#: LEMMA6_STEPS.
LEMMA6_INSTANCES = (
    *(((0.3, 0.1), (3.0, 5.0), c) for c in (2.0, 6.0, 12.0)),
    *(((0.2, 0.05, 0.3), (4.0, 10.0, 2.5), c) for c in (3.0, 20.0, 60.0)),
    *(
        (
            tuple(d / (1 + np.exp(e)) for e, d in zip(LEMMA6_STEPS["eps"], LEMMA6_STEPS["delta"], strict=True)),
            tuple(np.exp(e) for e in LEMMA6_STEPS["eps"]),
            float(np.exp(eps_prime)),
        )
        for eps_prime in LEMMA6_STEPS["eps_prime"]
    ),
)
#: Lemma 6's brute force: grid points per coordinate of log alpha_i, and the slack allowed above the boundary max.
LEMMA6_GRID_POINTS = 1001
LEMMA6_SLACK = 1e-12
THM5_HETEROGENEOUS = {"eps_steps": (0.2, 0.5, 0.1, 0.8, 0.3, 0.4, 0.6, 0.2, 0.7, 0.3), "deltas": (0.5, 0.3, 0.2, 0.1)}


def _case(frame: pd.DataFrame, eps: float, delta: float, t: int, dt: float | None = None) -> pd.DataFrame:
    mask = (
        np.isclose(frame["epsilon_step"], eps)
        & np.isclose(frame["delta_step"], delta, rtol=1e-9, atol=0)
        & (frame["t"] == t)
    )
    if dt is not None:
        mask &= np.isclose(frame["delta_tilde"], dt, rtol=1e-9, atol=0)
    return frame[mask].set_index("method")


def measure_epsilon_equals_kov(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    f4 = frames["f4"]
    kov = f4[f4["method"] == "kov_thm4"].set_index(["epsilon_step", "t"])
    cor3 = f4[f4["method"] == "cor3"].set_index(["epsilon_step", "t"])["eps_prime"]
    opt = f4[f4["method"] == "optimal_pure"].set_index(["epsilon_step", "t"])["eps_prime"]
    uncapped = kov["kov_term3"] < kov["kov_term1"]
    return {
        "max_relative_difference": float(
            np.max(np.abs(kov.loc[uncapped, "kov_term3"] - cor3[uncapped]) / cor3[uncapped])
        ),
        "above_optimal": int((kov["eps_prime"] > opt * (1 + 1e-9)).sum()),
        "points": len(kov),
    }


def verdict_epsilon_equals_kov(n: Numbers) -> str:
    return holds_if(n["max_relative_difference"] < EPSILON_MATCH_TOLERANCE)


def evidence_epsilon_equals_kov(n: Numbers) -> str:
    return (
        f"Thm 4 eps' is KOV min(eps'_1, eps'_2, eps'_3) by construction; Cor 3's eps' = KOV eps'_3 to "
        f"{n['max_relative_difference']:.1e} wherever uncapped; KOV/Thm 4 exceeds the exact optimal (pure steps) at "
        f"{n['above_optimal']}/{n['points']} (eps, T) points of f4"
    )


def first_step_below_lower_bound(eps: float, delta: float, delta_tilde: float, method: str, t_max: int) -> int | None:
    """The smallest integer T <= ``t_max`` at which ``method``'s certified delta'(T) (f5's formulas) falls below the
    universal lower bound 1 - (1 - delta)^T (relative margin :data:`BELOW_MARGIN`, as f5), at every integer T."""
    steps = np.arange(1, t_max + 1)
    _, certified = composition_certificates(eps, delta, delta_tilde, steps)[method]
    below = np.flatnonzero(np.asarray(certified) < np.asarray(lower_bound_delta(delta, steps)) * (1 - BELOW_MARGIN))
    return int(steps[below[0]]) if below.size else None


def first_steps(f5: pd.DataFrame) -> list[tuple[float, str, int | None, int]]:
    """Per (eps, delta, delta~, method) flagged in f5: (eps, method, exact first integer T, f5's first grid T)."""
    first = f5[as_bool(f5["below_lower_bound"])].groupby(["epsilon_step", "delta_step", "delta_tilde", "method"])["t"]
    return [
        (e, m, first_step_below_lower_bound(e, d, dt, m, int(t)), int(t)) for (e, d, dt, m), t in first.min().items()
    ]


def _first_steps_text(rows: list[tuple[float, str, int | None, int]]) -> str:
    return (
        "; ".join(f"eps={e:g} {m}: from T={t} (exact first integer T; grid point {g})" for e, m, t, g in rows) or "none"
    )


def _reference_case(t2: pd.DataFrame) -> dict[str, float] | None:
    """The reference case (0.1, 1e-5, T = 100, delta~ = 1e-5) of t2 (KOV, Cor 2, Thm 4, the floor, the optimum), or None."""
    c9 = _case(t2, 0.1, 1e-5, 100, 1e-5)
    if not {"cor2", "kov", "lower_bound", "optimal_at_kov_eps", "thm4_box"} <= set(c9.index):
        return None
    c = int(c9.loc["cor2", "c"])
    return {
        "eps_prime": float(c9.loc["kov", "eps_prime"]),
        "c": c,
        "stated_gain": 1e-5 * float(np.tanh(0.1 / 2)) * (100 - c),
        **{
            key: float(c9.loc[method, "delta_prime"])
            for key, method in (
                ("kov", "kov"),
                ("cor2", "cor2"),
                ("thm4_box", "thm4_box"),
                ("lower_bound", "lower_bound"),
                ("optimal", "optimal_at_kov_eps"),
            )
        },
    }


def measure_delta_tighter(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t2 = frames["t2"]
    bad = t2[t2["method"].isin(THEOREM_METHODS) & as_bool(t2["below_lower_bound"])]
    return {"below": len(bad), "reference": _reference_case(t2), "first_steps": first_steps(frames["f5"])}


def verdict_delta_tighter(n: Numbers) -> str:
    return "fails" if n["below"] else "holds"


def evidence_delta_tighter(n: Numbers) -> str:
    r = n["reference"]
    reference = (
        f"(0.1, 1e-5, T=100, dt=1e-5): eps'={r['eps_prime']:.6f}, c={r['c']}, KOV {r['kov']:.6e}, Cor 2 "
        f"{r['cor2']:.6e} (KOV - Cor 2 = {r['kov'] - r['cor2']:.4e} against the stated gain delta tanh(eps/2)(T - c) "
        f"= {r['stated_gain']:.4e}), Thm 4 (box) {r['thm4_box']:.6e}, lower bound {r['lower_bound']:.6e}, exact "
        f"optimal {r['optimal']:.6e}"
        if r
        else "case (0.1, 1e-5, 100, 1e-5) not in t2"
    )
    return (
        "a certified delta' below 1-(1-delta)^T is impossible for a valid theorem: "
        f"{n['below']} theorem rows of t2 flagged below_lower_bound; {reference}; in f5: "
        f"{_first_steps_text(n['first_steps'])}"
    )


def measure_below_lower_bound(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t2 = frames["t2"]
    bad = t2[t2["method"].isin(THEOREM_METHODS) & as_bool(t2["below_lower_bound"])]
    literal = _case(t2, 0.01, 1e-5, 100, 1e-7)
    small = t2[(t2["t"] <= 27) & t2["method"].isin(THEOREM_METHODS) & as_bool(t2["below_lower_bound"])]
    return {
        "example": (
            (bad.iloc[0]["method"], float(bad.iloc[0]["delta_prime"]), float(bad.iloc[0]["lower_bound"]))
            if len(bad)
            else None
        ),
        "methods": sorted(set(bad["method"])),
        "cases": sorted({(float(r.epsilon_step), float(r.delta_step), int(r.t)) for r in bad.itertuples()}),
        "literal": (
            (float(literal.loc["thm4_literal", "delta_prime"]), float(literal.loc["optimal_at_kov_eps", "delta_prime"]))
            if "thm4_literal" in literal.index
            else None
        ),
        "small_t": len(small),
    }


def verdict_below_lower_bound(n: Numbers) -> str:
    return erratum_if(bool(n["cases"]))


def evidence_below_lower_bound(n: Numbers) -> str:
    literal = (
        f"Thm 4 literal reading at (0.01, 1e-5, 100, 1e-7): printed {n['literal'][0]:.6e} < exact "
        f"{n['literal'][1]:.6e}; "
        if n["literal"]
        else ""
    )
    example = "e.g. {} printed delta' = {:.6e} against the floor {:.6e}; ".format(*n["example"]) if n["example"] else ""
    return (
        f"printed delta' (flagged rows: {', '.join(n['methods']) or 'none'}) below the correct floor 1-(1-delta)^T at "
        f"(eps, delta, T) in {n['cases']}; {example}{literal}rows with T <= 27 flagged: {n['small_t']} (none expected)"
    )


def measure_cor3_sign(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t2 = frames["t2"]
    printed = t2[(t2["method"] == "cor3_as_printed") & (t2["delta_step"] == 0)]
    corrected = t2[(t2["method"] == "cor3_corrected") & (t2["delta_step"] == 0)]
    if not (len(printed) and len(corrected)):
        return {"case": None}
    p, c = printed.iloc[0], corrected.iloc[0]
    return {
        "case": (float(p["epsilon_step"]), int(p["t"]), float(p["delta_tilde"])),
        "printed": float(p["delta_prime"]),
        "corrected": float(c["delta_prime"]),
        "optimal": float(p["optimal_delta_at_eps_prime"]),
        "below_optimal": bool(as_bool(pd.Series([p["below_optimal"]])).iloc[0]),
        "expected_ratio": float(np.exp(p["eps_prime"] + p["t"] * p["epsilon_step"])),
    }


def verdict_cor3_sign(n: Numbers) -> str:
    return erratum_if(n["case"] and differ(n["printed"], n["corrected"]))


def evidence_cor3_sign(n: Numbers) -> str:
    if not n["case"]:
        return "no pure-DP case in t2"
    eps, t, dt = n["case"]
    return (
        f"pure steps (eps={eps:g}, T={t}, dt={dt:g}): printed delta'' = {n['printed']:.6e} < exact optimal "
        f"{n['optimal']:.6e} (below_optimal={n['below_optimal']}); corrected {n['corrected']:.6e}; ratio "
        f"{n['corrected'] / n['printed']:.6e} = e^(eps'+T eps) = {n['expected_ratio']:.6e}"
    )


def measure_fair(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    f6 = frames["f6"]
    wide = f6.pivot_table(index="t", columns="method", values="eps_prime")
    return {
        "below_optimal": sorted(int(t) for t in set(f6[as_bool(f6["below_optimal"])]["t"])),
        "paper_only": sorted(int(t) for t in set(f6[as_bool(f6["feasible_only_for_paper"])]["t"])),
        "values": {
            int(t): {m: float(wide.loc[t, m]) for m in wide.columns} for t in wide.index if t in (100, 1000, 1020)
        },
    }


def verdict_fair(n: Numbers) -> str:
    return "fails" if n["below_optimal"] or n["paper_only"] else "holds"


def evidence_fair(n: Numbers) -> str:
    values = "; ".join(f"T={t}: " + ", ".join(f"{m} {v:.4f}" for m, v in row.items()) for t, row in n["values"].items())
    return (
        f"paper value below the exact optimum at T in {n['below_optimal']}, finite where no valid method is at T in "
        f"{n['paper_only']}; {values}"
    )


def _rr_product_delta(eps_steps: tuple[float, ...], eps_prime: float) -> float:
    pairs = [kov_pair(e, 0.0) for e in eps_steps]
    return brute_force_heterogeneous_product_delta(
        np.array([p for p, _ in pairs]), np.array([q for _, q in pairs]), eps_prime
    )


def measure_thm5(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    rows = [
        (eps, t, d, float(optimal_delta(eps, 0.0, t, composition_iv_epsilon(np.full(t, eps), d))))
        for eps in THM5_GRID["epsilons"]
        for t in THM5_GRID["steps"]
        for d in THM5_GRID["deltas"]
    ]
    hetero = THM5_HETEROGENEOUS["eps_steps"]
    rows += [
        (float(np.mean(hetero)), len(hetero), d, _rr_product_delta(hetero, composition_iv_epsilon(np.array(hetero), d)))
        for d in THM5_HETEROGENEOUS["deltas"]
    ]
    ratios = [exact / d for *_, d, exact in rows]
    return {
        "points": len(rows),
        "violations": [r for r in rows if r[3] > r[2] * (1 + BELOW_MARGIN)],
        "max_ratio": float(max(ratios)),
        "max_ratio_case": rows[int(np.argmax(ratios))],
        "heterogeneous": len(THM5_HETEROGENEOUS["deltas"]),
    }


def verdict_thm5(n: Numbers) -> str:
    return "fails" if n["violations"] else "holds"


def evidence_thm5(n: Numbers) -> str:
    eps, t, d, exact = n["max_ratio_case"]
    return (
        f"exact delta at Theorem 5's eps' exceeds the claimed delta' at {len(n['violations'])} of {n['points']} points "
        f"(homogeneous eps in {list(THM5_GRID['epsilons'])}, T in {list(THM5_GRID['steps'])}, delta' in "
        f"{list(THM5_GRID['deltas'])}, exact by KOV Thm 3.3; {n['heterogeneous']} heterogeneous cases of "
        f"{len(THM5_HETEROGENEOUS['eps_steps'])} steps, exact by enumerating the randomized-response product); "
        f"largest exact/claimed {n['max_ratio']:.3g} at (mean eps {eps:g}, T = {t}, delta' = {d:g}: exact {exact:.3g})"
    )


def measure_b4_pair(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    b = B4_POINT
    values = {
        variant: brute_force_product_delta(*kov_pair(b["epsilon"], b["delta"], variant), b["t"], b["eps_prime"])
        for variant in ("as_printed", "corrected")
    }
    return {**values, "floor": float(lower_bound_delta(b["delta"], b["t"]))}


def verdict_b4_pair(n: Numbers) -> str:
    return erratum_if(differ(n["as_printed"], n["corrected"]))


def evidence_b4_pair(n: Numbers) -> str:
    b = B4_POINT
    return (
        f"{b['t']}-fold delta at eps' = {b['eps_prime']:g} of steps (eps, delta) = ({b['epsilon']:g}, {b['delta']:g}), "
        f"by enumerating all 4^{b['t']} outcomes: printed pair (P1 repeats P0's middle masses) {n['as_printed']:.6e} "
        f"(the floor 1-(1-delta)^T = {n['floor']:.6e}); corrected pair (middle masses swapped) {n['corrected']:.6e}"
    )


def measure_lemma6(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """Per instance of :data:`LEMMA6_INSTANCES`: the max of eq. (11) over the points of eq. (12) and the brute-force
    max over the whole constraint set on a grid (:data:`LEMMA6_GRID_POINTS` per coordinate)."""
    cases = [
        (len(a), c, lemma6_boundary_maximum(a, caps, c), lemma6_grid_maximum(a, caps, c, LEMMA6_GRID_POINTS))
        for a, caps, c in LEMMA6_INSTANCES
    ]
    return {"cases": cases}


def verdict_lemma6(n: Numbers) -> str:
    return holds_if(all(grid <= boundary + LEMMA6_SLACK for *_, boundary, grid in n["cases"]))


def evidence_lemma6(n: Numbers) -> str:
    cases = n["cases"]
    steps, product, boundary, grid = max(cases, key=lambda c: c[3] - c[2])
    return (
        f"{len(cases)} instances (T = {', '.join(str(t) for t in sorted({c[0] for c in cases}))}): max(grid max - "
        f"boundary max) = {grid - boundary:.3g} (T = {steps}, c = {product:g}: grid {grid:.9f} vs boundary "
        f"{boundary:.9f}); boundary - grid (the grid's resolution) at most {max(c[2] - c[3] for c in cases):.2e}; "
        "boundary max per instance: " + ", ".join(f"{c[2]:.6f}" for c in cases)
    )


COMPOSITION_RULES = (
    ClaimRule(
        "composition_epsilon_equals_kov",
        "Thm 4, Cor 2, Cor 3 (Sec. 4.2)",
        "The composition eps' equals Kairouz-Oh-Viswanath's (the paper says so); it is not tighter",
        artifact_path("f4"),
        ("f4",),
        "holds if Cor 3's eps' equals KOV's eps'_3 to EPSILON_MATCH_TOLERANCE = "
        f"{EPSILON_MATCH_TOLERANCE:g} (relative) wherever uncapped on f4; fails otherwise",
        measure_epsilon_equals_kov,
        verdict_epsilon_equals_kov,
        evidence_epsilon_equals_kov,
    ),
    ClaimRule(
        "composition_delta_tighter_than_kov",
        "Thm 4, Cor 2, Cor 3, Remarks (Sec. 4.2)",
        "delta' is smaller than KOV's by about delta tanh(eps/2)(T - ceil(eps'/eps))",
        artifact_path("t2"),
        ("t2", "f5"),
        "fails if any theorem row of t2 certifies delta' below 1-(1-delta)^T (by more than BELOW_MARGIN = "
        f"{BELOW_MARGIN:g}, relative); holds otherwise",
        measure_delta_tighter,
        verdict_delta_tighter,
        evidence_delta_tighter,
    ),
    ClaimRule(
        "erratum_composition_below_lower_bound",
        "Thm 4, Cor 2, Cor 3, Thm 6 (proof of Thm 6)",
        "The composition delta' of Thms 4/6 and Cors 2/3 violates the universal lower bound 1-(1-delta)^T (the "
        "proof only bounds product events)",
        artifact_path("t2"),
        ("t2",),
        "erratum while some theorem row of t2 (printed delta') lies below the floor 1-(1-delta)^T that every valid "
        "composition bound respects; holds once none does",
        measure_below_lower_bound,
        verdict_below_lower_bound,
        evidence_below_lower_bound,
    ),
    ClaimRule(
        "erratum_cor3_sign",
        "Cor 3, eq. (38), App. B.5",
        "Cor 3's delta'' prefactor e^{-(eps'+T eps)/2} must be e^{+(eps'+T eps)/2}",
        artifact_path("t2"),
        ("t2",),
        "erratum while the printed delta'' and the corrected one (prefactor e^{+(eps'+T eps)/2}) differ by more than "
        "RELATIVE_TOLERANCE on t2's pure-DP case; holds once they agree",
        measure_cor3_sign,
        verdict_cor3_sign,
        evidence_cor3_sign,
    ),
    ClaimRule(
        "composition_fair_comparison",
        "Thm 4, Cor 2, Cor 3 (our F6)",
        "At a fixed total delta, the paper's theorems certify a smaller eps' than KOV",
        artifact_path("f6"),
        ("f6",),
        "fails if a paper value of f6 is below the exact optimum or finite where no valid method is; holds otherwise",
        measure_fair,
        verdict_fair,
        evidence_fair,
    ),
    ClaimRule(
        "erratum_b4_worst_case_pair",
        "Proof of Cor 3 (App. B.4)",
        "P1 = (0, (1-delta)e^eps/(1+e^eps), (1-delta)/(1+e^eps), delta) is, with P0, the worst case of Theorem 3.4 of "
        "Kairouz et al.",
        artifact_path("t2"),
        (),
        "erratum while the T-fold delta(eps') of the printed pair and of the corrected pair (P1 = reversed P0) differ "
        "by more than RELATIVE_TOLERANCE at B4_POINT; holds once they agree",
        measure_b4_pair,
        verdict_b4_pair,
        evidence_b4_pair,
    ),
    ClaimRule(
        "thm5_composition_iv",
        "Thm 5 (Composition Theorem IV), App. B.2",
        "T eps_i-DP steps are (eps', delta')-DP for every delta' with eps' = sqrt(2 log(1/delta') sum eps_i^2) + "
        "sum eps_i tanh(eps_i/2)",
        artifact_path("f4"),
        (),
        "fails if the exact optimal delta of the composition at Theorem 5's eps' exceeds delta' (by more than "
        "BELOW_MARGIN, relative) at some point of THM5_GRID or THM5_HETEROGENEOUS; holds otherwise",
        measure_thm5,
        verdict_thm5,
        evidence_thm5,
    ),
    ClaimRule(
        "lemma6_boundary_maximum",
        "Lemma 6, eqs. (11)-(12) (used in the proof of Thm 6)",
        "The max of 1 - prod(1 - alpha_i A_i) over 1 <= alpha_i <= c_i (c_i A_i <= 1), prod alpha_i = c, is attained "
        "where at most one alpha_i is neither 1 nor c_i",
        artifact_path("t2"),
        (),
        "the max over the points of eq. (12) (every coordinate but one at 1 or c_i, enumerated) is compared with a "
        f"brute-force max over the whole constraint set ({LEMMA6_GRID_POINTS} grid points per coordinate of log "
        "alpha_i, the last coordinate solved from the product) on LEMMA6_INSTANCES; fails if the grid max exceeds "
        f"the boundary max by more than {LEMMA6_SLACK:g} at some instance (an interior point is better), holds "
        "otherwise",
        measure_lemma6,
        verdict_lemma6,
        evidence_lemma6,
    ),
)
