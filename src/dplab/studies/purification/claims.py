"""Verdicts on the claims of Lin, Wang, Ma, Wang (purification) and its errata, decided by the study's frames."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.claims import Claim
from dplab.studies.purification.claims_common import artifact_path, loglog_slope
from dplab.studies.purification.claims_query_release import query_release_claims
from dplab.studies.purification.claims_selection import selection_claims
from dplab.studies.purification.claims_statistics import statistics_claims
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

__all__ = ["build_claims"]


def _crossing_delta(fig1: pd.DataFrame, suffix: str) -> float:
    """Largest δ on the grid below which the Gaussian variance exceeds Laplace's (log-interpolated crossing)."""
    g = fig1[fig1["mechanism"] == "analytic_gaussian" + suffix].sort_values("delta")
    lap = float(fig1.loc[fig1["mechanism"] == "laplace" + suffix, "variance"].iloc[0])
    gap = np.log(g["variance"].to_numpy()) - math.log(lap)
    change = np.flatnonzero((gap[:-1] > 0) & (gap[1:] <= 0))
    if change.size == 0:
        return float("nan")
    i = change[0]
    ld = np.log(g["delta"].to_numpy())
    return float(math.exp(ld[i] + (ld[i + 1] - ld[i]) * gap[i] / (gap[i] - gap[i + 1])))


def figure1_claim(fig1: pd.DataFrame) -> Claim:
    rows, ok = [], True
    for suffix, name in (("", "add/remove"), ("_replace_one", "replace-one")):
        if not (fig1["mechanism"] == "laplace" + suffix).any():
            continue
        star = _crossing_delta(fig1, suffix)
        lap = float(fig1.loc[fig1["mechanism"] == "laplace" + suffix, "variance"].iloc[0])
        g = fig1[fig1["mechanism"] == "analytic_gaussian" + suffix]
        at = g.iloc[(np.log(g["delta"]) - math.log(1e-5)).abs().argmin()]
        ok &= bool(star < 0.1)
        rows.append(
            f"{name}: Gaussian variance > Laplace variance {lap:g} for all delta < {star:.4g}; at delta = "
            f"{at['delta']:.2g} Gaussian {at['variance']:.4g} vs Laplace {lap:g}"
        )
    return Claim(
        "fig1_laplace_beats_gaussian_almost_all_regimes",
        "Sec. 1, Fig. 1",
        "Per coordinate, the pure-DP Laplace mechanism has smaller variance than the analytic Gaussian mechanism "
        "in almost all regimes, except when delta is too large to be meaningful",
        "holds" if ok else "fails",
        "; ".join(rows),
        artifact_path("fig1"),
    )


