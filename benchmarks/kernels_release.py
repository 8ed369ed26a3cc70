"""Pipeline kernels of the purification study's query release (MWEM, Algorithm 14, in ``ext_query_release``) and
linear regression (AdaSSP and Algorithm 13, in ``ext_linear_regression``): points per second and GFLOP/s against a
2048³ float32 matrix product measured in the same run, with the same BLAS.

Rows (one per kernel and case):

- ``mwem_round``: one MWEM round of 20 replicates (d = 8, K = 100, the base point; K = 1000; d = 10), and, as the
  parts that bound it, the same shape's product p·Qᵀ alone (``part = "matmul"``), its noise alone (Gumbel
  (runs, K) and Laplace (runs,) drawn in blocks, ``"noise"``) and the round on a 4-cell, 2-query instance, where the
  arithmetic is nil and only numpy's per-call dispatch is left (``"dispatch"``);
- ``query_release_point``: one point of ``ext_query_release`` in the full configuration (every method, 20
  replicates), the cheapest (n = 10⁴) and the base point (n = 10⁵);
- ``linear_regression_point``: one point of ``ext_linear_regression`` (a data set, its sufficient statistics, every
  method at every ε, 50 draws each), n = 10⁴, d = 10 and n = 10⁵, d = 20.

GFLOP/s counts the dense products only (MWEM: 2·runs·N·K a round, T rounds a run; regression: the data's rotation
and XᵀX, 4nd²): the floor of the arithmetic.  The rest is transcendental functions, random numbers (drawn from the
same streams as before, so that rows stay byte-identical) and dispatch; ``ratio`` = GFLOP/s / matmul GFLOP/s.

``python -m benchmarks.kernels_release [--quick]`` runs them on one BLAS thread (it sets the thread variables before
numpy loads) and prints the table; :func:`kernel_release_rows` returns the rows for ``python -m benchmarks``, whose
BLAS threads are those of its environment (column ``blas_threads``).
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one BLAS thread, as the workflow's jobs run (numpy reads these at import)
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from benchmarks.timing import Timing, time_side_by_side
from dplab.mechanisms.mwem import _mwem_round_noise, half_subset_queries, mwem, sample_histograms
from dplab.workflow.registry import load_study, no_progress, resolve

__all__ = ["KERNEL_COLUMNS", "matmul_gflops", "kernel_release_rows"]

ROOT = Path(__file__).resolve().parent.parent

KERNEL_COLUMNS = (
    "kernel",
    "case",
    "part",
    "unit",
    "median_seconds",
    "iqr_seconds",
    "repeats",
    "points_per_second",
    "gflop_per_point",
    "gflops",
    "matmul_gflops",
    "ratio",
    "blas_threads",
)

RUNS = 20  # replicates of ext_query_release (config.yaml: purification.query_release.seeds)
MWEM_SHAPES = {"d8_k100": (8, 100), "d8_k1000": (8, 1000), "d10_k100": (10, 100)}
MWEM_ROUNDS = 200
QUERY_RELEASE_POINTS = {"n1e4_d8_k100": 0, "n1e5_d8_k100": 2}  # indices into the full configuration's sweep
REGRESSION_POINTS = {"n1e4_d10": (10_000, 10), "n1e5_d20": (100_000, 20)}


def matmul_gflops(size: int = 2048, repeats: int = 3) -> float:
    """GFLOP/s of a size³ float32 numpy matrix product (2·size³ flops; median of ``repeats`` after a warm-up)."""
    rng = np.random.default_rng(0)
    a, b = rng.random((size, size), dtype=np.float32), rng.random((size, size), dtype=np.float32)
    seconds = time_side_by_side({"matmul": lambda: a @ b}, repeats=repeats)["matmul"].median
    return 2.0 * size**3 / seconds / 1e9


def _blas_threads() -> str:
    return os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"


def _rows(
    kernel: str, case: str, timings: Mapping[str, Timing], gflop: Mapping[str, float], unit: str, matmul: float
) -> list[dict[str, Any]]:
    """One row per timed part: points per second, GFLOP/s from ``gflop`` (per point) and the ratio to ``matmul``."""
    rows = []
    for part, timing in timings.items():
        rate = gflop[part] / timing.median
        rows.append(
            {
                "kernel": kernel,
                "case": case,
                "part": part,
                "unit": unit,
                "median_seconds": timing.median,
                "iqr_seconds": timing.iqr,
                "repeats": timing.repeats,
                "points_per_second": 1.0 / timing.median,
                "gflop_per_point": gflop[part],
                "gflops": rate,
                "matmul_gflops": matmul,
                "ratio": rate / matmul,
                "blas_threads": _blas_threads(),
            }
        )
    return rows


def _mwem_instance(d: int, k: int, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Histograms of n = 10⁵ product-Bernoulli records (one per replicate) and K half-subset queries on {0,1}^d."""
    rng = np.random.default_rng(0)
    return sample_histograms(100_000, rng.uniform(0.1, 0.9, (runs, d)), rng), half_subset_queries(d, k, rng)


