"""Shared pieces of the generalization claims: where an artifact lands under ``results/``, boolean columns read
back from CSV, and the tolerance at which two closed forms "agree"."""

from __future__ import annotations

import pandas as pd

__all__ = ["RELATIVE_TOLERANCE", "artifact_path", "as_bool", "differ"]

STUDY = "generalization"

#: Two closed forms (a printed formula and its correction) agree when they differ by less than this relative amount
#: (floating point only); an erratum row is an ``erratum`` while they differ.
RELATIVE_TOLERANCE = 1e-9


def artifact_path(artifact: str) -> str:
    """``generalization/tables/<id>.csv`` for a table (t1..t4), ``generalization/figures/<id>.png`` otherwise."""
    kind = "tables" if artifact.startswith("t") else "figures"
    return f"{STUDY}/{kind}/{artifact}.{'csv' if kind == 'tables' else 'png'}"


def as_bool(series: pd.Series) -> pd.Series:
    """A boolean column as written to CSV (True/False, 1/0) back to booleans."""
    return series.astype(str).str.lower().isin(["true", "1", "1.0"])


def differ(a: float, b: float) -> bool:
    """Whether ``a`` and ``b`` differ by more than :data:`RELATIVE_TOLERANCE` (relative to the larger)."""
    return abs(a - b) > RELATIVE_TOLERANCE * max(abs(a), abs(b))