def exact_audit_claims(audit: pd.DataFrame) -> list[Claim]:
    full = audit[audit["treatment"] == "full"]
    worst = full.loc[(full["epsilon_inf"] / full["bound"]).idxmax()]
    within = bool((full["epsilon_inf"] <= full["bound"] + 1e-9).all())
    per_mech = "; ".join(
        f"{m}: max eps_inf/(eps+eps') = {(g['epsilon_inf'] / g['bound']).max():.3f}"
        for m, g in full.groupby("mechanism")
    )
    raw = audit[audit["treatment"].isin(["none", "mixing_only"])]
    infinite = {m: bool(np.isinf(g["epsilon_inf"]).all()) for m, g in raw.groupby("mechanism")}
    finite_raw = {m: float(g["epsilon_inf"].max()) for m, g in raw.groupby("mechanism") if not infinite[m]}
    lap = audit[audit["treatment"] == "laplace_only"]
    lap_broken = int((lap["epsilon_inf"] > lap["bound"] + 1e-9).sum())
    ablation = audit[audit["treatment"].str.startswith("full_scale_x")].copy()
    ablation["factor"] = ablation["treatment"].str.replace("full_scale_x", "").astype(float)
    ablation = ablation.sort_values("factor", ascending=False)
    broken = ablation[ablation["epsilon_inf"] > ablation["bound"] + 1e-9]
    claims = [
        Claim(
            "thm1_purification_is_pure_dp",
            "Theorem 1, Algorithm 1",
            "Algorithm 1 turns any (eps, delta)-DP mechanism with range in Theta into an (eps + eps', 0)-DP one",
            "holds" if within else "fails",
            f"exact sup log density ratio over {len(full)} (mechanism, eps, delta, omega, eps') cells: all <= eps + eps': "
            f"{within}; {per_mech}; worst cell {worst['mechanism']} eps={worst['epsilon']:g}, delta={worst['delta']:g}, "
            f"omega={worst['omega']:g}, eps'={worst['epsilon_prime']:g}: {worst['epsilon_inf']:.5f} vs {worst['bound']:g}",
            artifact_path("ext_exact_audit", "tables"),
        ),
        Claim(
            "unpurified_and_mixing_only_not_pure",
            "App. C, Example 17",
            "Without the Laplace step the output is not pure DP: the worst-case pair (M1) and Example 17 (M2) have "
            "infinite pure epsilon, and uniform mixing alone does not help on a continuum",
            "holds" if infinite.get("M1", False) and infinite.get("M2", False) else "fails",
            "eps_inf of none/mixing_only rows: "
            + ", ".join(
                f"{m}: {'inf in every cell' if v else f'finite, max {finite_raw[m]:.4g}'}" for m, v in infinite.items()
            )
            + f"; Laplace without mixing exceeds eps + eps' in {lap_broken}/{len(lap)} cells "
            f"(max {lap['epsilon_inf'].max():.4g})",
            artifact_path("ext_exact_audit", "tables"),
        ),
        Claim(
            "ablation_laplace_scale_needed",
            "Algorithm 1, line 3 (extension)",
            "The Laplace scale 2 Delta/eps' cannot be shrunk much: the bound breaks once it is reduced",
            "holds" if len(broken) else "fails",
            "M1 at (eps, delta) = ({:g}, {:g}), omega = {:g}, eps' = {:g}: ".format(
                *ablation[["epsilon", "delta", "omega", "epsilon_prime"]].iloc[0]
            )
            + ", ".join(f"scale x{r.factor:g}: {r.epsilon_inf:.4f}" for r in ablation.itertuples())
            + f" (bound {ablation['bound'].iloc[0]:g}; first break at x{broken['factor'].max():g})"
            if len(broken)
            else "no reduction broke the bound",
            artifact_path("ext_exact_audit", "tables"),
        ),
    ]
    return claims


def mc_audit_claim(mc: pd.DataFrame) -> Claim:
    rows, ok = [], True
    for mechanism, part in mc.groupby("mechanism"):
        pure = part[part["treatment"] == "full"].sort_values("n_samples")
        raw = part[part["treatment"] == "none"].sort_values("n_samples")
        below = bool((pure["epsilon_lb"] <= pure["epsilon_exact"] + 1e-12).all())
        grows = (
            bool(raw["epsilon_lb"].iloc[-1] > pure["epsilon_exact"].iloc[0])
            if np.isinf(raw["epsilon_exact"].iloc[0])
            else True
        )
        ok &= below
        rows.append(
            f"{mechanism}: purified LB {', '.join(f'{v:.3f}' for v in pure['epsilon_lb'])} <= exact "
            f"{pure['epsilon_exact'].iloc[0]:.4f}: {below}; unpurified LB "
            f"{', '.join(f'{v:.2f}' for v in raw['epsilon_lb'])} (exact {raw['epsilon_exact'].iloc[0]:.4g}) at N = "
            f"{', '.join(f'{int(n):.0e}' for n in raw['n_samples'])}" + ("" if grows else " (does not exceed)")
        )
    return Claim(
        "mc_audit_consistent_with_exact",
        "Theorem 1 (extension: black-box audit)",
        "Black-box Monte-Carlo lower bounds never exceed the exact pure epsilon of purified outputs, while "
        "those of unpurified outputs grow with the sample size",
        "holds" if ok else "fails",
        "Rule: holds if no purified Monte-Carlo lower bound exceeds the exact pure epsilon (1e-12). " + "; ".join(rows),
        artifact_path("ext_mc_audit"),
    )


