"""Flip cases of the purification claims (run by ``tests/studies/test_claim_flips.py``): for every rule, a case on
which it holds and one on which it fails (or, for an erratum rule, is an erratum).

Frames are built small here, by the study's own functions (Table 1, Example 8, Theorem 2's table, Algorithm 11's
dimension table) or by hand with the real columns; claims decided by closed forms alone flip on their numbers."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from dplab.studies.purification.alg11_dimension import alg11_dimension_table
from dplab.studies.purification.curves import example8_samples, table1, theorem2_utility

ROOT = Path(__file__).resolve().parents[3]
STUDY_CONFIG = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["purification"]
ERM = {"n_sweep": {"epsilon": 2.0}, "epsilon_sweep": {"n": 1000}, "max_steps_paper": 100}
CONFIG = {"dp_erm": ERM, "dp_erm_sc": ERM, "mode_release": {"epsilon_total": 2.0, "success_level": 0.9}}


# --------------------------------------------------------------------------------------------- frame builders


def fig1(crossing: float) -> dict[str, pd.DataFrame]:
    """Laplace variance 2; the Gaussian's 2 log(1/delta)/log(1/crossing) exceeds it exactly below ``crossing``."""
    delta = np.logspace(-8, -0.05, 60)
    gauss = pd.DataFrame(
        {"delta": delta, "mechanism": "analytic_gaussian", "variance": 2 * np.log(delta) / math.log(crossing)}
    )
    lap = pd.DataFrame({"delta": delta, "mechanism": "laplace", "variance": 2.0})
    return {"fig1": pd.concat([gauss, lap], ignore_index=True)}


def exact_audit(**changes: float) -> dict[str, pd.DataFrame]:
    """M1, M2 purified within the bound 2, infinite without Laplace, Laplace alone and a halved scale above it."""
    values = {
        ("M1", "full"): 1.5,
        ("M2", "full"): 1.2,
        ("M1", "none"): math.inf,
        ("M2", "none"): math.inf,
        ("M1", "mixing_only"): math.inf,
        ("M2", "mixing_only"): math.inf,
        ("M1", "laplace_only"): 3.0,
        ("M1", "full_scale_x1"): 1.9,
        ("M1", "full_scale_x0.5"): 2.5,
    }
    values.update({tuple(key.split("__")): v for key, v in changes.items()})
    rows = [(m, t, v) for (m, t), v in values.items()]
    frame = pd.DataFrame(rows, columns=["mechanism", "treatment", "epsilon_inf"])
    return {"ext_exact_audit": frame.assign(epsilon=1.0, delta=1e-3, omega=0.01, epsilon_prime=1.0, bound=2.0)}


def mc_audit(purified_lb: float) -> dict[str, pd.DataFrame]:
    rows = [
        ("M1", "full", 1e4, 0.5, 1.0),
        ("M1", "full", 1e6, purified_lb, 1.0),
        ("M1", "none", 1e4, 1.0, math.inf),
        ("M1", "none", 1e6, 3.0, math.inf),
    ]
    return {
        "ext_mc_audit": pd.DataFrame(
            rows, columns=["mechanism", "treatment", "n_samples", "epsilon_lb", "epsilon_exact"]
        )
    }


ERM_BASE = {
    "purified_dpsgd": (10.0, -1.0),
    "dpsgd_before_purification": (10.0, -1.0),
    "purified_dpsgd_tuned": (5.0, -1.0),
    "laplace_gd": (1.0, -0.5),
    "dpsgd_reference": (0.01, -0.1),
    "exponential_mechanism": (0.1, -1.0),
}


