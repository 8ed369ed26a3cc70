"""Verdicts on the claims of He, Wang, Tao and its errata, each declared once (:data:`.claims_common.CLAIMS`); ``RULES``
lists them in the order of ``claims.csv``: the DP => generalization bounds, the composition theorems, the applications
(SGLD and federated learning), the empirical companion."""

from __future__ import annotations

from dplab.report.claims import Claim, build_rules
from dplab.studies.generalization import claims_bounds, claims_composition, claims_empirical, claims_sgld
from dplab.studies.generalization.claims_common import CLAIMS, Config, Frames

__all__ = ["RULES", "build_claims"]

RULES = CLAIMS.ordered(claims_bounds, claims_composition, claims_sgld, claims_empirical)


def build_claims(frames: Frames, study_config: Config) -> list[Claim]:
    """Every claim whose frames are present (artifact ids f1..f9, t1..t4 as keys)."""
    return build_rules(RULES, frames, study_config)
