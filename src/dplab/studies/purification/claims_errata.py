"""Errata of Lin, Wang, Ma, Wang (purification): each row compares the paper's printed formula or statement with
the correct one at a stated point, and is an ``erratum`` only while the two disagree (``holds`` if they agree)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import RELATIVE_TOLERANCE, ClaimRule, Numbers, differ, erratum_if, exceeds
from dplab.studies.purification.claims_common import artifact_path
from dplab.theory.purification import (
    algorithm12_log_delta_as_printed,
    corollary4_parameters,
    lemma19_gradient_count_as_printed,
    lemma19_parameters,
    lemma25_schedule,
    lq_ball_volume_as_printed,
    lq_ball_volume_corrected,
    purification_laplace_scale,
    purification_shift,
    theorem2_log_delta_threshold,
    utility_l1_bound_as_printed,
)

__all__ = ["ERRATA_RULES", "HALF_BUDGET"]

#: Lemma 25 / Corollary 24: the schedule spends "about eps/2" when its certified epsilon is at most 0.6 eps.
HALF_BUDGET = 0.6
#: Appendix B, Fig. 3: pointwise dominance is violated when a trade-off value exceeds the other by more than this.
TRADEOFF_TOLERANCE = 1e-12
_N, _D = 10**4, 10


def measure_diameter(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    cor4 = corollary4_parameters(_N, _D, 1.0, 1.0)
    printed = 1.0 / (8.0 * math.sqrt(_D) * _N**2)  # Corollary 4's Delta with C the l2 diameter
    radius = purification_shift(_D, 2.0, 2.0, cor4["log_delta"], cor4["log_omega"])  # radius C: diameter 2C
    return {"shift": cor4["shift"], "printed": printed, "radius_reading": radius}


def verdict_diameter(numbers: Numbers) -> str:
    return erratum_if(
        not differ(numbers["shift"], numbers["printed"]) and differ(numbers["radius_reading"], numbers["printed"])
    )


def evidence_diameter(numbers: Numbers) -> str:
    return (
        f"proofs use the diameter: Cor. 4 (l2 diameter C) gives Delta = {numbers['shift']:.6g} = 1/(8 sqrt(d) n^2) = "
        f"{numbers['printed']:.6g} at n=1e4, d=10 only with R = diameter; with R the radius "
        f"(a ball of radius C, diameter 2C) it is {numbers['radius_reading']:.6g}; the exact audit with R = diameter "
        "stays within eps + eps' (claim thm1_purification_is_pure_dp)"
    )


def measure_l1_utility(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    ld, lo = math.log(1e-30), math.log(0.01)
    laplace_mean_l1 = 0.99 * 10 * purification_laplace_scale(purification_shift(10, 2.0, 1.0, ld, lo), 1.0)
    return {"laplace_mean_l1": laplace_mean_l1, "printed_bound": utility_l1_bound_as_printed(10, 1.0, 1.0, ld, lo)}


def verdict_l1_utility(numbers: Numbers) -> str:
    return erratum_if(numbers["laplace_mean_l1"] > numbers["printed_bound"])


def evidence_l1_utility(numbers: Numbers) -> str:
    return (
        f"q=2, d=10, R=1, delta=1e-30, omega=0.01, eps'=1: the Laplace part alone has exact mean l1 norm (1-omega) d b "
        f"= {numbers['laplace_mean_l1']:.4f} vs printed bound {numbers['printed_bound']:.4f}; valid for q = 1 only"
    )


def measure_volume(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    cases = ((3, 2.0), (10, 1.0))
    return {"cases": [(d, q, lq_ball_volume_as_printed(d, q), lq_ball_volume_corrected(d, q)) for d, q in cases]}


def verdict_volume(numbers: Numbers) -> str:
    return erratum_if(any(differ(printed, true) for _, _, printed, true in numbers["cases"]))


def evidence_volume(numbers: Numbers) -> str:
    return (
        "; ".join(
            f"d={d}, q={q:g}: printed formula {printed:.6g} vs true {true:.6g}"
            for d, q, printed, true in numbers["cases"]
        )
        + " (true: 4pi/3 and 2^10/10!)"
    )


def measure_tradeoff(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    fig3 = frames["fig3"]
    crossing = float(fig3["crossing_alpha"].iloc[0])
    wide = fig3.pivot_table(index="alpha", columns="curve", values="beta")
    right = wide[wide.index > crossing]
    above = right[right["eps_delta"] > right["eps_plus_eps_prime_0"] + TRADEOFF_TOLERANCE]
    example = above.iloc[len(above) // 4] if len(above) else None
    return {
        "crossing": crossing,
        "above": len(above),
        "right": len(right),
        "example": None if example is None else (example.name, example["eps_delta"], example["eps_plus_eps_prime_0"]),
    }


def verdict_tradeoff(numbers: Numbers) -> str:
    return erratum_if(numbers["above"] > 0)


def evidence_tradeoff(numbers: Numbers) -> str:
    text = (
        f"the curves cross at alpha = {numbers['crossing']:.5f}; at {numbers['above']} of {numbers['right']} grid "
        f"points with alpha > {numbers['crossing']:.4f}, f_eps,delta > f_eps+eps',0"
    )
    if numbers["example"] is None:
        return text
    alpha, above, below = numbers["example"]
    return text + f" (e.g. alpha = {alpha:.3g}: {above:.4f} vs {below:.4f}); neither guarantee implies the other"


def measure_algorithm12(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    return {"printed": -algorithm12_log_delta_as_printed(16, 1.0), "required": -theorem2_log_delta_threshold(16, 1.0)}


def verdict_algorithm12(numbers: Numbers) -> str:
    return erratum_if(numbers["printed"] <= numbers["required"])


def evidence_algorithm12(numbers: Numbers) -> str:
    return (
        f"d=16, eps=1: Algorithm 12 gives log(1/delta) = {numbers['printed']:.3f}; Theorem 2 requires more than "
        f"{numbers['required']:.3f}"
    )


def measure_lemma19(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    return {
        "count": lemma19_parameters(_N, _D, 1.0, 1.0, 1.0)["gradient_count"],
        "printed": lemma19_gradient_count_as_printed(_N, _D, 1.0, 1.0),
    }


def verdict_lemma19(numbers: Numbers) -> str:
    return erratum_if(differ(numbers["count"], numbers["printed"]))


def evidence_lemma19(numbers: Numbers) -> str:
    return f"n T = {numbers['count']:.4g} at n=1e4, d=10, eps=1 (n^2 eps/d); printed {numbers['printed']:.4g}"


def measure_lemma25(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    cor4 = corollary4_parameters(_N, _D, 1.0, 1.0)
    schedule = lemma25_schedule(_N, _D, 1.0, -cor4["log_delta"], 1.0, 1.0)
    return {"rho": schedule["rho"], "certified": schedule["epsilon_dp"], "target": 1.0}


def verdict_lemma25(numbers: Numbers) -> str:
    return erratum_if(numbers["certified"] <= HALF_BUDGET * numbers["target"])


def evidence_lemma25(numbers: Numbers) -> str:
    return (
        f"its zCDP rho = {numbers['rho']:.6g} = eps^2/(16 log(1/delta)) certifies eps = {numbers['certified']:.6f} "
        f"for target eps = {numbers['target']:g} (n=1e4, d=10): the schedule spends about eps/2; the inequality in "
        "Lemma 23/Cor. 24 must be <="
    )


def measure_alg11_l2(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    table = frames["ext_alg11_dimension"]
    printed, corrected = (table[table["rule"] == rule] for rule in ("as_printed", "corrected"))

    def per_d(rows: pd.DataFrame, column: str) -> dict[int, float]:
        return {int(d): float(v) for d, v in rows.groupby("d")[column].max().items()}

    brackets = printed[["local_sensitivity", "d", "delta_ratio_lower", "delta_ratio_upper"]].itertuples(index=False)
    return {
        "epsilon": float(table["claimed_step"].iloc[0]),
        "theorem5": float(table["theorem5_claimed"].iloc[0]),
        "printed": per_d(printed, "epsilon_step"),
        "printed_composition": per_d(printed, "composition_bound"),
        "corrected": per_d(corrected, "epsilon_step"),
        "corrected_delta_upper": float(corrected["delta_ratio_upper"].max()),
        "grid_gap": float((table["epsilon_step"] - table["epsilon_step_grid"]).abs().max()),
        "delta_brackets": [(float(ls), int(d), float(lo), float(up)) for ls, d, lo, up in brackets],
    }


def verdict_alg11_l2(numbers: Numbers) -> str:
    return erratum_if(any(exceeds(v, numbers["epsilon"]) for d, v in numbers["printed"].items() if d > 1))


def _cases(cases: list[tuple[float, int, float, float]], index: int) -> str:
    return ", ".join(f"Delta_Local={ls:g}, d={d}: {bounds[index]:.3g}" for ls, d, *bounds in cases) or "none"


def evidence_alg11_l2(numbers: Numbers) -> str:
    eps, printed = numbers["epsilon"], numbers["printed"]
    brackets = [case for case in numbers["delta_brackets"] if case[1] > 1]
    fails = [case for case in brackets if case[2] > 1.0]
    survives = [case for case in brackets if case[3] <= 1.0]
    return (
        "Def. 33 is l2 but line 2 adds Lap(beta_hat/eps) per coordinate; at beta_hat = Delta_Local on the pair "
        f"differing by Delta/sqrt(d) in every coordinate, exact pure eps of that step (claimed eps = {eps:g}) as "
        "printed: "
        + ", ".join(f"d={d}: {v:.4g}" for d, v in printed.items())
        + "; corrected (scale sqrt(d) beta_hat/eps): "
        + ", ".join(f"d={d}: {v:.4g}" for d, v in numbers["corrected"].items())
        + f" (numerical grid sup agrees within {numbers['grid_gap']:.1e}); the proof's composition eps + step + eps' "
        "as printed: "
        + ", ".join(f"d={d}: {v:.4g}" for d, v in numbers["printed_composition"].items())
        + f" against Theorem 5's {numbers['theorem5']:g} (an upper bound; the purified output's exact eps is not "
        "computed). The step's delta(eps) over the proof's delta (beta_hat random; PLD bracket; also the delta(2 eps) "
        "of (beta_hat, noisy query), which the proof calls (2 eps, delta)-DP, on a pair whose Delta_Local differ by "
        f"1): above 1, so the proof's step fails, at {_cases(fails, 0)} (lower bounds); at most 1 (saved by the slack "
        f"P(beta_hat < Delta_Local) = delta/4) at {_cases(survives, 1)} (upper bounds); corrected at most "
        f"{numbers['corrected_delta_upper']:.3g}"
    )


_TABLE1 = artifact_path("table1", "tables")
ERRATA_RULES = (
    ClaimRule(
        "erratum_R_is_diameter",
        "Assumption 1, Algorithm 1",
        "R is called the radius of the l_q ball Theta",
        artifact_path("ext_exact_audit", "tables"),
        (),
        "erratum if Corollary 4's printed Delta = 1/(8 sqrt(d) n^2) equals Algorithm 1's Delta with R the diameter "
        f"and not with R the radius (relative difference RELATIVE_TOLERANCE = {RELATIVE_TOLERANCE:g}); holds otherwise",
        measure_diameter,
        verdict_diameter,
        evidence_diameter,
    ),
    ClaimRule(
        "erratum_thm1_l1_utility_q_not_1",
        "Theorem 1 (utility)",
        "E||x_pure - x_apx||_1 <= omega R + (4Rd/eps')(delta/2omega)^(1/d) for any q",
        _TABLE1,
        (),
        "erratum if the exact mean l1 norm of Algorithm 1's Laplace noise alone exceeds Theorem 1's printed bound at "
        "q = 2; holds otherwise",
        measure_l1_utility,
        verdict_l1_utility,
        evidence_l1_utility,
    ),
    ClaimRule(
        "erratum_lemma6_volume",
        "Lemma 6",
        "Vol(B_q^d(1)) = 2^d/Gamma(1+d/q) prod Gamma(1+1/q)/Gamma(1+i/q)",
        _TABLE1,
        (),
        f"erratum if Lemma 6's printed volume differs from the true l_q-ball volume 2^d Gamma(1+1/q)^d/Gamma(1+d/q) "
        f"by more than RELATIVE_TOLERANCE = {RELATIVE_TOLERANCE:g}; holds otherwise",
        measure_volume,
        verdict_volume,
        evidence_volume,
    ),
    ClaimRule(
        "erratum_appB_tradeoff_dominance",
        "Appendix B, Fig. 3",
        "f_{eps,delta} <= f_{eps+eps',0} pointwise",
        artifact_path("fig3"),
        ("fig3",),
        f"erratum if f_eps,delta exceeds f_eps+eps',0 by more than TRADEOFF_TOLERANCE = {TRADEOFF_TOLERANCE:g} at "
        "some alpha of Figure 3's grid; holds otherwise",
        measure_tradeoff,
        verdict_tradeoff,
        evidence_tradeoff,
    ),
    ClaimRule(
        "erratum_algorithm12_delta",
        "Algorithm 12 vs Theorem 2",
        "Algorithm 12's log(1/delta) = d log(2d^3/eps) meets Theorem 2's condition delta < eps^d/(2d)^(3d)",
        _TABLE1,
        (),
        "erratum if Algorithm 12's log(1/delta) is at most Theorem 2's required d log((2d)^3/eps) at d = 16, eps = 1; "
        "holds otherwise",
        measure_algorithm12,
        verdict_algorithm12,
        evidence_algorithm12,
    ),
    ClaimRule(
        "erratum_lemma19_gradient_count",
        "Lemma 19, Table 2",
        "Laplace noisy GD uses n^2 eps L sqrt(d)/Delta_1 gradients (n^2 eps in Table 2)",
        artifact_path("table2", "tables"),
        (),
        f"erratum if Lemma 19's gradient count n T from its own parameters differs from the printed one by more than "
        f"RELATIVE_TOLERANCE = {RELATIVE_TOLERANCE:g}; holds otherwise",
        measure_lemma19,
        verdict_lemma19,
        evidence_lemma19,
    ),
    ClaimRule(
        "erratum_alg11_l2_sensitivity",
        "Algorithm 11, Definition 33, proof of Theorem 11 (Theorem 5)",
        "q(D) + Lap^(x d)(beta_hat/eps) is (eps, delta)-probabilistic DP when beta_hat > Delta_Local (l2), so "
        "Algorithm 11 is 3 eps-DP",
        artifact_path("ext_alg11_dimension", "tables"),
        ("ext_alg11_dimension",),
        "erratum if, for some d > 1, the exact pure eps of the as-printed Laplace step (l1 norm of the worst l2 "
        f"difference over the scale, beta_hat = Delta_Local) exceeds the claimed eps by more than RELATIVE_TOLERANCE "
        f"= {RELATIVE_TOLERANCE:g} (relative); holds otherwise",
        measure_alg11_l2,
        verdict_alg11_l2,
        evidence_alg11_l2,
    ),
    ClaimRule(
        "erratum_lemma25_schedule_half_budget",
        "Lemma 25, Corollary 24",
        "The DP-SGD schedule of Lemma 25 is (eps, delta)-DP (and Lemma 23 reads eps(alpha) >= 13 gamma^2 rho alpha)",
        artifact_path("ext_dp_erm"),
        (),
        f"erratum if the epsilon certified by Lemma 25's zCDP rho is at most HALF_BUDGET = {HALF_BUDGET:g} of the "
        "target (Corollary 24's inequality points the wrong way); holds otherwise",
        measure_lemma25,
        verdict_lemma25,
        evidence_lemma25,
    ),
)
