"""PCA rank/dimension reduction on hand-made data (Prop. 5)."""

import numpy as np
import pytest

from dplab.preprocessing import covariance, eigengap, pca_dim_reduce, pca_rank_reduce, top_eigenvectors


def test_axis_aligned_hand_case():
    X = np.array([[0.9, 0.1, 0.0], [-0.9, -0.1, 0.0], [0.8, -0.2, 0.05], [-0.8, 0.2, -0.05]])
    A, values = top_eigenvectors(X, 1)
    assert np.allclose(np.linalg.eigvalsh(covariance(X))[::-1], values)
    assert values[0] == pytest.approx(np.linalg.eigvalsh(X.T @ X / 4).max())
    assert A.sum() >= 0 and np.isclose(np.linalg.norm(A), 1)
    rank = pca_rank_reduce(X, 1)
    assert np.allclose(rank, X @ A @ A.T) and np.allclose(pca_rank_reduce(rank, 1), rank)  # idempotent projection
    assert np.allclose(pca_dim_reduce(X, 1), X @ A)
    assert eigengap(values, 1) == pytest.approx(values[0] - values[1])


def test_sign_convention_is_invariant_to_input_sign():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4)) * [1.0, 0.5, 0.2, 0.1]
    assert np.allclose(pca_dim_reduce(X, 2) @ np.eye(2), pca_dim_reduce(X, 2))
    A1, _ = top_eigenvectors(X, 2)
    A2, _ = top_eigenvectors(-X, 2)
    assert np.allclose(A1, A2)


@pytest.mark.parametrize("k", [0, 3, 4, 2.0])
def test_bad_rank_raises(k):
    with pytest.raises(ValueError, match="k="):
        pca_rank_reduce(np.eye(3), k)
