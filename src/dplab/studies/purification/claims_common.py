"""What the purification study's claims modules share: the claim rule (measure, verdict, evidence), where an
artifact lands, and the log-log rate fit.

Every claim is three pure functions: ``measure(frames, config) -> numbers`` (a mapping of the numbers that decide
it), ``verdict(numbers) -> str`` (named threshold constants, each citing the paper statement it tests) and
``evidence(numbers) -> str`` (text generated from the numbers). The decision rule is stated in words in
:attr:`ClaimRule.rule` and appended to the evidence of its row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dplab.report.claims import Claim
from dplab.studies.purification.sections import NAME

__all__ = ["ClaimRule", "Numbers", "artifact_path", "build_rules", "loglog_slope"]

Numbers = Mapping[str, Any]


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


def build_rules(
    rules: Iterable[ClaimRule], frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]
) -> list[Claim]:
    """The claims of ``rules`` whose frames are all present, in the order of ``rules``."""
    return [rule.decide(frames, config) for rule in rules if _applies(rule, frames)]


def _applies(rule: ClaimRule, frames: Mapping[str, pd.DataFrame]) -> bool:
    return all(key in frames for key in rule.needs) and (rule.applies is None or rule.applies(frames))


def artifact_path(artifact: str, kind: str = "figures") -> str:
    """Path of an artifact under ``results/``: ``purification/figures/<id>.png`` or ``purification/tables/<id>.csv``."""
    return f"{NAME}/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"


def loglog_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against log x over the points with x, y > 0 finite (nan with fewer than 2
    distinct x)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if len(np.unique(x[keep])) < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])
