"""Empirical sensitivities of every pre-processing step (``ext_sensitivity``) and the exact Rényi divergence of the
Gaussian mechanism after each step on concrete neighbouring datasets (``ext_srdp_audit``), against the proved bounds.

The trials run in the workflow's ``preprocessing_sensitivity`` rule (one job per step, on the dataset of
:mod:`dplab.studies.preprocessing.pipeline` that the step's bound assumes); the two artifacts read them.

Replacements: ``random`` (the dataset S itself, whose pre-processed π_S(S) comes from the ``preprocess`` rule,
against S with a random record replaced by a random unit-ball point) and ``adversarial`` (per dataset:
a point placed at 2η from the largest cluster's centre to break it, or inside it to join it; opposite extreme
values in an imputed feature, or a record that itself has a missing value; the top eigenvector against the
(k+1)-th to shrink the eigen-gap). The bounds are the conditional ones over the collection 𝓛 = {all datasets
seen}: max cluster size, max number of missing rows p, min eigen-gap.

Audit mechanism: f(S) = ½Σ_i π_S(x_i) + N(0, σ²I), σ = Δ_f/ε with Δ_f = 1 (replace-one on the unit ball; f is
½-Lipschitz w.r.t. d₁₂, within Table 2's L = 1). Exact D_α = α‖f₁ − f₂‖²/(2σ²) (Lemma C).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dplab.preprocessing import PreprocessedDataset, good_clusters, replace_row, top_eigenvectors
from dplab.preprocessing.imputation import missing_rows
from dplab.preprocessing.pca import eigengap
from dplab.preprocessing.sensitivity import as_preprocessed, realised_sensitivity
from dplab.report.io import write_csv
from dplab.seeding import derive_seed
from dplab.studies.preprocessing.pipeline import STEP_DATASET, STEPS, load_arrays, load_preprocessed, step_function
from dplab.theory import smooth_rdp as s

__all__ = [
    "Replacement",
    "step_trials",
    "write_trials",
    "read_trials",
    "compute_ext_sensitivity",
    "compute_ext_srdp_audit",
]


@dataclass(frozen=True)
class Replacement:
    """One neighbouring pair: row ``i`` of S replaced by ``first`` (None: S itself) and by ``second``."""

    kind: str
    i: int
    first: np.ndarray | None
    second: np.ndarray


def _unit(rng: np.random.Generator, count: int, d: int) -> np.ndarray:
    z = rng.standard_normal((count, d))
    return z / np.linalg.norm(z, axis=1, keepdims=True) * rng.uniform(0.2, 1.0, (count, 1))


def _cluster_replacements(X: np.ndarray, params: Mapping[str, Any], rng: np.random.Generator) -> list[Replacement]:
    """Random: S against S[i ← z]. Adversarial: a non-member of the largest cluster moved to 0.5η from its centre
    (joins it; or onto the centre) against 2η (in (η, 3η]: breaks the cluster)."""
    eta, (n, d) = float(params["eta"]), X.shape
    centre = good_clusters(X, eta)
    ids, counts = np.unique(centre, return_counts=True)
    big = ids[np.argmax(counts)]
    outsiders = np.flatnonzero(centre != big)
    out = []
    for t in range(int(params["trials"])):
        if t % 2 == 0:
            out.append(Replacement("random", int(rng.integers(n)), None, _unit(rng, 1, d)[0]))
            continue
        i = int(rng.choice(outsiders))
        u = _unit(rng, 1, d)[0]
        u /= np.linalg.norm(u)
        out.append(
            Replacement("adversarial", i, X[big] + (0.5 * eta * u if t % 4 == 1 else 0.0 * u), X[big] + 2.0 * eta * u)
        )
    return out


def _imputation_replacements(X: np.ndarray, params: Mapping[str, Any], rng: np.random.Generator) -> list[Replacement]:
    """A complete record replaced. Adversarial, in turn: opposite extreme values (±1) in the imputed feature; a
    record that itself misses it; a high-leverage record for the regression imputation (first feature 1/√2, imputed
    feature ±1/√2: a record at the origin of the predictors moves no least-squares fit without intercept)."""
    d, feature = X.shape[1], X.shape[1] - 1
    complete = np.flatnonzero(~np.isnan(X).any(1))
    out = []
    for t in range(int(params["trials"])):
        i = int(rng.choice(complete))
        if t % 2 == 0:
            out.append(Replacement("random", i, None, _unit(rng, 1, d)[0]))
            continue
        z1, z2 = np.zeros(d), np.zeros(d)
        pattern = (t // 2) % 3
        if pattern == 2:
            z1[0] = z2[0] = 2**-0.5
            z1[feature], z2[feature] = 2**-0.5, -(2**-0.5)
        else:
            z1[feature], z2[feature] = 1.0, (np.nan if pattern == 1 else -1.0)
        out.append(Replacement("adversarial", i, z1, z2))
    return out


def _pca_replacements(X: np.ndarray, params: Mapping[str, Any], rng: np.random.Generator) -> list[Replacement]:
    """Adversarial: mass added along the top eigenvector against along the (k+1)-th (shrinks δ^k in S₂)."""
    (n, d), k = X.shape, int(params["k"])
    A, _ = top_eigenvectors(X, min(k + 1, d - 1))
    out = []
    for t in range(int(params["trials"])):
        i = int(rng.integers(n))
        if t % 2 == 0:
            out.append(Replacement("random", i, None, _unit(rng, 1, d)[0]))
        else:
            out.append(Replacement("adversarial", i, A[:, 0], A[:, k]))
    return out


REPLACEMENTS = {"clusters": _cluster_replacements, "missing": _imputation_replacements, "low_rank": _pca_replacements}


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
    for r in progress(REPLACEMENTS[dataset](X, params, rng)):
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
