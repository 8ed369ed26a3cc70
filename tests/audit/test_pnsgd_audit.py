"""The PNSGD audit's pieces (dplab.audit.pnsgd_audit) against references written out here: Clopper-Pearson bounds
from scipy's beta quantiles, the grid law of dplab.audit.grid for the simulated outputs, tie-breaking by name."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from dplab.audit.grid import UniformGrid, bin_index, linear_loss_psi, pnsgd_output_laws
from dplab.audit.pnsgd_audit import (
    BOUND_TOLERANCE,
    bound_violations,
    first_of_largest,
    grid_event_lower_bound,
    simulated_pnsgd_bin_counts,
    worst_instances,
)
from dplab.learning import LinearLoss, NoisyGradientConfig, run_noisy_gradient
from dplab.learning.projections import Interval


def test_grid_event_lower_bound_is_the_clopper_pearson_difference():
    """Event at eps = 0: {k : p_k > q_k} = bin 0; P_lo, Q_hi the alpha/2 one-sided beta quantiles."""
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])
    counts_p, counts_q, m, alpha = np.array([60, 40, 0]), np.array([3, 50, 47]), 100, 0.1
    bound = grid_event_lower_bound(p, q, counts_p, counts_q, m, np.array([0.0]), alpha)
    p_lower = stats.beta.ppf(alpha / 2, 60, m - 60 + 1)
    q_upper = stats.beta.ppf(1 - alpha / 2, 3 + 1, m - 3)
    assert bound.lower[0] == pytest.approx(max(0.0, p_lower - q_upper), rel=1e-9)
    assert bound.estimate[0] == pytest.approx(0.60 - 0.03, rel=1e-12)


def test_simulated_counts_follow_the_grid_law_of_the_chain():
    """Two Gaussian PNSGD steps on [-1, 1]: the simulated bin frequencies against the grid-propagated law
    (total variation within Monte-Carlo error, about sqrt(bins / samples))."""
    grid, samples = UniformGrid(-1.0, 1.0, 40), 40_000
    data = np.array([1.0, -1.0])
    counts = simulated_pnsgd_bin_counts(
        grid, 0.2, data, lr=0.5, noise="gaussian", scale=1.0, interval=(-1.0, 1.0), L=1.0,
        samples=samples, chunk=10_000, generator=torch.Generator().manual_seed(3),
    )  # fmt: skip
    p, _ = pnsgd_output_laws(
        grid, y0=0.2, data=data, data_prime=data, lr=0.5, scale=1.0, noise="gaussian", psi=linear_loss_psi(0.5)
    )
    assert counts.sum() == samples
    assert 0.5 * np.abs(counts / samples - p).sum() < 0.03


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_simulated_counts_are_the_engines_runs_bit_for_bit(noise):
    """The audit's loop (Y_t = Π(Y_{t−1} − lr·(x_t + Z_t)) in place) against run_noisy_gradient on the same
    configuration (single pass, linear loss, projection on the interval), chunk by chunk from one generator."""
    grid, data, samples, chunk = UniformGrid(0.0, 1.0, 50), np.array([1.0, -1.0, 0.0, 1.0, 1.0]), 2500, 1000
    counts = simulated_pnsgd_bin_counts(
        grid, 0.3, data, lr=0.5, noise=noise, scale=2.0, interval=(0.0, 1.0), L=1.0, samples=samples, chunk=chunk,
        generator=torch.Generator().manual_seed(9),
    )  # fmt: skip
    config = NoisyGradientConfig(lr=0.5, noise=noise, noise_scale=2.0, projection=Interval(0.0, 1.0))
    generator, expected = torch.Generator().manual_seed(9), np.zeros(grid.size, dtype=np.int64)
    for runs in (1000, 1000, 500):
        outputs = run_noisy_gradient(
            config, LinearLoss(offset=1.0), data[:, None], None, [0.3], runs=runs, generator=generator
        )
        expected += np.bincount(bin_index(outputs[:, 0].numpy(), grid), minlength=grid.size)
    np.testing.assert_array_equal(counts, expected)


def test_ties_between_mirror_instances_go_to_the_first_name():
    frame = pd.DataFrame(
        {"i": [1, 1, 2, 2], "instance": ["A_swapped", "A", "B", "C"], "delta_grid": [0.3 + 1e-12, 0.3, 0.2, 0.1]}
    )
    assert first_of_largest(frame, ["i"])["instance"].tolist() == ["A", "B"]
    assert worst_instances(frame) == {1: "A", 2: "B"}


def test_bound_violations_only_beyond_the_tolerance():
    frame = pd.DataFrame({"delta_grid": [0.1, 0.2 + BOUND_TOLERANCE / 2, 0.3], "bound": [0.2, 0.2, 0.2]})
    violations = bound_violations(frame, ["delta_grid"], ["bound"])
    assert violations["excess"].tolist() == pytest.approx([0.1])