def _slope(part: pd.DataFrame, method: str) -> tuple[float, list[tuple[int, float]]]:
    means = part[part["method"] == method].groupby("n")["excess_risk"].mean()
    means = means[means > 0]
    if len(means) < 2:
        return float("nan"), []
    return loglog_slope(means.index.to_numpy(float), means.to_numpy()), list(means.items())


def params_cap(config: Mapping[str, Any]) -> int:
    return int(config["max_steps_paper"])


RATE_SLOPE_TOLERANCE = 0.3  # four n values spanning a factor 8: 0.3 in slope is a factor 1.87 across the sweep


def erm_claims(erm: pd.DataFrame, sc: bool, config: Mapping[str, Any]) -> list[Claim]:
    label = "ext_dp_erm_sc" if sc else "ext_dp_erm"
    n_part = erm[erm["in_n_sweep"].astype(bool)]
    slope_p, means_p = _slope(n_part, "purified_dpsgd")
    slope_t, _ = _slope(n_part, "purified_dpsgd_tuned")
    slope_l, means_l = _slope(n_part, "laplace_gd")
    target = -2.0 if sc else -1.0
    rate = "d^2/(lambda n^2 eps^2)" if sc else "d/(n eps)"
    ratio = [(n, p / lap) for (n, p), (_, lap) in zip(means_p, means_l)]
    capped_rows = n_part[(n_part["method"] == "purified_dpsgd") & n_part["capped"].astype(bool)]
    capped_ns = sorted(map(int, capped_rows["n"].unique()))
    slope_ok = abs(slope_p - target) <= 0.25
    verdict = "holds" if slope_ok and not capped_ns else ("partial" if slope_p < target / 2 else "fails")
    eps_part = erm[erm["in_epsilon_sweep"].astype(bool)]
    table = eps_part.groupby(["epsilon_total", "method"])["excess_risk"].mean().unstack()
    claims = [
        Claim(
            f"thm3_purified_dpsgd_rate{'_sc' if sc else ''}",
            "Theorem 3, Table 1" + (" (strongly convex)" if sc else ""),
            f"Purified DP-SGD attains the pure-DP optimal excess risk {rate} (Laplace noisy GD only sqrt(d/(n eps)))",
            verdict,
            f"Rule: holds if the fitted slope is within 0.25 of the theory's and the paper schedule is never capped; "
            f"partial if the slope is below half the theory's; fails otherwise. "
            f"fitted slope of mean excess risk vs n at eps_tot = {config['n_sweep']['epsilon']:g}: purified {slope_p:.2f} "
            f"(theory {target:g}), tuned-accounting variant {slope_t:.2f}, Laplace GD {slope_l:.2f}"
            f"{' (theory -0.5)' if not sc else ''}; purified / Laplace GD ratio by n: "
            + ", ".join(f"n={n}: {r:.2f}" for n, r in ratio)
            + (
                f"; paper schedule T capped at {params_cap(config)} steps for n in {capped_ns} (slope then not the paper's "
                "schedule alone)"
                if capped_ns
                else ""
            ),
            artifact_path(label),
        )
    ]
    claims.append(laplace_comparison_claim(n_part, table, sc, config, label))
    if "exponential_mechanism" in table.columns:
        claims.append(exponential_mechanism_claim(n_part, table, sc, label))
    before = eps_part[eps_part["method"].isin(["purified_dpsgd", "dpsgd_before_purification"])]
    diff = before.pivot_table(index=["epsilon_total", "seed"], columns="method", values="excess_risk")
    cost = (diff["purified_dpsgd"] - diff["dpsgd_before_purification"]).abs().max()
    claims.append(
        Claim(
            f"purification_noise_negligible{'_sc' if sc else ''}",
            "Corollary 4, Sec. 4",
            "The purification step itself costs O(1/(n^2 eps)): negligible next to the upstream error",
            "holds" if cost < 1e-3 else "fails",
            f"Rule: holds if purification changes no run's excess risk by 1e-3 or more. max over seeds and eps_tot of "
            f"|excess(purified) - excess(before purification)| = {cost:.3g}",
            artifact_path(label),
        )
    )
    return claims


