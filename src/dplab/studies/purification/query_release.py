"""Query release with purified MWEM (Algorithms 14–16, Theorem 8/13) against pure-DP baselines,
and an exact privacy audit of the whole pipeline on a tiny instance.

``query_release_sweep`` (artifact ``ext_query_release``): synthetic data from a product of Bernoulli(b_j),
b_j ~ U(bias_low, bias_high), drawn as a multinomial histogram over 𝒳 = {0,1}^d; K random half-subset queries or
3-way conjunctions; ℓ∞ error of the released answers.  One row per (method, parameter point, query family, replicate).
Methods (``pure`` says whether the released answers are (ε_tot, 0)-DP):

- ``alg16_purified``: Algorithm 16 at ε = ε_tot/2 (MWEM at ρ = ε²/(16 log(1/δ)), T from the fixed point, m records
  sampled, m·d bits purified by Algorithm 2 with ε′ = ε): 2ε = ε_tot-DP (Theorem 8).
- ``alg16_mwem_stage`` and ``alg16_sampled``: the same runs before sampling (Q(D̂)) and before purification (Q(Y)):
  (ε_tot/2, δ)-DP by Lemma 36; they separate the cost of the tiny δ from that of sampling and purification.
- ``mwem_reference``: MWEM at (ε_tot, δ = 1/n²) with Lemma 36's ρ and the same fixed-point T: not pure.
- ``pure_mwem``: MWEM by basic composition, ε_tot/(2T) per step, T our choice (``pure_mwem_rounds_fixed_point``).
- ``laplace_answers``: Laplace(K/(nε_tot)) on every normalised answer, clipped to [0, 1].
- ``laplace_histogram``: Laplace(1/ε_tot) on every count, clipped at 0, renormalised, queries answered on it.

MWEM-type methods cap T at ``max_rounds`` (``capped``; ρ and hence privacy unchanged, ε₀ = √(ρ/T) grows); the
fixed-point T of Algorithm 16 itself is never capped.  ``records_in_universe`` checks Algorithm 16's purified
records lie in [0, 2^d) (True by convention for methods that release no records); ``bits_flipped`` and ``mixed``
count what purification changed.
Adjacency: add/remove one record, n public (answers are counts/n).

``query_release_audit`` (artifact ``ext_query_release_audit``): exact pure ε of (i) pure MWEM's transcript and (ii)
Algorithm 16's purified bit output, on two neighbouring histograms of a tiny universe; see ``audit_rows``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.mwem_audit import algorithm16_sample_log_pmf, pure_mwem_transcript_epsilon
from dplab.audit.pure_epsilon import pure_epsilon_from_log_pmfs
from dplab.mechanisms.mwem import (
    Algorithm16Parameters,
    algorithm16_parameters,
    conjunction_queries,
    empirical_histograms,
    half_subset_queries,
    laplace_answers,
    laplace_histogram,
    lemma36_rho,
    linf_error,
    mwem,
    mwem_epsilon_approx,
    mwem_epsilon_pure_basic_composition,
    mwem_rounds_fixed_point,
    proportional_sampling,
    pure_mwem_rounds_fixed_point,
    purify_records,
    query_answers,
    record_bits_flipped,
    sample_histograms,
)
from dplab.mechanisms.purification import purified_bits_log_pmf
from dplab.seeding import derive_seed
from dplab.studies.purification.sections import SECTION_QUERY_RELEASE as SECTION
from dplab.workflow.registry import no_progress

__all__ = [
    "ADJACENCY",
    "query_release_job",
    "query_release_frame",
    "query_release_audit",
]

ADJACENCY = "add_remove (one record added or removed; n public, answers = counts/n)"


#: The query families of the sweep: K random half-subset queries or K random 3-way conjunctions over {0,1}^d.
WORKLOADS: dict[str, Callable[[int, int, np.random.Generator], np.ndarray]] = {
    "half_subsets": half_subset_queries,
    "conjunctions": conjunction_queries,
}


def _workload(family: str, d: int, k: int, seed: int) -> np.ndarray:
    """The workload of ``family`` (:data:`WORKLOADS`), seeded by (family, d, K)."""
    rng = np.random.default_rng(derive_seed(seed, SECTION, "workload", family, d, k))
    return WORKLOADS[family](d, k, rng)


def _data(section: Mapping[str, Any], n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(derive_seed(seed, SECTION, "data", n, d))
    bias = rng.uniform(section["bias_low"], section["bias_high"], size=(section["seeds"], d))
    return sample_histograms(n, bias, rng)


def _capped_rounds(fixed_point: float, cap: int) -> tuple[int, bool]:
    """T = max(1, round(fixed point)) capped at ``cap``, and whether the cap applied."""
    rounds = max(1, int(round(fixed_point)))
    return min(rounds, cap), rounds > cap


def _theorem8_rate(n: int, d: int, epsilon_total: float) -> float:
    """Theorem 8's ℓ∞ rate d^{1/3}/(n ε)^{1/3} at ε = ε_tot/2 (the log k factor and constants dropped)."""
    return d ** (1 / 3) / (n * epsilon_total / 2) ** (1 / 3)


