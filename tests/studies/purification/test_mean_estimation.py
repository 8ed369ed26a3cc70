"""Mean estimation (ext_mean_estimation; Section 7 of Lin, Wang, Ma, Wang): reference values recomputed independently
(scipy's chi distribution, numerical integration, Monte Carlo with a CI), Theorem 9's range, the quick compute, schema,
claims and the plot."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import jsonschema
import matplotlib
import numpy as np
import pytest
import yaml
from scipy import stats

from dplab.mechanisms.gaussian import agm_sigma
from dplab.mechanisms.noise_norms import laplace_l2_norm_mean
from dplab.report.claims import VERDICTS, build_rules, claims_frame
from dplab.studies.purification.claims_statistics import MEAN_RULES
from dplab.studies.purification.mean_estimation import compute, mean_estimation_errors
from dplab.studies.purification.plots_statistics import plot_mean_estimation
from dplab.studies.purification.sections import SECTION_MEAN_ESTIMATION, constraints_ext_mean_estimation
from dplab.theory.mean_estimation import (
    log10_purification_scale,
    mean_estimation_log_delta,
    sample_data_mean,
    theorem9_log_delta_range,
    theorem9_lower_bound,
)
from dplab.theory.purification import purification_laplace_scale, purification_shift
from dplab.workflow.config import load_config, study_schema

SCHEMA_EXT_MEAN_ESTIMATION = study_schema("purification")["properties"][SECTION_MEAN_ESTIMATION]

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["purification"]["mean_estimation"]
FULL = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))["purification"]["mean_estimation"]
N = 10**4


@pytest.fixture(scope="module")
def frame():
    return compute(QUICK, 20200114)


def test_reference_values_at_n_1e4():
    log_delta, log_omega = mean_estimation_log_delta(N, 10)
    assert -log_delta == pytest.approx(259.62, abs=5e-3)
    sigma = float(agm_sigma(1.0, log_delta, 2 / N))
    assert sigma == pytest.approx(4.471e-3, rel=1e-4)
    assert math.sqrt(10) * sigma == pytest.approx(0.01414, rel=1e-3)  # the RMS sqrt(d) sigma, not the mean norm
    # exact E||.||_2 (chi distribution for the Gaussian), eps = 1 for each component
    for d, purified, gauss, laplace, knorm in (
        (10, 0.01379, 0.00261, 0.00268, 0.00200),
        (100, 0.1453, 0.00843, 0.02811, 0.0200),
    ):
        ld = mean_estimation_log_delta(N, d)[0]
        assert float(agm_sigma(1.0, ld, 2 / N)) * stats.chi(d).mean() == pytest.approx(purified, rel=5e-4)
        assert float(agm_sigma(1.0, math.log(1e-6), 2 / N)) * stats.chi(d).mean() == pytest.approx(gauss, rel=2e-3)
        assert laplace_l2_norm_mean(d, 2 * math.sqrt(d) / N) == pytest.approx(laplace, rel=2e-3)
        assert d * (2 / N) / 1.0 == pytest.approx(knorm)


def test_purification_shift_is_cor4_form():
    log_delta, log_omega = mean_estimation_log_delta(N, 10)
    shift = purification_shift(10, math.inf, 2 / math.sqrt(10), log_delta, log_omega)
    assert shift == pytest.approx(1 / (8 * math.sqrt(10) * N**2), rel=1e-10)
    b = purification_laplace_scale(shift, 0.5)
    assert 10 ** log10_purification_scale(10, 2 / math.sqrt(10), log_delta, log_omega, 0.5) == pytest.approx(
        b, rel=1e-12
    )
    assert math.isfinite(log10_purification_scale(10, 1.0, -1e6, log_omega, 0.5))  # b itself underflows to 0


def test_monte_carlo_errors_within_ci_of_exact_means():
    rng = np.random.default_rng(1)
    mean = sample_data_mean(N, 10, 0.7, rng)
    for row in mean_estimation_errors(mean, N, 2.0, math.log(1e-6), 20_000, rng):
        assert abs(row["error_mean"] - row["expected_error"]) < 4 * row["error_sem_draws"], row["method"]
        assert row["in_domain"]


def test_sample_data_mean_distribution():
    draws = np.array([sample_data_mean(1000, 4, 0.7, np.random.default_rng(s)) for s in range(2000)])
    assert np.all(np.abs(draws) <= 0.5 + 1e-12)
    assert draws.mean() == pytest.approx(0.4 / 2, abs=3 * 0.5 * 2 * math.sqrt(0.21 / 1000) / math.sqrt(8000))


def test_theorem9_range_and_bound():
    lo, hi = theorem9_log_delta_range(1000, 10)
    assert lo == pytest.approx(-7813.17, abs=0.01) and hi == pytest.approx(
        -100.014, abs=1e-3
    )  # Theorem 9's range, n = 1000, d = 10
    value = float(theorem9_lower_bound(1000, 10, 1.0, -200.0))
    assert value == pytest.approx(math.sqrt(2000) / (2000 * math.log(10) * math.log(10000)), rel=1e-12)


def test_compute_quick_frame(frame):
    dim = frame[frame["panel"] == "dimension"]
    assert len(dim) == 5 * len(QUICK["ds"]) * len(QUICK["epsilons"]) * QUICK["seeds"]
    assert len(frame[frame["panel"] == "delta"]) == 2 * len(QUICK["delta_sweep"]["log10_deltas"]) * QUICK["seeds"]
    assert set(frame["adjacency"]) == {"replace_one"}
    assert np.isfinite(frame.loc[frame["panel"] != "audit", "error_mean"]).all()
    assert frame["in_domain"].all()
    pur = dim[dim["method"] == "purified_gaussian"]
    assert np.isfinite(pur[["epsilon_total", "log_delta", "omega", "epsilon_prime", "laplace_scale"]]).all().all()
    audit = frame[frame["panel"] == "audit"]
    full = audit[audit["treatment"] == "full"]
    assert (full["epsilon_inf"] <= full["bound"] + 1e-9).all()
    again = compute(QUICK, 20200114)
    assert again.equals(frame)


def test_schema_and_constraints():
    validator = jsonschema.Draft202012Validator(SCHEMA_EXT_MEAN_ESTIMATION)
    for section in (QUICK, FULL):
        validator.validate(section)
        assert constraints_ext_mean_estimation(section) == []
    bad = copy.deepcopy(QUICK)
    bad["reference_delta"] = 1.5
    assert any("1.5" in e.message for e in validator.iter_errors(bad))
    bad = copy.deepcopy(QUICK)
    bad["audit"]["mean"] = 0.999
    assert constraints_ext_mean_estimation(bad) == [
        "config key 'purification.mean_estimation.audit.mean': value 0.999 is invalid; allowed: <= 1 - 2/audit.n = 0.98 "
        "(the neighbouring mean must stay in [-1, 1])"
    ]


def test_claims_and_plot(frame):
    claims = build_rules(MEAN_RULES, {"ext_mean_estimation": frame}, config={})
    table = claims_frame(claims)
    assert set(table["verdict"]) <= set(VERDICTS) and (table["evidence"].str.len() > 20).all()
    assert {"e5_purified_mean_is_pure_dp", "thm9_lower_bound_consistent"} <= set(table["claim_id"])
    assert table.set_index("claim_id").loc["e5_purified_mean_is_pure_dp", "verdict"] == "holds"
    fig = plot_mean_estimation(frame, QUICK)
    assert len(fig.axes) == 3
