"""The pre-processing study's claim book: every claim of Hu, Sanyal, Schölkopf (ICML 2024) is declared once, in a
``claims_*`` module of this study, by a decorator of :data:`CLAIMS` on its measure function
(:class:`dplab.report.claims.ClaimBook`); and the pieces several claim modules share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import ClaimBook, Numbers, differ, erratum_if
from dplab.studies.preprocessing import STUDY

__all__ = ["CLAIMS", "ERRATUM_RULE", "PAPER", "Config", "Frames", "graded", "printed_differs"]

CLAIMS = ClaimBook(STUDY)
#: How a ``source`` names the paper (v1, arXiv:2403.13041v1, the text with mathematics).
PAPER = "Hu et al. 2024"
Frames = Mapping[str, pd.DataFrame]
Config = Mapping[str, Any]
#: :func:`printed_differs` in words (:func:`dplab.report.claims.differ` at its default relative tolerance).
ERRATUM_RULE = (
    "erratum while the printed and the corrected value differ by more than 1e-9 relative; holds once they agree"
)


def printed_differs(numbers: Numbers) -> str:
    """``erratum`` while ``numbers['printed']`` and ``numbers['corrected']`` differ (:data:`ERRATUM_RULE`)."""
    return erratum_if(differ(numbers["printed"], numbers["corrected"]))


def graded(holds: bool, fails: bool) -> str:
    """``holds`` where ``holds``, else ``fails`` where ``fails``, else ``partial`` (a rule with three outcomes)."""
    return "holds" if holds else ("fails" if fails else "partial")
