"""Claims of Lin et al. (2025) on bounding the local sensitivity and on mode release (Theorems 5-6, Theorem 11,
Lemma 34, Algorithms 10-12, Table 1's "bounding local sensitivity" and "mode release" rows), decided by ``ext_ptr``,
``ext_ptr_audit``, ``ext_mode_release`` and ``ext_mode_release_audit``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dplab.numerics import loglog_slope
from dplab.report.claims import Numbers, clearly_greater, erratum_if, holds_if
from dplab.studies.purification.claims_common import CLAIMS, PAPER, Config, Frames, mean_sem, wins

__all__ = ["LOGLOG_SPREAD", "LOGLOG_SPREAD_FAILS", "SELECTION_RULES", "SLOPE_GAP"]

#: Our thresholds: Theorem 5's measured eps-slopes follow the bound's when the mean absolute difference is below 0.2;
#: Theorem 6's Alg. 12 / report-noisy-max gap ratio is O(log log|X|) when ratio / log(8 d^3/eps) varies over d by at
#: most 1.5x, and grows faster than that factor when it varies by more than 3x.
SLOPE_GAP, LOGLOG_SPREAD, LOGLOG_SPREAD_FAILS = 0.2, 1.5, 3.0
_KEYS = ["n_vertices", "edge_probability", "epsilon_total"]
_PTR, _MODE = ("ext_ptr",), ("ext_mode_release",)


def _alg11_cells(ptr: pd.DataFrame) -> pd.DataFrame:
    """Per cell: mean |error| of purified Algorithm 11 (mean, sem over graphs) and the d = 1 bound of the proof of
    Theorem 11, E|q_pure - q| <= E|Z1| + E|Z2| + omega R with E|Z1| = (Delta_Local + log(2/delta)/eps)/eps, E|Z2| = b."""
    alg11 = ptr[ptr["method"] == "alg11_purified"]
    alg11 = alg11.assign(
        bound=(alg11["local_sensitivity"] + alg11["bound_offset"]) / alg11["epsilon"]
        + alg11["laplace_scale"]
        + alg11["omega"] * alg11["domain_diameter"]
    )
    extra = alg11.groupby(_KEYS).agg(bound=("bound", "mean"), offset=("bound_offset", "mean"), eps=("epsilon", "first"))
    return mean_sem(alg11, _KEYS, "mean_abs_error").join(extra).reset_index()


@CLAIMS.paper(
    "thm5_bounding_local_sensitivity_rate",
    source=f"{PAPER}, Sec. 5.1, Theorem 5 (Theorem 11, App. J.2), Table 1 (bounding Delta_local)",
    statement="Algorithm 11's output has E||q_pure - q(D)||_2 <= O~(d^(1/2) Delta_local/eps + d^(3/2)/eps^2); before "
    "purification d^(1/2)(Delta_local + log(1/delta)/eps)/eps",
    artifact="ext_ptr",
    reads=_PTR,
    rule="holds if no cell's mean |error| is clearly above (2 standard errors over graphs) the explicit bound of "
    "Theorem 11's proof and the measured eps-slopes differ from the bound's by less than SLOPE_GAP = "
    f"{SLOPE_GAP:g} on average (our threshold); partial if more than half the cells are within; fails otherwise",
    verdict=lambda n: (
        "holds"
        if n["within"] == n["cells"] and n["gap"] < SLOPE_GAP
        else ("partial" if n["within"] > n["cells"] / 2 else "fails")
    ),
    evidence=lambda n: (
        f"mean |error| within the proof's explicit bound in {n['within']}/{n['cells']} cells (measured/bound "
        f"{n['tight'][0]:.2f}..{n['tight'][1]:.2f}), eps-slopes {n['measured'][0]:.2f}..{n['measured'][1]:.2f} vs "
        f"the bound's {n['predicted'][0]:.2f}..{n['predicted'][1]:.2f} (mean abs difference {n['gap']:.3f}). d = 1 "
        "triangle counting over (n_v, p, eps_tot) cells, bound (Delta_L + log(2/delta)/eps)/eps + b + omega R (-1 = "
        "Delta_L/eps regime, -2 = 1/eps^2 regime); the 1/eps^2 term carries the hidden factor log(2/delta) = "
        f"{n['log_two_over_delta'][0]:.1f}..{n['log_two_over_delta'][1]:.1f} (log of R^2 eps, Theorem 11's delta), "
        "so log(1/delta) is not replaced by d = 1 but by log(R eps); purified / unpurified-at-delta_ref error ratio "
        f"{n['ratio'][0]:.2f}..{n['ratio'][1]:.2f} (the price of the tiny delta and of eps_tot/3)"
    ),
)
def measure_alg11_rate(frames: Frames, config: Config) -> Numbers:
    ptr = frames["ext_ptr"]
    cells = _alg11_cells(ptr)
    groups = [g for _, g in cells.groupby(["n_vertices", "edge_probability"]) if len(g) >= 2]
    slopes = np.array([(loglog_slope(g["eps"], g["mean"]), loglog_slope(g["eps"], g["bound"])) for g in groups])
    slopes = slopes.reshape(-1, 2)
    ref = ptr[ptr["method"] == "alg11_reference"].groupby(_KEYS)["mean_abs_error"].mean()
    ratio = (cells.set_index(_KEYS)["mean"] / ref).dropna()
    tight, log_two = cells["mean"] / cells["bound"], cells["offset"] * cells["eps"]
    return {
        "cells": len(cells),
        "within": len(cells) - sum(map(clearly_greater, cells["mean"], cells["sem"], cells["bound"], 0 * cells["sem"])),
        "tight": (tight.min(), tight.max()),
        "measured": (slopes[:, 0].min(), slopes[:, 0].max()) if len(slopes) else (math.nan, math.nan),
        "predicted": (slopes[:, 1].min(), slopes[:, 1].max()) if len(slopes) else (math.nan, math.nan),
        "gap": float(np.mean(np.abs(slopes[:, 0] - slopes[:, 1]))) if len(slopes) else math.nan,
        "log_two_over_delta": (log_two.min(), log_two.max()),
        "ratio": (ratio.min(), ratio.max()),
    }


@CLAIMS.extension(
    "alg11_adaptive_beats_global_sensitivity",
    source=f"{PAPER}, Sec. 5.1 ('an adaptive utility upper bound that depends on the local sensitivity'; extension: "
    "the comparison with the global-sensitivity Laplace mechanism is ours)",
    statement="Privately bounding the local sensitivity gives error adaptive to Delta_local, far below the "
    "global-sensitivity Laplace mechanism",
    artifact="ext_ptr",
    reads=_PTR,
    rule="holds if purified Algorithm 11's median |error| is clearly below (2 standard errors over graphs) the "
    "global-sensitivity Laplace mechanism's in every (n_v, p, eps_tot) cell; partial if in some; fails if in none",
    verdict=lambda n: "holds" if n["wins"] == n["cells"] else ("partial" if n["wins"] else "fails"),
    evidence=lambda n: (
        f"median |error| of purified Alg. 11 clearly below GS Laplace's in {n['wins']}/{n['cells']} cells "
        f"({n['wins_big'][0]}/{n['wins_big'][1]} with n_v >= 500). E.g. "
        + "; ".join(f"n_v={v}, p={p:g}, eps_tot={e:g}: {a:.4g} vs {g:.4g}" for (v, p, e), a, g in n["examples"])
        + f"; the pure NRS07 smooth-sensitivity baseline (d = 1) is better than purified Alg. 11 by a factor "
        f"{n['smooth'][0]:.2f}..{n['smooth'][1]:.2f}"
    ),
)
def measure_adaptive(frames: Frames, config: Config) -> Numbers:
    med = mean_sem(frames["ext_ptr"], ["method", *_KEYS], "median_abs_error")
    pur, gs = med.loc["alg11_purified"], med.loc["gs_laplace"]
    won = wins(pur, gs)
    big = pur.index.get_level_values("n_vertices") >= 500
    smooth = pur["mean"] / med.loc["smooth_sensitivity"]["mean"]
    examples = [pur.index[i] for i in (0, len(pur) // 2, len(pur) - 1)]
    return {
        "wins": int(won.sum()),
        "cells": len(won),
        "wins_big": (int(won[big].sum()), int(big.sum())),
        "examples": [(key, pur["mean"][key], gs["mean"][key]) for key in examples],
        "smooth": (smooth.min(), smooth.max()),
    }


@CLAIMS.paper(
    "thm5_lemma34_purified_ptr_pure_dp_audit",
    source=f"{PAPER}, Theorem 5/11, App. J.1 Lemma 34, Algorithms 10-11",
    statement="Purified Alg. 11 is 3eps-DP and purified PTR (Alg. 10) is (2eps + eps')-DP, given that Delta_local has "
    "global sensitivity <= 1",
    artifact="ext_ptr_audit",
    reads=("ext_ptr", "ext_ptr_audit"),
    rule="holds if no Monte-Carlo lower bound exceeds its Theorem 5/Lemma 34 epsilon and the brute-force check finds "
    "Delta_local changing by at most 1 per edge flip (its value matching the flip changes in every graph); fails "
    "otherwise",
    verdict=lambda n: holds_if(
        all(lb <= bound for *_, lb, bound in n["mc"]) and n["max_change"] <= 1 and n["matches"] == n["graphs"][0]
    ),
    evidence=lambda n: (
        f"largest Monte-Carlo lower bound {max(lb for *_, lb, _ in n['mc']):.3f} against the claimed bound "
        f"{min(b for *_, b in n['mc']):g}; Delta_local changes by at most {n['max_change']:g} per edge flip in "
        f"{n['graphs'][0]} graphs. Monte-Carlo (1 - alpha) lower bounds on pure eps for K5 minus an edge vs K5: "
        + "; ".join(f"{m} N={s:.0e}: {lb:.3f} <= {bound:g}" for m, s, lb, bound in n["mc"])
        + f"; brute force over all edge flips of {n['graphs'][0]} graphs on {n['graphs'][1]} vertices: max change of "
        f"Delta_local {n['max_change']:g} (<= 1), Delta_local = max flip change of the count in "
        f"{n['matches']}/{n['graphs'][0]}; Alg. 10 refusal rate (with the proposed beta; with the margin beta): "
        + ", ".join(f"{m.removeprefix('alg10_ptr_')} {rate:.3f}" for m, rate in n["refusal"].items())
    ),
)
def measure_ptr_audit(frames: Frames, config: Config) -> Numbers:
    audit, ptr = frames["ext_ptr_audit"], frames["ext_ptr"]
    mc = audit[audit["kind"] == "mc_audit"]
    check = audit[audit["kind"] == "sensitivity_check"].iloc[0]
    refuse = ptr[ptr["method"].str.startswith("alg10")].groupby("method")["refusal_rate"].mean()
    return {
        "mc": [(r.method, int(r.n_samples), r.epsilon_lb, r.bound) for r in mc.itertuples()],
        "graphs": (int(check["n_graphs"]), int(check["check_vertices"])),
        "max_change": float(check["max_local_sensitivity_change"]),
        "matches": int(check["local_sensitivity_matches"]),
        "refusal": refuse.to_dict(),
    }


def _gaps(mode: pd.DataFrame, layout: str) -> pd.DataFrame:
    return mode[mode["layout"] == layout].groupby(["method", "bits"])["gap_at_level"].first().unstack("bits")


def _layout(mode: pd.DataFrame) -> str:
    """The decisive layout: every other item at the runner-up's count (the hardest for report-noisy-max)."""
    return "all_runner_up" if "all_runner_up" in set(mode["layout"]) else mode["layout"].iloc[0]


