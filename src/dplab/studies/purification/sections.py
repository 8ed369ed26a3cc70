"""The JSON schema of ``config['purification']`` and its cross-key constraints, one section per artifact group.

Part 1 (figures 1-4 and tables 1-2, the exact and Monte-Carlo audits, convex and strongly convex DP-ERM) and part 2
(mean estimation, linear regression, PTR, mode release, query release): each part-2 group has a ``SCHEMA_*`` dict
and a ``constraints_*`` function for its own section; :data:`SCHEMA` and :func:`constraints` assemble the study.

Standard library only, so that importing :mod:`dplab.studies.purification` (which hands :data:`SCHEMA` to the
study registry) does not import the numerical stack of the compute modules.
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
    "POS",
    "PROB",
    "NONNEG",
    "SCHEMA_EXT_MEAN_ESTIMATION",
    "constraints_ext_mean_estimation",
    "SCHEMA_EXT_LINEAR_REGRESSION",
    "constraints_ext_linear_regression",
    "SCHEMA_PTR",
    "constraints_ptr",
    "SCHEMA_MODE_RELEASE",
    "constraints_mode_release",
    "SCHEMA_QUERY_RELEASE",
    "constraints_query_release",
    "PART2_CONSTRAINTS",
    "SCHEMA",
    "constraints",
]

NAME = "purification"
SECTION_MEAN_ESTIMATION = "mean_estimation"
SECTION_LINEAR_REGRESSION = "linear_regression"
SECTION_PTR = "ptr"
SECTION_MODE_RELEASE = "mode_release"
SECTION_QUERY_RELEASE = "query_release"


# --------------------------------------------------------------------------------------------------------------------
# Schema helpers
# --------------------------------------------------------------------------------------------------------------------

def _obj(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A closed object: every property required, no others allowed."""
    return {"type": "object", "additionalProperties": False, "required": list(properties), "properties": dict(properties)}


def _list(item: Mapping[str, Any]) -> dict[str, Any]:
    """A non-empty array of ``item``."""
    return {"type": "array", "minItems": 1, "items": dict(item)}


