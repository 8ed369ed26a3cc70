"""Output shaping shared by the accounting and theory modules (private helper); the argument checks are in
``dplab.checks``."""

from __future__ import annotations

import numpy as np

__all__ = ["scalar_or_array"]


def scalar_or_array(array: np.ndarray) -> float | np.ndarray:
    """A Python float for a 0-d result, the float64 array otherwise."""
    array = np.asarray(array, dtype=np.float64)
    return float(array) if array.ndim == 0 else array
