"""DP => generalization claims of He, Wang, Tao: Lemma 5 (KL), Theorems 1-3 and the abstract's "strictly tighter",
each a :class:`~dplab.report.claims.ClaimRule` (measure, verdict, evidence)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.claims import ClaimRule, Numbers, differ, erratum_if, exceeds, holds_if
from dplab.studies.generalization.claims_common import artifact_path, as_bool
from dplab.theory.generalization import (
    lemma4_hoeffding_probability,
    lemma4_sample_size,
    memorizer_probability,
    thm3_deviation,
    thm3_probability_bound,
)

__all__ = ["BOUND_RULES", "THM3_EPSILONS", "THM3_POINT"]

#: Lemma 5 "D_KL <= eps tanh(eps/2)", tighter than DR16 "by a factor (1+e^eps)/2": the ratio must match that closed
#: form, and randomized response must attain Lemma 5, to this relative accuracy (floating point only).
CLOSED_FORM_TOLERANCE = 1e-9
#: Theorem 3 states P[R_hat <= R + ke^-eps delta + 3 eps] >= eps: a probability can be >= eps only for eps <= 1.
THM3_MEANINGFUL_EPSILON = 1.0
#: The (eps, k delta) grid on which Theorem 3's statement is checked (k delta = 0: pure DP, as the memorizer).
THM3_EPSILONS = tuple(np.round(np.linspace(0.01, 2.0, 200), 6))
THM3_K_DELTAS = (0.0, 1e-3, 0.1)
#: The point at which the proof's last line (App. A.2) is shown: eps = 0.1, k = 1, delta = 0.
THM3_POINT = {"epsilon": 0.1, "delta": 0.0, "k": 1}
#: (eps, delta) at which eq. (18) of Lemma 4's proof is evaluated with the lemma's own k and N; the proof needs the
#: probability to be at least 1 - eps/8.
LEMMA4_POINTS = ((0.1, 1e-5), (0.05, 1e-6), (0.01, 1e-5))


def measure_lemma5(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    f1 = frames["f1"]
    ours = f1[f1["method"] == "lemma5"].set_index("epsilon")["kl"]
    rr = f1[f1["method"] == "randomized_response"].set_index("epsilon")["kl"]
    dr16 = f1[f1["method"] == "dr16"].set_index("epsilon")
    expected = (1 + np.exp(dr16.index.to_numpy())) / 2
    return {
        "points": len(dr16),
        "eps_range": (float(dr16.index.min()), float(dr16.index.max())),
        "all_above_one": bool((dr16["ratio_to_lemma5"] > 1).all()),
        "ratio_error": float(np.max(np.abs(dr16["ratio_to_lemma5"].to_numpy() / expected - 1))),
        "attained_error": float(np.max(np.abs(rr / ours - 1))),
        "ratio_at_1": float(dr16["ratio_to_lemma5"].iloc[np.argmin(np.abs(dr16.index.to_numpy() - 1.0))]),
    }


def verdict_lemma5(n: Numbers) -> str:
    ok = n["all_above_one"] and n["ratio_error"] < CLOSED_FORM_TOLERANCE and n["attained_error"] < CLOSED_FORM_TOLERANCE
    return holds_if(ok)


def evidence_lemma5(n: Numbers) -> str:
    return (
        f"ratio DR16/Lemma5 > 1 at {'all' if n['all_above_one'] else 'not all'} {n['points']} eps in "
        f"[{n['eps_range'][0]:g}, {n['eps_range'][1]:g}], equals (1+e^eps)/2 to {n['ratio_error']:.1e} (at eps~1: "
        f"{n['ratio_at_1']:.6f}); randomized response attains the bound to {n['attained_error']:.1e}"
    )


def measure_thm1(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    f2, t1 = frames["f2"], frames["t1"]
    wide = f2.pivot_table(index=["epsilon", "delta"], columns="method", values=["deviation", "failure_probability"])
    row = t1[np.isclose(t1["epsilon"], 0.1) & np.isclose(t1["delta"], 1e-5)].set_index("method")
    example = None
    if len(row):
        example = {
            key: float(row.loc[method, column])
            for key, method, column in (
                ("a", "thm1", "deviation"),
                ("a_ns", "nissim_stemmer", "deviation"),
                ("b", "thm1", "failure_probability"),
                ("b_ns", "nissim_stemmer", "failure_probability"),
                ("n_min", "thm1", "n_min"),
            )
        }
    dwork = t1[t1["method"] == "dwork_2015"]
    return {
        "points": len(wide),
        "a_smaller": bool((wide["deviation"]["thm1"] < wide["deviation"]["nissim_stemmer"]).all()),
        "b_smaller": bool((wide["failure_probability"]["thm1"] < wide["failure_probability"]["nissim_stemmer"]).all()),
        "example": example,
        "dwork_vacuous": int(as_bool(dwork["vacuous"]).sum()),
        "dwork_cases": len(dwork),
    }


def verdict_thm1(n: Numbers) -> str:
    return holds_if(n["a_smaller"] and n["b_smaller"])


def evidence_thm1(n: Numbers) -> str:
    e = n["example"]
    example = (
        f"at (0.1, 1e-5): a 9eps={e['a']:.3f} vs 13eps={e['a_ns']:.3f}, b {e['b']:.6e} vs NS {e['b_ns']:.6e}; "
        f"N_min = {e['n_min']:.4f}"
        if e
        else "case (0.1, 1e-5) not in t1"
    )
    return (
        f"a smaller at {'all' if n['a_smaller'] else 'not all'} {n['points']} (eps, delta) points of f2, b smaller: "
        f"{n['b_smaller']}; {example}; Dwork et al. 2015's b = 8 delta^eps >= 1 (vacuous) in "
        f"{n['dwork_vacuous']}/{n['dwork_cases']} cases of t1"
    )


def measure_intro_factor(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t1 = frames["t1"]
    wide = t1.pivot_table(index=["epsilon", "delta"], columns="method", values="failure_probability")
    ratio = (wide["thm1_intro"] / wide["thm1"]).to_numpy()
    return {"ratio_min": float(np.min(ratio)), "ratio_max": float(np.max(ratio)), "cases": len(ratio)}


def verdict_intro_factor(n: Numbers) -> str:
    return erratum_if(differ(n["ratio_min"], 1.0) or differ(n["ratio_max"], 1.0))


def evidence_intro_factor(n: Numbers) -> str:
    return (
        f"printed (introduction, Sec. 4.1.2) b = 2e^-eps delta/eps log(2/eps); correct (Theorem 1) b = e^-eps "
        f"delta/eps ln(2/eps): b_intro / b_statement = {n['ratio_min']:.6f}..{n['ratio_max']:.6f} on all "
        f"{n['cases']} t1 cases; the statement's (smaller) b is used everywhere else"
    )


def measure_thm2(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    f3 = frames["f3"]
    thm2 = f3[f3["method"] == "thm2"].set_index(["k_delta", "epsilon"])["bound"]
    ns = f3[f3["method"] == "nissim_stemmer"].set_index(["k_delta", "epsilon"])["bound"]
    part = f3[f3["method"] == "thm2"]
    big = part.iloc[np.argmax(part["epsilon"].to_numpy())]
    return {
        "smaller": int((thm2 < ns).sum()),
        "points": len(thm2),
        "ratio_min": float(np.min(ns / thm2)),
        "ratio_max": float(np.max(ns / thm2)),
        "eps_max": float(big["epsilon"]),
        "k_delta_at_eps_max": float(big["k_delta"]),
    }


def verdict_thm2(n: Numbers) -> str:
    return holds_if(n["smaller"] == n["points"])


def evidence_thm2(n: Numbers) -> str:
    return (
        f"Thm 2 < NS at {n['smaller']}/{n['points']} points of f3; ratio NS/Thm2 from {n['ratio_min']:.3f} to "
        f"{n['ratio_max']:.1f} (eps = {n['eps_max']:g}, k delta = {n['k_delta_at_eps_max']:g}); e^10 = "
        f"{np.exp(10):.2f} (paper: 'about 20,000')"
    )


def _thm3_guarantee(eps: float, k_delta: float) -> float:
    """What the proof of Theorem 3 guarantees for P[R_hat <= R + alpha]: 1 once alpha >= 1 (R_hat <= 1 <= R + alpha),
    else the corrected Markov bound 2eps/(1+alpha)."""
    if thm3_deviation(eps, k_delta, 1) >= 1.0:
        return 1.0
    return float(thm3_probability_bound(eps, k_delta, 1))


def measure_thm3_statement(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    rows = [
        (eps, kd, _thm3_guarantee(eps, kd), float(memorizer_probability(eps, thm3_deviation(eps, kd, 1))))
        for eps in THM3_EPSILONS
        for kd in THM3_K_DELTAS
    ]
    small = [r for r in rows if r[0] <= THM3_MEANINGFUL_EPSILON]
    return {
        "points": len(rows),
        "fails_small": sum(min(g, m) < e for e, _, g, m in small),
        "fails_large": sum(min(g, m) < e for e, _, g, m in rows if e > THM3_MEANINGFUL_EPSILON),
        "margin_small": min(g - e for e, _, g, _ in small),
        "memorizer_margin_small": min(m - e for e, _, _, m in small),
        "eps_range": (min(THM3_EPSILONS), max(THM3_EPSILONS)),
    }


def verdict_thm3_statement(n: Numbers) -> str:
    if n["fails_small"]:
        return "fails"
    return "partial" if n["fails_large"] else "holds"


def evidence_thm3_statement(n: Numbers) -> str:
    return (
        f"on {n['points']} (eps, k delta) points, eps in [{n['eps_range'][0]:g}, {n['eps_range'][1]:g}], k delta in "
        f"{list(THM3_K_DELTAS)}: the proof's corrected guarantee (2eps/(1+alpha), or 1 once alpha >= 1) is >= eps at "
        f"every eps <= {THM3_MEANINGFUL_EPSILON:g} (smallest margin {n['margin_small']:.4f}); the exact eps-DP "
        f"memorizer's P is >= eps there too (smallest margin {n['memorizer_margin_small']:.4f}); P >= eps fails at "
        f"{n['fails_small']} points with eps <= {THM3_MEANINGFUL_EPSILON:g} and at {n['fails_large']} with eps > "
        f"{THM3_MEANINGFUL_EPSILON:g}, where no probability reaches eps (the theorem states no eps <= 1)"
    )


def measure_thm3_proof(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    eps, delta, k = THM3_POINT["epsilon"], THM3_POINT["delta"], THM3_POINT["k"]
    alpha = float(thm3_deviation(eps, delta, k))
    return {
        **THM3_POINT,
        "alpha": alpha,
        "bound": float(thm3_probability_bound(eps, delta, k)),
        "exact": float(memorizer_probability(eps, alpha)),
    }


def verdict_thm3_proof(n: Numbers) -> str:
    """The proof prints P <= bound <= eps; an exact eps-DP instance with P above the bound contradicts the printed
    direction (while P >= bound, the corrected direction, holds)."""
    return erratum_if(exceeds(n["exact"], n["bound"]))


def evidence_thm3_proof(n: Numbers) -> str:
    return (
        f"at eps = {n['epsilon']:g}, k = {n['k']}, delta = {n['delta']:g} (alpha = {n['alpha']:.4g}): printed "
        f"P[R_hat <= R + alpha] <= (alpha - (e^-eps k delta + eps))/(1+alpha) = {n['bound']:.4f} <= eps = "
        f"{n['epsilon']:g} (its second step is false too: {n['bound']:.4f} > {n['epsilon']:g}); correct: P >= "
        f"2eps/(1+alpha) = {n['bound']:.4f} >= eps whenever alpha <= 1. The exactly eps-DP memorizer (randomized "
        f"response of a fair bit, loss 1[h = z]) has P = {n['exact']:.4f}, "
        f"{'above' if n['exact'] > n['bound'] else 'not above'} the printed upper bound and "
        f"{'at least' if n['exact'] >= n['bound'] else 'below'} the corrected lower bound"
    )


def measure_lemma4(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    rows = []
    for eps, delta in LEMMA4_POINTS:
        k, n = lemma4_sample_size(eps, delta)
        printed, corrected = (float(lemma4_hoeffding_probability(eps, n, k, v)) for v in ("as_printed", "corrected"))
        rows.append((eps, delta, int(k), int(n), printed, corrected, 1.0 - eps / 8.0))
    return {"rows": rows}


def verdict_lemma4(n: Numbers) -> str:
    return erratum_if(any(differ(printed, corrected) for *_, printed, corrected, _ in n["rows"]))


def evidence_lemma4(n: Numbers) -> str:
    return "; ".join(
        f"(eps, delta) = ({e:g}, {d:g}), k = {k}, N = {m}: printed (1 - e^(-eps^2/2N))^k = {p:.4g}, corrected "
        f"(1 - 2e^(-N eps^2/2))^k = {c:.9f}, needed >= 1 - eps/8 = {r:.9f} (printed meets it: {p >= r}; corrected: "
        f"{c >= r})"
        for e, d, k, m, p, c, r in n["rows"]
    )


def measure_strictly_tighter(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    t1 = frames["t1"]
    ours = t1[t1["method"] == "thm1"].set_index(["epsilon", "delta"])
    others = t1[~t1["method"].isin(["thm1", "thm1_intro"])]
    dominating = [
        (r.method, r.epsilon, r.delta, r.deviation, r.failure_probability)
        + tuple(ours.loc[(r.epsilon, r.delta), ["deviation", "failure_probability"]])
        for r in others.itertuples()
        if r.deviation < ours.loc[(r.epsilon, r.delta), "deviation"]
        and r.failure_probability < ours.loc[(r.epsilon, r.delta), "failure_probability"]
    ]
    return {"dominating": dominating, "rows": len(others)}


def verdict_strictly_tighter(n: Numbers) -> str:
    return "fails" if n["dominating"] else "holds"


def evidence_strictly_tighter(n: Numbers) -> str:
    text = (
        f"Dominated at {len(n['dominating'])} of {n['rows']} (method, eps, delta) rows, by "
        f"{sorted({d[0] for d in n['dominating']}) or 'none'}"
    )
    if not n["dominating"]:
        return text
    method, eps, delta, dev, fail, our_dev, our_fail = n["dominating"][0]
    return (
        text + f"; e.g. at ({eps:g}, {delta:g}): {method} deviation {dev:.4g}, failure {fail:.3g} vs Theorem 1's "
        f"{our_dev:.4g}, {our_fail:.3g} (Oneto et al.'s bound also uses N and the empirical risk, as in t1)"
    )


BOUND_RULES = (
    ClaimRule(
        "lemma5_tighter_kl",
        "Lemma 5",
        "D_KL <= eps*tanh(eps/2), tighter than DR16's eps(e^eps-1)/2 by (1+e^eps)/2",
        artifact_path("f1"),
        ("f1",),
        "holds if DR16/Lemma 5 > 1 at every eps of f1, equals (1+e^eps)/2 and randomized response attains Lemma 5, "
        f"both to CLOSED_FORM_TOLERANCE = {CLOSED_FORM_TOLERANCE:g} (relative); fails otherwise",
        measure_lemma5,
        verdict_lemma5,
        evidence_lemma5,
    ),
    ClaimRule(
        "thm1_tighter_than_nissim_stemmer",
        "Thm 1, Sec. 4.1.2",
        "P[|R_hat - R| < 9eps] > 1 - e^-eps delta/eps ln(2/eps): both a and b smaller than Nissim-Stemmer's 13eps "
        "and (2delta/eps)log(2/eps)",
        artifact_path("f2"),
        ("f2", "t1"),
        "holds if both the deviation a and the failure probability b of Theorem 1 are smaller than Nissim-Stemmer's "
        "at every (eps, delta) point of f2; fails otherwise",
        measure_thm1,
        verdict_thm1,
        evidence_thm1,
    ),
    ClaimRule(
        "erratum_thm1_intro_factor_2",
        "Introduction and Sec. 4.1.2 vs Thm 1",
        "The introduction quotes b = 2e^-eps delta/eps log(2/eps), Theorem 1 states it without the 2",
        artifact_path("t1"),
        ("t1",),
        "erratum while the introduction's b and Theorem 1's b differ (ratio away from 1 by more than "
        "RELATIVE_TOLERANCE) at some case of t1; holds once they agree",
        measure_intro_factor,
        verdict_intro_factor,
        evidence_intro_factor,
    ),
    ClaimRule(
        "thm2_tighter_than_nissim_stemmer",
        "Thm 2, Sec. 4.1.1",
        "On-average bound e^-eps k delta + 1 - e^-eps, tighter than Nissim-Stemmer's k delta + 2eps (the delta "
        "term by a factor e^eps)",
        artifact_path("f3"),
        ("f3",),
        "holds if Theorem 2's bound is below Nissim-Stemmer's at every point of f3; fails otherwise",
        measure_thm2,
        verdict_thm2,
        evidence_thm2,
    ),
    ClaimRule(
        "thm3_probability_at_least_epsilon",
        "Thm 3, eq. (2)",
        "P[R_hat_{S_i}(h) <= R(h) + ke^-eps delta + 3eps] >= eps for every (eps, delta)-DP multi-database algorithm",
        artifact_path("t1"),
        (),
        "on the (eps, k delta) grid: fails if at some eps <= THM3_MEANINGFUL_EPSILON = 1 the proof's corrected "
        "guarantee or the exact eps-DP memorizer's probability is below eps; partial if P >= eps fails only where "
        "eps > 1 (no probability reaches eps); holds otherwise",
        measure_thm3_statement,
        verdict_thm3_statement,
        evidence_thm3_statement,
    ),
    ClaimRule(
        "erratum_thm3_proof_inequality",
        "Proof of Thm 3 (App. A.2), last display",
        "P[R_hat <= R + alpha] <= (alpha - (e^-eps k delta + eps))/(1 + alpha) <= eps",
        artifact_path("t1"),
        (),
        "erratum while the exact probability of an eps-DP instance (the randomized-response memorizer at "
        "THM3_POINT) exceeds the proof's printed upper bound (by more than RELATIVE_TOLERANCE): the inequality "
        "points the wrong way; holds otherwise",
        measure_thm3_proof,
        verdict_thm3_proof,
        evidence_thm3_proof,
    ),
    ClaimRule(
        "erratum_lemma4_hoeffding_exponent",
        "Proof of Lemma 4 (App. A.2), eq. (18)",
        "P(for all i, |l(h_i, T) - R(h_i)| <= eps/2) >= (1 - e^{-eps^2/2N})^k >= 1 - eps/8",
        artifact_path("t1"),
        (),
        "erratum while, at some point of LEMMA4_POINTS with the lemma's own k and N, the printed (1 - e^{-eps^2/2N})^k "
        "and the corrected two-sided Hoeffding bound (1 - 2e^{-N eps^2/2})^k differ by more than RELATIVE_TOLERANCE; "
        "holds once they agree",
        measure_lemma4,
        verdict_lemma4,
        evidence_lemma4,
    ),
    ClaimRule(
        "abstract_strictly_tighter",
        "Abstract, Sec. 4.1.2",
        "The high-probability generalization bound is strictly tighter than existing works",
        artifact_path("t1"),
        ("t1",),
        "fails if at some (eps, delta) of t1 another bound has both a smaller deviation and a smaller failure "
        "probability than Theorem 1; holds otherwise",
        measure_strictly_tighter,
        verdict_strictly_tighter,
        evidence_strictly_tighter,
    ),
)
