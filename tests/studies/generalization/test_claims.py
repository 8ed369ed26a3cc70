"""Study-specific checks of the generalization claims: the helpers their rules use, against exact computations and
small frames; the row order, ids and index reasons of the committed claims.csv. (Every rule's flip cases are in
flips.py, run by tests/studies/test_claim_flips.py; the independent recomputation of every erratum and fails row is in
test_errata_recomputed.py.)"""

from __future__ import annotations

from pathlib import Path

import mpmath
import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from dplab.report.index import first_sentence
from dplab.studies.generalization.claims import RULES
from dplab.studies.generalization.claims_common import one_step_delta, standard_error
from dplab.studies.generalization.claims_composition import first_step_below_lower_bound, first_steps
from dplab.studies.generalization.claims_empirical import gap_versus_noise, together_verdict
from dplab.studies.generalization.claims_sgld import printed_bounds, rate_slopes
from dplab.theory.generalization import composition_certificates, sgld_linear_loss_delta, sgld_privacy

ROOT = Path(__file__).resolve().parents[3]
CLAIMS = pd.read_csv(ROOT / "results" / "generalization" / "claims.csv", keep_default_na=False)
#: The row order of claims.csv before the one-declaration rewrite (issue 25): kept, with every claim id.
ORDER = (
    "lemma5_tighter_kl thm1_tighter_than_nissim_stemmer erratum_thm1_intro_factor_2 thm2_tighter_than_nissim_stemmer "
    "thm3_probability_at_least_epsilon erratum_thm3_proof_inequality erratum_lemma4_hoeffding_exponent "
    "abstract_strictly_tighter composition_epsilon_equals_kov composition_delta_tighter_than_kov "
    "erratum_composition_below_lower_bound erratum_cor3_sign composition_fair_comparison erratum_b4_worst_case_pair "
    "thm5_composition_iv lemma6_boundary_maximum erratum_sgld_factor_2 erratum_sgld_subsampling erratum_thm7_delta_tilde "
    "erratum_thm8_epsilon_tilde sgld_generalization_bound remarks_rate_t_over_sqrt_n thm7_conclusion_small_noise "
    "thm8_conclusion_small_noise thm8_generalization_bound erratum_wang_t_greater e1_gap_below_bounds "
    "e1_bound_model_size_free e1_privacy_and_generalization_together"
).split()


def test_rules_and_the_committed_rows_keep_the_order_and_ids():
    assert [rule.claim_id for rule in RULES] == ORDER
    assert CLAIMS["claim_id"].tolist() == ORDER


def test_every_index_reason_is_a_short_whole_sentence():
    """The index shows the first whole sentence of each evidence: at most 300 characters, never the whole text."""
    for claim_id, evidence in zip(CLAIMS["claim_id"], CLAIMS["evidence"], strict=True):
        reason = first_sentence(evidence)
        assert len(reason) <= 300 and reason != evidence and reason.endswith("."), claim_id


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
    assert first_step_below_lower_bound(0.1, 1e-6, 1e-6, "cor3_corrected", 32) is None


def test_first_steps_name_the_exact_and_the_grid_step():
    columns = ["epsilon_step", "delta_step", "delta_tilde", "method", "t", "below_lower_bound"]
    frame = pd.DataFrame([(0.1, 1e-6, 1e-6, "cor3_corrected", t, t > 30) for t in (30, 36, 42)], columns=columns)
    assert first_steps(frame) == ["eps=0.1 cor3_corrected: from T=33 (exact first integer T; grid point 36)"]


def _one_step_quadrature(eps: float, q: float, mu: float) -> float:
    """max over both orders of int [p - e^eps r]_+ for p = (1-q) N(0,1) + q N(mu,1), r = N(0,1): mpmath quadrature
    split where the log density ratio log(1 - q + q e^(mu x - mu^2/2)) (increasing in x) crosses +-eps (brentq)."""
    mpmath.mp.dps = 30

    def phi(x, m=0.0):
        return mpmath.exp(-((x - m) ** 2) / 2) / mpmath.sqrt(2 * mpmath.pi)

    def mix(x):
        return (1 - q) * phi(x) + q * phi(x, mu)

    def crossing(level: float) -> float:
        return optimize.brentq(lambda x: np.log1p(q * np.expm1(mu * x - mu**2 / 2)) - level, -60, 60)

    forward = mpmath.quad(lambda x: mix(x) - mpmath.e**eps * phi(x), [crossing(eps), mu + 10, mpmath.inf])
    if -eps <= np.log1p(-q):  # the ratio never falls below e^-eps: the backward order is 0
        return float(forward)
    backward = mpmath.quad(lambda x: phi(x) - mpmath.e**eps * mix(x), [-mpmath.inf, -10, crossing(-eps)])
    return float(max(forward, backward))


@pytest.mark.parametrize(("eps", "q", "mu"), [(0.0436522, 0.01, 0.4), (0.7734, 0.01, 2.0), (0.01, 0.5, 1.0)])
def test_one_step_delta_against_quadrature_and_dp_accounting(eps, q, mu):
    """The closed form of the linear-loss pair's one-step delta (both orders) against mpmath quadrature of the two
    densities and against dp_accounting's privacy loss distribution (pessimistic, so at least the exact value)."""
    exact = float(one_step_delta(eps, q, mu))
    assert exact == pytest.approx(_one_step_quadrature(eps, q, mu), rel=1e-6, abs=1e-15)
    tau, sigma = 10, 2.0 / (10 * mu)  # mu = 2L/(tau sigma) with L = 1
    pld = sgld_linear_loss_delta(eps, N=tau / q, tau=tau, L=1.0, sigma=sigma, steps=1)
    assert exact <= pld * (1 + 1e-9) and pld == pytest.approx(exact, rel=1e-3, abs=1e-12)


