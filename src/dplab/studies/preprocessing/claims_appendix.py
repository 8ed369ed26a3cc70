"""Claims of Hu, Sanyal, Schölkopf (2024) about the appendix's lemmas and theorems, decided by closed forms of
:mod:`dplab.theory.smooth_rdp` and by dp_accounting: Lemma 2, Remark 1, Lemma 3, eq. (18) (Theorem 13) and
Theorem 16's sample-size condition. No frame is read (``needs`` is empty)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.numerics import loglog_slope
from dplab.report.claims import ClaimRule, Numbers, differ, erratum_if, holds_if
from dplab.studies.preprocessing.claims_common import ERRATUM_RULE, artifact_path
from dplab.theory import smooth_rdp

__all__ = ["APPENDIX_RULES", "LEMMA2_CONSTANT", "REMARK1_EXPONENT"]

#: Lemma 2 (B = 1) "decreases by O(1/sqrt(n))": the paper's own k = sqrt(2n-3) gives eps'/eps <= 2 * 2/sqrt(n)
#: (Remark 1, step (b) of eq. (21)), so sqrt(n) eps'/eps <= 4 is the constant tested.
LEMMA2_CONSTANT = 4.0
#: Remark 1: "an extra n^{3/2} factor"; the fitted exponent must lie within this distance of 3/2.
REMARK1_EXPONENT, EXPONENT_TOLERANCE = 1.5, 0.05
_NS = (100, 1000, 10_000, 100_000)


# ---------------------------------------------------------------------------------------------------- Lemma 2


#: Exact check of Lemma 2 (B = 1): n points, scalar Gaussian mechanism f(x) = x with σ = 1 at α = 2, τ = 1, so
#: ε(α, τ) = ατ²/(2σ²) = 1/(α − 1), the largest the lemma allows; m points share the move τ.
_LEMMA2_EXACT = {"n": 20, "alpha": 2.0, "tau": 1.0, "sigma": 1.0, "movers": (1, 2, 5, 20)}


def _lemma2_exact() -> list[tuple[int, float, float]]:
    """(m, exact D_α of the one-point-sampled Gaussian mechanism on two datasets at d12 = τ whose m first points move
    by τ/m, Lemma 2's ε' at its best integer k)."""
    e = _LEMMA2_EXACT
    n, alpha, tau, sigma = e["n"], e["alpha"], e["tau"], e["sigma"]
    srdp = smooth_rdp.gaussian_mechanism(1.0, sensitivity=sigma).srdp
    bound = min(smooth_rdp.lemma2_subsampled_srdp(srdp, alpha, tau, n, 1, k) for k in range(1, n))
    rows = []
    for m in e["movers"]:
        moved = np.where(np.arange(n) < m, tau / m, 0.0)
        rows.append((m, smooth_rdp.gaussian_mixture_renyi(alpha, np.zeros(n), moved, sigma, 20_001), float(bound)))
    return rows


def measure_lemma2(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """ε'(α, τ)/ε(α, τ) of Lemma 2 with B = 1 for the Gaussian mechanism (SRDP ατ²ε²/2) at the integer k that
    minimises it (Remark 1's bracket), over n; and the exact divergence against Lemma 2 at a small n."""
    gaussian = smooth_rdp.gaussian_mechanism(1.0)
    rows = []
    for n in _NS:
        _, k = smooth_rdp.remark1_factor(n)
        amplified = smooth_rdp.lemma2_subsampled_srdp(gaussian.srdp, 2.0, 1.0, n, 1, int(k))
        rows.append((n, int(k), float(amplified / gaussian.srdp(2.0, 1.0))))
    return {"rows": rows, "exact": _lemma2_exact()}


def verdict_lemma2(numbers: Numbers) -> str:
    rate = all(math.sqrt(n) * r <= LEMMA2_CONSTANT for n, _, r in numbers["rows"])
    valid = all(exact <= bound for _, exact, bound in numbers["exact"])
    return holds_if(rate and valid)


def evidence_lemma2(numbers: Numbers) -> str:
    ns, ratios = zip(*[(n, r) for n, _, r in numbers["rows"]])
    e = _LEMMA2_EXACT
    return (
        "B = 1, Gaussian SRDP: "
        + "; ".join(f"n = {n}: best k = {k}, eps'/eps = {r:.4g}, sqrt(n) eps'/eps = {math.sqrt(n) * r:.3f}" for n, k, r in numbers["rows"])
        + f"; fitted exponent of eps'/eps in n: {loglog_slope(np.array(ns), np.array(ratios)):.3f}. Exact divergence "
        f"of the one-point-sampled Gaussian mechanism (n = {e['n']}, alpha = {e['alpha']:g}, tau = {e['tau']:g}, "
        f"sigma = {e['sigma']:g}) vs Lemma 2: "
        + "; ".join(f"{m} point(s) moved: {x:.4g} <= {b:.4g}" for m, x, b in numbers["exact"])
    )  # fmt: skip


# --------------------------------------------------------------------------------------------------- Remark 1


def measure_remark1(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """Eq. (21)'s bracket at the paper's k = √(2n−3) against its step (b) bound 2/√n, the integer minimum, and the
    exponent of the extra factor (eq. (21) over eq. (20) with γ = 1: 2·min_k bracket·n²) over n."""
    rows = []
    for n in _NS:
        paper, _ = smooth_rdp.remark1_factor(n, "paper_k")
        minimum, k = smooth_rdp.remark1_factor(n)
        rows.append((n, paper, 2 / math.sqrt(n), minimum, int(k)))
    ns = np.array([r[0] for r in rows], float)
    extra = np.array([2 * r[3] * r[0] ** 2 for r in rows])
    return {"rows": rows, "exponent": loglog_slope(ns, extra)}


def verdict_remark1(numbers: Numbers) -> str:
    if not all(paper <= bound for _, paper, bound, _, _ in numbers["rows"]):
        return "fails"
    return "holds" if abs(numbers["exponent"] - REMARK1_EXPONENT) <= EXPONENT_TOLERANCE else "partial"


def evidence_remark1(numbers: Numbers) -> str:
    return (
        "; ".join(
            f"n = {n}: bracket at k = sqrt(2n-3) {paper:.4g} <= 2/sqrt(n) {bound:.4g}; min over integers {m:.4g} (k = {k})"
            for n, paper, bound, m, k in numbers["rows"]
        )
        + f"; fitted exponent of the extra factor 2 min_k(bracket) n^2: {numbers['exponent']:.3f} (paper: 3/2)"
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------------- Lemma 3

_LEMMA3_POINT = {"alpha": 2.0, "tau": 1.0, "sigma": 1.0, "steps": 50, "first_differing": 1, "n": 100, "mu": 2.0}


def measure_lemma3(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    values = {v: smooth_rdp.lemma3_fgd_rdp(**_LEMMA3_POINT, variant=v) for v in ("as_printed", "proof", "exact_cni")}
    return {"printed": values["as_printed"], "corrected": values["proof"], "exact": values["exact_cni"]}


def evidence_lemma3(numbers: Numbers) -> str:
    return (
        "alpha = 2, tau = sigma = L = 1, mu = 2, n = 100, T = 50, first differing index 1: statement "
        f"2 alpha tau^2 L/(sigma^2 (n - t + 1)) = {numbers['printed']:.4g}; proof (eq. (27)) "
        f"2 alpha tau^2 mu^2/(sigma^2 (T - t + 1)) = {numbers['corrected']:.4g}; Lemma I with the exact Gaussian "
        f"divergence {numbers['exact']:.4g} (the statement is below even this: "
        f"{numbers['printed'] < numbers['exact']})"
    )


# ------------------------------------------------------------------------------------------ eq. (18), Thm 13

_EQ18 = {"n": 100, "steps": 1000, "eps": 0.1}


def measure_eq18(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """Theorem 13's RDP after T steps as printed (α²ε²/2), as step (b) of eq. (18) computes it (α²ε²), and by
    dp_accounting (add/remove and replace-one) at c = 2/(1 − 1/n), the smallest c for step (a) by Lemma G's leading
    term at every α ≥ 1, over the integer orders in Theorem 13's range."""
    n, steps, eps = _EQ18["n"], _EQ18["steps"], _EQ18["eps"]
    alpha_max = smooth_rdp.theorem13_alpha_max(eps, steps, n)
    orders = np.array([a for a in (2.0, 4.0, 8.0, 16.0, 32.0) if a <= alpha_max])
    c = 2 / (1 - 1 / n)
    accounted = {
        r: smooth_rdp.dp_sgd_sampling_rdp_dp_accounting(orders, eps, steps, n, c, r)
        for r in ("add_remove", "replace_one")
    }
    return {
        "orders": orders.tolist(), "alpha_max": alpha_max, "c": c,
        "printed": (steps * smooth_rdp.theorem13_step_rdp(orders, eps, steps)).tolist(),
        "step_b": (steps * smooth_rdp.theorem13_step_rdp(orders, eps, steps, "step_b")).tolist(),
        "accounted": {r: v.tolist() for r, v in accounted.items()},
    }  # fmt: skip


def verdict_eq18(numbers: Numbers) -> str:
    exceeded = [any(a > p for a, p in zip(v, numbers["printed"])) for v in numbers["accounted"].values()]
    return "erratum" if all(exceeded) else ("holds" if not any(exceeded) else "partial")


def evidence_eq18(numbers: Numbers) -> str:
    acc = numbers["accounted"]
    return (
        f"n = {_EQ18['n']}, T = {_EQ18['steps']}, eps = {_EQ18['eps']:g}, c = {numbers['c']:.4f} (Theorem 13's range "
        f"alpha <= {numbers['alpha_max']:.3g}). Step (b): c alpha^2 L^2/(n^2 sigma^2) = alpha^2 eps^2/T, twice the "
        "printed alpha^2 eps^2/(2T) (a factor-2 slip for every c; c is left unspecified, so the slip can be absorbed "
        "into c). RDP after T steps per alpha: "
        + "; ".join(
            f"alpha = {a:g}: printed {p:.4g}, step (b) {b:.4g}, dp_accounting add/remove {ar:.4g}, replace-one {ro:.4g}"
            for a, p, b, ar, ro in zip(numbers["orders"], numbers["printed"], numbers["step_b"], acc["add_remove"], acc["replace_one"])
        )
        + ". Printed RDP >= dp_accounting at every order: "
        + ", ".join(
            f"{relation.replace('_', '-').replace('add-remove', 'add/remove')} {all(a <= p for a, p in zip(v, numbers['printed']))}"
            for relation, v in acc.items()
        )
    )  # fmt: skip


# ------------------------------------------------------------------------------------ Theorem 16's condition

_THM16 = {"p": 10, "gap": 1.0, "alpha": 11.0, "eps": 1.0}


def _pca_cell_bounds_theorem2(n: int) -> tuple[float, float]:
    """(Table 2's Gaussian/PCA cell 1.05αε²(1 + 12.2²/δ²), Theorem 2 (p = q = 2) with the exact τ = 4(3n+2)/((n−1)δ)
    of Prop. 5) at n."""
    t = _THM16
    closed = float(smooth_rdp.table2_cell("gaussian", "pca_rank", t["alpha"], t["eps"], gap=t["gap"], n=n))
    tau = float(smooth_rdp.pca_tau(n, t["gap"]))
    return closed, float(smooth_rdp.theorem2_rdp(smooth_rdp.gaussian_mechanism(t["eps"]), t["alpha"], tau, 2.0))


def measure_theorem16(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """Smallest n each reading of Theorem 16's hypothesis admits (printed n ≥ min{101, p}; corrected
    n ≥ max{101, p + 1}) and the n in [printed, 2·101] where the PCA cell falls below Theorem 2."""
    p = _THM16["p"]
    printed_n, corrected_n = min(101, p), max(101, p + 1)
    below = [n for n in range(printed_n, 2 * 101) if (lambda v: v[0] < v[1])(_pca_cell_bounds_theorem2(n))]
    closed, generic = _pca_cell_bounds_theorem2(printed_n)
    return {"p": p, "printed_n": printed_n, "corrected_n": corrected_n, "below": below,
            "at_printed": (closed, generic), "at_corrected": _pca_cell_bounds_theorem2(corrected_n)}  # fmt: skip


def verdict_theorem16(numbers: Numbers) -> str:
    printed_fails = any(n >= numbers["printed_n"] for n in numbers["below"])
    corrected_fails = any(n >= numbers["corrected_n"] for n in numbers["below"])
    return "erratum" if printed_fails and not corrected_fails else ("fails" if corrected_fails else "holds")


def evidence_theorem16(numbers: Numbers) -> str:
    below = numbers["below"]
    span = f"n = {min(below)}..{max(below)}" if below else "no n"
    (c1, g1), (c2, g2) = numbers["at_printed"], numbers["at_corrected"]
    return (
        f"p = {numbers['p']}, delta_min = {_THM16['gap']:g}, alpha = 11, eps = 1: the printed n >= min{{101, p}} admits "
        f"n = {numbers['printed_n']}, where the Gaussian/PCA cell {c1:.5g} < Theorem 2 with the exact tau "
        f"{g1:.5g}; the cell is below Theorem 2 for {span} (Prop. 5's 12.2 needs n >= 101; mean imputation needs "
        f"n > p, and n = p is admitted when p <= 101); at the corrected n >= max{{101, p + 1}} = "
        f"{numbers['corrected_n']}: cell {c2:.5g} >= Theorem 2 {g2:.5g}"
    )


APPENDIX_RULES: tuple[ClaimRule, ...] = (
    ClaimRule(
        "lemma2_subsampling_amplification",
        "Sec. 3, Lemma 2",
        "Lemma 2 implies that the SRDP parameter decreases by O(1/sqrt(n)) when B = 1",
        artifact_path("table1", "tables"),
        (),
        f"holds if sqrt(n) eps'/eps <= {LEMMA2_CONSTANT:g} (the constant of the paper's own k = sqrt(2n-3)) at every "
        "n in {1e2, 1e3, 1e4, 1e5}, at the k that minimises eps'/eps, and the exact divergence is <= Lemma 2's "
        "eps' on every dataset pair checked; fails otherwise",
        measure_lemma2,
        verdict_lemma2,
        evidence_lemma2,
    ),
    ClaimRule(
        "remark1_extra_n_three_halves",
        "App. A, Remark 1, eq. (21)",
        "Without Definition 7 (Lemma 2 instead) the SRDP of DP-SGD gets an extra n^{3/2} factor",
        artifact_path("table1", "tables"),
        (),
        "holds if step (b)'s bracket <= 2/sqrt(n) at every n in {1e2, ..., 1e5} and the fitted exponent of the "
        f"minimised extra factor is within {EXPONENT_TOLERANCE:g} of 3/2; partial if the bound holds but the "
        "exponent differs (n^{3/2} is then an upper bound, not the rate); fails if the bound fails",
        measure_remark1,
        verdict_remark1,
        evidence_remark1,
    ),
    ClaimRule(
        "erratum_lemma3_statement",
        "App. A, Lemma 3 vs its proof (eq. (27))",
        "D_alpha(A_FGD^T(S) || A_FGD^T(S')) <= 2 alpha tau^2 L/(sigma^2 (n - t + 1)) (statement)",
        artifact_path("table1", "tables"),
        (),
        ERRATUM_RULE + " (printed: the statement; corrected: the proof's last line)",
        measure_lemma3,
        lambda numbers: erratum_if(differ(numbers["printed"], numbers["corrected"])),
        evidence_lemma3,
    ),
    ClaimRule(
        "eq18_dp_sgd_sampling_factor2",
        "App. A, Theorem 13, eq. (18)",
        "Each DP-SGD step with sigma = L sqrt(cT)/(eps n) is (alpha, alpha^2 eps^2/(2T))-RDP, so T steps are "
        "(alpha, alpha^2 eps^2/2)-RDP",
        artifact_path("table1", "tables"),
        (),
        "erratum if dp_accounting's RDP of the subsampled Gaussian exceeds the printed alpha^2 eps^2/2 at some order "
        "in Theorem 13's range under both add/remove and replace-one neighbours; holds if under neither; partial "
        "(ambiguous: it depends on the neighbouring relation) otherwise",
        measure_eq18,
        verdict_eq18,
        evidence_eq18,
    ),
    ClaimRule(
        "erratum_theorem16_sample_size",
        "App. C, Theorem 16",
        "Theorem 16 (Table 2) holds for n >= min{101, p}",
        artifact_path("table2", "tables"),
        (),
        "erratum if Table 2's Gaussian/PCA cell is below Theorem 2 (exact tau) at some n the printed condition admits "
        "and at none the corrected n >= max{101, p + 1} admits; fails if also below there; holds otherwise",
        measure_theorem16,
        verdict_theorem16,
        evidence_theorem16,
    ),
)
