"""The purification study: Lin, Wang, Ma, Wang, *Purifying Approximate Differential Privacy with Randomized
Post-processing* (NeurIPS 2025), reproduced (Figures 1–4, Tables 1–2), audited exactly and by Monte Carlo, and
applied to DP-ERM against pure-DP competitors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dplab.studies.registry import Artifact, Study

__all__ = ["STUDY", "SCHEMA", "constraints"]

NAME = "purification"


def _obj(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": list(properties), "properties": dict(properties)}


POS = {"type": "number", "exclusiveMinimum": 0}
PROB = {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}
NONNEG = {"type": "number", "minimum": 0}


def _int(minimum: int, maximum: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer", "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return out


def _list(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "array", "minItems": 1, "items": dict(item)}


_ERM = _obj({
    "d": _int(1, 50), "seeds": _int(1, 1000), "radius": POS, "lam": NONNEG,
    "epsilon_sweep": _obj({"n": _int(20), "epsilons": _list(POS)}),
    "n_sweep": _obj({"epsilon": POS, "ns": _list(_int(20))}),
    "max_steps_paper": _int(1), "max_steps_tuned": _int(1), "max_steps_reference": _int(1),
    "em_grid_spacing": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5}, "reference_iterations": _int(10),
})

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_obj({
        "fig1": _obj({"epsilon": POS, "delta_min": PROB, "delta_max": PROB, "n_delta": _int(2),
                      "adjacencies": _list({"enum": ["add_remove", "replace_one"]})}),
        "fig2": _obj({"delta_tilde": PROB, "n_samples": _int(10), "n_levels_1d": _int(100)}),
        "fig3": _obj({"epsilon": NONNEG, "delta": PROB, "epsilon_prime": POS, "n_alpha": _int(3)}),
        "fig4": _obj({"font_size": {"type": "number", "minimum": 4, "maximum": 14}}),
        "tables": _obj({"n": POS, "d": _int(2), "epsilon": POS, "delta": PROB, "lam": POS, "k": _int(2),
                        "universe_bits": _int(1), "local_sensitivity": POS}),
        "exact_audit": _obj({
            "mechanisms": _list({"enum": ["M1", "M2", "M3", "M4"]}), "epsilons": _list(NONNEG),
            "deltas": _list(PROB), "omegas": _list(PROB), "epsilon_primes": _list(POS),
            "n_points_1d": _int(101), "n_points_2d": _int(51, 4001), "sensitivity": {"type": "number", "exclusiveMinimum": 0, "maximum": 2},
            "ablation": _obj({"mechanism": {"enum": ["M1", "M2", "M3", "M4"]}, "epsilon": NONNEG, "delta": PROB,
                              "omega": PROB, "epsilon_prime": POS, "factors": _list(PROB)}),
        }),
        "mc_audit": _obj({
            "mechanisms": _list({"enum": ["M1", "M2", "M3"]}), "epsilon": NONNEG, "delta": PROB, "omega": PROB,
            "epsilon_prime": POS, "sensitivity": {"type": "number", "exclusiveMinimum": 0, "maximum": 2},
            "sample_sizes": _list(_int(100, 50_000_000)), "n_thresholds": _int(2), "alpha": PROB,
        }),
        "dp_erm": _ERM,
        "dp_erm_sc": _ERM,
    }),
}


def _message(key: str, value: Any, allowed: str) -> str:
    return f"config key '{NAME}.{key}': value {value} is invalid; allowed: {allowed}"


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
    return problems


STUDY = Study(
    name=NAME,
    title="Purifying approximate differential privacy with randomized post-processing",
    paper="Lin, Wang, Ma, Wang. Purifying Approximate Differential Privacy with Randomized Post-processing. NeurIPS 2025 (arXiv 2503.21071)",
    artifacts=(
        Artifact("fig1", "figure", "fig1", "dplab.studies.purification.curves:variance_curves",
                 "Per-coordinate variance of the Laplace (pure DP) and analytic Gaussian mechanisms against delta at eps = 1.",
                 "dplab.studies.purification.plots:plot_fig1", mem_mb=500, runtime=2),
        Artifact("fig2", "figure", "fig2", "dplab.studies.purification.curves:example8_samples",
                 "Example 8: a point mass plus a uniform annulus against the uniform disk, at TV distance and W-infinity distance of Lemma 6.",
                 "dplab.studies.purification.plots:plot_fig2", mem_mb=500, runtime=2),
        Artifact("fig3", "figure", "fig3", "dplab.studies.purification.curves:tradeoff_curves",
                 "Trade-off functions of an (eps, delta) guarantee and of its purified (eps + eps', 0) guarantee.",
                 "dplab.studies.purification.plots:plot_fig3", mem_mb=500, runtime=2),
        Artifact("fig4", "figure", "fig4", "dplab.studies.purification.curves:flowchart_table",
                 "The proof of Theorem 1 as a flowchart: TV closeness, uniform mixing (Lemma 6), Laplace noise (Lemma 15), weak triangle inequality.",
                 "dplab.studies.purification.plots:plot_fig4", mem_mb=500, runtime=2),
        Artifact("table1", "table", "tables", "dplab.studies.purification.curves:table1",
                 "Table 1: rates before and after purification, evaluated at a stated reference point (constants dropped).",
                 mem_mb=500, runtime=2),
        Artifact("table2", "table", "tables", "dplab.studies.purification.curves:table2",
                 "Table 2: utility and runtime of pure-DP ERM methods, evaluated at the reference point.",
                 mem_mb=500, runtime=2),
        Artifact("ext_exact_audit", "table", "exact_audit", "dplab.studies.purification.audit:exact_audit_table",
                 "Exact pure epsilon (sup log density ratio) of mechanisms M1-M4 with no treatment, mixing only, Laplace only and full purification, against eps + eps'.",
                 mem_mb=2000, runtime=5),
        Artifact("ext_mc_audit", "figure", "mc_audit", "dplab.studies.purification.audit:mc_audit",
                 "Black-box Monte-Carlo lower bounds on pure epsilon of unpurified and purified outputs as the sample size grows.",
                 "dplab.studies.purification.plots:plot_mc_audit", mem_mb=3000, runtime=5),
        Artifact("ext_dp_erm", "figure", "dp_erm", "dplab.studies.purification.erm:erm_sweep",
                 "Convex DP-ERM: excess empirical risk of purified DP-SGD and pure-DP baselines against eps and n.",
                 "dplab.studies.purification.plots:plot_erm", mem_mb=2000, runtime=20),
        Artifact("ext_dp_erm_sc", "figure", "dp_erm_sc", "dplab.studies.purification.erm:erm_sweep",
                 "Strongly convex DP-ERM: excess empirical risk of purified DP-SGD, output perturbation and baselines against eps and n.",
                 "dplab.studies.purification.plots:plot_erm", mem_mb=2000, runtime=20),
    ),
    claims="dplab.studies.purification.claims:build_claims",
    schema=SCHEMA,
    constraints=constraints,
)