def _uniform_rest(mode: pd.DataFrame) -> pd.DataFrame:
    return mode[mode["layout"] == "uniform_rest"] if "uniform_rest" in set(mode["layout"]) else mode


@CLAIMS.paper(
    "thm6_mode_release_gap_rate",
    source=f"{PAPER}, Sec. 5.2, Theorem 6 and the paragraph after it, Table 1 (mode release)",
    statement="Algorithm 12 returns the mode if the gap exceeds Omega(log|X| log(log|X|/eps)/eps): 'Our result matches "
    "[report-noisy-max's Theta(log|X|/eps)] up to a log log|X| factor' (before purification: log(1/delta)/eps)",
    artifact="ext_mode_release",
    reads=_MODE,
    rule="holds if the Alg. 12 / report-noisy-max gap ratio divided by log(8 d^3/eps) (Theorem 6's extra factor) "
    f"varies over d by at most LOGLOG_SPREAD = {LOGLOG_SPREAD:g}x, fails if by more than LOGLOG_SPREAD_FAILS = "
    f"{LOGLOG_SPREAD_FAILS:g}x (our thresholds), partial in between",
    verdict=lambda n: (
        "holds" if n["spread"] <= LOGLOG_SPREAD else ("partial" if n["spread"] <= LOGLOG_SPREAD_FAILS else "fails")
    ),
    evidence=lambda n: (
        f"ratio/log(8d^3/eps) varies {n['spread']:.2f}x over d (Alg. 12 needs "
        f"{min(r for *_, r in n['rows']):.0f}-{max(r for *_, r in n['rows']):.0f}x the RNM gap). Exact gap for "
        f"P(mode) >= {n['level']:g} ('{n['layout']}' layout, eps_tot = {n['epsilon_total']:g}): "
        + "; ".join(
            f"d={d}: Alg. 12 {p:g}, RNM {r:g}, ratio {q:.1f}, ratio/log(8d^3/eps) {s:.2f}"
            for (d, p, r, q), s in zip(n["rows"], n["scaled"])
        )
        + f"; log-log slope vs d: Alg. 12 {n['slopes'][0]:.2f}, RNM {n['slopes'][1]:.2f}; unpurified distance at "
        f"delta_ref needs {n['reference'][0]:g}..{n['reference'][1]:g} (log(1/delta)/eps, flat in d)"
        + (
            ""
            if n["uniform_rest"] is None
            else f"; with the other items far below the runner-up RNM needs only {n['uniform_rest'][0]:g} and the "
            f"ratio is {n['uniform_rest'][1]:.0f}-{n['uniform_rest'][2]:.0f}x"
        )
    ),
)
def measure_gap_rate(frames: Frames, config: Config) -> Numbers:
    mode, section = frames["ext_mode_release"], config["mode_release"]
    layout = _layout(mode)
    gaps = _gaps(mode, layout)
    bits = np.array(gaps.columns, dtype=float)
    pur, rnm = gaps.loc["alg12_corrected_uniform"], gaps.loc["report_noisy_max"]
    ratio = pur / rnm
    other = None
    if "uniform_rest" in set(mode["layout"]) and layout != "uniform_rest":
        rest = _gaps(mode, "uniform_rest")
        rest_ratio = rest.loc["alg12_corrected_uniform"] / rest.loc["report_noisy_max"]
        other = (rest.loc["report_noisy_max"].max(), rest_ratio.min(), rest_ratio.max())
    scaled = ratio.to_numpy() / np.log(8 * bits**3 / (section["epsilon_total"] / 2.0))
    return {
        "layout": layout,
        "level": float(section["success_level"]),
        "epsilon_total": float(section["epsilon_total"]),
        "rows": [(int(d), pur[d], rnm[d], ratio[d]) for d in gaps.columns],
        "scaled": scaled.tolist(),
        "spread": float(np.nanmax(scaled) / np.nanmin(scaled)),
        "slopes": (loglog_slope(bits, pur), loglog_slope(bits, rnm)),
        "reference": (gaps.loc["distance_reference"].min(), gaps.loc["distance_reference"].max()),
        "uniform_rest": other,
    }


