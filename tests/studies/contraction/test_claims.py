"""Verdicts follow the numbers: the contraction claims on the paper's parameters, with the values that decide them."""

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dplab.studies.contraction.claims import RULES, build_claims
from dplab.studies.contraction.claims_figures import epsilon_gaps
from dplab.studies.contraction.curves import figure_curves, laplace_curves, regime_map

ROOT = Path(__file__).resolve().parents[3]
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
    claim = decide("regime_thm4_vs_prop1", {"ext_regime": regime_map(CONFIG["regime"])})
    assert claim.verdict == "partial"
    assert "from D = 2.8563" in claim.evidence
    small = regime_map({**CONFIG["regime"], "diameter_max": 1.0, "n_diameter": 5})
    assert decide("regime_thm4_vs_prop1", {"ext_regime": small}).verdict == "holds"


def test_claim_frames_are_contract_shaped():
    claims = build_claims({"fig2": figure_curves(FIG2)}, CONFIG)
    frame = pd.DataFrame([c.__dict__ for c in claims])
    assert list(frame.columns) == ["claim_id", "source", "statement", "verdict", "evidence", "artifact"]
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


def test_prop1_proof_baseline_erratum_flips_without_contraction():
    """Fig. 3 (M = sqrt(0.76)): kappa at i = 39 is 2 M^2/sigma^2 = 1.52 vs Feldman's 2: erratum; with Fig. 2's
    parameters in Fig. 3's place (rho = 0, M = 1) both agree: holds."""
    claim = decide("erratum_prop1_proof_baseline", {})
    assert claim.verdict == "erratum" and "kappa used 1.520000 vs Feldman 2.000000" in claim.evidence
    convex = {**CONFIG, "figures": {**CONFIG["figures"], "fig3": FIG2}}
    assert decide("erratum_prop1_proof_baseline", {}, convex).verdict == "holds"
