"""The contraction study: Asoodeh, Diaz, Calmon, *Privacy Amplification of Iterative Algorithms via Contraction
Coefficients* (ISIT 2020), reproduced (Figures 2 and 3) and audited (Theorems 3-5, Lemmas 1-2, Theorem 2,
Proposition 1, PNSGD's utility).

The artifacts read three pipeline stages of their own (rules in ``workflow/rules/``): the synthetic logistic datasets
(``logistic_dataset``, datasets.smk), PNSGD training per noise type (``contraction_utility_train``, train.smk) and the
grid-exact output laws of each audited configuration (``contraction_audit_grid``, audit.smk). The cross-key checks of
the ``contraction`` section (positions, Lemma 4's step size, intervals) are :func:`dplab.studies.contraction.constraints.constraints`.
"""

from __future__ import annotations

from dplab.studies.contraction.constraints import constraints
from dplab.workflow.registry import Artifact, Study

__all__ = ["STUDY"]

NAME = "contraction"
CURVES = "dplab.studies.contraction.curves"
AUDIT = "dplab.studies.contraction.audit"
PLOTS = "dplab.studies.contraction.plots"
UTILITY = "dplab.studies.contraction.utility"
PLAN = "dplab.studies.contraction.plan"


def _figure_curves(figure: str, caption: str) -> Artifact:
    """Figure 2 or 3 of the paper: Theorem 4 against Proposition 1, from the section ``figures.<figure>``."""
    return Artifact(
        figure,
        "figure",
        f"figures.{figure}",
        f"{CURVES}:compute_figure_curves",
        caption,
        plot=f"{PLOTS}:plot_delta_curves",
        mem_mb=750,
        runtime=5,
    )


def _audit(noise: str, caption: str) -> Artifact:
    """The empirical audit of one noise type: a sweep over (audited configuration, position)."""
    return Artifact(
        f"ext_audit_{noise}",
        "figure",
        "audit",
        f"{AUDIT}:audit_point",
        caption,
        plot=f"{PLOTS}:plot_audit",
        mem_mb=1500,
        runtime=10,
        inputs=f"{PLAN}:{noise}_audit_inputs",
        points=f"{PLAN}:{noise}_audit_points",
        combine=f"{AUDIT}:combine_audit",
        base_seed=True,  # the Monte-Carlo seeds of the layout with one job per (configuration, position)
    )


