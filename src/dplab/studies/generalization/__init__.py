"""The generalization study: He, Wang, Tao, *Tighter Generalization Bounds for Iterative Differentially Private
Learning Algorithms* (UAI 2021), reproduced, extended and audited.

The paper has no figures or tables: F1-F9 and T1-T4 are our own, built to test each "strictly tighter" claim next
to the universal lower bound, the exact optimal composition, and an empirical companion (E1: SGLD, the paper's
Algorithm 1, on synthetic logistic regression with the exact risk).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dplab.workflow.registry import Artifact, Study

__all__ = ["STUDY", "constraints"]

NAME = "generalization"
#: The glossary line of a Theorem 1 high-probability bound column (T3, T4).
HP = (
    "Theorem 1's high-probability bound on |R − R̂| at that ε′ and δ′, for a loss in [0, 1]; (vacuous): ≥ 1, it says "
    "nothing"
)


# ----------------------------------------------------------------------------------------------------------------
# Constraints across keys
# ----------------------------------------------------------------------------------------------------------------


def _problem(section: str, key: str, value: Any, allowed: str) -> str:
    return f"config key '{NAME}.{section}.{key}': value {value} is invalid; allowed: {allowed}"


def _range_problems(c: Mapping[str, Any]) -> list[str]:
    """Lower ends below upper ends; Theorem 1's eps below 2."""
    problems = [
        _problem(section, "eps_max", c[section]["eps_max"], f"a value > eps_min = {c[section]['eps_min']}")
        for section in ("kl", "high_probability", "on_average")
        if c[section]["eps_min"] >= c[section]["eps_max"]
    ]
    if c["high_probability"]["eps_max"] >= 2.0:
        problems.append(
            _problem(
                "high_probability",
                "eps_max",
                c["high_probability"]["eps_max"],
                "a value < 2 (Theorem 1's ln(2/eps) must be positive)",
            )
        )
    return problems + [
        _problem(
            section, "t_max_log10", c[section]["t_max_log10"], f"a value > t_min_log10 = {c[section]['t_min_log10']}"
        )
        for section in ("sgld_theory", "federated")
        if c[section]["t_min_log10"] >= c[section]["t_max_log10"]
    ]


def _empirical_sizes(c: Mapping[str, Any]) -> list[int]:
    return [n for block in c["empirical"]["grid"] for n in block["sizes"]]


def _batch_problems(c: Mapping[str, Any]) -> list[str]:
    """Batches without replacement: tau at most the smallest sample size, taus at most the fewest clients."""
    sizes = {"sgld_theory": c["sgld_theory"]["sizes"], "empirical": _empirical_sizes(c)}
    problems = [
        _problem(
            section, "tau", c[section]["tau"], f"at most the smallest size {min(values)} (batch without replacement)"
        )
        for section, values in sizes.items()
        if c[section]["tau"] > min(values)
    ]
    if max(c["federated"]["taus"]) > min(c["federated"]["clients"]):
        problems.append(
            _problem(
                "federated",
                "taus",
                c["federated"]["taus"],
                f"values <= the smallest number of clients {min(c['federated']['clients'])}",
            )
        )
    return problems


def _empirical_problems(c: Mapping[str, Any]) -> list[str]:
    """The reference T is a checkpoint, each size in one block, each block with two noise levels, one > 0."""
    empirical = c["empirical"]
    problems = []
    if empirical["reference_t"] not in empirical["checkpoints"]:
        problems.append(
            _problem(
                "empirical",
                "reference_t",
                empirical["reference_t"],
                f"one of the checkpoints {empirical['checkpoints']}",
            )
        )
    block_sizes = _empirical_sizes(c)
    if len(set(block_sizes)) < len(block_sizes):
        problems.append(_problem("empirical", "grid", block_sizes, "each size in exactly one block (no repeats)"))
    return problems + [
        _problem(
            f"empirical.grid[{i}]",
            "sigmas",
            block["sigmas"],
            "at least two distinct noise levels, one > 0 (the gap-versus-noise claim compares them)",
        )
        for i, block in enumerate(empirical["grid"])
        if len(set(block["sigmas"])) < 2 or max(block["sigmas"]) <= 0
    ]


def constraints(study_config: Mapping[str, Any]) -> list[str]:
    """Cross-key checks the schema cannot express (assumes the schema holds), in a fixed order."""
    return _range_problems(study_config) + _batch_problems(study_config) + _empirical_problems(study_config)


# ----------------------------------------------------------------------------------------------------------------
# Artifacts
# ----------------------------------------------------------------------------------------------------------------

