"""Verdicts follow the numbers: the contraction claims on the paper's parameters, with the values that decide them."""

import importlib.util
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dplab.report.claims import CLAIM_COLUMNS
from dplab.studies.contraction.claims import RULES, build_claims
from dplab.studies.contraction.claims_figures import epsilon_gaps
from dplab.studies.contraction.curves import figure_curves, laplace_curves, regime_map

ROOT = Path(__file__).resolve().parents[3]
_SPEC = importlib.util.spec_from_file_location("_contraction_flips", Path(__file__).with_name("flips.py"))
FLIPS = importlib.util.module_from_spec(_SPEC)  # the flip cases' frame builders (flips.py is not a test module)
_SPEC.loader.exec_module(FLIPS)
CONFIG = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["contraction"]
RULE = {rule.claim_id: rule for rule in RULES}
FIG2 = CONFIG["figures"]["fig2"]


def decide(claim_id, frames, config=CONFIG):
    return RULE[claim_id].decide(frames, config)


def test_thm3_corollary_erratum_found_from_data():
    frames = {"ext_laplace": laplace_curves(CONFIG["laplace"])}
    assert decide("thm3_pure_dp_threshold", frames).verdict == "holds"
    erratum = decide("erratum_thm3_corollary_i_equals_n", frames)
    assert erratum.verdict == "erratum"
    assert "eta=1, i=40: eps=1 >= printed threshold 1 but Theorem 3 gives delta=0.3934693" in erratum.evidence
    # 1 - exp(1/2 - 1), Lemma 1


def test_regime_claim_is_partial_when_theorem4_loses_on_large_domains():
    """Our extension: users 1, 20, 30 lose from D = 2.86, 2.41, 2.05 (eta sigma = 1); users 39 and 40 never do."""
    claim = decide("regime_thm4_vs_prop1", {"ext_regime": regime_map(CONFIG["regime"])})
    assert (claim.verdict, claim.kind) == ("partial", "extension")
    assert claim.evidence.startswith("Theorem 4 certifies a larger epsilon than Prop. 1 from some D on for 3 of 4 ")
    assert "from D = 2.8563" in claim.evidence
    small = regime_map({**CONFIG["regime"], "diameter_max": 1.0, "n_diameter": 5})
    assert decide("regime_thm4_vs_prop1", {"ext_regime": small}).verdict == "holds"


def test_claim_frames_are_contract_shaped():
    claims = build_claims({"fig2": figure_curves(FIG2)}, CONFIG)
    frame = pd.DataFrame([c.__dict__ for c in claims])
    assert list(frame.columns) == list(CLAIM_COLUMNS)
    assert "fig2_thm4_outperforms_prop1" in set(frame["claim_id"]) and "fig3_small_eps_and_late_users" not in set(
        frame["claim_id"]
    )  # a rule is built only when its frames are present


def test_later_users_judged_by_epsilon_gap_at_fixed_delta():
    """Paper parameters: the epsilon gap grows with i (0.781, 1.098, 2.545 at delta = 1e-5) while the ratio of
    deltas at eps = 1 shrinks; the epsilon reading decides: holds. At i = 1 Theorem 4 needs eps = 0 (delta(0) =
    2.1e-17), so the gap is Prop. 1's closed form kappa + 2 sqrt(kappa log(1/delta)), kappa = 2L^2/((n-1) sigma^2)."""
    claim = decide("fig2_especially_later_users", {"fig2": figure_curves(FIG2)})
    assert claim.verdict == "holds"
    assert "delta=1e-05: i=1 0.781, i=20 1.098, i=39 2.545 (grows)" in claim.evidence
    assert "ratio of deltas Prop1/Thm4 at eps = 1 shrinks" in claim.evidence
    gap_1 = dict(epsilon_gaps(FIG2, (1e-5,))[1e-5])[1]
    kappa = 2 * FIG2["L"] ** 2 / ((FIG2["n"] - 1) * FIG2["sigma"] ** 2)  # M = 1 for rho = 0
    assert gap_1 == pytest.approx(kappa + 2 * math.sqrt(kappa * math.log(1e5)), rel=1e-12)


def test_later_users_flip_when_the_last_user_is_added():
    """Users 39 and 40: the gap shrinks from 2.545 to 0.921 at delta = 1e-5 (the last user gets no contraction)."""
    curve = {**FIG2, "positions": [39, 40]}
    config = {**CONFIG, "figures": {**CONFIG["figures"], "fig2": curve}}
    assert decide("fig2_especially_later_users", {"fig2": figure_curves(curve)}, config).verdict == "fails"


