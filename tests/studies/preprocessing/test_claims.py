"""Pre-processing verdicts on small and committed frames: the study-specific decision rules, evidence and order (the
generic flips of every rule are in flips.py, run by tests/studies/test_claim_flips.py)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dplab.report.index import first_sentence
from dplab.studies.preprocessing.claims import RULES
from dplab.studies.preprocessing.claims_sec4 import sign_crossings
from dplab.studies.preprocessing.claims_sec5 import outperforms_measure
from dplab.studies.preprocessing.theory_tables import table2_grid, theorem9_srdp_values
from dplab.theory import smooth_rdp

# flips.py is loaded by path: tests/preprocessing and tests/studies/preprocessing are both packages named
# "preprocessing", so a relative import resolves to whichever pytest imported first.
_SPEC = importlib.util.spec_from_file_location("_preprocessing_flips", Path(__file__).with_name("flips.py"))
FLIPS = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(FLIPS)
CONFIG, FRAMES = FLIPS.CONFIG, FLIPS.FRAMES

RULE = {rule.claim_id: rule for rule in RULES}


def theorem7_alpha_claim(ptr):
    return RULE["erratum_theorem7_alpha"].decide({"ext_ptr": ptr}, CONFIG)


def fig2b_claim(panel):
    frame = panel.melt(id_vars=["panel", "setting", "x"], var_name="method", value_name="epsilon_dp")
    return RULE["fig2b_imputation_90pct"].decide({"fig2": frame.assign(eps=1.0, delta=1e-3)}, {})


def table2_claim(t2, grid=None):
    frames = {"table2": t2} if grid is None else {"table2": t2, "table2_grid": grid}
    return RULE["table2_cells_follow_theorem2"].decide(frames, {})


def _ptr(eps: float, beta: float, delta: float = 1e-5) -> pd.DataFrame:
    return FRAMES["ext_ptr"].assign(eps=eps, beta=beta, delta=delta, n=1000)


def test_theorem7_erratum_is_judged_where_the_theorem_applies():
    """Theorem 7 at eps = 0.1, beta = 1, delta = 1e-5: it satisfies delta <= exp(-rho) (rho = 1.5733) and the proof's
    alpha = 1 + sqrt(log(1/delta)/rho) = 3.705 < 11: the 1.05 factor fails (exact (2a-1)/(2(a-1)) = 1.185)."""
    claim = theorem7_alpha_claim(_ptr(0.1, 1.0))
    assert claim.verdict == "erratum"
    assert "alpha is 3.705" in claim.evidence and "rho = 1.573" in claim.evidence
    assert math.exp(-smooth_rdp.theorem7_rho(0.1, 1.0)) >= 1e-5


def test_theorem7_run_outside_the_theorem_is_judged_at_half_the_largest_epsilon():
    """The configured run (eps = 1, beta = 0.3) violates the condition (rho = 1738): the evidence moves to
    eps_max/2 where rho = log(1/delta)/4 and alpha = 3 exactly."""
    eps_max = math.sqrt(math.log(1e5) / smooth_rdp.theorem7_rho(1.0, 0.3))
    claim = theorem7_alpha_claim(_ptr(1.0, 0.3))
    assert claim.verdict == "erratum" and "is outside it" in claim.evidence and "judged at eps_max/2" in claim.evidence
    assert f"At eps = {eps_max / 2:.4g}," in claim.evidence and "alpha is 3.000" in claim.evidence
    assert smooth_rdp.theorem7_delta_condition(eps_max / 2, 0.3, 1e-5)
    assert not smooth_rdp.theorem7_delta_condition(1.0, 0.3, 1e-5)


def test_theorem7_flips_where_alpha_exceeds_11():
    """At eps = 0.001, beta = 1 the proof's alpha = 271.5 and the factor 1.0018 <= 1.05: the statement holds there."""
    assert theorem7_alpha_claim(_ptr(0.001, 1.0)).verdict == "holds"


def test_sign_crossings_interpolates_and_brackets():
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    diff = np.array([1.0, -1.0, -3.0, 0.0, 2.0])
    assert sign_crossings(x, diff) == [(0.0, 1.0, 0.5), (3.0, 3.0, 3.0)]
    assert sign_crossings(x, np.ones(5)) == []


