"""Errata of Asoodeh, Diaz, Calmon (2020) outside the figures' data: each row compares what the paper prints with
what its derivation gives at a stated point, and is an ``erratum`` only while the two disagree (``holds`` once they
agree)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dplab.report.claims import Numbers, differ, erratum_if
from dplab.studies.contraction.claims_common import CLAIMS, PAPER, Frames
from dplab.studies.contraction.curves import gaussian_setting
from dplab.theory.contraction import contraction_modulus, kappa_prop1

__all__ = ["APPENDIX_ORDER", "CAPTION_POSITION", "GRADIENT_DIMENSION"]

#: Proof of Prop. 1, "kappa = 2 alpha L^2 for i = n": the Renyi order at which the printed i = n value is shown.
APPENDIX_ORDER = 2.0
#: Fig. 1 caption: the position i at which the printed and the correct number of kernels are compared.
CAPTION_POSITION = 20
#: Lemma 4, "f: K -> R^d": the dimension d of K at which the printed codomain is compared with the scalar one that
#: the gradient step psi(a) = a - eta grad f(a) needs (in d = 1 the two coincide).
GRADIENT_DIMENSION = 2


@CLAIMS.erratum(
    "erratum_prop1_proof_baseline",
    source=f"{PAPER}, App. A, proof of Prop. 1, first sentence",
    statement="Of Feldman et al. [12, Thm 23] and Balle et al. [15, Thm 5], 'we only consider the former'",
    artifact="fig3",
    rule="erratum while the kappa the proof goes on to use (with M^(n-i+1), Balle et al. Thm 5, 'the latter') "
    "differs from Feldman et al.'s (M = 1, 'the former') at the paper's own Fig. 3 parameters (i = n - 1), holds "
    "once they agree",
    verdict=lambda n: erratum_if(differ(n["feldman"][n["n"] - 1], n["used"][n["n"] - 1])),
    evidence=lambda n: (
        f"At the paper's Fig. 3 parameters (M = {n['M']:.6f}): i = n-1 = {n['n'] - 1}: kappa used "
        f"{n['used'][n['n'] - 1]:.6f} vs Feldman {n['feldman'][n['n'] - 1]:.6f}; i = n: {n['used'][n['n']]:.6f} vs "
        f"{n['feldman'][n['n']]:.6f}. The sentence's own reason ('the latter strictly improves the former') and the "
        "formula that follows are Balle et al.'s: 'former' should read 'latter'"
    ),
    severity="typo",
    consequence="Figs. 2-3 unchanged: both plot Balle et al.'s bound, as their legends and the proof's formula say "
    "(at rho = 0, Fig. 2, the two coincide, M = 1)",
)
def measure_prop1_proof(frames: Frames, config: Mapping[str, Any]) -> Numbers:
    """kappa at i = n - 1 and i = n at the Fig. 3 parameters: as the proof uses it (Balle et al.'s, with
    M^(n-i+1)) and as 'the former' (Feldman et al., M = 1) would give it."""
    setting = gaussian_setting(config["figures"]["fig3"])
    n, L, sigma, M = int(setting["n"]), setting["L"], setting["sigma"], float(setting["M"])
    used, feldman = ({i: float(kappa_prop1(L=L, sigma=sigma, M=m, n=n, i=i)) for i in (n - 1, n)} for m in (M, 1.0))
    return {"n": n, "M": M, "used": used, "feldman": feldman}


#: Appendix, "kappa = 2 alpha L^2 for i = n": a noise level below 1 at which the printed RDP is smaller than the
#: Gaussian mechanism's (main text, eq. (15): kappa = 2 L^2 / sigma^2), so that the printed statement is false there.
SMALL_SIGMA = 0.5


@CLAIMS.erratum(
    "erratum_prop1_appendix_kappa",
    source=f"{PAPER}, App. A, proof of Prop. 1, eq. after (25)",
    statement="kappa = 2 L^2 M^(n-i+1)/(n-i) (no sigma^2), and kappa = 2 alpha L^2 for i = n",
    artifact="fig2",
    rule=f"erratum while the appendix's kappa (i = 1, and i = n at alpha = {APPENDIX_ORDER:g}) differs from the main "
    "text's (Prop. 1, eq. (15)) at Fig. 2's parameters, holds once they agree; severity false when, at sigma = "
    f"{SMALL_SIGMA:g}, the printed (alpha, kappa alpha)-RDP of i = n is below the Gaussian mechanism's alpha 2 L^2/"
    "sigma^2 (a privacy claim stronger than the truth), loose otherwise",
    verdict=lambda n: erratum_if(differ(n["appendix"], n["main"]) or differ(n["appendix_last"], n["main_last"])),
    evidence=lambda n: (
        f"At Fig. 2's parameters, i = 1: kappa = {n['main']:.7f} (main text, with 1/sigma^2) vs {n['appendix']:.7f} "
        f"(appendix); i = n: {n['main_last']:.7f} (main) vs 2 alpha L^2 = {n['appendix_last']:.7f} at alpha = "
        f"{APPENDIX_ORDER:g} (an (alpha, kappa alpha)-RDP constant cannot depend on alpha). At sigma = "
        f"{SMALL_SIGMA:g}, i = n, alpha = {APPENDIX_ORDER:g}: printed RDP kappa alpha = {n['small_printed']:g} vs "
        f"the Gaussian mechanism's {n['small_true']:g}"
    ),
    severity=lambda n: "false" if n["small_printed"] < n["small_true"] else "loose",
    consequence="Figs. 2-3 unchanged: they use the main text's kappa (eq. (15)), which is right; only the appendix's "
    "restatement is wrong",
)
def measure_prop1_appendix(frames: Frames, config: Mapping[str, Any]) -> Numbers:
    """kappa of Prop. 1 at Fig. 2's parameters as the main text and as the appendix print it, and the i = n RDP
    alpha kappa at sigma = SMALL_SIGMA as printed (2 alpha^2 L^2) and as the Gaussian mechanism has it (2 alpha L^2/
    sigma^2)."""
    fig2 = config["figures"]["fig2"]
    main = float(kappa_prop1(L=fig2["L"], sigma=fig2["sigma"], M=1.0, n=fig2["n"], i=1))
    main_last = float(kappa_prop1(L=fig2["L"], sigma=fig2["sigma"], M=1.0, n=fig2["n"], i=fig2["n"]))
    small_true = APPENDIX_ORDER * float(kappa_prop1(L=fig2["L"], sigma=SMALL_SIGMA, M=1.0, n=fig2["n"], i=fig2["n"]))
    return {
        "main": main,
        "appendix": main * fig2["sigma"] ** 2,  # the appendix's kappa omits the 1/sigma^2
        "main_last": main_last,
        "appendix_last": 2.0 * APPENDIX_ORDER * fig2["L"] ** 2,
        "small_printed": 2.0 * APPENDIX_ORDER**2 * fig2["L"] ** 2,
        "small_true": small_true,
    }


@CLAIMS.erratum(
    "erratum_fig3_rho_exceeds_beta",
    source=f"{PAPER}, Fig. 3 caption and Sec. IV-B",
    statement="rho = 0.4 with beta = 0.3",
    artifact="fig3",
    rule="a rho-strongly convex, beta-smooth loss needs rho <= beta; erratum while the configured Fig. 3 values have "
    "rho > beta, holds otherwise",
    verdict=lambda n: erratum_if(n["rho"] > n["beta"]),
    evidence=lambda n: (
        f"rho = {n['rho']:g}, beta = {n['beta']:g}: rho/beta = {n['rho'] / n['beta']:.3f}: no loss is both; "
        f"the swapped, feasible pair (beta = {n['rho']:g}, rho = {n['beta']:g}) gives M = {n['M_swapped']:.10f} "
        f"against {n['M']:.10f} for the printed one"
    ),
    severity="typo",
    consequence=lambda n: (
        f"Fig. 3 unchanged: M = sqrt(1 - 2 eta beta rho/(beta + rho)) (eq. (14)) is symmetric in beta and rho, so the "
        f"feasible pair gives the same M ({n['M_swapped']:.10f}) and the same curves"
        if not differ(n["M"], n["M_swapped"])
        else f"Fig. 3 changes: the feasible pair gives M = {n['M_swapped']:.10f}"
    ),
)
def measure_fig3_rho(frames: Frames, config: Mapping[str, Any]) -> Numbers:
    """The printed (rho, beta) of Fig. 3 and the modulus M they give, printed and swapped."""
    fig3 = config["figures"]["fig3"]
    lr, beta, rho = fig3["lr"], fig3["beta_smooth"], fig3["rho"]
    return {
        "rho": rho,
        "beta": beta,
        "M": float(contraction_modulus(lr=lr, beta_smooth=beta, rho=rho)),
        "M_swapped": float(contraction_modulus(lr=lr, beta_smooth=rho, rho=beta)),
    }


@CLAIMS.erratum(
    "erratum_fig1_caption_index",
    source=f"{PAPER}, Fig. 1 caption",
    statement="The output distribution of kernel K_{x_i} is mu_i = mu_0 K_{x_1} ... K_{x_{i-1}}",
    artifact="fig2",
    rule="erratum while the printed product has a different number of kernels from the output law of K_{x_i}",
    verdict=lambda n: erratum_if(n["printed_kernels"] != n["output_kernels"]),
    evidence=lambda n: (
        f"At i = {n['i']} the printed product mu_0 K_{{x_1}}...K_{{x_{{i-1}}}} applies {n['printed_kernels']} "
        f"kernels; the output of K_{{x_i}} applies {n['output_kernels']} (mu_i = mu_0 K_{{x_1}}...K_{{x_i}}, "
        "Sec. IV-B), and the input of K_{x_i} is mu_{i-1}, as Lemma 3 uses"
    ),
    severity="typo",
    consequence="no result uses the caption: Lemma 3 and Theorems 3-5 take the input law mu_{i-1} of K_{x_i}, as "
    "Sec. IV-B defines it",
)
@CLAIMS.erratum(
    "erratum_lemma4_codomain",
    source=f"{PAPER}, App. A, proof of Theorem 3, Lemma 4 and the sentence before it",
    statement="f: K -> R^d is beta-smooth and rho-strongly convex",
    artifact="fig3",
    rule=f"erratum while the printed codomain R^d (d = {GRADIENT_DIMENSION}) has a different number of outputs from "
    "the scalar function the gradient step needs",
    verdict=lambda n: erratum_if(n["printed_outputs"] != n["needed_outputs"]),
    evidence=lambda n: (
        f"For K in R^{n['d']} the printed f has {n['printed_outputs']} outputs, so grad f(a) would be a "
        f"{n['d']}x{n['printed_outputs']} Jacobian; psi(a) = a - eta grad f(a) in R^{n['d']} and smoothness and "
        f"strong convexity need a scalar f ({n['needed_outputs']} output): f maps K to R, not R^d"
    ),
    severity="typo",
    consequence="Lemma 4's modulus M (eq. (14)) and every result using it unchanged: its proof (Bubeck, Thm 3.12) "
    "is for a scalar f",
)
def measure_notation(frames: Frames, config: Mapping[str, Any]) -> Numbers:
    """The counts behind the two notation slips: kernels in Fig. 1's product, outputs of Lemma 4's f."""
    return {"i": CAPTION_POSITION, "printed_kernels": CAPTION_POSITION - 1, "output_kernels": CAPTION_POSITION,
            "d": GRADIENT_DIMENSION, "printed_outputs": GRADIENT_DIMENSION, "needed_outputs": 1}  # fmt: skip
