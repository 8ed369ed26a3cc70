"""Verdicts on the claims of Hu, Sanyal, Schölkopf (2024) and its errata, decided by the study's frames.

``RULES`` holds every claim, each declared once in a ``claims_*`` module (:data:`.claims_common.CLAIMS`), in the order
of ``claims.csv``: Sections 3-4 (Figure 2, Tables 1-3, the audits of Theorem 2), Section 5.2 (Figure 3, PTR), the
appendix's lemmas, theorems and proof slips."""

from __future__ import annotations

from dplab.report.claims import Claim, build_rules
from dplab.studies.preprocessing import claims_appendix, claims_sec4, claims_sec5
from dplab.studies.preprocessing.claims_common import CLAIMS, Config, Frames

__all__ = ["RULES", "build_claims"]

RULES = CLAIMS.ordered(claims_sec4, claims_sec5, claims_appendix)


def build_claims(frames: Frames, study_config: Config) -> list[Claim]:
    """Every claim row the available frames decide (paper claims, errata, extensions)."""
    return build_rules(RULES, frames, study_config)
