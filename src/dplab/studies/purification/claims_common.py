"""The purification study's claim book: every claim of Lin, Wang, Ma, Wang (2025) is declared once, in a
``claims_*`` module of this study, by a decorator of :data:`CLAIMS` on its measure function
(:class:`dplab.report.claims.ClaimBook`); and the few helpers several of those modules share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import ClaimBook, Numbers, clearly_less, exceeds
from dplab.studies.purification import STUDY

CLAIMS = ClaimBook(STUDY)
#: What a measure function reads: the study's frames by artifact id, and the study's configuration section.
Frames, Config = Mapping[str, pd.DataFrame], Mapping[str, Any]
#: How a ``source`` names the paper.
PAPER = "Lin et al. 2025"
#: Exact audits (Theorem 1 and its instances): a sup log ratio is within its bound up to float64 round-off.
AUDIT_TOLERANCE = 1e-9
#: An (eps, delta) accounting "agrees" with the epsilon it states within this relative tolerance.
ACCOUNTING_TOLERANCE = 1e-12
#: The rule text of :func:`share_verdict`.
SHARE_RULE = "holds if every cell is good, partial if at least half are (our threshold), fails otherwise"


def share_verdict(good: int, total: int) -> str:
    """``holds`` if every cell is good, ``partial`` if at least half are, ``fails`` otherwise (:data:`SHARE_RULE`)."""
    return "holds" if good == total else ("partial" if 2 * good >= total else "fails")


def mean_sem(frame: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    """Mean and standard error of ``column`` over the rows (replicates) of each ``keys`` cell; a cell with one row
    has standard error 0."""
    table = frame.groupby(keys)[column].agg(["mean", "sem"])
    return table.assign(sem=table["sem"].fillna(0.0))


def wins(a: pd.DataFrame, b: pd.DataFrame) -> pd.Series:
    """Per cell, whether the Monte-Carlo mean of ``a`` is clearly below that of ``b`` (:func:`clearly_less`)."""
    return pd.Series(list(map(clearly_less, a["mean"], a["sem"], b["mean"], b["sem"])), index=a.index)


#: The severity rule of :func:`accounting_severity`.
ACCOUNTING_SEVERITY = "severity false if it certifies more than eps (the privacy claim fails), loose if less"


def accounting_severity(n: Numbers) -> str:
    """An (eps, delta) statement whose accounting certifies more than its eps (``certified`` > ``target``) is false;
    one certifying less is loose (:data:`ACCOUNTING_SEVERITY`)."""
    return "false" if exceeds(n["certified"], n["target"], ACCOUNTING_TOLERANCE) else "loose"
