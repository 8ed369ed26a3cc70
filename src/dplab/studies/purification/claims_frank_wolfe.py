"""Claims of Lin et al. (2025) on the purified DP Frank-Wolfe method (Theorem 4, Algorithm 7, the purification
term of eq. (15)), decided by ``ext_frank_wolfe``."""

from __future__ import annotations

import math

import pandas as pd

from dplab.numerics import loglog_slope
from dplab.report.claims import RELATIVE_TOLERANCE, Numbers, clearly_greater, clearly_less, differ, erratum_if, exceeds
from dplab.studies.purification.claims_common import CLAIMS, PAPER, Config, Frames, mean_sem
from dplab.theory.frank_wolfe import purification_term_as_printed, purification_term_corrected

__all__ = ["RATE_EXPONENT", "RATE_SLOPE_TOLERANCE"]

#: Theorem 4: E excess <= O~((L1 beta ||C||_1^3)^(1/2) / (n eps)^(1/2)), exponent -1/2 in n eps.
RATE_EXPONENT = -0.5
#: Our threshold: the logs the O~ hides move the slope by the explicit bound's slope (printed in the evidence); 0.2
#: also covers the Monte-Carlo error of a slope fitted to means over a few runs.
RATE_SLOPE_TOLERANCE = 0.2
_KEYS = ["d", "n_eps"]


def _cells(frame: pd.DataFrame, method: str, column: str = "excess_risk") -> pd.DataFrame:
    """Mean and standard error of ``column`` over the runs of ``method``, per (d, n eps_tot)."""
    part = frame[frame["method"] == method].assign(n_eps=lambda f: f["n"] * f["epsilon_total"])
    return mean_sem(part, _KEYS, column)


def _slopes(means: pd.Series) -> dict[int, float]:
    return {int(d): loglog_slope(s.index.get_level_values("n_eps"), s.to_numpy()) for d, s in means.groupby(level="d")}


def _span(values: list[float]) -> str:
    return f"{max(values):.3g} down to {min(values):.3g}"


def _verdict_rate(n: Numbers) -> str:
    if n["above_explicit"]:
        return "fails"
    if all(s <= RATE_EXPONENT + RATE_SLOPE_TOLERANCE for s in n["slopes"].values()) and all(n["learns_at_largest"]):
        return "holds"
    return "not_tested" if n["vacuous"] == len(n["cells"]) else "partial"


