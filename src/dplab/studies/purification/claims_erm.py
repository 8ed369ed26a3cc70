"""Claims of Lin et al. (2025) on DP-ERM (Theorem 3, Corollary 4, Tables 1-2), decided by ``ext_dp_erm`` (convex)
and ``ext_dp_erm_sc`` (strongly convex; each claim is declared with that twin, suffix ``_sc``, which follows it in
``claims.csv``). Rates are judged by fitted log-log slopes against n; constants are reported, not deciding; nothing
is extrapolated beyond the largest n measured."""

from __future__ import annotations

from functools import partial

import pandas as pd

from dplab.numerics import loglog_slope
from dplab.report.claims import Numbers, clearly_less, holds_if
from dplab.studies.purification.claims_common import CLAIMS, PAPER, Config, Frames, mean_sem

__all__ = ["PURIFICATION_COST", "RATE_SLOPE_MATCH", "RATE_SLOPE_TOLERANCE"]

#: Our thresholds: the purified slope "attains" Theorem 3's rate within 0.25 (four n spanning 8x); it "matches" the
#: exponential mechanism's within 0.3 (a factor 1.87 across 8x); Corollary 4's purification step is negligible when
#: no run's excess risk moves by 1e-3.
RATE_SLOPE_MATCH, RATE_SLOPE_TOLERANCE, PURIFICATION_COST = 0.25, 0.3, 1e-3


def _label(sc: bool) -> str:
    return "ext_dp_erm_sc" if sc else "ext_dp_erm"


def _slope(part: pd.DataFrame, method: str) -> tuple[float, list[tuple[int, float]]]:
    means = part[part["method"] == method].groupby("n")["excess_risk"].mean()
    means = means[means > 0]
    if len(means) < 2:
        return float("nan"), []
    return loglog_slope(means.index.to_numpy(float), means.to_numpy()), [(int(n), float(v)) for n, v in means.items()]


def _ratio(means_a: list[tuple[int, float]], means_b: list[tuple[int, float]]) -> list[tuple[int, float]]:
    return [(n, a / b) for (n, a), (_, b) in zip(means_a, means_b)]


def measure_erm(frames: Frames, config: Config, sc: bool) -> Numbers:
    """Slopes in n of the purified DP-SGD and its baselines, their ratios by n, the mean excess risks by eps_tot, the
    capped points and the DP-SGD reference, on one DP-ERM frame (``sc``: strongly convex)."""
    frame, section = frames[_label(sc)], config["dp_erm_sc" if sc else "dp_erm"]
    n_part, eps_part = (frame[frame[flag].astype(bool)] for flag in ("in_n_sweep", "in_epsilon_sweep"))
    table = eps_part.groupby(["epsilon_total", "method"])["excess_risk"].mean().unstack()
    (slope_p, means_p), (slope_l, means_l) = _slope(n_part, "purified_dpsgd"), _slope(n_part, "laplace_gd")
    slope_m, means_m = _slope(n_part, "exponential_mechanism")
    capped = n_part[(n_part["method"] == "purified_dpsgd") & n_part["capped"].astype(bool)]
    cells, largest = mean_sem(n_part, ["method", "n"], "excess_risk"), max(n_part["n"])
    columns = ["purified_dpsgd", "laplace_gd", "purified_dpsgd_tuned", "exponential_mechanism"]
    return {
        "sc": sc,
        "target": -2.0 if sc else -1.0,
        "slope": slope_p,
        "slope_tuned": _slope(n_part, "purified_dpsgd_tuned")[0],
        "slope_laplace": slope_l,
        "slope_em": slope_m,
        "ratio": _ratio(means_p, means_l),
        "ratio_em": _ratio(means_p, means_m),
        "below_at_largest": clearly_less(*cells.loc[("purified_dpsgd", largest)], *cells.loc[("laplace_gd", largest)]),
        "by_epsilon": [(float(e), *(float(r.get(c, float("nan"))) for c in columns)) for e, r in table.iterrows()],
        "capped_ns": sorted(map(int, capped["n"].unique())),
        "cap": int(section["max_steps_paper"]),
        "epsilon": float(section["n_sweep"]["epsilon"]),
        "epsilon_sweep_n": int(section["epsilon_sweep"]["n"]),
        "reference": _reference(n_part),
    }


