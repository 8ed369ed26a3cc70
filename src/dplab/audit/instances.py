"""Neighbouring-dataset family for auditing 1-D PNSGD with the linear loss (our audit design; Asoodeh, Diaz,
Calmon 2020 run no experiment).

With ℓ(y, x) = x·y + const and x ∈ [−L, L], the gradient step ψ_x(y) = y − lr·x is a pure shift, and the
worst-case sensitivity 2·lr·L of Lemma 3 / eq. (24) of Asoodeh et al. (2020) is attained with x_i = +L in one
dataset and x'_i = −L in the other; every other record is shared (Hamming distance 1 at position i).

Instances (positions t are 1-based; the differing record sits at t = i):
    A: x_t = 0 for t ≠ i;                       y0 = (a + b)/2
    B: x_t = −L for t < i, x_t = 0 for t > i;   y0 = b
    C: x_t = −L for t < i, x_t = +L for t > i;  y0 = b
    D: x_t = −L for all t ≠ i;                  y0 = b
Original orientation: x_i = +L in ``data`` and −L in ``data_prime``.  Because E_γ is not symmetric, the
"_swapped" variants exchange the two datasets (DP needs both orders).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplab.checks import positive_finite, real_number, whole_number

__all__ = ["INSTANCE_NAMES", "AuditInstance", "audit_instance"]

_BASE_NAMES: tuple[str, ...] = ("A", "B", "C", "D")
_SWAPPED_SUFFIX = "_swapped"
INSTANCE_NAMES: tuple[str, ...] = _BASE_NAMES + tuple(name + _SWAPPED_SUFFIX for name in _BASE_NAMES)


@dataclass(frozen=True, eq=False)
class AuditInstance:
    """A neighbouring pair (data, data_prime) of 1-D records and the PNSGD start point y0.

    The arrays are read-only; ``eq=False`` because element-wise array equality has no single truth value.
    """

    name: str
    y0: float
    data: np.ndarray
    data_prime: np.ndarray


def _records_other_than_i(base_name: str, *, n: int, i: int, L: float) -> np.ndarray:
    """Shared records x_t (t ≠ i) of a base instance; entry i − 1 is overwritten by the caller."""
    positions = np.arange(1, n + 1)
    before = positions < i
    if base_name == "A":
        return np.zeros(n)
    if base_name == "B":
        return np.where(before, -L, 0.0)
    if base_name == "C":
        return np.where(before, -L, L)
    return np.full(n, -L)  # "D"


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def audit_instance(name: str, *, n: int, i: int, a: float, b: float, L: float) -> AuditInstance:
    """The neighbouring pair ``name`` (see the module docstring) for n records, differing position i, domain [a, b].

    ``name`` is one of INSTANCE_NAMES; the "_swapped" variants exchange ``data`` and ``data_prime``.
    """
    if name not in INSTANCE_NAMES:
        raise ValueError(f"name={name!r} is not an audit instance; allowed: {', '.join(INSTANCE_NAMES)}")
    whole_number("n", n)
    whole_number("i", i)
    if not 1 <= i <= n:
        raise ValueError(f"i={i!r} must be an integer with 1 <= i <= n={n}")
    a, b = real_number("a", a), real_number("b", b)
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"a={a!r}, b={b!r} must be finite with a < b")
    positive_finite("L", L)
    n, i, L = int(n), int(i), float(L)

    base_name = name.removesuffix(_SWAPPED_SUFFIX)
    data = _records_other_than_i(base_name, n=n, i=i, L=L)
    data_prime = data.copy()
    data[i - 1], data_prime[i - 1] = L, -L
    if name.endswith(_SWAPPED_SUFFIX):
        data, data_prime = data_prime, data
    y0 = 0.5 * (a + b) if base_name == "A" else float(b)
    return AuditInstance(name=name, y0=float(y0), data=_read_only(data), data_prime=_read_only(data_prime))
