"""Where a purification artifact lands under ``results/``; the claims themselves are
:class:`dplab.report.claims.ClaimRule` instances (measure, verdict, evidence)."""

from __future__ import annotations

from dplab.studies.purification.sections import NAME

__all__ = ["artifact_path"]


def artifact_path(artifact: str, kind: str = "figures") -> str:
    """Path of an artifact under ``results/``: ``purification/figures/<id>.png`` or ``purification/tables/<id>.csv``."""
    return f"{NAME}/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"