def erm(sc: bool = False, shift_before: float = 0.0, **rates: tuple[float, float]) -> dict[str, pd.DataFrame]:
    """Excess risk c n^slope per method, two replicates, on the n sweep and (at n = 1000) the eps sweep."""
    rows = []
    for method, (c, slope) in {**ERM_BASE, **rates}.items():
        for n in (500, 1000, 2000, 4000):
            for replicate in (0, 1):
                risk = c * n**slope + (shift_before if method == "dpsgd_before_purification" else 0.0)
                rows.append((n, method, replicate, risk, n == 1000, method == "dpsgd_reference"))
    frame = pd.DataFrame(rows, columns=["n", "method", "replicate", "excess_risk", "in_epsilon_sweep", "capped"])
    frame = frame.assign(epsilon_total=2.0, in_n_sweep=True, steps=10)
    return {"ext_dp_erm_sc" if sc else "ext_dp_erm": frame}


def fig3(above: bool) -> dict[str, pd.DataFrame]:
    alpha = np.linspace(0.01, 0.99, 50)
    low = 1 - alpha - 0.05
    frame = pd.concat(
        [
            pd.DataFrame({"alpha": alpha, "curve": "eps_delta", "beta": low + (0.02 * (alpha > 0.5) if above else 0)}),
            pd.DataFrame({"alpha": alpha, "curve": "eps_plus_eps_prime_0", "beta": low + 0.01}),
        ]
    )
    return {"fig3": frame.assign(crossing_alpha=0.5)}


def fig2(**columns: float) -> dict[str, pd.DataFrame]:
    frame = example8_samples({"delta_tilde": 0.3, "n_samples": 2000, "n_levels_1d": 200001}, seed=3)
    return {"fig2": frame.assign(**columns)}


QR_METHODS = {  # method -> (constant, slope in n) of the mean l_inf error
    "alg16_purified": (1.0, -1 / 3),
    "alg16_sampled": (1.0, -1 / 3),
    "mwem_reference": (1.0, -0.5),
    "pure_mwem": (2.0, -0.5),
    "laplace_answers": (3.0, -1.0),
    "laplace_histogram": (4.0, -1.0),
}


def query_release(upstream_approx=0.9, upstream_pure=2.0, **rates: tuple[float, float]) -> dict[str, pd.DataFrame]:
    """One query family on an n sweep at eps_tot = 2; the upstream epsilons as fractions of eps = eps_tot/2."""
    rows = [
        (method, n, replicate, c * n**slope)
        for method, (c, slope) in {**QR_METHODS, **rates}.items()
        for n in (1e3, 1e4, 1e5)
        for replicate in (0, 1)
    ]
    frame = pd.DataFrame(rows, columns=["method", "n", "replicate", "error_linf"])
    frame = frame.assign(d=6, k=20, epsilon_total=2.0, query_family="conjunctions", in_n_sweep=True)
    frame = frame.assign(in_epsilon_sweep=False, in_d_sweep=False, capped=False, rate_theorem8=frame["n"] ** (-1 / 3))
    return {
        "ext_query_release": frame.assign(
            epsilon_upstream_approx=upstream_approx,
            epsilon_upstream_pure=upstream_pure,
            log_delta=-100.0,
            rounds=10,
            bits_flipped=0,
            mixed=False,
            n_bits=6,
            laplace_scale=1e-6,
        )
    }


def query_release_audit(purified_within: bool) -> dict[str, pd.DataFrame]:
    rows = [
        ("pure_mwem_transcript", 0, 0.9, True),
        ("alg16_sampled_unpurified", 0, 5.0, False),
        ("alg16_purified", 0, 1.5 if purified_within else 2.5, purified_within),
    ]
    frame = pd.DataFrame(rows, columns=["mechanism", "neighbour_cell", "epsilon_inf", "within_bound"])
    return {"ext_query_release_audit": frame.assign(d=3, n=4, k=2, epsilon_total=2.0, bound=2.0, bound_effective=1.0)}


