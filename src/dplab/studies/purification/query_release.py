"""Query release with purified MWEM (Algorithms 14–16, Theorem 8/13) against pure-DP baselines,
and an exact privacy audit of the whole pipeline on a tiny instance.

``query_release_sweep`` (artifact ``ext_query_release``): synthetic data from a product of Bernoulli(b_j),
b_j ~ U(bias_low, bias_high), drawn as a multinomial histogram over 𝒳 = {0,1}^d; K random half-subset queries or
3-way conjunctions; ℓ∞ error of the released answers.  One row per (method, parameter point, query family, seed).
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
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.pure_epsilon import pure_epsilon_from_log_pmfs
from dplab.distributions import Laplace
from dplab.mechanisms.exponential import exponential_mechanism_log_probabilities
from dplab.mechanisms.mwem import (
    algorithm16_parameters,
    conjunction_queries,
    half_subset_queries,
    laplace_answers,
    laplace_histogram,
    lemma36_rho,
    linf_error,
    multiplicative_weights_update,
    mwem,
    mwem_epsilon_approx,
    mwem_epsilon_pure_basic_composition,
    mwem_rounds_fixed_point,
    proportional_sampling,
    pure_mwem_rounds_fixed_point,
    purify_records,
    query_answers,
    sample_histograms,
)
from dplab.mechanisms.purification import purified_bits_log_pmf
from dplab.seeding import derive_seed
from dplab.studies.purification.sections import SECTION_QUERY_RELEASE as SECTION
from dplab.studies.registry import no_progress

__all__ = [
    "ADJACENCY",
    "sweep_points",
    "query_release_job",
    "query_release_jobs",
    "query_release_frame",
    "query_release_audit",
    "pure_mwem_transcript_epsilon",
    "algorithm16_sample_log_pmf",
]

ADJACENCY = "add_remove (one record added or removed; n public, answers = counts/n)"


def sweep_points(section: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The union of the one-at-a-time sweeps around ``base``, each point with in_<key>_sweep flags."""
    base = section["base"]
    points: dict[tuple, dict[str, Any]] = {}
    for key, values in (
        ("n", section["n_sweep"]),
        ("d", section["d_sweep"]),
        ("k", section["k_sweep"]),
        ("epsilon_total", section["epsilon_sweep"]),
    ):
        for value in values:
            point = {**base, key: value}
            ident = (int(point["n"]), int(point["d"]), int(point["k"]), float(point["epsilon_total"]))
            entry = points.setdefault(
                ident,
                {
                    "n": ident[0],
                    "d": ident[1],
                    "k": ident[2],
                    "epsilon_total": ident[3],
                    **{f"in_{s}_sweep": False for s in ("n", "d", "k", "epsilon")},
                },
            )
            entry[f"in_{'epsilon' if key == 'epsilon_total' else key}_sweep"] = True
    return list(points.values())


