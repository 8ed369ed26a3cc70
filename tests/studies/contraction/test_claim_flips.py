"""Every contraction verdict flips on a small input built here: frames (with the study configuration) on which it
holds or is an erratum, and modified ones on which it does not; for claims decided by closed forms alone (no frame),
a change of the measured numbers.

``test_every_verdict_has_a_flip_test`` keeps it so: a rule added to ``RULES`` without a flip case fails it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dplab.report.claims import VERDICTS
from dplab.studies.contraction.claims import RULES
from dplab.studies.contraction.curves import figure_curves, laplace_curves

ROOT = Path(__file__).resolve().parents[3]
CONFIG = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["contraction"]
RULE = {rule.claim_id: rule for rule in RULES}
FIG2, FIG3, LAPLACE = CONFIG["figures"]["fig2"], CONFIG["figures"]["fig3"], CONFIG["laplace"]


def with_config(**figures) -> dict:
    return {**CONFIG, "figures": {**CONFIG["figures"], **figures}}


# --------------------------------------------------------------------------------------------- frame builders


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


def regime(crossing: float = math.nan) -> dict:
    rows = [(i, m, e) for i in (1, 40) for m, e in (("thm4", 0.5), ("prop1", 0.8))]
    frame = pd.DataFrame(rows, columns=["i", "method", "epsilon"]).assign(delta=1e-5)
    return {"ext_regime": frame.assign(thm4_worse_from_diameter=np.where(frame["i"] == 1, crossing, math.nan))}


def utility(cells) -> dict:
    """Gaussian cells (noise scale, excess risk, eps first, eps last); min risk 0.642 (trivial excess 0.0511)."""
    frame = pd.DataFrame(cells, columns=["noise_scale", "excess_risk_mean", "epsilon_thm_first", "epsilon_thm_last"])
    frame = frame.assign(noise="gaussian", lr=0.5, min_risk=0.642, epsilon_thm_middle=frame["epsilon_thm_first"])
    return {"ext_utility": frame}


INF = math.inf

#: claim id -> ((frames, config) on which it holds or is an erratum, (frames, config) on which it does not)
FRAME_FLIPS = {
    "fig2_thm4_outperforms_prop1": ((figures(), CONFIG), (figures(swap2=True), CONFIG)),
    "fig2_especially_later_users": (
        (figures(), CONFIG),
        (figures(fig2={**FIG2, "positions": [39, 40]}), with_config(fig2={**FIG2, "positions": [39, 40]})),
    ),
    "fig3_small_eps_and_late_users": ((figures(), CONFIG), (figures(fig3={**FIG3, "positions": [20, 30]}), CONFIG)),
    "earlier_users_more_private": ((figures(), CONFIG), (figures(reverse2=True), CONFIG)),
    "thm3_pure_dp_threshold": ((laplace(), CONFIG), (laplace(leak=True), CONFIG)),
    "erratum_thm3_corollary_i_equals_n": ((laplace(), CONFIG), (laplace(lrs=[0.5]), CONFIG)),
    "lemma1_laplace_hockey_stick": ((lemmas(), CONFIG), (lemmas(error=1e-5), CONFIG)),
    "lemma2_gaussian_hockey_stick": ((lemmas(), CONFIG), (lemmas(error=1e-5), CONFIG)),
    "theorem2_contraction_coefficient": ((lemmas(), CONFIG), (lemmas(exact_over_bound=1.01), CONFIG)),
    "unconstrained_kernel_no_contraction": ((lemmas(), CONFIG), (lemmas(unconstrained=0.999), CONFIG)),
    "erratum_eq3_missing_square": ((lemmas(), CONFIG), (lemmas(squared=False), CONFIG)),
    "thm4_audit": ((audit("gaussian"), CONFIG), (audit("gaussian", mc_excess=0.01), CONFIG)),
    "prop1_audit": ((audit("gaussian"), CONFIG), (audit("gaussian", prop1_excess=0.01), CONFIG)),
    "thm3_audit": ((audit("laplace"), CONFIG), (audit("laplace", excess=0.01), CONFIG)),
    "thm5_random_stopping": ((stopping(), CONFIG), (stopping(excess_i=1e-3), CONFIG)),
    "regime_thm4_vs_prop1": ((regime(), CONFIG), (regime(crossing=2.86), CONFIG)),
    "utility_privacy_tradeoff": (
        (utility([(0.3, 0.02, 1.0, 49.9)]), CONFIG),
        (utility([(0.1, 0.004, INF, INF), (3.0, 0.097, 0.0, 2.75)]), CONFIG),
    ),
}

#: claims decided by closed forms alone (no frame): a change of the measured numbers that flips the verdict
NUMBER_FLIPS = {
    "unconstrained_laplace_kernel_no_contraction": lambda n: {**n, "values": [(0.0, 0.99)]},
    "lemma4_gradient_step_modulus": lambda n: {**n, "inside_violations": 1},
    "eq20_laplace_contraction_coefficient": lambda n: {**n, "cases": [*n["cases"], (1.0, 1.0, 1.0, 0.2, 0.1)]},
    "thm5_random_stopping_any_sigma": lambda n: {**n, "rows": [*n["rows"], (3.0, -0.01, 1e-3, 1, 0.0, 0.1, 0.09)]},
    "prop1_rdp_to_dp_minimum": lambda n: {**n, "cases": [("fig2", 1, 1.0, 0.5, -0.125, -0.124, 1.5)]},
    "thm4_audit_strongly_convex": lambda n: {**n, "rows": [(39, 1e-3, -0.1, 1.01)]},
    "thm3_audit_strongly_convex": lambda n: {**n, "rows": [(39, 1e-3, math.nan, 1.01)]},
    "erratum_prop1_proof_baseline": lambda n: {**n, "used": n["feldman"]},
    "erratum_prop1_appendix_kappa": lambda n: {**n, "appendix": n["main"], "appendix_last": n["main_last"]},
    "erratum_fig3_rho_exceeds_beta": lambda n: {**n, "rho": n["beta"]},
    "erratum_fig1_caption_index": lambda n: {**n, "printed_kernels": n["output_kernels"]},
    "erratum_lemma4_codomain": lambda n: {**n, "printed_outputs": n["needed_outputs"]},
}


@pytest.mark.parametrize("claim_id", sorted(FRAME_FLIPS))
def test_verdict_flips_on_a_modified_frame(claim_id):
    (good, good_config), (bad, bad_config) = FRAME_FLIPS[claim_id]
    before = RULE[claim_id].decide(good, good_config).verdict
    after = RULE[claim_id].decide(bad, bad_config).verdict
    assert before in ("holds", "erratum") and after != before and after in VERDICTS


@pytest.mark.parametrize("claim_id", sorted(NUMBER_FLIPS))
def test_verdict_flips_on_modified_numbers(claim_id):
    rule = RULE[claim_id]
    assert rule.needs == ()
    numbers = rule.measure({}, CONFIG)
    before, after = rule.verdict(numbers), rule.verdict(NUMBER_FLIPS[claim_id](numbers))
    assert before in ("holds", "erratum") and after != before and after in VERDICTS


def test_every_verdict_has_a_flip_test():
    untested = set(RULE) - set(FRAME_FLIPS) - set(NUMBER_FLIPS)
    assert not untested, f"verdicts without a flip test: {sorted(untested)}"
    assert not (set(FRAME_FLIPS) | set(NUMBER_FLIPS)) - set(RULE), "flip tests of claims that no longer exist"


def test_every_row_states_its_decision_rule():
    for rule in RULES:
        frames, config = FRAME_FLIPS.get(rule.claim_id, (({}, CONFIG),))[0]
        assert "Decision rule: " in rule.decide(frames, config).evidence


def test_erratum_rows_show_the_printed_and_the_correct_value():
    """Each erratum's evidence carries both values it compares (as the measure returns them)."""
    claim = RULE["erratum_prop1_appendix_kappa"].decide({}, CONFIG)
    assert "0.0128205 (main text, with 1/sigma^2) vs 0.0512821 (appendix)" in claim.evidence  # 2/(39*4) vs 2/39
    claim = RULE["erratum_prop1_proof_baseline"].decide({}, CONFIG)
    assert "kappa used 1.520000 vs Feldman 2.000000" in claim.evidence  # 2 M^2/sigma^2 with M^2 = 0.76