def mean_estimation(pur_slope=1.0, knorm_slope=1.0, bound_scale=1e-3, paper=-100.0, audit_eps=0.9) -> dict:
    """Errors c d^slope in d (eps_tot = 1); the Gaussian's 0.01 sqrt(log(1/delta)) above Theorem 9's bound
    (bound_scale sqrt(log(1/delta))), the purified error smallest at log delta = -100; the audit at bound 1."""
    ds, lds = np.array([2.0, 4.0, 8.0, 16.0, 32.0]), np.array([-400.0, -200.0, -100.0, -50.0, -25.0])
    dimension = pd.concat(
        [
            pd.DataFrame({"method": m, "d": ds, "error_mean": c * ds**k, "expected_error": 0.1 * ds})
            for m, c, k in (
                ("purified_gaussian", 0.1, pur_slope),
                ("l2_knorm", 0.05, knorm_slope),
                ("gaussian_reference", 0.1, 0.5),
            )
        ]
    ).assign(panel="dimension")
    delta = pd.concat(
        [
            pd.DataFrame({"method": "gaussian_at_delta", "log_delta": lds, "error_mean": 0.01 * np.sqrt(-lds)}),
            pd.DataFrame({"method": "purified_gaussian", "log_delta": lds, "error_mean": 1 + np.abs(lds + 100) / 10}),
        ]
    ).assign(panel="delta", theorem9_lower_bound=bound_scale * np.sqrt(-np.tile(lds, 2)), theorem9_valid=True)
    delta = delta.assign(
        paper_log_delta=paper, pure_rate=0.5, theorem9_log_delta_min=-500.0, theorem9_log_delta_max=-1.0
    )
    audit = pd.DataFrame(
        {"treatment": ["full", "none"], "epsilon_inf": [audit_eps, 3.0], "panel": "audit", "bound": 1.0}
    )
    frame = pd.concat([dimension, delta, audit], ignore_index=True).assign(epsilon_total=1.0, n=1000)
    return {"ext_mean_estimation": frame.assign(d=frame["d"].fillna(8.0))}


def regression(pure_slope=-1.0, reference=0.1, composed_gap=-1.0, before=1.0, laplace=2.0) -> dict:
    """Pure AdaSSP's excess MSE n^pure_slope against the rate 1/n; the other methods as multiples of it."""
    rows = []
    for n in (1e3, 1e4, 1e5):
        pure = n**pure_slope
        for method, error in (
            ("pure_adassp", pure),
            ("adassp_at_purification_delta", pure * before),
            ("adassp_reference", pure * reference),
            ("laplace_ssp", pure * laplace),
        ):
            rows.append((method, n, error, 1 / n))
    frame = pd.DataFrame(rows, columns=["method", "n", "excess_mse_mean", "rate_after"])
    frame = frame.assign(d=5, epsilon_total=1.0, log_delta=-100.0, log_delta_composed_exact=-100.0 + composed_gap)
    return {
        "ext_linear_regression": frame.assign(log_delta_per_release_exact=-30.0, log_delta_per_release_target=-31.0)
    }


def ptr(error_over_bound=0.5, gs_error=1e4) -> dict[str, pd.DataFrame]:
    """Purified Alg. 11 at a fixed fraction of its explicit bound 10/eps + 5/eps^2 (two seeds)."""
    rows = []
    for n_v in (100, 1000):
        for eps_tot in (1.0, 2.0, 4.0):
            eps = eps_tot / 3
            bound = 10 / eps + 5 / eps**2
            for graph, jitter in ((0, 0.99), (1, 1.01)):
                for method, error in (
                    ("alg11_purified", error_over_bound * bound * jitter),
                    ("alg11_reference", 0.5 * bound),
                    ("gs_laplace", gs_error),
                    ("smooth_sensitivity", 0.1 * bound),
                    ("alg10_ptr_purified", 0.2 * bound),
                ):
                    rows.append((n_v, eps_tot, graph, method, error, eps))
    frame = pd.DataFrame(rows, columns=["n_vertices", "epsilon_total", "graph", "method", "mean_abs_error", "epsilon"])
    frame = frame.assign(median_abs_error=frame["mean_abs_error"], edge_probability=0.1, local_sensitivity=10.0)
    frame = frame.assign(bound_offset=5 / frame["epsilon"], laplace_scale=0.0, omega=0.0, domain_diameter=1.0)
    return {"ext_ptr": frame.assign(refusal_rate=0.01)}


