"""dplab: audited reproductions of differential-privacy papers, one Snakemake workflow, and a library front door.

Library entry points (see docs/library.md): :func:`dplab.account.pnsgd_curve` (task 1, account) and
:mod:`dplab.calibrate` (task 2: DP-SGD noise, analytic Gaussian, purification budget) and :mod:`dplab.purify`
(task 3: Algorithms 1 and 2 with their pure certificates), :func:`dplab.audit.audit_samplers` (task 4),
:func:`dplab.train.train_dpsgd` (task 5).
"""

from dplab.account import PNSGDCurve, pnsgd_curve
from dplab.audit import AuditResult, audit_samplers
from dplab.calibrate import dpsgd_noise_multiplier, gaussian_sigma, purification_budget
from dplab.purify import PureRelease, purify_continuous, purify_integer
from dplab.train import DPSGDReport, train_dpsgd, train_pure_dp

__version__ = "0.1.0"

__all__ = [
    "DPSGDReport",
    "AuditResult",
    "PNSGDCurve",
    "PureRelease",
    "__version__",
    "audit_samplers",
    "dpsgd_noise_multiplier",
    "gaussian_sigma",
    "pnsgd_curve",
    "purification_budget",
    "purify_continuous",
    "purify_integer",
    "train_dpsgd",
    "train_pure_dp",
]
