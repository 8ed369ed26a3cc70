"""(6b) The purification study's query release (MWEM, Algorithm 14, in ``ext_query_release``) and linear regression
(AdaSSP and Algorithm 13, in ``ext_linear_regression``) as pipeline kernels of :mod:`benchmarks.kernels`: rows of the
same kernels table, timed, counted and rated against the same 2048³ float32 matmul of the run.

Kernels (cases):

- ``mwem_round_<d>_<K>``: MWEM rounds of 20 replicates (:func:`dplab.mechanisms.mwem.mwem`) on n = 10⁵ records, at
  (d, K) = (8, 100) (the base point), (8, 1000) and (10, 100). A step is one round; a point is the reference MWEM's
  run at that shape (ε_tot = 2, δ = 1/n², T the capped fixed point of ``mwem_rounds_fixed_point``, ε₀ = √(ρ/T), as
  :mod:`dplab.studies.purification.query_release`). FLOPs: the product p·Qᵀ, 2·runs·2^d·K a round. Floor: that
  product alone, the round's noise alone (Gumbel (runs, K) and Laplace (runs,), drawn in blocks from the same
  stream) and numpy's per-call dispatch (the same rounds on a 4-cell, 2-query instance, where the arithmetic is nil).
- ``query_release_point_<case>``: one point of ``ext_query_release`` in the full configuration (every method, 20
  replicates), the cheapest (n = 10⁴) and the base point (n = 10⁵); a step is the point. FLOPs: 2·runs·N·K per round
  of every MWEM run of the point; floor: those products alone.
- ``linear_regression_point_<case>``: one point of ``ext_linear_regression`` (a data set, its sufficient statistics,
  every method at every ε, 50 draws each), n = 10⁴, d = 10 and n = 10⁵, d = 20. FLOPs: the data's rotation z·rootᵀ
  and XᵀX, 4nd²; floor: those two products alone.

GFLOP/s counts the dense products only; the rest is transcendental functions, random numbers (drawn from the same
streams as the pipeline, so that its rows stay byte-identical) and dispatch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from benchmarks.kernels import Kernel, elapsed_seconds
from dplab.mechanisms.mwem import (
    _mwem_round_noise,
    half_subset_queries,
    lemma36_rho,
    mwem,
    mwem_rounds_fixed_point,
    sample_histograms,
)
from dplab.workflow.registry import load_study, no_progress, resolve

__all__ = ["release_kernels"]

RUNS = 20  # replicates of ext_query_release (config.yaml: purification.query_release.seeds)
MWEM_N, MWEM_EPSILON_TOTAL = 100_000, 2.0
MWEM_SHAPES = {"d8_k100": (8, 100), "d8_k1000": (8, 1000), "d10_k100": (10, 100)}
QUERY_RELEASE_POINTS = {"n1e4_d8_k100": 0, "n1e5_d8_k100": 2}  # indices into the full configuration's sweep
REGRESSION_POINTS = {"n1e4_d10": (10_000, 10), "n1e5_d20": (100_000, 20)}


def _mwem_instance(d: int, k: int, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Histograms of n = 10⁵ product-Bernoulli records (one per replicate) and K half-subset queries on {0,1}^d."""
    rng = np.random.default_rng(0)
    return sample_histograms(MWEM_N, rng.uniform(0.1, 0.9, (runs, d)), rng), half_subset_queries(d, k, rng)


def _reference_rounds(d: int, k: int, max_rounds: int) -> tuple[int, float]:
    """The reference MWEM's T (the fixed point, rounded, capped at ``max_rounds``) and ε₀ = √(ρ/T) at (d, K)."""
    log_inv_delta = 2.0 * math.log(MWEM_N)
    fixed_point = mwem_rounds_fixed_point(MWEM_N, d, k, MWEM_EPSILON_TOTAL, log_inv_delta)
    rounds = min(max(1, int(round(fixed_point))), max_rounds)
    return rounds, math.sqrt(lemma36_rho(MWEM_EPSILON_TOTAL, log_inv_delta) / rounds)


def _mwem_parts(d: int, k: int, epsilon0: float) -> dict[str, Callable[[int], object]]:
    """``rounds`` rounds of MWEM at (d, K) and of the parts that bound it: its product p·Qᵀ, its noise, and the
    dispatch alone (the rounds on a 4-cell, 2-query instance)."""
    counts, queries = _mwem_instance(d, k, RUNS)
    tiny_counts, tiny_queries = _mwem_instance(2, 2, 1)
    p = counts / counts.sum(axis=1, keepdims=True)
    queries_t = np.ascontiguousarray(queries.T)
    current = np.empty((RUNS, k))

    def product(rounds: int) -> None:
        for _ in range(rounds):
            np.matmul(p, queries_t, out=current)

    def noise(rounds: int) -> list[None]:
        return [None for _ in _mwem_round_noise(np.random.default_rng(1), rounds, RUNS, k, 1 / (MWEM_N * epsilon0))]

    return {
        "kernel": lambda rounds: mwem(counts, queries, MWEM_N, rounds, epsilon0, np.random.default_rng(1)),
        "product": product,
        "noise": noise,
        "dispatch": lambda rounds: mwem(tiny_counts, tiny_queries, MWEM_N, rounds, epsilon0, np.random.default_rng(1)),
    }