def ptr_audit(lower_bound=1.0) -> dict[str, pd.DataFrame]:
    frame = pd.DataFrame(
        [
            ("mc_audit", "alg11_purified", 1e6, lower_bound, 3.0),
            ("sensitivity_check", "bruteforce_edge_flips", np.nan, np.nan, np.nan),
        ],
        columns=["kind", "method", "n_samples", "epsilon_lb", "bound"],
    )
    frame = frame.assign(n_graphs=20, check_vertices=5, max_local_sensitivity_change=1.0, local_sensitivity_matches=20)
    return {**ptr(), "ext_ptr_audit": frame}


def mode_release(growth=0.0, corrected_success=0.99999, printed_success=0.2) -> dict[str, pd.DataFrame]:
    """Gaps per method and d on the 'all_runner_up' layout (RNM d/eps; Alg. 12 3 log(8 d^3/eps) d^growth times RNM),
    exact success at a gap of 50 >= 4 ceil(10/eps)."""
    rows = []
    for d in (2, 4, 8, 16):
        rnm = float(d)
        factor = 3 * math.log(8 * d**3) * d**growth
        for method, gap, success in (
            ("alg12_corrected_uniform", factor * rnm, corrected_success),
            ("alg12_as_printed_uniform", np.nan, printed_success),
            ("report_noisy_max", rnm, 1.0),
            ("distance_reference", 40.0, 1.0),
            ("distance_uniform_bottom", 20.0, 1.0),
        ):
            rows.append((method, d, gap, success))
    frame = pd.DataFrame(rows, columns=["method", "bits", "gap_at_level", "success_exact"])
    frame = frame.assign(layout="all_runner_up", gap=50.0, log_delta=-10.0, epsilon=1.0)
    return {"ext_mode_release": frame}


def mode_audit(alg12_within=True, uniform_within=True) -> dict[str, pd.DataFrame]:
    rows = [
        ("alg12_geometry_corrected", "corrected", "uniform", "reduced", 1.9, alg12_within),
        ("alg12_geometry_as_printed", "as_printed", "reserved", "reduced", 1.5, True),
        ("unpurified", "corrected", "reserved", "reduced", math.inf, False),
        ("unpurified", "corrected", "uniform", "reduced", 0.9, uniform_within),
        ("unpurified", "uniform_calibrated", "uniform", "reduced", 1.0, True),
    ]
    columns = ["treatment", "delta_rule", "bottom", "enumeration", "epsilon_inf", "within_bound"]
    frame = pd.DataFrame(rows, columns=columns).assign(bits=3, epsilon=1.0, bound=2.0, exhaustive_within_reduced=True)
    return {**mode_release(), "ext_mode_release_audit": frame}


def algorithm2(below_bound: bool = False) -> dict[str, pd.DataFrame]:
    """Theorem 2's table for d = 1..4, eps = 1; ``below_bound`` puts the last cell's success just under the bound."""
    frame = theorem2_utility({"max_bits": 4, "epsilons": [1.0]})
    if below_bound:
        frame.loc[frame.index[-1], "success_exact"] = frame["bound"].iloc[-1] - 1e-3
    return {"ext_theorem2_utility": frame}


@functools.cache
def _alg11_table() -> pd.DataFrame:
    """Algorithm 11's dimension table at d = 1, 2, 4 (seconds to build: built once, both sides of its case copy it)."""
    params = {"dimensions": [1, 2, 4], "epsilon": 1.0, "local_sensitivities": [1.0], "diameter": 10.0, "n_beta": 2}
    return alg11_dimension_table({**params, "n_grid": 101})


def alg11(corrected_noise: bool = False) -> dict[str, pd.DataFrame]:
    """Algorithm 11's Laplace step at d = 1, 2, 4; ``corrected_noise`` runs the as-printed rows with the corrected
    scale sqrt(d) beta_hat/eps."""
    frame = _alg11_table().copy()
    if corrected_noise:
        corrected = frame[frame["rule"] == "corrected"]
        frame = pd.concat([corrected.assign(rule="as_printed"), corrected], ignore_index=True)
    return {"ext_alg11_dimension": frame}


