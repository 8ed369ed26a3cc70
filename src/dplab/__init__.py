"""dplab: audited reproductions of differential-privacy papers, one Snakemake workflow, and a library front door.

Library entry points (see docs/library.md), imported lazily so that ``import dplab.<submodule>`` stays light:
:func:`pnsgd_curve` (task 1, account; :mod:`dplab.account`), :func:`dpsgd_noise_multiplier`, :func:`gaussian_sigma`,
:func:`purification_budget` (task 2, :mod:`dplab.calibrate`), :func:`purify_continuous`, :func:`purify_integer`
(task 3, :mod:`dplab.purify`), :func:`audit_samplers` (task 4, :mod:`dplab.audit`), :func:`train_dpsgd`,
:func:`train_pure_dp` (task 5, :mod:`dplab.train`), :func:`check_dpsgd_accountant`, :func:`check_pnsgd_accountant`,
:func:`plot_accountant_check`
(task 6, :mod:`dplab.audit.accountant_check`).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_PUBLIC = {
    "PNSGDCurve": "dplab.account",
    "pnsgd_curve": "dplab.account",
    "dpsgd_noise_multiplier": "dplab.calibrate",
    "gaussian_sigma": "dplab.calibrate",
    "purification_budget": "dplab.calibrate",
    "PureRelease": "dplab.purify",
    "purify_continuous": "dplab.purify",
    "purify_integer": "dplab.purify",
    "AuditResult": "dplab.audit",
    "audit_samplers": "dplab.audit",
    "AccountantCheck": "dplab.audit",
    "check_dpsgd_accountant": "dplab.audit",
    "check_pnsgd_accountant": "dplab.audit",
    "plot_accountant_check": "dplab.audit",
    "DPSGDReport": "dplab.train",
    "train_dpsgd": "dplab.train",
    "train_pure_dp": "dplab.train",
}

__all__ = [
    "AccountantCheck",
    "AuditResult",
    "DPSGDReport",
    "PNSGDCurve",
    "PureRelease",
    "__version__",
    "audit_samplers",
    "check_dpsgd_accountant",
    "check_pnsgd_accountant",
    "dpsgd_noise_multiplier",
    "gaussian_sigma",
    "plot_accountant_check",
    "pnsgd_curve",
    "purification_budget",
    "purify_continuous",
    "purify_integer",
    "train_dpsgd",
    "train_pure_dp",
]


def __getattr__(name: str):
    """Import a public name from its module on first use (PEP 562)."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'dplab' has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name]), name)
