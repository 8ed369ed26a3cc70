"""The pre-processing study: Hu, Sanyal, Schölkopf, *Provable Privacy with Non-Private Pre-Processing* (ICML 2024,
arXiv:2403.13041), reproduced (Tables 1–3, Figures 2–3) and audited (empirical sensitivities, exact Rényi
divergences, PTR)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dplab.workflow.registry import Artifact, Study

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
        glossary={
            "mechanism": "the base DP mechanism (row of the paper's Table 1)",
            "variant": "paper: as Table 1 prints it; as_printed: a statement that disagrees with its proof (see "
            "note); corrected: what the proof supports; exact: with the proof's exact constants (see note)",
            "rdp_formula": "the mechanism's RDP ε(α) (Table 1; L = μ = Δ = γ = 1)",
            "srdp_formula": "its smooth RDP ε̃(α, τ), for datasets at ℓ₁₂ distance at most τ (Table 1)",
            "tau": "τ, the ℓ₁₂ distance at which the smooth RDP is evaluated",
            "eps": "the base mechanism's privacy parameter ε",
            "kappa": "κ_τ, the maximum divergence: the largest Hamming distance between datasets within ℓ₁₂ distance "
            "τ (DP-SGD by iteration; count)",
            "rdp_value": "rdp_formula evaluated at this row's α (nats)",
            "srdp_value": "srdp_formula evaluated at this row's α and τ (nats)",
            "note": "which statement the variant follows or corrects",
        },
    ),
    Artifact(
        "table2",
        "table",
        "tables",
        "dplab.studies.preprocessing.theory_tables:compute_table2",
        "Table 2: overall RDP of every pre-processing x mechanism cell, closed form vs the generic Theorem 2 evaluator.",
        mem_mb=500,
        runtime=2,
        glossary={
            "mechanism": "the base DP mechanism (row of the paper's Table 2)",
            "preprocessing": "the pre-processing step (column of Table 2)",
            "formula": "Table 2's overall RDP of the pipeline as printed (α ≥ 11, L = μ = Δ = 1; p: the L∞ "
            "sensitivity Δ∞ of the step; δ: the eigen-gap)",
            "eps": "the base mechanism's privacy parameter ε",
            "p": "the L∞ sensitivity Δ∞ of deduplication, quantization and mean imputation (count of records); for "
            "DP-SGD by iteration also its κ_τ",
            "eta": "η, the deduplication and quantization radius",
            "gap": "δ, the eigen-gap of the PCA step",
            "tau": "τ = Δ₂Δ∞ of the step (ℓ₁₂ distance)",
            "closed_form": "Table 2's printed cell evaluated (nats)",
            "generic_theorem2_pq2": "Theorem 2's generic RDP bound (eq. (3)) evaluated with p = q = 2 (nats)",
            "exact_factor_pq2": "the p = q = 2 bound with the exact factor (2α − 1)/(2(α − 1)) in place of Table 2's "
            "1.05 (nats)",
            "generic_le_closed_form": "generic_theorem2_pq2 ≤ closed_form: the printed cell is at least the generic "
            "bound",
        },
    ),
    Artifact(
        "table3",
        "table",
        "tables",
        "dplab.studies.preprocessing.theory_tables:compute_table3",
        "Table 3: imputation sensitivities evaluated on synthetic data next to the worst realised Delta_2.",
        mem_mb=500,
        runtime=3,
        glossary={
            "model": "the imputation model (row of the paper's Table 3)",
            "variant": "paper: as printed; trimmed mean as_printed / corrected: order statistics as printed or swapped",
            "formula": "Table 3's Δ₂ sensitivity of the model (x^max_(k), x^min_(k): the largest / smallest over the "
            "imputed features of the k-th smallest available value; λ_max, λ_min: extreme eigenvalues of XᵀX over "
            "the complete rows' predictors)",
            "bound_value": "formula evaluated on the synthetic dataset (ℓ2 distance)",
            "empirical_delta2": "worst realised Δ₂ over the random single-record replacements (ℓ2 distance)",
            "within_bound": "empirical_delta2 ≤ bound_value",
            "p": "number of rows with a missing value (count)",
            "m": "the number m of values trimmed at each end by the m-trimmed mean (count)",
            "missing_rate": "probability that an imputable feature value is missing",
            "trials": "number of random replacements (count)",
        },
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
        glossary={
            "step": "the pre-processing step",
            "replacement": "random: a record replaced by a random point of the unit ball; adversarial: by a point "
            "built to move the quantity the step's bound depends on",
            "trials": "number of replacements (count)",
            "empirical_delta_inf": "worst realised Δ∞: processed records other than the replaced one that change "
            "(count)",
            "bound_delta_inf": "the proved Δ∞ bound on this collection of datasets (count)",
            "empirical_delta_2": "worst realised Δ₂: largest ℓ2 change of one of those records (ℓ2 distance)",
            "bound_delta_2": "the proved Δ₂ bound (— where it depends on the data: see table3)",
            "within_delta_inf": "empirical_delta_inf ≤ bound_delta_inf",
            "within_delta_2": "empirical_delta_2 ≤ bound_delta_2 (True where no bound is stated)",
            "bound_source": "the paper's statement that proves the bounds",
        },
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
        glossary={
            "step": "the pre-processing step",
            "alpha": "the Rényi order α",
            "eps": "the Gaussian mechanism's ε (σ = 1/ε on half the sum of the processed records)",
            "pairs": "number of neighbouring dataset pairs (count)",
            "exact_renyi_worst": "exact Rényi divergence α‖f₁ − f₂‖²ε²/2 on the worst pair (nats)",
            "theorem2_pq2": "Theorem 2's bound with p = q = 2 at τ = Δ₂Δ∞ from the proved bounds (nats)",
            "theorem2_optimised_p": "Theorem 2's bound minimised over p = q (nats)",
            "theorem2_separate_pq": "Theorem 2's bound with p and q minimised separately (an extension; nats)",
            "group_privacy": "group privacy over Δ∞ + 1 records, α(Δ∞ + 1)²ε²/2 (nats)",
            "tau": "τ = Δ₂Δ∞ from the proved bounds (— where Δ₂ depends on the data)",
            "exact_le_theorem2": "exact_renyi_worst ≤ theorem2_optimised_p (True where Theorem 2 gives no bound)",
            "exact_le_group": "exact_renyi_worst ≤ group_privacy",
        },
    ),
    Artifact(
        "fig3",
        "figure",
        "fig3",
        "dplab.studies.preprocessing.learning:fig3_point",
        "Figure 3: excess empirical risk of private logistic regression (full-batch DP-GD and Poisson-subsampled DP-SGD, one panel each) vs overall epsilon after non-private PCA, DP-PCA, or no pre-processing.",
        plot="dplab.studies.preprocessing.plots:plot_fig3",
        mem_mb=3000,
        memory="dplab.studies.preprocessing.plan:fig3_memory",
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
        memory="dplab.studies.preprocessing.plan:regimes_memory",
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
        glossary={
            "dataset": "synthetic low-rank data with a large or a small eigen-gap",
            "gap": "the dataset's eigen-gap δ_k",
            "beta": "β, the smallest eigen-gap Algorithm 1 tests for",
            "eps": "ε given to Algorithm 1 (its Laplace test and its DP-GD)",
            "runs": "number of independent runs (count)",
            "statistic": "Ĵ = (δ_k − β)n/12.2, the sensitivity-1 lower bound on the distance to a dataset with "
            "eigen-gap below β",
            "threshold": "log(2/δ)/ε, the test's threshold (Algorithm 1, step 2)",
            "refusal_rate": "fraction of runs in which the test refused (⊥)",
            "refusal_probability_exact": "P[Ĵ + Lap(1/ε) ≤ threshold], the exact refusal probability",
            "excess_risk_mean": "mean excess empirical logistic risk of the released runs over the constrained "
            "minimiser (— when none was released)",
            "excess_risk_se": "its standard error",
            "epsilon_total_as_printed": "unconditional ε of Theorem 7 as printed, ε̂ + ε (nats)",
            "epsilon_total_corrected": "the corrected accounting, ε̂ + ε (nats)",
            "theorem7_alpha_as_printed": "the Rényi order α implied by Theorem 7's proof (its factor 1.05 needs α ≥ 11)",
            "prop8_failure_probability": "Proposition 8's bound on the refusal probability (— where gap < β: it "
            "says nothing)",
            "tail_eigenvalue_sum": "Λ = Σ_(i>k) λ_i of (1/n)XᵀX (Proposition 8)",
        },
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
