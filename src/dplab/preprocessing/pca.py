"""PCA rank reduction and dimension reduction (Hu, Sanyal, Schölkopf 2024, Prop. 5).

Covariance Σ = (1/n)XᵀX on (approximately) centred data: the normalisation of the proof of Prop. 8, used
everywhere (Prop. 5 uses the centred 1/(n − 1) covariance; one normalisation is a convention of this library).
A_k ∈ ℝ^{d×k} holds the top-k eigenvectors; each column's sign is fixed so that ⟨u, 1⟩ ≥ 0 (ties: first non-zero
coordinate positive), a data-independent convention that aligns the bases of neighbouring datasets (Prop. 5's bound
implicitly assumes aligned bases). Rank reduction x ↦ A_kA_kᵀx ∈ ℝ^d (sign-free); dimension reduction
x ↦ A_kᵀx ∈ ℝ^k. Eigen-gap δ^k = λ_k − λ_{k+1}.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dplab.checks import as_finite_array, not_boolean, whole_number

__all__ = ["covariance", "top_eigenvectors", "eigengap", "pca_rank_reduce", "pca_dim_reduce", "check_rank"]


def check_rank(k: int, d: int) -> int:
    """k as an int after checking 1 ≤ k < d (ValueError naming k, its value and the allowed range)."""
    whole_number("d", d, minimum=2)
    if not isinstance(not_boolean("k", k), (int, np.integer)) or not 1 <= k < d:
        raise ValueError(f"k={k!r} is invalid; allowed: an integer with 1 <= k < d = {d}")
    return int(k)


def covariance(X: ArrayLike) -> np.ndarray:
    """Σ = (1/n)XᵀX, (d, d)."""
    data = as_finite_array(X, "X")
    if data.ndim != 2:
        raise ValueError(f"X has shape {data.shape}; it must be (n, d)")
    return data.T @ data / data.shape[0]


def _fix_signs(vectors: np.ndarray) -> np.ndarray:
    sums = vectors.sum(0)
    first = vectors[np.argmax(np.abs(vectors) > 1e-12, axis=0), np.arange(vectors.shape[1])]
    sign = np.where(np.abs(sums) > 1e-12, np.sign(sums), np.sign(first))
    return vectors * np.where(sign == 0, 1.0, sign)


def top_eigenvectors(X: ArrayLike, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(A_k (d, k) with the sign convention, all eigenvalues of Σ in descending order)."""
    sigma = covariance(X)
    check_rank(k, sigma.shape[0])
    values, vectors = np.linalg.eigh(sigma)
    order = np.argsort(values)[::-1]
    return _fix_signs(vectors[:, order[:k]]), values[order]


def eigengap(eigenvalues: ArrayLike, k: int) -> float:
    """δ^k = λ_k − λ_{k+1} of descending eigenvalues (1-indexed k)."""
    values = as_finite_array(eigenvalues, "eigenvalues")
    check_rank(k, values.size)
    return float(values[k - 1] - values[k])


def pca_rank_reduce(X: ArrayLike, k: int) -> np.ndarray:
    """π_rank(S) = {A_kA_kᵀx : x ∈ S}, (n, d), A_k fitted on S itself."""
    data = as_finite_array(X, "X")
    A, _ = top_eigenvectors(data, k)
    return data @ A @ A.T


def pca_dim_reduce(X: ArrayLike, k: int) -> np.ndarray:
    """π_dim(S) = {A_kᵀx : x ∈ S}, (n, k), A_k fitted on S with the sign convention."""
    data = as_finite_array(X, "X")
    A, _ = top_eigenvectors(data, k)
    return data @ A
