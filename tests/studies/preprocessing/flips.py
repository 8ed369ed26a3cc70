"""Flip cases of the pre-processing claims (run by ``tests/studies/test_claim_flips.py``): for every rule, a case on
which it holds and one on which it fails (or, for an erratum rule, is an erratum).

Frames are the committed data of a real run (``results/preprocessing``), changed by hand in the real columns where a
side needs the opposite outcome, or built small with the library (Theorem 2's audit, Fig. 2's optimised curves in
closed form); claims decided by closed forms of the configuration alone flip on their numbers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from dplab.studies.preprocessing import STUDY
from dplab.studies.preprocessing.theory_tables import table2_grid
from dplab.theory import smooth_rdp
from dplab.workflow.config import load_config

ROOT = Path(__file__).resolve().parents[3]
CONFIG = load_config(ROOT / "config.yaml")["preprocessing"]
FRAMES = {a.id: pd.read_csv(ROOT / "results" / "preprocessing" / STUDY.data_path(a.id)) for a in STUDY.declared(CONFIG)}
BASE = (FRAMES, CONFIG)


def changed(artifact: str, where, column: str, value) -> tuple[dict[str, pd.DataFrame], dict]:
    """The committed frames with ``column`` set to ``value`` (a number or a function of the frame) where
    ``where(frame)`` holds."""
    frame = FRAMES[artifact].copy()
    rows = where(frame)
    frame.loc[rows, column] = value(frame[rows]) if callable(value) else value
    return {**FRAMES, artifact: frame}, CONFIG


def _panel(panel: str, method: str, setting: str = ""):
    return lambda f: (f["panel"] == panel) & (f["method"] == method) & f["setting"].str.contains(setting)


def _selected(method: str):
    return lambda f: f["selected"] & (f["method"] == method)


def _dataset(name: str):
    return lambda f: f["dataset"] == name


def printed_as_corrected(artifact: str, key: str, printed: str, corrected: str, column: str):
    """The committed frames with the as-printed row's ``column`` set to the corrected row's (key column ``key``)."""
    frame = FRAMES[artifact]
    value = frame.loc[frame[key] == corrected, column].iloc[0]
    return changed(artifact, lambda f: f[key] == printed, column, value)


def table1_printed_as_corrected(mechanism: str, column: str) -> tuple[dict[str, pd.DataFrame], dict]:
    """Table 1 with the as-printed row of ``mechanism`` carrying its corrected row's ``column``."""
    table1 = FRAMES["table1"].copy()
    rows = table1["mechanism"] == mechanism
    corrected = table1.loc[rows & (table1["variant"] == "corrected"), column].iloc[0]
    table1.loc[rows & (table1["variant"] == "as_printed"), column] = corrected
    return {**FRAMES, "table1": table1}, CONFIG


def ptr_with(**columns: float) -> tuple[dict[str, pd.DataFrame], dict]:
    """The committed PTR table with the given columns set on every dataset."""
    return {**FRAMES, "ext_ptr": FRAMES["ext_ptr"].assign(**columns)}, CONFIG


def separate_pq(exact_shift: float = 1.0) -> tuple[dict[str, pd.DataFrame], dict]:
    """Fig. 2's optimised curves at τ = 1.5 and 12.2 in closed form (p = q: RDP α(1 + τ²); p, q separate:
    α(1 + τ)²/2; Lemma M, ε = 1, δ = 1e-3), and Theorem 2's audit of two steps whose worst pair shifts f by
    ``exact_shift`` (a shift above 1 + τ, which no pipeline with these sensitivities can make, breaks the bound)."""
    tau = np.array([1.5, 12.2])
    curves = {
        "srdp_table2": smooth_rdp.table2_gaussian_dp(tau, 1.0, 1e-3),
        "srdp_theorem2_optimised": smooth_rdp.rdp_to_dp_linear(1 + tau**2, 1e-3),
        "srdp_theorem2_separate_pq": smooth_rdp.rdp_to_dp_linear((1 + tau) ** 2 / 2, 1e-3),
    }
    fig2 = pd.concat(
        pd.DataFrame({"panel": "c", "setting": "gap=1", "x": [101.0, 1000.0], "method": m, "epsilon_dp": v, "tau": tau})
        for m, v in curves.items()
    ).assign(eps=1.0, delta=1e-3)
    audit = pd.DataFrame(
        [{"step": step, "alpha": 11.0, **smooth_rdp.gaussian_sum_audit(11.0, 1.0, exact_shift, dinf, d2)}
         for step, dinf, d2 in (("quantization", 4.0, 0.2), ("mean_imputation", 6.0, 0.1))]
    )  # fmt: skip
    return {"fig2": fig2, "ext_srdp_audit": audit}, CONFIG


def _table2_without_sgd_iteration() -> tuple[dict[str, pd.DataFrame], dict]:
    grid = table2_grid(0.5, 0.1, 0.5, ns=(10, 1000), alphas=(11.0,))
    return {"table2": FRAMES["table2"], "table2_grid": grid[grid["mechanism"] != "dp_sgd_iteration"]}, CONFIG


def _dp_pca_best_and_flat() -> tuple[dict[str, pd.DataFrame], dict]:
    """(b) at zero excess risk in Fig. 3 (never worse than (a)) and flat over the regimes' d/n."""
    frames, _ = changed("fig3", lambda f: f["method"] == "dp_pca", "excess_risk", 0.0)
    regimes = FRAMES["ext_fig3_regimes"].copy()
    regimes.loc[regimes["method"] == "dp_pca", "excess_risk"] = 0.1
    return {**frames, "ext_fig3_regimes": regimes}, CONFIG