@CLAIMS.paper(
    "thm4_purified_frank_wolfe",
    source=f"{PAPER}, Sec. 4.2, Theorem 4, Algorithm 7",
    statement="Algorithm 7 'satisfies 2eps-pure differential privacy and achieves' excess risk O~(L1^(1/2) "
    "beta^(1/2) ||C||_1^(3/2)/(n eps)^(1/2))",
    artifact="ext_frank_wolfe",
    reads=("ext_frank_wolfe",),
    rule="fails if a cell's mean excess risk is clearly above (2 standard errors) the explicit bound (Lemma 28 + eq. "
    "(15), our reading: every constant 1); holds if at every d the log-log slope against n eps_tot is at most "
    f"{RATE_EXPONENT:g} + {RATE_SLOPE_TOLERANCE:g} (our threshold) and at the largest n eps the risk is clearly below "
    "theta = 0's; not_tested if neither and the explicit bound exceeds theta = 0's risk in every cell (vacuous); "
    "partial otherwise",
    verdict=_verdict_rate,
    evidence=lambda n: (
        f"purified risk {min(v / z for *_, v, z in n['cells']):.2f}-{max(v / z for *_, v, z in n['cells']):.2f}x "
        f"that of theta = 0 in every (d, n eps) cell, slopes {', '.join(f'{s:.2f}' for s in n['slopes'].values())} "
        f"(stated {RATE_EXPONENT:g}); the explicit bound exceeds theta = 0's risk in {n['vacuous']} of "
        f"{len(n['cells'])} cells and is clearly exceeded in {n['above_explicit']} cells. Fitted slopes of the mean excess risk "
        f"(over {n['runs']} runs) against n eps_tot: "
        + "; ".join(
            f"d = {d}: purified {s:.2f}, Algorithm 6 at delta = 1/n^2 {n['slopes_reference'][d]:.2f}, explicit bound "
            f"{n['slopes_explicit'][d]:.2f}"
            for d, s in n["slopes"].items()
        )
        + "; purified mean excess risk by cell (x theta = 0; explicit bound): "
        + ", ".join(f"d={d}, n eps={ne:g}: {v:.4f} ({v / z:.2f}x; {b:.3g})" for d, ne, b, v, z in n["cells"])
        + f"; Algorithm 6's Laplace scale per vertex score at the purification delta {_span(n['scales'])} (at delta = "
        f"1/n^2: {_span(n['scales_reference'])}) against a spread of the 2d vertex scores at theta_0 = 0 of "
        f"{_span(n['spread'])}: the exponential mechanism picks vertices nearly at random at these n. 2eps-pure DP is "
        "not measured here (it follows from Theorem 1, audited in thm1_purification_is_pure_dp, and post-processing)"
    ),
)
def measure_theorem4_rate(frames: Frames, config: Config) -> Numbers:
    frame = frames["ext_frank_wolfe"]
    purified, zero = _cells(frame, "purified_fw"), _cells(frame, "purified_fw", "zero_excess_risk")
    bound = (
        _cells(frame, "purified_fw", "lemma28_bound")["mean"]
        + _cells(frame, "purified_fw", "purification_bound_printed")["mean"]
    )
    mean, sem, largest = purified["mean"], purified["sem"], purified.groupby(level="d").tail(1).index
    return {
        "slopes": _slopes(mean),
        "slopes_reference": _slopes(_cells(frame, "dp_fw_reference")["mean"]),
        "slopes_explicit": _slopes(bound),
        "above_explicit": sum(clearly_greater(m, s, b, 0.0) for m, s, b in zip(mean, sem, bound)),
        "vacuous": int((bound > zero["mean"]).sum()),
        "learns_at_largest": [clearly_less(mean[i], sem[i], zero["mean"][i], zero["sem"][i]) for i in largest],
        "scales": _cells(frame, "dp_fw_before_purification", "laplace_scale")["mean"].tolist(),
        "scales_reference": _cells(frame, "dp_fw_reference", "laplace_scale")["mean"].tolist(),
        "spread": _cells(frame, "purified_fw", "score_spread_at_zero")["mean"].tolist(),
        "cells": [(int(d), float(ne), b, v, z) for (d, ne), v, z, b in zip(mean.index, mean, zero["mean"], bound)],
        "runs": int(frame["replicate"].max()) + 1,
    }


def _recovery_by_point(success: pd.DataFrame) -> list[tuple]:
    """Per (d, n): mean recovery error, Lemma 46's bound, runs above it, mean nnz(theta_FW), k, T."""
    above = success["recovery_l1_error"] > success["lemma46_bound"]
    how = {"recovery_l1_error": "mean", "lemma46_bound": "first", "above": "sum", "fw_sparsity": "mean"}
    table = success.assign(above=above).groupby(["d", "n"]).agg({**how, "sketch_dim": "first", "steps": "first"})
    return [(int(d), int(n), r, b, int(a), s, int(k), int(t)) for (d, n), (r, b, a, s, k, t) in table.iterrows()]