@CLAIMS.paper(
    "thm6_mode_release_success",
    source=f"{PAPER}, App. J.3, proof of Theorem 6",
    statement="'when occ1 - occ2 >= 4 ceil(ln(1/delta)/eps)' and 'choosing delta < eps^d/(2d)^(3d)', Algorithm 12 "
    "returns the mode with probability >= 1 - 3/|X|",
    artifact="ext_mode_release",
    reads=_MODE,
    rule="holds if, with the corrected delta, the smallest exact success probability at gaps meeting Theorem 6's "
    "condition is at least 1 - 3/|X| for every d; fails otherwise",
    verdict=lambda n: holds_if(all(w >= t for m, cells in n["methods"] if "corrected" in m for _, w, t in cells)),
    evidence=lambda n: (
        f"with the corrected delta the exact P(mode) at gaps >= 4 ceil(ln(1/delta)/eps) is at least 1 - 3/|X| in "
        f"{sum(w >= t for m, c in n['methods'] if 'corrected' in m for _, w, t in c)} of "
        f"{sum(len(c) for m, c in n['methods'] if 'corrected' in m)} (bottom, d) cells. "
        + "; ".join(
            f"{m}: min exact P(mode) at gaps >= 4 ceil(ln(1/delta)/eps) by d: "
            + ", ".join(f"d={d}: {w:.4f} (>= {t:.4f}: {bool(w >= t)})" for d, w, t in cells)
            for m, cells in n["methods"]
        )
        + ". The corrected delta decides; as printed see erratum_algorithm12_delta_utility"
    ),
)
def measure_success(frames: Frames, config: Config) -> Numbers:
    rest, rows = _uniform_rest(frames["ext_mode_release"]), []
    for rule in ("corrected", "as_printed"):
        for bottom in ("uniform", "reserved"):
            part = rest[rest["method"] == f"alg12_{rule}_{bottom}"]
            big = part[part["gap"] >= 4 * np.ceil(-part["log_delta"] / part["epsilon"])]
            if len(big):
                worst = big.groupby("bits")["success_exact"].min()
                rows.append((f"alg12_{rule}_{bottom}", [(int(d), w, 1 - 3 / 2.0**d) for d, w in worst.items()]))
    return {"methods": rows}


