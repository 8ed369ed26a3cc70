"""Generalization verdict helpers on exact computations and small frames."""

from __future__ import annotations

import mpmath
import numpy as np
import pandas as pd
import pytest

from dplab.studies.generalization.claims import RULES
from dplab.studies.generalization.claims_composition import _first_steps_text, first_step_below_lower_bound, first_steps
from dplab.studies.generalization.claims_empirical import gap_versus_noise, together_evidence, together_verdict
from dplab.theory.generalization import composition_certificates

RULE = {rule.claim_id: rule for rule in RULES}


def _lower_bound(delta: float, t: int) -> float:
    """1 - (1 - delta)^T at 50 digits (independent of the library's log1p form)."""
    mpmath.mp.dps = 50
    return float(1 - (1 - mpmath.mpf(delta)) ** t)


@pytest.mark.parametrize(
    ("eps", "method", "grid_t", "expected"),
    [(0.1, "cor3_corrected", 36, 33), (0.1, "thm4_box", 68, 66), (1.0, "cor2", 108, 107)],
)
def test_first_integer_step_below_the_lower_bound(eps, method, grid_t, expected):
    """The exact first T (not f5's grid point): below 1-(1-delta)^T at T, not below at any T' < T."""
    delta = 1e-6
    first = first_step_below_lower_bound(eps, delta, delta, method, grid_t)
    assert first == expected
    _, certified = composition_certificates(eps, delta, delta, np.arange(1, first + 1))[method]
    assert certified[-1] < _lower_bound(delta, first)
    assert all(certified[t - 1] >= _lower_bound(delta, t) * (1 - 1e-12) for t in range(1, first))


def test_no_step_below_within_the_search_range():
    assert first_step_below_lower_bound(0.1, 1e-6, 1e-6, "cor3_corrected", 32) is None


def test_first_steps_text_names_exact_and_grid_step():
    frame = pd.DataFrame(
        [
            {
                "epsilon_step": 0.1,
                "delta_step": 1e-6,
                "delta_tilde": 1e-6,
                "method": "cor3_corrected",
                "t": t,
                "below_lower_bound": t > 30,
            }
            for t in (30, 36, 42)
        ]
    )
    text = _first_steps_text(first_steps(frame))
    assert text == "eps=0.1 cor3_corrected: from T=33 (exact first integer T; grid point 36)"
    assert _first_steps_text([]) == "none"


def test_thm7_conclusion_fails_at_small_noise_and_holds_at_large():
    from dplab.studies.generalization.claims_sgld import THM7_COUNTEREXAMPLE, _conclusion_rows
    from dplab.theory.generalization import sgld_privacy

    rule = RULE["thm7_conclusion_small_noise"]
    numbers = rule.measure({}, {})
    assert rule.verdict(numbers) == "fails" and "exact delta at eps' = 0.00208" in rule.evidence(numbers)
    ex = THM7_COUNTEREXAMPLE

    def privacy(sigma, t):
        return sgld_privacy(ex["N"], ex["tau"], t, sigma, ex["L"], ex["delta"], ex["delta_tilde"], "as_printed")

    rows = _conclusion_rows(privacy, (1.0,), (1,), ex, ex["L"])
    assert rule.verdict({**numbers, "rows": rows}) == "holds"


def test_thm8_conclusion_fails_at_sigma_001_and_holds_at_005():
    rows = RULE["thm8_conclusion_small_noise"].measure({}, {})["rows"]
    assert {(s, t) for s, t, _, claimed, exact in rows if exact > claimed} == {(0.01, 1), (0.01, 10)}


def test_strictly_tighter_fails_when_another_bound_dominates():
    rows = [("thm1", 0.9, 2.7e-4), ("nissim_stemmer", 1.3, 6.0e-4), ("oneto_a", 0.143, 4.2e-87)]
    t1 = pd.DataFrame(
        [{"epsilon": 0.1, "delta": 1e-5, "method": m, "deviation": d, "failure_probability": f} for m, d, f in rows]
    )
    claim = RULE["abstract_strictly_tighter"].decide({"t1": t1}, {})
    assert claim.verdict == "fails" and "by ['oneto_a']" in claim.evidence
    assert RULE["abstract_strictly_tighter"].decide({"t1": t1[t1["method"] != "oneto_a"]}, {}).verdict == "holds"


def test_wang_threshold_erratum():
    """Wang et al.'s threshold as He, Wang, Tao print it: eps^2 N/(32 tau log(2/delta)) = 1e4/(3200 log(2e5)) =
    0.256020 < 1 at eps = 1, delta = 1e-5, N = 1e4, tau = 100."""
    import math

    assert 1e4 / (3200 * math.log(2e5)) == pytest.approx(0.256020, abs=1e-6)
    claim = RULE["erratum_wang_t_greater"].decide({}, {})
    assert claim.verdict == "erratum" and "= 0.256020" in claim.evidence


