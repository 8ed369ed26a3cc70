"""Flip cases of the generalization claims (run by ``tests/studies/test_claim_flips.py``): for every rule, a case on
which it holds and one on which it fails (or, for an erratum rule, is an erratum).

The frames are the committed ``results/generalization`` CSVs (what ``config.yaml`` produces), frames computed small by
the study's own artifact functions on other parameters, or those frames with real columns changed by hand; claims
decided by closed forms alone flip on their numbers."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd

from dplab.studies.generalization import STUDY
from dplab.workflow.config import load_config
from dplab.workflow.registry import compute_artifact

ROOT = Path(__file__).resolve().parents[3]
CONFIG = load_config(str(ROOT / "config.yaml"))["generalization"]
REAL = {
    p.stem: pd.read_csv(p)
    for folder in ("data", "tables")
    for p in sorted((ROOT / "results" / "generalization" / folder).glob("*.csv"))
}
BASE = ({}, CONFIG)


def computed(artifact: str, **section: object) -> pd.DataFrame:
    """The artifact computed by the study's own function on ``config.yaml``'s section with ``section``'s changes."""
    spec = STUDY.artifact(artifact)
    return compute_artifact(spec, {**CONFIG[spec.section], **section}, 20260101)


def changed(frame: pd.DataFrame, where: pd.Series | str, **columns: object) -> pd.DataFrame:
    """``frame`` with ``columns`` set (a value, or a function of the frame) on the rows of ``where`` (a boolean mask or
    a method / variant name)."""
    frame = frame.copy()
    if isinstance(where, str):
        where = frame.get("method", frame.get("variant")) == where
    for column, value in columns.items():
        frame.loc[where, column] = value(frame[where]) if callable(value) else value
    return frame


def with_config(section: str, **changes: object) -> dict:
    config = copy.deepcopy(CONFIG)
    config[section] = {**config[section], **changes}
    return config


def real(**frames: pd.DataFrame) -> tuple[dict[str, pd.DataFrame], dict]:
    """The committed frames, with ``frames`` replacing some, and ``config.yaml``'s section."""
    return {**REAL, **frames}, CONFIG


def f8(change: tuple = (-0.02, -0.026, -0.014), hp_gap: float = 0.05, d50_shift: float = 0.0) -> pd.DataFrame:
    """F8 rows of two resolvable (d, N = 1000, T = 1000) cells (d = 10, 50) at sigma = 0 and 2, with the columns the
    claims read: the paired change of the gap (mean and t interval) is ``change``; ``hp_gap`` is the largest |gap|
    against the non-vacuous Theorem 1 bound 0.5 (+ ``d50_shift`` at d = 50)."""
    rows = []
    for d in (10, 50):
        base = {"d": d, "n": 1000, "t": 1000, "datasets": 40, "coverage_valid": 1.0, "mean_abs_gap": 0.001 * d}
        base["hp_bound_valid"] = 0.5 + (d50_shift if d == 50 else 0.0)
        rows += [
            {**base, "sigma": 0.0, "mean_gap": 0.028, "gap_ci_low": 0.024, "gap_ci_high": 0.032, "gap_change": 0.0,
             "gap_change_ci_low": 0.0, "gap_change_ci_high": 0.0, "on_average_valid": np.nan, "hp_vacuous_valid": True,
             "max_abs_gap": 0.04},
            {**base, "sigma": 2.0, "mean_gap": 0.008, "gap_ci_low": 0.003, "gap_ci_high": 0.013, "gap_change": change[0],
             "gap_change_ci_low": change[1], "gap_change_ci_high": change[2], "on_average_valid": 0.2,
             "hp_vacuous_valid": False, "max_abs_gap": hp_gap},
        ]  # fmt: skip
    return pd.DataFrame(rows)


def _scaled(frame: pd.DataFrame, size: str, column: str, power: float) -> pd.DataFrame:
    """``frame`` with ``column`` of the as-printed rows multiplied by (size/1e4)^power."""
    return changed(frame, "as_printed", **{column: lambda r: r[column] * (r[size] / 1e4) ** power})


def rate(size: str) -> pd.DataFrame:
    """As-printed rows whose step eps_s = 0.005 (1e4/N) and delta' = 1e-6 (1e4/N)^3 shrink with N fast enough for
    Theorem 1's a and b to fall faster than 1/sqrt(N) and to grow slower than T (Remarks 1-2's rate)."""
    rows = [(n, t) for n in (1e4, 1e5, 1e6) for t in (10, 100, 1000)]
    frame = pd.DataFrame(rows, columns=[size, "t"]).assign(variant="as_printed", sigma=1.0, tau=100)
    return frame.assign(eps_step=0.005 * 1e4 / frame[size], delta_prime=1e-6 * (1e4 / frame[size]) ** 3)


def _nested(kind: str, change) -> object:
    return lambda n: {**n, kind: {**n[kind], "rows": [change(r) for r in n[kind]["rows"]]}}


T1, T2, T3, F9 = REAL["t1"], REAL["t2"], REAL["t3"], REAL["f9"]
NO_ONETO = with_config("table_high_probability", oneto_n=1000)  # below Theorem 1's N_min: Oneto's bound not compared
SMALL_T = {"cases": [{"epsilon": 1.0, "delta": 0.3, "t": 6, "delta_tilde": 0.5}]}  # no Cor 2 row below the floor
PRINTED_T3 = T3["variant"] == "as_printed"
FL_REFUTED = dict(clients=[1_000_000], taus=[100], sigmas=[0.0012], t_min_log10=0.0, t_max_log10=0.5, n_t=2)