@CLAIMS.paper(
    "thm6_mode_release_pure_dp_exact_audit",
    source=f"{PAPER}, Theorem 6, Theorem 2 (exact audit)",
    statement="Algorithm 12 (distance to instability + Algorithm 2) is (2eps, 0)-DP",
    artifact="ext_mode_release_audit",
    reads=("ext_mode_release", "ext_mode_release_audit"),
    rule="holds if every exact log-probability ratio of Algorithm 12 over the replace-one transitions is within 2 eps "
    "(both delta rules, both bottom codes) and the reduced transition set contains every exhaustive one; fails "
    "otherwise",
    verdict=lambda n: holds_if(n["within"] and n["superset"]),
    evidence=lambda n: (
        f"max log ratio within 2 eps = {2 * n['epsilon']:g} in every audited case: {n['within']} (both Alg. 2 "
        f"geometries). Exact output laws on |X| = 2^{n['bits']}, eps = {n['epsilon']:g}, all replace-one transitions "
        f"(reduced set verified to contain every exhaustive transition: {n['superset']}): "
        + "; ".join(f"delta {r}, bottom {b}: {v:.4f}" for (r, b), v in n["by_rule"].items())
        + f"; without Alg. 2, a reserved bottom code has pure eps = inf ({n['reserved_infinite']})"
    ),
)
def measure_mode_audit(frames: Frames, config: Config) -> Numbers:
    audit = frames["ext_mode_release_audit"]
    alg12 = audit[audit["treatment"].str.startswith("alg12")]
    unpurified = audit[(audit["treatment"] == "unpurified") & (audit["enumeration"] == "reduced")]
    return {
        "bits": sorted(int(b) for b in audit["bits"].unique()),
        "epsilon": float(audit["epsilon"].iloc[0]),
        "within": bool(alg12["within_bound"].astype(bool).all()),
        "superset": bool(audit["exhaustive_within_reduced"].astype(bool).all()),
        "by_rule": alg12.groupby(["delta_rule", "bottom"])["epsilon_inf"].max().to_dict(),
        "reserved_infinite": bool(np.isinf(unpurified[unpurified["bottom"] == "reserved"]["epsilon_inf"]).all()),
    }


