"""The purification study: Lin, Wang, Ma, Wang, *Purifying Approximate Differential Privacy with Randomized
Post-processing* (NeurIPS 2025), reproduced (Figures 1–4, Tables 1–2), audited exactly and by Monte Carlo, and
applied to DP-ERM (part 1) and to the data-dependent mechanisms and query release of Sections 5–6 (part 2: mean
estimation, PTR and bounded local sensitivity, mode release, AdaSSP, MWEM) against pure-DP competitors."""

from __future__ import annotations

from dplab.registry import Artifact, Study
from dplab.studies.purification.sections import NAME, constraints

__all__ = ["STUDY", "constraints"]


STUDY = Study(
    name=NAME,
    title="Purifying approximate differential privacy with randomized post-processing",
    paper="Lin, Wang, Ma, Wang. Purifying Approximate Differential Privacy with Randomized Post-processing. NeurIPS 2025 (arXiv 2503.21071)",
    artifacts=(
        Artifact(
            "fig1",
            "figure",
            "fig1",
            "dplab.studies.purification.curves:variance_curves",
            "Per-coordinate variance of the Laplace (pure DP) and analytic Gaussian mechanisms against delta at eps = 1.",
            "dplab.studies.purification.plots:plot_fig1",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "fig2",
            "figure",
            "fig2",
            "dplab.studies.purification.curves:example8_samples",
            "Example 8: a point mass plus a uniform annulus against the uniform disk, at TV distance and W-infinity distance of Lemma 6.",
            "dplab.studies.purification.plots:plot_fig2",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "fig3",
            "figure",
            "fig3",
            "dplab.studies.purification.curves:tradeoff_curves",
            "Trade-off functions of an (eps, delta) guarantee and of its purified (eps + eps', 0) guarantee.",
            "dplab.studies.purification.plots:plot_fig3",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "fig4",
            "figure",
            "fig4",
            "dplab.studies.purification.curves:flowchart_table",
            "The proof of Theorem 1 as a flowchart: TV closeness, uniform mixing (Lemma 6), Laplace noise (Lemma 15), weak triangle inequality.",
            "dplab.studies.purification.plots:plot_fig4",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "table1",
            "table",
            "tables",
            "dplab.studies.purification.curves:table1",
            "Table 1: rates before and after purification, evaluated at a stated reference point (constants dropped).",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "table2",
            "table",
            "tables",
            "dplab.studies.purification.curves:table2",
            "Table 2: utility and runtime of pure-DP ERM methods, evaluated at the reference point.",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "ext_theorem2_utility",
            "table",
            "theorem2",
            "dplab.studies.purification.curves:theorem2_utility",
            "Theorem 2: exact probability that Algorithm 2 returns its input (from its exact law) at delta on the "
            "theorem's threshold, against the bound 1 - 2^-d - (d/2) e^-d.",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "ext_alg11_dimension",
            "table",
            "alg11_dimension",
            "dplab.studies.purification.alg11_dimension:alg11_dimension_table",
            "Algorithm 11 for d > 1: exact pure epsilon of the Laplace step Lap(beta-hat/eps) per coordinate on the "
            "worst pair (l2 local sensitivity spread evenly over d coordinates), as printed and with the corrected "
            "scale sqrt(d) beta-hat/eps, against the claimed eps, with a grid reference; and the step's delta(eps) "
            "over the proof's delta with beta-hat random (a PLD bracket), for two local sensitivities.",
            mem_mb=500,
            runtime=2,
            summary="dplab.studies.purification.tables:summarise_alg11_dimension",
        ),
        Artifact(
            "ext_exact_audit",
            "table",
            "exact_audit",
            "dplab.studies.purification.audit:exact_audit_table",
            "Exact pure epsilon (sup log density ratio) of mechanisms M1-M4 with no treatment, mixing only, Laplace only and full purification, against eps + eps'.",
            mem_mb=2000,
            runtime=5,
            summary="dplab.studies.purification.tables:summarise_exact_audit",
        ),
        Artifact(
            "ext_mc_audit",
            "figure",
            "mc_audit",
            "dplab.studies.purification.audit:mc_audit",
            "Black-box Monte-Carlo lower bounds on pure epsilon of unpurified and purified outputs as the sample size grows.",
            "dplab.studies.purification.plots:plot_mc_audit",
            mem_mb=3000,
            runtime=5,
        ),
        Artifact(
            "ext_dp_erm",
            "figure",
            "dp_erm",
            "dplab.studies.purification.erm:erm_point",
            "Convex DP-ERM: excess empirical risk of purified DP-SGD and pure-DP baselines against eps and n.",
            "dplab.studies.purification.plots:plot_erm",
            mem_mb=2000,
            runtime=20,
            points="dplab.studies.purification.plan:erm_points",
        ),
        Artifact(
            "ext_dp_erm_sc",
            "figure",
            "dp_erm_sc",
            "dplab.studies.purification.erm:erm_point",
            "Strongly convex DP-ERM: excess empirical risk of purified DP-SGD, output perturbation and baselines against eps and n.",
            "dplab.studies.purification.plots:plot_erm",
            mem_mb=2000,
            runtime=20,
            points="dplab.studies.purification.plan:erm_points",
        ),
        Artifact(
            "ext_mean_estimation",
            "figure",
            "mean_estimation",
            "dplab.studies.purification.mean_estimation:compute",
            "Mean estimation: error against d and against log(1/delta) (purified Gaussian vs Laplace, l2 K-norm and "
            "Gaussian, with Theorem 9's lower bound inside its delta-range), and an exact d = 1 audit of the purified "
            "output's pure epsilon.",
            "dplab.studies.purification.plots_statistics:plot_mean_estimation",
            mem_mb=500,
            runtime=3,
        ),
        Artifact(
            "ext_linear_regression",
            "figure",
            "linear_regression",
            "dplab.studies.purification.linear_regression:regression_point",
            "Linear regression: excess MSE over OLS against n for pure AdaSSP (Algorithm 13), AdaSSP before "
            "purification and at delta = 1/n^2, and pure Laplace-SSP, with Table 1's rate.",
            "dplab.studies.purification.plots_statistics:plot_linear_regression",
            mem_mb=800,
            runtime=3,
            points="dplab.studies.purification.plan:regression_points",
        ),
        Artifact(
            "ext_ptr",
            "figure",
            "ptr",
            "dplab.studies.purification.ptr:compute_ptr",
            "Triangle counts in G(n_v, p): median absolute error and refusal rate of purified Algorithm 11 and "
            "Algorithm 10, global-sensitivity Laplace, NRS07 smooth sensitivity and the unpurified references.",
            "dplab.studies.purification.plots_selection:plot_ptr",
            mem_mb=1000,
            runtime=3,
        ),
        Artifact(
            "ext_ptr_audit",
            "table",
            "ptr",
            "dplab.studies.purification.ptr:ptr_audit",
            "Monte-Carlo lower bounds on the pure epsilon of purified Algorithms 11 and 10 on neighbouring graphs "
            "(K5 minus an edge vs K5), and a brute-force check of the local-sensitivity assumptions.",
            mem_mb=1000,
            runtime=3,
        ),
        Artifact(
            "ext_mode_release",
            "figure",
            "mode_release",
            "dplab.studies.purification.mode_release:compute_mode_release",
            "P(output = mode) against the count gap for Algorithm 12 (delta corrected / as printed, bottom uniform / "
            "reserved), report-noisy-max, the exponential mechanism and the unpurified reference.",
            "dplab.studies.purification.plots_selection:plot_mode_release",
            mem_mb=1000,
            runtime=3,
        ),
        Artifact(
            "ext_mode_release_audit",
            "table",
            "mode_release",
            "dplab.studies.purification.mode_release:mode_release_audit",
            "Exact pure epsilon of Algorithm 12 + Algorithm 2 (both delta rules, both bottom encodings, both "
            "geometries) and of the unpurified output on |X| = 4, 8, 16, against 2 eps.",
            mem_mb=1000,
            runtime=3,
            summary="dplab.studies.purification.tables:summarise_mode_release_audit",
        ),
        Artifact(
            "ext_query_release",
            "figure",
            "query_release",
            "dplab.studies.purification.query_release:query_release_job",
            "Query release: l-infinity error of purified MWEM (Algorithm 16), pure MWEM, Laplace answers, the Laplace "
            "histogram and MWEM at delta = 1/n^2 against n, eps, d and K, with Theorem 8's rate.",
            "dplab.studies.purification.plots_query_release:plot_query_release",
            mem_mb=1000,
            runtime=5,
            points="dplab.studies.purification.plan:query_release_jobs",
            combine="dplab.studies.purification.query_release:query_release_frame",
        ),
        Artifact(
            "ext_query_release_audit",
            "table",
            "query_release",
            "dplab.studies.purification.query_release:query_release_audit",
            "Exact pure epsilon of pure MWEM's transcript and of Algorithm 16's sampled and purified output on all "
            "neighbouring histograms of a tiny universe.",
            mem_mb=500,
            runtime=2,
        ),
        Artifact(
            "ext_frank_wolfe",
            "figure",
            "frank_wolfe",
            "dplab.studies.purification.frank_wolfe:frank_wolfe_point",
            "l1-constrained least squares: excess empirical risk of the purified DP Frank-Wolfe (Algorithm 7), its "
            "(eps, delta)-DP input, Algorithm 6 at delta = 1/n^2, a pure Frank-Wolfe by basic composition and the "
            "non-private Frank-Wolfe against n, with Theorem 4's rate and Lemma 30's lower bound; and the recovery "
            "error of Algorithm 8 against the purification term of eq. (15).",
            "dplab.studies.purification.plots_frank_wolfe:plot_frank_wolfe",
            mem_mb=1500,
            runtime=10,
            points="dplab.studies.purification.plan:frank_wolfe_points",
        ),
    ),
    claims="dplab.studies.purification.claims:build_claims",
    constraints=constraints,
)
