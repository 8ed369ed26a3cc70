"""Verdicts for the statistics experiments of the purification study: mean estimation (``ext_mean_estimation``,
Section 7 / Theorem 9, spec E5) and linear regression with pure AdaSSP (``ext_linear_regression``, Algorithm 13 /
Theorem 7 and Table 1's linear-regression row, spec E8).  Every verdict is decided by the frames' numbers."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import Claim
from dplab.studies.purification.claims_common import artifact_path, loglog_slope

__all__ = ["statistics_claims", "mean_estimation_claims", "linear_regression_claims"]

_MEAN, _REGRESSION = "ext_mean_estimation", "ext_linear_regression"


def _verdict(good: int, total: int) -> str:
    return "holds" if good == total else ("partial" if 2 * good >= total else "fails")


# ---------------------------------------------------------------------------------------------- mean estimation


def _dimension_claims(dim: pd.DataFrame) -> list[Claim]:
    means = (
        dim.groupby(["method", "epsilon_total", "d"])
        .agg(error=("error_mean", "mean"), expected=("expected_error", "mean"))
        .reset_index()
    )
    slopes, ok, ratios = [], 0, []
    epsilons = sorted(means["epsilon_total"].unique())
    for eps in epsilons:
        part = means[means["epsilon_total"] == eps]
        row = {m: g.sort_values("d") for m, g in part.groupby("method")}
        pur = row["purified_gaussian"]
        s_pur, s_pred = loglog_slope(pur["d"], pur["error"]), loglog_slope(pur["d"], pur["expected"])
        s_knorm = loglog_slope(row["l2_knorm"]["d"], row["l2_knorm"]["error"])
        s_ref = loglog_slope(row["gaussian_reference"]["d"], row["gaussian_reference"]["error"])
        ok += abs(s_pur - s_pred) <= 0.1 and abs(s_pur - 1.0) <= 0.2
        ratio = pur["error"].to_numpy() / row["l2_knorm"]["error"].to_numpy()
        ratios.append((eps, ratio.min(), ratio.max()))
        slopes.append(
            f"eps_tot={eps:g}: purified {s_pur:.3f} (chi-mean prediction with log(1/delta) = d log(32 d n^2): "
            f"{s_pred:.3f}), l2 K-norm {s_knorm:.3f}, Gaussian at fixed delta {s_ref:.3f}"
        )
    ds = sorted(means["d"].unique())
    ratio_ok = all(hi / lo <= 2.0 for _, lo, hi in ratios)
    return [
        Claim(
            "e5_purified_mean_rate_in_d",
            "Sec. 1, Table 1 ('log(1/delta) is replaced by d'), Cor. 4 (extension: mean estimation)",
            "Purifying the Gaussian mechanism at delta = 2 omega/(32 d n^2)^d gives a pure-DP mean estimator whose error "
            "grows like d/(n eps) up to logs (the pure rate), not sqrt(d log(1/delta)) at fixed delta",
            _verdict(ok, len(epsilons)),
            f"fitted log-log slopes of mean E||.||_2 against d in {[int(d) for d in ds]}: "
            + "; ".join(slopes)
            + " (theory: pure rate slope 1, fixed-delta Gaussian slope 0.5)",
            artifact_path(_MEAN),
        ),
        Claim(
            "e5_purified_mean_matches_optimal_pure_up_to_logs",
            "Sec. 7 (extension: mean estimation)",
            "The purified Gaussian matches the optimal pure-DP mean estimator (l2 K-norm, error d Delta_2/eps) up to "
            "logarithmic factors",
            "holds" if ratio_ok else "partial",
            "ratio purified / K-norm over d: "
            + "; ".join(f"eps_tot={e:g}: {lo:.2f} to {hi:.2f}" for e, lo, hi in ratios)
            + " (a constant factor in d: same rate; the factor is the sqrt(log(32dn^2)) of the tiny delta times the "
            "eps_tot/2 split, larger than the spec's 5-7x, which compared each component at eps = 1)",
            artifact_path(_MEAN),
        ),
    ]


def _delta_claims(delta: pd.DataFrame) -> list[Claim]:
    cell = (
        delta.groupby(["method", "log_delta"])
        .agg(
            error=("error_mean", "mean"),
            bound=("theorem9_lower_bound", "first"),
            valid=("theorem9_valid", "first"),
            paper=("paper_log_delta", "first"),
            rate=("pure_rate", "first"),
        )
        .reset_index()
    )
    gauss = cell[cell["method"] == "gaussian_at_delta"].sort_values("log_delta")
    valid = gauss[gauss["valid"].astype(bool)]
    first = delta.iloc[0]
    lo, hi = float(first["theorem9_log_delta_min"]), float(first["theorem9_log_delta_max"])
    slope = loglog_slope(-gauss["log_delta"], gauss["error"])
    above = bool((valid["error"] >= valid["bound"]).all()) if len(valid) else False
    pur = cell[cell["method"] == "purified_gaussian"].sort_values("log_delta")
    best = pur.loc[pur["error"].idxmin()]
    paper = float(first["paper_log_delta"])
    at_paper = pur.iloc[(pur["log_delta"] - paper).abs().argmin()]
    d, n, eps = int(first["d"]), int(first["n"]), float(first["epsilon_total"])
    return [
        Claim(
            "thm9_lower_bound_consistent",
            "Theorem 9/14 (Sec. 7)",
            "Any (eps, delta)-DP mean estimator on {+-1/sqrt d}^d errs by at least sqrt(d log(1/delta))/(2 n eps log d "
            "log(nd)) (for delta in the theorem's range); the Gaussian mechanism attains sqrt(d log(1/delta))/(n eps)",
            "holds" if above and abs(slope - 0.5) <= 0.1 and len(valid) else "fails",
            f"n={n}, d={d}, eps={eps:g}: Theorem 9's range is log delta in ({lo:.1f}, {hi:.2f}); {len(valid)} of "
            f"{len(gauss)} swept deltas inside (outside it the bound is not claimed); AGM mean error >= bound at all "
            f"valid deltas: {above} (error/bound from {(valid['error'] / valid['bound']).min():.0f} to "
            f"{(valid['error'] / valid['bound']).max():.0f}: the bound's log d log(nd) = "
            f"{math.log(d) * math.log(n * d):.1f} denominator); fitted slope of the AGM error against log(1/delta): "
            f"{slope:.3f} (sqrt rate: 0.5)",
            artifact_path(_MEAN),
        ),
        Claim(
            "e5_purification_tradeoff_in_delta",
            "Sec. 7, Cor. 4 (extension: mean estimation)",
            "Purification works at log(1/delta) ~ d log(nd): smaller deltas cost sqrt(log(1/delta)) in the Gaussian "
            "step, larger ones blow up the purification noise (delta/2 omega)^(1/d); the paper's delta is near the best",
            "holds" if at_paper["error"] <= 2.0 * best["error"] else "partial",
            f"purified Gaussian (n={n}, d={d}, eps_tot={eps:g}): smallest mean error {best['error']:.4g} at log(1/delta) "
            f"= {-best['log_delta']:.0f} ({-best['log_delta'] / d:.1f} d); at the paper's log(1/delta) = {-paper:.1f}: "
            f"{at_paper['error']:.4g}; at the largest delta swept ({math.exp(pur['log_delta'].max()):.2g}): "
            f"{pur.iloc[-1]['error']:.4g}; pure rate d Delta_2/eps_tot = {float(best['rate']):.4g}",
            artifact_path(_MEAN),
        ),
    ]


def _audit_claim(audit: pd.DataFrame) -> Claim:
    full = audit[audit["treatment"] == "full"].sort_values("epsilon_total")
    raw = audit[audit["treatment"] == "none"].sort_values("epsilon_total")
    within = bool((full["epsilon_inf"] <= full["bound"] + 1e-9).all())
    return Claim(
        "e5_purified_mean_is_pure_dp",
        "Theorem 1 (exact audit, d = 1 mean estimation)",
        "The purified (projected) Gaussian mean estimator is (eps + eps', 0)-DP",
        "holds" if within else "fails",
        f"exact sup log density ratio on neighbouring means (n = {int(full['n'].iloc[0])}, replace-one): "
        + ", ".join(f"eps_tot={r.epsilon_total:g}: purified {r.epsilon_inf:.4f}" for r in full.itertuples())
        + "; before purification (projected AGM at eps_tot/2): "
        + ", ".join(f"{r.epsilon_inf:.3f}" for r in raw.itertuples())
        + f"; all purified values <= eps_tot: {within}",
        artifact_path(_MEAN),
    )


def mean_estimation_claims(frame: pd.DataFrame) -> list[Claim]:
    claims = _dimension_claims(frame[frame["panel"] == "dimension"])
    claims += _delta_claims(frame[frame["panel"] == "delta"])
    claims.append(_audit_claim(frame[frame["panel"] == "audit"]))
    return claims


# -------------------------------------------------------------------------------------------- linear regression


def _cell_means(frame: pd.DataFrame) -> pd.DataFrame:
    return (
        frame.groupby(["method", "d", "epsilon_total", "n"])
        .agg(error=("excess_mse_mean", "mean"), rate_after=("rate_after", "mean"), log_delta=("log_delta", "first"))
        .reset_index()
    )


def linear_regression_claims(frame: pd.DataFrame) -> list[Claim]:
    cells = _cell_means(frame)
    ns = sorted(cells["n"].unique())
    top = ns[-2:]
    rate_rows, good, total = [], 0, 0
    for (d, eps), part in cells[cells["method"] == "pure_adassp"].groupby(["d", "epsilon_total"]):
        part = part.sort_values("n")
        last = part[part["n"].isin(top)]
        measured = loglog_slope(last["n"], last["error"])
        predicted = loglog_slope(last["n"], last["rate_after"])
        overall = loglog_slope(part["n"], part["error"])
        total += 1
        good += measured <= predicted + 0.35
        rate_rows.append(f"d={d}, eps={eps:g}: {measured:.2f} vs {predicted:.2f} (all n: {overall:.2f})")
    pivot = cells.pivot_table(index=["d", "epsilon_total", "n"], columns="method", values="error")
    largest = pivot.xs(ns[-1], level="n")
    ratio = largest["pure_adassp"] / largest["adassp_reference"]
    log_pur = cells[(cells["method"] == "pure_adassp") & (cells["n"] == ns[-1])].set_index(["d", "epsilon_total"])[
        "log_delta"
    ]
    predicted_ratio = 4.0 * (-log_pur) / (2.0 * math.log(ns[-1]))
    within = ratio <= 2.0 * predicted_ratio.reindex(ratio.index)
    cost = (pivot["pure_adassp"] - pivot["adassp_at_purification_delta"]).abs() / pivot["adassp_at_purification_delta"]
    wins = pivot["pure_adassp"] < pivot["laplace_ssp"]
    adassp_rows = frame[frame["method"].isin(["pure_adassp", "adassp_reference"])]
    composed_ok = bool((adassp_rows["log_delta_composed_exact"] <= adassp_rows["log_delta"]).all())
    per_release = adassp_rows.drop_duplicates(["method", "n", "d", "epsilon_total"])
    per_fail = per_release[per_release["log_delta_per_release_exact"] > per_release["log_delta_per_release_target"]]
    margin = (adassp_rows["log_delta"] - adassp_rows["log_delta_composed_exact"]).min()
    return [
        Claim(
            "thm7_pure_adassp_rate",
            "Theorem 7/12, Table 1 (linear regression, after purification)",
            "Pure AdaSSP has excess MSE O~(min{d/(n eps), d^2/(lambda_min n^2 eps^2)})",
            _verdict(good, total),
            f"fitted log-log slope of mean excess MSE against n over the two largest n {[int(n) for n in top]} vs the "
            f"slope of min{{d/(n eps), d^2/(lambda_min n^2 eps^2)}} with measured lambda_min(X'X/n): "
            + "; ".join(rate_rows)
            + f"; {good}/{total} cells decay at least as fast as the rate (tolerance 0.35). "
            "Slower cells sit before the regime where the ridge (which grows with sqrt(log(1/delta)) ~ sqrt(d log n)) "
            "stops dominating",
            artifact_path(_REGRESSION),
        ),
        Claim(
            "table1_linear_regression_log_factor",
            "Table 1 (linear regression: before vs after purification)",
            "Purification costs AdaSSP only logarithmic factors: log(1/delta) becomes O~(d)",
            "holds" if bool(within.all()) else "partial",
            f"at n = {int(ns[-1])}: pure AdaSSP / AdaSSP at (eps_tot, 1/n^2) = "
            + ", ".join(f"d={d}, eps={e:g}: {r:.1f}" for (d, e), r in ratio.items())
            + "; prediction of the lambda_min regime 4 log(1/delta_pur)/log(n^2) (eps halved, delta tiny): "
            + ", ".join(f"{v:.0f}" for v in predicted_ratio.to_numpy())
            + f"; within twice the prediction: {int(within.sum())}/{len(within)}",
            artifact_path(_REGRESSION),
        ),
        Claim(
            "lemma35_adassp_privacy",
            "Lemma 35 (Wang 2018, Thm 3): AdaSSP is (eps, delta)-DP",
            "AdaSSP with noise sqrt(log(6/delta))/(eps/3) on its three releases is (eps, delta)-DP",
            "holds" if composed_ok else "fails",
            f"exact delta(eps) of the three Gaussian releases composed (mu-GDP, mu = sqrt 3 / multiplier): <= delta in all "
            f"{len(adassp_rows)} rows: {composed_ok} (smallest margin log delta - log delta_exact = {margin:.1f}); but one "
            f"release alone is not (eps/3, delta/3)-DP in {len(per_fail)}/{len(per_release)} (method, n, d, eps) cells "
            "(its noise is ~0.72 of the classical sigma): the guarantee holds through composition, not the per-release split",
            artifact_path(_REGRESSION),
        ),
        Claim(
            "thm7_purification_noise_negligible",
            "Theorem 12 proof (Delta = 1/(4 n^2 d))",
            "Algorithm 1's step costs O(||X||^2/(eps^2 n^4)) in MSE: negligible",
            "holds" if float(cost.max()) < 1e-3 else "fails",
            f"max relative difference in mean excess MSE between pure AdaSSP and its projected input: {float(cost.max()):.2e}",
            artifact_path(_REGRESSION),
        ),
        Claim(
            "ext_pure_adassp_vs_laplace_ssp",
            "Theorem 7 (extension: against a simple pure-DP baseline)",
            "Pure AdaSSP is a better pure-DP regression method than Laplace sufficient-statistics perturbation",
            _verdict(int(wins.sum()), len(wins)),
            f"pure AdaSSP has lower mean excess MSE than Laplace-SSP in {int(wins.sum())}/{len(wins)} (n, d, eps) cells; at "
            f"n = {int(ns[-1])}: "
            + ", ".join(
                f"d={d}, eps={e:g}: {p:.3g} vs {q:.3g}"
                for (d, e), p, q in zip(largest.index, largest["pure_adassp"], largest["laplace_ssp"])
            ),
            artifact_path(_REGRESSION),
        ),
    ]


def statistics_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """Claims of the artifacts present in ``frames`` (ids ``ext_mean_estimation``, ``ext_linear_regression``)."""
    claims: list[Claim] = []
    if _MEAN in frames:
        claims += mean_estimation_claims(frames[_MEAN])
    if _REGRESSION in frames:
        claims += linear_regression_claims(frames[_REGRESSION])
    return claims