_NAN = float("nan")

#: The bookkeeping columns every method reports; a method overrides the entries that apply to it.
_BLANK: dict[str, Any] = {
    "rounds": 0,
    "capped": False,
    "epsilon0": _NAN,
    "rho": _NAN,
    "log_delta": _NAN,
    "log_omega": _NAN,
    "epsilon_prime": _NAN,
    "laplace_scale": _NAN,
    "m": 0,
    "n_bits": 0,
    "bits_flipped": 0,
    "mixed": False,
    "epsilon_upstream_pure": _NAN,
    "epsilon_upstream_approx": _NAN,
}


@dataclass(frozen=True)
class _SweepPoint:
    """One sweep point and query family: the histograms (one row per replicate), the workload and its true answers."""

    n: int
    d: int
    k: int
    epsilon_total: float
    family: str
    seed: int
    max_rounds: int
    counts: np.ndarray
    queries: np.ndarray
    true_answers: np.ndarray

    def rng(self, method: str) -> np.random.Generator:
        """The generator of ``method`` at this point, derived from the point's identity."""
        identity = (self.n, self.d, self.k, self.epsilon_total, self.family)
        return np.random.default_rng(derive_seed(self.seed, SECTION, method, *identity))

    def error(self, weights: np.ndarray) -> np.ndarray:
        """ℓ∞ error, per replicate, of the workload's answers on the normalised histograms ``weights``."""
        return linf_error(query_answers(self.queries, weights), self.true_answers)


@dataclass(frozen=True)
class _MethodResult:
    """One method's errors (one per replicate) and bookkeeping (each value a scalar or an array with one entry per
    replicate)."""

    method: str
    pure: bool
    errors: np.ndarray
    extra: Mapping[str, Any]


def _sweep_point(section: Mapping[str, Any], point: Mapping[str, Any], family: str, seed: int) -> _SweepPoint:
    """The data and workload of one sweep point (both seeded by the point's identity)."""
    n, d, k = point["n"], point["d"], point["k"]
    counts = _data(section, n, d, seed)
    queries = _workload(family, d, k, seed)
    true_answers = query_answers(queries, counts / n)
    max_rounds = int(section["max_rounds"])
    return _SweepPoint(n, d, k, point["epsilon_total"], family, seed, max_rounds, counts, queries, true_answers)


def _algorithm16_bookkeeping(par: Algorithm16Parameters, epsilon: float) -> dict[str, Any]:
    """Algorithm 16's parameters at ε, with its MWEM stage's ε by basic composition and by Lemma 36 at its δ."""
    return {
        **_BLANK,
        "rounds": par.rounds,
        "epsilon0": par.epsilon0,
        "rho": par.rho,
        "log_delta": par.log_delta,
        "log_omega": par.log_omega,
        "epsilon_prime": epsilon,
        "laplace_scale": par.laplace_scale,
        "m": par.m,
        "n_bits": par.n_bits,
        "answer_noise_scale": par.answer_noise_scale,
        "epsilon_upstream_pure": mwem_epsilon_pure_basic_composition(par.rounds, par.epsilon0),
        "epsilon_upstream_approx": mwem_epsilon_approx(par.rounds, par.epsilon0, -par.log_delta),
    }


