"""Empirical sensitivities of every pre-processing step (``ext_sensitivity``) and the exact Rényi divergence of the
Gaussian mechanism after each step on concrete neighbouring datasets (``ext_srdp_audit``), against the proved bounds.

The trials run in the workflow's ``preprocessing_sensitivity`` rule (one job per step, on the dataset of
:mod:`dplab.studies.preprocessing.pipeline` that the step's bound assumes); the two artifacts read them.

Replacements: the ``random`` and ``adversarial`` pairs of :mod:`dplab.preprocessing.replacements`. The bounds are the
conditional ones over the collection 𝓛 = {all datasets seen}: max cluster size, max number of missing rows p, min eigen-gap.

Audit mechanism: f(S) = ½Σ_i π_S(x_i) + N(0, σ²I), σ = Δ_f/ε with Δ_f = 1 (replace-one on the unit ball; f is
½-Lipschitz w.r.t. d₁₂, within Table 2's L = 1). Exact D_α = α‖f₁ − f₂‖²/(2σ²) (Lemma C).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dplab.preprocessing import PreprocessedDataset, good_clusters, replace_row, top_eigenvectors
from dplab.preprocessing.imputation import missing_rows
from dplab.preprocessing.pca import eigengap
from dplab.preprocessing.replacements import (
    Replacement,
    cluster_replacements,
    imputation_replacements,
    pca_replacements,
)
from dplab.preprocessing.sensitivity import as_preprocessed, realised_sensitivity
from dplab.report.io import load_arrays, write_csv
from dplab.seeding import derive_seed
from dplab.studies.preprocessing.pipeline import STEP_DATASET, STEPS, load_preprocessed, step_function
from dplab.theory import smooth_rdp as s

__all__ = [
    "step_trials",
    "write_trials",
    "read_trials",
    "compute_ext_sensitivity",
    "compute_ext_srdp_audit",
]


def _replacements(
    dataset: str, X: np.ndarray, params: Mapping[str, Any], rng: np.random.Generator
) -> list[Replacement]:
    """The neighbouring pairs of ``dataset`` (:mod:`dplab.preprocessing.replacements`), ``params["trials"]`` of them."""
    trials = int(params["trials"])
    if dataset == "clusters":
        return cluster_replacements(X, float(params["eta"]), trials, rng)
    if dataset == "missing":
        return imputation_replacements(X, trials, rng)
    return pca_replacements(X, int(params["k"]), trials, rng)


def _bound_parameters(dataset: str, S1: np.ndarray, S2: np.ndarray, params: Mapping[str, Any]) -> dict[str, float]:
    """What the bounds depend on, worst over the pair: largest good cluster, rows with missing values, eigen-gaps."""
    out = {"cluster_size": 0, "missing": 0, "gap_k": np.nan, "gap_1": np.nan}
    if dataset == "clusters":
        eta = float(params["eta"])
        out["cluster_size"] = max(int(np.unique(good_clusters(S, eta), return_counts=True)[1].max()) for S in (S1, S2))
    elif dataset == "missing":
        out["missing"] = max(missing_rows(S1), missing_rows(S2))
    else:
        k = int(params["k"])
        values = [top_eigenvectors(S, k)[1] for S in (S1, S2)]
        out["gap_k"] = min(eigengap(v, k) for v in values)
        out["gap_1"] = min(eigengap(v, 1) for v in values)
    return out


def _measure(first: PreprocessedDataset, second: PreprocessedDataset, i: int) -> dict[str, float]:
    """Δ_∞ and Δ₂ over the common records (all but row i) and ‖½Σπ₁ − ½Σπ₂‖ (the audit mechanism's shift)."""
    realised = realised_sensitivity(first, second, i)
    return {
        "delta_inf": realised.delta_inf,
        "delta_2": realised.delta_2,
        "sum_distance": float(np.linalg.norm((first.values.sum(0) - second.values.sum(0)) / 2)),
    }


def step_trials(
    step: str, X: np.ndarray, preprocessed: PreprocessedDataset, study_config: Mapping[str, Any], seed: int, progress
) -> pd.DataFrame:
    """One row per replacement of ``step``'s dataset: realised Δ_∞, Δ₂, the audit shift and the bound parameters.
    ``preprocessed`` = π_S(S), read from the ``preprocess`` rule's output (the first dataset of random pairs). The
    replacements depend on the dataset only, so the steps of one dataset are measured on the same pairs."""
    dataset, params = STEP_DATASET[step], study_config["sensitivity"]
    rng = np.random.default_rng(derive_seed(seed, "replacements", dataset))
    pi = step_function(step, dataset, study_config)
    rows = []
    for r in progress(_replacements(dataset, X, params, rng)):
        S1 = X if r.first is None else replace_row(X, r.i, r.first)
        S2 = replace_row(X, r.i, r.second)
        first = preprocessed if r.first is None else as_preprocessed(pi(S1))
        rows.append(
            {
                "step": step,
                "kind": r.kind,
                "row": r.i,
                **_measure(first, as_preprocessed(pi(S2)), r.i),
                **_bound_parameters(dataset, S1, S2, params),
            }
        )
    return pd.DataFrame(rows)


def write_trials(
    step: str,
    study_config: Mapping[str, Any],
    seed: int,
    source: str | os.PathLike[str],
    preprocessed: str | os.PathLike[str],
    path: str | os.PathLike[str],
    progress=iter,
) -> None:
    """Rule ``preprocessing_sensitivity``: the replacement trials of ``step`` on its dataset, to a CSV."""
    frame = step_trials(step, load_arrays(source)["X"], load_preprocessed(preprocessed), study_config, seed, progress)
    write_csv(frame, path)


def read_trials(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """The trials of every step (``Artifact.inputs`` of ext_sensitivity / ext_srdp_audit)."""
    return pd.concat([pd.read_csv(inputs[f"trials_{step}"]) for step in STEPS], ignore_index=True)


def _bounds(step: str, part: pd.DataFrame, params: Mapping[str, Any]) -> tuple[float, float, str]:
    """(Δ_∞ bound, Δ₂ bound, source) for the collection of datasets of ``part``."""
    n = int(params["n"])
    size, p = int(part["cluster_size"].max()), int(part["missing"].max())
    if step == "dedup":
        dinf, d2 = s.dedup_sensitivity(size)[1], 1.0
        return dinf, d2, "Prop. 3"
    if step == "quantization":
        d2, dinf = s.quantization_sensitivity(float(params["eta"]), size)
        return dinf, d2, "Prop. 3"
    if step == "mean_imputation":
        d2, dinf = s.mean_imputation_sensitivity(n, p)
        return dinf, d2, "Cor. 4"
    if step in ("median_imputation", "trimmed_mean_imputation", "linear_regression_imputation"):
        return float(p), np.nan, "Prop. 15 (Δ∞ = p; Δ₂ data-dependent: see table3)"
    if step == "pca_rank":
        return float(n), float(s.pca_rank_delta2(n, part["gap_k"].min())), "Prop. 5 (δ^k)"
    return float(n), float(s.pca_dim_delta2(n, min(part["gap_k"].min(), part["gap_1"].min()))), "Prop. 5 (min δ^k, δ^1)"


def compute_ext_sensitivity(params: Mapping[str, Any], seed: int, progress, inputs: Mapping[str, Path]) -> pd.DataFrame:
    """Worst realised Δ_∞ and Δ₂ per step and replacement kind, against the proved bounds."""
    trials = read_trials(inputs)
    rows = []
    for (step, kind), part in trials.groupby(["step", "kind"], sort=False):
        dinf_bound, d2_bound, source = _bounds(step, trials[trials["step"] == step], params)
        rows.append(
            {
                "step": step,
                "replacement": kind,
                "trials": len(part),
                "empirical_delta_inf": int(part["delta_inf"].max()),
                "bound_delta_inf": float(dinf_bound),
                "empirical_delta_2": float(part["delta_2"].max()),
                "bound_delta_2": float(d2_bound),
                "within_delta_inf": bool(part["delta_inf"].max() <= dinf_bound),
                "within_delta_2": bool(np.isnan(d2_bound) or part["delta_2"].max() <= d2_bound + 1e-12),
                "bound_source": source,
                "n": int(params["n"]),
                "d": int(params["d"]),
            }
        )
    return pd.DataFrame(rows)


def compute_ext_srdp_audit(params: Mapping[str, Any], seed: int, progress, inputs: Mapping[str, Path]) -> pd.DataFrame:
    """Worst exact D_α of the Gaussian mechanism on ½Σπ(x) over all trial pairs, per step, against Theorem 2
    (p = q = 2 and optimised over p at this α) with τ = Δ₂Δ_∞ from the bounds, and group privacy (m = Δ_∞ + 1)."""
    trials = read_trials(inputs)
    alpha, eps = float(params["alpha"]), float(params["eps"])
    mech = s.gaussian_mechanism(eps)
    p_grid = np.exp(np.linspace(np.log(1.001), np.log(50.0), 400))
    rows = []
    for step, part in trials.groupby("step", sort=False):
        dinf_bound, d2_bound, _ = _bounds(step, part, params)
        worst = float(part["sum_distance"].max())
        exact = alpha * worst**2 * eps**2 / 2
        tau = dinf_bound * d2_bound if np.isfinite(d2_bound) else np.nan
        thm2 = float(s.theorem2_rdp(mech, alpha, tau, 2.0)) if np.isfinite(tau) else np.nan
        thm2_opt = float(np.min(s.theorem2_rdp(mech, alpha, tau, p_grid))) if np.isfinite(tau) else np.nan
        group = float(s.group_privacy_gaussian_rdp(alpha, dinf_bound + 1, eps))
        rows.append(
            {
                "step": step,
                "alpha": alpha,
                "eps": eps,
                "pairs": len(part),
                "exact_renyi_worst": exact,
                "theorem2_pq2": thm2,
                "theorem2_optimised_p": thm2_opt,
                "group_privacy": group,
                "tau": tau,
                "exact_le_theorem2": bool(np.isnan(thm2) or exact <= thm2_opt * (1 + 1e-12)),
                "exact_le_group": bool(exact <= group * (1 + 1e-12)),
            }
        )
    return pd.DataFrame(rows)
