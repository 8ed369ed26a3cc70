"""The contraction study: Asoodeh, Diaz, Calmon, *Privacy Amplification of Iterative Algorithms via Contraction
Coefficients* (ISIT 2020), reproduced (Figures 2 and 3) and audited (Theorems 3-5, Lemmas 1-2, Theorem 2,
Proposition 1, PNSGD's utility).

The artifacts read three pipeline stages of their own (rules in ``workflow/rules/``): the synthetic logistic datasets
(``logistic_dataset``, datasets.smk), PNSGD training per noise type (``contraction_utility_train``, train.smk) and the
grid-exact output laws of each audited configuration (``contraction_audit_grid``, audit.smk). The cross-key checks of
the ``contraction`` section (positions, Lemma 4's step size, intervals) are :func:`dplab.config.constraint_problems`.
"""

from __future__ import annotations

from dplab.registry import Artifact, Study

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
)
