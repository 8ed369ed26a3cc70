"""Closed-form artifacts of the generalization study: F1-F7, F9 and tables T1-T3.

Each ``compute_*(params, seed, progress)`` returns a tidy frame (one observation per row, parameters as columns).
The paper has no figures or tables; these are our own, built to test its "strictly tighter" claims.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.accounting.composition import (
    kov_epsilon_terms,
)
from dplab.theory.generalization import (
    composition_certificate_rows,
    delta_certificate_columns,
    epsilon_certificates,
    fair_comparison_rows,
    high_probability_bounds,
    kl_bounds,
    nissim_stemmer_on_average,
    oneto_high_probability,
    sgld_privacy_and_generalization,
    thm1_deviation_exact,
    thm1_min_sample_size,
    thm2_on_average,
)

__all__ = [
    "step_grid",
    "compute_kl",
    "compute_high_probability",
    "compute_on_average",
    "compute_epsilon_vs_steps",
    "compute_delta_vs_steps",
    "compute_fair_comparison",
    "compute_sgld_theory",
    "compute_federated",
    "compute_table_high_probability",
    "compute_table_composition",
    "compute_table_sgld",
    "sgld_bound_columns",
]

Progress = Callable[[Iterable[Any]], Iterable[Any]]


def step_grid(log10_min: float, log10_max: float, n: int) -> np.ndarray:
    """unique(round(logspace(log10_min, log10_max, n))) as integers (the step grids of figures f4, f5, f7 and f9)."""
    return np.unique(np.round(np.logspace(log10_min, log10_max, n))).astype(np.int64)


def _eps_grid(params: Mapping[str, Any]) -> np.ndarray:
    return np.round(np.logspace(np.log10(params["eps_min"]), np.log10(params["eps_max"]), params["n_eps"]), 14)


def _log10(values: Any) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log10(np.asarray(values, dtype=float))


# ----------------------------------------------------------------------------------------------------------------
# F1-F3: Lemma 5 and DP => generalization
# ----------------------------------------------------------------------------------------------------------------


def compute_kl(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F1: KL bounds of an ε-DP mechanism: Lemma 5 (ε tanh(ε/2)), randomized response's exact KL, DR16, DRV10."""
    eps = _eps_grid(params)
    methods = kl_bounds(eps)
    frames = [pd.DataFrame({"epsilon": eps, "method": m, "kl": kl}) for m, kl in methods.items()]
    frame = pd.concat(frames, ignore_index=True)
    ours = np.tile(methods["lemma5"], len(methods))
    frame["ratio_to_lemma5"] = frame["kl"] / ours
    return frame


