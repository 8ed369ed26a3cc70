"""Verdicts on the claims of He, Wang, Tao and its errata, decided by the study's frames (by artifact id).

``RULES`` holds every claim, each a :class:`~dplab.report.claims.ClaimRule` (measure, verdict, evidence): the "strictly
tighter" claims, each theorem's conclusion where it can be checked against an exact computation, and an ``erratum`` row
for each place where the paper's printed formula and the correct one (its own proof, or the exact value) differ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import Claim, build_rules
from dplab.studies.generalization.claims_bounds import BOUND_RULES
from dplab.studies.generalization.claims_composition import COMPOSITION_RULES
from dplab.studies.generalization.claims_empirical import EMPIRICAL_RULES
from dplab.studies.generalization.claims_sgld import SGLD_RULES

__all__ = ["RULES", "build_claims"]

RULES = BOUND_RULES + COMPOSITION_RULES + SGLD_RULES + EMPIRICAL_RULES


def build_claims(frames: Mapping[str, pd.DataFrame], study_config: Mapping[str, Any]) -> list[Claim]:
    """Every claim whose frames are present (artifact ids f1..f9, t1..t4 as keys)."""
    return build_rules(RULES, frames, study_config)
