"""Shared pieces of the contraction claims: where an artifact lands under ``results/`` and the erratum decision.

The claims themselves are :class:`dplab.report.claims.ClaimRule` instances (measure, verdict, evidence) in the
``claims_*`` modules of this study.
"""

from __future__ import annotations

from dplab.studies.contraction import NAME

__all__ = ["RELATIVE_TOLERANCE", "artifact_path", "differ", "erratum_if"]

#: Two values "agree" when they differ by less than this relative amount (floating point only).
RELATIVE_TOLERANCE = 1e-9


def artifact_path(artifact: str, kind: str = "figures") -> str:
    """Path of an artifact under ``results/``: ``contraction/figures/<id>.png`` or ``contraction/tables/<id>.csv``."""
    return f"{NAME}/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"


def differ(printed: float, correct: float) -> bool:
    """Whether a printed value and the correct one disagree beyond :data:`RELATIVE_TOLERANCE`."""
    return abs(printed - correct) > RELATIVE_TOLERANCE * max(abs(printed), abs(correct), 1e-300)


def erratum_if(wrong: bool) -> str:
    """``erratum`` while the paper's printed statement is wrong on the measured values, ``holds`` once it agrees."""
    return "erratum" if wrong else "holds"