def _panel_b(srdp: np.ndarray, group: np.ndarray, x: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"panel": "b", "setting": "n=100", "x": x, "srdp_table2": srdp, "group_privacy": group})


def test_fig2b_evidence_comes_from_the_data():
    """Crossings near p/n = 0.024 and 0.907 (the committed grid's shape) are found and stated; none invented."""
    x = np.array([0.01, 0.03, 0.11, 0.89, 0.91, 0.99])
    srdp = np.array([12.2, 12.3, 12.9, 3037.0, 4735.0, 45000.0])
    group = np.array([4.2, 15.7, 101.4, 4291.0, 4479.0, 5268.0])
    claim = fig2b_claim(_panel_b(srdp, group, x))
    assert claim.verdict == "holds"
    assert "p/n = 0.024 (p = 2.4; between grid points 0.01 and 0.03)" in claim.evidence
    assert "between grid points 0.89 and 0.91" in claim.evidence
    assert "SRDP is above group privacy at 3 of 6 grid points" in claim.evidence


def test_fig2b_flips_without_a_gap_at_few_missing_values():
    x = np.array([0.1, 0.9])
    claim = fig2b_claim(_panel_b(np.array([10.0, 100.0]), np.array([20.0, 120.0]), x))
    assert claim.verdict == "fails" and "nowhere on the grid" in claim.evidence


def _t2_point(ok: bool = True) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "mechanism": "gaussian",
                "preprocessing": "dedup",
                "alpha": 11.0,
                "eps": 0.5,
                "n": 1000,
                "p": 10,
                "eta": 0.1,
                "gap": 0.5,
                "closed_form": 2.0,
                "generic_theorem2_pq2": 1.0,
                "generic_le_closed_form": ok,
            }
        ]
    )


def test_table2_grid_exception_is_sgd_iteration_with_few_kept_records():
    """Over the grid only DP-SGD-by-iteration cells fail, all at n - p <= 3; e.g. n = 1000, p = 997, alpha = 11:
    generic Theorem 2 is 1.0488 x the cell (the case in test_smooth_rdp)."""
    grid = table2_grid(0.5, 0.1, 0.5)
    bad = grid[~grid["bounds"]]
    assert set(bad["mechanism"]) == {"dp_sgd_iteration"} and (bad["n"] - bad["p"]).max() == 3
    case = grid[
        (grid["n"] == 1000)
        & (grid["p"] == 997)
        & (grid["alpha"] == 11)
        & (grid["preprocessing"] == "dedup")
        & (grid["mechanism"] == "dp_sgd_iteration")
    ].iloc[0]
    assert case["generic"] / case["closed_form"] == pytest.approx(1.04879, rel=1e-4)
    claim = table2_claim(_t2_point())
    assert claim.verdict == "partial" and "Only dp_sgd_iteration cells" in claim.evidence
    assert "all with n - p <= 3" in claim.evidence


def test_table2_verdict_flips():
    grid = table2_grid(0.5, 0.1, 0.5, ns=(10,), alphas=(11.0,))
    assert table2_claim(_t2_point(), grid[grid["mechanism"] != "dp_sgd_iteration"]).verdict == "holds"
    assert table2_claim(_t2_point(ok=False), grid[grid["mechanism"] != "dp_sgd_iteration"]).verdict == "fails"
    two = grid.assign(bounds=~grid["mechanism"].isin(["gaussian", "laplace"]))
    assert table2_claim(_t2_point(), two).verdict == "fails"


def test_ptr_threshold_erratum():
    """n = 1e4, eps = 1, delta = 1e-5, delta_k = 0.6, beta = 0.5: gamma 1.262e-31 printed, 2.524e-31 with log(2/delta);
    (1/(2 delta)) exp(-(0.1)(1e4)/12.2) recomputed here."""
    frame = FRAMES["ext_ptr"].assign(n=10_000, eps=1.0, delta=1e-5, beta=0.5)
    frame.loc[frame["dataset"] == "large_gap", "gap"] = 0.6
    expected = math.exp(-0.1 * 1e4 / 12.2) / (2 * 1e-5)
    assert expected == pytest.approx(1.262e-31, rel=1e-3)
    claim = RULE["erratum_ptr_threshold"].decide({"ext_ptr": frame}, CONFIG)
    assert claim.verdict == "erratum" and claim.severity == "false"
    assert f"printed gamma {expected:.4g}, with log(2/delta) {2 * expected:.4g}" in claim.evidence


