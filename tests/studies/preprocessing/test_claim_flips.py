"""Every pre-processing verdict flips on a small input built here: numbers (as ``measure`` returns them) on which it
holds or is an erratum, and modified numbers on which it does not. Rules that read no frame are measured for real
first. ``test_every_verdict_has_a_flip_test`` keeps it so."""

from __future__ import annotations

import pandas as pd
import pytest

from dplab.report.claims import VERDICTS
from dplab.studies.preprocessing.claims import RULES

RULE = {rule.claim_id: rule for rule in RULES}


def _outperforms(best: list[bool]) -> dict:
    return {"table": pd.DataFrame({"a_best": best}), "rate": 0.05}


#: claim id -> (numbers on which it holds or is an erratum, numbers on which it does not)
HAND_FLIPS = {
    "erratum_figure_reference": ({"printed": 1, "corrected": 2}, {"printed": 2, "corrected": 2}),
    "table2_cells_follow_theorem2": (
        {"bad": 0, "at_point": True, "bad_mechanisms": []},
        {"bad": 3, "at_point": True, "bad_mechanisms": ["a", "b"]},
    ),
    "erratum_thm12_dp_gd_rdp": ({"printed": 1.375, "corrected": 5.5}, {"printed": 5.5, "corrected": 5.5}),
    "erratum_table1_sgd_iter_eps2": ({"printed": 5.5, "corrected": 1.4}, {"printed": 1.4, "corrected": 1.4}),
    "erratum_table3_trimmed_mean": ({"printed": -0.004, "corrected": 0.005}, {"printed": 0.005, "corrected": 0.005}),
    "table3_bounds_hold_empirically": (
        {"rows": [("mean", "paper", 0.1, 0.2, True), ("t", "as_printed", 0.1, -1.0, False)]},
        {"rows": [("mean", "paper", 0.3, 0.2, False)]},
    ),
    "fig2a_quantization_small_eta": (
        {"smallest_eta": [("p=10", 0.001, 12.0, 87.0)], "rising": True},
        {"smallest_eta": [("p=10", 0.001, 12.0, 87.0)], "rising": False},
    ),
    "fig2b_imputation_90pct": (
        {"at": {0.1: (0.11, 13.0, 101.0), 0.9: (0.89, 3037.0, 4291.0)}},
        {"at": {0.1: (0.11, 13.0, 20.0), 0.9: (0.89, 3037.0, 4291.0)}},
    ),
    "fig2c_pca_constant": (
        {"spread": {"gap=1": 1.0}, "growing": True},
        {"spread": {"gap=1": 1.01}, "growing": True},
    ),
    "pca_minor_constant_order_cost": (
        {"spread": {"gap=1": 1.0}, "srdp": {"gap=1": 5.0}, "baseline": 4.2},
        {"spread": {"gap=1": 1.0}, "srdp": {"gap=1": 1731.0}, "baseline": 4.2},
    ),
    "fig3_consistently_outperforms": (_outperforms([True, True]), _outperforms([True, False])),
    "fig3_consistently_outperforms_dp_sgd": (_outperforms([True, True]), _outperforms([False, False])),
    "fig3_dimension_reduction_ablation": (
        {"rows": [(0.1, 0.1, 0.2), (1.0, 0.05, 0.1)]},
        {"rows": [(0.1, 0.1, 0.2), (1.0, 0.2, 0.1)]},
    ),
    "ext_regimes_ordering": ({"a_best": [True, True]}, {"a_best": [False, False]}),
    "dp_pca_omega_d_error": (
        {"worse": [(0.1, True), (1.0, True)], "risk": {(0.1, 100, 1000): {1.0: 0.1}, (2.0, 1000, 500): {1.0: 0.3}}},
        {"worse": [(0.1, True), (1.0, False)], "risk": {(0.1, 100, 1000): {1.0: 0.1}, (2.0, 1000, 500): {1.0: 0.3}}},
    ),
    "erratum_equation48_reference": (
        {"release": [2.5e-6, 2.5e-6], "first": [0.035, 0.0007]},
        {"release": [2.5e-6, 2.5e-7], "first": [0.035, 0.0007]},
    ),
    "sensitivity_bounds_hold": ({"rows": [("dedup", "random", 0, 42, 0.0, 1.0, True)]}, {"rows": [("d", "r", 50, 42, 0.0, 1.0, False)]}),
    "theorem2_audit": ({"ok": True}, {"ok": False}),
    "erratum_theorem7_alpha": ({"factor": 1.25}, {"factor": 1.002}),
    "erratum_ptr_threshold": ({"printed": 1.0, "algorithm": 2.0}, {"printed": 2.0, "algorithm": 2.0}),
    "ptr_refuses_small_gaps": (
        {"small_gap": {"refusal_rate": 1.0}, "large_gap": {"refusal_rate": 0.0, "refusal_probability_exact": 0.0}},
        {"small_gap": {"refusal_rate": 0.5}, "large_gap": {"refusal_rate": 0.0, "refusal_probability_exact": 0.0}},
    ),
    "prop8_excess_risk_bound": ({"measured": 0.01, "first": 0.004, "second": 0.02}, {"measured": 0.05, "first": 0.004, "second": 0.02}),
    "erratum_theorem7_dropped_square": ({"printed": 82.2, "corrected": 14.4}, {"printed": 14.4, "corrected": 14.4}),
    "erratum_prop8_sqrt_lambda": (
        {"realised": 0.099, "printed": 0.0099, "corrected": 0.099},
        {"realised": 0.005, "printed": 0.0099, "corrected": 0.099},
    ),
    "erratum_lemma_o_2k": ({"printed": 0.0035, "corrected": 0.0049}, {"printed": 0.0049, "corrected": 0.0049}),
}  # fmt: skip