#: claim id -> (case on which it holds, case on which it fails or is an erratum)
FLIPS = {
    # Sections 3-4: Figure 2, Tables 1-3, the audits
    "fig2a_quantization_small_eta": (BASE, changed("fig2", _panel("a", "group_privacy"), "epsilon_dp", 20.0)),
    "fig2b_imputation_90pct": (BASE, changed("fig2", _panel("b", "group_privacy"), "epsilon_dp", 20.0)),
    "fig2c_pca_constant": (BASE, changed("fig2", _panel("c", "srdp_table2", "exact"), "epsilon_dp", lambda f: f["x"])),
    "pca_minor_constant_order_cost": (
        changed("fig2", _panel("c", "srdp_table2", "exact"), "epsilon_dp", 5.0),
        changed("fig2", _panel("c", "srdp_table2", "exact"), "epsilon_dp", lambda f: f["x"]),
    ),
    "erratum_figure_reference": (lambda n: {**n, "printed": n["corrected"]}, lambda n: n),
    "table2_cells_follow_theorem2": (
        _table2_without_sgd_iteration(),
        changed("table2", lambda f: f.index == 0, "generic_le_closed_form", False),
    ),
    "erratum_theorem9_srdp_sensitivity": (
        lambda n: {**n, "values": {d: (e, lib, e) for d, (_, lib, e) in n["values"].items()}},
        lambda n: n,
    ),
    "erratum_thm12_dp_gd_rdp": (table1_printed_as_corrected("dp_gd", "rdp_value"), BASE),
    "erratum_table1_sgd_iter_eps2": (table1_printed_as_corrected("dp_sgd_iteration", "srdp_value"), BASE),
    "erratum_table3_trimmed_mean": (
        printed_as_corrected("table3", "model", "trimmed_mean_as_printed", "trimmed_mean_corrected", "bound_value"),
        BASE,
    ),
    "table3_bounds_hold_empirically": (BASE, changed("table3", lambda f: f["model"] == "mean", "within_bound", False)),
    "sensitivity_bounds_hold": (
        BASE,
        changed("ext_sensitivity", lambda f: f["step"] == "dedup", "within_delta_inf", False),
    ),
    "theorem2_audit": (BASE, changed("ext_srdp_audit", lambda f: f["step"] == "dedup", "exact_le_theorem2", False)),
    "ext_theorem2_separate_pq": (separate_pq(), separate_pq(exact_shift=5.0)),
    # Section 5.2: Figure 3, its text, PTR
    "fig3_consistently_outperforms": (changed("fig3", _selected("nonprivate_pca"), "excess_risk", 0.001), BASE),
    "fig3_consistently_outperforms_dp_sgd": (
        changed("fig3", _selected("nonprivate_pca"), "excess_risk", 0.001),
        BASE,
    ),
    "fig3_dimension_reduction_ablation": (
        changed("fig3", _selected("nonprivate_pca_dim"), "excess_risk", 0.001),
        BASE,
    ),
    "ext_regimes_ordering": (changed("ext_fig3_regimes", _selected("nonprivate_pca"), "excess_risk", 0.001), BASE),
    "dp_pca_omega_d_error": (
        changed("fig3", _selected("dp_pca"), "excess_risk", lambda f: f["excess_risk"] + 1.0),
        _dp_pca_best_and_flat(),
    ),
    "erratum_equation48_reference": (lambda n: {**n, "release": [n["release"][0], 2 * n["release"][1]]}, lambda n: n),
    "erratum_theorem7_alpha": (ptr_with(eps=0.001, beta=1.0), BASE),
    "erratum_theorem7_dropped_square": (lambda n: {**n, "step_a_printed": n["step_a"]}, lambda n: n),
    "erratum_ptr_threshold": (lambda n: {**n, "gamma_log2": n["gamma"]}, lambda n: n),
    "ptr_refuses_small_gaps": (BASE, changed("ext_ptr", _dataset("small_gap"), "refusal_rate", 0)),
    "prop8_excess_risk_bound": (BASE, changed("ext_ptr", _dataset("large_gap"), "excess_risk_mean", 1.0)),
    "erratum_prop8_sqrt_lambda": (lambda n: {**n, "realised": n["tail"] / 2}, lambda n: n),
    "erratum_lemma_o_2k": (lambda n: {**n, "first_lemma_o": n["first"]}, lambda n: n),
    # the appendix
    "lemma2_subsampling_amplification": (
        lambda n: n,
        lambda n: {**n, "rows": [(m, k, 10 / math.sqrt(m)) for m, k, _ in n["rows"]]},
    ),
    "remark1_extra_n_three_halves": (
        lambda n: {**n, "exponent": 1.5},
        lambda n: {**n, "rows": [(m, 2 * b, b, x, k) for m, _, b, x, k in n["rows"]]},
    ),
    "erratum_lemma3_statement": (lambda n: {**n, "printed": n["corrected"]}, lambda n: n),
    "eq18_dp_sgd_sampling_factor2": (lambda n: {**n, "printed": n["step_b"]}, lambda n: n),
    "erratum_theorem16_sample_size": (lambda n: {**n, "below": []}, lambda n: n),
    "theorem10_laplace_srdp": (lambda n: n, lambda n: {**n, "bad": n["rows"][:1]}),
    "theorem11_exponential_srdp": (lambda n: n, lambda n: {**n, "bad": n["rows"][:1]}),
    "theorem7_additive_eps_marginal": (lambda n: n, lambda n: {**n, "additive": False}),
    "erratum_lemma_k_davis_kahan": (lambda n: {**n, "as_printed": n["cited"]}, lambda n: n),
}