def frank_wolfe(slope: float = -0.5, level: float = 1.0, loss_gap: float = -1e-3, bound: float = 1.0) -> dict:
    """ext_frank_wolfe at d = 50, n = 1e3, 1e4, 1e5, two runs: the purified excess risk level * n^slope (theta = 0's
    0.03), the explicit bounds bound * 10 n^-0.5 (Lemma 28) and bound * 5 n^-0.5 (eq. (15)), every run in the success
    event with the given loss gap."""
    rows = []
    for n in (1000, 10000, 100000):
        common = {"n": n, "d": 50, "epsilon_total": 1.0, "zero_excess_risk": 0.03, "score_spread_at_zero": 0.1}
        common.update(steps=10, sketch_dim=20)
        for replicate in (0, 1):
            purified = {
                "method": "purified_fw",
                "excess_risk": level * n**slope,
                "laplace_scale": 1e-5,
                "lemma28_bound": bound * 10 * n**-0.5,
                "purification_bound_printed": bound * 5 * n**-0.5,
                "within_tolerance": True,
                "clip_active": False,
                "loss_gap": loss_gap,
                "recovery_l1_error": 0.1,
                "lemma46_bound": 1.0,
                "fw_sparsity": 10,
            }
            before = {"method": "dp_fw_before_purification", "excess_risk": 0.04, "laplace_scale": 0.1}
            reference = {"method": "dp_fw_reference", "excess_risk": n**-0.5, "laplace_scale": 0.01}
            rows += [{**common, "replicate": replicate, **row} for row in (purified, before, reference)]
    return {"ext_frank_wolfe": pd.DataFrame(rows)}


def table1_frame(**after: float) -> dict[str, pd.DataFrame]:
    """Table 1 at the configured point, with some rows' 'after' value replaced."""
    frame = table1(STUDY_CONFIG["tables"])
    for problem, value in after.items():
        frame.loc[frame["problem"] == problem, "after_value"] = value
    return {"table1": frame}


#: Closed-form claims measure on these frames (only erratum_R_is_diameter reads one: the exact audit's half-scale row).
BASE = (exact_audit(), CONFIG)


def same(n):
    return n


