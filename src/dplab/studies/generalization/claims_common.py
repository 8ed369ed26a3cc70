"""Shared pieces of the generalization claims: where an artifact lands under ``results/`` and boolean columns read
back from CSV."""

from __future__ import annotations

import pandas as pd

__all__ = ["artifact_path", "as_bool"]

STUDY = "generalization"


def artifact_path(artifact: str) -> str:
    """``generalization/tables/<id>.csv`` for a table (t1..t4), ``generalization/figures/<id>.png`` otherwise."""
    kind = "tables" if artifact.startswith("t") else "figures"
    return f"{STUDY}/{kind}/{artifact}.{'csv' if kind == 'tables' else 'png'}"


def as_bool(series: pd.Series) -> pd.Series:
    """A boolean column as written to CSV (True/False, 1/0) back to booleans."""
    return series.astype(str).str.lower().isin(["true", "1", "1.0"])