def test_lemma4_row_holds_inside_the_range_and_reports_the_failures_outside():
    """Inside eta < 2/(beta + rho) M bounds max |1 - eta lambda| at all 64 points (equal to it at the 16 with
    rho = 0); past the limit it bounds it nowhere: at 1.01 x the limit already, M < exact for rho > 0 (the identity
    M^2 - (1 - eta rho)^2 = eta rho^2 (2/(beta + rho) - eta) < 0) and for rho = 0 (M = 1 < eta beta - 1 = 1.02)."""
    rule = RULE["lemma4_gradient_step_modulus"]
    numbers = rule.measure({}, CONFIG)
    assert (numbers["inside"], numbers["inside_violations"], numbers["tight"], numbers["tight_rho_zero"]) == (
        64,
        0,
        16,
        16,
    )
    assert numbers["outside_violations"] == numbers["outside"] == 48
    assert numbers["outside_worst"][3] == 1.01
    assert rule.verdict(numbers) == "holds"


def test_unconstrained_laplace_kernel_reaches_one():
    """Lemma 1 at v = 1: 1 - exp(eps/2 - D/2); at D = 60, 1 - e^-30 = 1 - 9.4e-14 (eps = 0)."""
    numbers = RULE["unconstrained_laplace_kernel_no_contraction"].measure({}, CONFIG)
    assert numbers["path"][0.0][0] == pytest.approx(1 - math.exp(-0.5), rel=1e-12)
    assert numbers["values"][0][1] == pytest.approx(1 - math.exp(-30.0), rel=1e-15)


def test_strongly_convex_audit_uses_a_realisable_loss_with_the_fig3_modulus():
    """c = (1 - M^2)/eta = 0.24/0.7 keeps M = sqrt(0.76); records |x| <= 1 - c/2 keep the gradient within L = 1."""
    from dplab.studies.contraction.claims_audit import strongly_convex_audit_setting

    setting = strongly_convex_audit_setting(FIG3)
    assert setting["curvature"] == pytest.approx(0.24 / 0.7, rel=1e-12)
    assert setting["M"] == pytest.approx(math.sqrt(1 - 0.7 * setting["curvature"]), rel=1e-12)
    assert setting["record_bound"] == pytest.approx(1 - 0.12 / 0.7, rel=1e-12)


def test_eq20_bound_is_attained_by_the_projected_laplace_kernel():
    """With both means in [0, D] the optimal event of E_gamma is [0, t*], t* = (y1 + y2 - eta v eps)/2 inside, so the
    projection changes nothing: the sup over start pairs (at y1 = 0, y2 = D) is Lemma 1 at gap D, eq. (20)'s bound
    with M = 1, at every grid point (0 where eps >= D/(eta v))."""
    numbers = RULE["eq20_laplace_contraction_coefficient"].measure({}, CONFIG)
    assert len(numbers["cases"]) == 36
    for eps, diameter, scale, exact, bound in numbers["cases"]:
        assert exact == pytest.approx(bound, abs=1e-12)
        assert (bound == 0.0) == (eps >= diameter / scale)
