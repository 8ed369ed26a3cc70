"""Lemmas 1-2 and Theorem 2 of Asoodeh et al. (2020) checked numerically, for the table ``ext_lemmas``.

Each row compares the paper's closed form with an independent reference (:mod:`dplab.audit.contraction_checks`):
adaptive numerical integration of int [p - gamma q]_+, Google's ``dp_accounting`` privacy-loss objects, or
(Theorem 2) a brute-force supremum of E_gamma over pairs of starting points of the projected kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

from dplab.audit.contraction_checks import (
    gaussian_renyi_check,
    hockey_stick_lemma_checks,
    projected_gaussian_contraction_check,
    unconstrained_gaussian_kernel_check,
)

__all__ = [
    "lemma_rows",
    "theorem2_rows",
    "renyi_rows",
    "lemma_table",
    "compute_lemma_table",
]

LEMMA_POINTS = ((0.0, 1.0, 1.0), (0.5, 2.0, 1.0), (1.0, 3.0, 0.5), (2.0, 0.5, 2.0), (0.25, 1.0, 2.0))
THEOREM2_POINTS = ((0.0, 1.0), (1.0, 1.0), (0.5, 2.0), (1.0, 4.0))
#: (epsilon, starting distance) of the unconstrained kernel's rows: unit noise, far apart.
UNCONSTRAINED_POINTS = ((0.0, 60.0), (1.0, 60.0))
RENYI_POINTS = ((2.0, 2.0, 1.0), (5.0, 1.0, 2.0), (1.5, 3.0, 1.5))


def lemma_rows() -> list[dict[str, object]]:
    """Lemma 1 (Laplace) and Lemma 2 (Gaussian): closed form vs quadrature vs dp_accounting."""
    return [row for point in LEMMA_POINTS for row in hockey_stick_lemma_checks(*point)]


def theorem2_rows(n_points: int = 21) -> list[dict[str, object]]:
    """Theorem 2 for the projected Gaussian kernel (brute-force supremum on an ``n_points`` grid against the exact
    value and the paper's bound), then the unconstrained kernel, which does not contract."""
    projected = [projected_gaussian_contraction_check(eps, diameter, n_points) for eps, diameter in THEOREM2_POINTS]
    return projected + [unconstrained_gaussian_kernel_check(*point) for point in UNCONSTRAINED_POINTS]


def renyi_rows() -> list[dict[str, object]]:
    """Renyi divergence of Gaussian shifts by quadrature against alpha Delta^2/(2 sigma^2) (eq. (3), squared)."""
    return [gaussian_renyi_check(*point) for point in RENYI_POINTS]


def lemma_table() -> pd.DataFrame:
    """All rows; ``paper_bound`` is Theorem 4's contraction bound theta(D/s) where it applies, ``order`` the
    Renyi order of the ``renyi_gaussian`` rows."""
    frame = pd.DataFrame(lemma_rows() + theorem2_rows() + renyi_rows())
    return frame[
        [
            "check",
            "epsilon",
            "order",
            "shift",
            "scale",
            "closed_form",
            "quadrature",
            "dp_accounting",
            "paper_bound",
            "max_abs_error",
        ]
    ]


def compute_lemma_table(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]]
) -> pd.DataFrame:
    """The table ``ext_lemmas`` in the registry's calling convention (its checks take no configuration, no seed)."""
    return lemma_table()
