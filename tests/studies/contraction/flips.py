"""Flip cases of the contraction claims (run by ``tests/studies/test_claim_flips.py``).

Claims decided by frames flip on frames a real run could produce: the study's own curves (``figure_curves``,
``laplace_curves``, ``regime_map``) at other positions or step sizes, or small tables with the real columns built by
hand. Claims decided by closed forms of the configuration alone flip on a change of the numbers measured on ``BASE``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from dplab.studies.contraction.curves import figure_curves, laplace_curves, regime_map

ROOT = Path(__file__).resolve().parents[3]
CONFIG = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["contraction"]
FIG2, FIG3, LAPLACE, REGIME = (CONFIG["figures"]["fig2"], CONFIG["figures"]["fig3"], CONFIG["laplace"],
                               CONFIG["regime"])  # fmt: skip
INF = math.inf


def with_config(**figures) -> dict:
    return {**CONFIG, "figures": {**CONFIG["figures"], **figures}}


def figures(fig2: dict = FIG2, fig3: dict = FIG3, swap2: bool = False, reverse2: bool = False) -> dict:
    """The closed-form curves of Figs. 2-3; ``swap2`` exchanges Fig. 2's methods, ``reverse2`` its users' order."""
    frame2 = figure_curves(fig2)
    if swap2:
        frame2 = frame2.assign(method=frame2["method"].map({"thm4": "prop1", "prop1": "thm4"}))
    if reverse2:
        frame2 = frame2.assign(i=frame2["i"].map(dict(zip(fig2["positions"], fig2["positions"][::-1], strict=True))))
    return {"fig2": frame2, "fig3": figure_curves(fig3)}


def laplace(lrs=None, leak: bool = False) -> dict:
    """Theorem 3's curves; ``leak`` makes user 20 (eta = 0.5) leak delta = 1e-3 above its threshold."""
    frame = laplace_curves({**LAPLACE, "lrs": lrs or LAPLACE["lrs"]})
    if leak:
        frame.loc[(frame["i"] == 20) & (frame["lr"] == 0.5) & (frame["epsilon"] >= 2.5), "delta"] = 1e-3
    return {"ext_laplace": frame}


def lemmas(error: float = 1e-10, exact_over_bound: float = 0.5, unconstrained: float = 1.0, squared=True) -> dict:
    """The ``ext_lemmas`` table with one row per check; ``squared`` puts the quadrature Renyi divergence on
    alpha Delta^2/(2 sigma^2) (else on the unsquared alpha Delta/(2 sigma^2) the paper prints)."""
    alpha, shift, scale = 2.0, 2.0, 1.0
    renyi = alpha * (shift**2 if squared else shift) / (2 * scale**2)
    rows = [
        {"check": "lemma1_laplace", "max_abs_error": error},
        {"check": "lemma2_gaussian", "max_abs_error": error},
        {"check": "theorem2_projected_gaussian", "max_abs_error": error, "epsilon": 1.0, "shift": 1.0,
         "closed_form": 0.1 * exact_over_bound, "paper_bound": 0.1},
        {"check": "unconstrained_gaussian_kernel", "max_abs_error": abs(1 - unconstrained), "epsilon": 0.0,
         "shift": 60.0, "closed_form": unconstrained},
        {"check": "renyi_gaussian", "order": alpha, "shift": shift, "scale": scale, "quadrature": renyi,
         "closed_form": alpha * shift**2 / (2 * scale**2)},
    ]  # fmt: skip
    return {"ext_lemmas": pd.DataFrame(rows)}


def audit(noise: str, excess: float = -0.01, mc_excess: float = -0.01, prop1_excess: float = -0.01) -> dict:
    """Audit rows at two users and three epsilons with grid delta, Monte-Carlo bound and Prop. 1 at fixed offsets
    from the theorem's bound."""
    eps = np.tile([0.0, 0.5, 1.0], 2)
    bound = np.array([0.4, 0.2, 0.1, 0.3, 0.1, 0.05])
    frame = pd.DataFrame({"config": "G1", "i": np.repeat([39, 40], 3), "epsilon": eps, "bound_theorem": bound})
    frame = frame.assign(delta_grid=bound + excess, mc_lower=bound + mc_excess, alpha=0.01)
    frame = frame.assign(delta_grid_mc_instance=frame["delta_grid"], bound_prop1=frame["delta_grid"] - prop1_excess)
    return {f"ext_audit_{noise}": frame}


def stopping(excess_i: float = -1e-3) -> dict:
    frame = pd.DataFrame({"i": [1, 40], "epsilon": [0.0, 0.0], "delta_grid": [0.015, 0.009], "bound_thm5": 0.0155})
    return {"ext_random_stopping": frame.assign(bound_thm5_i=frame["delta_grid"] - excess_i)}