def _int(minimum: int, maximum: int | None = None) -> dict[str, Any]:
    """An integer in [minimum, maximum] (no upper bound if ``maximum`` is None)."""
    out: dict[str, Any] = {"type": "integer", "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return out


def _num(*, minimum: float | None = None, exclusive_minimum: float | None = None, maximum: float | None = None,
         exclusive_maximum: float | None = None) -> dict[str, Any]:
    """A number with the given (inclusive or exclusive) bounds; unset bounds are omitted."""
    out: dict[str, Any] = {"type": "number"}
    for key, value in (("minimum", minimum), ("exclusiveMinimum", exclusive_minimum), ("maximum", maximum),
                       ("exclusiveMaximum", exclusive_maximum)):
        if value is not None:
            out[key] = value
    return out


POS = _num(exclusive_minimum=0)
PROB = _num(exclusive_minimum=0, exclusive_maximum=1)
NONNEG = _num(minimum=0)


def _message(key: str, value: Any, allowed: str) -> str:
    """The problem text for ``config[NAME][key]`` (``key`` dotted below the study section)."""
    return f"config key '{NAME}.{key}': value {value} is invalid; allowed: {allowed}"


def _messages(section: str) -> Callable[[str, Any, str], str]:
    """:func:`_message` for keys below ``config[NAME][section]``."""
    return lambda key, value, allowed: _message(f"{section}.{key}", value, allowed)


# --------------------------------------------------------------------------------------------------------------------
# Part 2: mean estimation (artifact ext_mean_estimation)
# --------------------------------------------------------------------------------------------------------------------

SCHEMA_EXT_MEAN_ESTIMATION: dict[str, Any] = _obj({
    "n": _int(10),
    "p_plus": _num(minimum=0, maximum=1),
    "ds": _list(_int(1, 1000)),
    "epsilons": _list(POS),
    "reference_delta": PROB,
    "seeds": _int(1, 1000),
    "draws": _int(1, 100000),
    "delta_sweep": _obj({
        "d": _int(2, 1000),
        "epsilon": POS,
        "log10_deltas": _list(_num(exclusive_maximum=0)),
    }),
    "audit": _obj({
        "n": _int(2),
        "mean": _num(minimum=-1, maximum=1),
        "epsilons": _list(POS),
        "n_points": _int(101, 1000001),
    }),
})


def constraints_ext_mean_estimation(section: Mapping[str, Any]) -> list[str]:
    """Cross-key checks: the audit means must stay in [−1, 1]; the δ sweep needs ≥ 3 points for a slope."""
    message = _messages(SECTION_MEAN_ESTIMATION)
    problems = []
    audit = section["audit"]
    if audit["mean"] + 2.0 / audit["n"] > 1:
        problems.append(message("audit.mean", audit["mean"], f"<= 1 - 2/audit.n = {1 - 2 / audit['n']:g} (the "
                                                             "neighbouring mean must stay in [-1, 1])"))
    if len(set(section["delta_sweep"]["log10_deltas"])) < 3:
        problems.append(message("delta_sweep.log10_deltas", section["delta_sweep"]["log10_deltas"],
                                "at least 3 distinct values (a log-log slope is fitted)"))
    if len(set(section["ds"])) < 2:
        problems.append(message("ds", section["ds"], "at least 2 distinct dimensions (a log-log slope is fitted)"))
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Part 2: linear regression (artifact ext_linear_regression)
# --------------------------------------------------------------------------------------------------------------------

SCHEMA_EXT_LINEAR_REGRESSION: dict[str, Any] = _obj({
    "ns": _list(_int(20, 1_000_000)),
    "ds": _list(_int(1, 100)),
    "epsilons": _list(POS),
    "zeta": PROB,
    "noise_sd": NONNEG,
    "eig_min": POS,
    "eig_max": POS,
    "seeds": _int(1, 1000),
    "draws": _int(1, 10000),
})


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

SCHEMA_PTR: dict[str, Any] = _obj({
    "n_vertices": _list(_int(5, 2000)),
    "edge_probabilities": _list(PROB),
    "epsilons_total": _list(POS),
    "graphs": _int(1, 100),
    "draws": _int(10, 100000),
    "reference_delta": PROB,
    "audit": _obj({
        "epsilon_total": POS,
        "sample_sizes": _list(_int(1000, 20_000_000)),
        "n_thresholds": _int(2, 1000),
        "alpha": PROB,
        "check_graphs": _int(1, 200),
        "check_vertices": _int(3, 9),
    }),
})


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

_GEOMETRIES = ("corrected", "as_printed")

SCHEMA_MODE_RELEASE: dict[str, Any] = _obj({
    "bits": _list(_int(2, 20)),
    "layouts": _list({"enum": ["uniform_rest", "all_runner_up"]}),
    "n_records": _int(10, 10_000_000),
    "mode_share": _num(exclusive_minimum=0, maximum=1),
    "gaps": _list(_int(0)),
    "epsilon_total": POS,
    "seeds": _int(1, 1000),
    "trials": _int(1, 100_000),
    "reference_delta": PROB,
    "success_level": PROB,
    "audit": _obj({
        "bits": _list(_int(1, 6)),
        "epsilon": POS,
        "extra_distance": _int(1, 100_000),
        "exhaustive_records": _list(_int(2, 40)),
        "geometries": _list({"enum": list(_GEOMETRIES)}),
    }),
})


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
        for bits in (section["bits"] if "uniform_rest" in section["layouts"] else []):
            rest = section["n_records"] - 2 * c1 + gap
            if rest < 0 or math.ceil(rest / (2 ** bits - 2)) > c1 - gap:
                problems.append(message("mode_share", section["mode_share"],
                                        f"a share that keeps the other {2 ** bits - 2} items below the runner-up "
                                        f"(bits={bits}, gap={gap}: remaining {rest} records)"))
    audit = section["audit"]
    if len(audit["exhaustive_records"]) != len(audit["bits"]):
        problems.append(message("audit.exhaustive_records", audit["exhaustive_records"],
                                f"one entry per audit bit count ({len(audit['bits'])})"))
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Part 2: query release (artifacts ext_query_release, ext_query_release_audit)
# --------------------------------------------------------------------------------------------------------------------

_EPSILON_TOTAL_QR = _num(exclusive_minimum=0, maximum=4)

SCHEMA_QUERY_RELEASE: dict[str, Any] = _obj({
    "seeds": _int(1, 1000),
    "base": _obj({"n": _int(100, 10 ** 9),
                  "d": _int(3, 12),
                  "k": _int(2, 5000),
                  "epsilon_total": _EPSILON_TOTAL_QR}),
    "n_sweep": _list(_int(100, 10 ** 9)),
    "d_sweep": _list(_int(3, 12)),
    "k_sweep": _list(_int(2, 5000)),
    "epsilon_sweep": _list(_EPSILON_TOTAL_QR),
    "query_families": {"type": "array", "minItems": 1, "uniqueItems": True,
                       "items": {"enum": ["half_subsets", "conjunctions"]}},
    "bias_low": PROB,
    "bias_high": PROB,
    "max_rounds": _int(1, 100000),
    "audit": _obj({
        "d": _int(1, 3),
        "n": _int(2, 1000),
        "k": _int(1, 8),
        "epsilon_total": _EPSILON_TOTAL_QR,
        "pure_mwem_rounds": _int(2, 3),
        "alg16_m": _int(1, 3),
        "alg16_rounds": _int(2, 2),
        "n_measurement_points": _int(101, 400001),
        "measurement_halfwidth": _num(exclusive_minimum=0, maximum=1000),
    }),
})


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
            problems.append(message("n_sweep", n, f">= 2^d = {2 ** max([section['base']['d'], *section['d_sweep']])} "
                                    "(at least one record per cell on average)"))
            break
    return problems


# --------------------------------------------------------------------------------------------------------------------
# Part 1: figures 1-4, tables 1-2, the exact and Monte-Carlo audits, DP-ERM
# --------------------------------------------------------------------------------------------------------------------

_MECHANISMS = ["M1", "M2", "M3", "M4"]
_SENSITIVITY = _num(exclusive_minimum=0, maximum=2)

_FIG1 = _obj({"epsilon": POS, "delta_min": PROB, "delta_max": PROB, "n_delta": _int(2),
              "adjacencies": _list({"enum": ["add_remove", "replace_one"]})})
_FIG2 = _obj({"delta_tilde": PROB, "n_samples": _int(10), "n_levels_1d": _int(100)})
_FIG3 = _obj({"epsilon": NONNEG, "delta": PROB, "epsilon_prime": POS, "n_alpha": _int(3)})
_FIG4 = _obj({"font_size": _num(minimum=4, maximum=14)})
_TABLES = _obj({"n": POS, "d": _int(2), "epsilon": POS, "delta": PROB, "lam": POS, "k": _int(2),
                "universe_bits": _int(1), "local_sensitivity": POS})

_EXACT_AUDIT = _obj({
    "mechanisms": _list({"enum": _MECHANISMS}), "epsilons": _list(NONNEG),
    "deltas": _list(PROB), "omegas": _list(PROB), "epsilon_primes": _list(POS),
    "n_points_1d": _int(101), "n_points_2d": _int(51, 4001), "sensitivity": _SENSITIVITY,
    "ablation": _obj({"mechanism": {"enum": _MECHANISMS}, "epsilon": NONNEG, "delta": PROB,
                      "omega": PROB, "epsilon_prime": POS, "factors": _list(PROB)}),
})

_MC_AUDIT = _obj({
    "mechanisms": _list({"enum": _MECHANISMS[:3]}), "epsilon": NONNEG, "delta": PROB, "omega": PROB,
    "epsilon_prime": POS, "sensitivity": _SENSITIVITY,
    "sample_sizes": _list(_int(100, 50_000_000)), "n_thresholds": _int(2), "alpha": PROB,
})

_ERM = _obj({
    "d": _int(1, 50), "seeds": _int(1, 1000), "radius": POS, "lam": NONNEG,
    "epsilon_sweep": _obj({"n": _int(20), "epsilons": _list(POS)}),
    "n_sweep": _obj({"epsilon": POS, "ns": _list(_int(20))}),
    "max_steps_paper": _int(1), "max_steps_tuned": _int(1), "max_steps_reference": _int(1),
    "em_grid_spacing": _num(exclusive_minimum=0, maximum=0.5), "reference_iterations": _int(10),
})


# --------------------------------------------------------------------------------------------------------------------
# The study: config['purification']
# --------------------------------------------------------------------------------------------------------------------

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_obj({
        "fig1": _FIG1,
        "fig2": _FIG2,
        "fig3": _FIG3,
        "fig4": _FIG4,
        "tables": _TABLES,
        "exact_audit": _EXACT_AUDIT,
        "mc_audit": _MC_AUDIT,
        "dp_erm": _ERM,
        "dp_erm_sc": _ERM,
        SECTION_MEAN_ESTIMATION: SCHEMA_EXT_MEAN_ESTIMATION,
        SECTION_LINEAR_REGRESSION: SCHEMA_EXT_LINEAR_REGRESSION,
        SECTION_PTR: SCHEMA_PTR,
        SECTION_MODE_RELEASE: SCHEMA_MODE_RELEASE,
        SECTION_QUERY_RELEASE: SCHEMA_QUERY_RELEASE,
    }),
}

PART2_CONSTRAINTS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    SECTION_MEAN_ESTIMATION: constraints_ext_mean_estimation,
    SECTION_LINEAR_REGRESSION: constraints_ext_linear_regression,
    SECTION_PTR: constraints_ptr,
    SECTION_MODE_RELEASE: constraints_mode_release,
    SECTION_QUERY_RELEASE: constraints_query_release,
}


def constraints(study_config: Mapping[str, Any]) -> list[str]:
    """Cross-key checks the schema cannot express."""
    problems = []
    fig1 = study_config["fig1"]
    if fig1["delta_min"] >= fig1["delta_max"]:
        problems.append(_message("fig1.delta_min", fig1["delta_min"], f"< fig1.delta_max = {fig1['delta_max']}"))
    if study_config["dp_erm"]["lam"] != 0:
        problems.append(_message("dp_erm.lam", study_config["dp_erm"]["lam"], "0 (convex ERM; use dp_erm_sc for lam > 0)"))
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