def _reference_floor(n_part: pd.DataFrame) -> str:
    """Where the DP-SGD reference stops: its step counts, whether capped, and its excess risks by n."""
    ref = n_part[n_part["method"] == "dpsgd_reference"]
    if ref.empty:
        return ""
    by_n = ref.groupby("n").agg(steps=("steps", "first"), capped=("capped", "first"), risk=("excess_risk", "mean"))
    capped = by_n["capped"].astype(str).str.lower().isin(["true", "1"])
    slope, _ = _slope(n_part, "dpsgd_reference")
    return (
        f"; the DP-SGD reference (delta = 1/n^2) runs T = {sorted(set(map(int, by_n['steps'])))} steps "
        f"({'capped below its schedule at every n' if capped.all() else 'uncapped at some n'}), mean excess "
        + ", ".join(f"{v:.3g}" for v in by_n["risk"])
        + f" (slope {slope:.2f}): "
        + (
            "an optimisation floor (slope above -0.5 with T capped), not its rate"
            if capped.all() and slope > -0.5
            else "capped but still decreasing"
            if capped.any()
            else "its own schedule, no cap"
        )
    )


def laplace_comparison_claim(
    n_part: pd.DataFrame, table: pd.DataFrame, sc: bool, config: Mapping[str, Any], label: str
) -> Claim:
    """'Purified DP-SGD beats Laplace noisy GD (better rate)': the rate by fitted slopes over the n sweep, the level
    by the measured means, no extrapolation beyond the largest n measured."""
    slope_p, means_p = _slope(n_part, "purified_dpsgd")
    slope_l, means_l = _slope(n_part, "laplace_gd")
    ratio = [(n, p / lap) for (n, p), (_, lap) in zip(means_p, means_l)]
    faster = slope_p < slope_l
    wins_eps = {e: bool(r["purified_dpsgd"] < r["laplace_gd"]) for e, r in table.iterrows()}
    below_at_largest_n = bool(ratio) and ratio[-1][1] < 1
    verdict = "holds" if faster and below_at_largest_n else ("partial" if faster or any(wins_eps.values()) else "fails")
    largest = ratio[-1][0] if ratio else float("nan")
    return Claim(
        f"purified_dpsgd_vs_laplace_gd{'_sc' if sc else ''}",
        "Table 2" + (" (strongly convex)" if sc else ""),
        "Purified DP-SGD beats the pure-DP Laplace noisy GD baseline (better rate in n and d)",
        verdict,
        "Rule: holds if purified's fitted slope in n is steeper than Laplace GD's and its mean excess risk is below at "
        "the largest n measured; partial if only the rate (or some eps) favours it; fails otherwise. No crossover is "
        f"extrapolated: the data stop at n = {largest}. Slopes at eps_tot = {config['n_sweep']['epsilon']:g}: "
        f"purified {slope_p:.2f} vs Laplace GD {slope_l:.2f} (faster: {faster}); purified/Laplace ratio by n: "
        + ", ".join(f"{n}: {r:.2f}" for n, r in ratio)
        + f"; at n = {config['epsilon_sweep']['n']}: "
        + "; ".join(
            f"eps_tot={e:g}: purified {table.loc[e, 'purified_dpsgd']:.4g} vs Laplace GD {table.loc[e, 'laplace_gd']:.4g}"
            f" vs tuned {table.loc[e, 'purified_dpsgd_tuned']:.4g}"
            for e in table.index
        )
        + _reference_floor(n_part),
        artifact_path(label),
    )