@CLAIMS.extension(
    "ext_uniform_bottom_is_pure_without_alg2",
    source=f"{PAPER}, Algorithm 12 (extension: a variant without Algorithm 2)",
    statement="Mapping bottom to a uniform element of X already makes distance-to-instability pure: "
    "max(eps, log(1 + |X| delta/(2 - delta)))-DP, without Algorithm 2",
    artifact="ext_mode_release_audit",
    reads=("ext_mode_release", "ext_mode_release_audit"),
    rule="holds if the exact log ratio of the unpurified uniform-bottom law is within max(eps, log(1 + |X| delta/"
    "(2 - delta))) at every audited point, calibrated delta included; fails otherwise",
    verdict=lambda n: holds_if(n["within"]),
    evidence=lambda n: (
        f"the unpurified uniform-bottom law is within its bound at every audited point: {n['within']}. Exact max log "
        "ratio: "
        + ", ".join(f"d={d} delta {rule}: {v:.4f} (bound {b:.4f})" for d, rule, v, b in n["rows"])
        + ". With delta = 2(e^eps - 1)/(|X| + e^eps - 1) it is eps-DP at eps = eps_tot and needs gaps "
        + ", ".join(f"d={d}: {fast:g}" for d, fast, _ in n["gaps"])
        + " (vs Alg. 12 "
        + ", ".join(f"{slow:g}" for *_, slow in n["gaps"])
        + ")"
    ),
)
def measure_uniform_bottom(frames: Frames, config: Config) -> Numbers:
    audit, mode = frames["ext_mode_release_audit"], frames["ext_mode_release"]
    unpurified = audit[(audit["treatment"] == "unpurified") & (audit["enumeration"] == "reduced")]
    uniform = unpurified[unpurified["bottom"] == "uniform"]
    calibrated = audit[audit["delta_rule"] == "uniform_calibrated"]
    gaps = _gaps(mode, _layout(mode))
    return {
        "rows": [(int(r.bits), r.delta_rule, r.epsilon_inf, r.bound) for r in uniform.itertuples()],
        "within": bool(uniform["within_bound"].astype(bool).all() and calibrated["within_bound"].astype(bool).all()),
        "gaps": list(
            zip(map(int, gaps.columns), *gaps.loc[["distance_uniform_bottom", "alg12_corrected_uniform"]].values)
        ),
    }