def _algorithm16(point: _SweepPoint) -> list[_MethodResult]:
    """Algorithm 16 at ε = ε_tot/2 (MWEM, Algorithm 15's m records, Algorithm 2 with ε′ = ε on their m·d bits:
    2ε = ε_tot-DP by Theorem 8) and its outputs before sampling and before purification; the fixed-point T is not
    capped (it is the algorithm under test)."""
    eps = point.epsilon_total / 2.0
    par = algorithm16_parameters(point.n, point.d, point.k, eps)
    rng = point.rng("alg16")
    run = mwem(point.counts, point.queries, point.n, par.rounds, par.epsilon0, rng)
    sampled = proportional_sampling(run.synthetic, par.m, rng)
    purified, mixed = purify_records(sampled, point.d, eps, par.log_delta, rng)
    n_cells = 2**point.d
    extra = _algorithm16_bookkeeping(par, eps)
    purified_extra = {
        **extra,
        "bits_flipped": record_bits_flipped(sampled, purified),
        "mixed": mixed,
        "records_in_universe": bool(np.all((purified >= 0) & (purified < n_cells))),
    }
    return [
        _MethodResult("alg16_mwem_stage", False, point.error(run.synthetic), extra),
        _MethodResult("alg16_sampled", False, point.error(empirical_histograms(sampled, n_cells)), extra),
        _MethodResult("alg16_purified", True, point.error(empirical_histograms(purified, n_cells)), purified_extra),
    ]


def _mwem_result(
    point: _SweepPoint, method: str, pure: bool, rounds: tuple[int, bool], epsilon0: float, **accounting: Any
) -> _MethodResult:
    """MWEM with (T, capped) = ``rounds`` and per-step ε₀, its answer noise 1/(n ε₀) and its ε by basic
    composition; ``accounting`` adds the method's other bookkeeping."""
    run = mwem(point.counts, point.queries, point.n, rounds[0], epsilon0, point.rng(method))
    extra = {
        **_BLANK,
        "rounds": rounds[0],
        "capped": rounds[1],
        "epsilon0": epsilon0,
        **accounting,
        "answer_noise_scale": 1.0 / (point.n * epsilon0),
        "epsilon_upstream_pure": mwem_epsilon_pure_basic_composition(rounds[0], epsilon0),
    }
    return _MethodResult(method, pure, point.error(run.synthetic), extra)


def _mwem_reference(point: _SweepPoint) -> list[_MethodResult]:
    """MWEM at (ε_tot, δ = 1/n²), ρ by Lemma 36 and ε₀ = √(ρ/T) at the fixed-point T: not pure."""
    log_inv_delta = 2.0 * math.log(point.n)
    rho = lemma36_rho(point.epsilon_total, log_inv_delta)
    fixed_point = mwem_rounds_fixed_point(point.n, point.d, point.k, point.epsilon_total, log_inv_delta)
    rounds = _capped_rounds(fixed_point, point.max_rounds)
    eps0 = math.sqrt(rho / rounds[0])
    approx = mwem_epsilon_approx(rounds[0], eps0, log_inv_delta)
    return [
        _mwem_result(
            point,
            "mwem_reference",
            False,
            rounds,
            eps0,
            rho=rho,
            log_delta=-log_inv_delta,
            epsilon_upstream_approx=approx,
        )
    ]


def _pure_mwem(point: _SweepPoint) -> list[_MethodResult]:
    """Pure MWEM by basic composition: ε₀ = ε_tot/(2T) per step, T from ``pure_mwem_rounds_fixed_point``."""
    fixed_point = pure_mwem_rounds_fixed_point(point.n, point.d, point.k, point.epsilon_total)
    rounds = _capped_rounds(fixed_point, point.max_rounds)
    return [_mwem_result(point, "pure_mwem", True, rounds, point.epsilon_total / (2.0 * rounds[0]))]


def _laplace_answers(point: _SweepPoint) -> list[_MethodResult]:
    """Laplace(K/(n ε_tot)) on every normalised answer, clipped to [0, 1]."""
    answers = laplace_answers(point.counts, point.queries, point.n, point.epsilon_total, point.rng("laplace_answers"))
    extra = {**_BLANK, "answer_noise_scale": point.k / (point.n * point.epsilon_total)}
    return [_MethodResult("laplace_answers", True, linf_error(answers, point.true_answers), extra)]


def _laplace_histogram(point: _SweepPoint) -> list[_MethodResult]:
    """Laplace(1/ε_tot) on every count, clipped at 0 and renormalised; the workload answered on it."""
    histogram = laplace_histogram(point.counts, point.epsilon_total, point.rng("laplace_histogram"))
    extra = {**_BLANK, "answer_noise_scale": 1.0 / (point.n * point.epsilon_total)}
    return [_MethodResult("laplace_histogram", True, point.error(histogram), extra)]


