"""Verdicts on every claim of Asoodeh, Diaz, Calmon (2020), declared in the study's ``claims_*`` modules: ``RULES``
in the order of ``claims.csv`` (Figures 2-3, Sections III-IV, the audits, our extensions, the errata)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import Claim, build_rules
from dplab.studies.contraction import claims_audit, claims_errata, claims_extensions, claims_figures, claims_theory
from dplab.studies.contraction.claims_common import CLAIMS

__all__ = ["RULES", "build_claims"]

RULES = CLAIMS.ordered(claims_figures, claims_theory, claims_audit, claims_extensions, claims_errata)


def build_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """All claims whose frames are present (artifact ids as keys: ``fig2``, ``ext_audit_gaussian``, ...)."""
    return build_rules(RULES, frames, study_config)