def _mwem_kernel(case: str, d: int, k: int, max_rounds: int) -> Kernel:
    rounds, epsilon0 = _reference_rounds(d, k, max_rounds)
    parts = _mwem_parts(d, k, epsilon0)

    def floor(count: int) -> float:
        return sum(elapsed_seconds(lambda part=part: parts[part](count)) for part in ("product", "noise", "dispatch"))

    return Kernel(
        f"mwem_round_{case}",
        rounds,
        2.0 * RUNS * 2**d * k,
        parts["kernel"],
        "product p·Qᵀ, noise draws and numpy dispatch (a 4-cell round)",
        floor,
    )


def _products_seconds(shapes: list[tuple[tuple[int, int], tuple[int, int]]], repeats: list[int]) -> float:
    """Seconds of ``repeats[i]`` float64 products of random matrices of ``shapes[i]`` (left, right)."""
    rng = np.random.default_rng(0)
    total = 0.0
    for (left, right), count in zip(shapes, repeats):
        a, b = rng.random(left), rng.random(right)
        total += elapsed_seconds(lambda a=a, b=b, count=count: [a @ b for _ in range(count)])
    return total


def _point_kernel(
    artifact_id: str,
    name: str,
    point: Mapping[str, Any] | int,
    section: Mapping[str, Any],
    base_seed: int,
    flop_and_floor: Callable[[Mapping[str, Any], Any], tuple[float, Callable[[], float]]],
) -> Kernel:
    """A whole point of ``artifact_id`` (full configuration; ``point``: a sweep index or a point) as a one-step
    kernel; ``flop_and_floor(point, frame)`` gives its dense FLOPs and a function timing those products alone."""
    artifact = load_study("purification").artifact(artifact_id)
    params, seed = artifact.params(section), artifact.seed(base_seed, "purification")
    point = artifact.sweep(params)[point] if isinstance(point, int) else point
    compute = resolve(artifact.compute)
    flop, floor = flop_and_floor(point, compute(params, seed, no_progress, point))

    def run(count: int) -> object:
        return [compute(params, seed, no_progress, point) for _ in range(count)]

    return Kernel(name, 1, flop, run, "its dense products alone", lambda count: count * floor())


def _query_release_flop(point: Mapping[str, Any], frame: Any) -> tuple[float, Callable[[], float]]:
    """2·runs·N·K per round of every MWEM run of the point (Algorithm 16's, the reference's, pure MWEM's), with
    the rounds and replicates of its rows; the floor: those products, (runs, N)·(N, K), alone."""
    runs = frame[frame["method"].isin(["alg16_mwem_stage", "mwem_reference", "pure_mwem"])]
    rounds = int(runs.groupby("method")["rounds"].first().sum())
    replicates, cells, k = runs["replicate"].nunique(), 2 ** point["d"], point["k"]
    flop = 2.0 * replicates * cells * k * rounds
    return flop, lambda: _products_seconds([((replicates, cells), (cells, k))], [rounds])


def _regression_flop(point: Mapping[str, Any], frame: Any) -> tuple[float, Callable[[], float]]:
    """The data's rotation z·rootᵀ and XᵀX: 4nd²; the floor: those two products alone."""
    n, d = point["n"], point["d"]
    return 4.0 * n * d**2, lambda: _products_seconds([((n, d), (d, d)), ((d, n), (n, d))], [1, 1])


def release_kernels(config: Mapping[str, Any]) -> list[Kernel]:
    """The query-release and linear-regression kernels of the full configuration ``config`` (``config.yaml``)."""
    section, base_seed = config["purification"], int(config["seed"])
    max_rounds = int(section["query_release"]["max_rounds"])
    regression_points = {case: {"n": n, "d": d, "replicate": 0} for case, (n, d) in REGRESSION_POINTS.items()}
    return [
        *(_mwem_kernel(case, d, k, max_rounds) for case, (d, k) in MWEM_SHAPES.items()),
        *(
            _point_kernel("ext_query_release", f"query_release_point_{case}", index, section, base_seed,
                          _query_release_flop)
            for case, index in QUERY_RELEASE_POINTS.items()
        ),
        *(
            _point_kernel("ext_linear_regression", f"linear_regression_point_{case}", point, section, base_seed,
                          _regression_flop)
            for case, point in regression_points.items()
        ),
    ]  # fmt: skip