@CLAIMS.paper(
    "thm4_purification_term",
    source=f"{PAPER}, App. I.3, proof of Theorem 4, eq. (15)",
    statement="Under the success event F1^c, F2^c, F3^c, L(theta_out) - L(theta_FW) <= (64/sqrt 3) L1 ||C||_1 (k + "
    "log n)/(n eps)",
    artifact="ext_frank_wolfe",
    reads=("ext_frank_wolfe",),
    rule="holds if some purified run is in the observable success event (no mixing visible: ||z||_1 <= xi, no l2 "
    "clip) and in none of them does L(theta_out) - L(theta_FW) exceed the printed bound; fails otherwise "
    "(F2, the RWC property of Phi, cannot be observed; the recovery error against Lemma 46 is reported)",
    verdict=lambda n: "holds" if n["success"] > 0 and n["above"] == 0 else "fails",
    evidence=lambda n: (
        f"L(theta_out) - L(theta_FW) exceeds the printed bound in {n['above']} of the {n['success']} (of {n['runs']}) "
        f"purified runs in the observable success event, largest ratio {n['max_ratio']:.3g}"
        + (f" (n = {n['worst'][0]}: {n['worst'][1]:.3g} vs {n['worst'][2]:.3g})" if n["worst"] else "")
        + ". Success event: Laplace noise ||z||_1 <= xi of eq. (14), no l2 clipping; bound (64/sqrt 3) L1 ||C||_1 "
        "(k + log n)/(n eps); recovery error ||theta_pure-d - theta_FW||_1 (mean) against Lemma 46's 4 sqrt(T) xi/"
        "sqrt(1 - e): "
        + ", ".join(
            f"d={d}, n={m} (T={t}, k={k}, mean nnz(theta_FW) {s:.1f}): {r:.3g} vs Lemma 46's {b:.3g}, above in {a}"
            for d, m, r, b, a, s, k, t in n["recovery"]
        )
        + " (runs above Lemma 46 witness a sketch that is not (4T, 1/4)-RWC, event F_2, at k's constant 1)"
    ),
)
def measure_purification_term(frames: Frames, config: Config) -> Numbers:
    runs = frames["ext_frank_wolfe"][frames["ext_frank_wolfe"]["method"] == "purified_fw"]
    success = runs[runs["within_tolerance"].astype(bool) & ~runs["clip_active"].astype(bool)]
    ratio = success["loss_gap"] / success["purification_bound_printed"]
    worst = success.loc[ratio.idxmax()] if len(success) else None
    return {
        "runs": len(runs),
        "success": len(success),
        "above": int((ratio > 1).sum()),
        "max_ratio": float(ratio.max()) if len(success) else math.nan,
        "worst": None
        if worst is None
        else (int(worst["n"]), float(worst["loss_gap"]), float(worst["purification_bound_printed"])),
        "recovery": _recovery_by_point(success),
    }


@CLAIMS.erratum(
    "erratum_thm4_purification_constant",
    source=f"{PAPER}, App. I.3, proof of Theorem 4, eq. (15), last inequality",
    statement="L1 (4 sqrt(T)/sqrt(1 - e)) xi <= (64/sqrt 3) L1 ||C||_1 (k + log n)/(n eps)",
    artifact="ext_frank_wolfe",
    rule="erratum while eq. (15)'s middle line (eq. (14)'s xi, e = 1/4) differs from its printed last line (relative "
    f"tolerance {RELATIVE_TOLERANCE:g}) at Algorithm 7's check point (n = 1e4, d = 1000, eps = 1: T = 100, k = 240, "
    "the constants of T and k set to 1), holds once they agree; severity false if the middle line is the larger",
    verdict=lambda n: erratum_if(differ(n["corrected"], n["printed"])),
    evidence=lambda n: (
        f"middle line {n['corrected']:.6g} > printed last line {n['printed']:.6g} (ratio {n['corrected'] / n['printed']:.3f}"
        f" = 4 sqrt(T/k)) at n = {n['n']:g}, T = {n['steps']}, k = {n['k']} (eps = L1 = ||C||_1 = 1). The middle line "
        "L1 4 sqrt(T) xi/sqrt(1 - e) with e = 1/4, xi = 4 Delta (k + log n)/eps, Delta = 8/(n sqrt k) equals "
        "(256/sqrt 3) sqrt(T/k) (k + log n)/(n eps); the printed step needs k >= 16 T, which k = Theta(T log(d/T) + "
        "log n) gives only with a constant >= 16/log(d/T)"
    ),
    severity=lambda n: "false" if exceeds(n["corrected"], n["printed"]) else "loose",
    consequence="Theorem 4's rate unchanged: sqrt(T/k)(k + log n) = O~(T) for k = Theta(T log(d/T) + log n), so the "
    "term is O~(L1 ||C||_1 T/(n eps)), the form the proof's next step uses",
)
def measure_purification_constant(frames: Frames, config: Config) -> Numbers:
    """Eq. (15) at the check point of Algorithm 7 (n = 1e4, d = 1000, eps = 1: T = 100, k = 240), L1 = ||C||_1 = 1."""
    n, k, steps = 10**4, 240, 100
    printed, corrected = purification_term_as_printed(n, k, 1, 1, 1), purification_term_corrected(n, k, steps, 1, 1, 1)
    return {"n": n, "k": k, "steps": steps, "printed": printed, "corrected": corrected}
