"""dplab: audited reproductions of differential-privacy papers, one Snakemake workflow, and a library front door.

Library entry points (see docs/library.md): :func:`dplab.account.pnsgd_curve`.
"""

from dplab.account import PNSGDCurve, pnsgd_curve

__version__ = "0.1.0"

__all__ = ["PNSGDCurve", "__version__", "pnsgd_curve"]
