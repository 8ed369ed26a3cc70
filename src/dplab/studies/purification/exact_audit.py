"""Former home of the exact audit's neighbouring laws, now :mod:`dplab.audit.purification_pairs`; re-exported for
the study modules that import them from here."""

from dplab.audit.purification_pairs import (
    canonical_pair,
    example17_pair,
    projected_gaussian_pair,
    purification_scale_1d,
)

__all__ = ["canonical_pair", "example17_pair", "projected_gaussian_pair", "purification_scale_1d"]