def exponential_mechanism_claim(n_part: pd.DataFrame, table: pd.DataFrame, sc: bool, label: str) -> Claim:
    """'Matches the exponential mechanism' is a rate claim (up to logs): judged by fitted slopes in n; the constant
    gap is reported separately and does not decide."""
    slope_p, means_p = _slope(n_part, "purified_dpsgd")
    slope_m, means_m = _slope(n_part, "exponential_mechanism")
    matches = slope_p <= slope_m + RATE_SLOPE_TOLERANCE
    return Claim(
        f"purified_matches_exponential_mechanism{'_sc' if sc else ''}",
        "Table 2, Sec. 4",
        "Purified DP-SGD matches the utility of the (slow) exponential mechanism",
        "holds" if matches else "fails",
        f"Rule (a rate claim, up to logs): holds if purified's fitted slope of mean excess risk in n is at most the "
        f"exponential mechanism's + {RATE_SLOPE_TOLERANCE:g}; constants do not decide. Slopes: purified "
        f"{slope_p:.2f}, exponential mechanism {slope_m:.2f}. Constants (not deciding): purified/EM by n: "
        + ", ".join(f"{n}: {p / m:.3g}" for (n, p), (_, m) in zip(means_p, means_m))
        + "; by eps_tot: "
        + "; ".join(
            f"{e:g}: {r['purified_dpsgd']:.4g} vs {r['exponential_mechanism']:.4g}" for e, r in table.iterrows()
        ),
        artifact_path(label),
    )


def table_claims(table1: pd.DataFrame) -> Claim:
    better = table1[table1["after_value"] < table1["before_value"]]["problem"].tolist()
    worse = table1[table1["after_value"] >= table1["before_value"]]["problem"].tolist()
    row = table1.iloc[0]
    return Claim(
        "table1_log_inv_delta_replaced_by_d",
        "Table 1",
        "Purification replaces log(1/delta) by d (or log|X|), giving pure-DP rates comparable to the (eps, delta) ones",
        "holds" if not worse else "partial",
        "Rule: holds if the pure rate is below the (eps, delta) rate for every problem of Table 1, partial "
        "otherwise. "
        f"at n={row['n']:g}, d={row['d']:g}, eps={row['epsilon']:g}, delta={row['delta']:g} (constants dropped): "
        f"after < before for {better}; after >= before for {worse}: "
        + "; ".join(f"{r.problem}: {r.before_value:.4g} -> {r.after_value:.4g}" for r in table1.itertuples()),
        artifact_path("table1", "tables"),
    )


