"""The release kernels (benchmarks/kernels_release.py) without timing them: their FLOP counts against the rounds
that Algorithm 16's and MWEM's parameters give, the MWEM kernels' point size against the reference MWEM's T, and
their timed parts on two rounds. Their rows in the kernels table: tests/benchmarks/test_kernels.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks import kernels_release
from dplab.mechanisms.mwem import (
    MwemRun,
    algorithm16_parameters,
    lemma36_rho,
    mwem_rounds_fixed_point,
    pure_mwem_rounds_fixed_point,
)
from dplab.studies.purification.plan import query_release_jobs
from dplab.studies.purification.query_release import query_release_job
from dplab.workflow.config import load_config
from dplab.workflow.registry import no_progress

QUICK = load_config("config.quick.yaml")["purification"]["query_release"]


def _rounds(fixed_point: float, cap: int) -> int:
    return min(max(1, round(fixed_point)), cap)


def test_query_release_flop_count_is_every_mwem_run_of_the_point():
    """2·runs·2^d·K per round over Algorithm 16's T (ε = ε_tot/2, uncapped), the reference's (δ = 1/n²) and pure
    MWEM's (both capped at max_rounds), recomputed from the library's parameter functions; the floor times them."""
    point = query_release_jobs(QUICK)[0]
    frame = query_release_job(QUICK, 20200114, no_progress, point)
    n, d, k, eps = point["n"], point["d"], point["k"], point["epsilon_total"]
    cap = QUICK["max_rounds"]
    rounds = (
        algorithm16_parameters(n, d, k, eps / 2).rounds
        + _rounds(mwem_rounds_fixed_point(n, d, k, eps, 2 * math.log(n)), cap)
        + _rounds(pure_mwem_rounds_fixed_point(n, d, k, eps), cap)
    )
    flop, floor = kernels_release._query_release_flop(point, frame)
    assert flop == pytest.approx(2.0 * QUICK["seeds"] * 2**d * k * rounds, rel=1e-12)
    assert floor() > 0


def test_regression_flop_count():
    flop, floor = kernels_release._regression_flop({"n": 1000, "d": 5}, None)
    assert flop == 4 * 1000 * 25 and floor() > 0


def test_mwem_kernel_point_is_the_reference_run_at_its_shape():
    """T = the reference MWEM's capped fixed point at n = 10⁵, ε_tot = 2, δ = 1/n² (4667 at d = 8, K = 100, the base
    point); 2·runs·2^d·K FLOPs a round."""
    kernel = kernels_release._mwem_kernel("d8_k100", 8, 100, 20_000)
    log_inv_delta = 2 * math.log(1e5)
    assert kernel.steps_per_point == _rounds(mwem_rounds_fixed_point(1e5, 8, 100, 2.0, log_inv_delta), 20_000) == 4667
    assert kernel.flops_per_step == 2.0 * 20 * 2**8 * 100
    assert kernels_release._mwem_kernel("d8_k100", 8, 100, 100).steps_per_point == 100  # capped
    assert kernels_release._reference_rounds(8, 100, 20_000)[1] == pytest.approx(
        math.sqrt(lemma36_rho(2.0, log_inv_delta) / 4667), rel=1e-15
    )


def test_mwem_parts_run(monkeypatch):
    """Each timed part runs on the case's shapes (two rounds here); the kernel is MWEM itself."""
    monkeypatch.setattr(kernels_release, "RUNS", 3)
    parts = kernels_release._mwem_parts(4, 5, 1e-3)
    assert set(parts) == {"kernel", "product", "noise", "dispatch"}
    run = parts["kernel"](2)
    assert isinstance(run, MwemRun) and run.chosen.shape == (3, 2) and np.allclose(run.synthetic.sum(axis=1), 1)
    assert parts["dispatch"](2).chosen.shape == (1, 2)
    assert parts["noise"](2) == [None, None]
    parts["product"](2)
