"""The pre-processing study: Hu, Sanyal, Schölkopf, *Provable Privacy with Non-Private Pre-Processing* (ICML 2024,
arXiv:2403.13041), reproduced (Tables 1–3, Figures 2–3) and audited (empirical sensitivities, exact Rényi
divergences, PTR)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dplab.registry import Artifact, Study

__all__ = ["STUDY", "constraints"]

NAME = "preprocessing"


def _message(section: str, key: str, value: Any, allowed: str) -> str:
    return f"config key '{NAME}.{section}.{key}': value {value} is invalid; allowed: {allowed}"


def constraints(study_config: Mapping[str, Any]) -> list[str]:
    """Cross-key checks: k < d, sgd_batch_size < n, p < n, 2m + p < n, cluster sizes fit in n."""
    problems = []
    for section in ("sensitivity", "fig3", "ptr"):
        c = study_config[section]
        if c["k"] >= c["d"]:
            problems.append(_message(section, "k", c["k"], f"an integer with 1 <= k < d = {c['d']}"))
    f = study_config["fig3"]
    if f["sgd_batch_size"] >= f["n"]:
        problems.append(_message("fig3", "sgd_batch_size", f["sgd_batch_size"], f"1 <= sgd_batch_size < n = {f['n']}"))
    for i, regime in enumerate(study_config["regimes"]["regimes"]):
        if regime["k"] >= regime["d"]:
            problems.append(_message("regimes", f"regimes[{i}].k", regime["k"], f"1 <= k < d = {regime['d']}"))
    t = study_config["tables"]
    if t["p"] >= t["n"] - 3:
        problems.append(
            _message(
                "tables",
                "p",
                t["p"],
                f"p <= n - 4 = {t['n'] - 4} (Table 2 SGD-iter cells: below the generic bound only for n - p >= 4)",
            )
        )
    if 2 * t["trimmed_m"] + round(t["missing_rate"] * t["table3_n"]) >= t["table3_n"]:
        problems.append(_message("tables", "trimmed_m", t["trimmed_m"], "2m + p < table3_n"))
    s = study_config["sensitivity"]
    if sum(s["cluster_sizes"]) > s["n"]:
        problems.append(
            _message("sensitivity", "cluster_sizes", s["cluster_sizes"], f"sizes summing to at most n = {s['n']}")
        )
    if 2 * s["trimmed_m"] + round(s["missing_rate"] * s["n"]) + 1 >= s["n"]:
        problems.append(_message("sensitivity", "trimmed_m", s["trimmed_m"], "2m + p + 1 < n"))
    return problems


ARTIFACTS = (
    Artifact(
        "table1",
        "table",
        "tables",
        "dplab.studies.preprocessing.theory_tables:compute_table1",
        "Table 1: RDP and SRDP of the six base mechanisms, symbolic and evaluated (statement/proof variants labelled).",
        mem_mb=500,
        runtime=2,
    ),
    Artifact(
        "table2",
        "table",
        "tables",
        "dplab.studies.preprocessing.theory_tables:compute_table2",
        "Table 2: overall RDP of every pre-processing x mechanism cell, closed form vs the generic Theorem 2 evaluator.",
        mem_mb=500,
        runtime=2,
    ),
    Artifact(
        "table3",
        "table",
        "tables",
        "dplab.studies.preprocessing.theory_tables:compute_table3",
        "Table 3: imputation sensitivities evaluated on synthetic data next to the worst realised Delta_2.",
        mem_mb=500,
        runtime=3,
    ),
    Artifact(
        "fig2",
        "figure",
        "fig2",
        "dplab.studies.preprocessing.figure2:fig2_point",
        "Figure 2: overall epsilon of the pre-processed Gaussian mechanism (eps = 1, delta = 1e-3), SRDP vs group privacy.",
        plot="dplab.studies.preprocessing.plots:plot_fig2",
        mem_mb=500,
        runtime=3,
        points="dplab.studies.preprocessing.figure2:fig2_points",
    ),
    Artifact(
        "ext_sensitivity",
        "table",
        "sensitivity",
        "dplab.studies.preprocessing.sensitivity:compute_ext_sensitivity",
        "Extension: worst realised Delta_inf and Delta_2 of each pre-processing step over random and adversarial replacements vs the proved bounds.",
        mem_mb=500,
        runtime=3,
        inputs="dplab.studies.preprocessing.pipeline:sensitivity_inputs",
    ),
    Artifact(
        "ext_srdp_audit",
        "table",
        "sensitivity",
        "dplab.studies.preprocessing.sensitivity:compute_ext_srdp_audit",
        "Extension: exact Renyi divergence of the Gaussian mechanism after each step on concrete neighbours vs Theorem 2 and group privacy.",
        mem_mb=500,
        runtime=3,
        inputs="dplab.studies.preprocessing.pipeline:sensitivity_inputs",
    ),
    Artifact(
        "fig3",
        "figure",
        "fig3",
        "dplab.studies.preprocessing.learning:fig3_point",
        "Figure 3: excess empirical risk of private logistic regression (full-batch DP-GD and Poisson-subsampled DP-SGD, one panel each) vs overall epsilon after non-private PCA, DP-PCA, or no pre-processing.",
        plot="dplab.studies.preprocessing.plots:plot_fig3",
        mem_mb=3000,
        runtime=20,  # full config, measured per ε point: DP-GD ≈ 180 s, DP-SGD ≈ 110 s; 3 points per shard of 2
        inputs="dplab.studies.preprocessing.pipeline:fig3_inputs",
        points="dplab.studies.preprocessing.plan:fig3_points",
    ),
    Artifact(
        "ext_fig3_regimes",
        "figure",
        "regimes",
        "dplab.studies.preprocessing.learning:regime_point",
        "Extension: the Figure 3 comparison over (d/n, k, eigen-gap), showing where the paper's ordering holds.",
        plot="dplab.studies.preprocessing.plots:plot_ext_fig3_regimes",
        mem_mb=3000,
        runtime=10,
        inputs="dplab.studies.preprocessing.pipeline:regimes_inputs",
        points="dplab.studies.preprocessing.plan:regime_points",
    ),
    Artifact(
        "ext_ptr",
        "table",
        "ptr",
        "dplab.studies.preprocessing.learning:compute_ext_ptr",
        "Extension: PTR (Algorithm 1) refusal rate and utility on large- and small-gap data, with unconditional (eps, delta).",
        mem_mb=1000,
        runtime=3,
        inputs="dplab.studies.preprocessing.pipeline:ptr_inputs",
    ),
)

STUDY = Study(
    name=NAME,
    title="Provable privacy with non-private pre-processing",
    paper="Hu, Sanyal, Schölkopf, Provable Privacy with Non-Private Pre-Processing, ICML 2024 (arXiv:2403.13041)",
    artifacts=ARTIFACTS,
    claims="dplab.studies.preprocessing.claims:build_claims",
    constraints=constraints,
)