#: claim id -> (case on which it holds, case on which it fails or is an erratum)
FLIPS = {
    "lemma5_tighter_kl": (
        real(),
        real(f1=changed(REAL["f1"], "dr16", ratio_to_lemma5=lambda r: 1.01 * r["ratio_to_lemma5"])),
    ),
    "thm1_tighter_than_nissim_stemmer": (real(), real(f2=changed(REAL["f2"], "nissim_stemmer", deviation=0.001))),
    "erratum_thm1_intro_factor_2": (
        real(
            t1=changed(
                T1, "thm1_intro", failure_probability=T1.loc[T1["method"] == "thm1", "failure_probability"].to_numpy()
            )
        ),
        real(),
    ),
    "thm2_tighter_than_nissim_stemmer": (
        real(
            f3=computed("f3", eps_max=1.25)
        ),  # the whole bound is e^eps times smaller exactly while e^eps - 1 <= 2 eps
        real(f3=changed(REAL["f3"], "thm2", bound=lambda r: r["bound"] + 100.0)),
    ),
    "thm3_probability_at_least_epsilon": (lambda n: {**n, "fails_large": 0, "fails_small": 0}, lambda n: n),
    "erratum_thm3_proof_inequality": (lambda n: {**n, "exact": n["bound"]}, lambda n: n),
    "erratum_lemma4_hoeffding_exponent": (
        lambda n: {"rows": [r[:4] + (r[5],) + r[5:] for r in n["rows"]]},
        lambda n: n,
    ),
    "abstract_strictly_tighter": (({**REAL, "t1": computed("t1", oneto_n=1000)}, NO_ONETO), real()),
    "composition_epsilon_equals_kov": (
        real(),
        real(f4=changed(REAL["f4"], "cor3", eps_prime=lambda r: r["eps_prime"] * 1.01)),
    ),
    "composition_delta_tighter_than_kov": (real(t2=computed("t2", **SMALL_T)), real()),
    "erratum_composition_below_lower_bound": (
        real(t2=computed("t2", **SMALL_T), f5=computed("f5", t_max_log10=1.0)),
        real(),
    ),
    "erratum_cor3_sign": (
        real(
            t2=changed(
                T2,
                (T2["method"] == "cor3_as_printed") & (T2["delta_step"] == 0),
                delta_prime=T2.loc[
                    (T2["method"] == "cor3_corrected") & (T2["delta_step"] == 0), "delta_prime"
                ].to_numpy(),
            )
        ),
        real(),
    ),  # fmt: skip
    "composition_fair_comparison": (real(f6=computed("f6", steps=[1, 10, 100], n_scan=2000)), real()),
    "erratum_b4_worst_case_pair": (lambda n: {**n, "as_printed": n["corrected"]}, lambda n: n),
    "thm5_composition_iv": (lambda n: n, lambda n: {**n, "violations": [n["max_ratio_case"]]}),
    "lemma6_boundary_maximum": (lambda n: n, lambda n: {**n, "excess": 0.01}),
    "erratum_sgld_factor_2": (
        real(t3=changed(T3, "valid", eps_tilde=T3.loc[PRINTED_T3, "eps_tilde"].to_numpy())),
        real(),
    ),
    "erratum_sgld_subsampling": (real(t3=changed(T3, "valid", linear_amplification_invalid=False)), real()),
    "erratum_thm7_delta_tilde": (real(t3=changed(T3, "as_printed", thm7_printed_delta_tilde=1e-6)), real()),
    "erratum_thm8_epsilon_tilde": (
        real(f9=changed(F9, "substitution", eps_tilde=F9.loc[F9["variant"] == "as_printed", "eps_tilde"].to_numpy())),
        real(),
    ),
    "sgld_generalization_bound": (
        real(),
        real(f7=changed(REAL["f7"], "valid", hp_bound=lambda r: r["hp_bound"] * r["n"])),
    ),
    "remarks_rate_t_over_sqrt_n": (
        real(f7=rate("n"), f9=rate("clients")),
        real(f7=_scaled(REAL["f7"], "n", "eps_step", 2.0)),
    ),
    "thm7_conclusion_small_noise": (_nested("sgld", lambda r: r[:4] + (r[3] / 2,) + r[5:]), lambda n: n),
    "thm8_conclusion_small_noise": (_nested("fl", lambda r: r[:4] + (r[3] / 2,) + r[5:]), lambda n: n),
    "thm8_generalization_bound": (
        real(f9=changed(F9, "substitution", eps_prime=0.0, delta_prime=1e-12)),  # the valid pair implies the printed
        real(f9=computed("f9", **FL_REFUTED)),  # clients 1e6, sigma 0.0012, T = 1: non-vacuous, and refuted
    ),
    "erratum_wang_t_greater": (lambda n: {**n, "threshold": 256.0}, lambda n: n),
    "e1_gap_below_bounds": (real(f8=f8()), real(f8=f8(hp_gap=0.6))),
    "e1_bound_model_size_free": (real(f8=f8()), real(f8=f8(d50_shift=0.1))),
    "e1_privacy_and_generalization_together": (real(f8=f8()), real(f8=f8(change=(0.02, 0.014, 0.026)))),
}