def test_fig3_crossings_are_the_exact_roots():
    """Theorem 4 = Prop. 1 at eps = 0.784 (i = 20) and 2.681 (i = 30): the first grid points past them are 0.79 and
    2.69; i = 39 never crosses."""
    claim = decide("fig3_small_eps_and_late_users", {"fig3": figure_curves(CONFIG["figures"]["fig3"])})
    assert claim.verdict == "holds"
    assert "i=20: Thm4<=Prop1 for eps<=0.25: True, first eps where Prop1<Thm4: 0.790 (exact 0.784)" in claim.evidence
    assert "i=30: Thm4<=Prop1 for eps<=0.25: True, first eps where Prop1<Thm4: 2.690 (exact 2.681)" in claim.evidence
    assert "i=39: Thm4<=Prop1 for eps<=0.25: True, first eps where Prop1<Thm4: none" in claim.evidence


def _utility(rows):
    return pd.DataFrame(
        [
            {
                "noise": "gaussian",
                "lr": 0.5,
                "noise_scale": s,
                "min_risk": 0.642,
                "excess_risk_mean": r,
                "excess_risk_se": 0.001,
                "epsilon_thm_first": f,
                "epsilon_thm_middle": f,
                "epsilon_thm_last": last,
            }
            for s, r, f, last in rows
        ]
    )


def test_utility_claim_needs_amplification_where_the_model_is_useful():
    """Trivial predictor w = 0 has excess log 2 - 0.642 = 0.0511: amplification only at excess 0.097 is partial,
    at excess 0.02 holds, nowhere fails; an infinite epsilon is never 'amplified'."""
    inf = float("inf")

    def verdict(rows):
        return decide("utility_privacy_tradeoff", {"ext_utility": _utility(rows)}).verdict

    assert verdict([(0.1, 0.004, inf, inf), (3.0, 0.097, 0.0, 2.75)]) == "partial"
    assert verdict([(0.3, 0.02, 1.0, 49.9)]) == "holds"
    assert verdict([(0.1, 0.004, inf, inf), (1.0, 0.07, 10.0, 10.0)]) == "fails"


def test_utility_usefulness_needs_two_standard_errors():
    """Excess 0.049 against the trivial 0.0511 is within 2 standard errors of 0.002 (margin 0.004): not useful."""
    frame = _utility([(3.0, 0.049, 0.0, 2.75)]).assign(excess_risk_se=0.002)
    assert decide("utility_privacy_tradeoff", {"ext_utility": frame}).verdict == "partial"
    assert decide("utility_privacy_tradeoff", {"ext_utility": frame.assign(excess_risk_se=0.0)}).verdict == "holds"


def test_prop1_proof_baseline_erratum_flips_without_contraction():
    """Fig. 3 (M = sqrt(0.76)): kappa at i = 39 is 2 M^2/sigma^2 = 1.52 vs Feldman's 2: erratum; with Fig. 2's
    parameters in Fig. 3's place (rho = 0, M = 1) both agree: holds."""
    claim = decide("erratum_prop1_proof_baseline", {})
    assert claim.verdict == "erratum" and "kappa used 1.520000 vs Feldman 2.000000" in claim.evidence
    convex = {**CONFIG, "figures": {**CONFIG["figures"], "fig3": FIG2}}
    assert decide("erratum_prop1_proof_baseline", {}, convex).verdict == "holds"


def test_erratum_rows_show_the_printed_and_the_correct_value():
    """Each erratum's evidence carries both values it compares (as the measure returns them)."""
    claim = decide("erratum_prop1_appendix_kappa", {})
    assert (claim.verdict, claim.severity) == ("erratum", "false")
    assert "0.0128205 (main text, with 1/sigma^2) vs 0.0512821 (appendix)" in claim.evidence  # 2/(39*4) vs 2/39
    assert "printed RDP kappa alpha = 8 vs the Gaussian mechanism's 16" in claim.evidence  # 2 alpha^2 vs 2 alpha/0.25
    fig3 = decide("erratum_fig3_rho_exceeds_beta", {})
    assert (fig3.severity, "Consequence: Fig. 3 unchanged") == ("typo", "Consequence: Fig. 3 unchanged")
    assert "Consequence: Fig. 3 unchanged" in fig3.evidence


