"""Verdicts follow the numbers: the same claim functions say 'fails' when the data contradict the paper."""

from pathlib import Path

import pandas as pd
import yaml

from dplab.studies.contraction.claims import figure2_claims, laplace_claims, regime_claim
from dplab.studies.contraction.curves import figure_curves, laplace_curves, regime_map

ROOT = Path(__file__).resolve().parents[3]
CONFIG = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["contraction"]


def verdicts(claims):
    return {c.claim_id: c.verdict for c in claims}


def test_figure2_holds_on_paper_parameters_and_fails_on_swapped_methods():
    frame = figure_curves(CONFIG["figures"]["fig2"])
    assert verdicts(figure2_claims(frame))["fig2_thm4_outperforms_prop1"] == "holds"
    swapped = frame.assign(method=frame["method"].map({"thm4": "prop1", "prop1": "thm4"}))
    assert verdicts(figure2_claims(swapped))["fig2_thm4_outperforms_prop1"] == "fails"


def test_thm3_corollary_erratum_found_from_data():
    claims = laplace_claims(laplace_curves(CONFIG["laplace"]), CONFIG["laplace"])
    by_id = {c.claim_id: c for c in claims}
    assert by_id["thm3_pure_dp_threshold"].verdict == "holds"
    assert "eta=1, i=40" in by_id["erratum_thm3_corollary_i_equals_n"].evidence
    assert "eps=1 >= printed threshold 1 but Theorem 3 gives delta=0.3934693" in by_id[
        "erratum_thm3_corollary_i_equals_n"].evidence  # 1 - exp(1/2 - 1), Lemma 1


def test_regime_claim_is_partial_when_theorem4_loses_on_large_domains():
    claim = regime_claim(regime_map(CONFIG["regime"]))
    assert claim.verdict == "partial"
    assert "from D = 2.8563" in claim.evidence
    small = regime_map({**CONFIG["regime"], "diameter_max": 1.0, "n_diameter": 5})
    assert regime_claim(small).verdict == "holds"


def test_claim_frames_are_contract_shaped():
    frame = pd.DataFrame([c.__dict__ for c in figure2_claims(figure_curves(CONFIG["figures"]["fig2"]))])
    assert list(frame.columns) == ["claim_id", "source", "statement", "verdict", "evidence", "artifact"]