def compute_high_probability(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F2: deviation a, failure probability b and the sample-size floor N_min of Thm 1 against its baselines
    (the intro's 2× b, Nissim-Stemmer 13ε and (2δ/ε)log(2/ε), Dwork et al. 2015 4ε and 8δ^ε)."""
    eps = _eps_grid(params)
    frames = []
    for delta in params["deltas"]:
        for method, (a, b) in high_probability_bounds(eps, delta).items():
            frames.append(
                pd.DataFrame(
                    {
                        "epsilon": eps,
                        "delta": delta,
                        "method": method,
                        "deviation": a,
                        "failure_probability": b,
                        "log10_failure_probability": _log10(b),
                        "n_min": thm1_min_sample_size(eps, delta),
                        "deviation_vacuous": np.asarray(a) >= 1.0,
                        "failure_vacuous": np.asarray(b) >= 1.0,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def compute_on_average(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F3: the on-average bound of Thm 2, e^{−ε}kδ + 1 − e^{−ε}, against Nissim-Stemmer's kδ + 2ε."""
    eps = _eps_grid(params)
    frames = []
    for k_delta in params["k_deltas"]:
        ours, ns = thm2_on_average(eps, k_delta, 1), nissim_stemmer_on_average(eps, k_delta, 1)
        for method, value in (("thm2", ours), ("nissim_stemmer", ns)):
            frames.append(
                pd.DataFrame(
                    {
                        "epsilon": eps,
                        "k_delta": k_delta,
                        "method": method,
                        "bound": value,
                        "ratio_ns_to_thm2": ns / ours,
                        "trivial": np.asarray(value) >= 1.0,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------------------------------------------
# F4-F6: composition
# ----------------------------------------------------------------------------------------------------------------


def compute_epsilon_vs_steps(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F4: ε′(T) at fixed δ̃: basic, DRV, KOV 3.4 (= the paper's Thm 4), Cor 3's ε′_3 (capped), and the exact optimal
    ε′ of pure ε-DP steps at δ′ = ``optimal_delta`` (KOV Thm 3.3 with δ = 0)."""
    steps = step_grid(0.0, params["t_max_log10"], params["n_t"])
    dt = params["delta_tilde"]
    frames = []
    for eps in progress(params["eps_steps"]):
        e1, e2, e3 = kov_epsilon_terms(eps, steps, dt)
        for method, values in epsilon_certificates(eps, steps, dt, params["optimal_delta"]).items():
            frames.append(
                pd.DataFrame(
                    {
                        "epsilon_step": eps,
                        "t": steps,
                        "delta_tilde": dt,
                        "method": method,
                        "eps_prime": values,
                        "kov_term1": e1,
                        "kov_term2": e2,
                        "kov_term3": e3,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def compute_delta_vs_steps(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F5: δ′(T) at fixed δ̃ for DRV, KOV 3.4, Cor 2 (exact and first order), Thm 4 (box), Cor 3 (corrected and
    printed δ″), the exact optimal δ at the KOV ε′, and the universal lower bound 1 − (1−δ)^T."""
    steps = step_grid(0.0, params["t_max_log10"], params["n_t"])
    dt = params["delta_tilde"]
    frames = [
        pd.DataFrame(columns)
        for setting in progress(params["settings"])
        for columns in delta_certificate_columns(setting["epsilon"], setting["delta"], dt, steps)
    ]
    return pd.concat(frames, ignore_index=True)


def compute_fair_comparison(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F6: the smallest ε′ each method certifies at a total δ_target (δ̃ optimised for the paper's theorems), with
    flags where a paper value is below the exact optimum (impossible) or where only the paper's theorems are finite."""
    eps, delta, target = params["epsilon"], params["delta"], params["delta_target"]
    rows = []
    for t in progress(params["steps"]):
        rows += fair_comparison_rows(eps, delta, int(t), target, params["n_scan"])
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------------------------
# F7, F9, T3: SGLD and federated learning
# ----------------------------------------------------------------------------------------------------------------


def sgld_bound_columns(
    N: float,
    tau: int,
    steps: np.ndarray,
    sigma: float,
    L: float,
    delta: float,
    delta_tilde: float,
    variant: str,
    kind: str = "sgld",
) -> pd.DataFrame:
    """:func:`dplab.theory.generalization.sgld_privacy_and_generalization` as a frame, one row per T."""
    return pd.DataFrame(sgld_privacy_and_generalization(N, tau, steps, sigma, L, delta, delta_tilde, variant, kind))


def compute_sgld_theory(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F7: SGLD privacy ε′(T) (Thm 7, variants as printed / valid) and the resulting Thm 1 and Thm 2 bounds."""
    steps = step_grid(params["t_min_log10"], params["t_max_log10"], params["n_t"])
    frames = []
    for N in params["sizes"]:
        for sigma in params["sigmas"]:
            for variant in ("as_printed", "valid"):
                columns = sgld_bound_columns(
                    N, params["tau"], steps, sigma, params["L"], params["delta"], params["delta_tilde"], variant
                )
                frames.append(
                    pd.concat(
                        [
                            pd.DataFrame(
                                {"n": int(N), "sigma": sigma, "tau": params["tau"], "t": steps, "variant": variant}
                            ),
                            columns,
                        ],
                        axis=1,
                    )
                )
    return pd.concat(frames, ignore_index=True)


def compute_federated(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """F9: DP federated learning (Thm 8): ε′(T) for the printed ε̃_FL, the substitution- and add/remove-corrected
    ε̃, and the client-level Thm 1 bound."""
    steps = step_grid(params["t_min_log10"], params["t_max_log10"], params["n_t"])
    frames = []
    for N in params["clients"]:
        for tau in params["taus"]:
            for sigma in params["sigmas"]:
                for variant in ("as_printed", "substitution", "add_remove"):
                    columns = sgld_bound_columns(
                        N, tau, steps, sigma, 1.0, params["delta"], params["delta_tilde"], variant, kind="fl"
                    )
                    frames.append(
                        pd.concat(
                            [
                                pd.DataFrame(
                                    {"clients": int(N), "tau": tau, "sigma": sigma, "t": steps, "variant": variant}
                                ),
                                columns,
                            ],
                            axis=1,
                        )
                    )
    return pd.concat(frames, ignore_index=True)


def compute_table_sgld(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """T3: SGLD privacy and bounds for the empirical grid (every (N, σ > 0) of its blocks and every checkpoint T;
    variants P and V)."""
    steps = np.asarray(params["checkpoints"], dtype=np.int64)
    frames = []
    points = [(int(n), float(s)) for block in params["grid"] for n in block["sizes"] for s in block["sigmas"] if s > 0]
    for N, sigma in points:
        for variant in ("as_printed", "valid"):
            columns = sgld_bound_columns(
                N, params["tau"], steps, sigma, params["L"], params["delta"], params["delta_tilde"], variant
            )
            frames.append(
                pd.concat([pd.DataFrame({"n": N, "sigma": sigma, "t": steps, "variant": variant}), columns], axis=1)
            )
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------------------------------------------
# T1, T2
# ----------------------------------------------------------------------------------------------------------------


def compute_table_high_probability(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """T1: a and b of Thm 1 (statement and intro), Nissim-Stemmer, Dwork et al. 2015 and Oneto (a) per (ε, δ), with
    N_min and the exact deviation of the proof."""
    rows = []
    for case in params["cases"]:
        eps, delta = case["epsilon"], case["delta"]
        oneto = oneto_high_probability(eps, params["oneto_n"], params["oneto_empirical_risk"])
        methods = {**high_probability_bounds(eps, delta), "oneto_a": oneto}
        for method, (a, b) in methods.items():
            rows.append(
                {
                    "epsilon": eps,
                    "delta": delta,
                    "method": method,
                    "deviation": float(a),
                    "failure_probability": float(b),
                    "vacuous": bool(a >= 1 or b >= 1),
                    "n_min": float(thm1_min_sample_size(eps, delta)),
                    "deviation_exact_thm1": float(thm1_deviation_exact(eps, delta)),
                }
            )
    return pd.DataFrame(rows)


def compute_table_composition(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """T2: (ε′, δ′) of every method at selected (ε, δ, T, δ̃), the lower bound 1 − (1−δ)^T, the exact optimal δ at
    each method's ε′, and ``below_lower_bound`` / ``below_optimal`` flags (the paper's certificate is impossible)."""
    rows = []
    for case in progress(params["cases"]):
        rows += composition_certificate_rows(case["epsilon"], case["delta"], int(case["t"]), case["delta_tilde"])
    return pd.DataFrame(rows)