def test_eq3_erratum_is_false_where_the_printed_form_understates_the_divergence():
    """alpha = 2, Delta = 2, sigma = 1: the printed alpha Delta/(2 sigma^2) = 2 is below the divergence 4: false;
    at Delta < 1 the printed form only overstates it (alpha = 2, Delta = 0.5: 0.5 vs 0.25): loose."""
    claim = decide("erratum_eq3_missing_square", FLIPS.lemmas())
    assert (claim.verdict, claim.severity) == ("erratum", "false")
    assert claim.evidence.startswith("The printed alpha Delta/(2 sigma^2) is below the Renyi divergence at 1 of 1 ")
    small = FLIPS.lemmas()["ext_lemmas"]
    row = small["check"] == "renyi_gaussian"
    small.loc[row, ["shift", "quadrature", "closed_form"]] = [0.5, 0.25, 0.25]
    assert decide("erratum_eq3_missing_square", {"ext_lemmas": small}).severity == "loose"


def test_lemma4_row_holds_inside_the_range_and_reports_the_failures_outside():
    """Inside eta < 2/(beta + rho) M bounds max |1 - eta lambda| at all 64 points (equal to it at the 16 with
    rho = 0); past the limit it bounds it nowhere: at 1.01 x the limit already, M < exact for rho > 0 (the identity
    M^2 - (1 - eta rho)^2 = eta rho^2 (2/(beta + rho) - eta) < 0) and for rho = 0 (M = 1 < eta beta - 1 = 1.02)."""
    numbers = RULE["lemma4_gradient_step_modulus"].measure({}, CONFIG)
    assert (numbers["inside"], numbers["inside_violations"], numbers["tight"], numbers["tight_rho_zero"]) == (
        64,
        0,
        16,
        16,
    )
    assert numbers["outside_violations"] == numbers["outside"] == 48
    assert numbers["example"]["factor"] == 1.01


def test_unconstrained_laplace_kernel_reaches_one():
    """Lemma 1 at v = 1: 1 - exp(eps/2 - D/2); at D = 60, 1 - e^-30 = 1 - 9.4e-14 (eps = 0)."""
    numbers = RULE["unconstrained_laplace_kernel_no_contraction"].measure(FLIPS.lemmas(), CONFIG)
    assert numbers["laplace"][0.0][0] == pytest.approx(1 - math.exp(-0.5), rel=1e-12)
    assert numbers["laplace"][0.0][-1] == pytest.approx(1 - math.exp(-30.0), rel=1e-15)


def test_strongly_convex_audit_uses_a_realisable_loss_with_the_fig3_modulus():
    """c = (1 - M^2)/eta = 0.24/0.7 keeps M = sqrt(0.76); records |x| <= 1 - c/2 keep the gradient within L = 1."""
    from dplab.studies.contraction.claims_audit import strongly_convex_audit_setting

    setting = strongly_convex_audit_setting(CONFIG["figures"]["fig3"])
    assert setting["curvature"] == pytest.approx(0.24 / 0.7, rel=1e-12)
    assert setting["M"] == pytest.approx(math.sqrt(1 - 0.7 * setting["curvature"]), rel=1e-12)
    assert setting["record_bound"] == pytest.approx(1 - 0.12 / 0.7, rel=1e-12)


def test_eq20_bound_is_attained_by_the_projected_laplace_kernel():
    """With both means in [0, D] the optimal event of E_gamma is [0, t*], t* = (y1 + y2 - eta v eps)/2 inside, so the
    projection changes nothing: the sup over start pairs (at y1 = 0, y2 = D) is Lemma 1 at gap D, eq. (20)'s bound
    with M = 1, at every grid point (0 where eps >= D/(eta v))."""
    numbers = RULE["eq20_laplace_contraction_coefficient"].measure({}, CONFIG)
    assert len(numbers["cases"]) == 36 and numbers["below"] == numbers["tight"] == 36
    for eps, diameter, scale, exact, bound in numbers["cases"]:
        assert exact == pytest.approx(bound, abs=1e-12)
        assert (bound == 0.0) == (eps >= diameter / scale)


@pytest.mark.parametrize("claim_id", sorted(RULE))
def test_every_reason_is_a_short_first_sentence(claim_id):
    """The index shows the first whole sentence of the evidence: it must state the decisive numbers in at most 300
    characters (on the frames of the flip cases' positive side)."""
    from dplab.report.index import first_sentence

    positive = FLIPS.FLIPS[claim_id][0]
    frames, config = FLIPS.BASE if callable(positive) else positive
    claim = decide(claim_id, frames, config)
    assert len(first_sentence(claim.evidence)) <= 300, first_sentence(claim.evidence)
