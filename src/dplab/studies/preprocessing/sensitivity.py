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

from dplab.preprocessing import PreprocessedDataset, replace_row
from dplab.preprocessing.replacements import bound_parameters, neighbouring_pairs
from dplab.preprocessing.sensitivity import as_preprocessed, replacement_measures
from dplab.report.io import load_arrays, write_csv
from dplab.seeding import derive_seed
from dplab.studies.preprocessing.pipeline import STEP_DATASET, STEPS, load_preprocessed, step_function
from dplab.theory.smooth_rdp import gaussian_sum_audit, preprocessing_sensitivity_bounds

__all__ = [
    "step_trials",
    "write_trials",
    "read_trials",
    "compute_ext_sensitivity",
    "compute_ext_srdp_audit",
]


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
    eta, k = float(params["eta"]), int(params["k"])
    pairs = neighbouring_pairs(dataset, X, eta=eta, k=k, trials=int(params["trials"]), rng=rng)
    for r in progress(pairs):
        S1 = X if r.first is None else replace_row(X, r.i, r.first)
        S2 = replace_row(X, r.i, r.second)
        first = preprocessed if r.first is None else as_preprocessed(pi(S1))
        rows.append(
            {
                "step": step,
                "kind": r.kind,
                "row": r.i,
                **replacement_measures(first, as_preprocessed(pi(S2)), r.i),
                **bound_parameters(dataset, S1, S2, eta=eta, k=k),
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
    """(Δ_∞ bound, Δ₂ bound, source) for the collection of datasets of ``part`` (worst structure over its rows)."""
    return preprocessing_sensitivity_bounds(
        step,
        int(params["n"]),
        float(params["eta"]),
        int(part["cluster_size"].max()),
        int(part["missing"].max()),
        part["gap_k"].min(),
        part["gap_1"].min(),
    )


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
    rows = []
    for step, part in trials.groupby("step", sort=False):
        dinf_bound, d2_bound, _ = _bounds(step, part, params)
        audit = gaussian_sum_audit(alpha, eps, float(part["sum_distance"].max()), dinf_bound, d2_bound)
        rows.append({"step": step, "alpha": alpha, "eps": eps, "pairs": len(part), **audit})
    return pd.DataFrame(rows)
