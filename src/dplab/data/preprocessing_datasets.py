"""Synthetic datasets with the structure the pre-processing bounds of Hu, Sanyal, Schölkopf (2024) assume.

- :func:`near_duplicate_clusters`: clusters of near-duplicates (good clusters of Sec. 4.1: all members within η/2
  of a centre point, every other point farther than 4η) plus isolated points, in the unit ball of ℝ^d.
- :func:`with_missing_values`: missing values at a controlled rate (MCAR: exactly round(rate·n) rows, each missing
  a chosen number of features among the imputable ones).
- :func:`low_rank_dataset`: approximately low-rank data (our generator for the "synthetic approximately low rank
  dataset" of Sec. 5.2 and Fig. 3, which the paper does not specify): x = U_k z + tail_sd·U_⊥g, k latent
  factors of magnitude in [0.8, 1]·scale/√k, projected onto the unit ball, with logistic labels; its eigen-gap
  δ^k of Σ = XᵀX/n is reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dplab.checks import (
    as_finite_array,
    finite,
    fits_in_memory,
    in_range,
    non_negative_finite,
    not_boolean,
    positive_finite,
    real_number,
    require_ndim,
)

__all__ = ["near_duplicate_clusters", "with_missing_values", "LowRankDataset", "low_rank_dataset", "check_missing_rate"]


def _check_int(name: str, value: int, minimum: int) -> int:
    if not isinstance(not_boolean(name, value), (int, np.integer)) or value < minimum:
        raise ValueError(f"{name}={value!r} is invalid; allowed: an integer >= {minimum}")
    return int(value)


def _random_directions(rng: np.random.Generator, count: int, d: int) -> np.ndarray:
    g = rng.standard_normal((count, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def near_duplicate_clusters(
    rng: np.random.Generator, n: int, d: int, cluster_sizes: list[int], eta: float
) -> np.ndarray:
    """n points in the unit ball: one cluster per entry of ``cluster_sizes`` (a centre point plus size−1 members
    within η/2 of it) and the rest isolated; all centres/isolated points pairwise farther than 4η (rejection
    sampling in the ball of radius 1 − η/2). Rows are shuffled."""
    n = _check_int("n", n, 1)
    d = _check_int("d", d, 1)
    positive_finite("eta", eta)
    # rows as a list of n d-vectors (each with a ~100-byte array header), then the array and its shuffled copy
    fits_in_memory({"n": n, "d": d}, n * (3 * 8 * d + 100), f"{n} points of R^{d} (float64, list and two arrays)")
    sizes = [_check_int("cluster size", s, 1) for s in cluster_sizes]
    if sum(sizes) > n:
        raise ValueError(f"cluster_sizes={cluster_sizes!r} sum to more than n={n}")
    anchors_needed = len(sizes) + n - sum(sizes)
    anchors: list[np.ndarray] = []
    for _ in range(200 * anchors_needed):
        if len(anchors) == anchors_needed:
            break
        candidate = _random_directions(rng, 1, d)[0] * (1 - eta / 2) * rng.uniform() ** (1 / d)
        if all(np.linalg.norm(candidate - a) > 4 * eta for a in anchors):
            anchors.append(candidate)
    if len(anchors) < anchors_needed:
        raise ValueError(
            f"eta={eta!r} is too large to place {anchors_needed} separated anchors in the unit ball of R^{d}"
        )
    rows = []
    for centre, size in zip(anchors, sizes):
        offsets = _random_directions(rng, size - 1, d) * (eta / 2) * rng.uniform(size=(size - 1, 1))
        rows.extend([centre, *(centre + offsets)])
    rows.extend(anchors[len(sizes) :])
    data = np.asarray(rows)
    data /= np.maximum(1.0, np.linalg.norm(data, axis=1, keepdims=True))
    return data[rng.permutation(n)]


def check_missing_rate(rate: float) -> float:
    """rate as a float after checking 0 ≤ rate < 1 (ValueError naming the value and the allowed range)."""
    value = real_number("missing_rate", rate)
    if not (np.isfinite(value) and 0 <= value < 1):
        raise ValueError(f"missing_rate={rate!r} is invalid; allowed: 0 <= missing_rate < 1")
    return value


def with_missing_values(
    rng: np.random.Generator, X: np.ndarray, missing_rate: float, imputable: list[int], features_per_row: int = 1
) -> np.ndarray:
    """A copy of X where exactly round(rate·n) rows (MCAR) each miss ``features_per_row`` of the ``imputable``
    features (NaN). Every imputable feature keeps at least one available value."""
    rate = check_missing_rate(missing_rate)
    data = np.array(require_ndim("X", as_finite_array(X, "X"), 2), dtype=float)
    n, d = data.shape
    if not imputable or any(not 0 <= j < d for j in imputable):
        raise ValueError(f"imputable={imputable!r} must be a non-empty list of feature indices in [0, {d})")
    features_per_row = _check_int("features_per_row", features_per_row, 1)
    if features_per_row > len(imputable):
        raise ValueError(f"features_per_row={features_per_row} exceeds the {len(imputable)} imputable features")
    rows = rng.choice(n, size=int(round(rate * n)), replace=False)
    for row in rows:
        data[row, rng.choice(imputable, size=features_per_row, replace=False)] = np.nan
    return data


@dataclass(frozen=True)
class LowRankDataset:
    """X (n, d) in the unit ball, labels y ∈ {±1}, descending eigenvalues of XᵀX/n, the gap δ^k and the basis U_k."""

    X: np.ndarray
    y: np.ndarray
    eigenvalues: np.ndarray
    gap: float
    basis: np.ndarray
    k: int

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The fields as named arrays (``gap`` and ``k`` as 0-d arrays), for an ``.npz`` file."""
        return {
            "X": self.X,
            "y": self.y,
            "eigenvalues": self.eigenvalues,
            "gap": np.array(self.gap),
            "basis": self.basis,
            "k": np.array(self.k),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> LowRankDataset:
        """The inverse of :meth:`to_arrays`."""
        a = arrays
        return cls(a["X"], a["y"], a["eigenvalues"], float(a["gap"]), a["basis"], int(a["k"]))


def low_rank_dataset(
    rng: np.random.Generator, n: int, d: int, k: int, tail_sd: float, scale: float = 1.0, label_scale: float = 4.0
) -> LowRankDataset:
    """Our generator for Fig. 3 (the paper does not specify one): U random orthogonal; z_ij = ±u_ij·scale/√k,
    u ~ U[0.8, 1]; x = U_k z + tail_sd·U_⊥g; rows projected onto the unit ball;
    Pr[y = 1] = sigmoid(label_scale·⟨θ†, x⟩/rms), θ† a unit vector in span U_k.
    λ_k ≈ 0.813·scale²/k, so ``scale`` controls the eigen-gap."""
    n, d = _check_int("n", n, 2), _check_int("d", d, 2)
    if not isinstance(not_boolean("k", k), (int, np.integer)) or not 1 <= k < d:
        raise ValueError(f"k={k!r} is invalid; allowed: an integer with 1 <= k < d = {d}")
    non_negative_finite("tail_sd", tail_sd)
    in_range("scale", scale, 0.0, 1.0, low_open=True)
    finite("label_scale", label_scale)
    # U and its QR input (d x d), the noise, X and its temporaries (about 4 arrays of n x d)
    fits_in_memory({"n": n, "d": d}, 8 * (2 * d * d + 4 * n * d), f"a {n} x {d} dataset with a {d} x {d} basis")
    U, _ = np.linalg.qr(rng.standard_normal((d, d)))
    z = rng.choice([-1.0, 1.0], size=(n, k)) * rng.uniform(0.8, 1.0, size=(n, k)) * scale / math.sqrt(k)
    X = z @ U[:, :k].T + tail_sd * rng.standard_normal((n, d - k)) @ U[:, k:].T
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    direction = U[:, :k] @ _random_directions(rng, 1, k)[0]
    margin = X @ direction
    margin = label_scale * margin / math.sqrt(np.mean(margin**2))
    y = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-margin)), 1.0, -1.0)
    eigenvalues = np.sort(np.linalg.eigvalsh(X.T @ X / n))[::-1]
    return LowRankDataset(X, y, eigenvalues, float(eigenvalues[k - 1] - eigenvalues[k]), U[:, :k], int(k))
