"""The release kernels' benchmark (benchmarks/kernels_release.py) without timing it: its row arithmetic on a recorded
timing, its flop count of a query-release point against the rounds that Algorithm 16's and MWEM's parameters give,
and its timed parts on two rounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks import kernels_release
from benchmarks.timing import Timing
from dplab.mechanisms.mwem import (
    MwemRun,
    algorithm16_parameters,
    mwem_rounds_fixed_point,
    pure_mwem_rounds_fixed_point,
)
from dplab.studies.purification.plan import query_release_jobs
from dplab.studies.purification.query_release import query_release_job
from dplab.workflow.config import load_config
from dplab.workflow.registry import no_progress

QUICK = load_config("config.quick.yaml")["purification"]["query_release"]


def test_rows_recompute_rates_from_the_median():
    rows = kernels_release._rows(
        "mwem_round", "d8_k100", {"kernel": Timing((0.4, 0.5, 0.7))}, {"kernel": 2.0}, "round", 40.0
    )
    (row,) = rows
    assert set(row) == set(kernels_release.KERNEL_COLUMNS)
    assert row["median_seconds"] == 0.5 and row["points_per_second"] == 2.0
    assert row["gflops"] == 4.0 and row["ratio"] == 0.1 and row["matmul_gflops"] == 40.0


def _rounds(fixed_point: float, cap: int) -> int:
    return min(max(1, round(fixed_point)), cap)


def test_query_release_flop_count_is_every_mwem_run_of_the_point():
    """2·runs·2^d·K per round over Algorithm 16's T (ε = ε_tot/2, uncapped), the reference's (δ = 1/n²) and pure
    MWEM's (both capped at max_rounds), recomputed from the library's parameter functions."""
    point = query_release_jobs(QUICK)[0]
    frame = query_release_job(QUICK, 20200114, no_progress, point)
    n, d, k, eps = point["n"], point["d"], point["k"], point["epsilon_total"]
    cap = QUICK["max_rounds"]
    rounds = (
        algorithm16_parameters(n, d, k, eps / 2).rounds
        + _rounds(mwem_rounds_fixed_point(n, d, k, eps, 2 * math.log(n)), cap)
        + _rounds(pure_mwem_rounds_fixed_point(n, d, k, eps), cap)
    )
    expected = 2.0 * QUICK["seeds"] * 2**d * k * rounds
    assert kernels_release._query_release_flop(point, frame) == pytest.approx(expected, rel=1e-12)


def test_regression_flop_count():
    assert kernels_release._regression_flop({"n": 1000, "d": 5}, None) == 4 * 1000 * 25


def test_mwem_parts_run(monkeypatch):
    """Each timed part runs on the case's shapes (two rounds here); the kernel is MWEM itself."""
    monkeypatch.setattr(kernels_release, "MWEM_ROUNDS", 2)
    monkeypatch.setattr(kernels_release, "RUNS", 3)
    parts = kernels_release._mwem_parts(4, 5)
    assert set(parts) == {"kernel", "matmul", "noise", "dispatch"}
    run = parts["kernel"]()
    assert isinstance(run, MwemRun) and run.chosen.shape == (3, 2) and np.allclose(run.synthetic.sum(axis=1), 1)
    assert parts["dispatch"]().chosen.shape == (1, 2)
    assert parts["noise"]() == [None, None]
    parts["matmul"]()
