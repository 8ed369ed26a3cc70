"""Shared pieces of the contraction claims: where an artifact lands under ``results/``.

The claims themselves are :class:`dplab.report.claims.ClaimRule` instances (measure, verdict, evidence) in the
``claims_*`` modules of this study.
"""

from __future__ import annotations

from dplab.studies.contraction import NAME

__all__ = ["artifact_path"]


def artifact_path(artifact: str, kind: str = "figures") -> str:
    """Path of an artifact under ``results/``: ``contraction/figures/<id>.png`` or ``contraction/tables/<id>.csv``."""
    return f"{NAME}/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"