def _verdict_rate(n: Numbers) -> str:
    if abs(n["slope"] - n["target"]) <= RATE_SLOPE_MATCH and not n["capped_ns"]:
        return "holds"
    return "partial" if n["slope"] < n["target"] / 2 else "fails"


def _evidence_rate(n: Numbers) -> str:
    capped = n["capped_ns"]
    return (
        f"purified slope {n['slope']:.2f} against Theorem 3's {n['target']:g}"
        + (f", with the paper's T capped at {n['cap']} steps for n in {capped}" if capped else ", uncapped")
        + f". Fitted slope of mean excess risk vs n at eps_tot = {n['epsilon']:g}: tuned-accounting variant "
        f"{n['slope_tuned']:.2f}, Laplace GD {n['slope_laplace']:.2f}{'' if n['sc'] else ' (theory -0.5)'}; "
        "purified / Laplace GD ratio by n: "
        + ", ".join(f"n={m}: {r:.2f}" for m, r in n["ratio"])
        + ("; capped points run fewer steps than the paper's schedule, so the slope is not its alone" if capped else "")
    )


def _reference(n_part: pd.DataFrame) -> str:
    """Where the DP-SGD reference (delta = 1/n^2) stops: its step counts, whether capped, its mean excess risks."""
    ref = n_part[n_part["method"] == "dpsgd_reference"]
    if ref.empty:
        return ""
    by_n = ref.groupby("n").agg(steps=("steps", "first"), capped=("capped", "first"), risk=("excess_risk", "mean"))
    capped, slope = by_n["capped"].astype(str).str.lower().isin(["true", "1"]), _slope(n_part, "dpsgd_reference")[0]
    if capped.all() and slope > -0.5:
        reading = "an optimisation floor (slope above -0.5 with T capped), not its rate"
    else:
        reading = "capped but still decreasing" if capped.any() else "its own schedule, no cap"
    return (
        f"; the DP-SGD reference (delta = 1/n^2) runs T = {sorted(set(map(int, by_n['steps'])))} steps "
        f"({'capped below its schedule at every n' if capped.all() else 'uncapped at some n'}), mean excess "
        + ", ".join(f"{v:.3g}" for v in by_n["risk"])
        + f" (slope {slope:.2f}): {reading}"
    )


def _verdict_laplace(n: Numbers) -> str:
    faster = n["slope"] < n["slope_laplace"]
    if faster and n["below_at_largest"]:
        return "holds"
    return "partial" if faster or any(p < lap for _, p, lap, *_ in n["by_epsilon"]) else "fails"


def _evidence_laplace(n: Numbers) -> str:
    largest = n["ratio"][-1][0] if n["ratio"] else float("nan")
    return (
        f"slopes purified {n['slope']:.2f} vs Laplace GD {n['slope_laplace']:.2f} (faster: "
        f"{n['slope'] < n['slope_laplace']}); purified/Laplace ratio {n['ratio'][-1][1]:.2f} at n = {largest}, the "
        f"largest measured (clearly below: {n['below_at_largest']}). At eps_tot = {n['epsilon']:g}, no crossover is "
        "extrapolated; purified/Laplace ratio by n: "
        + ", ".join(f"{m}: {r:.2f}" for m, r in n["ratio"])
        + f"; at n = {n['epsilon_sweep_n']}: "
        + "; ".join(
            f"eps_tot={e:g}: purified {p:.4g} vs Laplace GD {lap:.4g} vs tuned {t:.4g}"
            for e, p, lap, t, _ in n["by_epsilon"]
        )
        + n["reference"]
    )


def measure_cost(frames: Frames, config: Config, sc: bool) -> Numbers:
    part = frames[_label(sc)]
    part = part[part["in_epsilon_sweep"].astype(bool)]
    part = part[part["method"].isin(["purified_dpsgd", "dpsgd_before_purification"])]
    diff = part.pivot_table(index=["epsilon_total", "replicate"], columns="method", values="excess_risk")
    return {"cost": float((diff["purified_dpsgd"] - diff["dpsgd_before_purification"]).abs().max())}


def _has_exponential_mechanism(frames: Frames, sc: bool) -> bool:
    """The exponential mechanism is sampled on a grid in d = 2 only."""
    return bool((frames[_label(sc)]["method"] == "exponential_mechanism").any())