def test_standard_error_inverts_a_student_t_interval():
    values = np.array([0.01, 0.03, 0.02, 0.05, 0.04])
    half = stats.t.ppf(0.975, 4) * values.std(ddof=1) / np.sqrt(5)
    se = standard_error(pd.Series([values.mean() - half]), pd.Series([values.mean() + half]), pd.Series([5]), 0.95)
    assert se.iloc[0] == pytest.approx(values.std(ddof=1) / np.sqrt(5), rel=1e-12)


def test_printed_bounds_recompute_the_uncapped_eps_of_theorem_7():
    """Theorem 7's eps' written out: sqrt(8 log(1/dt) (tau/N)^2 T eps~^2) + 2T (tau/N) eps~ tanh((tau/N) eps~); the
    study's as-printed frames cap it at T eps_s, the claims do not."""
    n, tau, sigma, dt = 1e4, 100, 0.5, 1e-6
    steps = np.array([1, 10, 30, 1000])
    privacy = sgld_privacy(n, tau, steps, sigma, 1.0, 1e-6, dt, "as_printed")
    frame = pd.DataFrame({"n": n, "t": steps, "variant": "as_printed", "eps_step": privacy["eps_step"]})
    out = printed_bounds(frame.assign(delta_prime=privacy["delta_prime"]), "n", dt)
    q, et = tau / n, float(privacy["eps_tilde"])
    printed = np.sqrt(8 * np.log(1 / dt) * q**2 * steps * et**2) + 2 * steps * q * et * np.tanh(q * et)
    np.testing.assert_allclose(out["eps_prime"], printed, rtol=1e-12)
    capped = np.asarray(privacy["eps_prime"])
    assert (capped[:2] < printed[:2]).all() and np.allclose(capped[2:], printed[2:], rtol=1e-12)


def test_remark_rate_slopes_on_an_exact_power_law():
    """hp_bound = N^-0.75 T^0.5 and failure probability N^0.5 T^0.5: the fitted slopes are the exponents."""
    rows = [(n, t, n**-0.75 * t**0.5, n**0.5 * t**0.5) for n in (1e4, 1e5, 1e6) for t in (10, 100, 1000)]
    frame = pd.DataFrame(rows, columns=["n", "t", "hp_bound", "failure_probability"]).assign(sigma=1.0)
    slopes = rate_slopes(frame, "n", ["sigma"])
    assert slopes["a_n"] == pytest.approx((-0.75, -0.75)) and slopes["a_t"] == pytest.approx((0.5, 0.5))
    assert slopes["b_n"] == pytest.approx((0.5, 0.5)) and slopes["b_t"] == pytest.approx((0.5, 0.5))


def _cell(d: int, noiseless: tuple, noisy: tuple, change: tuple, datasets: int = 40) -> list[dict]:
    """Two F8 rows of one (d, N = 1000, T = 1000) cell: (mean, low, high) of the gap at sigma = 0 and 2 and of the
    paired change."""
    base = {"d": d, "n": 1000, "t": 1000, "datasets": datasets, "max_abs_gap": 0.05, "hp_bound_valid": 0.5}
    names, changes = (
        ("mean_gap", "gap_ci_low", "gap_ci_high"),
        ("gap_change", "gap_change_ci_low", "gap_change_ci_high"),
    )
    return [
        {**base, "sigma": 0.0, **dict(zip(names, noiseless)), **dict(zip(changes, (0.0, 0.0, 0.0))),
         "on_average_valid": np.nan, "hp_vacuous_valid": True},
        {**base, "sigma": 2.0, **dict(zip(names, noisy)), **dict(zip(changes, change)), "on_average_valid": 0.2,
         "hp_vacuous_valid": False},
    ]  # fmt: skip


def test_together_decides_with_two_standard_errors_of_the_interval():
    """A cell resolves, and a change counts, only beyond 2 standard errors (recovered from the t interval): a change
    of -0.02 with standard error 0.0099 (t interval half-width 0.02 over 40 sets) does not count, with 0.003 it does."""
    half = 0.01 * stats.t.ppf(0.975, 39)  # the half-width of a t interval whose standard error is 0.01
    weak = _cell(10, (0.028, 0.024, 0.032), (0.008, 0.003, 0.013), (-0.0199, -0.0199 - half, -0.0199 + half))
    strong = _cell(50, (0.028, 0.024, 0.032), (0.008, 0.003, 0.013), (-0.02, -0.026, -0.014))
    unresolved = _cell(20, (0.0001, -0.0003, 0.0005), (0.0, -0.0004, 0.0004), (-0.0001, -0.0006, 0.0004))
    cells = gap_versus_noise(pd.DataFrame(weak + strong + unresolved), 0.95)
    assert cells["resolvable"].tolist() == [True, False, True]  # ordered by (d, n, t)
    assert cells["shrinks"].tolist() == [False, False, True]
    assert together_verdict(cells) == ("partial", 0.5)
    assert together_verdict(gap_versus_noise(pd.DataFrame(strong + unresolved), 0.95)) == ("holds", 1.0)


def test_thm8_generalization_is_not_tested_where_nothing_is_implied():
    """With the valid pair above the printed one in both coordinates at every non-vacuous point, the bound neither
    follows nor is refuted: not_tested (no federated experiment measures the gap)."""
    rule = {r.claim_id: r for r in RULES}["thm8_generalization_bound"]
    f9 = pd.read_csv(ROOT / "results" / "generalization" / "data" / "f9.csv")
    f9.loc[f9["variant"] == "substitution", ["eps_prime", "delta_prime"]] = (10.0, 0.5)
    config = {"federated": {"delta_tilde": 1e-6}}
    assert rule.decide({"f9": f9}, config).verdict == "not_tested"
