"""The contraction study's claim book: every claim of Asoodeh, Diaz, Calmon (2020) is declared once, in a
``claims_*`` module of this study, by a decorator of :data:`CLAIMS` on its measure function
(:class:`dplab.report.claims.ClaimBook`)."""

from __future__ import annotations

from dplab.report.claims import ClaimBook
from dplab.studies.contraction import STUDY

__all__ = ["CLAIMS", "PAPER", "artifact_path"]

CLAIMS = ClaimBook(STUDY)
#: How a ``source`` names the paper.
PAPER = "Asoodeh, Diaz, Calmon (ISIT 2020)"


def artifact_path(artifact: str, kind: str = "figures") -> str:
    """Path of an artifact under ``results/`` (the rules not yet declared in :data:`CLAIMS` use it; it goes once they
    all are)."""
    return f"{STUDY.name}/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"