def test_thm3_statement_fails_only_above_eps_1_and_the_proof_line_is_an_erratum():
    """Exact values: at eps = 0.1 the memorizer's P = 1/(1+e^0.1) = 0.47502 > 2eps/(1+3eps) = 0.15385 > eps."""
    import math

    statement = RULE["thm3_probability_at_least_epsilon"].measure({}, {})
    assert statement["fails_small"] == 0 and statement["fails_large"] > 0
    proof = RULE["erratum_thm3_proof_inequality"].measure({}, {})
    assert proof["exact"] == pytest.approx(1 / (1 + math.exp(0.1)), rel=1e-14)
    assert proof["bound"] == pytest.approx(0.2 / 1.3, rel=1e-14)
    assert RULE["erratum_thm3_proof_inequality"].verdict(proof) == "erratum"


def test_remark_rate_slopes_on_an_exact_power_law():
    """hp_bound = N^-0.75 T^0.5 and failure probability N^0.5 T^0.5: the fitted slopes are the exponents."""
    from dplab.studies.generalization.claims_sgld import rate_slopes

    rows = [(n, t, n**-0.75 * t**0.5, n**0.5 * t**0.5) for n in (1e4, 1e5, 1e6) for t in (10, 100, 1000)]
    frame = pd.DataFrame(rows, columns=["n", "t", "hp_bound", "failure_probability"]).assign(
        variant="as_printed", sigma=1.0
    )
    slopes = rate_slopes(frame, "n", ["sigma"])
    assert slopes["a_n"] == pytest.approx((-0.75, -0.75)) and slopes["a_t"] == pytest.approx((0.5, 0.5))
    assert slopes["b_n"] == pytest.approx((0.5, 0.5)) and slopes["b_t"] == pytest.approx((0.5, 0.5))


def _f8_cell(d, n, t, noiseless, noisy, change, *, bound=0.2, max_abs_gap=0.05, hp_bound=0.5, hp_vacuous=False):
    """Two F8 rows of one (d, N, T) cell (σ = 0 and σ = 2): (mean, low, high) of the gap at each σ and of the
    paired change."""
    base = {"d": d, "n": n, "t": t, "datasets": 40, "max_abs_gap": max_abs_gap, "hp_bound_valid": hp_bound}
    names = ("mean_gap", "gap_ci_low", "gap_ci_high")
    change_names = ("gap_change", "gap_change_ci_low", "gap_change_ci_high")
    return [
        {
            **base,
            "sigma": 0.0,
            **dict(zip(names, noiseless)),
            **dict(zip(change_names, (0.0, 0.0, 0.0))),
            "on_average_valid": np.nan,
            "hp_vacuous_valid": True,
        },
        {
            **base,
            "sigma": 2.0,
            **dict(zip(names, noisy)),
            **dict(zip(change_names, change)),
            "on_average_valid": bound,
            "hp_vacuous_valid": hp_vacuous,
        },
    ]


def _f8(cells):
    return pd.DataFrame([row for cell in cells for row in _f8_cell(*cell[:6], **(cell[6] if len(cell) > 6 else {}))])


SHRINKING = [
    (50, 1000, 1000, (0.028, 0.024, 0.032), (0.008, 0.003, 0.013), (-0.020, -0.026, -0.014)),
    (10, 1000, 1000, (0.010, 0.006, 0.014), (0.001, -0.002, 0.004), (-0.009, -0.013, -0.005)),
    (50, 1000000, 1000, (0.0001, -0.0003, 0.0005), (0.0000, -0.0004, 0.0004), (-0.0001, -0.0006, 0.0004)),
]


def test_together_verdict_holds_on_a_shrinking_gap_and_states_its_numbers():
    cells = gap_versus_noise(_f8(SHRINKING))
    assert cells["resolvable"].tolist() == [True, True, False]  # ordered by (d, n, t)
    verdict, share = together_verdict(cells)
    assert (verdict, share) == ("holds", 1.0)
    text = together_evidence(cells, share, 0.95)
    assert "shrinks in 2/2 resolvable cells (100%)" in text and "1/3 cells not resolvable" in text
    assert "E[R - R_hat] = 0.0280 [0.0240, 0.0320] at sigma = 0, 0.0080 [0.0030, 0.0130] at sigma = 2" in text


def test_together_verdict_flips_when_the_gap_grows_or_a_bound_is_violated():
    growing = [cell[:5] + ((0.005, 0.001, 0.009),) for cell in SHRINKING]
    assert together_verdict(gap_versus_noise(_f8(growing)))[0] == "fails"
    violated = [SHRINKING[0] + ({"bound": 0.001},)] + SHRINKING[1:]  # the gap's whole interval above the bound
    assert together_verdict(gap_versus_noise(_f8(violated)))[0] == "fails"
    hp = [SHRINKING[0] + ({"max_abs_gap": 0.6},)] + SHRINKING[1:]  # a run's |gap| above a non-vacuous HP bound
    assert together_verdict(gap_versus_noise(_f8(hp)))[0] == "fails"
    half = [SHRINKING[0], SHRINKING[1][:5] + ((-0.002, -0.006, 0.002),), SHRINKING[2]]  # 1/2 resolvable shrink
    assert together_verdict(gap_versus_noise(_f8(half))) == ("partial", 0.5)
