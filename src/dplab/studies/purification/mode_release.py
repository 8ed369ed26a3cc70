"""Mode release (extension): the mode by distance to instability, purified through Algorithm 2
(Algorithm 12, Theorem 6) against pure-DP selection baselines, and its exact privacy audit on small universes.

Artifacts: ``ext_mode_release`` (:func:`compute_mode_release`, figure) and ``ext_mode_release_audit``
(:func:`mode_release_audit`, table), both reading the section ``purification.mode_release``.  Replace-one adjacency.
Budget: Algorithm 12 runs at ε = ε_tot/2 (it is 2ε-DP); the baselines at ε_tot; the unpurified reference at
(ε_tot, δ_ref) is not pure.  Algorithm 12 variants: δ ``corrected`` / ``as_printed`` (the printed δ of Algorithm 12
misses Theorem 2's condition) × ⊥ encoding ``uniform`` / ``reserved`` (⊥ ∉ 𝒳 must be encoded before Algorithm 2;
the paper leaves it open), Algorithm 2 with the corrected (q = ∞) geometry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.mode_transitions import (
    AuditedModeRelease,
    alg12_audited_releases,
    max_pure_epsilon_over_transitions,
    neighbour_transitions,
    uniform_calibrated_release,
)
from dplab.mechanisms.exponential import exponential_mechanism_log_probabilities
from dplab.mechanisms.purification import discrete_purification_laplace_scale
from dplab.mechanisms.stability import (
    ALG12_VARIANTS,
    BOTTOM,
    BOTTOM_ENCODINGS,
    DELTA_RULES,
    alg12_variant,
    bit_flip_probability,
    code_bits,
    distance_to_instability,
    encode_bottom,
    exponential_mechanism_selection,
    mode_and_distance,
    mode_histogram,
    mode_release_log_delta,
    mode_selection_success_probability,
    pass_probability,
    pure_mode_release,
    pure_mode_release_success_probability,
    report_noisy_max_grouped,
    report_noisy_max_success_probability,
    stability_threshold,
    uniform_bottom_log_delta,
)
from dplab.numerics import smallest_integer_reaching
from dplab.seeding import derive_seed
from dplab.workflow.registry import no_progress

__all__ = [
    "compute_mode_release",
    "gap_at_level",
    "mode_release_audit",
]

ADJACENCY = "replace_one"
_MAX_GAP = 100_000


def gap_at_level(method: str, n_bits: int, params: Mapping[str, Any], layout: str = "uniform_rest") -> float:
    """The smallest gap occ₁ − occ₂ at which P(output = mode) ≥ ``success_level`` (exact law of
    :func:`mode_selection_success_probability`; RNM by quadrature)."""

    def success(gap: int) -> float:
        return mode_selection_success_probability(
            method,
            gap,
            n_bits=n_bits,
            epsilon_total=params["epsilon_total"],
            reference_delta=params["reference_delta"],
            n_records=params["n_records"],
            mode_share=params["mode_share"],
            layout=layout,
        )

    return smallest_integer_reaching(success, params["success_level"], _MAX_GAP)


@dataclass(frozen=True)
class _Instance:
    """One histogram of the sweep: grouped (values, multiplicities), the full counts, f(D), occ₁, occ₂ and 𝒟₀."""

    values: np.ndarray
    mult: np.ndarray
    counts: np.ndarray
    mode: int
    occ1: int
    occ2: int
    distance: int
    gap: int


def _instance(params: Mapping[str, Any], n_bits: int, gap: int, layout: str) -> _Instance:
    """The histogram of :func:`mode_histogram` at one gap, with its mode and distance to instability."""
    values, mult = mode_histogram(n_bits, params["n_records"], params["mode_share"], gap, layout)
    counts = np.repeat(values, mult)  # mode at index 0, runner-up at index 1 (ties go to index 0 = f(D))
    return _Instance(values, mult, counts, *mode_and_distance(counts), gap)


def _alg12_row(method: str, instance: _Instance, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
    """Algorithm 12 at ε = ε_tot/2 (2ε-DP, Theorem 6) with the variant's δ rule and ⊥ encoding, purified by
    Algorithm 2 with ε′ = ε: sampled and exact success, ⊥ rate and the purification parameters."""
    rule, bottom = alg12_variant(method)
    counts = instance.counts
    eps = params["epsilon_total"] / 2.0
    n_bits = code_bits(counts.size, bottom)
    log_delta = mode_release_log_delta(n_bits, eps, rule)
    out = pure_mode_release(counts, eps, params["trials"], rng, delta_rule=rule, bottom=bottom)
    if np.any((out < BOTTOM) | (out >= counts.size)) or (bottom == "uniform" and np.any(out == BOTTOM)):
        raise AssertionError(f"{method}: output outside the declared output space")
    return {
        "success_rate": float(np.mean(out == instance.mode)),
        "bottom_rate": float(np.mean(out == BOTTOM)),
        "success_exact": pure_mode_release_success_probability(
            instance.mode, instance.distance, counts.size, eps, delta_rule=rule, bottom=bottom
        ),
        "epsilon": eps,
        "epsilon_prime": eps,
        "log_delta": log_delta,
        "code_bits": n_bits,
        "omega": 2.0**-n_bits,
        "threshold": stability_threshold(eps, log_delta),
        "laplace_scale": discrete_purification_laplace_scale(n_bits, eps, log_delta),
        "flip_probability": bit_flip_probability(n_bits, eps, log_delta),
        "delta_rule": rule,
        "bottom": bottom,
        "pure": True,
    }


def _distance_row(method: str, instance: _Instance, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
    """The unpurified distance-to-instability release at ε_tot: ``distance_reference`` at δ_ref (⊥ a failure, not
    pure) or ``distance_uniform_bottom`` (⊥ replaced by a uniform item, δ calibrated so that it is pure)."""
    counts, mode, distance, eps_tot = instance.counts, instance.mode, instance.distance, params["epsilon_total"]
    uniform = method == "distance_uniform_bottom"
    log_delta = uniform_bottom_log_delta(eps_tot, counts.size) if uniform else math.log(params["reference_delta"])
    u = distance_to_instability(mode, distance, eps_tot, log_delta, params["trials"], rng)
    p_pass = float(pass_probability(distance, eps_tot, log_delta))
    if uniform:
        u = encode_bottom(u, counts.size, "uniform", rng)
    return {
        "success_rate": float(np.mean(u == mode)),
        "bottom_rate": float(np.mean(u == BOTTOM)),
        "success_exact": p_pass + (1 - p_pass) / counts.size if uniform else p_pass,
        "epsilon": eps_tot,
        "log_delta": log_delta,
        "threshold": stability_threshold(eps_tot, log_delta),
        "bottom": "uniform" if uniform else "failure",
        "pure": uniform,
    }


def _report_noisy_max_row(
    method: str, instance: _Instance, params: Mapping[str, Any], rng: np.random.Generator
) -> dict:
    """Report-noisy-max with Laplace(2/ε_tot) noise at ε_tot; its exact success by quadrature (NaN at gap 0)."""
    eps_tot = params["epsilon_total"]
    released = report_noisy_max_grouped(instance.values, instance.mult, eps_tot, params["trials"], rng)
    exact = (
        report_noisy_max_success_probability(instance.values, instance.mult, eps_tot) if instance.gap > 0 else math.nan
    )
    return {
        "success_rate": float(np.mean(released == 0)),
        "success_exact": exact,
        "epsilon": eps_tot,
        "laplace_scale": 2.0 / eps_tot,
        "pure": True,
    }


def _exponential_mechanism_row(
    method: str, instance: _Instance, params: Mapping[str, Any], rng: np.random.Generator
) -> dict:
    """The exponential mechanism on the counts (score sensitivity 1) at ε_tot, sampled and exact."""
    eps_tot = params["epsilon_total"]
    released = exponential_mechanism_selection(instance.counts, eps_tot, params["trials"], rng)
    log_probabilities = exponential_mechanism_log_probabilities(instance.counts, eps_tot, 1.0)
    return {
        "success_rate": float(np.mean(released == instance.mode)),
        "success_exact": float(np.exp(log_probabilities[instance.mode])),
        "epsilon": eps_tot,
        "pure": True,
    }


_SampledRow = Callable[[str, _Instance, Mapping[str, Any], np.random.Generator], dict]

#: The sweep's methods, in the order they draw from each replicate's generator, each with its row (sampled and
#: exact success, privacy parameters); a row function takes (method, instance, section, rng).
SAMPLED_METHODS: dict[str, _SampledRow] = {
    **dict.fromkeys(ALG12_VARIANTS, _alg12_row),
    "distance_reference": _distance_row,
    "distance_uniform_bottom": _distance_row,
    "report_noisy_max": _report_noisy_max_row,
    "exponential_mechanism": _exponential_mechanism_row,
}

#: Column order of ``ext_mode_release``.
MODE_RELEASE_COLUMNS = (
    "method",
    "pure",
    "layout",
    "bits",
    "universe_size",
    "gap",
    "job_seed",
    "replicate",
    "n_trials",
    "success_rate",
    "success_exact",
    "bottom_rate",
    "gap_at_level",
    "success_level",
    "epsilon_total",
    "epsilon",
    "epsilon_prime",
    "log_delta",
    "omega",
    "laplace_scale",
    "threshold",
    "code_bits",
    "flip_probability",
    "delta_rule",
    "bottom",
    "n_records",
    "occ1",
    "occ2",
    "distance",
    "adjacency",
)


def _cell_rows(params: Mapping[str, Any], seed: int, layout: str, n_bits: int) -> list[dict]:
    """Every (gap, replicate, method) row of one (layout, bits) cell; each replicate's methods share one generator
    seeded by (layout, bits, gap, replicate), drawn in the order of :data:`SAMPLED_METHODS`."""
    level_gap = {method: gap_at_level(method, n_bits, params, layout) for method in SAMPLED_METHODS}
    rows = []
    for gap in params["gaps"]:
        instance = _instance(params, n_bits, gap, layout)
        for s in range(params["seeds"]):
            rng = np.random.default_rng(derive_seed(seed, "mode_release", layout, n_bits, gap, s))
            identity = {
                "layout": layout,
                "bits": n_bits,
                "universe_size": 2**n_bits,
                "gap": gap,
                "job_seed": seed,
                "replicate": s,
                "n_trials": params["trials"],
                "n_records": int(instance.counts.sum()),
                "occ1": instance.occ1,
                "occ2": instance.occ2,
                "distance": instance.distance,
                "epsilon_total": params["epsilon_total"],
                "success_level": params["success_level"],
                "adjacency": ADJACENCY,
            }
            rows += [
                {"method": method, **identity, "gap_at_level": level_gap[method], **row(method, instance, params, rng)}
                for method, row in SAMPLED_METHODS.items()
            ]
    return rows


def compute_mode_release(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """``ext_mode_release``: one row per (method, bits, gap, replicate) with the success rate P(output = f(D)) over
    ``trials`` releases, its exact value where a closed form exists, the ⊥ rate, and the privacy parameters; plus
    ``gap_at_level`` (exact gap for success ≥ ``success_level``) per (method, bits)."""
    rows = []
    for layout, n_bits in progress([(layout, n_bits) for layout in params["layouts"] for n_bits in params["bits"]]):
        rows += _cell_rows(params, seed, layout, n_bits)
    return pd.DataFrame(rows).reindex(columns=list(MODE_RELEASE_COLUMNS))


# ------------------------------------------------------------------------------------------------- exact audit


def _release_rows(
    release: AuditedModeRelease, eps: float, n_bits: int, n_records: int, exhaustive: set[tuple[int, int, int, int]]
) -> list[dict]:
    """The exact pure ε of ``release`` on the reduced and on the exhaustive transitions, one row each."""
    rows = []
    for enumeration, transitions in (("reduced", release.reduced), ("exhaustive", exhaustive)):
        value, worst = max_pure_epsilon_over_transitions(transitions, release.pmf)
        rows.append(
            {
                "bits": n_bits,
                "universe_size": 2**n_bits,
                "treatment": release.treatment,
                "delta_rule": release.delta_rule,
                "bottom": release.bottom,
                "enumeration": enumeration,
                "n_records": n_records if enumeration == "exhaustive" else math.nan,
                "max_distance": release.max_distance if enumeration == "reduced" else math.nan,
                "n_transitions": len(transitions),
                "exhaustive_within_reduced": exhaustive <= release.reduced,
                "epsilon": eps,
                "code_bits": release.code_bits,
                "log_delta": release.log_delta,
                "threshold": stability_threshold(eps, release.log_delta),
                "epsilon_inf": value,
                "bound": release.bound,
                "within_bound": bool(value <= release.bound + 1e-9),
                "worst_transition": " ".join(map(str, worst)),
                "adjacency": ADJACENCY,
            }
        )
    return rows


def mode_release_audit(
    params: Mapping[str, Any], seed: int = 0, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """``ext_mode_release_audit``: exact pure ε (max log ratio of the exact output laws over neighbouring
    histograms) of Algorithm 12 (δ corrected / as printed × ⊥ uniform / reserved × Algorithm 2 geometry) against
    Theorem 6's 2ε, and of the unpurified u_apx with each ⊥ encoding.  Two enumerations: ``reduced`` (all
    (f, 𝒟₀) transitions of replace-one neighbours up to 𝒟₀ = ⌈T⌉ + 1 + extra_distance, any n) and ``exhaustive``
    (all histograms with ``exhaustive_records`` records and all their neighbours).  Deterministic."""
    audit = params["audit"]
    rows = []
    for n_bits, n_records in progress(list(zip(audit["bits"], audit["exhaustive_records"]))):
        size = 2**n_bits
        exhaustive = neighbour_transitions(size, n_records)
        releases = [
            release
            for rule in DELTA_RULES
            for bottom in BOTTOM_ENCODINGS
            for release in alg12_audited_releases(
                audit["epsilon"], size, rule, bottom, audit["geometries"], audit["extra_distance"]
            )
        ]
        releases.append(uniform_calibrated_release(audit["epsilon"], size, n_bits, audit["extra_distance"]))
        for release in releases:
            rows += _release_rows(release, audit["epsilon"], n_bits, n_records, exhaustive)
    return pd.DataFrame(rows)