ARTIFACTS = (
    Artifact(
        "f1",
        "figure",
        "kl",
        "dplab.studies.generalization.curves:compute_kl",
        "KL bounds for an eps-DP step: Lemma 5 (eps tanh(eps/2), attained by "
        "randomized response) against Dwork-Rothblum 2016 and Dwork-Rothblum-Vadhan 2010.",
        "dplab.studies.generalization.plots:plot_kl",
        mem_mb=500,
        runtime=2,
    ),
    Artifact(
        "f2",
        "figure",
        "high_probability",
        "dplab.studies.generalization.curves:compute_high_probability",
        "Theorem 1's deviation 9eps and failure "
        "probability against Nissim-Stemmer and Dwork et al. 2015, with its sample-size condition N_min.",
        "dplab.studies.generalization.plots:plot_high_probability",
        mem_mb=500,
        runtime=2,
    ),
    Artifact(
        "f3",
        "figure",
        "on_average",
        "dplab.studies.generalization.curves:compute_on_average",
        "Theorem 2's on-average bound against Nissim-Stemmer's k delta + 2 eps, and their ratio.",
        "dplab.studies.generalization.plots:plot_on_average",
        mem_mb=500,
        runtime=2,
    ),
    Artifact(
        "f4",
        "figure",
        "epsilon_vs_steps",
        "dplab.studies.generalization.curves:compute_epsilon_vs_steps",
        "Composed eps' against the number of steps: "
        "the paper's Theorem 4 eps' coincides with KOV's, above the exact optimum.",
        "dplab.studies.generalization.plots:plot_epsilon_vs_steps",
        mem_mb=500,
        runtime=5,
    ),
    Artifact(
        "f5",
        "figure",
        "delta_vs_steps",
        "dplab.studies.generalization.curves:compute_delta_vs_steps",
        "Composed delta'/(T delta) against T: the "
        "paper's delta' (Cor 2, Thm 4, Cor 3) falls below the universal lower bound 1-(1-delta)^T for large T.",
        "dplab.studies.generalization.plots:plot_delta_vs_steps",
        mem_mb=500,
        runtime=5,
    ),
    Artifact(
        "f6",
        "figure",
        "fair_comparison",
        "dplab.studies.generalization.curves:compute_fair_comparison",
        "Smallest eps' each composition theorem "
        "certifies at a fixed total delta: the paper's values go below the exact optimum (impossible).",
        "dplab.studies.generalization.plots:plot_fair_comparison",
        mem_mb=500,
        runtime=5,
    ),
    Artifact(
        "f7",
        "figure",
        "sgld_theory",
        "dplab.studies.generalization.curves:compute_sgld_theory",
        "SGLD privacy (Theorem 7 as printed and valid) and "
        "the resulting Theorem 1 and Theorem 2 generalization bounds against T.",
        "dplab.studies.generalization.plots:plot_sgld_theory",
        mem_mb=500,
        runtime=2,
    ),
    Artifact(
        "f8",
        "figure",
        "empirical",
        "dplab.studies.generalization.empirical:e1_cell_records",
        "Measured signed generalization gap E[R - R_hat] of SGLD "
        "(Algorithm 1, logistic regression, exact risk) over independent training sets, with t intervals, next to the "
        "Theorem 1 and Theorem 2 bounds; vacuous bounds marked.",
        "dplab.studies.generalization.plots:plot_empirical",
        mem_mb=1500,
        memory="dplab.studies.generalization.plan:empirical_memory",
        runtime=15,
        points="dplab.studies.generalization.plan:e1_cells",
        combine="dplab.studies.generalization.empirical:e1_summary",
    ),
    Artifact(
        "f9",
        "figure",
        "federated",
        "dplab.studies.generalization.curves:compute_federated",
        "Differentially private federated learning (Theorem 8): "
        "eps' against rounds for the printed and corrected per-round eps, and the client-level bound.",
        "dplab.studies.generalization.plots:plot_federated",
        mem_mb=500,
        runtime=2,
    ),
    Artifact(
        "t1",
        "table",
        "table_high_probability",
        "dplab.studies.generalization.curves:compute_table_high_probability",
        "High-probability bounds "
        "(deviation a, failure probability b) of Theorem 1 and its baselines at selected (eps, delta).",
        mem_mb=500,
        runtime=2,
        glossary={
            "method": "thm1: Theorem 1 as stated; thm1_intro: with the introduction's failure probability (twice "
            "the statement's); nissim_stemmer: Nissim-Stemmer; dwork_2015: Dwork et al. 2015; oneto_a: Oneto et al. "
            "(a), at the configured N and empirical risk",
            "deviation": "a: with probability at least 1 − b, |R − R̂| ≤ a (loss in [0, 1])",
            "failure_probability": "b, the probability that the deviation exceeds a",
            "vacuous": "a ≥ 1 or b ≥ 1: the bound says nothing for a loss in [0, 1]",
            "n_min": "Theorem 1's sample-size condition N ≥ (2/ε²)·ln(16/(e^−ε·δ)) (count)",
            "deviation_exact_thm1": "the deviation Theorem 1's proof gives, 8ε + e^−ε·δ·⌈εe^ε/δ⌉ (≥ 9ε)",
        },
    ),
    Artifact(
        "t2",
        "table",
        "table_composition",
        "dplab.studies.generalization.curves:compute_table_composition",
        "Composition (eps', delta') of every "
        "method at selected settings with the lower bound and the exact optimum; below_lower_bound flags "
        "impossible certificates.",
        mem_mb=500,
        runtime=2,
        summary="dplab.studies.generalization.tables:summarise_composition",
        glossary={
            "step ε": "ε of each of the T composed (ε, δ)-DP steps",
            "step δ": "δ of each step",
            "T": "number of composed steps (count)",
            "ε′ (KOV)": "the composed ε′ of Kairouz-Oh-Viswanath's composition (Theorem 3.4), which the paper's "
            "Theorem 4 reproduces, at slack δ̃; every δ′ column but Cor. 3's is at this ε′",
            "δ′ KOV / Thm 4": "δ′ that KOV (and Theorem 4) certify at ε′",
            "δ′ Cor. 2": "δ′ of the paper's Corollary 2",
            "δ′ Cor. 3 corrected": "δ′ of the paper's Corollary 3 with its δ″ corrected (at Cor. 3's own ε′)",
            "δ′ Cor. 3 as printed": "δ′ of Corollary 3 with δ″ as printed (at Cor. 3's own ε′)",
            "δ′ exact optimum": "the exact optimal δ′ of T-fold composition at the KOV ε′ (KOV Theorem 3.3)",
            "δ′ lower bound": "1 − (1 − δ)^T, below which no composition theorem can go",
        },
    ),
    Artifact(
        "t3",
        "table",
        "empirical",
        "dplab.studies.generalization.curves:compute_table_sgld",
        "SGLD privacy and generalization bounds (variants as "
        "printed and valid) on the empirical grid, with the exact per-step Gaussian delta.",
        mem_mb=500,
        runtime=2,
        summary="dplab.studies.generalization.tables:summarise_sgld",
        glossary={
            "σ": "standard deviation of SGLD's Gaussian noise",
            "T": "number of SGLD steps (the configuration's reference T)",
            "ε′ (as printed)": "ε′ of T SGLD steps by Theorem 7 as printed",
            "Thm 1 HP bound (as printed)": HP,
            "exact step δ (as printed)": "exact δ of one SGLD step (Gaussian mechanism, sensitivity 2L/τ) at the "
            "per-step ε the variant uses, to compare with the per-step δ it assumes",
            "ε′ (valid)": "ε′ of T SGLD steps by Theorem 7 corrected to a valid statement",
            "Thm 1 HP bound (valid)": HP,
            "exact step δ (valid)": "the same exact per-step δ for the valid variant",
        },
    ),
    Artifact(
        "t4",
        "table",
        "empirical",
        "dplab.studies.generalization.empirical:compute_table_empirical",
        "Empirical SGLD results: training sets, runs and "
        "effective sample size, errors, the signed gap with its t interval over training sets and its paired change "
        "from sigma = 0, max |gap|, both bounds with vacuous flags, looseness and coverage.",
        mem_mb=500,
        memory="dplab.studies.generalization.plan:empirical_memory",
        runtime=2,
        derived_from="f8",
        summary="dplab.studies.generalization.tables:summarise_empirical",
        glossary={
            "σ": "standard deviation of SGLD's Gaussian noise (0: no noise, no privacy)",
            "T": "number of SGLD steps (the configuration's reference T)",
            "sets × runs": "independent training sets × SGLD runs per set (counts)",
            "E[R − R̂] [CI], d = …": "mean signed generalization gap, exact risk minus training 0-1 error, over "
            "training sets, with its confidence interval, in dimension d",
            "change from smallest σ [CI], d = …": "paired change of that gap from the smallest σ of the same N, with "
            "its confidence interval",
            "Thm 1 HP bound (valid)": HP,
            "Thm 2 on-average bound (valid)": "Theorem 2's bound on E[R − R̂] (k = 1) at the valid ε′ and δ′; "
            "(vacuous): ≥ 1",
        },
    ),
)

STUDY = Study(
    name=NAME,
    title="Tighter generalization bounds for iterative DP learning: composition, DP => generalization, SGLD",
    paper="F. He, B. Wang, D. Tao, Tighter Generalization Bounds for Iterative Differentially Private Learning "
    "Algorithms, UAI 2021 (arXiv:2007.09371)",
    artifacts=ARTIFACTS,
    claims="dplab.studies.generalization.claims:build_claims",
    constraints=constraints,
)