@CLAIMS.erratum(
    "erratum_algorithm12_delta_utility",
    source=f"{PAPER}, App. J.3, Algorithm 12 line 2 with the proof of Theorem 6",
    statement="With Algorithm 12's 'log(1/delta) = d log(2d^3/eps)', 'P(u_pure = f(D)) >= 1 - delta - 2^-d - (d/2) "
    "e^-d >= 1 - 3/|X|'",
    artifact="ext_mode_release",
    reads=_MODE,
    rule="erratum while, with Algorithm 12's printed delta, the best exact success probability (over all gaps) at "
    "the smallest d is below Theorem 6's 1 - 3/|X|, holds otherwise; severity false (the printed algorithm then "
    "misses the probability its proof states at every gap)",
    verdict=lambda n: erratum_if(n["best"] < n["promised"]),
    evidence=lambda n: (
        f"with the as-printed delta the exact success probability saturates at {n['best']:.4f} for d = {n['d']}, "
        f"below the promised {n['promised']:.4f}. Gaps for P >= {n['level']:g}: "
        + ", ".join(f"d={d}: {g:g}" for d, g in n["gaps"])
        + " (NaN = never)"
    ),
    severity="false",
    consequence="Theorem 6's privacy unaffected (the exact audit is within 2 eps for both delta rules); its success "
    "guarantee holds only with Theorem 2's delta < eps^d/(2d)^(3d) (thm6_mode_release_success), and the O(1/|X|) of "
    "the main-text statement leaves room for a larger constant",
)
def measure_printed_delta(frames: Frames, config: Config) -> Numbers:
    mode = frames["ext_mode_release"]
    best = _uniform_rest(mode)
    best = best[best["method"] == "alg12_as_printed_uniform"].groupby("bits")["success_exact"].max()
    d = int(best.index.min())
    return {
        "d": d,
        "best": float(best[d]),
        "promised": 1 - 3 / 2**d,
        "level": float(config["mode_release"]["success_level"]),
        "gaps": [(int(b), g) for b, g in _gaps(mode, _layout(mode)).loc["alg12_as_printed_uniform"].items()],
    }


SELECTION_RULES = CLAIMS.declared_in(__name__)
