"""Verdicts on the claims of Hu, Sanyal, Schölkopf (2024) and its errata, decided by the study's frames.

``RULES`` holds every claim, each a :class:`dplab.report.claims.ClaimRule` (measure, verdict, evidence), in the
order of the claims table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import Claim, build_rules
from dplab.studies.preprocessing.claims_appendix import APPENDIX_RULES
from dplab.studies.preprocessing.claims_extensions import EXTENSION_RULES, PTR_RULES
from dplab.studies.preprocessing.claims_fig3 import FIG3_RULES, REGIMES_RULE, TEXT_RULES
from dplab.studies.preprocessing.claims_figures import FIGURE2_PANEL_RULES, FIGURE2_RULES, PCA_COST_RULE
from dplab.studies.preprocessing.claims_tables import TABLE_RULES
from dplab.studies.preprocessing.claims_theorems import THEOREM_RULES

__all__ = ["RULES", "build_claims"]

RULES = (
    FIGURE2_RULES
    + TABLE_RULES
    + FIGURE2_PANEL_RULES
    + FIG3_RULES
    + (REGIMES_RULE,)
    + EXTENSION_RULES
    + PTR_RULES
    + (PCA_COST_RULE,)
    + TEXT_RULES
    + APPENDIX_RULES
    + THEOREM_RULES
)


def build_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """Every claim row the available frames decide (paper claims, errata, extensions)."""
    return build_rules(RULES, frames, study_config)
