"""Input checking and output shaping shared by the accounting and theory modules (private helpers)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "as_float_array",
    "as_integer_array",
    "as_non_negative_array",
    "as_positive_array",
    "require",
    "scalar_or_array",
]

_MAX_SHOWN = 5


def _describe(value: Any, ok: np.ndarray) -> str:
    """The offending entries of ``value`` (all of it when scalar), formatted for an error message."""
    array = np.asarray(value)
    if array.ndim == 0:
        return repr(array.item())
    bad = array[~np.broadcast_to(ok, array.shape)]
    shown = ", ".join(repr(x.item()) for x in bad[:_MAX_SHOWN])
    more = f", ... ({bad.size} entries)" if bad.size > _MAX_SHOWN else ""
    return f"[{shown}{more}]"


def require(ok: ArrayLike, name: str, value: Any, allowed: str) -> None:
    """Raise ``ValueError("<name>=<bad values> must satisfy <allowed>")`` unless every entry of ``ok`` is true."""
    ok = np.asarray(ok, dtype=bool)
    if not ok.all():
        raise ValueError(f"{name}={_describe(value, ok)} must satisfy {allowed}")


def as_float_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` if it contains NaN."""
    array = np.asarray(value, dtype=np.float64)
    require(~np.isnan(array), name, array, "not NaN")
    return array


def as_positive_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` unless every entry is finite and > 0."""
    array = as_float_array(value, name)
    require(np.isfinite(array) & (array > 0), name, array, f"0 < {name} < inf")
    return array


def as_non_negative_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` unless every entry is finite and >= 0."""
    array = as_float_array(value, name)
    require(np.isfinite(array) & (array >= 0), name, array, f"0 <= {name} < inf")
    return array


def as_integer_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as an int64 array; ``ValueError`` naming ``name`` unless every entry is a finite whole number."""
    array = np.asarray(value, dtype=np.float64)
    require(np.isfinite(array) & (array == np.round(array)), name, value, "a finite whole number")
    return array.astype(np.int64)


def scalar_or_array(array: np.ndarray) -> float | np.ndarray:
    """A Python float for a 0-d result, the float64 array otherwise."""
    array = np.asarray(array, dtype=np.float64)
    return float(array) if array.ndim == 0 else array
