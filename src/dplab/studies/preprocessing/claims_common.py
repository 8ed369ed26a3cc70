"""Shared pieces of the pre-processing claims: where an artifact lands under ``results/`` and how an erratum row
compares a printed value with the corrected one."""

from __future__ import annotations

import math

__all__ = ["ERRATUM_TOLERANCE", "artifact_path", "erratum_verdict"]

#: Relative difference above which a printed and a corrected value disagree (far above round-off).
ERRATUM_TOLERANCE = 1e-9
ERRATUM_RULE = (
    "erratum while the printed and the corrected value differ by more than 1e-9 relative; holds if they agree"
)


def artifact_path(artifact: str, kind: str) -> str:
    """``preprocessing/figures/<id>.png`` or ``preprocessing/tables/<id>.csv``."""
    return f"preprocessing/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"


def erratum_verdict(printed: float, corrected: float) -> str:
    """``erratum`` while the paper's printed value and the corrected one disagree, ``holds`` once they agree."""
    return "holds" if math.isclose(printed, corrected, rel_tol=ERRATUM_TOLERANCE) else "erratum"
