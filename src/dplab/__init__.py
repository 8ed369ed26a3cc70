"""dplab: audited reproductions of differential-privacy papers, one Snakemake workflow, and a library front door.

Library entry points (see docs/library.md): :func:`dplab.account.pnsgd_curve` (task 1, account) and
:mod:`dplab.calibrate` (task 2: DP-SGD noise, analytic Gaussian, purification budget).
"""

from dplab.account import PNSGDCurve, pnsgd_curve
from dplab.calibrate import dpsgd_noise_multiplier, gaussian_sigma, purification_budget

__version__ = "0.1.0"

__all__ = [
    "PNSGDCurve",
    "__version__",
    "dpsgd_noise_multiplier",
    "gaussian_sigma",
    "pnsgd_curve",
    "purification_budget",
]
