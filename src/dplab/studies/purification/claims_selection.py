"""Verdicts on Theorems 5-6, Lemma 34, Table 1's "bounding local sensitivity" and "mode release" rows and the
Algorithm 12 erratum, decided by the frames of ``ext_ptr``, ``ext_ptr_audit``, ``ext_mode_release`` and
``ext_mode_release_audit``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.claims import Claim
from dplab.studies.purification.claims_common import artifact_path, loglog_slope

__all__ = ["selection_claims", "ptr_claims", "mode_release_claims"]

# ------------------------------------------------------------------------------------------------------- E6


def _alg11_bound(frame: pd.DataFrame) -> pd.Series:
    """The d = 1 bound of the proof of Theorem 11: E|q_pure − q| ≤ E|Z₁| + E|Z₂| + ωR with
    E|Z₁| = E[β̂]/ε = (Δ_Local + log(2/δ)/ε)/ε, E|Z₂| = b."""
    return (
        (frame["local_sensitivity"] + frame["bound_offset"]) / frame["epsilon"]
        + frame["laplace_scale"]
        + frame["omega"] * frame["domain_diameter"]
    )


def ptr_claims(ptr: pd.DataFrame, audit: pd.DataFrame | None) -> list[Claim]:
    claims = []
    keys = ["n_vertices", "edge_probability", "epsilon_total"]
    alg11 = ptr[ptr["method"] == "alg11_purified"].copy()
    alg11["bound"] = _alg11_bound(alg11)
    cells = (
        alg11.groupby(keys)
        .agg(
            mean=("mean_abs_error", "mean"),
            sem=("mean_abs_error", "sem"),
            bound=("bound", "mean"),
            ls=("local_sensitivity", "mean"),
            offset=("bound_offset", "mean"),
            eps=("epsilon", "first"),
        )
        .reset_index()
    )
    within = cells["mean"] <= cells["bound"] + 3 * cells["sem"].fillna(0)
    # scaling in eps at fixed (n_v, p): measured log-log slope vs the slope of the predicted E|Z1| + b
    cells["predicted"] = cells["bound"]
    slopes = []
    for _, g in cells.groupby(["n_vertices", "edge_probability"]):
        if len(g) >= 2:
            slopes.append((loglog_slope(g["eps"], g["mean"]), loglog_slope(g["eps"], g["predicted"])))
    slopes = np.array(slopes)
    gap = float(np.mean(np.abs(slopes[:, 0] - slopes[:, 1]))) if len(slopes) else math.nan
    tight = cells["mean"] / cells["bound"]
    ref = ptr[ptr["method"] == "alg11_reference"].groupby(keys)["mean_abs_error"].mean()
    ratio = (cells.set_index(keys)["mean"] / ref).dropna()
    rate_ok = bool(gap < 0.2)
    claims.append(
        Claim(
            "thm5_bounding_local_sensitivity_rate",
            "Theorem 5/11, Table 1 (bounding Delta_local)",
            "Purified privately-bounded local sensitivity (Alg. 11) has error O~(d^{1/2} Delta_local/eps + d^{3/2}/eps^2); "
            "before purification d^{1/2}(Delta_local + log(1/delta)/eps)/eps",
            "holds" if within.all() and rate_ok else ("partial" if within.mean() > 0.5 else "fails"),
            f"d = 1 triangle counting, {len(cells)} (n_v, p, eps_tot) cells: mean |error| <= the proof's explicit bound "
            f"(Delta_L + log(2/delta)/eps)/eps + b + omega R in {int(within.sum())}/{len(cells)} cells (3 s.e.), "
            f"measured/bound {tight.min():.2f}..{tight.max():.2f}; log-log slope of mean |error| vs eps_tot: measured "
            f"{slopes[:, 0].min():.2f}..{slopes[:, 0].max():.2f} vs predicted {slopes[:, 1].min():.2f}..{slopes[:, 1].max():.2f} "
            f"(mean abs difference {gap:.3f}; -1 = Delta_L/eps regime, -2 = 1/eps^2 regime); the 1/eps^2 term carries the "
            f"hidden factor log(2/delta) = {cells['offset'].mul(cells['eps']).min():.1f}.."
            f"{cells['offset'].mul(cells['eps']).max():.1f} (log of R^2 eps, Theorem 11's delta), so log(1/delta) is not "
            f"replaced by d = 1 but by log(R eps); purified / unpurified-at-delta_ref error ratio {ratio.min():.2f}.."
            f"{ratio.max():.2f} (the price of the tiny delta and of eps_tot/3)",
            artifact_path("ext_ptr"),
        )
    )

    med = ptr.groupby(["method", *keys])["median_abs_error"].mean().unstack("method")
    wins = med["alg11_purified"] < med["gs_laplace"]
    big = med.index.get_level_values("n_vertices") >= 500
    smooth_factor = med["alg11_purified"] / med["smooth_sensitivity"]
    claims.append(
        Claim(
            "alg11_adaptive_beats_global_sensitivity",
            "Sec. 5.1 (adaptive utility of Alg. 11; spec E6 expectation)",
            "Privately bounding the local sensitivity gives error adaptive to Delta_local, far below the global-sensitivity "
            "Laplace mechanism",
            "holds" if wins.all() else ("partial" if wins.any() else "fails"),
            f"median |error| purified Alg. 11 < GS Laplace in {int(wins.sum())}/{len(wins)} cells "
            f"({int(wins[big].sum())}/{int(big.sum())} with n_v >= 500); e.g. "
            + "; ".join(
                f"n_v={n}, p={p:g}, eps_tot={e:g}: {r['alg11_purified']:.4g} vs {r['gs_laplace']:.4g}"
                for (n, p, e), r in med.iloc[[0, len(med) // 2, len(med) - 1]].iterrows()
            )
            + f"; the pure NRS07 smooth-sensitivity baseline (d = 1) is better than purified Alg. 11 by a factor "
            f"{smooth_factor.min():.2f}..{smooth_factor.max():.2f}",
            artifact_path("ext_ptr"),
        )
    )

    refuse = ptr[ptr["method"].str.startswith("alg10")].groupby("method")["refusal_rate"].agg(["mean", "min", "max"])
    if audit is not None:
        mc = audit[audit["kind"] == "mc_audit"]
        below = bool((mc["epsilon_lb"] <= mc["bound"]).all())
        check = audit[audit["kind"] == "sensitivity_check"].iloc[0]
        gs_ok = check["max_local_sensitivity_change"] <= 1 and check["local_sensitivity_matches"] == check["n_graphs"]
        claims.append(
            Claim(
                "thm5_lemma34_purified_ptr_pure_dp_audit",
                "Theorem 5/11, Lemma 34, Algorithms 10-11",
                "Purified Alg. 11 is 3 eps-DP and purified PTR (Alg. 10) is (2 eps + eps')-DP, given that Delta_local has "
                "global sensitivity <= 1",
                "holds" if below and gs_ok else "fails",
                "Monte-Carlo (1 - alpha) lower bounds on pure eps for K5 minus an edge vs K5: "
                + "; ".join(
                    f"{r.method} N={int(r.n_samples):.0e}: {r.epsilon_lb:.3f} <= {r.bound:g}" for r in mc.itertuples()
                )
                + f"; brute force over all edge flips of {int(check['n_graphs'])} graphs on {int(check['check_vertices'])} "
                f"vertices: max change of Delta_local {check['max_local_sensitivity_change']:g} (<= 1), Delta_local = max "
                f"flip change of the count in {int(check['local_sensitivity_matches'])}/{int(check['n_graphs'])}; Alg. 10 "
                "refusal rate with the spec's beta "
                + f"{refuse.loc['alg10_ptr_purified', 'mean']:.3f}"
                + (
                    f", with the margin beta {refuse.loc['alg10_ptr_purified_margin', 'mean']:.3f}"
                    if "alg10_ptr_purified_margin" in refuse.index
                    else ""
                ),
                artifact_path("ext_ptr_audit", "tables"),
            )
        )
    return claims


# ------------------------------------------------------------------------------------------------------- E7


def _gaps(mode: pd.DataFrame, layout: str) -> pd.DataFrame:
    return mode[mode["layout"] == layout].groupby(["method", "bits"])["gap_at_level"].first().unstack("bits")


def mode_release_claims(mode: pd.DataFrame, audit: pd.DataFrame | None, config: Mapping[str, Any]) -> list[Claim]:
    claims = []
    eps = config["epsilon_total"] / 2.0
    layout = "all_runner_up" if "all_runner_up" in set(mode["layout"]) else mode["layout"].iloc[0]
    gaps = _gaps(mode, layout)
    bits = np.array(gaps.columns, dtype=float)
    pur, rnm = gaps.loc["alg12_corrected_uniform"], gaps.loc["report_noisy_max"]
    ratio = pur / rnm
    loglog = np.log(8 * bits**3 / eps)
    scaled = ratio.to_numpy() / loglog
    slope_pur, slope_rnm = loglog_slope(bits, pur), loglog_slope(bits, rnm)
    ref = gaps.loc["distance_reference"]
    ok = bool(np.nanmax(scaled) / np.nanmin(scaled) <= 1.5)
    claims.append(
        Claim(
            "thm6_mode_release_gap_rate",
            "Theorem 6, Table 1 (mode release), Sec. 5.2",
            "Purified mode release needs a gap O(log|X| log(log|X|/eps)/eps): Laplace report-noisy-max's Theta(log|X|/eps) "
            "up to a log log|X| factor (before purification: log(1/delta)/eps)",
            "holds" if ok else "partial",
            f"exact gap for P(mode) >= {config['success_level']:g} ('{layout}' layout, eps_tot = {config['epsilon_total']:g}): "
            + "; ".join(
                f"d={int(d)}: Alg. 12 {pur[d]:g}, RNM {rnm[d]:g}, ratio {ratio[d]:.1f}, ratio/log(8d^3/eps) {s:.2f}"
                for d, s in zip(gaps.columns, scaled)
            )
            + f"; log-log slope vs d: Alg. 12 {slope_pur:.2f}, RNM {slope_rnm:.2f}; unpurified distance at delta_ref needs "
            f"{ref.min():g}..{ref.max():g} (log(1/delta)/eps, flat in d); the purified mechanism needs "
            f"{ratio.min():.0f}-{ratio.max():.0f}x the RNM gap (spec expected 6-8x)"
            + (
                f"; with the spec's layout (other items far below the runner-up) RNM needs only "
                f"{_gaps(mode, 'uniform_rest').loc['report_noisy_max'].max():g} and the ratio is "
                f"{(_gaps(mode, 'uniform_rest').loc['alg12_corrected_uniform'] / _gaps(mode, 'uniform_rest').loc['report_noisy_max']).min():.0f}-"
                f"{(_gaps(mode, 'uniform_rest').loc['alg12_corrected_uniform'] / _gaps(mode, 'uniform_rest').loc['report_noisy_max']).max():.0f}x"
                if "uniform_rest" in set(mode["layout"]) and layout != "uniform_rest"
                else ""
            ),
            artifact_path("ext_mode_release"),
        )
    )

    uniform_rest = mode[mode["layout"] == "uniform_rest"] if "uniform_rest" in set(mode["layout"]) else mode
    rows, ok = [], True
    for method in (
        "alg12_corrected_uniform",
        "alg12_corrected_reserved",
        "alg12_as_printed_uniform",
        "alg12_as_printed_reserved",
    ):
        part = uniform_rest[uniform_rest["method"] == method]
        need = 4 * np.ceil(-part["log_delta"] / part["epsilon"])
        big = part[part["gap"] >= need]
        if not len(big):
            continue
        worst = big.groupby("bits")["success_exact"].min()
        target = 1 - 3 / 2.0 ** worst.index.to_numpy()
        passed = worst.to_numpy() >= target
        if "corrected" in method:
            ok &= bool(passed.all())
        rows.append(
            f"{method}: min exact P(mode) at gaps >= 4 ceil(ln(1/delta)/eps) by d: "
            + ", ".join(
                f"d={d}: {w:.4f} (>= {t:.4f}: {bool(p)})" for d, w, t, p in zip(worst.index, worst, target, passed)
            )
        )
    claims.append(
        Claim(
            "thm6_mode_release_success",
            "Theorem 6, App. J.3",
            "If occ1 - occ2 >= 4 ceil(ln(1/delta)/eps), Algorithm 12 returns the mode with probability >= 1 - 3/|X|",
            "holds" if ok else "fails",
            "; ".join(rows) + " (corrected delta decides the verdict; as printed see erratum)",
            artifact_path("ext_mode_release"),
        )
    )

    if audit is not None:
        alg12 = audit[audit["treatment"].str.startswith("alg12")]
        within = bool(alg12["within_bound"].all())
        by = alg12.groupby(["delta_rule", "bottom"])["epsilon_inf"].max()
        unp = audit[(audit["treatment"] == "unpurified") & (audit["enumeration"] == "reduced")]
        superset = bool(audit["exhaustive_within_reduced"].all())
        claims.append(
            Claim(
                "thm6_mode_release_pure_dp_exact_audit",
                "Theorem 6, Theorem 2 (exact audit)",
                "Algorithm 12 (distance to instability + Algorithm 2) is (2 eps, 0)-DP",
                "holds" if within and superset else "fails",
                f"exact output laws on |X| = 2^{sorted(int(b) for b in audit['bits'].unique())}, eps = {audit['epsilon'].iloc[0]:g}, all "
                f"replace-one transitions (reduced set verified to contain every exhaustive transition: {superset}): "
                "max log ratio "
                + "; ".join(f"delta {r}, bottom {b}: {v:.4f}" for (r, b), v in by.items())
                + f" vs 2 eps = {2 * audit['epsilon'].iloc[0]:g} (all within: {within}; both Alg. 2 geometries); without "
                f"Alg. 2, a reserved bottom code has pure eps = inf ({bool(np.isinf(unp[unp['bottom'] == 'reserved']['epsilon_inf']).all())})",
                artifact_path("ext_mode_release_audit", "tables"),
            )
        )
        calibrated = audit[audit["delta_rule"] == "uniform_calibrated"]
        uni = unp[unp["bottom"] == "uniform"]
        ext_ok = bool(uni["within_bound"].all() and calibrated["within_bound"].all())
        fast = gaps.loc["distance_uniform_bottom"]
        claims.append(
            Claim(
                "ext_uniform_bottom_is_pure_without_alg2",
                "Algorithm 12, spec A5 (extension)",
                "Mapping bottom to a uniform element of X already makes distance-to-instability pure: "
                "max(eps, log(1 + |X| delta/(2 - delta)))-DP, without Algorithm 2",
                "holds" if ext_ok else "fails",
                "exact max log ratio of the unpurified, uniform-bottom law: "
                + ", ".join(
                    f"d={int(r.bits)} delta {r.delta_rule}: {r.epsilon_inf:.4f} (bound {r.bound:.4f})"
                    for r in uni.itertuples()
                )
                + "; with delta = 2(e^eps - 1)/(|X| + e^eps - 1) it is eps-DP at eps = eps_tot and needs gaps "
                + ", ".join(f"d={int(d)}: {fast[d]:g}" for d in gaps.columns)
                + " (vs Alg. 12 "
                + ", ".join(f"{pur[d]:g}" for d in gaps.columns)
                + ")",
                artifact_path("ext_mode_release_audit", "tables"),
            )
        )

    printed = _gaps(mode, layout).loc["alg12_as_printed_uniform"]
    part = uniform_rest[uniform_rest["method"] == "alg12_as_printed_uniform"]
    best = part.groupby("bits")["success_exact"].max()
    d_lo = int(best.index.min())
    claims.append(
        Claim(
            "erratum_algorithm12_delta_utility",
            "Algorithm 12, Theorem 2 (erratum A5)",
            "Algorithm 12's log(1/delta) = d log(2d^3/eps) satisfies Theorem 2's condition, so the mode is returned with "
            "probability >= 1 - 3/|X|",
            "erratum",
            f"with the as-printed delta the exact success probability saturates at {best[d_lo]:.4f} for d = {d_lo} "
            f"(Theorem 6 promises >= {1 - 3 / 2**d_lo:.4f}); gaps for P >= {config['success_level']:g}: "
            + ", ".join(f"d={int(d)}: {printed[d]:g}" for d in printed.index)
            + " (NaN = never); privacy is unaffected (exact audit within 2 eps for both delta rules)",
            artifact_path("ext_mode_release"),
        )
    )
    return claims


def selection_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """Claims of E6 and E7 whose frames are present (artifact ids as keys)."""
    claims: list[Claim] = []
    if "ext_ptr" in frames:
        claims += ptr_claims(frames["ext_ptr"], frames.get("ext_ptr_audit"))
    if "ext_mode_release" in frames:
        claims += mode_release_claims(
            frames["ext_mode_release"], frames.get("ext_mode_release_audit"), study_config["mode_release"]
        )
    return claims
