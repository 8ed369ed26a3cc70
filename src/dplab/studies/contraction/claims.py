"""Verdicts on every claim of Asoodeh, Diaz, Calmon (2020) and its errata, decided by the study's frames.

``RULES`` holds every claim, each a :class:`~dplab.report.claims.ClaimRule` (measure, verdict, evidence), in the
order of ``claims.csv``: Figures 2-3, Theorem 3's corollary, the lemmas and Theorem 2, the audits, the extensions,
the errata.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import Claim, build_rules
from dplab.studies.contraction import claims_errata
from dplab.studies.contraction.claims_audit import AUDIT_RULES, STRONGLY_CONVEX_RULES, UTILITY_RULE
from dplab.studies.contraction.claims_common import CLAIMS
from dplab.studies.contraction.claims_figures import FIGURE_RULES, REGIME_RULE
from dplab.studies.contraction.claims_theory import LEMMA_RULES, THRESHOLD_RULES

__all__ = ["RULES", "build_claims"]

RULES = (
    FIGURE_RULES
    + THRESHOLD_RULES
    + LEMMA_RULES
    + AUDIT_RULES
    + STRONGLY_CONVEX_RULES
    + (REGIME_RULE, UTILITY_RULE)
    + CLAIMS.ordered(claims_errata)
)


def build_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """All claims whose frames are present (artifact ids as keys: ``fig2``, ``ext_audit_gaussian``, ...)."""
    return build_rules(RULES, frames, study_config)
