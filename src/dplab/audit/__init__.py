"""Empirical privacy auditing: exact numerical laws of 1-D noisy chains and Monte-Carlo lower bounds.

Submodules:
    grid        exact binned law of projected 1-D PNSGD (our audit design for Asoodeh et al. 2020)
    instances   neighbouring-dataset family A–D and their swapped orders (our audit instances)
    alg11_laplace_step  exact pure ε and bracketed δ of Algorithm 11's Laplace step for d > 1 (Lin et al.)
    auditor     audit_samplers: event selection on half the samples, Clopper–Pearson bound on the other half
    accountant_check  check_dpsgd_accountant: dp_accounting's DP-SGD bounds against the engine's own sampler
    montecarlo  Clopper–Pearson intervals and honest lower bounds on E_γ and ε (eq. (7) of Asoodeh et al. 2020)
    quadrature  hockey-stick and Rényi divergences of 1-D laws by numerical integration (closed-form references)
    exponential_enumeration  the exponential mechanism's exact small case (Theorem 11 of Hu et al.)
    contraction_checks  Lemmas 1-2, Theorem 2 and eq. (3) of Asoodeh et al. 2020 against quadrature, dp_accounting
"""

from __future__ import annotations

import importlib

from dplab.audit.auditor import AuditResult, audit_samplers
from dplab.audit.grid import (
    NOISE_NAMES,
    UniformGrid,
    bin_index,
    kernel_matrix,
    linear_loss_psi,
    pnsgd_output_laws,
    point_mass,
    privacy_loss_bound,
    propagate,
)
from dplab.audit.instances import INSTANCE_NAMES, AuditInstance, audit_instance
from dplab.audit.montecarlo import (
    HockeyStickLowerBound,
    clopper_pearson,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound_from_counts,
    event_from_laws,
    hockey_stick_lower_bound,
    hockey_stick_lower_bound_from_counts,
)

__all__ = [
    "INSTANCE_NAMES",
    "NOISE_NAMES",
    "AccountantCheck",
    "AuditInstance",
    "AuditResult",
    "HockeyStickLowerBound",
    "UniformGrid",
    "audit_instance",
    "audit_samplers",
    "bin_index",
    "check_dpsgd_accountant",
    "check_pnsgd_accountant",
    "clopper_pearson",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound_from_counts",
    "event_from_laws",
    "hockey_stick_lower_bound",
    "hockey_stick_lower_bound_from_counts",
    "kernel_matrix",
    "linear_loss_psi",
    "plot_accountant_check",
    "pnsgd_output_laws",
    "point_mass",
    "privacy_loss_bound",
    "propagate",
]

_LAZY = {
    name: "dplab.audit.accountant_check"
    for name in ("AccountantCheck", "check_dpsgd_accountant", "check_pnsgd_accountant", "plot_accountant_check")
}


def __getattr__(name: str):
    """The accountant check imports torch and dp_accounting: load it on first use (PEP 562), so that the exact laws
    and the auditor stay light to import."""
    if name not in _LAZY:
        raise AttributeError(f"module 'dplab.audit' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
