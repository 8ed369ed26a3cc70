"""The purification study: Lin, Wang, Ma, Wang, *Purifying Approximate Differential Privacy with Randomized
Post-processing* (NeurIPS 2025), reproduced (Figures 1–4, Tables 1–2), audited exactly and by Monte Carlo, and
applied to DP-ERM (part 1) and to the data-dependent mechanisms and query release of Sections 5–6 (part 2: mean
estimation, PTR and bounded local sensitivity, mode release, AdaSSP, MWEM) against pure-DP competitors."""

from __future__ import annotations

from dplab.studies.purification.sections import NAME, constraints
from dplab.workflow.registry import Artifact, Study

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
            glossary={
                "problem": "the task of the paper's Table 1 row",
                "mechanism": "the (ε, δ)-DP method whose output is purified, with the work it comes from",
                "before": "Table 1's utility rate of that (ε, δ)-DP method (constants and log factors dropped)",
                "after": "Table 1's rate after purification (pure ε-DP), with the theorem that proves it",
                "before_value": "before evaluated at this row's parameters (dimensionless: constants dropped)",
                "after_value": "after evaluated at this row's parameters (dimensionless: constants dropped)",
                "lam": "λ: the strong-convexity parameter (strongly convex ERM) and λ_min, the smallest eigenvalue of "
                "the normalised design matrix (linear regression)",
                "k": "number of queries of the query-release row (MWEM; count)",
                "universe_bits": "log₂|X|, the size of the mode-release universe in bits",
                "local_sensitivity": "Δ_local, the local sensitivity in the PTR row",
                "ratio_after_before": "after_value / before_value (below 1: the purified rate is smaller here)",
            },
        ),
        Artifact(
            "table2",
            "table",
            "tables",
            "dplab.studies.purification.curves:table2",
            "Table 2: utility and runtime of pure-DP ERM methods, evaluated at the reference point.",
            mem_mb=500,
            runtime=2,
            glossary={
                "mechanism": "the pure ε-DP method for convex Lipschitz ERM (row of the paper's Table 2)",
                "reference": "where the row's rates are proved",
                "utility": "Table 2's excess empirical risk rate (L = C = 1, up to log factors)",
                "runtime": "Table 2's runtime rate as printed (gradient computations or operations, up to log factors)",
                "utility_value": "utility evaluated at this row's (n, d, ε) (dimensionless)",
                "runtime_value": "runtime evaluated at this row's (n, d, ε) as printed (count)",
                "runtime_value_corrected": "runtime_value corrected (count): for Laplace noisy GD, the n·T = n²ε/d "
                "gradient computations of Lemma 19's own T = εnL/(Δ₁√d) with Δ₁ = √d·L, whereas Lemma 19's stated "
                "count n²εL√d/Δ₁ and Table 2's n²ε are d times larger; other rows equal runtime_value",
            },
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
            glossary={
                "d": "number of bits of Algorithm 2's input code",
                "log_delta": "ln δ at Theorem 2's threshold ε^d/(2d)^(3d), the largest δ it allows (nats)",
                "success_exact": "exact probability that Algorithm 2 returns its input, with the corrected cube "
                "(q = ∞) geometry (probability)",
                "success_exact_paper_geometry": "the same with the paper's ℓ1 geometry (probability)",
                "bound": "Theorem 2's lower bound 1 − 2^−d − (d/2)e^−d on that probability",
                "margin": "success_exact − bound (≥ 0: the theorem holds here)",
            },
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
            glossary={
                "Δ_Local": "the local sensitivity of the audited pair, spread evenly over the d coordinates (ℓ2)",
                "d": "dimension of the released vector",
                "pure ε of the step, Lap(β̂/ε) (printed)": "exact pure ε of Algorithm 11's Laplace step with the "
                "printed per-coordinate scale β̂/ε, on the worst pair at β̂ = Δ_Local (nats)",
                "pure ε, Lap(√d β̂/ε) (corrected)": "the same with the corrected scale √d·β̂/ε (nats)",
                "claimed ε": "the ε the proof assigns to the Laplace step (nats)",
                "ε + step + ε′ (printed; upper bound)": "ε + (printed step's pure ε) + ε′, the proof's composition "
                "with the printed step: an upper bound on the whole release's pure ε (nats)",
                "Theorem 5": "the total Theorem 5 claims, 3ε (nats)",
                "δ_step(ε)/δ printed, lower": "lower end of a privacy-loss-distribution bracket on the printed "
                "step's δ(ε) with β̂ random, divided by the proof's δ (above 1: the proof's δ is exceeded)",
                "δ_step(ε)/δ printed, upper": "upper end of that bracket, divided by the proof's δ",
                "δ_step(ε)/δ corrected, upper": "upper end of the bracket for the corrected scale, divided by the "
                "proof's δ",
            },
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
            glossary={
                "mechanism": "the audited (ε, δ)-DP mechanism: M1 the worst-case pair, M2 Example 17, M3 the projected "
                "Gaussian in 1-D, M4 the projected Gaussian on [−1, 1]²",
                "treatment": "what is applied to its output: nothing, Algorithm 1's uniform mixing only, its Laplace "
                "noise only, both (full purification), or full purification with the Laplace scale multiplied",
                "configurations": "number of audited (ε, δ, ω, ε′) configurations (count)",
                "finite ε∞": "how many of them have a finite exact pure ε (count)",
                "largest ε∞": "largest exact pure ε, the sup of the log density ratio, over them (nats)",
                "largest ε∞ / (ε + ε′)": "largest ratio of ε∞ to Theorem 1's bound ε + ε′ (above 1: bound broken)",
                "ε∞ ≤ ε + ε′": "how many configurations respect Theorem 1's bound (no bound: no finite bound applies)",
            },
        ),
        Artifact(
            "ext_mc_audit",
            "figure",
            "mc_audit",
            "dplab.studies.purification.audit:mc_audit",
            "Black-box Monte-Carlo lower bounds on pure epsilon of unpurified and purified outputs as the sample size grows.",
            "dplab.studies.purification.plots:plot_mc_audit",
            mem_mb=3000,
            memory="dplab.studies.purification.plan:mc_audit_memory",
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
            memory="dplab.studies.purification.plan:erm_memory",
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
            memory="dplab.studies.purification.plan:erm_memory",
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
            memory="dplab.studies.purification.plan:linear_regression_memory",
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
            glossary={
                "kind": "sensitivity_check: the brute-force check; mc_audit: a Monte-Carlo audit",
                "method": "what is checked or audited: every single edge flip, or purified Algorithm 11 or 10",
                "n_graphs": "number of graphs checked: random G(n_v, 1/2) graphs and the complete graph (count)",
                "check_vertices": "number of vertices n_v of the checked graphs (count)",
                "max_local_sensitivity_change": "largest change of Δ_Local over single edge flips (Algorithm 11 "
                "assumes ≤ 1; triangles)",
                "local_sensitivity_matches": "number of graphs whose Δ_Local equals the largest change of the "
                "triangle count (count)",
                "max_triangle_change": "largest change of the triangle count over single edge flips (triangles)",
                "global_sensitivity": "global sensitivity n_v − 2 of the triangle count (triangles)",
                "adjacency": "neighbouring graphs differ by adding or removing one edge",
                "n_samples": "Monte-Carlo draws from each graph of the pair (count)",
                "epsilon_lb": "(1 − alpha)-confidence lower bound on the release's pure ε (nats)",
                "bound": "the pure ε claimed for the release, ε_tot = 3ε by Theorem 5 (nats)",
                "epsilon_total": "the release's total privacy budget ε_tot (nats)",
                "n_events": "number of threshold events tested, Bonferroni-corrected (count)",
                "alpha": "the lower bound's confidence level is 1 − alpha",
                "laplace_scale": "scale b of the release's Laplace noise (triangles)",
                "triangles_g": "triangle count of the audited graph G, K5 minus an edge",
                "triangles_g_prime": "triangle count of its neighbour G′ = K5",
            },
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
            glossary={
                "treatment": "Algorithm 12 followed by Algorithm 2 with the corrected (q = ∞) or the printed (ℓ1) "
                "geometry, or the unpurified distance-to-instability output",
                "δ rule": "Algorithm 12's δ: corrected (below Theorem 2's threshold), as printed, or uniform "
                "calibrated (⊥ replaced by a uniform item, δ chosen so that the output is pure)",
                "⊥ encoding": "how the failure symbol ⊥ is encoded before Algorithm 2: a uniform item of X, or a "
                "reserved code",
                "largest ε∞, |X| = …": "largest exact pure ε over all neighbouring histograms, universe of that size "
                "(nats)",
                "bound": "the pure ε claimed: 2ε (Theorem 6) for the purified release; for the unpurified output with "
                "the uniform ⊥, max(ε, ln(1 + |X|δ/(2 − δ))); none when it is not pure (nats)",
                "within bound": "how many configurations respect the bound",
            },
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
            memory="dplab.studies.purification.plan:query_release_memory",
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
            glossary={
                "d": "number of binary attributes (the universe has 2^d cells)",
                "n": "number of records (public)",
                "k": "number of queries (count)",
                "epsilon_total": "total privacy budget ε_tot of each mechanism (nats)",
                "adjacency": "what neighbouring datasets differ in",
                "mechanism": "pure MWEM's transcript, Algorithm 16's sampled records before purification, or Algorithm "
                "16's purified output",
                "neighbour_cell": "the universe cell where the neighbour has one more record (index)",
                "rounds": "MWEM rounds T (count)",
                "epsilon0": "ε₀, the per-round budget of each measurement and selection (nats)",
                "epsilon_inf": "exact pure ε against this neighbour, both directions (nats)",
                "bound": "the pure ε claimed: ε_tot (pure MWEM, basic composition; Algorithm 16 purified, Theorem 8); "
                "inf for the unpurified records (nats)",
                "bound_effective": "basic composition 2(T − 1)ε₀ of the rounds that touch the data (nats)",
                "log_delta": "ln δ of Algorithm 16's purification, at Theorem 2's threshold for m·d bits",
                "log_omega": "ln ω, the mixing weight of the purification",
                "laplace_scale": "scale of the purification's Laplace noise",
                "epsilon_prime": "ε′ = ε_tot/2, the purification's budget (nats)",
                "m": "number of records Algorithm 16 samples (count; 0: not applicable)",
                "n_bits": "bits purified, m·d (count; 0: not applicable)",
                "within_bound": "epsilon_inf ≤ bound (to 1e-9)",
            },
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
