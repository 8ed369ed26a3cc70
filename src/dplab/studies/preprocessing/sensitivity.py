"""Empirical sensitivities of every pre-processing step (``ext_sensitivity``) and the exact Rényi divergence of the
Gaussian mechanism after each step on concrete neighbouring datasets (``ext_srdp_audit``), against the proved bounds.

Replacements: ``random`` (a random record replaced by two random unit-ball points) and ``adversarial`` (per step:
a point placed at 2η from the largest cluster's centre to break it, or inside it to join it; opposite extreme
values in an imputed feature, or a record that itself has a missing value; the top eigenvector against the
(k+1)-th to shrink the eigen-gap). The bounds are the conditional ones over the collection 𝓛 = {all datasets
seen}: max cluster size, max number of missing rows p, min eigen-gap.

Audit mechanism: f(S) = ½Σ_i π_S(x_i) + N(0, σ²I), σ = Δ_f/ε with Δ_f = 1 (replace-one on the unit ball; f is
½-Lipschitz w.r.t. d₁₂, within Table 2's L = 1). Exact D_α = α‖f₁ − f₂‖²/(2σ²) (Lemma C).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dplab.data.preprocessing_datasets import low_rank_dataset, near_duplicate_clusters, with_missing_values
from dplab.preprocessing import deduplicate, good_clusters, impute, pca_dim_reduce, pca_rank_reduce, quantize, replace_row, top_eigenvectors
from dplab.preprocessing.imputation import missing_rows
from dplab.preprocessing.pca import eigengap
from dplab.preprocessing.sensitivity import as_preprocessed
from dplab.seeding import derive_seed
from dplab.theory import smooth_rdp as s

__all__ = ["Trial", "sensitivity_trials", "compute_ext_sensitivity", "compute_ext_srdp_audit"]


@dataclass(frozen=True)
class Trial:
    """One replacement: step, kind, realised Δ_∞/Δ₂, ‖f₁ − f₂‖ of the audit sum, and the bound parameters of 𝓛."""

    step: str
    kind: str
    delta_inf: int
    delta_2: float
    sum_distance: float
    cluster_size: int
    missing: int
    gap_k: float
    gap_1: float


def _unit(rng: np.random.Generator, count: int, d: int) -> np.ndarray:
    z = rng.standard_normal((count, d))
    return z / np.linalg.norm(z, axis=1, keepdims=True) * rng.uniform(0.2, 1.0, (count, 1))


def _measure(step: Callable[[np.ndarray], Any], S1: np.ndarray, S2: np.ndarray, i: int) -> tuple[int, float, float]:
    a, b = as_preprocessed(step(S1)), as_preprocessed(step(S2))
    moved = np.linalg.norm(a.values - b.values, axis=1)
    changed = (moved > 1e-10) | (a.kept != b.kept)
    changed[i] = False
    common = np.delete(moved, i)
    return int(changed.sum()), float(common.max(initial=0.0)), float(np.linalg.norm((a.values.sum(0) - b.values.sum(0)) / 2))


def _cluster_trials(params: Mapping[str, Any], rng: np.random.Generator, progress) -> list[Trial]:
    n, d, eta = int(params["n"]), int(params["d"]), float(params["eta"])
    X = near_duplicate_clusters(rng, n, d, list(params["cluster_sizes"]), eta)
    centre = good_clusters(X, eta)
    ids, counts = np.unique(centre, return_counts=True)
    big = ids[np.argmax(counts)]
    outsiders = np.flatnonzero(centre != big)
    trials = []
    for t in progress(range(int(params["trials"]))):
        kind = "random" if t % 2 == 0 else "adversarial"
        if kind == "random":
            i = int(rng.integers(n))
            z1, z2 = _unit(rng, 2, d)
        else:
            i = int(rng.choice(outsiders))
            u = _unit(rng, 1, d)[0]
            u /= np.linalg.norm(u)
            z1 = X[big] + (0.5 * eta * u if t % 4 == 1 else 0.0 * u)  # join (or duplicate) the cluster
            z2 = X[big] + 2.0 * eta * u  # in (η, 3η]: breaks the cluster
        S1, S2 = replace_row(X, i, z1), replace_row(X, i, z2)
        size = max(int(np.unique(good_clusters(S, eta), return_counts=True)[1].max()) for S in (S1, S2))
        for name, step in (("dedup", lambda S: deduplicate(S, eta)), ("quantization", lambda S: quantize(S, eta))):
            dinf, d2, dist = _measure(step, S1, S2, i)
            trials.append(Trial(name, kind, dinf, d2, dist, size, 0, np.nan, np.nan))
    return trials


def _imputation_trials(params: Mapping[str, Any], rng: np.random.Generator, progress) -> list[Trial]:
    n, d, m = int(params["n"]), int(params["d"]), int(params["trimmed_m"])
    imputable = [d - 1]
    X = with_missing_values(rng, low_rank_dataset(rng, n, d, 1, 0.3).X, float(params["missing_rate"]), imputable)
    complete = np.flatnonzero(~np.isnan(X).any(1))
    steps = {"mean_imputation": lambda S: impute(S, "mean"), "median_imputation": lambda S: impute(S, "median"),
             "trimmed_mean_imputation": lambda S: impute(S, "trimmed_mean", m=m),
             "linear_regression_imputation": lambda S: impute(S, "linear_regression")}
    trials = []
    for t in progress(range(int(params["trials"]))):
        kind = "random" if t % 2 == 0 else "adversarial"
        i = int(rng.choice(complete))
        if kind == "random":
            z1, z2 = _unit(rng, 2, d)
        else:
            z1, z2 = np.zeros(d), np.zeros(d)
            z1[imputable[0]], z2[imputable[0]] = 1.0, -1.0
            if t % 4 == 3:
                z2[imputable[0]] = np.nan  # the new record itself has a missing value
        S1, S2 = replace_row(X, i, z1), replace_row(X, i, z2)
        p = max(missing_rows(S1), missing_rows(S2))
        for name, step in steps.items():
            dinf, d2, dist = _measure(step, S1, S2, i)
            trials.append(Trial(name, kind, dinf, d2, dist, 0, p, np.nan, np.nan))
    return trials


def _pca_trials(params: Mapping[str, Any], rng: np.random.Generator, progress) -> list[Trial]:
    n, d, k = int(params["n"]), int(params["d"]), int(params["k"])
    X = low_rank_dataset(rng, n, d, k, float(params["tail_sd"]), scale=float(params["pca_scale"])).X
    A, values = top_eigenvectors(X, min(k + 1, d - 1))
    trials = []
    for t in progress(range(int(params["trials"]))):
        kind = "random" if t % 2 == 0 else "adversarial"
        i = int(rng.integers(n))
        if kind == "random":
            z1, z2 = _unit(rng, 2, d)
        else:
            z1, z2 = A[:, 0], A[:, k]  # add mass to the top direction vs to the (k+1)-th: shrinks δ^k in S₂
        S1, S2 = replace_row(X, i, z1), replace_row(X, i, z2)
        gaps = [top_eigenvectors(S, k)[1] for S in (S1, S2)]
        gap_k = min(eigengap(v, k) for v in gaps)
        gap_1 = min(eigengap(v, 1) for v in gaps)
        for name, step in (("pca_rank", lambda S: pca_rank_reduce(S, k)), ("pca_dim", lambda S: pca_dim_reduce(S, k))):
            dinf, d2, dist = _measure(step, S1, S2, i)
            trials.append(Trial(name, kind, dinf, d2, dist, 0, 0, gap_k, gap_1))
    return trials


def sensitivity_trials(params: Mapping[str, Any], seed: int, progress) -> pd.DataFrame:
    """All replacement trials of every step, one row each."""
    rows = []
    for name, builder in (("clusters", _cluster_trials), ("imputation", _imputation_trials), ("pca", _pca_trials)):
        rng = np.random.default_rng(derive_seed(seed, "sensitivity", name))
        rows += [t.__dict__ for t in builder(params, rng, progress)]
    return pd.DataFrame(rows)


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


def compute_ext_sensitivity(params: Mapping[str, Any], seed: int, progress) -> pd.DataFrame:
    """Worst realised Δ_∞ and Δ₂ per step and replacement kind, against the proved bounds."""
    trials = sensitivity_trials(params, seed, progress)
    rows = []
    for (step, kind), part in trials.groupby(["step", "kind"], sort=False):
        dinf_bound, d2_bound, source = _bounds(step, trials[trials["step"] == step], params)
        rows.append({"step": step, "replacement": kind, "trials": len(part),
                     "empirical_delta_inf": int(part["delta_inf"].max()), "bound_delta_inf": float(dinf_bound),
                     "empirical_delta_2": float(part["delta_2"].max()), "bound_delta_2": float(d2_bound),
                     "within_delta_inf": bool(part["delta_inf"].max() <= dinf_bound),
                     "within_delta_2": bool(np.isnan(d2_bound) or part["delta_2"].max() <= d2_bound + 1e-12),
                     "bound_source": source, "n": int(params["n"]), "d": int(params["d"])})
    return pd.DataFrame(rows)


def compute_ext_srdp_audit(params: Mapping[str, Any], seed: int, progress) -> pd.DataFrame:
    """Worst exact D_α of the Gaussian mechanism on ½Σπ(x) over all trial pairs, per step, against Theorem 2
    (p = q = 2 and optimised over p at this α) with τ = Δ₂Δ_∞ from the bounds, and group privacy (m = Δ_∞ + 1)."""
    trials = sensitivity_trials(params, seed, progress)
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
        rows.append({"step": step, "alpha": alpha, "eps": eps, "pairs": len(part), "exact_renyi_worst": exact,
                     "theorem2_pq2": thm2, "theorem2_optimised_p": thm2_opt, "group_privacy": group, "tau": tau,
                     "exact_le_theorem2": bool(np.isnan(thm2) or exact <= thm2_opt * (1 + 1e-12)),
                     "exact_le_group": bool(exact <= group * (1 + 1e-12))})
    return pd.DataFrame(rows)