#: claims decided by closed forms alone (no frame): a change of the measured numbers that flips the verdict
NUMBER_FLIPS = {
    "erratum_theorem9_srdp_sensitivity": lambda n: {**n, "printed": n["corrected"]},
    "lemma2_subsampling_amplification": lambda n: {**n, "rows": [(m, k, 10 / m**0.5) for m, k, _ in n["rows"]]},
    "remark1_extra_n_three_halves": lambda n: {**n, "rows": [(m, 2 * b, b, x, k) for m, _, b, x, k in n["rows"]]},
    "erratum_lemma3_statement": lambda n: {**n, "printed": n["corrected"]},
    "eq18_dp_sgd_sampling_factor2": lambda n: {**n, "printed": [10 * v for v in n["printed"]]},
    "erratum_theorem16_sample_size": lambda n: {**n, "below": []},
    "theorem10_laplace_srdp": lambda n: {**n, "rows": [r[:5] + (2 * r[6], r[6]) + r[7:] for r in n["rows"]]},
    "theorem11_exponential_srdp": lambda n: {**n, "rows": [r[:4] + (2 * r[5], r[5]) + r[6:] for r in n["rows"]]},
    "erratum_lemma_k_davis_kahan": lambda n: {**n, "as_printed": n["cited"]},
    "theorem7_additive_eps_marginal": lambda n: {**n, "rows": [r[:3] + (r[2], 2 * r[2], r[2], 2 * r[2]) for r in n["rows"]]},
}  # fmt: skip


@pytest.mark.parametrize("claim_id", sorted(HAND_FLIPS))
def test_verdict_flips_on_modified_numbers(claim_id):
    good, bad = HAND_FLIPS[claim_id]
    before, after = RULE[claim_id].verdict(good), RULE[claim_id].verdict(bad)
    assert before in ("holds", "erratum") and after != before and after in VERDICTS


@pytest.mark.parametrize("claim_id", sorted(NUMBER_FLIPS))
def test_closed_form_verdict_flips(claim_id):
    rule = RULE[claim_id]
    numbers = rule.measure({}, {})
    before, after = rule.verdict(numbers), rule.verdict(NUMBER_FLIPS[claim_id](numbers))
    assert before != after and {before, after} <= set(VERDICTS)
    assert "Decision rule: " in rule.decide({}, {}).evidence


def test_lemma2_flips_where_the_exact_divergence_exceeds_it():
    rule = RULE["lemma2_subsampling_amplification"]
    numbers = rule.measure({}, {})
    assert rule.verdict(numbers) == "holds"
    broken = {**numbers, "exact": [(m, 2 * b, b) for m, _, b in numbers["exact"]]}
    assert rule.verdict(broken) == "fails"


def test_every_verdict_has_a_flip_test():
    untested = set(RULE) - set(HAND_FLIPS) - set(NUMBER_FLIPS)
    assert not untested, f"verdicts without a flip test: {sorted(untested)}"
    assert not (set(HAND_FLIPS) | set(NUMBER_FLIPS)) - set(RULE), "flip tests of claims that no longer exist"


def test_theorem10_is_an_erratum_where_the_max_divergence_is_below_the_bound():
    rule = RULE["theorem10_laplace_srdp"]
    numbers = rule.measure({}, {})
    loose = {**numbers, "rows": [r[:6] + (2 * r[6],) + r[7:] for r in numbers["rows"]]}
    assert rule.verdict(numbers) == "holds" and rule.verdict(loose) == "erratum"


def test_theorem11_is_not_tested_when_the_score_breaks_the_hypotheses():
    rule = RULE["theorem11_exponential_srdp"]
    numbers = rule.measure({}, {})
    assert rule.verdict(numbers) == "holds" and rule.verdict({**numbers, "hypotheses": False}) == "not_tested"


def test_additive_gap_is_partial_where_marginal_at_some_points_only():
    rule = RULE["theorem7_additive_eps_marginal"]
    rows = rule.measure({}, {})["rows"]
    mixed = [rows[0][:3] + (rows[0][2], 2 * rows[0][2], rows[0][2], 2 * rows[0][2])] + rows[1:]
    assert rule.verdict({"rows": mixed}) == "partial"


def test_sqrt_lambda_fails_above_jensen():
    numbers = {"realised": 0.2, "printed": 0.0099, "corrected": 0.099}
    assert RULE["erratum_prop8_sqrt_lambda"].verdict(numbers) == "fails"


def test_lemma_k_fails_where_the_cited_bound_is_exceeded():
    assert RULE["erratum_lemma_k_davis_kahan"].verdict({"sin_theta": 0.1, "cited": 0.05, "as_printed": 0.5}) == "fails"