ARTIFACTS = (
    _figure_curves(
        "fig2",
        "Figure 2 of the paper: delta against epsilon for Gaussian PNSGD with a convex loss (n = 40, sigma = 2, "
        "eta = 0.5, D = 1), Theorem 4 against the RDP baseline of Proposition 1, for users i = 1, 20, 39.",
    ),
    _figure_curves(
        "fig3",
        "Figure 3 of the paper: the same for a strongly convex loss (sigma = 1, rho = 0.4, beta = 0.3, eta = 0.7, "
        "D = 1), users i = 20, 30, 39; Proposition 1 wins above epsilon ~ 0.78 (i = 20) and ~ 2.68 (i = 30).",
    ),
    Artifact(
        "ext_laplace",
        "figure",
        "laplace",
        f"{CURVES}:compute_laplace_curves",
        "Theorem 3 (Laplace PNSGD on [0, 1]) for users i = 1, 20, 39, 40, with the pure-DP threshold each user "
        "really has; the paper's corollary is wrong for i = n.",
        plot=f"{PLOTS}:plot_laplace",
        mem_mb=750,
        runtime=5,
    ),
    Artifact(
        "ext_regime",
        "figure",
        "regime",
        f"{CURVES}:compute_regime_map",
        "Epsilon at delta = 1e-5 against the domain diameter: Theorem 4 beats Proposition 1 only while D/(eta sigma) "
        "is about 2-3 or less (except for the last users).",
        plot=f"{PLOTS}:plot_regime",
        mem_mb=750,
        runtime=5,
    ),
    Artifact(
        "ext_lemmas",
        "table",
        (),
        "dplab.studies.contraction.lemmas:compute_lemma_table",
        "Lemmas 1-2, Theorem 2 and the Renyi divergence behind eq. (3), each against quadrature, dp_accounting or a "
        "brute-force supremum.",
        mem_mb=750,
        runtime=5,
        glossary={
            "check": "what is checked: lemma1_laplace (Lemma 1: E_(e^ε) between two Laplace laws), lemma2_gaussian "
            "(Lemma 2: between two Gaussians, θ_(e^ε)(Δ/s)), theorem2_projected_gaussian (Theorem 2: the contraction "
            "coefficient of the Gaussian kernel projected on [0, D]), unconstrained_gaussian_kernel (without the "
            "projection the kernel does not contract), renyi_gaussian (the Rényi divergence of two Gaussians behind "
            "eq. (3))",
            "epsilon": "ε of the hockey-stick divergence E_(e^ε) (— for Rényi rows)",
            "order": "the Rényi order α (renyi_gaussian rows only)",
            "shift": "Δ, the distance between the two laws' centres; the diameter D of [0, D] for Theorem 2 rows",
            "scale": "the Laplace scale b or the Gaussian standard deviation s",
            "closed_form": "the paper's closed form (Theorem 2 rows: the exact coefficient, attained at the interval's "
            "endpoints); a hockey-stick divergence in [0, 1], or a Rényi divergence in nats",
            "quadrature": "numerical integration of the definition (Theorem 2 rows: the brute-force supremum over "
            "pairs of starting points)",
            "dp_accounting": "the same quantity from Google's dp_accounting privacy-loss objects",
            "paper_bound": "the paper's bound: θ_(e^ε)(D), Theorem 2's bound (Theorem 4's contraction factor), or the "
            "trivial bound 1 for the unconstrained kernel",
            "max_abs_error": "largest |closed_form − reference| over the references (unconstrained kernel: "
            "1 − closed_form)",
        },
    ),
    Artifact(
        "ext_random_stopping",
        "figure",
        ("audit", "random_stopping"),
        f"{AUDIT}:compute_random_stopping",
        "Theorem 5 (randomly stopped PNSGD) against the grid-exact delta of the randomly stopped chain.",
        plot=f"{PLOTS}:plot_random_stopping",
        runtime=5,
    ),
    Artifact(
        "ext_utility",
        "figure",
        "utility",
        f"{UTILITY}:compute_utility",
        "PNSGD on synthetic logistic regression: excess empirical risk against the noise scale, and the epsilon "
        "(delta = 1e-5) certified to the first, middle and last user.",
        plot=f"{PLOTS}:plot_utility",
        runtime=5,
        inputs=f"{PLAN}:utility_inputs",
        table=f"{UTILITY}:utility_table_shown",
        glossary={
            "noise": "PNSGD's noise: gaussian (d dimensions, Theorem 4) or laplace (1-D, Theorem 3)",
            "lr": "the step size η",
            "noise_scale": "the noise scale: Gaussian σ or Laplace v (0: no noise, no privacy)",
            "excess_risk_mean": "mean over runs of F(Y_n) − min F, the excess empirical logistic risk of the final "
            "iterate over the domain's minimiser",
            "excess_risk_se": "its standard error over runs",
            "test_accuracy_mean": "mean test accuracy over runs (fraction)",
            "epsilon_thm_first": "ε at utility.delta that Theorem 4 (Gaussian) or 3 (Laplace) certifies to the first "
            "user, i = 1 (inf without noise)",
            "epsilon_thm_middle": "the same for the middle user, i = n/2",
            "epsilon_thm_last": "the same for the last user, i = n",
            "epsilon_prop1_middle": "ε that the RDP baseline, Proposition 1, certifies to the middle user (Gaussian "
            "only)",
            "epsilon_thm5": "ε of Theorem 5: PNSGD stopped at a uniformly random step (Gaussian only)",
        },
    ),
    _audit(
        "gaussian",
        "Empirical audit of Theorem 4 and Proposition 1: grid-exact delta of the worst neighbouring instance and "
        "Monte-Carlo 99% lower bounds, per configuration (D = 1 and 4) and position i.",
    ),
    _audit(
        "laplace",
        "Empirical audit of Theorem 3: grid-exact delta of the worst neighbouring instance and Monte-Carlo 99% lower "
        "bounds, per configuration (D = 1 and 4) and position i.",
    ),
)

STUDY = Study(
    name=NAME,
    title="Privacy amplification by contraction",
    paper="Asoodeh, Diaz, Calmon, *Privacy Amplification of Iterative Algorithms via Contraction Coefficients*, "
    "ISIT 2020 (arXiv 2001.06546)",
    artifacts=ARTIFACTS,
    claims="dplab.studies.contraction.claims:build_claims",
    constraints=constraints,
    stage_memory={"audit_grid": ("audit", "dplab.studies.contraction.plan:audit_grid_memory")},
)