def errata_claims(fig3: pd.DataFrame) -> list[Claim]:
    ld, lo = math.log(1e-30), math.log(0.01)
    shift2 = purification_shift(10, 2.0, 1.0, ld, lo)
    l1_lower = 0.99 * 10 * purification_laplace_scale(shift2, 1.0)
    crossing = float(fig3["crossing_alpha"].iloc[0])
    wide = fig3.pivot_table(index="alpha", columns="curve", values="beta")
    right = wide[wide.index > crossing]
    above = right[right["eps_delta"] > right["eps_plus_eps_prime_0"] + 1e-12]
    cor4 = corollary4_parameters(10**4, 10, 1.0, 1.0)
    sched = lemma25_schedule(10**4, 10, 1.0, -cor4["log_delta"], 1.0, 1.0)
    return [
        Claim(
            "erratum_R_is_diameter",
            "Assumption 1, Algorithm 1",
            "R is called the radius of the l_q ball Theta",
            "erratum",
            f"proofs use the diameter: Cor. 4 (l2 diameter C) gives Delta = {cor4['shift']:.6g} = 1/(8 sqrt(d) n^2) at "
            f"n=1e4, d=10 only with R = diameter; reading R as a radius doubles Delta; the exact audit with R = diameter "
            f"stays within eps + eps' (claim thm1_purification_is_pure_dp)",
            artifact_path("ext_exact_audit", "tables"),
        ),
        Claim(
            "erratum_thm1_l1_utility_q_not_1",
            "Theorem 1 (utility)",
            "E||x_pure - x_apx||_1 <= omega R + (4Rd/eps')(delta/2omega)^(1/d) for any q",
            "erratum",
            f"q=2, d=10, R=1, delta=1e-30, omega=0.01, eps'=1: the Laplace part alone has exact mean l1 norm "
            f"(1-omega) d b = {l1_lower:.4f} > printed bound {utility_l1_bound_as_printed(10, 1.0, 1.0, ld, lo):.4f}; "
            f"valid for q = 1 only (tests: Monte Carlo 0.197)",
            artifact_path("table1", "tables"),
        ),
        Claim(
            "erratum_lemma6_volume",
            "Lemma 6",
            "Vol(B_q^d(1)) = 2^d/Gamma(1+d/q) prod Gamma(1+1/q)/Gamma(1+i/q)",
            "erratum",
            f"printed formula {lq_ball_volume_as_printed(3, 2.0):.4f} and {lq_ball_volume_as_printed(10, 1.0):.4g} "
            f"vs true {lq_ball_volume_corrected(3, 2.0):.5f} (4pi/3) and {lq_ball_volume_corrected(10, 1.0):.6g} (2^10/10!)",
            artifact_path("table1", "tables"),
        ),
        Claim(
            "erratum_appB_tradeoff_dominance",
            "Appendix B, Fig. 3",
            "f_{eps,delta} <= f_{eps+eps',0} pointwise",
            "erratum",
            f"the curves cross at alpha = {crossing:.5f}; at {len(above)} of {len(right)} grid points with alpha > "
            f"{crossing:.4f}, f_eps,delta > f_eps+eps',0 (e.g. alpha = {above.index[len(above) // 4]:.3g}: "
            f"{above['eps_delta'].iloc[len(above) // 4]:.4f} vs {above['eps_plus_eps_prime_0'].iloc[len(above) // 4]:.4f}); "
            "neither guarantee implies the other",
            artifact_path("fig3"),
        ),
        Claim(
            "erratum_algorithm12_delta",
            "Algorithm 12 vs Theorem 2",
            "Algorithm 12's log(1/delta) = d log(2d^3/eps) meets Theorem 2's condition delta < eps^d/(2d)^(3d)",
            "erratum",
            f"d=16, eps=1: Algorithm 12 gives log(1/delta) = {-algorithm12_log_delta_as_printed(16, 1.0):.3f} < required "
            f"{-theorem2_log_delta_threshold(16, 1.0):.3f}",
            artifact_path("table1", "tables"),
        ),
        Claim(
            "erratum_lemma19_gradient_count",
            "Lemma 19, Table 2",
            "Laplace noisy GD uses n^2 eps L sqrt(d)/Delta_1 gradients (n^2 eps in Table 2)",
            "erratum",
            f"n T = {lemma19_parameters(10**4, 10, 1.0, 1.0, 1.0)['gradient_count']:.4g} at n=1e4, d=10, eps=1 "
            f"(n^2 eps/d), not {lemma19_gradient_count_as_printed(10**4, 10, 1.0, 1.0):.4g}",
            artifact_path("table2", "tables"),
        ),
        Claim(
            "erratum_lemma25_schedule_half_budget",
            "Lemma 25, Corollary 24",
            "The DP-SGD schedule of Lemma 25 is (eps, delta)-DP (and Lemma 23 reads eps(alpha) >= 13 gamma^2 rho alpha)",
            "erratum",
            f"its zCDP rho = {sched['rho']:.6g} = eps^2/(16 log(1/delta)) certifies eps = {sched['epsilon_dp']:.6f} "
            f"for target eps = 1 (n=1e4, d=10): the schedule spends about eps/2; the inequality in Lemma 23/Cor. 24 "
            f"must be <=",
            artifact_path("ext_dp_erm"),
        ),
    ]


def build_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """All claims whose frames are present (artifact ids as keys)."""
    claims: list[Claim] = []
    if "fig1" in frames:
        claims.append(figure1_claim(frames["fig1"]))
    if "table1" in frames:
        claims.append(table_claims(frames["table1"]))
    if "ext_exact_audit" in frames:
        claims += exact_audit_claims(frames["ext_exact_audit"])
    if "ext_mc_audit" in frames:
        claims.append(mc_audit_claim(frames["ext_mc_audit"]))
    if "ext_dp_erm" in frames:
        claims += erm_claims(frames["ext_dp_erm"], False, study_config["dp_erm"])
    if "ext_dp_erm_sc" in frames:
        claims += erm_claims(frames["ext_dp_erm_sc"], True, study_config["dp_erm_sc"])
    if "fig3" in frames:
        claims += errata_claims(frames["fig3"])
    claims += statistics_claims(frames, study_config)
    claims += selection_claims(frames, study_config)
    claims += query_release_claims(frames, study_config)
    return claims