#: The sweep's methods in the order of their rows; each maps a sweep point to its results.
METHODS: dict[str, Callable[[_SweepPoint], list[_MethodResult]]] = {
    "alg16": _algorithm16,
    "mwem_reference": _mwem_reference,
    "pure_mwem": _pure_mwem,
    "laplace_answers": _laplace_answers,
    "laplace_histogram": _laplace_histogram,
}


def _result_rows(result: _MethodResult, common: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One tidy row per replicate of ``result``."""
    return [
        {
            "method": result.method,
            "pure": result.pure,
            "replicate": s,
            "error_linf": float(error),
            **common,
            **{key: (value[s] if isinstance(value, np.ndarray) else value) for key, value in result.extra.items()},
        }
        for s, error in enumerate(result.errors)
    ]


def _point_rows(section: Mapping[str, Any], point: Mapping[str, Any], family: str, seed: int) -> list[dict[str, Any]]:
    """Every method's rows (:data:`METHODS`) at one sweep point and query family."""
    sweep_point = _sweep_point(section, point, family, seed)
    rate = _theorem8_rate(point["n"], point["d"], point["epsilon_total"])
    common = {**point, "query_family": family, "adjacency": ADJACENCY, "rate_theorem8": rate}
    results = [result for method in METHODS.values() for result in method(sweep_point)]
    return [row for result in results for row in _result_rows(result, common)]


def query_release_job(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]], job: Mapping[str, Any]
) -> pd.DataFrame:
    """ℓ∞ query-release error of every method and replicate at one sweep point and query family (tidy, one row each)."""
    point = {key: value for key, value in job.items() if key != "family"}
    return pd.DataFrame(_point_rows(params, point, job["family"], seed))


