"""The query-release experiment (Algorithm 16, Theorem 8): config snippets against the schema, the sweep and the
exact audit on the quick section, the exact audit's formulas against Monte Carlo of the real pipeline, claims, and the
figure."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import jsonschema
import matplotlib
import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from dplab.mechanisms.mwem import algorithm16_parameters
from dplab.mechanisms.purification import binmap, binmap_inverse, purified_bits_log_pmf, purify_bits
from dplab.report.claims import VERDICTS, build_rules, claims_frame
from dplab.studies.purification.claims_query_release import QUERY_RELEASE_RULES
from dplab.studies.purification.plan import sweep_points
from dplab.studies.purification.plots_query_release import plot_query_release
from dplab.studies.purification.query_release import query_release_audit
from dplab.studies.purification.sections import SECTION_QUERY_RELEASE, constraints_query_release
from dplab.workflow.config import load_config, study_schema
from dplab.workflow.registry import compute_artifact, load_study

SCHEMA_QUERY_RELEASE = study_schema("purification")["properties"][SECTION_QUERY_RELEASE]

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["purification"]["query_release"]
FULL = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))["purification"]["query_release"]
SEED = 20200114


def query_release_sweep(params, seed):
    return compute_artifact(load_study("purification").artifact("ext_query_release"), params, seed)


@pytest.fixture(scope="module")
def frames(csv_roundtrip):
    return {
        "ext_query_release": csv_roundtrip(query_release_sweep(QUICK, SEED)),
        "ext_query_release_audit": csv_roundtrip(query_release_audit(QUICK, SEED)),
    }


@pytest.mark.parametrize("section", [QUICK, FULL], ids=["quick", "full"])
def test_snippets_validate(section):
    jsonschema.Draft202012Validator(SCHEMA_QUERY_RELEASE).validate(section)
    assert constraints_query_release(section) == []


def test_bad_values_are_named():
    bad = copy.deepcopy(QUICK)
    bad["query_families"] = ["stars"]
    with pytest.raises(jsonschema.ValidationError, match="stars"):
        jsonschema.Draft202012Validator(SCHEMA_QUERY_RELEASE).validate(bad)
    bad = copy.deepcopy(QUICK)
    bad["bias_low"] = 0.95
    assert constraints_query_release(bad) == [
        "config key 'purification.query_release.bias_low': value 0.95 is invalid; allowed: < bias_high = 0.9"
    ]
    bad = copy.deepcopy(QUICK)
    bad["n_sweep"] = [50]
    [message] = constraints_query_release(bad)
    assert message.startswith("config key 'purification.query_release.n_sweep': value 50 is invalid; allowed: >= 2^d")


def test_sweep_frame(frames):
    sweep = frames["ext_query_release"]
    points = sweep_points(QUICK)
    methods = {
        "alg16_purified",
        "alg16_mwem_stage",
        "alg16_sampled",
        "mwem_reference",
        "pure_mwem",
        "laplace_answers",
        "laplace_histogram",
    }
    assert set(sweep["method"]) == methods
    assert len(sweep) == len(points) * len(QUICK["query_families"]) * len(methods) * QUICK["seeds"]
    assert np.isfinite(sweep["error_linf"]).all() and (sweep["error_linf"] >= 0).all()
    assert sweep["records_in_universe"].all()
    assert sweep["adjacency"].str.startswith("add_remove").all()
    alg = sweep[sweep["method"] == "alg16_purified"]
    assert (
        alg["pure"].all() and np.isfinite(alg[["log_delta", "log_omega", "epsilon_prime", "laplace_scale"]]).all().all()
    )
    assert (alg["epsilon_prime"] == alg["epsilon_total"] / 2).all()
    assert (alg["epsilon_upstream_approx"] <= alg["epsilon_total"] / 2).all()
    assert set(sweep.loc[sweep["pure"], "method"]) == {
        "alg16_purified",
        "pure_mwem",
        "laplace_answers",
        "laplace_histogram",
    }


def test_sweep_is_reproducible():
    small = copy.deepcopy(QUICK)
    small.update(n_sweep=[10000], query_families=["half_subsets"])
    a, b = query_release_sweep(small, 7), query_release_sweep(small, 7)
    pd.testing.assert_frame_equal(a, b)


def test_audit_frame_within_bounds(frames):
    audit = frames["ext_query_release_audit"]
    n_cells = 2 ** QUICK["audit"]["d"]
    assert len(audit) == 3 * n_cells
    checked = audit[audit["mechanism"] != "alg16_sampled_unpurified"]
    assert checked["within_bound"].all()
    assert (audit["epsilon_inf"] <= audit["bound_effective"] + 1e-9).all()  # basic composition of the used rounds
    post = audit.pivot_table(index="neighbour_cell", columns="mechanism", values="epsilon_inf")
    assert (post["alg16_purified"] <= post["alg16_sampled_unpurified"] + 1e-12).all()


def test_purified_pmf_matches_monte_carlo_of_purify_bits():
    """Exact law of purify_bits's output (flips and mixing visible at log δ = −0.4, 3 bits) against Monte Carlo."""
    rng = np.random.default_rng(4)
    log_pmf = np.log(np.array([0.5, 0.1, 0.0, 0.1, 0.05, 0.05, 0.0, 0.2]) + 1e-300)
    from dplab.mechanisms.purification import discrete_purification_shift

    b = 2 * discrete_purification_shift(3, -0.4) / 1.0
    exact = np.exp(purified_bits_log_pmf(log_pmf, 3, b))
    assert exact.sum() == pytest.approx(1.0, abs=1e-12)
    runs = 200000
    inputs = rng.choice(8, size=runs, p=np.exp(log_pmf) / np.exp(log_pmf).sum())
    out, _ = purify_bits(binmap(inputs, 3), 1.0, -0.4, rng)
    observed = np.bincount(binmap_inverse(out), minlength=8)
    assert stats.chisquare(observed, exact * runs).pvalue > 1e-3


def test_audit_parameters_follow_algorithm16():
    audit = QUICK["audit"]
    frame = query_release_audit(QUICK, SEED)
    row = frame[frame["mechanism"] == "alg16_purified"].iloc[0]
    par = algorithm16_parameters(audit["n"], audit["d"], audit["k"], audit["epsilon_total"] / 2, m=audit["alg16_m"])
    assert row["log_delta"] == pytest.approx(par.log_delta)
    assert row["epsilon0"] == pytest.approx(math.sqrt(par.rho / audit["alg16_rounds"]))


def test_claims(frames):
    claims = build_rules(QUERY_RELEASE_RULES, frames, {"query_release": QUICK})
    frame = claims_frame(claims)
    assert set(frame["verdict"]) <= set(VERDICTS)
    assert frame["evidence"].str.len().min() > 20
    assert {
        "thm8_query_release_rate",
        "thm8_purified_mwem_pure_dp_audit",
        "lemma36_mwem_accounting",
        "alg16_purification_needed",
        "alg16_vs_pure_baselines",
        "table1_mwem_rate_before",
    } == set(frame["claim_id"])
    assert frame.set_index("claim_id").loc["thm8_purified_mwem_pure_dp_audit", "verdict"] == "holds"


def test_plot_draws(frames):
    fig = plot_query_release(frames["ext_query_release"], QUICK)
    assert len(fig.axes) == 4 * len(QUICK["query_families"])
