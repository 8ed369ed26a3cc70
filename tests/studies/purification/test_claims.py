"""The purification claims beyond the shared flip harness (``tests/studies/test_claim_flips.py`` with ``flips.py``):
where each row points, the order of ``claims.csv``, the decisions specific to this study (Theorem 4's vacuous regime,
DP-ERM's rate-only comparisons, a claim built only when its frames apply), and that the committed ``claims.csv`` is
what the rules give on the committed data."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pandas as pd
import pytest

from dplab.report.claims import SEVERITIES, build_rules, claims_frame
from dplab.report.index import first_sentence
from dplab.studies.purification import STUDY, claims_query_release, claims_statistics
from dplab.studies.purification.claims import RULES, build_claims
from dplab.studies.purification.claims_common import CLAIMS
from dplab.studies.purification.curves import theorem2_utility
from dplab.workflow.config import load_config
from dplab.workflow.registry import load_study

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "results" / "purification" / "claims.csv"
RULE = {rule.claim_id: rule for rule in RULES}
_spec = importlib.util.spec_from_file_location("_purification_flips", Path(__file__).with_name("flips.py"))
FLIPS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(FLIPS)


@pytest.fixture(scope="module")
def committed() -> pd.DataFrame:
    return pd.read_csv(COMMITTED, keep_default_na=False)


def test_every_row_points_at_a_declared_artifact_of_the_study():
    paths = {STUDY.result_path(a.id) for a in STUDY.artifacts}
    assert {rule.artifact for rule in RULES} <= paths
    assert RULE["thm1_purification_is_pure_dp"].artifact == "purification/tables/ext_exact_audit.csv"
    assert RULE["fig1_laplace_beats_gaussian_almost_all_regimes"].artifact == "purification/figures/fig1.png"


def test_each_module_lists_its_own_rules_in_source_order():
    assert [r.claim_id for r in claims_query_release.QUERY_RELEASE_RULES] == [
        "thm8_query_release_rate",
        "table1_mwem_rate_before",
        "lemma36_mwem_accounting",
        "alg16_purification_needed",
        "alg16_vs_pure_baselines",
        "thm8_purified_mwem_pure_dp_audit",
    ]
    assert claims_statistics.MEAN_RULES + claims_statistics.REGRESSION_RULES == claims_statistics.STATISTICS_RULES
    assert CLAIMS.declared_in("no.such.module") == ()


def test_the_committed_claims_are_what_the_rules_give_on_the_committed_data(committed):
    """Regenerating claims.csv from the committed data and tables (as the workflow's claims rule does) changes nothing:
    a rule edited without regenerating fails here."""
    section = load_config(ROOT / "config.yaml")["purification"]
    study = load_study("purification")
    results = ROOT / "results" / "purification"
    frames = {a.id: pd.read_csv(results / study.data_path(a.id)) for a in study.declared(section)}
    fresh = claims_frame(build_claims(frames, section)).fillna("")
    pd.testing.assert_frame_equal(fresh, committed, check_dtype=False)


def test_every_committed_reason_is_one_short_sentence_and_every_erratum_states_its_consequence(committed):
    for row in committed.itertuples():
        assert len(first_sentence(row.evidence)) <= 300, row.claim_id
        assert ("Consequence: " in row.evidence) == (row.verdict == "erratum"), row.claim_id
        assert (row.severity in SEVERITIES) == (row.verdict == "erratum"), row.claim_id


def test_the_two_rows_on_the_same_zcdp_accounting_get_the_same_verdict(committed):
    """Lemma 25 and Lemma 36 both set rho = eps^2/(16 log(1/delta)) and read 4 sqrt(rho log(1/delta)) = eps where
    Lemma 22 gives about eps/2: the same loose erratum."""
    rows = committed.set_index("claim_id").loc[["erratum_lemma25_schedule_half_budget", "lemma36_mwem_accounting"]]
    assert set(zip(rows["verdict"], rows["severity"])) == {("erratum", "loose")}


def test_comparisons_the_paper_does_not_make_are_extensions(committed):
    kinds = committed.set_index("claim_id")["kind"]
    ours = ("ext_pure_adassp_vs_laplace_ssp", "alg16_vs_pure_baselines", "alg16_purification_needed")
    for claim_id in (*ours, "purified_dpsgd_vs_laplace_gd_sc", "alg11_adaptive_beats_global_sensitivity"):
        assert kinds[claim_id] == "extension"
    assert (committed[committed["verdict"] == "fails"]["kind"] == "extension").all()


def _theorem4(frames) -> str:
    return RULE["thm4_purified_frank_wolfe"].decide(frames, FLIPS.CONFIG).verdict


def test_theorem4_is_not_tested_where_its_explicit_bound_is_vacuous():
    """A flat purified curve at theta = 0's risk (0.03) under an explicit bound above 0.03 everywhere is not evidence
    either way; the same curve under a bound below 0.03 is partial; clearly above the bound it fails; a curve with
    slope -1/2 that beats theta = 0 holds."""
    assert _theorem4(FLIPS.frank_wolfe(slope=0.0, level=0.03)) == "not_tested"
    assert _theorem4(FLIPS.frank_wolfe(slope=0.0, level=0.001, bound=0.001)) == "fails"
    assert _theorem4(FLIPS.frank_wolfe(slope=0.0, level=0.0001, bound=0.05)) == "partial"
    assert _theorem4(FLIPS.frank_wolfe()) == "holds"


def test_theorem2_table_is_the_closed_form_law_of_algorithm2():
    """P[u_pure = u_apx] = (1 - w)(1 - p)^d + w 2^-d, p = e^(-1/(2b))/2, b = 2 Delta/eps, Delta = 2d (delta/2w)^(1/d)
    (the cube [0, 1]^d, w = 2^-d), at delta on Theorem 2's threshold eps^d/(2d)^(3d): written out by hand here."""
    frame = theorem2_utility({"max_bits": 8, "epsilons": [0.5, 2.0]})
    assert len(frame) == 16
    for d, eps, exact, bound in frame[["d", "epsilon", "success_exact", "bound"]].itertuples(index=False):
        omega = 2.0**-d
        delta = eps**d / (2 * d) ** (3 * d)
        b = 2 * (2 * d * (delta / (2 * omega)) ** (1 / d)) / eps
        p = 0.5 * math.exp(-1 / (2 * b))
        assert exact == pytest.approx((1 - omega) * (1 - p) ** d + omega * 2.0**-d, rel=1e-12)
        assert bound == pytest.approx(1 - 2.0**-d - d / 2 * math.exp(-d), rel=1e-12)


def test_a_rule_is_built_only_when_its_frames_are_present_and_it_applies():
    """The exponential mechanism is sampled in d = 2 only: without its rows its claim is left out, not failed."""
    frames = FLIPS.erm()
    frames["ext_dp_erm"] = frames["ext_dp_erm"][frames["ext_dp_erm"]["method"] != "exponential_mechanism"]
    ids = {c.claim_id for c in build_rules(RULES, frames, FLIPS.CONFIG)}
    assert "thm3_purified_dpsgd_rate" in ids and "purified_matches_exponential_mechanism" not in ids
    assert not any(i.endswith("_sc") for i in ids)  # no strongly convex frame


def _erm_claims(**rates) -> dict:
    frames = FLIPS.erm(**rates)
    return {c.claim_id: c for c in build_rules(RULES, frames, FLIPS.CONFIG) if c.claim_id in RULE}


def test_rate_matching_exponential_mechanism_ignores_a_constant_gap():
    """Purified 100x the exponential mechanism at every n but the same slope -1: holds; slope -0.5 vs -1: fails."""
    assert _erm_claims()["purified_matches_exponential_mechanism"].verdict == "holds"
    assert _erm_claims(purified_dpsgd=(10.0, -0.5))["purified_matches_exponential_mechanism"].verdict == "fails"


def test_laplace_comparison_uses_measured_range_only():
    """Purified's rate n^-1 beats Laplace GD's n^-1/2; the verdict rests on the measured n only: still above at
    n = 4000 (ratio 200/sqrt(4000) = 3.2): partial, no crossover extrapolated; below there (ratio 0.16): holds;
    slower rate and above: fails. The capped reference with slope -0.1 is named an optimisation floor."""
    claim = _erm_claims(purified_dpsgd=(200.0, -1.0))["purified_dpsgd_vs_laplace_gd"]
    assert claim.verdict == "partial" and "at n = 4000, the largest measured" in claim.evidence
    assert "crossover at" not in claim.evidence and "an optimisation floor" in claim.evidence
    assert _erm_claims()["purified_dpsgd_vs_laplace_gd"].verdict == "holds"
    assert _erm_claims(purified_dpsgd=(200.0, -0.4))["purified_dpsgd_vs_laplace_gd"].verdict == "fails"
