"""The contraction study's claim book: every claim of Asoodeh, Diaz, Calmon (2020) is declared once, in a
``claims_*`` module of this study, by a decorator of :data:`CLAIMS` on its measure function
(:class:`dplab.report.claims.ClaimBook`)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from dplab.report.claims import ClaimBook
from dplab.studies.contraction import STUDY

__all__ = ["CLAIMS", "PAPER", "Frames"]

CLAIMS = ClaimBook(STUDY)
#: How a ``source`` names the paper.
PAPER = "Asoodeh, Diaz, Calmon (ISIT 2020)"
#: What a measure function reads: the study's frames by artifact id.
Frames = Mapping[str, pd.DataFrame]
