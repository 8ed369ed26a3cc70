"""η-approximate deduplication π^d_η and quantization π^q_η (Hu, Sanyal, Schölkopf 2024, Sec. 4.1, Prop. 3,
App. C.1).

B(x, η; S) = {x̃ ∈ S : ‖x̃ − x‖₂ ≤ η}. A point x of S is the centre ("centroid", l. 953 of the paper) of a *good
cluster* if B(x, η; S) = B(x, 3η; S): no point of S lies at distance in (η, 3η] from x. Good clusters are processed
in reverse order of size (largest first; ties by index, for deterministic tie-breaking), skipping points already
taken by an earlier cluster. Deduplication keeps each centre and removes the other members; quantization maps
every member to its centre point (so a point moves by ≤ η, matching Δ₂ = η). Points in no good cluster are kept
unchanged. A removed point is the empty output ∅, stored as a zero row with ``kept = False`` (so ‖x − ∅‖ ≤ 1 on the
unit ball, the convention behind Δ₂(π^d) = 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dplab.checks import as_finite_array, positive_finite

__all__ = ["PreprocessedDataset", "good_clusters", "deduplicate", "quantize", "pairwise_distances"]


@dataclass(frozen=True)
class PreprocessedDataset:
    """π_S(S): ``values`` (n, d) (zero rows where removed) and ``kept`` (n,) False where the output is ∅."""

    values: np.ndarray
    kept: np.ndarray


def _check_dataset(X: ArrayLike) -> np.ndarray:
    array = as_finite_array(X, "X")
    if array.ndim != 2 or array.shape[0] < 1:
        raise ValueError(f"X has shape {array.shape}; it must be (n, d) with n >= 1")
    return array


def pairwise_distances(X: np.ndarray) -> np.ndarray:
    """‖x_i − x_j‖₂ for all pairs, (n, n), computed from differences (exact zeros on the diagonal)."""
    X = _check_dataset(X)
    return np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))


def good_clusters(X: ArrayLike, eta: float) -> np.ndarray:
    """Assignment ``centre[i]`` = index of the good-cluster centre that takes point i, or −1 if none.

    Centres are points with |B(x, η)| = |B(x, 3η)|, processed largest cluster first (ties: smaller index first);
    a centre already taken by an earlier cluster starts no cluster, and taken points are not re-assigned.
    """
    data = _check_dataset(X)
    e = positive_finite("eta", eta)
    distance = pairwise_distances(data)
    near, wide = distance <= e, distance <= 3 * e
    is_centre = near.sum(1) == wide.sum(1)
    sizes = near.sum(1)
    order = sorted(np.flatnonzero(is_centre), key=lambda i: (-sizes[i], i))
    centre = np.full(data.shape[0], -1, dtype=int)
    for c in order:
        if centre[c] != -1:
            continue
        members = np.flatnonzero(near[c] & (centre == -1))
        centre[members] = c
    return centre


def deduplicate(X: ArrayLike, eta: float) -> PreprocessedDataset:
    """π^d_η(S): keep each good-cluster centre, remove (∅) the other members, keep points in no good cluster."""
    data = _check_dataset(X)
    centre = good_clusters(data, eta)
    kept = (centre == -1) | (centre == np.arange(data.shape[0]))
    return PreprocessedDataset(np.where(kept[:, None], data, 0.0), kept)


def quantize(X: ArrayLike, eta: float) -> PreprocessedDataset:
    """π^q_η(S): every member of a good cluster is replaced by its centre point; other points unchanged."""
    data = _check_dataset(X)
    centre = good_clusters(data, eta)
    values = np.where((centre >= 0)[:, None], data[np.maximum(centre, 0)], data)
    return PreprocessedDataset(values, np.ones(data.shape[0], dtype=bool))