def query_release_frame(rows: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """The sweep's frame from the rows of every job: ``records_in_universe`` applies to the sampled methods only
    and is true for the others."""
    return rows.assign(records_in_universe=rows["records_in_universe"].fillna(True).astype(bool))


# --------------------------------------------------------------------------------------------------------------------
# Exact audit on a tiny instance (artifact ext_query_release_audit)
# --------------------------------------------------------------------------------------------------------------------


def _audit_instance(section: Mapping[str, Any], seed: int) -> tuple[np.ndarray, np.ndarray]:
    audit = section["audit"]
    rng = np.random.default_rng(derive_seed(seed, SECTION, "audit"))
    n_cells = 2 ** audit["d"]
    counts = rng.multinomial(audit["n"], np.full(n_cells, 1.0 / n_cells)).astype(float)[None, :]
    return counts, half_subset_queries(audit["d"], audit["k"], rng)


@dataclass(frozen=True)
class _AuditSetup:
    """The tiny instance of the exact audit and the parameters of both audited mechanisms."""

    counts: np.ndarray
    queries: np.ndarray
    common: Mapping[str, Any]
    grid_points: int
    halfwidth: float
    pure_rounds: int
    pure_epsilon0: float
    alg16: Algorithm16Parameters
    alg16_epsilon0: float
    alg16_columns: Mapping[str, Any]


def _audit_setup(params: Mapping[str, Any], seed: int) -> _AuditSetup:
    """Pure MWEM at ε₀ = ε_tot/(2T); Algorithm 16 at ε = ε_tot/2 with m records and T = ``alg16_rounds``, ε₀ = √(ρ/T)."""
    audit = params["audit"]
    counts, queries = _audit_instance(params, seed)
    n, d, k, eps_tot = audit["n"], audit["d"], audit["k"], audit["epsilon_total"]
    rounds = audit["pure_mwem_rounds"]
    eps = eps_tot / 2.0
    par = algorithm16_parameters(n, d, k, eps, m=audit["alg16_m"])
    a16_rounds = audit["alg16_rounds"]
    a16_eps0 = math.sqrt(par.rho / a16_rounds)
    alg16_columns = {
        "rounds": a16_rounds,
        "epsilon0": a16_eps0,
        "log_delta": par.log_delta,
        "log_omega": par.log_omega,
        "laplace_scale": par.laplace_scale,
        "epsilon_prime": eps,
        "m": par.m,
        "n_bits": par.n_bits,
        "bound_effective": mwem_epsilon_pure_basic_composition(a16_rounds - 1, a16_eps0),
    }
    common = {"d": d, "n": n, "k": k, "epsilon_total": eps_tot, "adjacency": ADJACENCY}
    grid, width = audit["n_measurement_points"], audit["measurement_halfwidth"]
    return _AuditSetup(
        counts, queries, common, grid, width, rounds, eps_tot / (2.0 * rounds), par, a16_eps0, alg16_columns
    )


def _alg16_log_pmfs(setup: _AuditSetup, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log P(Y = y) of Algorithm 16's sampled records on ``counts``, and of their purified bits (Algorithm 2)."""
    n = setup.common["n"]
    log_y = algorithm16_sample_log_pmf(counts, setup.queries, n, setup.alg16_epsilon0, setup.alg16.m, setup.grid_points)
    return log_y, purified_bits_log_pmf(log_y, setup.alg16.n_bits, setup.alg16.laplace_scale)


def _transcript_row(setup: _AuditSetup, neighbour: np.ndarray, cell: int) -> dict[str, Any]:
    """Pure MWEM's transcript ε against one neighbour, both directions; bound ε_tot by basic composition and the
    effective 2(T−1)ε₀."""
    n, eps0 = setup.common["n"], setup.pure_epsilon0
    rest = (setup.queries, n, setup.pure_rounds, eps0, setup.grid_points, setup.halfwidth)
    transcript = max(
        pure_mwem_transcript_epsilon(setup.counts, neighbour, *rest),
        pure_mwem_transcript_epsilon(neighbour, setup.counts, *rest),
    )
    return {
        **setup.common,
        "mechanism": "pure_mwem_transcript",
        "neighbour_cell": cell,
        "rounds": setup.pure_rounds,
        "epsilon0": eps0,
        "epsilon_inf": transcript,
        "bound": setup.common["epsilon_total"],
        "bound_effective": mwem_epsilon_pure_basic_composition(setup.pure_rounds - 1, eps0),
        "log_delta": _NAN,
        "log_omega": _NAN,
        "laplace_scale": _NAN,
        "epsilon_prime": _NAN,
        "m": 0,
        "n_bits": 0,
    }


def _alg16_rows(
    setup: _AuditSetup, reference: tuple[np.ndarray, np.ndarray], neighbour: np.ndarray, cell: int
) -> list[dict[str, Any]]:
    """Algorithm 16's sampled records (no bound) and purified output (bound 2ε = ε_tot, Theorem 8) against one
    neighbour; ``reference`` holds the log pmfs on the instance itself."""
    rows = []
    for mechanism, log_pmf, log_pmf_neighbour, bound in zip(
        ("alg16_sampled_unpurified", "alg16_purified"),
        reference,
        _alg16_log_pmfs(setup, neighbour),
        (float("inf"), 2.0 * setup.alg16_columns["epsilon_prime"]),
    ):
        epsilon_inf = pure_epsilon_from_log_pmfs(log_pmf, log_pmf_neighbour)
        rows.append(
            {
                **setup.common,
                **setup.alg16_columns,
                "mechanism": mechanism,
                "neighbour_cell": cell,
                "epsilon_inf": epsilon_inf,
                "bound": bound,
            }
        )
    return rows


def query_release_audit(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """Exact pure ε on a tiny instance, for every neighbour D' = D + e_x (x over all cells; both directions, so
    removal is covered), n public.  Rows: pure MWEM's transcript (bound ε_tot by basic composition, and the
    effective 2(T−1)ε₀); Algorithm 16's sampled records Y before purification and its purified output (bound
    2ε = ε_tot, Theorem 8), with the parameters Algorithm 16 prescribes for m records (ρ = ε²/(16 log(1/δ)),
    δ at Theorem 2's threshold for md bits) and T = 2."""
    setup = _audit_setup(params, seed)
    reference = _alg16_log_pmfs(setup, setup.counts)
    rows = []
    for cell in progress(range(setup.counts.shape[1])):
        neighbour = setup.counts.copy()
        neighbour[0, cell] += 1.0
        rows += [_transcript_row(setup, neighbour, cell), *_alg16_rows(setup, reference, neighbour, cell)]
    frame = pd.DataFrame(rows)
    frame["within_bound"] = frame["epsilon_inf"] <= frame["bound"] + 1e-9
    return frame
