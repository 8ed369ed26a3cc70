"""The pipeline-kernel benchmark (benchmarks/kernels.py) in its smallest form; no timing assertions.

References: every derived column is recomputed from the measured ones (seconds per point from the time per step,
GFLOP/s from the counted FLOPs, the ratio to the matmul measured in the same run, the floor's share); the torch-call
counter against a loop with a known number of calls per step; the FLOP count of the F8 kernel against its formula.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from benchmarks import kernels
from benchmarks.settings import quick_settings

TINY = dataclasses.replace(quick_settings(), threads=1, kernel_fraction=0.0, kernel_repeats=1)

KERNELS = {
    "f8_sgld_sparse",
    "f8_sgld_dense",
    "dp_erm_paper",
    "dp_erm_sc_paper",
    "dp_erm_reference",
    "em_grid_loss",
    "audit_mc_gaussian",
    "audit_mc_laplace",
    "audit_grid_laws",
    "pnsgd_utility",
    "mwem_round_d8_k100",
    "mwem_round_d8_k1000",
    "mwem_round_d10_k100",
    "query_release_point_n1e4_d8_k100",
    "query_release_point_n1e5_d8_k100",
    "linear_regression_point_n1e4_d10",
    "linear_regression_point_n1e5_d20",
}


@pytest.fixture(scope="module")
def rows():
    return kernels.kernel_rows(TINY, progress=lambda message: None)


def test_one_row_per_kernel_with_consistent_derived_columns(rows, tmp_path) -> None:
    frame = kernels.write_kernels(rows, tmp_path / "kernels.csv")
    assert list(frame.columns) == list(kernels.KERNEL_COLUMNS) and set(frame.kernel) == KERNELS
    assert (frame.steps_timed == np.minimum(5, frame.steps_per_point)).all()
    np.testing.assert_allclose(frame.seconds_per_point, frame.seconds_per_step * frame.steps_per_point, rtol=1e-12)
    np.testing.assert_allclose(frame.points_per_second, 1 / frame.seconds_per_point, rtol=1e-12)
    np.testing.assert_allclose(frame.gflops_per_second, frame.gflop_per_point / frame.seconds_per_point, rtol=1e-12)
    np.testing.assert_allclose(frame.ratio, frame.gflops_per_second / frame.matmul_gflops_per_second, rtol=1e-12)
    np.testing.assert_allclose(frame.floor_share, frame.floor_seconds / frame.seconds_per_point, rtol=1e-12)
    assert (frame.matmul_gflops_per_second > 0).all() and frame.matmul_gflops_per_second.nunique() == 1
    assert (frame.floor_seconds > 0).all() and (frame.gflop_per_point > 0).all()
    assert "| kernel |" in (tmp_path / "kernels.md").read_text()


def test_the_f8_flop_count_and_point_size_follow_the_configuration(rows) -> None:
    """F8 at n = 10⁴: 10 sets × 2 runs, τ = 100, d = 50, 3000 steps: 4·R·τ·d + 4·R·τ + 4·R·d FLOPs per step."""
    row = next(r for r in rows if r["kernel"] == "f8_sgld_sparse")
    rows_, tau, d = 20, 100, 50
    assert row["steps_per_point"] == 3000
    assert row["gflop_per_point"] == pytest.approx(3000 * (4 * rows_ * tau * d + 4 * rows_ * tau + 4 * rows_ * d) / 1e9)


def test_torch_calls_per_step_counts_a_known_loop() -> None:
    def run(steps: int) -> None:
        w = torch.zeros(3)
        torch.ones(2)  # set-up: cancels in the difference
        for _ in range(steps):
            w = torch.add(w, 1.0).mul_(2.0)

    assert kernels.torch_calls_per_step(run, 10) == 2


def test_no_rows_when_the_kernels_are_skipped() -> None:
    assert kernels.kernel_rows(dataclasses.replace(TINY, kernel_repeats=0), progress=lambda message: None) == []
