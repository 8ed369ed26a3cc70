"""Verdicts on the claims of Lin, Wang, Ma, Wang (2025) and its errata: ``RULES`` lists every claim declared in the
modules below (by a decorator of ``claims_common.CLAIMS`` on its measure function) in the order of ``claims.csv``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import Claim, build_rules
from dplab.studies.purification import (
    claims_audit,
    claims_conversion,
    claims_erm,
    claims_errata,
    claims_frank_wolfe,
    claims_query_release,
    claims_selection,
    claims_statements,
    claims_statistics,
)
from dplab.studies.purification.claims_common import CLAIMS

__all__ = ["RULES", "build_claims"]

RULES = CLAIMS.ordered(
    claims_audit,
    claims_conversion,
    claims_frank_wolfe,
    claims_erm,
    claims_errata,
    claims_statements,
    claims_statistics,
    claims_selection,
    claims_query_release,
)


def build_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """All claims whose frames are present (artifact ids as keys)."""
    return build_rules(RULES, frames, study_config)
