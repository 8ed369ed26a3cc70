"""Claims: one row per claim of a paper, with a verdict backed by numbers (the ``claims.csv`` contract)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import pandas as pd

from dplab.report.io import write_csv

__all__ = ["VERDICTS", "CLAIM_COLUMNS", "Claim", "claims_frame", "write_claims"]

VERDICTS = ("holds", "fails", "partial", "erratum", "not_tested")
CLAIM_COLUMNS = ("claim_id", "source", "statement", "verdict", "evidence", "artifact")


@dataclass(frozen=True)
class Claim:
    """A claim of a paper and what our numbers say of it.

    ``evidence`` holds the numbers that decide the verdict; ``artifact`` the figure or table path (relative to
    the results folder) where they can be seen.
    """

    claim_id: str
    source: str
    statement: str
    verdict: str
    evidence: str
    artifact: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.claim_id!r}: verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")
        if not self.evidence.strip():
            raise ValueError(f"claim {self.claim_id!r}: evidence must state the numbers that decide the verdict")


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """The claims as a frame with exactly the contract's columns; claim ids must be unique."""
    frame = pd.DataFrame([asdict(c) for c in claims], columns=list(CLAIM_COLUMNS))
    duplicated = frame["claim_id"][frame["claim_id"].duplicated()].tolist()
    if duplicated:
        raise ValueError(f"duplicate claim ids: {duplicated}")
    return frame


def write_claims(claims: Iterable[Claim], path: str | os.PathLike[str]) -> None:
    """Write ``claims.csv``."""
    write_csv(claims_frame(claims), path)
