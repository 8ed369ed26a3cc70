"""Verdicts on the claims of Lin, Wang, Ma, Wang (purification) and its errata, decided by the study's frames.

``RULES`` holds every claim, each built as measure / verdict / evidence
(:class:`~dplab.studies.purification.claims_common.ClaimRule`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import Claim, build_rules
from dplab.studies.purification.claims_audit import AUDIT_RULES
from dplab.studies.purification.claims_conversion import CONVERSION_RULES
from dplab.studies.purification.claims_erm import ERM_RULES
from dplab.studies.purification.claims_errata import ERRATA_RULES
from dplab.studies.purification.claims_frank_wolfe import FRANK_WOLFE_RULES
from dplab.studies.purification.claims_query_release import QUERY_RELEASE_RULES
from dplab.studies.purification.claims_selection import SELECTION_RULES
from dplab.studies.purification.claims_statements import STATEMENT_RULES
from dplab.studies.purification.claims_statistics import STATISTICS_RULES

__all__ = ["RULES", "build_claims"]

RULES = (
    AUDIT_RULES
    + CONVERSION_RULES
    + FRANK_WOLFE_RULES
    + ERM_RULES
    + ERRATA_RULES
    + STATEMENT_RULES
    + STATISTICS_RULES
    + SELECTION_RULES
    + QUERY_RELEASE_RULES
)


def build_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """All claims whose frames are present (artifact ids as keys)."""
    return build_rules(RULES, frames, study_config)
