"""Empirical sensitivities of a pre-processing step (Definition 4 of Hu, Sanyal, Schölkopf 2024).

For S₁ = S ∪ {z₁}, S₂ = S ∪ {z₂} (row i replaced): Δ_∞ = d_H(π_{S₁}(S), π_{S₂}(S)), the number of records of the
common part S whose pre-processed value differs, and Δ₂ = max_{x∈S} ‖π_{S₁}(x) − π_{S₂}(x)‖₂. A removed record (∅)
is the zero vector (see :mod:`dplab.preprocessing.clusters`). Also returned: the L₁₂ distance of the two full
pre-processed datasets (Sec. 3.2), which is what a Gaussian mechanism on their sum sees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dplab.checks import as_missing_aware_array, require_ndim, whole_number
from dplab.preprocessing.clusters import PreprocessedDataset

__all__ = [
    "EmpiricalSensitivity",
    "empirical_sensitivity",
    "realised_sensitivity",
    "replacement_measures",
    "replace_row",
    "as_preprocessed",
]

#: Two pre-processed values closer than this are the same record (floating-point noise of eigh/lstsq).
TOLERANCE = 1e-10


@dataclass(frozen=True)
class EmpiricalSensitivity:
    """Δ_∞ and Δ₂ realised by one replacement, and d₁₂ between the two full pre-processed datasets."""

    delta_inf: int
    delta_2: float
    d12: float


def _checked_row(data: np.ndarray, i: int, z: ArrayLike, name: str) -> np.ndarray:
    """``z`` as a row of ``data`` after checking i is a row index and z has the row's shape."""
    whole_number("i", i, minimum=0, maximum=data.shape[0] - 1)
    row = as_missing_aware_array(z, name)
    if row.shape != data.shape[1:]:
        raise ValueError(f"{name} has shape {row.shape}; allowed: one row of X, shape {data.shape[1:]}")
    return row


def replace_row(X: ArrayLike, i: int, z: ArrayLike) -> np.ndarray:
    """A copy of X with row i replaced by z (S ∪ {z} in the paper's notation)."""
    data = np.array(as_missing_aware_array(X, "X"), dtype=float)
    data[i] = _checked_row(data, i, z, "z")
    return data


def as_preprocessed(output: np.ndarray | PreprocessedDataset) -> PreprocessedDataset:
    """A step's output as a PreprocessedDataset (plain arrays keep every record)."""
    if isinstance(output, PreprocessedDataset):
        return output
    values = np.asarray(output, dtype=float)
    return PreprocessedDataset(values, np.ones(values.shape[0], dtype=bool))


def empirical_sensitivity(
    step: Callable[[np.ndarray], np.ndarray | PreprocessedDataset], X: ArrayLike, i: int, z1: ArrayLike, z2: ArrayLike
) -> EmpiricalSensitivity:
    """Δ_∞, Δ₂ of ``step`` for the neighbours X[i ← z₁], X[i ← z₂], and d₁₂(π₁(S₁), π₂(S₂))."""
    data = require_ndim("X", as_missing_aware_array(X, "X"), 2)
    _checked_row(data, i, z1, "z1")
    _checked_row(data, i, z2, "z2")
    return realised_sensitivity(
        as_preprocessed(step(replace_row(X, i, z1))), as_preprocessed(step(replace_row(X, i, z2))), i
    )


def realised_sensitivity(first: PreprocessedDataset, second: PreprocessedDataset, i: int) -> EmpiricalSensitivity:
    """Δ_∞ (records other than i that moved or were kept/removed differently), Δ₂ (largest move of a record other
    than i) and d₁₂ (sum of all moves) between two pre-processed neighbouring datasets that differ in record i."""
    whole_number("i", i, minimum=0, maximum=first.values.shape[0] - 1)
    moved = np.linalg.norm(first.values - second.values, axis=1)
    changed = (moved > TOLERANCE) | (first.kept != second.kept)
    common = np.ones(moved.size, dtype=bool)
    common[i] = False
    return EmpiricalSensitivity(
        delta_inf=int(changed[common].sum()),
        delta_2=float(moved[common].max(initial=0.0)),
        d12=float(moved.sum()),
    )


def replacement_measures(first: PreprocessedDataset, second: PreprocessedDataset, i: int) -> dict[str, float]:
    """Δ_∞ and Δ₂ over the common records (all but row i, :func:`realised_sensitivity`) and ‖½Σπ₁ − ½Σπ₂‖₂, the
    shift that a Gaussian mechanism on half the sum of the pre-processed records sees."""
    realised = realised_sensitivity(first, second, i)
    return {
        "delta_inf": realised.delta_inf,
        "delta_2": realised.delta_2,
        "sum_distance": float(np.linalg.norm((first.values.sum(0) - second.values.sum(0)) / 2)),
    }
