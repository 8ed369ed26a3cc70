"""The JSON schema of ``config['purification']`` and its cross-key constraints, one section per artifact group.

The schema (types, ranges, descriptions, defaults) lives in ``workflow/schemas/purification.schema.yaml``
(:func:`dplab.workflow.config.study_schema`); each part-2 group's section of it is named by its ``SECTION_*``. Part 1
(figures 1-4 and tables 1-2, the exact and Monte-Carlo audits, convex and strongly convex DP-ERM) and part 2 (mean
estimation, linear regression, PTR, mode release, query release): each part-2 group has a ``constraints_*`` function
for its own section; :func:`constraints` assembles the study's cross-key checks.

No numerical imports and no schema read, so that importing :mod:`dplab.studies.purification` (every job of the study
does) costs neither the numerical stack of the compute modules nor a parse of the schema: the workflow validates the
configuration once, before any job, and jobs receive their parameters validated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "NAME",
    "SECTION_MEAN_ESTIMATION",
    "SECTION_LINEAR_REGRESSION",
    "SECTION_PTR",
    "SECTION_MODE_RELEASE",
    "SECTION_QUERY_RELEASE",
    "constraints_ext_mean_estimation",
    "constraints_ext_linear_regression",
    "constraints_ptr",
    "constraints_mode_release",
    "constraints_query_release",
    "SECTION_FRANK_WOLFE",
    "constraints_frank_wolfe",
    "PART2_CONSTRAINTS",
    "constraints",
]

NAME = "purification"
SECTION_MEAN_ESTIMATION = "mean_estimation"
SECTION_LINEAR_REGRESSION = "linear_regression"
SECTION_PTR = "ptr"
SECTION_MODE_RELEASE = "mode_release"
SECTION_QUERY_RELEASE = "query_release"
SECTION_FRANK_WOLFE = "frank_wolfe"


def _message(key: str, value: Any, allowed: str) -> str:
    """The problem text for ``config[NAME][key]`` (``key`` dotted below the study section)."""
    return f"config key '{NAME}.{key}': value {value} is invalid; allowed: {allowed}"


def _messages(section: str) -> Callable[[str, Any, str], str]:
    """:func:`_message` for keys below ``config[NAME][section]``."""
    return lambda key, value, allowed: _message(f"{section}.{key}", value, allowed)


# --------------------------------------------------------------------------------------------------------------------
# Part 2: mean estimation (artifact ext_mean_estimation)
# --------------------------------------------------------------------------------------------------------------------


def constraints_ext_mean_estimation(section: Mapping[str, Any]) -> list[str]:
    """Cross-key checks: the audit means must stay in [−1, 1]; the δ sweep needs ≥ 3 points for a slope."""
    message = _messages(SECTION_MEAN_ESTIMATION)
    problems = []
    audit = section["audit"]
    if audit["mean"] + 2.0 / audit["n"] > 1:
        problems.append(
            message(
                "audit.mean",
                audit["mean"],
                f"<= 1 - 2/audit.n = {1 - 2 / audit['n']:g} (the neighbouring mean must stay in [-1, 1])",
            )
        )
    if len(set(section["delta_sweep"]["log10_deltas"])) < 3:
        problems.append(
            message(
                "delta_sweep.log10_deltas",
                section["delta_sweep"]["log10_deltas"],
                "at least 3 distinct values (a log-log slope is fitted)",
            )
        )
    if len(set(section["ds"])) < 2:
        problems.append(message("ds", section["ds"], "at least 2 distinct dimensions (a log-log slope is fitted)"))
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Part 2: linear regression (artifact ext_linear_regression)
# --------------------------------------------------------------------------------------------------------------------


def constraints_ext_linear_regression(section: Mapping[str, Any]) -> list[str]:
    """Cross-key checks: eig_min ≤ eig_max; every n > 2 max(d) (OLS needs XᵀX invertible); ≥ 2 values of n."""
    message = _messages(SECTION_LINEAR_REGRESSION)
    problems = []
    if section["eig_min"] > section["eig_max"]:
        problems.append(message("eig_min", section["eig_min"], f"<= eig_max = {section['eig_max']}"))
    for n in section["ns"]:
        if n <= 2 * max(section["ds"]):
            problems.append(message("ns", n, f"> 2 max(ds) = {2 * max(section['ds'])}"))
    if len(set(section["ns"])) < 2:
        problems.append(message("ns", section["ns"], "at least 2 distinct sample sizes (a log-log slope is fitted)"))
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Part 2: PTR and bounded local sensitivity (artifacts ext_ptr, ext_ptr_audit)
# --------------------------------------------------------------------------------------------------------------------


def constraints_ptr(section: Mapping[str, Any]) -> list[str]:
    """Cross-key checks: distinct sweep values, and draws below the audit sample sizes make no sense."""
    message = _messages(SECTION_PTR)
    problems = []
    for key in ("n_vertices", "edge_probabilities", "epsilons_total"):
        if len(set(section[key])) != len(section[key]):
            problems.append(message(key, section[key], "distinct values"))
    sizes = section["audit"]["sample_sizes"]
    if list(sizes) != sorted(sizes):
        problems.append(message("audit.sample_sizes", sizes, "increasing sample sizes"))
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Part 2: mode release (artifacts ext_mode_release, ext_mode_release_audit)
# --------------------------------------------------------------------------------------------------------------------


def constraints_mode_release(section: Mapping[str, Any]) -> list[str]:
    """Cross-key checks: the histogram must have the stated top two counts for every (bits, gap), and the audit
    lists must align."""
    message = _messages(SECTION_MODE_RELEASE)
    problems = []
    c1 = round(section["mode_share"] * section["n_records"])
    for key in ("bits", "gaps", "layouts"):
        if len(set(section[key])) != len(section[key]):
            problems.append(message(key, section[key], "distinct values"))
    for gap in section["gaps"]:
        if gap > c1:
            problems.append(message("gaps", gap, f"<= mode count round(mode_share * n_records) = {c1}"))
            continue
        for bits in section["bits"] if "uniform_rest" in section["layouts"] else []:
            rest = section["n_records"] - 2 * c1 + gap
            if rest < 0 or math.ceil(rest / (2**bits - 2)) > c1 - gap:
                problems.append(
                    message(
                        "mode_share",
                        section["mode_share"],
                        f"a share that keeps the other {2**bits - 2} items below the runner-up "
                        f"(bits={bits}, gap={gap}: remaining {rest} records)",
                    )
                )
    audit = section["audit"]
    if len(audit["exhaustive_records"]) != len(audit["bits"]):
        problems.append(
            message(
                "audit.exhaustive_records",
                audit["exhaustive_records"],
                f"one entry per audit bit count ({len(audit['bits'])})",
            )
        )
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Part 2: query release (artifacts ext_query_release, ext_query_release_audit)
# --------------------------------------------------------------------------------------------------------------------


def constraints_query_release(section: Mapping[str, Any]) -> list[str]:
    """Cross-key checks the schema cannot express: bias_low < bias_high, and every n ≥ 2^d for the largest d (at
    least one record per cell on average).  (Theorem 2's threshold δ = ε^{md}/(2md)^{3md} is a probability for every
    ε_tot ≤ 4 the schema allows, and d ≥ 3 keeps 3-way conjunctions defined.)"""
    message = _messages(SECTION_QUERY_RELEASE)
    problems = []
    if section["bias_low"] >= section["bias_high"]:
        problems.append(message("bias_low", section["bias_low"], f"< bias_high = {section['bias_high']}"))
    for n in [section["base"]["n"], *section["n_sweep"]]:
        if n < 2 ** max([section["base"]["d"], *section["d_sweep"]]):
            problems.append(
                message(
                    "n_sweep",
                    n,
                    f">= 2^d = {2 ** max([section['base']['d'], *section['d_sweep']])} "
                    "(at least one record per cell on average)",
                )
            )
            break
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Theorem 4: purified DP Frank-Wolfe (artifact ext_frank_wolfe)
# --------------------------------------------------------------------------------------------------------------------


def constraints_frank_wolfe(section: Mapping[str, Any]) -> list[str]:
    """Cross-key checks: at least 2 distinct n (a log-log slope is fitted) and sparsity <= every d."""
    message = _messages(SECTION_FRANK_WOLFE)
    problems = []
    if len(set(section["ns"])) < 2:
        problems.append(message("ns", section["ns"], "at least 2 distinct sample sizes (a log-log slope is fitted)"))
    if section["sparsity"] > min(section["ds"]):
        problems.append(message("sparsity", section["sparsity"], f"<= min(ds) = {min(section['ds'])}"))
    return problems


# --------------------------------------------------------------------------------------------------------------------
# The study: config['purification'] (part 1: figures 1-4, tables 1-2, the audits, DP-ERM; part 2 above)
# --------------------------------------------------------------------------------------------------------------------

PART2_CONSTRAINTS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    SECTION_MEAN_ESTIMATION: constraints_ext_mean_estimation,
    SECTION_LINEAR_REGRESSION: constraints_ext_linear_regression,
    SECTION_PTR: constraints_ptr,
    SECTION_MODE_RELEASE: constraints_mode_release,
    SECTION_QUERY_RELEASE: constraints_query_release,
    SECTION_FRANK_WOLFE: constraints_frank_wolfe,
}


def constraints(study_config: Mapping[str, Any]) -> list[str]:
    """Cross-key checks the schema cannot express."""
    problems = []
    fig1 = study_config["fig1"]
    if fig1["delta_min"] >= fig1["delta_max"]:
        problems.append(_message("fig1.delta_min", fig1["delta_min"], f"< fig1.delta_max = {fig1['delta_max']}"))
    if study_config["dp_erm"]["lam"] != 0:
        problems.append(
            _message("dp_erm.lam", study_config["dp_erm"]["lam"], "0 (convex ERM; use dp_erm_sc for lam > 0)")
        )
    if study_config["dp_erm_sc"]["lam"] <= 0:
        problems.append(_message("dp_erm_sc.lam", study_config["dp_erm_sc"]["lam"], "> 0 (strongly convex ERM)"))
    mc = study_config["mc_audit"]
    if "M2" in mc["mechanisms"] and mc["epsilon"] != 0:
        problems.append(_message("mc_audit.epsilon", mc["epsilon"], "0 when M2 (a (0, delta)-DP pair) is audited"))
    for section in ("dp_erm", "dp_erm_sc"):
        erm = study_config[section]
        for n in [erm["epsilon_sweep"]["n"], *erm["n_sweep"]["ns"]]:
            if n <= 4 * erm["d"]:
                problems.append(_message(f"{section}.n", n, f"> 4 d = {4 * erm['d']}"))
    for section, check in PART2_CONSTRAINTS.items():
        problems += check(study_config[section])
    return problems