def _workload(family: str, d: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(derive_seed(seed, SECTION, "workload", family, d, k))
    return half_subset_queries(d, k, rng) if family == "half_subsets" else conjunction_queries(d, k, rng)


def _data(section: Mapping[str, Any], n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(derive_seed(seed, SECTION, "data", n, d))
    bias = rng.uniform(section["bias_low"], section["bias_high"], size=(section["seeds"], d))
    return sample_histograms(n, bias, rng)


def _capped_rounds(fixed_point: float, cap: int) -> tuple[int, bool]:
    rounds = max(1, int(round(fixed_point)))
    return min(rounds, cap), rounds > cap


def _point_rows(section: Mapping[str, Any], point: Mapping[str, Any], family: str, seed: int) -> list[dict[str, Any]]:
    n, d, k, eps_tot = point["n"], point["d"], point["k"], point["epsilon_total"]
    counts = _data(section, n, d, seed)
    queries = _workload(family, d, k, seed)
    true = query_answers(queries, counts / n)
    runs = counts.shape[0]
    cap = int(section["max_rounds"])
    rate = d ** (1 / 3) / (n * eps_tot / 2) ** (1 / 3)
    common = {**point, "query_family": family, "adjacency": ADJACENCY, "rate_theorem8": rate}
    rows: list[dict[str, Any]] = []

    def rng_for(method: str) -> np.random.Generator:
        return np.random.default_rng(derive_seed(seed, SECTION, method, n, d, k, eps_tot, family))

    def emit(method: str, pure: bool, errors: np.ndarray, **extra: Any) -> None:
        for s in range(runs):
            rows.append(
                {
                    "method": method,
                    "pure": pure,
                    "seed": s,
                    "error_linf": float(errors[s]),
                    **common,
                    **{key: (value[s] if isinstance(value, np.ndarray) else value) for key, value in extra.items()},
                }
            )

    nan = float("nan")
    blank = {
        "rounds": 0,
        "capped": False,
        "epsilon0": nan,
        "rho": nan,
        "log_delta": nan,
        "log_omega": nan,
        "epsilon_prime": nan,
        "laplace_scale": nan,
        "m": 0,
        "n_bits": 0,
        "bits_flipped": 0,
        "mixed": False,
        "epsilon_upstream_pure": nan,
        "epsilon_upstream_approx": nan,
    }

    # Algorithm 16 at eps = eps_tot / 2 (the fixed-point T is not capped: it is the algorithm under test).
    eps = eps_tot / 2.0
    par = algorithm16_parameters(n, d, k, eps)
    rng = rng_for("alg16")
    run = mwem(counts, queries, n, par.rounds, par.epsilon0, rng)
    sampled = proportional_sampling(run.synthetic, par.m, rng)
    purified, mixed = purify_records(sampled, d, eps, par.log_delta, rng)
    flipped = np.array([int(np.sum(np.bitwise_count(np.bitwise_xor(a, b)))) for a, b in zip(sampled, purified)])
    alg16 = {
        **blank,
        "rounds": par.rounds,
        "epsilon0": par.epsilon0,
        "rho": par.rho,
        "log_delta": par.log_delta,
        "log_omega": par.log_omega,
        "epsilon_prime": eps,
        "laplace_scale": par.laplace_scale,
        "m": par.m,
        "n_bits": par.n_bits,
        "answer_noise_scale": par.answer_noise_scale,
        "epsilon_upstream_pure": mwem_epsilon_pure_basic_composition(par.rounds, par.epsilon0),
        "epsilon_upstream_approx": mwem_epsilon_approx(par.rounds, par.epsilon0, -par.log_delta),
    }
    n_cells = 2**d

    def empirical(records: np.ndarray) -> np.ndarray:
        return np.stack([np.bincount(r, minlength=n_cells) for r in records]) / records.shape[1]

    emit("alg16_mwem_stage", False, linf_error(query_answers(queries, run.synthetic), true), **alg16)
    emit("alg16_sampled", False, linf_error(query_answers(queries, empirical(sampled)), true), **alg16)
    emit(
        "alg16_purified",
        True,
        linf_error(query_answers(queries, empirical(purified)), true),
        **{
            **alg16,
            "bits_flipped": flipped,
            "mixed": mixed,
            "records_in_universe": bool(np.all((purified >= 0) & (purified < n_cells))),
        },
    )

    # MWEM at (eps_tot, 1/n^2): not pure.
    log_inv_delta = 2.0 * math.log(n)
    rho = lemma36_rho(eps_tot, log_inv_delta)
    rounds, capped = _capped_rounds(mwem_rounds_fixed_point(n, d, k, eps_tot, log_inv_delta), cap)
    eps0 = math.sqrt(rho / rounds)
    run = mwem(counts, queries, n, rounds, eps0, rng_for("mwem_reference"))
    emit(
        "mwem_reference",
        False,
        linf_error(query_answers(queries, run.synthetic), true),
        **{
            **blank,
            "rounds": rounds,
            "capped": capped,
            "epsilon0": eps0,
            "rho": rho,
            "log_delta": -log_inv_delta,
            "answer_noise_scale": 1.0 / (n * eps0),
            "epsilon_upstream_pure": mwem_epsilon_pure_basic_composition(rounds, eps0),
            "epsilon_upstream_approx": mwem_epsilon_approx(rounds, eps0, log_inv_delta),
        },
    )

    # Pure MWEM by basic composition.
    rounds, capped = _capped_rounds(pure_mwem_rounds_fixed_point(n, d, k, eps_tot), cap)
    eps0 = eps_tot / (2.0 * rounds)
    run = mwem(counts, queries, n, rounds, eps0, rng_for("pure_mwem"))
    emit(
        "pure_mwem",
        True,
        linf_error(query_answers(queries, run.synthetic), true),
        **{
            **blank,
            "rounds": rounds,
            "capped": capped,
            "epsilon0": eps0,
            "answer_noise_scale": 1.0 / (n * eps0),
            "epsilon_upstream_pure": mwem_epsilon_pure_basic_composition(rounds, eps0),
        },
    )

    emit(
        "laplace_answers",
        True,
        linf_error(laplace_answers(counts, queries, n, eps_tot, rng_for("laplace_answers")), true),
        **{**blank, "answer_noise_scale": k / (n * eps_tot)},
    )
    emit(
        "laplace_histogram",
        True,
        linf_error(query_answers(queries, laplace_histogram(counts, eps_tot, rng_for("laplace_histogram"))), true),
        **{**blank, "answer_noise_scale": 1.0 / (n * eps_tot)},
    )
    return rows


def query_release_jobs(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep's points: every sweep point (:func:`sweep_points`) for every query family."""
    return [{**point, "family": family} for point in sweep_points(params) for family in params["query_families"]]


def query_release_job(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]], job: Mapping[str, Any]
) -> pd.DataFrame:
    """ℓ∞ query-release error of every method and seed at one sweep point and query family (tidy, one row each)."""
    point = {key: value for key, value in job.items() if key != "family"}
    return pd.DataFrame(_point_rows(params, point, job["family"], seed))


def query_release_frame(rows: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """The sweep's frame from the rows of every job: ``records_in_universe`` applies to the sampled methods only
    and is true for the others."""
    return rows.assign(records_in_universe=rows["records_in_universe"].fillna(True).astype(bool))


# --------------------------------------------------------------------------------------------------------------------
# Exact audit on a tiny instance (artifact ext_query_release_audit)
# --------------------------------------------------------------------------------------------------------------------


def _laplace_quantiles(points: int, scale: float) -> np.ndarray:
    """Laplace(scale) quantiles at the midpoints u = (i + ½)/points (midpoint rule in the CDF variable)."""
    return Laplace(scale).quantile((np.arange(points) + 0.5) / points)


def pure_mwem_transcript_epsilon(
    counts_a: np.ndarray,
    counts_b: np.ndarray,
    queries: np.ndarray,
    n: float,
    rounds: int,
    epsilon0: float,
    grid_points: int,
    halfwidth: float,
) -> float:
    """sup over transcripts τ = (q_1, m_1, …, q_{T−1}, m_{T−1}) of log p_a(τ)/p_b(τ) for MWEM with per-step ε₀ (T ∈
    {2, 3}).  The printed output (1/T)Σ_{t<T} p_t is a function of τ (round T's draws are never used), so this
    upper-bounds the output's D∞(a‖b), with equality where that map is injective.  Exact except for the sup over
    m_1 (T = 3), taken on a grid of ``grid_points`` within ±``halfwidth`` Laplace scales of the true answer plus
    the two true answers; the last measurement's sup over m is closed-form, n ε₀ |a_k − b_k|."""
    if rounds not in (2, 3):
        raise ValueError(f"rounds={rounds!r} must be 2 or 3 for the exact transcript audit")
    a = query_answers(queries, counts_a / n)[0]
    b = query_answers(queries, counts_b / n)[0]
    n_cells = queries.shape[1]
    log_p0 = np.full(n_cells, -math.log(n_cells))
    last = n * epsilon0 * np.abs(a - b)

    def em_ratio(log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        current = np.exp(log_p) @ queries.T
        return (
            exponential_mechanism_log_probabilities(np.abs(current - a), epsilon0, 1.0 / n)
            - exponential_mechanism_log_probabilities(np.abs(current - b), epsilon0, 1.0 / n)
        ), current

    first, current0 = em_ratio(log_p0)
    if rounds == 2:
        return float(np.max(first + last))
    best = -math.inf
    scale = 1.0 / (n * epsilon0)
    for k in range(queries.shape[0]):
        m = np.concatenate([a[k] + scale * np.linspace(-halfwidth, halfwidth, grid_points), [a[k], b[k]]])
        lap = n * epsilon0 * (np.abs(m - b[k]) - np.abs(m - a[k]))
        log_p1 = multiplicative_weights_update(np.broadcast_to(log_p0, (m.size, n_cells)), queries[k], m, current0[k])
        second, _ = em_ratio(log_p1)
        best = max(best, float(np.max(first[k] + lap + np.max(second + last, axis=-1))))
    return best


def algorithm16_sample_log_pmf(
    counts: np.ndarray, queries: np.ndarray, n: float, epsilon0: float, m_records: int, grid_points: int
) -> np.ndarray:
    """log P(Y = y) for Algorithm 16 with T = 2 rounds (so D̂/n = (p₀ + p₁)/2 depends on (q₁, m₁) only) followed by
    Algorithm 15 with m records; y indexes 𝒳^m as Σ_i y_i N^{m−1−i}, i.e. the m·d-bit code of purify_records.
    P(y) = Σ_k P_EM(k) E_{m₁}[Π_i D̂(y_i)/n], the expectation over m₁ = a_k + Lap(1/(nε₀)) by the midpoint rule in
    the CDF variable (``grid_points`` nodes)."""
    a = query_answers(queries, counts / n)[0]
    n_cells = queries.shape[1]
    p0 = np.full(n_cells, 1.0 / n_cells)
    current0 = queries @ p0
    log_em = exponential_mechanism_log_probabilities(np.abs(current0 - a), epsilon0, 1.0 / n)
    noise = _laplace_quantiles(grid_points, 1.0 / (n * epsilon0))
    total = np.zeros(n_cells**m_records)
    for k in range(queries.shape[0]):
        log_p1 = multiplicative_weights_update(
            np.broadcast_to(np.log(p0), (grid_points, n_cells)), queries[k], a[k] + noise, current0[k]
        )
        synthetic = (p0 + np.exp(log_p1)) / 2.0
        tuples = synthetic
        for _ in range(m_records - 1):
            tuples = (tuples[:, :, None] * synthetic[:, None, :]).reshape(grid_points, -1)
        total += math.exp(log_em[k]) * tuples.mean(axis=0)
    return np.log(total)


def _audit_instance(section: Mapping[str, Any], seed: int) -> tuple[np.ndarray, np.ndarray]:
    audit = section["audit"]
    rng = np.random.default_rng(derive_seed(seed, SECTION, "audit"))
    n_cells = 2 ** audit["d"]
    counts = rng.multinomial(audit["n"], np.full(n_cells, 1.0 / n_cells)).astype(float)[None, :]
    return counts, half_subset_queries(audit["d"], audit["k"], rng)


def query_release_audit(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """Exact pure ε on a tiny instance, for every neighbour D' = D + e_x (x over all cells; both directions, so
    removal is covered), n public.  Rows: pure MWEM's transcript (bound ε_tot by basic composition, and the
    effective 2(T−1)ε₀); Algorithm 16's sampled records Y before purification and its purified output (bound
    2ε = ε_tot, Theorem 8), with the parameters Algorithm 16 prescribes for m records (ρ = ε²/(16 log(1/δ)),
    δ at Theorem 2's threshold for md bits) and T = 2."""
    audit = params["audit"]
    counts, queries = _audit_instance(params, seed)
    n, d, k, eps_tot = audit["n"], audit["d"], audit["k"], audit["epsilon_total"]
    n_cells = 2**d
    grid, width = audit["n_measurement_points"], audit["measurement_halfwidth"]
    rounds = audit["pure_mwem_rounds"]
    eps0 = eps_tot / (2.0 * rounds)
    eps = eps_tot / 2.0
    par = algorithm16_parameters(n, d, k, eps, m=audit["alg16_m"])
    a16_rounds = audit["alg16_rounds"]
    a16_eps0 = math.sqrt(par.rho / a16_rounds)
    log_y = algorithm16_sample_log_pmf(counts, queries, n, a16_eps0, par.m, grid)
    log_pure = purified_bits_log_pmf(log_y, par.n_bits, par.laplace_scale)
    common = {"d": d, "n": n, "k": k, "epsilon_total": eps_tot, "adjacency": ADJACENCY}
    rows = []
    for cell in progress(range(n_cells)):
        neighbour = counts.copy()
        neighbour[0, cell] += 1.0
        transcript = max(
            pure_mwem_transcript_epsilon(counts, neighbour, queries, n, rounds, eps0, grid, width),
            pure_mwem_transcript_epsilon(neighbour, counts, queries, n, rounds, eps0, grid, width),
        )
        rows.append(
            {
                **common,
                "mechanism": "pure_mwem_transcript",
                "neighbour_cell": cell,
                "rounds": rounds,
                "epsilon0": eps0,
                "epsilon_inf": transcript,
                "bound": eps_tot,
                "bound_effective": mwem_epsilon_pure_basic_composition(rounds - 1, eps0),
                "log_delta": float("nan"),
                "log_omega": float("nan"),
                "laplace_scale": float("nan"),
                "epsilon_prime": float("nan"),
                "m": 0,
                "n_bits": 0,
            }
        )
        log_y_nb = algorithm16_sample_log_pmf(neighbour, queries, n, a16_eps0, par.m, grid)
        log_pure_nb = purified_bits_log_pmf(log_y_nb, par.n_bits, par.laplace_scale)
        alg16 = {
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
        rows.append(
            {
                **common,
                **alg16,
                "mechanism": "alg16_sampled_unpurified",
                "neighbour_cell": cell,
                "epsilon_inf": pure_epsilon_from_log_pmfs(log_y, log_y_nb),
                "bound": float("inf"),
            }
        )
        rows.append(
            {
                **common,
                **alg16,
                "mechanism": "alg16_purified",
                "neighbour_cell": cell,
                "epsilon_inf": pure_epsilon_from_log_pmfs(log_pure, log_pure_nb),
                "bound": 2.0 * eps,
            }
        )
    frame = pd.DataFrame(rows)
    frame["within_bound"] = frame["epsilon_inf"] <= frame["bound"] + 1e-9
    return frame
