"""Flip cases of the contraction claims (run by ``tests/studies/test_claim_flips.py``)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
CONFIG = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["contraction"]
BASE = ({}, CONFIG)

#: claim id -> (case on which it holds, case on which it fails or is an erratum)
FLIPS = {
    "erratum_prop1_proof_baseline": (lambda n: {**n, "used": n["feldman"]}, lambda n: n),
    "erratum_prop1_appendix_kappa": (
        lambda n: {**n, "appendix": n["main"], "appendix_last": n["main_last"]},
        lambda n: n,
    ),
    "erratum_fig3_rho_exceeds_beta": (lambda n: {**n, "rho": n["beta"]}, lambda n: n),
    "erratum_fig1_caption_index": (lambda n: {**n, "printed_kernels": n["output_kernels"]}, lambda n: n),
    "erratum_lemma4_codomain": (lambda n: {**n, "printed_outputs": n["needed_outputs"]}, lambda n: n),
}
