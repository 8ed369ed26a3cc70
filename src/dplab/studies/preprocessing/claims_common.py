"""Shared pieces of the pre-processing claims: where an artifact lands under ``results/`` and the decision rule of an
erratum row in words (decided by :func:`dplab.report.claims.differ` at its default relative tolerance)."""

from __future__ import annotations

__all__ = ["ERRATUM_RULE", "artifact_path"]

#: :func:`dplab.report.claims.differ` at :data:`dplab.report.claims.RELATIVE_TOLERANCE`, in words.
ERRATUM_RULE = (
    "erratum while the printed and the corrected value differ by more than 1e-9 relative; holds if they agree"
)


def artifact_path(artifact: str, kind: str) -> str:
    """``preprocessing/figures/<id>.png`` or ``preprocessing/tables/<id>.csv``."""
    return f"preprocessing/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"
