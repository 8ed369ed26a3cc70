"""Claims: one row per claim of a paper, with a verdict backed by numbers (the ``claims.csv`` contract).

A claim is decided by three pure functions bundled in a :class:`ClaimRule`: ``measure(frames, config) -> numbers``
(a mapping of the numbers that decide it), ``verdict(numbers) -> str`` (named threshold constants, each citing the
paper statement it tests) and ``evidence(numbers) -> str`` (text generated from the numbers). The decision rule is
stated in words in :attr:`ClaimRule.rule` and appended to the evidence of its row.

An erratum row compares what a paper prints with the correct value and is decided by :func:`differ` and
:func:`erratum_if`: ``erratum`` while the two disagree beyond round-off, ``holds`` once they agree.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from dplab.report.io import write_csv

__all__ = [
    "VERDICTS",
    "CLAIM_COLUMNS",
    "RELATIVE_TOLERANCE",
    "Claim",
    "ClaimRule",
    "Numbers",
    "build_rules",
    "claims_frame",
    "differ",
    "erratum_if",
    "exceeds",
    "holds_if",
    "write_claims",
]

Numbers = Mapping[str, Any]

VERDICTS = ("holds", "fails", "partial", "erratum", "not_tested")
CLAIM_COLUMNS = ("claim_id", "source", "statement", "verdict", "evidence", "artifact")
#: A printed value and the correct one "agree" when they differ by at most this amount relative to the larger:
#: far above float64 round-off of the closed forms compared, far below any difference an erratum makes.
RELATIVE_TOLERANCE = 1e-9


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


@dataclass(frozen=True)
class ClaimRule:
    """One claim of the paper and how it is decided.

    ``needs`` are the artifact ids whose frames ``measure`` reads (the claim is built only when all are present
    and ``applies(frames)``, if given, is true); ``rule`` states the decision rule in words, naming the thresholds
    of ``verdict``.
    """

    claim_id: str
    source: str
    statement: str
    artifact: str
    needs: tuple[str, ...]
    rule: str
    measure: Callable[[Mapping[str, pd.DataFrame], Mapping[str, Any]], Numbers]
    verdict: Callable[[Numbers], str]
    evidence: Callable[[Numbers], str]
    applies: Callable[[Mapping[str, pd.DataFrame]], bool] | None = None

    def decide(self, frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Claim:
        """The claim row: its verdict and evidence from the numbers measured on ``frames``."""
        numbers = self.measure(frames, config)
        return Claim(
            self.claim_id,
            self.source,
            self.statement,
            self.verdict(numbers),
            f"{self.evidence(numbers)}. Decision rule: {self.rule}",
            self.artifact,
        )


def differ(printed: float, correct: float, tolerance: float = RELATIVE_TOLERANCE) -> bool:
    """Whether ``|printed - correct| > tolerance * max(|printed|, |correct|)``; a NaN differs from every value.

    Equal values (two zeros included) never differ; ``tolerance`` is relative to the larger magnitude.
    """
    return not math.isclose(printed, correct, rel_tol=tolerance, abs_tol=0.0)


def exceeds(value: float, bound: float, tolerance: float = RELATIVE_TOLERANCE) -> bool:
    """Whether ``value > bound`` beyond round-off: above it and :func:`differ` from it at ``tolerance``."""
    return value > bound and differ(value, bound, tolerance)


def erratum_if(wrong: bool) -> str:
    """``erratum`` while the paper's printed statement is wrong on the measured values, ``holds`` once it agrees."""
    return "erratum" if wrong else "holds"


def holds_if(right: bool) -> str:
    """``holds`` when the paper's statement is true on the measured values, ``fails`` otherwise."""
    return "holds" if right else "fails"


def build_rules(
    rules: Iterable[ClaimRule], frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]
) -> list[Claim]:
    """The claims of ``rules`` whose frames are all present, in the order of ``rules``."""
    return [rule.decide(frames, config) for rule in rules if _applies(rule, frames)]


def _applies(rule: ClaimRule, frames: Mapping[str, pd.DataFrame]) -> bool:
    return all(key in frames for key in rule.needs) and (rule.applies is None or rule.applies(frames))


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
