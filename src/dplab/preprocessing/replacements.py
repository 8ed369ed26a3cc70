"""Neighbouring datasets for measuring the sensitivity of a pre-processing step (Definition 4 of Hu, Sanyal,
Schölkopf, *Provable Privacy with Non-Private Pre-Processing*): pairs S[i ← z₁], S[i ← z₂] of a dataset S.

``random`` pairs are S itself (``first`` is None) against S with record i replaced by a random point of the unit ball
(norm uniform in [0.2, 1]); ``adversarial`` pairs aim at the quantity the step's bound depends on: a point placed at
2η from the largest cluster's centre to break it, or inside it to join it (deduplication, quantization); opposite
extreme values in an imputed feature, or a record that itself has a missing value (imputation); the top eigenvector
against the (k+1)-th to shrink the eigen-gap (PCA).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplab.checks import as_finite_array, as_missing_aware_array, choice, positive_finite, whole_number
from dplab.preprocessing.clusters import good_clusters
from dplab.preprocessing.imputation import missing_rows
from dplab.preprocessing.pca import eigengap, top_eigenvectors

__all__ = [
    "STRUCTURES",
    "Replacement",
    "bound_parameters",
    "cluster_replacements",
    "imputation_replacements",
    "neighbouring_pairs",
    "pca_replacements",
]

#: The dataset structures a step's bound assumes: near-duplicate clusters (deduplication, quantization), missing
#: values (imputation), a low-rank matrix with an eigen-gap (PCA).
STRUCTURES = ("clusters", "missing", "low_rank")


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


def cluster_replacements(X: np.ndarray, eta: float, trials: int, rng: np.random.Generator) -> list[Replacement]:
    """Random: S against S[i ← z]. Adversarial: a non-member of the largest cluster moved to 0.5η from its centre
    (joins it; or onto the centre) against 2η (in (η, 3η]: breaks the cluster); random and adversarial alternate over
    ``trials`` pairs.  The clusters are the good clusters of radius η (Definition 5 of Hu, Sanyal, Schölkopf)."""
    X, eta, trials = as_finite_array(X, "X"), positive_finite("eta", eta), whole_number("trials", trials)
    n, d = X.shape
    centre = good_clusters(X, eta)
    ids, counts = np.unique(centre, return_counts=True)
    big = ids[np.argmax(counts)]
    outsiders = np.flatnonzero(centre != big)
    out = []
    for t in range(trials):
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


def imputation_replacements(X: np.ndarray, trials: int, rng: np.random.Generator) -> list[Replacement]:
    """A complete record replaced. Adversarial, in turn: opposite extreme values (±1) in the imputed feature; a
    record that itself misses it; a high-leverage record for the regression imputation (first feature 1/√2, imputed
    feature ±1/√2: a record at the origin of the predictors moves no least-squares fit without intercept).  The
    imputed feature is the last column of X (NaN marks a missing value)."""
    X, trials = as_missing_aware_array(X, "X"), whole_number("trials", trials)
    d, feature = X.shape[1], X.shape[1] - 1
    complete = np.flatnonzero(~np.isnan(X).any(1))
    out = []
    for t in range(trials):
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


def pca_replacements(X: np.ndarray, k: int, trials: int, rng: np.random.Generator) -> list[Replacement]:
    """Random: S against S[i ← z]. Adversarial: mass added along the top eigenvector against along the (k+1)-th
    (shrinks the eigen-gap δ^k in S₂)."""
    X, k, trials = as_finite_array(X, "X"), whole_number("k", k), whole_number("trials", trials)
    (n, d) = X.shape
    A, _ = top_eigenvectors(X, min(k + 1, d - 1))
    out = []
    for t in range(trials):
        i = int(rng.integers(n))
        if t % 2 == 0:
            out.append(Replacement("random", i, None, _unit(rng, 1, d)[0]))
        else:
            out.append(Replacement("adversarial", i, A[:, 0], A[:, k]))
    return out


def neighbouring_pairs(
    structure: str, X: np.ndarray, *, eta: float, k: int, trials: int, rng: np.random.Generator
) -> list[Replacement]:
    """The neighbouring pairs of a dataset of the given ``structure`` (:data:`STRUCTURES`): cluster replacements at
    η, imputation replacements, or PCA replacements at rank k (``trials`` random pairs and the adversarial ones)."""
    choice("structure", structure, STRUCTURES)
    if structure == "clusters":
        return cluster_replacements(X, eta, trials, rng)
    if structure == "missing":
        return imputation_replacements(X, trials, rng)
    return pca_replacements(X, k, trials, rng)


def bound_parameters(structure: str, S1: np.ndarray, S2: np.ndarray, *, eta: float, k: int) -> dict[str, float]:
    """What the sensitivity bound of a step on a dataset of the given ``structure`` depends on, worst over the pair
    (S1, S2): the largest good cluster at η (Prop. 3 of Hu, Sanyal, Schölkopf), the number of rows with a missing
    value p (Cor. 4, Prop. 15), or the smallest eigen-gaps δ^k and δ^1 (Prop. 5); the others stay 0 / NaN."""
    choice("structure", structure, STRUCTURES)
    out = {"cluster_size": 0, "missing": 0, "gap_k": np.nan, "gap_1": np.nan}
    if structure == "clusters":
        eta = positive_finite("eta", eta)
        out["cluster_size"] = max(int(np.unique(good_clusters(S, eta), return_counts=True)[1].max()) for S in (S1, S2))
    elif structure == "missing":
        out["missing"] = max(missing_rows(S1), missing_rows(S2))
    else:
        k = whole_number("k", k)
        values = [top_eigenvectors(S, k)[1] for S in (S1, S2)]
        out["gap_k"] = min(eigengap(v, k) for v in values)
        out["gap_1"] = min(eigengap(v, 1) for v in values)
    return out