def test_theorem9_values_flip_where_the_sensitivity_is_one():
    printed, library, exact = theorem9_srdp_values()
    assert library == pytest.approx(exact, rel=1e-12)  # Table 1's form is the exact Gaussian Renyi divergence
    assert exact == pytest.approx(printed / 4)  # Delta_f = 2: the statement is 4x too large
    printed1, _, exact1 = theorem9_srdp_values(sensitivity=1.0)
    assert printed1 == pytest.approx(exact1)


def test_claims_follow_the_papers_sections_and_every_first_sentence_is_short():
    """Rows in the order of the paper (Sections 3-4, Section 5.2, the appendix); the reason the index shows (the first
    whole sentence of the evidence) states the decisive numbers in at most 300 characters."""
    claims = [rule.decide(FRAMES, CONFIG) for rule in RULES if rule.claim_id != "ext_theorem2_separate_pq"]
    ids = [c.claim_id for c in claims]
    assert (
        ids.index("theorem2_audit")
        < ids.index("fig3_consistently_outperforms")
        < ids.index("lemma2_subsampling_amplification")
    )
    long = {c.claim_id: len(first_sentence(c.evidence)) for c in claims if len(first_sentence(c.evidence)) > 300}
    assert not long, long


def test_pca_constancy_is_judged_on_the_exact_tau_which_depends_on_n():
    """The 12.2/gap curve has no n (constant by construction); the exact-tau curve, rising 50% over n, fails both
    Fig. 2(c) rows although the 12.2/gap curve stays flat."""
    fig2 = FRAMES["fig2"].copy()
    exact = (fig2["panel"] == "c") & fig2["setting"].str.contains("exact") & (fig2["method"] == "srdp_table2")
    fig2.loc[exact, "epsilon_dp"] *= 1 + 0.5 * (fig2.loc[exact, "x"] > 1000)
    for claim_id in ("fig2c_pca_constant", "pca_minor_constant_order_cost"):
        claim = RULE[claim_id].decide({"fig2": fig2}, CONFIG)
        assert claim.verdict == "fails" and "1.4995" in claim.evidence, claim.evidence


def test_dimension_ablation_needs_two_standard_errors_of_the_difference():
    """The issue's case: (dim) 0.292 +- 0.017 against (c) 0.3145 +- 0.0014 is no win (0.0225 < 2 x 0.0171)."""
    rows = [
        {"method": m, "epsilon": 0.1, "excess_risk": mean + sign * se, "eps0": 1.0, "selected": True}
        for m, mean, se in (("nonprivate_pca_dim", 0.292, 0.017), ("no_preprocessing", 0.3145, 0.0014), ("dp_pca", 0.4, 0.001))
        for sign in (-1, 1)
    ]  # fmt: skip
    table = outperforms_measure(pd.DataFrame(rows), "nonprivate_pca_dim")
    assert table["nonprivate_pca_dim_se"].iloc[0] == pytest.approx(0.017)
    assert not table["a_best"].iloc[0]


def test_separate_pq_extension_stays_above_the_exact_divergence_and_below_p_equals_q():
    """Theorem 2 with p and q separate: 136.18 against 214.18 at tau = 12.2 (eps = 1, delta = 1e-3), the audit's exact
    divergence below it at every step; above-p = q or below-exact data would fail it."""
    claim = RULE["ext_theorem2_separate_pq"].decide(*FLIPS.separate_pq())
    assert claim.verdict == "holds" and claim.kind == "extension"
    assert "gives eps 136.18 against 214.18 with p = q" in claim.evidence
    assert RULE["ext_theorem2_separate_pq"].decide(*FLIPS.separate_pq(exact_shift=5.0)).verdict == "fails"
