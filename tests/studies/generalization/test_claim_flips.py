"""Every generalization verdict flips on a small input built here: a frame (or, for claims decided by closed forms
alone, the measured numbers) on which it has one verdict, and a modified one on which it has another.

``test_every_verdict_has_a_flip_test`` keeps it so: a rule added to ``RULES`` without a flip case fails it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dplab.report.claims import VERDICTS
from dplab.studies.generalization.claims import RULES
from dplab.theory.generalization import kl_bound_dr16, kl_bound_lemma5, kl_randomized_response

RULE = {rule.claim_id: rule for rule in RULES}
CONFIG = {"empirical": {"delta": 1e-6, "delta_tilde": 1e-6, "confidence": 0.95}}


# --------------------------------------------------------------------------------------------- frame builders


def f1(ratio_factor: float = 1.0) -> dict[str, pd.DataFrame]:
    eps = np.array([0.1, 1.0, 3.0])
    ours = kl_bound_lemma5(eps)
    rows = [
        pd.DataFrame({"epsilon": eps, "method": "lemma5", "kl": ours}),
        pd.DataFrame({"epsilon": eps, "method": "randomized_response", "kl": kl_randomized_response(eps)}),
        pd.DataFrame(
            {
                "epsilon": eps,
                "method": "dr16",
                "kl": kl_bound_dr16(eps),
                "ratio_to_lemma5": ratio_factor * (1 + np.exp(eps)) / 2,
            }
        ),
    ]
    return {"f1": pd.concat(rows, ignore_index=True)}


def t1(intro_factor: float = 2.0, oneto: tuple[float, float] = (1.5, 1e-3)) -> pd.DataFrame:
    rows = [
        ("thm1", 0.9, 2.7e-4, 2877.0, False),
        ("thm1_intro", 0.9, intro_factor * 2.7e-4, 2877.0, False),
        ("nissim_stemmer", 1.3, 6.0e-4, np.nan, False),
        ("dwork_2015", 0.4, 2.53, np.nan, True),
        ("oneto_a", *oneto, np.nan, False),
    ]
    frame = pd.DataFrame(rows, columns=["method", "deviation", "failure_probability", "n_min", "vacuous"])
    return frame.assign(epsilon=0.1, delta=1e-5)


def f2_t1(ns_deviation: float = 1.3) -> dict[str, pd.DataFrame]:
    f2 = pd.DataFrame(
        [(0.1, 1e-5, "thm1", 0.9, 2.7e-4), (0.1, 1e-5, "nissim_stemmer", ns_deviation, 6.0e-4)],
        columns=["epsilon", "delta", "method", "deviation", "failure_probability"],
    )
    return {"f2": f2, "t1": t1()}


def f3(thm2_bound: float = 0.1) -> dict[str, pd.DataFrame]:
    rows = [(1e-4, 0.1, "thm2", thm2_bound), (1e-4, 0.1, "nissim_stemmer", 0.2001), (1e-4, 1.0, "thm2", 0.63)]
    rows.append((1e-4, 1.0, "nissim_stemmer", 2.0001))
    return {"f3": pd.DataFrame(rows, columns=["k_delta", "epsilon", "method", "bound"])}


def f4(cor3_shift: float = 0.0) -> dict[str, pd.DataFrame]:
    rows = [
        (0.1, 100, "kov_thm4", 5.0, 10.0, 5.0),
        (0.1, 100, "cor3", 5.0 + cor3_shift, np.nan, np.nan),
        (0.1, 100, "optimal_pure", 3.8, np.nan, np.nan),
    ]
    return {"f4": pd.DataFrame(rows, columns=["epsilon_step", "t", "method", "eps_prime", "kov_term1", "kov_term3"])}


def t2(cor2_below: bool = True, printed_double_prime: float = 1.081361e-12) -> pd.DataFrame:
    columns = ["epsilon_step", "delta_step", "t", "delta_tilde", "method", "eps_prime", "delta_prime", "c"]
    rows = [
        (0.1, 1e-5, 100, 1e-5, "kov", 5.298110, 1.009495e-3, 53),
        (0.1, 1e-5, 100, 1e-5, "cor2", 5.298110, 9.862834e-4 if cor2_below else 1.1e-3, 53),
        (0.1, 1e-5, 100, 1e-5, "thm4_box", 5.298110, 1.0e-3, 53),
        (0.1, 1e-5, 100, 1e-5, "lower_bound", np.nan, 9.995052e-4, 0),
        (0.1, 1e-5, 100, 1e-5, "optimal_at_kov_eps", 5.298110, 9.995676e-4, 0),
        (0.1, 0.0, 100, 1e-5, "cor3_as_printed", 5.298110, printed_double_prime, 53),
        (0.1, 0.0, 100, 1e-5, "cor3_corrected", 5.298110, 1.081361e-12 * np.exp(5.298110 + 10), 53),
    ]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.assign(
        lower_bound=9.995052e-4,
        below_lower_bound=(frame["method"] == "cor2") & cor2_below,
        optimal_delta_at_eps_prime=6.248616e-8,
        below_optimal=frame["method"] == "cor3_as_printed",
    )


def t2_f5(cor2_below: bool = True) -> dict[str, pd.DataFrame]:
    f5 = pd.DataFrame(
        [(0.1, 1e-6, 1e-6, 10, "cor2", False)],
        columns=["epsilon_step", "delta_step", "delta_tilde", "t", "method", "below_lower_bound"],
    )
    return {"t2": t2(cor2_below), "f5": f5}


def f6(paper_below: bool = True) -> dict[str, pd.DataFrame]:
    rows = [(100, "kov", 4.8, False, False), (100, "cor2", 3.0 if paper_below else 4.9, paper_below, False)]
    rows.append((100, "optimal", 3.7, False, False))
    columns = ["t", "method", "eps_prime", "below_optimal", "feasible_only_for_paper"]
    return {"f6": pd.DataFrame(rows, columns=columns)}


def t3(corrected_factor: float = 1.93, invalid: bool = True, printed_delta_tilde: float = np.nan) -> dict:
    rows = []
    for variant, factor in (("as_printed", 1.0), ("valid", corrected_factor)):
        for sigma in (0.05, 1.0):
            rows.append(
                {
                    "n": 1000,
                    "sigma": sigma,
                    "t": 30,
                    "variant": variant,
                    "eps_tilde": factor / sigma,
                    "eps_step": 2 * 0.1 * factor / sigma
                    if variant == "as_printed"
                    else np.log1p(0.1 * np.expm1(factor / sigma)),
                    "step_claim_holds": variant == "valid",
                    "step_delta_exact": 4.79e-4 if variant == "as_printed" else 1e-10,
                    "linear_amplification_invalid": invalid and variant == "valid" and sigma == 0.05,
                    "thm7_printed_delta_tilde": printed_delta_tilde if variant == "as_printed" else np.nan,
                }
            )
    return {"t3": pd.DataFrame(rows)}


def f9(substitution_factor: float = 1.4146) -> dict[str, pd.DataFrame]:
    variants = {"as_printed": 1.0, "substitution": substitution_factor, "add_remove": 0.7072}
    rows = [(1000, 10, 1.0, 10, v, f) for v, f in variants.items()]
    return {"f9": pd.DataFrame(rows, columns=["clients", "tau", "sigma", "t", "variant", "eps_tilde"])}


def f7(vacuous_everywhere: bool = False) -> dict[str, pd.DataFrame]:
    rows = [(1e4, True, 1.2, True), (1e5, vacuous_everywhere, 0.3, False)]
    frame = pd.DataFrame(rows, columns=["n", "hp_vacuous", "hp_bound", "floor_limited"])
    return {"f7": frame.assign(variant="valid")}


def rate_frames(a_n: float = -0.75, b_n: float = 0.5) -> dict[str, pd.DataFrame]:
    """Deviation N^a_n T^0.5 and failure probability N^b_n T^0.5 (as printed), for both remarks."""
    sizes, steps = (1e4, 1e5, 1e6), (10, 100, 1000)
    rows = [(n, t, n**a_n * t**0.5, n**b_n * t**0.5) for n in sizes for t in steps]
    frame = pd.DataFrame(rows, columns=["n", "t", "hp_bound", "failure_probability"]).assign(
        variant="as_printed", sigma=1.0
    )
    fl = frame.rename(columns={"n": "clients"}).assign(tau=10)
    return {"f7": frame, "f9": fl}


def f8(hp_violation: bool = False, d50_bound_shift: float = 0.0) -> dict[str, pd.DataFrame]:
    rows = []
    for d in (10, 50):
        for sigma in (0.0, 1.0):
            rows.append(
                {
                    "d": d,
                    "n": 1000,
                    "t": 1000,
                    "sigma": sigma,
                    "max_abs_gap": 0.6 if hp_violation and sigma > 0 else 0.01,
                    "mean_abs_gap": 0.005 * d / 10,
                    "hp_bound_valid": 0.5 + (d50_bound_shift if d == 50 else 0.0),
                    "hp_vacuous_valid": sigma == 0,
                    "on_average_violated_valid": False,
                    "coverage_valid": 1.0,
                }
            )
    return {"f8": pd.DataFrame(rows)}


def f8_together(change_high: float = -0.014) -> dict[str, pd.DataFrame]:
    """One resolvable (d, N, T) cell whose gap shrinks (paired interval below 0) unless ``change_high`` > 0."""
    base = {"d": 50, "n": 1000, "t": 1000, "datasets": 40, "max_abs_gap": 0.05, "hp_bound_valid": 0.5}
    rows = [
        {**base, "sigma": 0.0, "mean_gap": 0.028, "gap_ci_low": 0.024, "gap_ci_high": 0.032, "gap_change": 0.0,
         "gap_change_ci_low": 0.0, "gap_change_ci_high": 0.0, "on_average_valid": np.nan, "hp_vacuous_valid": True},
        {**base, "sigma": 2.0, "mean_gap": 0.008, "gap_ci_low": 0.003, "gap_ci_high": 0.013, "gap_change": -0.02,
         "gap_change_ci_low": -0.026, "gap_change_ci_high": change_high, "on_average_valid": 0.2,
         "hp_vacuous_valid": False},
    ]  # fmt: skip
    return {"f8": pd.DataFrame(rows)}


def f9_generalization(printed_delta: tuple[float, ...] = (2e-6, 2e-6)) -> dict[str, pd.DataFrame]:
    """Theorem 8's printed and the valid (substitution) privacy at three f9 points: one vacuous (a = 1.5), two with
    a = 0.5 where the printed delta' is ``printed_delta`` (the valid one is 1e-6; the printed eps' is the larger)."""
    keys = {"clients": 1000, "tau": 10, "sigma": 1.0}
    rows = []
    for t, vacuous, delta in ((10, True, 2e-6), (20, False, printed_delta[0]), (30, False, printed_delta[1])):
        common = {**keys, "t": t, "hp_vacuous": vacuous, "hp_bound": 1.5 if vacuous else 0.5}
        rows.append({**common, "variant": "as_printed", "eps_prime": 0.05, "delta_prime": delta})
        rows.append({**common, "variant": "substitution", "eps_prime": 0.04, "delta_prime": 1e-6})
    return {"f9": pd.DataFrame(rows)}


#: claim id -> (frames with one verdict, modified frames with another)
FRAME_FLIPS = {
    "lemma5_tighter_kl": (f1(), f1(ratio_factor=1.01)),
    "thm1_tighter_than_nissim_stemmer": (f2_t1(), f2_t1(ns_deviation=0.5)),
    "erratum_thm1_intro_factor_2": ({"t1": t1()}, {"t1": t1(intro_factor=1.0)}),
    "thm2_tighter_than_nissim_stemmer": (f3(), f3(thm2_bound=0.3)),
    "abstract_strictly_tighter": ({"t1": t1(oneto=(0.5, 1e-9))}, {"t1": t1()}),
    "composition_epsilon_equals_kov": (f4(), f4(cor3_shift=1e-6)),
    "composition_delta_tighter_than_kov": (t2_f5(), t2_f5(cor2_below=False)),
    "erratum_composition_below_lower_bound": ({"t2": t2()}, {"t2": t2(cor2_below=False)}),
    "erratum_cor3_sign": ({"t2": t2()}, {"t2": t2(printed_double_prime=1.081361e-12 * np.exp(15.298110))}),
    "composition_fair_comparison": (f6(), f6(paper_below=False)),
    "erratum_sgld_factor_2": (t3(), t3(corrected_factor=1.0)),
    "erratum_sgld_subsampling": (t3(), t3(invalid=False)),
    "erratum_thm7_delta_tilde": (t3(), t3(printed_delta_tilde=1e-6)),
    "erratum_thm8_epsilon_tilde": (f9(), f9(substitution_factor=1.0)),
    "sgld_generalization_bound": (f7(), f7(vacuous_everywhere=True)),
    "thm8_generalization_bound": (f9_generalization(), f9_generalization(printed_delta=(2e-6, 0.9e-6))),
    "remarks_rate_t_over_sqrt_n": (rate_frames(), rate_frames(b_n=-0.6)),
    "e1_gap_below_bounds": (f8(), f8(hp_violation=True)),
    "e1_bound_model_size_free": (f8(), f8(d50_bound_shift=0.1)),
    "e1_privacy_and_generalization_together": (f8_together(), f8_together(change_high=0.002)),
}


#: claims decided by closed forms alone (no frame): a change of the measured numbers that flips the verdict
NUMBER_FLIPS = {
    "thm3_probability_at_least_epsilon": lambda n: {**n, "fails_large": 0},
    "erratum_thm3_proof_inequality": lambda n: {**n, "exact": n["bound"]},
    "erratum_lemma4_hoeffding_exponent": lambda n: {"rows": [r[:4] + (r[5], r[5], r[6]) for r in n["rows"]]},
    "erratum_b4_worst_case_pair": lambda n: {**n, "as_printed": n["corrected"]},
    "thm5_composition_iv": lambda n: {**n, "violations": [n["max_ratio_case"]]},
    "thm7_conclusion_small_noise": lambda n: {**n, "rows": [r[:4] + (r[3] / 2,) for r in n["rows"]]},
    "thm8_conclusion_small_noise": lambda n: {**n, "rows": [r[:4] + (r[3] / 2,) for r in n["rows"]]},
    "erratum_wang_t_greater": lambda n: {**n, "threshold": 256.0},
    "lemma6_boundary_maximum": lambda n: {"cases": [*n["cases"], (3, 5.0, 0.5, 0.6)]},
}


def _verdict(claim_id: str, frames: dict[str, pd.DataFrame]) -> str:
    return RULE[claim_id].decide(frames, CONFIG).verdict


@pytest.mark.parametrize("claim_id", sorted(FRAME_FLIPS))
def test_verdict_flips_on_a_modified_frame(claim_id):
    first, second = FRAME_FLIPS[claim_id]
    before, after = _verdict(claim_id, first), _verdict(claim_id, second)
    assert before in VERDICTS and after in VERDICTS and after != before


@pytest.mark.parametrize("claim_id", sorted(NUMBER_FLIPS))
def test_verdict_flips_on_modified_numbers(claim_id):
    rule = RULE[claim_id]
    assert rule.needs == ()
    numbers = rule.measure({}, CONFIG)
    before, after = rule.verdict(numbers), rule.verdict(NUMBER_FLIPS[claim_id](numbers))
    assert before in VERDICTS and after in VERDICTS and after != before


def test_every_verdict_has_a_flip_test():
    untested = set(RULE) - set(FRAME_FLIPS) - set(NUMBER_FLIPS)
    assert not untested, f"verdicts without a flip test: {sorted(untested)}"
    assert not (set(FRAME_FLIPS) | set(NUMBER_FLIPS)) - set(RULE), "flip tests of claims that no longer exist"


def test_every_row_states_its_decision_rule_and_has_unique_id():
    assert len(RULE) == len(RULES)
    for claim_id, (frames, _) in FRAME_FLIPS.items():
        assert "Decision rule: " in RULE[claim_id].decide(frames, CONFIG).evidence


def test_every_frame_claim_reads_only_the_frames_it_needs():
    for claim_id, (frames, _) in FRAME_FLIPS.items():
        assert set(RULE[claim_id].needs) <= set(frames), claim_id


def test_thm8_generalization_partial_and_not_tested():
    """Holds when the printed pair is implied at every non-vacuous point, partial when at some, not_tested at none."""
    assert _verdict("thm8_generalization_bound", f9_generalization((2e-6, 0.9e-6))) == "partial"
    assert _verdict("thm8_generalization_bound", f9_generalization((0.9e-6, 0.9e-6))) == "not_tested"