for _sc in (False, True):
    _s, _kind, _reads = ("_sc", " (strongly convex)", ("ext_dp_erm_sc",)) if _sc else ("", "", ("ext_dp_erm",))
    _measure = partial(measure_erm, sc=_sc)
    CLAIMS.paper(
        f"thm3_purified_dpsgd_rate{_s}",
        source=f"{PAPER}, Sec. 4.1, Theorem 3 ({'2' if _sc else '1'}), Table 1{_kind}",
        statement="Purified DP-SGD (Algorithm 4) has excess risk "
        + ("O~(d^2 L^2/(n^2 lambda eps^2))" if _sc else "O~(C L d/(n eps))"),
        artifact=_label(_sc),
        reads=_reads,
        rule=f"holds if the fitted slope in n is within RATE_SLOPE_MATCH = {RATE_SLOPE_MATCH:g} (our threshold) of "
        f"Theorem 3's ({-2 if _sc else -1}) and the paper's schedule is never capped; partial if the slope is below "
        "half the theory's (our threshold); fails otherwise",
        verdict=_verdict_rate,
        evidence=_evidence_rate,
    )(_measure)
    (CLAIMS.extension if _sc else CLAIMS.paper)(
        f"purified_dpsgd_vs_laplace_gd{_s}",
        source=f"{PAPER}, Sec. 4.1 and Table 2"
        + (" (extension: Table 2 and Lemma 19 are for convex losses only)" if _sc else ""),
        statement=f"Table 2's utility rates: Laplace noisy GD d^(1/2)/(n eps)^(1/2) (Lemma 19), purified DP-SGD "
        f"{'d^2/(lambda n^2 eps^2)' if _sc else 'd/(n eps)'}: 'directly using the Laplace mechanism to release "
        "gradients fails to achieve a competitive utility rate'",
        artifact=_label(_sc),
        reads=_reads,
        rule="holds if purified's fitted slope in n is steeper than Laplace GD's (Table 2's rates) and its mean excess "
        "risk is clearly below (2 standard errors) at the largest n measured; partial if only the rate (or some eps) "
        "favours it; fails otherwise",
        verdict=_verdict_laplace,
        evidence=_evidence_laplace,
    )(_measure)
    CLAIMS.paper(
        f"purified_matches_exponential_mechanism{_s}",
        source=f"{PAPER}, Sec. 4.1 after Theorem 3, Table 2",
        statement="'the purified DP-SGD attains a near-optimal utility rate, matching that of the exponential "
        "mechanism'",
        artifact=_label(_sc),
        reads=_reads,
        rule="a rate claim of Table 2 (up to logs): holds if purified's fitted slope of mean excess risk in n is at "
        f"most the exponential mechanism's + RATE_SLOPE_TOLERANCE = {RATE_SLOPE_TOLERANCE:g} (our threshold); fails "
        "otherwise; constants do not decide",
        verdict=lambda n: holds_if(n["slope"] <= n["slope_em"] + RATE_SLOPE_TOLERANCE),
        evidence=lambda n: (
            f"slopes: purified {n['slope']:.2f}, exponential mechanism {n['slope_em']:.2f}. Constants (not deciding): "
            "purified/EM by n: "
            + ", ".join(f"{m}: {r:.3g}" for m, r in n["ratio_em"])
            + "; by eps_tot: "
            + "; ".join(f"{e:g}: {p:.4g} vs {m:.4g}" for e, p, _, _, m in n["by_epsilon"])
        ),
        applies=partial(_has_exponential_mechanism, sc=_sc),
    )(_measure)
    CLAIMS.paper(
        f"purification_noise_negligible{_s}",
        source=f"{PAPER}, Corollary 4, Sec. 2",
        statement="Purification with Corollary 4's parameters moves the output by E||x_pure - x_apx||_2 <= 1/(n^2 eps) "
        "+ C/n^2: negligible next to the upstream error",
        artifact=_label(_sc),
        reads=_reads,
        rule=f"holds if purification (Corollary 4's parameters) changes no run's excess risk by PURIFICATION_COST = "
        f"{PURIFICATION_COST:g} (our threshold) or more; fails otherwise",
        verdict=lambda n: holds_if(n["cost"] < PURIFICATION_COST),
        evidence=lambda n: (
            f"max over seeds and eps_tot of |excess(purified) - excess(before purification)| = {n['cost']:.3g}"
        ),
    )(partial(measure_cost, sc=_sc))