def _mwem_parts(d: int, k: int) -> dict[str, Callable[[], object]]:
    """The round and its bounds at (d, K): the whole round, its product p·Qᵀ, its noise, and the dispatch alone."""
    counts, queries = _mwem_instance(d, k, RUNS)
    tiny_counts, tiny_queries = _mwem_instance(2, 2, 1)
    p = counts / counts.sum(axis=1, keepdims=True)
    queries_t = np.ascontiguousarray(queries.T)
    current = np.empty((RUNS, k))
    epsilon0 = 1.5e-3  # mwem_reference's ε₀ at the base point (n = 10⁵, ε_tot = 2, T = 4667)

    def matmul() -> None:
        for _ in range(MWEM_ROUNDS):
            np.matmul(p, queries_t, out=current)

    return {
        "kernel": lambda: mwem(counts, queries, 1e5, MWEM_ROUNDS, epsilon0, np.random.default_rng(1)),
        "matmul": matmul,
        "noise": lambda: [None for _ in _mwem_round_noise(np.random.default_rng(1), MWEM_ROUNDS, RUNS, k, 1e-2)],
        "dispatch": lambda: mwem(tiny_counts, tiny_queries, 1e5, MWEM_ROUNDS, epsilon0, np.random.default_rng(1)),
    }


def _mwem_rows(repeats: int, matmul: float, log: Callable[[str], None]) -> list[dict[str, Any]]:
    rows = []
    for case, (d, k) in MWEM_SHAPES.items():
        log(f"kernels: MWEM round {case}")
        timings = time_side_by_side(_mwem_parts(d, k), repeats=repeats, units=MWEM_ROUNDS)
        flop = 2.0 * RUNS * 2**d * k / 1e9
        gflop = {"kernel": flop, "matmul": flop, "noise": 0.0, "dispatch": 2.0 * 4 * 2 / 1e9}
        rows += _rows("mwem_round", case, timings, gflop, "round of 20 replicates", matmul)
    return rows


def _full_configuration() -> tuple[dict[str, Any], int]:
    config = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    return config["purification"], int(config["seed"])


def _point_rows(
    artifact_id: str,
    kernel: str,
    points: Mapping[str, Mapping[str, Any] | int],
    flop: Callable[[Any, Any], float],
    repeats: int,
    matmul: float,
    log: Callable[[str], None],
) -> list[dict[str, Any]]:
    """Rows of whole points of ``artifact_id`` (full configuration): ``points`` maps a case to a sweep index or to a
    point; ``flop(point, frame)`` counts a point's dense flops from its rows."""
    study, (section, base_seed) = load_study("purification"), _full_configuration()
    artifact = study.artifact(artifact_id)
    params, seed = artifact.params(section), artifact.seed(base_seed, "purification")
    sweep, compute = artifact.sweep(params), resolve(artifact.compute)
    rows = []
    for case, index in points.items():
        log(f"kernels: {kernel} {case}")
        point = sweep[index] if isinstance(index, int) else index
        frame = compute(params, seed, no_progress, point)
        timings = time_side_by_side({"kernel": lambda: compute(params, seed, no_progress, point)}, repeats=repeats)
        rows += _rows(kernel, case, timings, {"kernel": flop(point, frame) / 1e9}, "point", matmul)
    return rows


def _query_release_flop(point: Mapping[str, Any], frame: Any) -> float:
    """2·runs·N·K per round of every MWEM run of the point (Algorithm 16's, the reference's, pure MWEM's), with
    the rounds and replicates of its rows."""
    runs = frame[frame["method"].isin(["alg16_mwem_stage", "mwem_reference", "pure_mwem"])]
    rounds = runs.groupby("method")["rounds"].first().sum()
    return 2.0 * runs["replicate"].nunique() * 2 ** point["d"] * point["k"] * float(rounds)


def _regression_flop(point: Mapping[str, Any], frame: Any) -> float:
    """The data's rotation z·rootᵀ and XᵀX: 4nd²."""
    return 4.0 * point["n"] * point["d"] ** 2


def kernel_release_rows(repeats: int = 5, log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Every row of this module (columns :data:`KERNEL_COLUMNS`), each median over ``repeats`` interleaved calls
    after a warm-up, against one matmul rate measured first."""
    log("kernels: 2048^3 float32 matmul")
    matmul = matmul_gflops()
    regression_points = {case: {"n": n, "d": d, "replicate": 0} for case, (n, d) in REGRESSION_POINTS.items()}
    return [
        *_mwem_rows(repeats, matmul, log),
        *_point_rows(
            "ext_query_release", "query_release_point", QUERY_RELEASE_POINTS, _query_release_flop, repeats, matmul, log
        ),
        *_point_rows(
            "ext_linear_regression",
            "linear_regression_point",
            regression_points,
            _regression_flop,
            repeats,
            matmul,
            log,
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    import pandas as pd

    parser = argparse.ArgumentParser(prog="python -m benchmarks.kernels_release", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="3 repeats instead of 7")
    args = parser.parse_args(argv)
    rows = kernel_release_rows(3 if args.quick else 7, log=lambda message: print(f"[kernels] {message}", flush=True))
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(pd.DataFrame(rows, columns=list(KERNEL_COLUMNS)).to_string(index=False, float_format="%.4g"))


if __name__ == "__main__":
    main()
