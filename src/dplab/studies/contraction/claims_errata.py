"""Errata of Asoodeh, Diaz, Calmon (2020) outside the figures' data: each row compares what the paper prints with the
correct value at a stated point, and is an ``erratum`` only while the two disagree (``holds`` once they agree)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dplab.report.claims import ClaimRule, Numbers, differ, erratum_if
from dplab.studies.contraction.claims_common import artifact_path
from dplab.studies.contraction.curves import gaussian_setting
from dplab.theory.contraction import contraction_modulus, kappa_prop1

__all__ = ["ERRATA_RULES", "APPENDIX_ORDER", "CAPTION_POSITION", "GRADIENT_DIMENSION"]

#: Proof of Prop. 1, "kappa = 2 alpha L^2 for i = n": the Renyi order at which the printed i = n value is shown.
APPENDIX_ORDER = 2.0
#: Fig. 1 caption: the position i at which the printed and the correct number of kernels are compared.
CAPTION_POSITION = 20
#: Lemma 4, "f: K -> R^d": the dimension d of K at which the printed codomain is compared with the scalar one that
#: the gradient step psi(a) = a - eta grad f(a) needs (in d = 1 the two coincide).
GRADIENT_DIMENSION = 2


def measure_prop1_proof(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    """kappa at i = n - 1 and i = n at the Fig. 3 parameters: as the proof uses it (Balle et al.'s, with
    M^(n-i+1)) and as 'the former' (Feldman et al., M = 1) would give it."""
    setting = gaussian_setting(config["figures"]["fig3"])
    n = int(setting["n"])

    def kappa(M: float, i: int) -> float:
        return float(kappa_prop1(L=setting["L"], sigma=setting["sigma"], M=M, n=n, i=i))

    return {
        "n": n,
        "M": float(setting["M"]),
        "used": {i: kappa(setting["M"], i) for i in (n - 1, n)},
        "feldman": {i: kappa(1.0, i) for i in (n - 1, n)},
    }


def verdict_prop1_proof(numbers: Numbers) -> str:
    n = numbers["n"]
    return erratum_if(differ(numbers["feldman"][n - 1], numbers["used"][n - 1]))


def evidence_prop1_proof(numbers: Numbers) -> str:
    n, used, feldman = numbers["n"], numbers["used"], numbers["feldman"]
    return (
        f"at the paper's Fig. 3 parameters (M = {numbers['M']:.6f}): i = n-1 = {n - 1}: kappa used {used[n - 1]:.6f} "
        f"vs Feldman {feldman[n - 1]:.6f}; i = n: {used[n]:.6f} vs {feldman[n]:.6f}. With M = 1 the printed (n - i) "
        f"denominator gives kappa(n-1) = kappa(n) = {feldman[n - 1]:.6f} (suspicious; Feldman et al.'s Thm 23 may "
        "read n - i + 1, not verifiable from the paper's text). The figures use the paper's kappa"
    )


def measure_prop1_appendix(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    fig2 = config["figures"]["fig2"]
    main = float(kappa_prop1(L=fig2["L"], sigma=fig2["sigma"], M=1.0, n=fig2["n"], i=1))
    main_last = float(kappa_prop1(L=fig2["L"], sigma=fig2["sigma"], M=1.0, n=fig2["n"], i=fig2["n"]))
    return {
        "main": main,
        "appendix": main * fig2["sigma"] ** 2,  # the appendix's kappa omits the 1/sigma^2
        "main_last": main_last,
        "appendix_last": 2.0 * APPENDIX_ORDER * fig2["L"] ** 2,
    }


def verdict_prop1_appendix(numbers: Numbers) -> str:
    wrong = differ(numbers["appendix"], numbers["main"]) or differ(numbers["appendix_last"], numbers["main_last"])
    return erratum_if(wrong)


def evidence_prop1_appendix(numbers: Numbers) -> str:
    return (
        f"at Fig. 2 parameters, i = 1: kappa = {numbers['main']:.7f} (main text, with 1/sigma^2) vs "
        f"{numbers['appendix']:.7f} (appendix); i = n: {numbers['main_last']:.7f} (main) vs 2 alpha L^2 = "
        f"{numbers['appendix_last']:.7f} at alpha = {APPENDIX_ORDER:g} (an (alpha, kappa alpha)-RDP constant cannot "
        "depend on alpha). The figures use the main-text kappa"
    )


def measure_fig3_rho(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    fig3 = config["figures"]["fig3"]
    M = float(contraction_modulus(lr=fig3["lr"], beta_smooth=fig3["beta_smooth"], rho=fig3["rho"]))
    return {
        "rho": fig3["rho"],
        "beta": fig3["beta_smooth"],
        "M": M,
        "ratio": M * fig3["diameter"] / (fig3["lr"] * fig3["sigma"]),
    }


def verdict_fig3_rho(numbers: Numbers) -> str:
    return erratum_if(numbers["rho"] > numbers["beta"])


def evidence_fig3_rho(numbers: Numbers) -> str:
    return (
        f"rho = {numbers['rho']:g}, beta = {numbers['beta']:g}: rho/beta = {numbers['rho'] / numbers['beta']:.3f}. The "
        f"formulas still evaluate: M = {numbers['M']:.10f}, M D/(eta sigma) = {numbers['ratio']:.10f}; reproduced "
        "with the printed values"
    )


def measure_fig1_caption(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    return {"i": CAPTION_POSITION, "printed_kernels": CAPTION_POSITION - 1, "output_kernels": CAPTION_POSITION}


def verdict_fig1_caption(numbers: Numbers) -> str:
    return erratum_if(numbers["printed_kernels"] != numbers["output_kernels"])


def evidence_fig1_caption(numbers: Numbers) -> str:
    return (
        f"at i = {numbers['i']} the printed product mu_0 K_{{x_1}} ... K_{{x_{{i-1}}}} applies "
        f"{numbers['printed_kernels']} kernels; the output of K_{{x_i}} applies {numbers['output_kernels']} "
        "(mu_i = mu_0 K_{x_1} ... K_{x_i}, Sec. IV-B), and the input of K_{x_i} is mu_{i-1}, as Lemma 3 uses"
    )


def measure_lemma4_codomain(frames: Mapping[str, pd.DataFrame], config: Mapping[str, Any]) -> Numbers:
    return {"d": GRADIENT_DIMENSION, "printed_outputs": GRADIENT_DIMENSION, "needed_outputs": 1}


def verdict_lemma4_codomain(numbers: Numbers) -> str:
    return erratum_if(numbers["printed_outputs"] != numbers["needed_outputs"])


def evidence_lemma4_codomain(numbers: Numbers) -> str:
    return (
        f"for K in R^{numbers['d']} the printed f has {numbers['printed_outputs']} outputs, so grad f(a) would be a "
        f"{numbers['d']}x{numbers['printed_outputs']} Jacobian; psi(a) = a - eta grad f(a) in R^{numbers['d']} and "
        f"smoothness and strong convexity need a scalar f ({numbers['needed_outputs']} output): f maps K to R"
    )


ERRATA_RULES = (
    ClaimRule(
        "erratum_prop1_proof_baseline",
        "Proof of Prop. 1",
        "The baseline is Feldman et al.'s bound ('we only consider the former')",
        artifact_path("fig3"),
        (),
        "erratum while the kappa the proof uses (with M^(n-i+1), Balle et al. Thm 5) differs from Feldman et al.'s "
        "(M = 1) at the paper's own Fig. 3 parameters (i = n - 1), holds once they agree",
        measure_prop1_proof,
        verdict_prop1_proof,
        evidence_prop1_proof,
    ),
    ClaimRule(
        "erratum_prop1_appendix_kappa",
        "Appendix, proof of Prop. 1",
        "kappa = 2 L^2 M^(n-i+1)/(n-i) (no sigma^2), and kappa = 2 alpha L^2 for i = n",
        artifact_path("fig2"),
        (),
        "erratum while the appendix's kappa (i = 1, and i = n at alpha = "
        f"{APPENDIX_ORDER:g}) differs from the main text's at Fig. 2's parameters, holds once they agree",
        measure_prop1_appendix,
        verdict_prop1_appendix,
        evidence_prop1_appendix,
    ),
    ClaimRule(
        "erratum_fig3_rho_exceeds_beta",
        "Fig. 3 caption",
        "rho = 0.4 with beta = 0.3",
        artifact_path("fig3"),
        (),
        "a rho-strongly convex, beta-smooth loss needs rho <= beta; erratum while the configured Fig. 3 values have "
        "rho > beta, holds otherwise",
        measure_fig3_rho,
        verdict_fig3_rho,
        evidence_fig3_rho,
    ),
    ClaimRule(
        "erratum_fig1_caption_index",
        "Fig. 1 caption",
        "The output distribution of K_{x_i} is mu_i = mu_0 K_{x_1} ... K_{x_{i-1}}",
        artifact_path("fig2"),
        (),
        "erratum while the printed product has a different number of kernels from the output law of K_{x_i}",
        measure_fig1_caption,
        verdict_fig1_caption,
        evidence_fig1_caption,
    ),
    ClaimRule(
        "erratum_lemma4_codomain",
        "Lemma 4",
        "f: K -> R^d is beta-smooth and rho-strongly convex",
        artifact_path("fig3"),
        (),
        f"erratum while the printed codomain R^d (d = {GRADIENT_DIMENSION}) has a different number of outputs from "
        "the scalar function the gradient step needs",
        measure_lemma4_codomain,
        verdict_lemma4_codomain,
        evidence_lemma4_codomain,
    ),
)