#: claim id -> (case on which it holds, case on which it fails or is an erratum)
FLIPS = {
    "fig1_laplace_beats_gaussian_almost_all_regimes": ((fig1(0.01), CONFIG), (fig1(0.3), CONFIG)),
    "table1_log_inv_delta_replaced_by_d": ((table1_frame(), CONFIG), (table1_frame(**{"DP-ERM": 0.5}), CONFIG)),
    "thm1_purification_is_pure_dp": ((exact_audit(), CONFIG), (exact_audit(M2__full=2.1), CONFIG)),
    "unpurified_and_mixing_only_not_pure": ((exact_audit(), CONFIG), (exact_audit(M2__none=7.0), CONFIG)),
    "ablation_laplace_scale_needed": ((exact_audit(), CONFIG), (exact_audit(**{"M1__full_scale_x0.5": 1.95}), CONFIG)),
    "mc_audit_consistent_with_exact": ((mc_audit(0.8), CONFIG), (mc_audit(1.2), CONFIG)),
    "example8_conversion_tight": ((fig2(), CONFIG), (fig2(w_inf_1d_numeric=0.35), CONFIG)),
    "lemma6_tv_to_w_inf": ((fig2(), CONFIG), (fig2(w_inf=1.3), CONFIG)),
    "thm2_algorithm2_utility": ((algorithm2(), CONFIG), (algorithm2(below_bound=True), CONFIG)),
    "thm4_purified_frank_wolfe": ((frank_wolfe(), CONFIG), (frank_wolfe(slope=0.0, level=1.0), CONFIG)),
    "thm4_purification_term": ((frank_wolfe(), CONFIG), (frank_wolfe(loss_gap=1.0), CONFIG)),
    "erratum_thm4_purification_constant": (lambda n: {**n, "corrected": n["printed"]}, same),
    "thm3_purified_dpsgd_rate": ((erm(), CONFIG), (erm(purified_dpsgd=(10.0, -0.3)), CONFIG)),
    "thm3_purified_dpsgd_rate_sc": (
        (erm(True, purified_dpsgd=(10.0, -2.0)), CONFIG),
        (erm(True, purified_dpsgd=(10.0, -0.3)), CONFIG),
    ),
    "purified_dpsgd_vs_laplace_gd": ((erm(), CONFIG), (erm(purified_dpsgd=(200.0, -0.4)), CONFIG)),
    "purified_dpsgd_vs_laplace_gd_sc": ((erm(True), CONFIG), (erm(True, purified_dpsgd=(200.0, -0.4)), CONFIG)),
    "purified_matches_exponential_mechanism": ((erm(), CONFIG), (erm(purified_dpsgd=(10.0, -0.5)), CONFIG)),
    "purified_matches_exponential_mechanism_sc": (
        (erm(True), CONFIG),
        (erm(True, purified_dpsgd=(10.0, -0.5)), CONFIG),
    ),
    "purification_noise_negligible": ((erm(), CONFIG), (erm(shift_before=0.01), CONFIG)),
    "purification_noise_negligible_sc": ((erm(True), CONFIG), (erm(True, shift_before=0.01), CONFIG)),
    "erratum_R_is_diameter": (lambda n: {**n, "radius_reading": n["printed"]}, same),
    "erratum_thm1_l1_utility_q_not_1": (lambda n: {**n, "laplace_mean_l1": n["printed_bound"] / 2}, same),
    "erratum_lemma6_volume": (lambda n: {"cases": [(d, q, true, true) for d, q, _, true in n["cases"]]}, same),
    "erratum_appB_tradeoff_dominance": ((fig3(False), CONFIG), (fig3(True), CONFIG)),
    "erratum_algorithm12_delta": (lambda n: {**n, "printed": n["required"] + 1.0}, same),
    "erratum_lemma19_gradient_count": (lambda n: {**n, "printed": n["count"]}, same),
    "erratum_alg11_l2_sensitivity": ((alg11(corrected_noise=True), CONFIG), (alg11(), CONFIG)),
    "erratum_lemma25_schedule_half_budget": (lambda n: {**n, "certified": n["target"]}, same),
    "erratum_thm9_delta_upper_limit": (lambda n: {**n, "printed": n["corrected"]}, same),
    "erratum_alg2_geometry": (lambda n: {**n, "cases": [(d, c, c, f) for d, _, c, f in n["cases"]]}, same),
    "erratum_lemma26_rho_T_squared": (lambda n: {**n, "printed": n["corrected"]}, same),
    "erratum_lemma25_bound_constant": (lambda n: {**n, "printed": n["at_step"]}, same),
    "erratum_appD_quantization_privacy": (
        lambda n: {"cells": [(d, e, min(x, 2 * e), b) for d, e, x, b in n["cells"]]},
        same,
    ),
    "cor24_order_condition_lemma25": (same, lambda n: {**n, "points": [(*p[:4], p[5] * 2, p[5]) for p in n["points"]]}),
    "cor4_utility_bound": (same, lambda n: {"cases": [(*c[:3], 2 * c[4], c[4]) for c in n["cases"]]}),
    "instantiation_shifts_use_diameter": (same, lambda n: {k: {**v, "shift": 2 * v["stated"]} for k, v in n.items()}),
    "lemma48_laplace_l1_concentration": (same, lambda n: {**n, "cases": [(k, z, 2 * z) for k, z, _ in n["cases"]]}),
    "lemma27_laplace_l2_mean": (same, lambda n: {"cases": [(d, 2 * b, b) for d, _, b in n["cases"]]}),
    "lemma14_tv_characterization": (same, lambda n: {**n, "cases": [(e, d, 2 * b, b) for e, d, _, b in n["cases"]]}),
    "erratum_alg11_beta_hat_probability": (lambda n: {**n, "log_printed": n["log_exact"]}, same),
    "thm11_purification_term": (same, lambda n: {**n, "cases": [(*c[:3], 2.5) for c in n["cases"]]}),
    "erratum_thm4_lemma48_threshold": (lambda n: {**n, "printed": n["xi"], "tail_printed": n["tail_xi"]}, same),
    "thm6_success_bound_arithmetic": (same, lambda n: {"scaled": [(d, v + 3.0) for d, v in n["scaled"]]}),
    "e5_purified_mean_rate_in_d": ((mean_estimation(), CONFIG), (mean_estimation(pur_slope=0.5), CONFIG)),
    "e5_purified_mean_matches_optimal_pure_up_to_logs": (
        (mean_estimation(), CONFIG),
        (mean_estimation(knorm_slope=0.5), CONFIG),
    ),
    "thm9_lower_bound_consistent": ((mean_estimation(), CONFIG), (mean_estimation(bound_scale=1.0), CONFIG)),
    "e5_purification_tradeoff_in_delta": ((mean_estimation(), CONFIG), (mean_estimation(paper=-400.0), CONFIG)),
    "e5_purified_mean_is_pure_dp": ((mean_estimation(), CONFIG), (mean_estimation(audit_eps=1.1), CONFIG)),
    "thm7_pure_adassp_rate": ((regression(), CONFIG), (regression(pure_slope=0.0), CONFIG)),
    "table1_linear_regression_log_factor": ((regression(), CONFIG), (regression(reference=0.01), CONFIG)),
    "lemma35_adassp_privacy": ((regression(), CONFIG), (regression(composed_gap=1.0), CONFIG)),
    "thm7_purification_noise_negligible": ((regression(), CONFIG), (regression(before=1.01), CONFIG)),
    "ext_pure_adassp_vs_laplace_ssp": ((regression(), CONFIG), (regression(laplace=0.5), CONFIG)),
    "thm5_bounding_local_sensitivity_rate": ((ptr(), CONFIG), (ptr(error_over_bound=2.0), CONFIG)),
    "alg11_adaptive_beats_global_sensitivity": ((ptr(), CONFIG), (ptr(gs_error=1e-3), CONFIG)),
    "thm5_lemma34_purified_ptr_pure_dp_audit": ((ptr_audit(), CONFIG), (ptr_audit(lower_bound=3.5), CONFIG)),
    "thm6_mode_release_gap_rate": ((mode_release(), CONFIG), (mode_release(growth=1.0), CONFIG)),
    "thm6_mode_release_success": ((mode_release(), CONFIG), (mode_release(corrected_success=0.5), CONFIG)),
    "thm6_mode_release_pure_dp_exact_audit": ((mode_audit(), CONFIG), (mode_audit(alg12_within=False), CONFIG)),
    "ext_uniform_bottom_is_pure_without_alg2": ((mode_audit(), CONFIG), (mode_audit(uniform_within=False), CONFIG)),
    "erratum_algorithm12_delta_utility": ((mode_release(printed_success=1.0), CONFIG), (mode_release(), CONFIG)),
    "thm8_query_release_rate": ((query_release(), CONFIG), (query_release(alg16_purified=(1.0, 0.2)), CONFIG)),
    "table1_mwem_rate_before": ((query_release(), CONFIG), (query_release(mwem_reference=(1.0, 0.1)), CONFIG)),
    "lemma36_mwem_accounting": ((query_release(upstream_approx=1.0), CONFIG), (query_release(), CONFIG)),
    "alg16_purification_needed": ((query_release(), CONFIG), (query_release(upstream_pure=0.5), CONFIG)),
    "alg16_vs_pure_baselines": ((query_release(alg16_purified=(0.5, -1.0)), CONFIG), (query_release(), CONFIG)),
    "thm8_purified_mwem_pure_dp_audit": ((query_release_audit(True), CONFIG), (query_release_audit(False), CONFIG)),
}