def utility(cells) -> dict:
    """Gaussian cells (noise scale, excess risk, eps first, eps last), standard error 0.001; min risk 0.642 (trivial
    excess log 2 - 0.642 = 0.0511)."""
    frame = pd.DataFrame(cells, columns=["noise_scale", "excess_risk_mean", "epsilon_thm_first", "epsilon_thm_last"])
    frame = frame.assign(noise="gaussian", lr=0.5, min_risk=0.642, excess_risk_se=0.001)
    return {"ext_utility": frame.assign(epsilon_thm_middle=frame["epsilon_thm_first"])}


#: Closed-form claims measure on BASE (the Laplace kernel's row shares the ext_lemmas table with the Gaussian one).
BASE = (lemmas(), CONFIG)
SAME = lambda n: n  # noqa: E731  (the numbers measured on BASE: the paper's configuration)

#: claim id -> (case on which it holds, case on which it fails or is an erratum)
FLIPS = {
    "fig2_thm4_outperforms_prop1": ((figures(), CONFIG), (figures(swap2=True), CONFIG)),
    "fig2_especially_later_users": (  # with the last user added the gap shrinks (no contraction step after i = n)
        (figures(), CONFIG),
        (figures(fig2={**FIG2, "positions": [39, 40]}), with_config(fig2={**FIG2, "positions": [39, 40]})),
    ),
    "fig3_small_eps_and_late_users": ((figures(), CONFIG), (figures(fig3={**FIG3, "positions": [20, 30]}), CONFIG)),
    "earlier_users_more_private": ((figures(), CONFIG), (figures(reverse2=True), CONFIG)),
    "thm3_pure_dp_threshold": ((laplace(), CONFIG), (laplace(leak=True), CONFIG)),
    "erratum_thm3_corollary_i_equals_n": ((laplace(lrs=[0.5]), CONFIG), (laplace(), CONFIG)),
    "lemma1_laplace_hockey_stick": ((lemmas(), CONFIG), (lemmas(error=1e-5), CONFIG)),
    "lemma2_gaussian_hockey_stick": ((lemmas(), CONFIG), (lemmas(error=1e-5), CONFIG)),
    "theorem2_contraction_coefficient": ((lemmas(), CONFIG), (lemmas(exact_over_bound=1.01), CONFIG)),
    "eq20_laplace_contraction_coefficient": (SAME, lambda n: {**n, "below": len(n["cases"]) - 1}),
    "unconstrained_kernel_no_contraction": ((lemmas(), CONFIG), (lemmas(unconstrained=0.999), CONFIG)),
    "unconstrained_laplace_kernel_no_contraction": (SAME, lambda n: {**n, "laplace": {0.0: [0.39, 0.99, 0.999]}}),
    "lemma4_gradient_step_modulus": (SAME, lambda n: {**n, "inside_violations": 1}),
    "prop1_rdp_to_dp_minimum": (SAME, lambda n: {**n, "worst_gap": 1e-3}),
    "erratum_eq3_missing_square": ((lemmas(squared=False), CONFIG), (lemmas(), CONFIG)),
    "thm4_audit": ((audit("gaussian"), CONFIG), (audit("gaussian", mc_excess=0.01), CONFIG)),
    "prop1_audit": ((audit("gaussian"), CONFIG), (audit("gaussian", prop1_excess=0.01), CONFIG)),
    "thm3_audit": ((audit("laplace"), CONFIG), (audit("laplace", excess=0.01), CONFIG)),
    "thm5_random_stopping": ((stopping(), CONFIG), (stopping(excess_i=1e-3), CONFIG)),
    "thm5_random_stopping_any_sigma": (
        SAME,
        lambda n: {**n, "rows": [*n["rows"], (3.0, -0.01, 1e-3, 1, 0, 0.1, 0.09)]},
    ),
    "thm4_audit_strongly_convex": (SAME, lambda n: {**n, "worst": 1e-3}),
    "thm3_audit_strongly_convex": (SAME, lambda n: {**n, "worst": 1e-3}),
    "regime_thm4_vs_prop1": (  # a sweep to D = 1 never crosses; users 1 and 20 both cross from D = 2.86 and 2.41
        ({"ext_regime": regime_map({**REGIME, "diameter_max": 1.0, "n_diameter": 5})}, CONFIG),
        ({"ext_regime": regime_map({**REGIME, "positions": [1, 20], "n_diameter": 20})}, CONFIG),
    ),
    "utility_privacy_tradeoff": (
        (utility([(0.3, 0.02, 1.0, 49.9)]), CONFIG),
        (utility([(0.1, 0.004, INF, INF), (1.0, 0.07, 10.0, 10.0)]), CONFIG),
    ),
    "erratum_prop1_proof_baseline": (lambda n: {**n, "used": n["feldman"]}, SAME),
    "erratum_prop1_appendix_kappa": (lambda n: {**n, "appendix": n["main"], "appendix_last": n["main_last"]}, SAME),
    "erratum_fig3_rho_exceeds_beta": (lambda n: {**n, "rho": n["beta"]}, SAME),
    "erratum_fig1_caption_index": (lambda n: {**n, "printed_kernels": n["output_kernels"]}, SAME),
    "erratum_lemma4_codomain": (lambda n: {**n, "printed_outputs": n["needed_outputs"]}, SAME),
}
